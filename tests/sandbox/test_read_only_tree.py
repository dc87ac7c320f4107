"""The judged tree is read-only to a run given `writable` (Sandbox.run): it may write those paths
and its own temporary folders, and nothing else of the workdir, its top included.

Three guards, each tried alone where it stands alone: bwrap's read-only bind and Landlock's
ruleset in a workdir that isn't kept (lent whole: the uid owns every entry, so only the wall
stops it), ownership on the process tier in a kept workdir (the insides autofix's, the top and
the writable paths alone lent), and both together in a kept workdir on bwrap and landlock.
A candidate that has read autofix's source tries what would rewrite its own judgement: a new
conftest.py in a test folder, a module at the top that shadows an import, an existing file
rewritten, a forged .pyc under a new __pycache__, a file renamed or removed, a mode changed.
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from test_sandbox import ROOT, get_sandbox, private_tmp, requires_root  # noqa: F401 - private_tmp: a fixture

from bot.sandbox.tiers import Kept, Limits, allowed_environ, keep_workdir

ATTACKS = """
    import errno, json, os, tempfile
    tried = {}

    def attempt(name, act):
        try:
            act()
            tried[name] = "allowed"
        except OSError as exc:
            tried[name] = errno.errorcode.get(exc.errno, str(exc))

    def write(path, text="PLANTED = 1\\n", mode="w"):
        with open(path, mode) as file:
            file.write(text)

    attempt("conftest in a subfolder", lambda: write("tests/conftest.py"))
    attempt("a file at the top", lambda: write("pytest.py"))
    attempt("an existing file rewritten", lambda: write("tests/test_it.py"))
    attempt("an existing file appended to", lambda: write("mod.py", mode="a"))
    attempt("a __pycache__ at the top", lambda: os.mkdir("__pycache__"))
    attempt("a __pycache__ in a subfolder", lambda: os.mkdir("tests/__pycache__"))
    attempt("a file renamed", lambda: os.rename("tests/test_it.py", "tests/test_gone.py"))
    attempt("a file removed", lambda: os.remove("mod.py"))
    attempt("a folder removed", lambda: os.rmdir("tests/empty"))
    attempt("a mode changed", lambda: os.chmod("mod.py", 0o666))
    attempt("the top's mode changed", lambda: os.chmod(".", 0o777))
    attempt("through a link in the exempt folder", lambda: write("out/link", mode="a"))
    attempt("the exempt folder", lambda: write("out/result.txt"))
    attempt("a folder in the exempt folder", lambda: os.makedirs("out/deeper/still"))
    attempt("the exempt file", lambda: write("tests/record.json", "{}"))
    attempt("the temporary folder", lambda: write(os.path.join(tempfile.gettempdir(), "scratch.txt")))
    print(json.dumps(tried))
