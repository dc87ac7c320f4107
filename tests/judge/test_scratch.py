"""One scratch copy per judge, put back between runs (bot/judge/scratch.py), on every tier.

A candidate that knows autofix's source may shape the copy to change a later candidate's
verdict: it writes, deletes and renames files at any depth, changes a file and gives it back its
size and mtime, replaces a protected file and a folder, plants links, a FIFO, a hard link and an
extended attribute. The next candidate's copy must hold none of it: an observer candidate takes
the fingerprint of its copy from inside the sandbox before and after, and the two must match.

A virtual environment in the work folder is shared read-only instead of copied: no candidate may
change it, through the copy's link or by its own path.

Both ways of finding what a run changed are held to it: find(1) naming what changed since the
run began, which narrows the comparison, and the comparison of every entry without it.
"""

import hashlib
import json
import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from suite_env import PYTHON as SUITE_PYTHON
from test_sandbox import ROOT, private_tmp  # noqa: F401 - private_tmp: a fixture

from bot.judge import gate
from bot.judge.scratch import Scratch
from bot.judge.validate import Validator, python_paths
from bot.sandbox.tiers import Limits, allowed_environ, open_sandbox
from bot.spec import Spec

TIERS = ["bwrap", "landlock", pytest.param("process", marks=pytest.mark.skipif(not ROOT, reason="needs root"))]
RIGHT = "def unique_items(items):\n    return list(dict.fromkeys(items))\n"
TEST_FILE = (
    "from unique import unique_items\n\n\ndef test_order():\n    assert unique_items([3, 1, 3, 2, 1]) == [3, 1, 2]\n"
)
# What the copy looks like from inside: every entry (the candidate's own file left out), its
# kind, mode, whether the run's uid owns it, its content, link target and extended attributes.
FINGERPRINT = """
import hashlib, os, stat


def fingerprint():
    seen = []
    for folder, folders, files in os.walk('.'):
        for name in sorted(folders + files):
            path = os.path.join(folder, name)
            if path == './unique.py':
                continue
            info = os.lstat(path)
            kind = stat.S_IFMT(info.st_mode)
            text = ''
            if stat.S_ISLNK(info.st_mode):
                text = os.readlink(path)
            elif stat.S_ISREG(info.st_mode):
                text = hashlib.sha256(open(path, 'rb').read()).hexdigest() + ' %d' % info.st_mtime_ns
            attributes = sorted(os.listxattr(path, follow_symlinks=False)) if not stat.S_ISLNK(info.st_mode) else []
            seen.append((path, kind, stat.S_IMODE(info.st_mode), info.st_uid == os.getuid(), text, attributes))
    return hashlib.sha256(repr(seen).encode()).hexdigest()
"""
SHAPES = """
import os

for refused in (  # the copy is read-only to the run but for its exempt folder
    lambda: open('planted.py', 'w').write('PLANTED = 1\\n'),
    lambda: os.replace('data/keep.txt', 'tests/test_unique.py'),
    lambda: os.rename('data', 'data-away'),
):
    try:
        refused()
        raise AssertionError('written')
    except PermissionError:
        pass
    except OSError as error:
        assert error.errno in (18, 30), error  # EXDEV, EROFS: bwrap's read-only bind and the lent one
os.makedirs('data/nested/deep/new', exist_ok=True)
open('data/nested/deep/new/planted.txt', 'w').write('planted')
open('data/nested/deep/file.txt', 'a').write('more')
same = 'data/nested/same.txt'
before = os.stat(same)
with open(same, 'r+') as changed:
    changed.write('ABCDEFGHIJ')  # the same size
os.utime(same, ns=(before.st_atime_ns, before.st_mtime_ns))  # and the same mtime
os.remove('data/gone.txt')
os.rename('data/renamed.txt', 'data/renamed-too.txt')
os.rename('data/moved', 'data/moved-away')
os.mkdir('data/moved')
open('data/moved/inner.txt', 'w').write('not the original')
os.chmod('data', 0o700)
os.chmod('data/keep.txt', 0o600)
os.setxattr('data/nested', 'user.planted', b'1')
os.symlink('/etc/passwd', 'data/link')
os.mkfifo('data/fifo')
os.link('data/keep.txt', 'data/keep-link.txt')
"""


