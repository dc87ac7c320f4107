"""The protected-path check on trees and files a hostile candidate shaped."""

import hashlib
import json
import os
import socket
import stat
from pathlib import Path

import pytest
from test_safefs import deadline, listing, nest, write_at

from bot import safefs
from bot.core.report import Attempt, Report
from bot.judge import integrity
from bot.spec import DEFAULT_PROTECT

REPORT = ".autofix-report"  # where a runner's report could be: a FIFO or a link there must not hang or leak


def sha(data: bytes) -> str:
    return integrity.CONTENT + hashlib.sha256(data).hexdigest()


# The corpus: each shape builds a work folder and returns the snapshot it must give (DEFAULT_PROTECT).


def deep(work: Path) -> dict:
    bottom = nest(work, ["tests", *["d"] * 1500])
    write_at(bottom, "test_deep.py", b"deep")
    folders = ["tests" + "/d" * depth for depth in range(1501)]
    return {**dict.fromkeys(folders, "a folder"), folders[-1] + "/test_deep.py": sha(b"deep")}


def long_names(work: Path) -> dict:
    names = [chr(ord("a") + i) * 250 for i in range(20)]
    write_at(nest(work, ["tests", *names]), "test_long.py", b"far")
    folders = ["/".join(["tests", *names[:depth]]) for depth in range(21)]
    return {**dict.fromkeys(folders, "a folder"), folders[-1] + "/test_long.py": sha(b"far")}


def not_utf8(work: Path) -> dict:
    (work / "tests").mkdir()
    (work / os.fsdecode(b"tests/\xff\xfe.py")).write_bytes(b"odd")
    (work / os.fsdecode(b"pkg\xff")).mkdir()
    (work / os.fsdecode(b"pkg\xff/conftest.py")).write_bytes(b"conf")
    return {
        "tests": "a folder",
        os.fsdecode(b"tests/\xff\xfe.py"): sha(b"odd"),
        os.fsdecode(b"pkg\xff/conftest.py"): sha(b"conf"),
    }


def fifos(work: Path) -> dict:
    (work / "tests").mkdir()
    os.mkfifo(work / "tests" / "test_fifo.py")
    os.mkfifo(work / REPORT)
    return {"tests": "a folder", "tests/test_fifo.py": "a FIFO"}


def symlink_loops(work: Path) -> dict:
    (work / "tests").mkdir()
    (work / "tests" / "loop").symlink_to("loop")
    (work / "tests" / "a").symlink_to("b")
    (work / "tests" / "b").symlink_to("a")
    (work / REPORT).symlink_to(REPORT)
    return {
        "tests": "a folder",
        "tests/loop": "a symlink to loop",
        "tests/a": "a symlink to b",
        "tests/b": "a symlink to a",
    }


def environ_links(work: Path) -> dict:
    (work / "tests").mkdir()
    (work / "tests" / "env").symlink_to("/proc/self/environ")
    (work / "tests" / "gone").symlink_to("nowhere")
    (work / REPORT).symlink_to("/proc/self/environ")
    return {"tests": "a folder", "tests/env": "a symlink to /proc/self/environ", "tests/gone": "a symlink to nowhere"}


def sparse(work: Path) -> dict:
    (work / "tests").mkdir()
    for path in (work / "tests" / "big.bin", work / REPORT):
        with open(path, "wb") as out:
            out.truncate(2 * 2**30)
    mtime = os.stat(work / "tests" / "big.bin").st_mtime_ns
    return {"tests": "a folder", "tests/big.bin": f"a file of {2 * 2**30} bytes, too large to hash (mtime {mtime})"}


def special_files(work: Path) -> dict:
    (work / "tests").mkdir()
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(os.fsencode(work / "tests" / "sock"))
    os.mknod(work / "tests" / "null", 0o600 | stat.S_IFCHR, os.makedev(1, 3))
    os.mknod(work / "tests" / "disk", 0o600 | stat.S_IFBLK, os.makedev(7, 0))
    os.mkdir(work / REPORT)
    return {
        "tests": "a folder",
        "tests/sock": "a socket",
        "tests/null": "a character device",
        "tests/disk": "a block device",
    }


def hard_links(work: Path) -> dict:
    (work / "tests").mkdir()
    (work / "outside.txt").write_bytes(b"shared")
    os.link(work / "outside.txt", work / "tests" / "test_a.py")
    os.link(work / "outside.txt", work / "tests" / "test_b.py")
    return {"tests": "a folder", "tests/test_a.py": sha(b"shared"), "tests/test_b.py": sha(b"shared")}


def locked(work: Path) -> dict:
    (work / "tests" / "locked").mkdir(parents=True)
    (work / "tests" / "locked" / "test_x.py").write_bytes(b"x")
    (work / "tests" / "secret.py").write_bytes(b"s")
    os.chmod(work / "tests" / "secret.py", 0)
    os.chmod(work / "tests" / "locked", 0)
    (work / REPORT).write_bytes(b"report")
    os.chmod(work / REPORT, 0)
    return {
        "tests": "a folder",
        "tests/locked": "a folder",
        "tests/locked/test_x.py": sha(b"x"),
        "tests/secret.py": sha(b"s"),
    }


CORPUS = [deep, long_names, not_utf8, fifos, symlink_loops, environ_links, sparse, special_files, hard_links, locked]
NOT_COPIED = (stat.S_IFIFO, stat.S_IFSOCK, stat.S_IFCHR, stat.S_IFBLK)


