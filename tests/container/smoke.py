"""The container smoke test: build the Action's image and run `autofix action` in it the way
GitHub's runner starts a container action (`--workdir /github/workspace`, the runner's mounts,
every input as `INPUT_*`, the workspace owned by the runner's user, the engine's default seccomp
profile), against the project's fake GitHub and scripted model server started here, for six
jobs (scenarios.py): a hostile candidate the sandbox holds, then three real repositories from
PyPI, each with its own suite and one planted bug, whose `setup` installs them from a package
index served here (index.py): a labeled issue naming its target, a free-form issue, a pull
request's red CI; a real npm package's Jest suite (no-case 3.0.4), a pull request's red CI
after the workflow's `npm ci`; and a real Go module's suite (gosimple/slug v1.15.0), a pull
request's red CI, its `setup` (`go mod download`) from a module proxy served beside the index,
run by the image's Go. Each must end in the right pull request, on the `landlock` tier, with nothing
in the workspace left owned by root and `report-path` naming a file the next step can read.
One line per scenario says how long it took; a failing one prints its log.

    python tests/container/smoke.py                 # builds with docker, else podman
    python tests/container/smoke.py --image IMAGE   # an image built already (the release workflow)
    python tests/container/smoke.py --base IMAGE    # build FROM a local stand-in for the pinned base
    python tests/container/smoke.py --standin       # where the pinned base can't be pulled: standin_base.sh
    python tests/container/smoke.py --seccomp default.json   # podman, with Docker's own profile
    python tests/container/smoke.py --shift-uids    # podman, where autofix's tests run on the host too
    python tests/container/smoke.py --scenario red-ci        # only that one (repeatable)

docker counts only where its daemon answers; else podman, with runc where it is installed (crun,
podman's default, refuses hybrid cgroups). AUTOFIX_CONTAINER_ENGINE overrides the engine command.
Without either it prints one line saying so and exits 0. The servers listen on the host's
loopback, so the container shares the host's network (`--network host`). Run it as root: the
workspace is handed to the runner's uid (1001), as actions/checkout leaves it.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "support"), str(HERE)]

import index  # noqa: E402
import projects  # noqa: E402
import runner  # noqa: E402
from runner import Engine  # noqa: E402
from scenarios import SCENARIOS, Context  # noqa: E402

STANDIN = "localhost/autofix-standin-base:bookworm"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--image", help="an image built already; default: build the Dockerfile")
    parser.add_argument("--base", help="build FROM this image instead of the Dockerfile's pinned base")
    parser.add_argument("--standin", action="store_true", help="where the pinned base can't be pulled, build FROM "
                        "a stand-in (standin_base.sh)")  # fmt: skip
    parser.add_argument("--seccomp", help="a seccomp profile for the container (default: the engine's)")
    parser.add_argument("--shift-uids", action="store_true", help="podman: give autofix's uid pools host uids of "
                        "their own, where autofix's tests run on the host too (runner.Engine.shifted)")  # fmt: skip
    names = [s.name for s in SCENARIOS]
    parser.add_argument("--scenario", action="append", choices=names, help="run only these (default: all)")
    parser.add_argument("--keep", action="store_true", help="keep the workspaces, logs and reports, and say where")
    args = parser.parse_args()
    engine = _engine()
    if engine is None:
        print("skipped: no docker daemon answers and podman is not installed")
        return 0
    chosen = [s for s in SCENARIOS if not args.scenario or s.name in args.scenario]
    tmp = Path(tempfile.mkdtemp(prefix="autofix-smoke-"))
    failures: list[str] = []
    context = None
    try:
        started = time.monotonic()
        with ThreadPoolExecutor(3) as pool:  # the downloads go on while the image builds
            image = pool.submit(lambda: args.image or _build(engine, args.base or _base(engine, args.standin)))
            trees = pool.submit(projects.fetch, projects.PROJECTS, tmp / "sdists")
            needs = sorted({need for project in projects.PROJECTS for need in project.needs})
            pool.submit(index.download, needs, tmp / "pypi").result()
            context = Context(Engine(engine, image.result(), args.seccomp), "", trees.result())
        (tmp / "pypi" / "goproxy").symlink_to(projects.go_proxy(tmp / "sdists"))  # served beside the index
        print(f"ready in {time.monotonic() - started:.0f} s: the image, the projects, the local index and module proxy")
        if args.shift_uids and context.engine.podman:
            context = Context(context.engine.shifted(), "", context.trees)
            print(f"the pools' uids {runner.POOLS}-65535 are the host's {runner.POOLS + runner.SHIFT} and up")
        elif args.shift_uids:
            print("--shift-uids: docker maps user namespaces for the whole daemon only; not shifted")
        with index.served(tmp / "pypi") as url:
            context = Context(context.engine, url, context.trees)
            for scenario in chosen:
                failures += _run(scenario, context, tmp / scenario.name)
    finally:
        if context is not None and context.engine.rootfs is not None:
            context.engine.output("image", "unmount", context.engine.image)
        if args.keep:
            print(f"kept: {tmp}")
        else:
            shutil.rmtree(tmp)
    for failure in failures:
        print(f"FAILED: {failure}")
    print(f"container smoke test: {'failed' if failures else 'passed'} in {time.monotonic() - started:.0f} s")
    return 1 if failures else 0


def _engine() -> list[str] | None:
    if os.environ.get("AUTOFIX_CONTAINER_ENGINE"):
        return shlex.split(os.environ["AUTOFIX_CONTAINER_ENGINE"])
    docker = shutil.which("docker")
    if docker and subprocess.run([docker, "version"], capture_output=True).returncode == 0:
        return [docker]  # a client alone (no daemon answers) is no engine
    podman = shutil.which("podman")
    if podman is None:
        return None
    argv = [podman]
    if shutil.which("runc"):  # crun, podman's default, refuses a host's hybrid cgroups (v1 and v2 mounted)
        argv += ["--runtime", "runc"]
    if not Path("/run/systemd/system").is_dir():  # no systemd to ask for cgroups
        argv += ["--cgroup-manager", "cgroupfs"]
    return argv


def _base(engine: list[str], standin: bool) -> str | None:
    """None: the Dockerfile's pinned base. With `standin`, where the engine can't pull it, the
    stand-in (made once, then reused)."""
    if not standin:
        return None
    lines = (ROOT / "Dockerfile").read_text().splitlines()
    pinned = next(line for line in lines if line.startswith("FROM ")).split()[1]
    if subprocess.run([*engine, "pull", "--quiet", pinned], capture_output=True, timeout=600).returncode == 0:
        return None
    if subprocess.run([*engine, "image", "inspect", STANDIN], capture_output=True).returncode != 0:
        print(f"the pinned base can't be pulled here: building {STANDIN} (standin_base.sh)")
        subprocess.run([str(HERE / "standin_base.sh"), shlex.join(engine), STANDIN], check=True,
                       stdout=subprocess.DEVNULL)  # fmt: skip
    print(f"the pinned base can't be pulled here: building FROM {STANDIN}")
    return STANDIN


def _build(engine: list[str], base: str | None) -> str:
    dockerfile = ROOT / "Dockerfile"
    with tempfile.TemporaryDirectory() as tmp:
        if base:  # only the FROM line changes: every other step is built as GitHub builds it
            lines = dockerfile.read_text().splitlines(keepends=True)
            first = next(i for i, line in enumerate(lines) if line.startswith("FROM "))
            lines[first] = f"FROM {base} AS base\n"
            dockerfile = Path(tmp) / "Dockerfile"
            dockerfile.write_text("".join(lines))
        started = time.monotonic()
        limits = Engine(engine, "", None).limits()
        built = subprocess.run([*engine, "build", *limits, "--tag", "autofix:smoke", "--file", str(dockerfile),
                                str(ROOT)], capture_output=True, text=True)  # fmt: skip
        if built.returncode != 0:
            print(built.stdout + built.stderr)
            raise SystemExit(f"the image did not build (exit {built.returncode})")
    size = subprocess.run([*engine, "image", "inspect", "autofix:smoke", "--format", "{{.Size}}"],
                          check=True, capture_output=True, text=True).stdout.strip()  # fmt: skip
    print(f"built autofix:smoke in {time.monotonic() - started:.0f} s: {int(size) / 1e6:.0f} MB")
    return "autofix:smoke"


def _run(scenario, context: Context, tmp: Path) -> list[str]:
    tmp.mkdir()
    started = time.monotonic()
    failures = scenario.run(context, tmp)
    seconds = time.monotonic() - started
    print(f"{scenario.name}: {'FAILED' if failures else 'passed'} in {seconds:.0f} s ({scenario.about})")
    if failures:
        print((tmp / "action.log").read_text() if (tmp / "action.log").exists() else "(no log)")
    return [f"{scenario.name}: {failure}" for failure in failures]


if __name__ == "__main__":
    sys.exit(main())