def work_folder(root: Path) -> Path:
    for path, text in {
        "unique.py": "def unique_items(items):\n    return list(set(items))\n",
        "tests/test_unique.py": TEST_FILE,
        "data/keep.txt": "keep",
        "data/gone.txt": "gone",
        "data/renamed.txt": "renamed",
        "data/nested/same.txt": "0123456789",
        "data/nested/deep/file.txt": "deep",
        "data/moved/inner.txt": "inner",
        "moved/inner.txt": "inner",
    }.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def validator(folder: Path, tier: str) -> Validator:
    spec = Spec.model_validate(
        {
            "task": "t",
            "target": "unique.py",
            "tests": {"code": "assert fingerprint() == '', 'fingerprint'\n", "exempt": ["data"]},
        }
    )
    spec.workdir = folder
    return Validator(spec, open_sandbox(tier, readable=python_paths(folder)), screen=None)


def fingerprint(checker: Validator, before: str = "") -> str:
    """The observer's fingerprint of its copy: its one check fails, naming the value."""
    verdict = checker.check(FINGERPRINT + before + RIGHT)
    found = re.search(r"fingerprint: expected '', got '([0-9a-f]{64})'", verdict.feedback)
    assert found, verdict.feedback
    return found[1]


def compared_by(checker: Validator, how: str) -> None:
    """Make the copy's comparison after a run go through find(1) whatever the folder's size, or
    through Python's walk alone."""
    checker.preflight()
    [scratch] = checker.copies.idle
    assert scratch.finder.find is not None  # findutils: the judge's own machine has it
    if how == "find":
        scratch.finder.small = 0
        scratch.finder.parts = 1  # no folder opened up: find alone names what changed below the top
    else:
        scratch.finder.find = None


@pytest.mark.parametrize("how", ["find", "walk"])
@pytest.mark.parametrize("tier", TIERS)
def test_what_a_candidate_did_to_the_copy_is_gone_for_the_next(private_tmp, tier, how):
    checker = validator(work_folder(private_tmp / "work"), tier)
    compared_by(checker, how)
    clean = fingerprint(checker)
    verdict = checker.check(FINGERPRINT + SHAPES + RIGHT)
    assert verdict.failing == ["fingerprint"]  # every shape was made in the exempt folder, or refused
    assert fingerprint(checker) == clean
    # the shapes stay out the second time too: a candidate's change to what was put back is seen
    checker.check(FINGERPRINT + SHAPES + RIGHT)
    assert fingerprint(checker) == clean


@pytest.mark.parametrize("tier", TIERS)
def test_the_whole_suite_sees_no_file_an_earlier_run_left(private_tmp, tier):
    folder = work_folder(private_tmp / "work")
    (folder / "tests" / "test_leftovers.py").write_text(
        "import os\n\n\ndef test_nothing_left_behind():\n"
        "    assert not os.path.exists('data/left.txt') and not os.path.exists('data/nested/deep/left.txt')\n"
        "    open('data/left.txt', 'w').write('left')\n    open('data/nested/deep/left.txt', 'w').write('left')\n"
    )
    command = f"{SUITE_PYTHON} -m pytest -q tests"
    spec = Spec.model_validate(  # the tree is read-only to the suite but for its exempt folder
        {"task": "t", "target": "unique.py", "tests": {"command": command, "exempt": ["data"]}}
    )
    spec.workdir = folder
    checker = Validator(spec, open_sandbox(tier, readable=python_paths(folder)))
    assert checker.preflight() == []
    assert checker.check(RIGHT).passed
    assert checker.check(RIGHT).passed


def test_a_judgement_whose_uid_is_busy_takes_another_and_the_copy_follows(private_tmp):
    checker = validator(work_folder(private_tmp / "work"), "bwrap")
    clean = fingerprint(checker)
    [scratch] = checker.copies.idle
    first = scratch.uid
    with checker.sandbox.lease(first) as busy:  # another run holds the copy's uid
        assert busy is not None and busy.uid == first
        checker.check(FINGERPRINT + SHAPES + RIGHT)
        assert fingerprint(checker) == clean  # owned by the uid it ran as: the fingerprint checks
    assert scratch.uid != first