"""
WRITABLE = {"the exempt folder", "a folder in the exempt folder", "the exempt file", "the temporary folder"}
FILES = {"mod.py": "VALUE = 1\n", "tests/test_it.py": "from mod import VALUE\n", "tests/record.json": "[]"}


def tree(root: Path) -> dict[str, str]:
    return {
        str(path.relative_to(root)): path.read_text() if path.is_file() else "folder"
        for path in sorted(root.rglob("*"))
        if "out" not in path.relative_to(root).parts
    }


def work_folder(top: Path) -> Path:
    work = top / "work"
    for rel, text in FILES.items():
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        (work / rel).write_text(text)
    (work / "tests" / "empty").mkdir()
    (work / "out").mkdir()  # made by the caller: an exempt folder that must exist
    (work / "out" / "link").symlink_to("../mod.py")  # the repository's own link, out of the folder
    return work


@contextmanager
def kept(sandbox, work: Path, keep: bool) -> Iterator[None]:
    """The workdir kept as a judge keeps its scratch copy (its insides autofix's), or not."""
    if not keep:
        yield
        return
    with sandbox.lease(None) as slot:
        keep_workdir(work, Kept(slot))
        try:
            yield
        finally:
            keep_workdir(work, None)


def attack(tier: str, work: Path, keep: bool) -> dict[str, str]:
    sandbox = get_sandbox(tier)
    writable = [str(work / "out"), str(work / "tests" / "record.json")]
    with kept(sandbox, work, keep):
        outcome = sandbox.run(
            [sys.executable, "-c", textwrap.dedent(ATTACKS)],
            work,
            allowed_environ(),
            Limits(wall_seconds=20),
            writable=writable,
        )
    assert outcome.returncode == 0, outcome.output
    return json.loads(outcome.output)


GUARDS = [
    pytest.param("bwrap", False, id="bwrap's read-only bind alone"),
    pytest.param("landlock", False, id="Landlock's ruleset alone"),
    pytest.param("process", True, id="ownership alone", marks=requires_root),
    pytest.param("bwrap", True, id="bwrap and ownership", marks=requires_root),
    pytest.param("landlock", True, id="Landlock and ownership", marks=requires_root),
]


@pytest.mark.parametrize(("tier", "keep"), GUARDS)
def test_a_run_writes_only_where_it_was_told_it_may(private_tmp, tier, keep):
    work = work_folder(private_tmp)
    before = tree(work)
    tried = attack(tier, work, keep)
    # Landlock doesn't mediate chmod: in a workdir lent whole, the uid's own files take it
    # (their content doesn't); in a kept one, ownership refuses it
    chmod = {"a mode changed", "the top's mode changed"} if (tier, keep) == ("landlock", False) else set()
    assert {name for name, what in tried.items() if what == "allowed"} == WRITABLE | chmod, tried
    assert tree(work) == {**before, "tests/record.json": "{}"}  # the exempt file alone changed
    assert (work / "out" / "result.txt").read_text() == "PLANTED = 1\n"
    assert sorted(p.name for p in (work / "out").iterdir()) == ["deeper", "link", "result.txt"]


@requires_root
@pytest.mark.parametrize("tier", ["bwrap", "landlock", "process"])
def test_a_kept_workdir_goes_back_to_autofix_after_the_run(private_tmp, tier):
    work = work_folder(private_tmp)
    attack(tier, work, True)
    owners = {os.lstat(path).st_uid for path in [work, *work.rglob("*")]}
    assert owners == {os.getuid()}  # the lent paths and what the run made in them, handed back
    assert os.lstat(work).st_gid == os.getgid() and (work.stat().st_mode & 0o777) == 0o755


@requires_root
def test_the_process_tier_refuses_a_read_only_run_in_a_workdir_that_isnt_kept(private_tmp):
    """Only ownership could keep it read-only there, and its insides aren't autofix's to reown."""
    work = work_folder(private_tmp)
    with pytest.raises(ValueError, match="the process tier keeps a workdir read-only only when it is kept"):
        get_sandbox("process").run(["true"], work, allowed_environ(), Limits(), writable=[])


@pytest.mark.parametrize(
    "path", ["{work}", "{work}/../elsewhere", "/etc", "{work}/link/inside", "relative"], ids=lambda p: p
)
def test_a_writable_path_must_be_a_real_path_inside_the_workdir(private_tmp, path):
    work = work_folder(private_tmp)
    (private_tmp / "elsewhere").mkdir()
    (work / "link").symlink_to(private_tmp / "elsewhere")
    with pytest.raises(ValueError, match="is not a real path inside the workdir"):
        get_sandbox("landlock").run(["true"], work, allowed_environ(), Limits(), writable=[path.format(work=work)])


def test_a_writable_path_that_doesnt_exist_is_left_out_and_the_run_cant_make_it(private_tmp):
    work = work_folder(private_tmp)
    outcome = get_sandbox("landlock").run(
        ["mkdir", "missing"],
        work,
        allowed_environ(),
        Limits(wall_seconds=20),
        writable=[str(work / "missing")],
    )
    assert outcome.returncode != 0 and "Permission denied" in outcome.output, outcome.output
    assert not (work / "missing").exists()


@requires_root
def test_a_file_with_another_name_is_never_lent(private_tmp):
    """Lending it would lend the other name too: a log the tests may write, linked to a module."""
    work = work_folder(private_tmp)
    os.link(work / "mod.py", work / "tests" / "log.txt")
    sandbox = get_sandbox("process")
    with kept(sandbox, work, True):
        outcome = sandbox.run(
            [sys.executable, "-c", "open('tests/log.txt', 'w').write('VALUE = 2')"],
            work,
            allowed_environ(),
            Limits(wall_seconds=20),
            writable=[str(work / "tests" / "log.txt")],
        )
    assert outcome.returncode == 1 and "PermissionError" in outcome.output, outcome.output
    assert (work / "mod.py").read_text() == "VALUE = 1\n"
