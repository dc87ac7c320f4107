"""The README's workflow files as nektos/act runs them here, and one act run of a job.

The files are examples/workflows/ as a user copies them (the README's workflow is the short form
of autofix-issues.yml), changed in three places only, each checked to be there exactly once so a
change to the examples fails loudly rather than silently testing something else:

- `uses: autofix/autofix@v1` becomes `uses: ./.github/actions/autofix`: the action in the
  checkout, this working tree's copy (act builds its Dockerfile, as GitHub builds an action
  that isn't a published image). It is in the workspace untracked and git-ignored, as a file an
  earlier step left: autofix leaves such files out of the tests' copies and never commits them.
- `base-url:` is added to the step's `with:`: the scripted model server on loopback, as a user
  of any OpenAI-compatible server sets it.
- `actions/upload-artifact` becomes a `run:` step under the same `if:` that reads the report the
  way the artifact step would find it (`report-path`, relative to the workspace) and prints the
  step's outputs: offline, no action can be fetched, and act's artifact server would need it.

`actions/checkout` stays as written: act skips a checkout of the workflow's own repository and
binds the working copy instead (`--bind`), so nothing is fetched from GitHub.

Where act differs from GitHub's runner (the runner's side is tests/container/runner.py):
- paths: the workspace is the host's path of the working copy, not /github/workspace, and the
  event, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY live under /var/run/act/, not /github/; RUNNER_TEMP
  is /tmp. autofix must take every path from the environment, never assume /github/.
- inputs: act passes each input as `INPUT_<NAME>` with its hyphens (`INPUT_GITHUB-TOKEN`), as
  GitHub does, and (issue #41's observation) also without the prefix; autofix reads the
  `INPUT_` names only, so the others change nothing.
- the job's environment: with a platform image (`-P ubuntu-latest=IMAGE`, as here) act runs the
  job in a container like GitHub's; mapped to `-self-hosted` it runs on the host with the host's
  environment and paths, which the action's container then can't see (the event file among
  them): a one-line error, exit 2. Not run here: GitHub never does that.
- the docker socket: act binds it into every container it starts unless told `-`, as here
  (GitHub's runner binds its own); nothing of autofix's needs it.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from action_world import API_KEY, REPO, TOKEN

ROOT = Path(__file__).resolve().parents[2]
ACTION = ".github/actions/autofix"  # where the checkout holds the action
ACT_TIMEOUT = 900  # seconds for one act run (the first builds the image): a hang fails the scenario
OUTPUTS = "act-outputs="
REPORT = "act-report="
# The step that replaces actions/upload-artifact: what the next step of a user's job sees.
READ_STEP = """\
      - if: always() && steps.autofix.outputs.report-path != ''
        env:
          OUTPUTS: ${{ toJSON(steps.autofix.outputs) }}
        run: |
          python3 - <<'EOF'
          import json, os
          outputs = json.loads(os.environ["OUTPUTS"])
          report = json.load(open(outputs["report-path"].splitlines()[0]))
          print("@OUTPUTS@" + json.dumps(outputs))
          print("@REPORT@" + json.dumps({"passed": report["passed"], "sandbox": report["sandbox"],
                                    "attempts": len(report["attempts"])}))
          EOF
""".replace("@OUTPUTS@", OUTPUTS).replace("@REPORT@", REPORT)


def workflow(name: str, base_url: str) -> str:
    """examples/workflows/`name`, changed as the module's docstring says."""
    text = (ROOT / "examples" / "workflows" / name).read_text()
    text = _once(text, "uses: autofix/autofix@v1", f"uses: ./{ACTION}")
    text = _once(text, "          model: gpt-4.1-mini\n",
                 f"          model: gpt-4.1-mini\n          base-url: {base_url}\n")  # fmt: skip
    step = r"      - if: always\(\) && steps\.autofix\.outputs\.report-path != ''\n"
    upload = re.search(step + r"        uses: actions/upload-artifact@v4\n(?:          .*\n|        with:\n)*", text)
    assert upload and text.count("actions/upload-artifact") == 1, f"{name}: the upload-artifact step moved"
    return text[: upload.start()] + READ_STEP + text[upload.end() :]


def _once(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, f"{old!r} is not in the workflow exactly once"
    return text.replace(old, new)


@dataclass(frozen=True)
class Run:
    code: int  # act's exit: 0 when the job succeeded
    log: str
    seconds: float
    outputs: dict[str, str]  # the autofix step's, as the next step printed them; {} when it didn't run
    report: dict  # what the next step read in the report


def act(*, event_name: str, event: dict, workflow_text: str, workdir: Path, tmp: Path, platform: str,
        docker_host: str, userns: str, mounts: list[Path], api_url: str, web_url: str) -> Run:  # fmt: skip
    """One act run of `workflow_text` for `event`, the working copy `workdir` bound into the job.
    `mounts` (origin, as the checkout's remote names it) are bound at their own paths into the
    job's and the action's containers; the GitHub URLs point at the fake."""
    (tmp / "workflow.yml").write_text(workflow_text)
    (tmp / "event.json").write_text(json.dumps(event))
    home = tmp / "act-home"  # no ~/.actrc or cache of the caller's reaches the run
    home.mkdir(exist_ok=True)
    binary = Path(sys.executable).parent / "act"  # installed into the venv by `make act`
    argv = [
        str(binary), event_name, "--workflows", str(tmp / "workflow.yml"), "--eventpath", str(tmp / "event.json"),
        "--directory", str(workdir), "--bind", "--platform", f"ubuntu-latest={platform}", "--pull=false",
        "--container-daemon-socket", "-", "--network", "host", "--no-cache-server",
        "--action-cache-path", str(home / "actions"), "--rm",
        # deprecated, yet the only way: --container-options' --userns refuses a namespace's path
        "--userns", userns,
        "--secret", f"GITHUB_TOKEN={TOKEN}", "--secret", f"OPENAI_API_KEY={API_KEY}",
        # act takes the repository from the checkout's origin, here a path: the event's is named
        "--env", f"GITHUB_REPOSITORY={REPO}", "--env", f"GITHUB_API_URL={api_url}",
        "--env", f"GITHUB_SERVER_URL={web_url}",
        # the host's network for the action's container too, where act would join the job's
        # (`container:`): from the shifted user namespace runc can't enter another's network
        "--container-options", " ".join(["--network=host", *(f"-v {path}:{path}" for path in mounts)]),
    ]  # fmt: skip
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(home), "DOCKER_HOST": docker_host}
    started = time.monotonic()
    try:
        done = subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=ACT_TIMEOUT)  # fmt: skip
        code, log = done.returncode, done.stdout + done.stderr
    except subprocess.TimeoutExpired as exc:
        code, log = -1, f"{_text(exc.stdout)}{_text(exc.stderr)}\n(killed after {ACT_TIMEOUT} s)"
    (tmp / "act.log").write_text(log)
    return Run(code, log, time.monotonic() - started, _printed(log, OUTPUTS), _printed(log, REPORT))


def _printed(log: str, marker: str) -> dict:
    """The JSON the read step printed after `marker` (act shows a step's lines as `... | line`)."""
    found = re.findall(rf"\| {re.escape(marker)}(.*)$", log, flags=re.MULTILINE)
    return json.loads(found[-1]) if found else {}


def _text(data: bytes | str | None) -> str:
    return data.decode(errors="replace") if isinstance(data, bytes) else data or ""