def test_a_gates_copy_takes_in_what_changed_in_the_folder(private_tmp):
    folder = work_folder(private_tmp / "work")
    suite = gate.Suite(
        open_sandbox("bwrap", readable=python_paths(folder)), f"{SUITE_PYTHON} -m pytest -q tests", (), 20
    )
    assert suite.run(folder).failing == {"tests.test_unique::test_order"}
    (folder / "unique.py").write_text(RIGHT)
    (folder / "data" / "gone.txt").unlink()
    (folder / "data" / "nested" / "new.txt").write_text("new")
    assert suite.run(folder).failing == set()
    scratch = suite.copies[folder].idle[0] if folder in suite.copies else None
    assert scratch is not None
    assert tree(scratch.work) == tree(folder)
    (folder / "unique.py").write_text("def unique_items(items):\n    return []\n")
    assert suite.run(folder).failing == {"tests.test_unique::test_order"}


def tree(root: Path) -> dict[str, str]:
    return {
        str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "folder"
        for path in root.rglob("*")
        if "__pycache__" not in path.parts
    }


VENV_WRITER = """
import os, sys
tried = []
venv = os.path.realpath('.venv')
for what, act in [
    ('link', lambda: open('.venv/lib/planted.py', 'w').write('x')),
    ('append', lambda: open('.venv/pyvenv.cfg', 'a').write('x')),
    ('remove', lambda: os.remove('.venv/lib/site.py')),
    ('chmod', lambda: os.chmod('.venv/lib', 0o777)),
    ('rename', lambda: os.rename('.venv/lib/site.py', '.venv/lib/moved.py')),
    ('by its path', lambda: open(os.path.join(venv, 'lib', 'planted.py'), 'w').write('x')),
    ('node_modules', lambda: open('node_modules/pkg/index.js', 'w').write('x')),
]:
    try:
        act()
        tried.append(what)
    except OSError:
        pass
try:
    os.remove('.venv')  # the copy's link to it, in a top the run can't write
    tried.append('the link')
except OSError:
    pass
"""


def venv_folder(root: Path) -> Path:
    folder = work_folder(root)
    for path, text in {
        ".venv/pyvenv.cfg": f"home = {os.path.dirname(sys.executable)}\n",
        ".venv/lib/site.py": "SITE = 1\n",
        "node_modules/pkg/index.js": "module.exports = 1\n",
    }.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(text)
    return folder


@pytest.mark.parametrize("tier", TIERS)
def test_a_virtual_environment_is_shared_read_only_and_no_candidate_changes_it(private_tmp, tier):
    folder = venv_folder(private_tmp / "work")
    if tier != "process":  # writable by anyone: the bind or Landlock alone keeps the run out
        for path in [folder / ".venv", folder / "node_modules", *(folder / ".venv").rglob("*")]:
            path.chmod(0o777)
        for path in (folder / "node_modules").rglob("*"):
            path.chmod(0o777)
    original = tree(folder / ".venv") | {"node": tree(folder / "node_modules")["pkg/index.js"]}
    checker = validator(folder, tier)
    assert checker.preflight() == ["shared read-only, not copied: .venv, node_modules"]
    [scratch] = checker.copies.idle
    assert os.readlink(scratch.work / ".venv") == os.path.realpath(folder / ".venv")  # a link, not a copy
    clean = fingerprint(checker)
    verdict = checker.check(FINGERPRINT + VENV_WRITER + "assert not tried, tried\n" + RIGHT)
    assert verdict.failing == ["fingerprint"]  # its own check alone: every write was refused
    assert tree(folder / ".venv") | {"node": tree(folder / "node_modules")["pkg/index.js"]} == original
    assert fingerprint(checker) == clean


@pytest.mark.skipif(not ROOT, reason="needs root")
def test_the_process_tier_copies_a_virtual_environment_the_sandbox_could_write(private_tmp):
    folder = venv_folder(private_tmp / "work")
    os.chmod(folder / ".venv" / "lib" / "site.py", 0o646)
    checker = validator(folder, "process")
    [shared, copied] = checker.preflight()
    assert shared == "shared read-only, not copied: node_modules"
    assert copied == (
        f"copied .venv rather than sharing it read-only: {os.path.realpath(folder)}/.venv/lib/site.py "
        "is writable by the sandbox's uids"
    )
    assert fingerprint(checker)  # it runs in its own copy


