"""The standard packages' warm build cache kept on disk across autofix's processes
(bot/judge/go/std_cache.py): another process finds it and warms nothing, a damaged entry is
built again, two builders at once build once, and a run can't write it."""

import json
import os
import select
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.judge.go import run, std_cache
from bot.judge.go.command import read
from bot.judge.validate import open_test_sandbox
from bot.sandbox.tiers import Limits

GO = shutil.which("go") or "/usr/local/go/bin/go"
ROOT = Path(__file__).resolve().parents[2]
CODE = "package calc\n\n// Add returns a + b.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n"
TESTS = """package calc

import "testing"

func TestAdd(t *testing.T) {
	if got := Add(1, 2); got != 3 {
		t.Fatalf("Add(1, 2) = %d, want 3", got)
	}
}
"""
LIMITS = Limits(wall_seconds=300)


def project(root: Path, tests: str = TESTS) -> Path:
    (root / "calc").mkdir(parents=True)
    (root / "go.mod").write_text("module example.com/calc\n\ngo 1.22\n")
    (root / "calc" / "calc.go").write_text(CODE)
    (root / "calc" / "calc_test.go").write_text(tests)
    return root


def tree(folder: Path) -> dict[str, tuple[int, int, int]]:
    """Each path below `folder`: its size, mode and modification time."""
    found = {}
    for where, dirs, files in os.walk(folder):
        for name in (*dirs, *files):
            path = os.path.join(where, name)
            st = os.lstat(path)
            found[os.path.relpath(path, folder)] = (st.st_size, st.st_mode, st.st_mtime_ns)
    return found


# Another autofix process: a Go runner's run on the project, every warm-up it starts counted.
ANOTHER = """
import json, sys
from pathlib import Path
from bot.judge.go import run
from bot.judge.runners import runner_for
from bot.judge.validate import open_test_sandbox
from bot.sandbox.tiers import Limits

calls = []
make_cache = run.make_cache
def counted(*args, **kwargs):
    calls.append(args[-1])
    return make_cache(*args, **kwargs)
run.make_cache = counted
work = Path(sys.argv[1])
sandbox = open_test_sandbox("bwrap", "--sandbox", print)
result = runner_for("go test ./...", work).run(sandbox, work, Limits(wall_seconds=300), {})
seed = run.WARMED[__import__("os").path.realpath(sys.argv[2])]
print(json.dumps({"calls": len(calls), "seed": seed, "cases": [[c.test_id, c.outcome] for c in result.cases]}))
"""


def test_another_process_finds_the_warm_cache_and_starts_no_warm_up(tmp_path):
    work = project(tmp_path / "work")
    sandbox = open_test_sandbox("bwrap", "--sandbox", print)
    go = read("go test ./...", os.path.dirname(GO))
    seed = run.warm(sandbox, go, work, LIMITS)  # found, or made by this process
    assert seed is not None and Path(seed).parent.parent == std_cache.root()
    marker = Path(seed).parent / std_cache.MARKER
    before = marker.stat().st_mtime_ns
    env = {**os.environ, "PATH": f"{os.path.dirname(GO)}:{os.environ.get('PATH', '')}"}
    done = subprocess.run(
        [sys.executable, "-c", ANOTHER, str(work), GO], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout.strip().splitlines()[-1])
    assert said == {"calls": 0, "seed": seed, "cases": [["./calc::TestAdd", "passed"]]}
    assert marker.stat().st_mtime_ns == before


def built_with(log: list[str], text: str):
    def build(temp: Path) -> bool:
        log.append(text)
        (temp / "cache").mkdir()
        (temp / "cache" / "data").write_text(text)
        return True

    return build


def test_an_entry_without_its_marker_is_built_again_and_one_with_it_is_not(tmp_path):
    root = tmp_path / "go-std"
    root.mkdir()
    log: list[str] = []
    first = std_cache.entry(root, "k", built_with(log, "first"), {"packages": ["fmt"]})
    assert first == root / "k" and log == ["first"]
    assert json.loads((first / std_cache.MARKER).read_text()) == {"recipe": std_cache.RECIPE, "packages": ["fmt"]}
    assert std_cache.entry(root, "k", built_with(log, "second")) == first and log == ["first"]
    (first / std_cache.MARKER).unlink()  # damaged: the marker is written last
    assert std_cache.entry(root, "k", built_with(log, "third")) == first and log == ["first", "third"]
    assert (first / "cache" / "data").read_text() == "third" and (first / std_cache.MARKER).is_file()
    assert sorted(os.listdir(root)) == ["k"]  # no temporary folder left
    modes = {stat.S_IMODE(st[1]) for st in tree(first).values()}
    assert modes == {0o755, 0o644}


