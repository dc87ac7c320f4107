"""The Action image's Python environment, without building the image (`make image-env`).

The image installs autofix's wheel with `--no-deps` beside the pins of
`.github/image/requirements.txt` (the Dockerfile), so a runtime dependency pyproject.toml gains
and the pins lack is missing only in the image: it once died on import for every user
(`No module named 'markdown_it'`) while every test passed. Two checks:

1. `unpinned`: every runtime requirement of pyproject.toml and everything it requires in turn,
   read from the installed distributions' metadata with the markers of the image's Python on
   Linux, has its pin; a direct one's pin satisfies pyproject.toml's specifier. Quick:
   tests/test_image_pins.py runs it too.
2. The image's interpreter view: the wheel built as the Dockerfile builds it (`pip wheel --no-deps
   --no-build-isolation` with the pinned backend, from a copy of what the Dockerfile copies),
   installed with `--no-deps` beside the pins, themselves installed with `--no-deps` so a missing
   one can't be fetched unpinned, into a fresh virtual environment of the image's Python; then
   `pip check`, `autofix --help`, `autofix action` on an event it ignores, and an import of every
   module of `bot`.

    python tests/image_env.py                  # both; out/image-env holds what it made
    python tests/image_env.py --pins FILE      # against other pins (tests/test_image_pins.py)

Packages come from PyPI, or pip's cache when warm.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
import tomllib
from collections import deque
from importlib import metadata
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name, parse_wheel_filename
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
PINS = ROOT / ".github" / "image" / "requirements.txt"
BUILD_PINS = ROOT / ".github" / "image" / "build-requirements.txt"
PYPROJECT = ROOT / "pyproject.toml"
DOCKERFILE = ROOT / "Dockerfile"
WORK = ROOT / "out" / "image-env"

# An event `autofix action` ignores without calling GitHub: the step still reads its inputs, the
# repository's configuration and the event, routes it, and writes its outputs.
EVENT = {"action": "labeled", "label": {"name": "bug"}, "issue": {"number": 1}, "sender": {"login": "octocat"}}
IGNORED = "autofix: ignored: label 'bug' is not 'autofix'"
OUTPUTS = ["passed", "attempts", "pr-number", "pr-url", "pr-operation", "report-path"]

# Run by the fresh environment's Python in isolated mode (-I: neither the working folder nor
# PYTHONPATH on sys.path, so `bot` is the wheel's): every module, each failure named.
IMPORT_ALL = """
import importlib, pkgutil, bot
failed = []
names = [m.name for m in pkgutil.walk_packages(bot.__path__, "bot.", onerror=failed.append)]
for name in names:
    if name == "bot.__main__":  # runs the command on import; `autofix --help` runs it
        continue
    try:
        importlib.import_module(name)
    except Exception as exc:
        failed.append(f"{name}: {type(exc).__name__}: {exc}")
print("\\n".join(map(str, failed)) if failed else len(names))
raise SystemExit(1 if failed else 0)
"""


class Failed(Exception):
    """One line: what failed."""


def image_python() -> str:
    """The image's Python version, from the Dockerfile's base (`FROM python:3.11-...`)."""
    found = re.search(r"^FROM python:(\d+\.\d+)[-@:]", DOCKERFILE.read_text(encoding="utf-8"), re.M)
    if found is None:
        raise Failed(f"{DOCKERFILE.name}: no `FROM python:X.Y-...` line to read the image's Python from")
    return found[1]


def marker_environment(python: str) -> dict[str, str]:
    """The markers as the image's CPython on x86-64 Linux evaluates them, whatever runs this."""
    return default_environment() | {
        "implementation_name": "cpython", "platform_python_implementation": "CPython",
        "os_name": "posix", "sys_platform": "linux", "platform_system": "Linux", "platform_machine": "x86_64",
        "python_version": python, "python_full_version": f"{python}.0", "implementation_version": f"{python}.0",
    }  # fmt: skip


def pins(path: Path) -> dict[str, str]:
    """`name==version` per line (comments and blank lines aside), by canonical name."""
    found = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        pin = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;]+)", text)
        if pin is None:
            raise Failed(f"{path.name}:{number}: not a pin (name==version): {text}")
        found[canonicalize_name(pin[1])] = pin[2]
    return found