@pytest.mark.parametrize("tier", TIERS)
def test_the_tests_run_from_a_virtual_environment_in_the_work_folder(private_tmp, tier):
    folder = work_folder(private_tmp / "work")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", folder / ".venv"], check=True)
    site = Path(sysconfig.get_path("purelib", vars={"base": str(folder / ".venv")}))
    (site / "autofix-tests.pth").write_text(sysconfig.get_path("purelib") + "\n")  # this interpreter's pytest
    spec = Spec.model_validate(
        {"task": "t", "target": "unique.py", "tests": {"command": ".venv/bin/python -m pytest -q tests"}}
    )
    spec.workdir = folder
    checker = Validator(spec, open_sandbox(tier, readable=python_paths(folder)))
    # its site-packages lie in the work folder, yet they are no copy of the code under test
    assert checker.preflight() == ["shared read-only, not copied: .venv"]
    assert checker.check(RIGHT).passed


def test_a_clock_set_back_during_a_run_has_every_entry_compared(private_tmp):
    """A change made after the clock was set back may carry a ctime older than those remembered,
    which find would not name: autofix notices the real-time clock fell behind the monotonic one
    and compares every entry instead."""
    checker = validator(work_folder(private_tmp / "work"), "bwrap")
    compared_by(checker, "find")
    [scratch] = checker.copies.idle
    called = private_tmp / "find-called"
    fake_find = private_tmp / "find"
    fake_find.write_text(f"#!/bin/sh\necho called >> {called}\nexit 1\n")  # fails: the walk compares all
    fake_find.chmod(0o755)
    scratch.finder.find = str(fake_find)
    clean = fingerprint(checker)
    assert called.read_text() == "called\n"  # the clock as it was: find is asked
    offsets = iter([10**12, 0])  # as the run begins, then after it: set back by 1,000 s
    scratch.clock_offset = lambda: next(offsets)
    checker.check(FINGERPRINT + SHAPES + RIGHT)
    assert called.read_text() == "called\n"  # not asked again
    scratch.clock_offset = lambda: 0
    assert fingerprint(checker) == clean


READ_ONLY_ATTACKS = """
import errno, json, os
tried = {}
for what, act in [
    ('read a file only its owner could read', lambda: open('data/keep.txt').read()),
    ('read in a folder only its owner could enter', lambda: open('moved/inner.txt').read()),
    ('write the exempt folder', lambda: open('out/result.txt', 'w').write('x')),
    ('plant a conftest.py', lambda: open('tests/conftest.py', 'w').write('x')),
    ('shadow a module at the top', lambda: open('pytest.py', 'w').write('x')),
    ('rewrite the candidate', lambda: open('unique.py', 'w').write('x')),
    ('rewrite a test', lambda: open('tests/test_unique.py', 'a').write('x')),
    ('make a __pycache__', lambda: os.mkdir('tests/__pycache__')),
    ('rename a file', lambda: os.rename('data/renamed.txt', 'data/renamed-too.txt')),
    ('remove a file', lambda: os.remove('data/gone.txt')),
    ('chmod a folder', lambda: os.chmod('data', 0o777)),
]:
    try:
        act()
        tried[what] = 'allowed'
    except OSError as exc:
        tried[what] = errno.errorcode[exc.errno]
print(json.dumps(tried))
"""


@pytest.mark.parametrize("tier", TIERS)
def test_a_run_told_what_it_may_write_finds_the_rest_of_the_copy_read_only(private_tmp, tier):
    """The copy's insides are autofix's and readable by others; only the writable paths are lent."""
    folder = work_folder(private_tmp / "work")
    os.chmod(folder / "data" / "keep.txt", 0o600)
    os.chmod(folder / "moved", 0o700)
    sandbox = open_sandbox(tier, readable=python_paths(folder))
    scratch = Scratch(folder, sandbox, ("tests",))
    for _ in range(2):  # the second judgement finds the copy as the first did
        with scratch.use() as work:
            scratch.write("unique.py", RIGHT)
            (work / "out").mkdir()  # the caller makes the exempt folder
            outcome = sandbox.run(
                [sys.executable, "-c", READ_ONLY_ATTACKS],
                work,
                allowed_environ(),
                Limits(wall_seconds=20),
                writable=[str(work / "out")],
            )
            assert outcome.returncode == 0, outcome.output
            tried = json.loads(outcome.output)
            allowed = {what for what, said in tried.items() if said == "allowed"}
            assert allowed == {
                "read a file only its owner could read",
                "read in a folder only its owner could enter",
                "write the exempt folder",
            }, tried
            assert scratch.restore() == []
            assert not (work / "out").exists() and (work / "data" / "gone.txt").exists()
            assert {os.lstat(path).st_uid for path in [work, *work.rglob("*")]} == {os.getuid()}