def test_a_failed_build_leaves_nothing(tmp_path):
    root = tmp_path / "go-std"
    root.mkdir()
    assert std_cache.entry(root, "k", lambda temp: False) is None
    assert os.listdir(root) == []


# A builder: its build says so and waits for a line on stdin; then it prints the entry.
BUILDER = """
import os, sys
from pathlib import Path
from bot.judge.go import std_cache

def build(temp):
    (Path(sys.argv[2]) / str(os.getpid())).write_text("")
    (temp / "data").write_text(str(os.getpid()))
    print("building", flush=True)
    sys.stdin.readline()
    return True

print(std_cache.entry(Path(sys.argv[1]), "k", build), flush=True)
"""


def waiting_on_a_lock(pid: int) -> bool:
    with open("/proc/locks") as locks:  # a blocked waiter's line: "1: -> FLOCK  ADVISORY  WRITE 123 ..."
        return any(line.split()[1:3] == ["->", "FLOCK"] and line.split()[5] == str(pid) for line in locks)


def test_two_processes_warming_at_once_build_once(tmp_path):
    root, calls = tmp_path / "go-std", tmp_path / "calls"
    root.mkdir()
    calls.mkdir()

    def builder() -> subprocess.Popen:
        argv = [sys.executable, "-c", BUILDER, str(root), str(calls)]
        return subprocess.Popen(argv, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    first = builder()
    second = None
    try:
        assert first.stdout.readline() == "building\n"  # type: ignore[union-attr]
        second = builder()
        deadline = time.monotonic() + 120
        while not waiting_on_a_lock(second.pid):  # the second must wait for the first's lock
            ready, _, _ = select.select([second.stdout], [], [], 0)
            assert not ready and second.poll() is None, "the second builder went on without the lock"
            assert time.monotonic() < deadline
            os.sched_yield()
        first.stdin.write("\n")  # type: ignore[union-attr]
        first.stdin.flush()  # type: ignore[union-attr]
        assert first.stdout.readline() == f"{root / 'k'}\n"  # type: ignore[union-attr]
        assert second.stdout.readline() == f"{root / 'k'}\n"  # type: ignore[union-attr]
    finally:
        for process in (first, second):
            if process is not None:
                process.kill()
                process.wait()
    assert os.listdir(calls) == [str(first.pid)]
    assert (root / "k" / "data").read_text() == str(first.pid)


# The run's test: every way of writing into the warm cache it was seeded from must fail.
WRITES = """package calc

import (
	"os"
	"path/filepath"
	"testing"
)

func TestAdd(t *testing.T) {
	seed := SEED
	if err := os.WriteFile(filepath.Join(seed, "planted"), []byte("x"), 0o644); err == nil {
		t.Errorf("wrote a new file into %s", seed)
	}
	found, _ := filepath.Glob(filepath.Join(seed, "*", "*"))
	if len(found) == 0 {
		t.Fatalf("nothing to read in %s", seed)
	}
	if f, err := os.OpenFile(found[0], os.O_WRONLY|os.O_APPEND, 0); err == nil {
		f.Close()
		t.Errorf("opened %s for writing", found[0])
	}
	if err := os.Chmod(seed, 0o777); err == nil {
		t.Errorf("changed the mode of %s", seed)
	}
	if err := os.Remove(found[0]); err == nil {
		t.Errorf("removed %s", found[0])
	}
}
"""


@pytest.mark.parametrize("tier", ["bwrap", "process"])
def test_a_run_cannot_write_the_warm_cache(tmp_path, tier):
    sandbox = open_test_sandbox(tier, "--sandbox", print)
    go = read("go test ./...", os.path.dirname(GO))
    seed = run.warm(sandbox, go, project(tmp_path / "first"), LIMITS)
    assert seed is not None
    entry = Path(seed).parent
    before = tree(entry)
    me = os.geteuid()
    assert all(os.lstat(entry / path).st_uid == me for path in before)
    assert all(not mode & (stat.S_IWGRP | stat.S_IWOTH) for _, mode, _ in before.values())
    work = project(tmp_path / "work", WRITES.replace("SEED", json.dumps(seed)))
    result = run.run_go(sandbox, go, work, LIMITS, planted=None)
    assert [(case.test_id, case.outcome) for case in result.cases or []] == [("./calc::TestAdd", "passed")], (
        result.outcome.output
    )
    assert tree(entry) == before