def runtime_requirements(pyproject: Path = PYPROJECT) -> list[Requirement]:
    with pyproject.open("rb") as file:
        return [Requirement(text) for text in tomllib.load(file)["project"]["dependencies"]]


def required(roots: list[Requirement], environment: dict[str, str]) -> dict[str, str]:
    """Every distribution `roots` need where `environment` holds, by canonical name, with who needs
    it first (breadth first: the nearest). Read from the installed distributions' metadata."""
    needed: dict[str, str] = {}
    todo = deque(("autofix", requirement, frozenset[str]()) for requirement in roots)
    seen = set()
    while todo:
        parent, requirement, parent_extras = todo.popleft()
        marker = requirement.marker
        if marker is not None and not any(marker.evaluate(environment | {"extra": e}) for e in {"", *parent_extras}):
            continue
        name = canonicalize_name(requirement.name)
        needed.setdefault(name, parent)
        if (name, frozenset(requirement.extras)) in seen:
            continue
        seen.add((name, frozenset(requirement.extras)))
        try:
            dist = metadata.distribution(requirement.name)
        except metadata.PackageNotFoundError:
            raise Failed(f"{requirement.name} (required by {parent}) is not installed here: run `make`") from None
        extras = frozenset(requirement.extras)
        todo.extend((dist.metadata["Name"], Requirement(text), extras) for text in dist.requires or [])
    return needed


def unpinned(pins_path: Path = PINS, pyproject: Path = PYPROJECT) -> list[str]:
    """What the image's pins lack, one line each: a runtime requirement not pinned (`mdurl, required
    by markdown-it-py`), or a direct one pinned at a version pyproject.toml excludes."""
    pinned = pins(pins_path)
    roots = runtime_requirements(pyproject)
    problems = [
        f"{name}, required by {parent}"
        for name, parent in required(roots, marker_environment(image_python())).items()
        if name not in pinned
    ]
    for requirement in roots:
        version = pinned.get(canonicalize_name(requirement.name))
        if version is not None and not requirement.specifier.contains(version, prereleases=True):
            problems.append(f"{requirement.name}=={version} is outside pyproject.toml's {requirement}")
    return problems


def run(what: str, argv: list[str | Path], **kwargs) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(arg) for arg in argv], capture_output=True, text=True, **kwargs)
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        raise Failed(f"{what}: exit status {done.returncode}")
    return done


def interpreter(python: str) -> str:
    """A Python of the image's version: this one, else `pythonX.Y` on PATH."""
    if f"{sys.version_info.major}.{sys.version_info.minor}" == python:
        return sys.executable
    found = shutil.which(f"python{python}")
    if found is None:
        raise Failed(f"the image runs Python {python}; install python{python} (this is {sys.version.split()[0]})")
    return found


def fresh_venv(python: str, path: Path) -> Path:
    shutil.rmtree(path, ignore_errors=True)
    run(f"python -m venv {path.name}", [python, "-m", "venv", path])
    return path / "bin"


def pip(bindir: Path, *args: str | Path) -> list[str | Path]:
    return [bindir / "python", "-m", "pip", "--disable-pip-version-check", "--quiet", *args]


def wheelhouse(bindir: Path, pin_files: list[Path], folder: Path) -> Path:
    """The pinned wheels for the image's Python, each downloaded once, so a warm run installs
    offline (pip's own cache still asks the index about every pin); a wheel no pin names goes."""
    wanted = {(name, Version(version)) for path in pin_files for name, version in pins(path).items()}
    folder.mkdir(parents=True, exist_ok=True)
    held = set()
    for wheel in folder.glob("*.whl"):
        name, version, _, _ = parse_wheel_filename(wheel.name)
        if (name, version) in wanted:
            held.add((name, version))
        else:
            wheel.unlink()
    lacking = [f"{name}=={version}" for name, version in sorted(wanted - held)]
    if lacking:  # wheels only: the image's base has no compiler
        run("pip download", pip(bindir, "download", "--no-deps", "--only-binary=:all:", "--dest", folder, *lacking))
    return folder


def build_venv(python: str, path: Path, house: Path) -> Path:
    """The backend's environment, made again when its pins change: it isn't the image's view."""
    stamp, wanted = path / "autofix-pins", BUILD_PINS.read_text(encoding="utf-8")
    if not stamp.is_file() or stamp.read_text(encoding="utf-8") != wanted:
        bindir = fresh_venv(python, path)
        run("pip install the build requirements", pip(bindir, "install", "--no-index", "-f", house, "-r", BUILD_PINS))
        stamp.write_text(wanted, encoding="utf-8")
    return path / "bin"


