"""The Action image's pins (.github/image/requirements.txt) hold every runtime requirement of
pyproject.toml and what each requires in turn: the image installs autofix's wheel with `--no-deps`,
so a requirement the pins lack is missing there alone (it once died on `import markdown_it`).
tests/image_env.py holds the check; `make image-env` also installs the pins and the wheel into a
fresh environment and imports every module."""

import subprocess
import sys
from pathlib import Path

import image_env
import pytest


def test_every_runtime_requirement_is_pinned_for_the_image():
    assert image_env.unpinned() == []


def test_the_pins_are_read_for_the_image_s_python():
    assert image_env.image_python() == "3.11"  # the Dockerfile's base, python:3.11-slim-bookworm


def without(tmp_path: Path, name: str) -> Path:
    """The image's pins with `name`'s line removed."""
    lines = image_env.PINS.read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [line for line in lines if not line.lower().startswith(f"{name.lower()}==")]
    assert len(kept) == len(lines) - 1, f"no pin of {name}"
    path = tmp_path / "requirements.txt"
    path.write_text("".join(kept), encoding="utf-8")
    return path


def test_a_direct_requirement_s_pin_removed_is_named(tmp_path):
    assert image_env.unpinned(without(tmp_path, "markdown-it-py")) == ["markdown-it-py, required by autofix"]


def test_a_requirement_s_own_requirement_removed_is_named(tmp_path):
    assert image_env.unpinned(without(tmp_path, "mdurl")) == ["mdurl, required by markdown-it-py"]
    assert image_env.unpinned(without(tmp_path, "typing_extensions")) == ["typing-extensions, required by openai"]


def test_a_pin_pyproject_excludes_is_named(tmp_path):
    pins = tmp_path / "requirements.txt"
    pins.write_text(image_env.PINS.read_text(encoding="utf-8").replace("sqlglot==", "sqlglot==1.0.0\n# was "))
    assert image_env.unpinned(pins) == ["sqlglot==1.0.0 is outside pyproject.toml's sqlglot>=30.30"]


def distribution(folder: Path, name: str, *requires: str) -> None:
    """An installed distribution, as importlib.metadata finds one: its dist-info and metadata."""
    info = folder / f"{name}-1.0.dist-info"
    info.mkdir()
    lines = ["Metadata-Version: 2.1", f"Name: {name}", "Version: 1.0", *(f"Requires-Dist: {r}" for r in requires)]
    (info / "METADATA").write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_a_new_runtime_requirement_and_what_it_requires_must_be_pinned(tmp_path, monkeypatch):
    """pyproject.toml gains a dependency: it, what it requires on the image's Linux CPython 3.11
    (an extra asked for included), and what that requires in turn; mdurl is pinned already."""
    site = tmp_path / "site"
    site.mkdir()
    distribution(
        site, "newdep", "mdurl>=0.1", "stillnew>=2", "speedups; extra == 'fast'", "docs-only; extra == 'docs'",
        "winonly; sys_platform == 'win32'", "backport; python_version < '3.11'",
        "arm-only; platform_machine == 'aarch64'",
    )  # fmt: skip
    distribution(site, "stillnew", "deeper")
    distribution(site, "speedups")
    distribution(site, "deeper")
    monkeypatch.syspath_prepend(str(site))
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[project]\ndependencies = ["newdep[fast]>=1"]\n', encoding="utf-8")
    assert image_env.unpinned(pyproject=pyproject) == [
        "newdep, required by autofix",
        "stillnew, required by newdep",
        "speedups, required by newdep",
        "deeper, required by stillnew",
    ]


def test_make_image_env_stops_at_a_missing_pin_before_building(tmp_path):
    done = subprocess.run(
        [sys.executable, image_env.__file__, "--pins", without(tmp_path, "markdown-it-py"), "--work", tmp_path / "w"],
        capture_output=True,
        text=True,
    )
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == "image-env: requirements.txt lacks: markdown-it-py, required by autofix\n"
    assert not (tmp_path / "w").exists()


def test_a_line_that_is_no_pin_is_named(tmp_path):
    pins = tmp_path / "requirements.txt"
    pins.write_text("# a comment\nopenai>=1.40\n")
    with pytest.raises(image_env.Failed) as caught:
        image_env.pins(pins)
    assert str(caught.value) == "requirements.txt:2: not a pin (name==version): openai>=1.40"