@pytest.mark.parametrize("shape", CORPUS, ids=[shape.__name__ for shape in CORPUS])
def test_hostile_shapes_are_read_exactly_and_in_time(tmp_path, shape):
    work, copy = tmp_path / "work", tmp_path / "copy"
    work.mkdir()
    expected = shape(work)
    try:
        with deadline(60):
            found = integrity.snapshot(work, DEFAULT_PROTECT)
            assert found == expected
            assert integrity.tampering(found, integrity.snapshot(work, DEFAULT_PROTECT)) == []
            assert integrity.tampering({}, found) == [(safefs.shown(rel), "created") for rel in sorted(found)]
            safefs.copy_tree(work, copy)
            assert listing(copy) == {rel: kind for rel, kind in listing(work).items() if kind[0] not in NOT_COPIED}
            safefs.remove_tree(copy)
            safefs.remove_tree(work)
    finally:
        safefs.remove_tree(tmp_path)  # pytest's own cleanup recurses
    assert not tmp_path.exists()


def test_caches_written_during_the_run_are_not_tampering(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text("def test_a(): pass\n")
    before = integrity.snapshot(tmp_path, DEFAULT_PROTECT)
    for cache in ["tests/.hypothesis/examples/1f/ab", "tests/__pycache__/test_a.pyc", "src/.mypy_cache/3.11/x.json",
                  "tests/.ruff_cache/content", "tests/.pytest_cache/v/lastfailed", ".tox/py311/bin/python",
                  "tests/.nox/x", "tests/.coverage", "tests/.coverage.host.1234.567"]:  # fmt: skip
        (tmp_path / cache).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / cache).write_text("state")
    assert integrity.tampering(before, integrity.snapshot(tmp_path, DEFAULT_PROTECT)) == []
    (tmp_path / "tests" / "test_a.py").write_text("def test_a(): assert True\n")
    assert integrity.tampering(before, integrity.snapshot(tmp_path, DEFAULT_PROTECT)) == [
        ("tests/test_a.py", "modified")
    ]


def test_exempt_paths_are_not_compared(tmp_path):
    (tmp_path / "tests" / "snapshots").mkdir(parents=True)
    before = integrity.snapshot(tmp_path, DEFAULT_PROTECT, ("tests/snapshots",))
    (tmp_path / "tests" / "snapshots" / "new.json").write_text("{}")
    (tmp_path / "tests" / "result.json").write_text("{}")
    after = integrity.snapshot(tmp_path, DEFAULT_PROTECT, ("./tests/snapshots/",))
    assert integrity.tampering(before, after) == [("tests/result.json", "created")]


def test_a_protected_folder_protects_all_it_holds(tmp_path):
    (tmp_path / "src" / "a" / "fixtures" / "deep").mkdir(parents=True)
    (tmp_path / "src" / "a" / "fixtures" / "deep" / "x.json").write_text("1")
    (tmp_path / "src" / "a" / "code.py").write_text("")
    assert integrity.snapshot(tmp_path, ("src/*/fixtures",)) == {
        "src/a/fixtures": "a folder",
        "src/a/fixtures/deep": "a folder",
        "src/a/fixtures/deep/x.json": sha(b"1"),
    }


def test_tampering_says_what_a_protected_path_became(tmp_path):
    (tmp_path / "tests").mkdir()
    for name in ("test_fifo.py", "test_link.py", "test_edit.py", os.fsdecode(b"test_\xff.py")):
        (tmp_path / "tests" / name).write_text("def test(): pass\n")
    before = integrity.snapshot(tmp_path, DEFAULT_PROTECT)
    (tmp_path / "tests" / "test_fifo.py").unlink()
    os.mkfifo(tmp_path / "tests" / "test_fifo.py")
    (tmp_path / "tests" / "test_link.py").unlink()
    (tmp_path / "tests" / "test_link.py").symlink_to(os.fsdecode(b"../\xff"))
    (tmp_path / "tests" / "test_edit.py").write_text("")
    (tmp_path / "tests" / os.fsdecode(b"test_\xff.py")).unlink()
    (tmp_path / "conftest.py").write_text("")
    assert integrity.tampering(before, integrity.snapshot(tmp_path, DEFAULT_PROTECT)) == [
        ("conftest.py", "created"),
        ("tests/test_edit.py", "modified"),
        ("tests/test_fifo.py", "modified (now a FIFO)"),
        ("tests/test_link.py", "modified (now a symlink to ../\\xff)"),
        ("tests/test_\\xff.py", "removed"),
    ]


def test_defined_tests_never_waits_on_a_fifo_nor_dies_on_nesting(tmp_path):
    os.mkfifo(tmp_path / "test_fifo.py")
    (tmp_path / "test_nested.py").write_text("x = " + "-" * 200_000 + "1\ndef test_a(): pass\n")
    (tmp_path / "test_fine.py").write_text("def test_a(): pass\nclass TestB:\n    def test_c(self): pass\n")
    with deadline(10):
        assert integrity.defined_tests(tmp_path / "test_fifo.py") == set()
        assert integrity.defined_tests(tmp_path / "test_nested.py") == set()
    assert integrity.defined_tests(tmp_path / "test_fine.py") == {"test_a", "TestB::test_c"}


def test_a_report_holds_names_that_are_not_utf8(tmp_path):
    name = os.fsdecode(b"tests/\xff.py")
    attempt = Attempt(
        1, False, [name], f"{name}: created during the run", 0.1, {"input": 1, "output": 1}, "x = 1\n", ""
    )
    Report("m", "none", "x.py", 1, attempts=[attempt]).write(tmp_path / "report.json")
    written = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert written["attempts"][0]["failing_tests"] == ["tests/\\xff.py"]
    assert written["attempts"][0]["feedback"] == "tests/\\xff.py: created during the run"