def build_wheel(python: str, work: Path, house: Path) -> Path:
    """The Dockerfile's `wheel` stage: the pinned backend, what it copies, `pip wheel`."""
    source = work / "src"
    shutil.rmtree(source, ignore_errors=True)
    source.mkdir(parents=True)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    shutil.copytree(ROOT / "bot", source / "bot", ignore=shutil.ignore_patterns("__pycache__"))
    bindir = build_venv(python, work / "build", house)
    wheels = work / "wheels"
    shutil.rmtree(wheels, ignore_errors=True)
    run("pip wheel", pip(bindir, "wheel", "--no-deps", "--no-build-isolation", "--wheel-dir", wheels, source))
    [wheel] = wheels.glob("autofix-*.whl")
    return wheel


def action(bindir: Path, work: Path) -> None:
    """`autofix action` as the image's entry point, with a runner's variables and an event it ignores."""
    world = work / "action"
    shutil.rmtree(world, ignore_errors=True)
    (world / "workspace").mkdir(parents=True)
    (world / "temp").mkdir()
    event = world / "event.json"
    event.write_text(json.dumps(EVENT), encoding="utf-8")
    environ = {
        "PATH": f"{bindir}:/usr/local/bin:/usr/bin:/bin", "HOME": str(world), "LANG": "C.UTF-8",
        "GITHUB_EVENT_NAME": "issues", "GITHUB_EVENT_PATH": str(event), "GITHUB_REPOSITORY": "octocat/hello",
        "GITHUB_WORKSPACE": str(world / "workspace"), "GITHUB_OUTPUT": str(world / "output"),
        "RUNNER_TEMP": str(world / "temp"), "INPUT_GITHUB-TOKEN": "not-a-token", "INPUT_SANDBOX": "auto",
    }  # fmt: skip
    done = run("autofix action", [bindir / "autofix", "action"], env=environ, cwd=world / "workspace")
    lines = done.stdout.splitlines()
    if done.stderr or not lines or lines[-1] != IGNORED:
        sys.stderr.write(done.stdout + done.stderr)
        raise Failed(f"autofix action: expected exit 0 and {IGNORED!r} last, nothing on stderr")
    written = re.findall(r"^([\w-]+)<<ghadelimiter_", (world / "output").read_text(encoding="utf-8"), re.M)
    if written != OUTPUTS:
        raise Failed(f"autofix action: wrote the outputs {written}, expected {OUTPUTS}")


def image_env(pins_path: Path, work: Path) -> str:
    python = interpreter(image_python())
    bindir = fresh_venv(python, work / "venv")
    house = wheelhouse(bindir, [pins_path, BUILD_PINS], work / "wheelhouse")
    wheel = build_wheel(python, work, house)
    # The pins without their dependencies too: one they lack fails `pip check` instead of coming unpinned.
    install = pip(bindir, "install", "--no-deps", "--no-compile", "--no-index", "-f", house)
    run("pip install the pins", [*install, "-r", pins_path])
    run("pip install autofix's wheel", [*install, wheel])
    run("pip check", [bindir / "python", "-m", "pip", "check"])
    usage = run("autofix --help", [bindir / "autofix", "--help"], cwd=work)
    if not usage.stdout.startswith("usage: autofix"):
        raise Failed(f"autofix --help: printed {usage.stdout[:80]!r}")
    action(bindir, work)
    modules = run("import every module of bot", [bindir / "python", "-I", "-c", IMPORT_ALL], cwd=work)
    return f"{len(pins(pins_path))} pins and {wheel.name}: pip check, --help, action, {modules.stdout.strip()} modules"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pins", type=Path, default=PINS, help="the image's pins (default: %(default)s)")
    parser.add_argument("--work", type=Path, default=WORK, help="where to build (default: %(default)s)")
    args = parser.parse_args(argv)
    start = time.monotonic()
    try:
        missing = unpinned(args.pins)
        if missing:
            raise Failed(f"{args.pins.name} lacks: {'; '.join(missing)}")
        said = image_env(args.pins.resolve(), args.work.resolve())
    except Failed as exc:
        print(f"image-env: {exc}", file=sys.stderr)
        return 1
    print(f"image-env: {said} ({time.monotonic() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
