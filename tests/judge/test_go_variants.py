"""The proof's variants of a Go fix judged in one run (bot/judge/go/variants.py) through their
mutant schema (bot/lang/go_schema.py): each variant behaves in the schema as it does alone, every
variant runs every changed function through a copy (a null one too), the fix's lines keep their
numbers, and in the sandbox one go run judges them all: a killing mutant fails, a null one passes,
one that never ends is stopped and fails; a schema that doesn't build is no verdict."""

import os
import re
import subprocess
from pathlib import Path

import pytest
from test_go_runner import FIXED, GO, PATH, project

from bot.judge import drawn_order, gate
from bot.judge.go import run as go_run
from bot.judge.go import variants
from bot.judge.go.command import read
from bot.judge.validate import open_test_sandbox
from bot.lang.go_schema import schema, selector_file
from bot.sandbox.tiers import Limits
from bot.spec import DEFAULT_PROTECT

SHAPES = """package shapes

import "runtime"

type Stack[T any] struct{ items []T }

func (s *Stack[T]) Push(v T) int {
	s.items = append(s.items, v)
	return len(s.items)
}

type Box struct{ n int }

func (Box) Kind(int, string) string { return "box" }

func Sum[T ~int | ~float64](xs ...T) (total T) {
	for _, x := range xs {
		total += x
	}
	return
}

func Where() (string, int) {
	pc, _, line, _ := runtime.Caller(0)
	return runtime.FuncForPC(pc).Name(), line
}

var last string

func Note(_ int, s string) { last = s }
"""
SHOW = """package shapes

import (
	"fmt"
	"testing"
)

func TestShow(t *testing.T) {
	s := &Stack[string]{}
	s.Push("a")
	Note(1, "n")
	name, line := Where()
	fmt.Printf("RESULT %d|%s|%d|%s|%s|%d\\n", s.Push("b"), Box{}.Kind(1, "x"), Sum(1, 2, 3), last, name, line)
}
"""
VARIANTS = [
    # a null one: a statement that does nothing in two functions
    SHAPES.replace("\tfor _, x", "\t_ = 0\n\tfor _, x").replace("\tpc, _", "\t_ = 0\n\tpc, _"),
    SHAPES.replace("total += x", "total -= x"),
    SHAPES.replace('return "box"', 'return "crate"'),
    SHAPES.replace("return len(s.items)", "return len(s.items) + 1"),
    SHAPES.replace("last = s }", 'last = s + "!" }'),
]


def shown(folder: Path, code: str, env: dict[str, str] | None = None) -> list[str]:
    """What TestShow prints of the package with `code` (plus the selector's file, if any)."""
    (folder / "shapes.go").write_text(code)
    done = subprocess.run(
        [GO, "test", "-count=1", "-run=^TestShow$", "-v", "."],
        cwd=folder,
        env={**os.environ, **(env or {}), "GOFLAGS": "", "GOTOOLCHAIN": "local"},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (line,) = re.findall(r"^RESULT (.*)$", done.stdout, re.M)
    return line.split("|")


def test_each_variant_behaves_in_the_schema_as_alone_and_every_one_runs_through_copies(tmp_path):
    (tmp_path / "go.mod").write_text("module example.com/shapes\n\ngo 1.22\n")
    (tmp_path / "shapes_test.go").write_text(SHOW)
    values = [7, 123456, 99, 5, 4242]
    made = schema(SHAPES, VARIANTS, values, "pick", "_tok")
    assert made is not None
    assert "func (pickp1 Box) Kind(pickp2 int, pickp3 string) string { switch pick" in made
    (tmp_path / "zz_pick.go").write_text(selector_file("shapes", "pick", "PICK_VARIANT"))
    as_is = shown(tmp_path, made)
    (tmp_path / "zz_pick.go").unlink()
    # The fix's own lines keep their numbers: the switch sits on the line of the body's `{`.
    where = str(SHAPES.splitlines().index("\tpc, _, line, _ := runtime.Caller(0)") + 1)
    assert as_is == shown(tmp_path, SHAPES) == ["2", "box", "6", "n", "example.com/shapes.Where", where]
    for index, (variant, value) in enumerate(zip(VARIANTS, values, strict=True)):
        alone = shown(tmp_path, variant)
        (tmp_path / "zz_pick.go").write_text(selector_file("shapes", "pick", "PICK_VARIANT"))
        inside = shown(tmp_path, made, {"PICK_VARIANT": str(value)})
        (tmp_path / "zz_pick.go").unlink()
        assert inside[:4] == alone[:4], index
        # Where changed in the null variant alone, yet every variant runs it as a copy of its own.
        assert inside[4] == f"example.com/shapes.Where_tok{index}"
    assert [shown(tmp_path, variant)[:4] for variant in VARIANTS] == [
        ["2", "box", "6", "n"],
        ["2", "box", "-6", "n"],
        ["2", "crate", "6", "n"],
        ["3", "box", "6", "n"],
        ["2", "box", "6", "n!"],
    ]


@pytest.mark.parametrize(
    "changed",
    [
        SHAPES.replace("var last string", 'var last = ""'),
        SHAPES.replace("items []T", "items []T; n int"),
        SHAPES.replace('import "runtime"', 'import (\n\t"runtime"\n\t_ "fmt"\n)'),
        SHAPES.replace("func Sum[T", "// summed\nfunc Sum[T"),
    ],
    ids=["variable", "type", "import", "comment"],
)
def test_a_variant_that_changes_more_than_functions_has_no_schema(changed):
    assert schema(SHAPES, [VARIANTS[1], changed], [1, 2], "pick", "_tok") is None


@pytest.fixture(scope="module")
def sandbox():
    return open_test_sandbox("bwrap", "--sandbox", print)


@pytest.fixture
def calc(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", f"{PATH}:{os.environ.get('PATH', '')}")
    project(tmp_path, FIXED)
    return tmp_path


KILLED = FIXED.replace("return a + b", "return a - b")
NULL = FIXED.replace("\treturn a + b", "\t{}\n\treturn a + b")
ENDLESS = FIXED.replace("\treturn a + b", "\tfor {\n\t}")


def test_one_go_run_judges_every_variant(calc, sandbox, monkeypatch):
    runs: list[list[str]] = []
    real = go_run.started
    monkeypatch.setattr(go_run, "started", lambda *args: runs.append(list(args[4])) or real(*args))
    monkeypatch.setattr(variants, "LEAST_SECONDS", 2.0)
    go = read("go test ./...", PATH)
    found = variants.run_variants(
        sandbox,
        go,
        calc,
        Limits(wall_seconds=8),
        [{"calc/calc.go": KILLED}, {"calc/calc.go": NULL}, {"calc/calc.go": ENDLESS}],
        last={"./calc::TestAdd": "passed", "./calc::TestSub": "passed"},
        only={"./calc::TestAdd"},
    )
    assert found is not None
    assert [[(case.test_id, case.outcome) for case in run.cases or []] for run in found] == [
        [("./calc::TestAdd", "failed")],
        [("./calc::TestAdd", "passed")],
        [("./calc::TestAdd", "failed")],
    ]
    assert "Add(1, 2) = -1, want 3" in (found[0].cases or [])[0].message
    assert [run.outcome.returncode for run in found] == [1, 0, 1] and not any(run.forged for run in found)
    assert [run.outcome.killed for run in found] == [None, None, variants.STOPPED]  # the endless one, said
    assert len(runs) == 1 and "-vet=off" in runs[0]
    # The work folder is the fix again: no schema, no selector's file, no twin left.
    assert (calc / "calc" / "calc.go").read_text() == FIXED
    assert sorted(path.name for path in (calc / "calc").iterdir()) == ["calc.go", "calc_test.go"]


def test_the_variants_run_in_a_drawn_order_and_come_back_in_theirs(calc, sandbox, monkeypatch):
    """The proof lists its null mutants first: run in that order, code that counts its runs or
    reads its copy's name (`Add_…0`) would know which variants are null. The suite draws the
    order, whatever the runner."""
    assert len({tuple(drawn_order.drawn(4)) for _ in range(50)}) > 1
    monkeypatch.setattr(drawn_order, "drawn", lambda count: list(reversed(range(count))))
    schemata: list[str] = []
    real = go_run.started
    monkeypatch.setattr(
        go_run, "started", lambda *args: schemata.append((args[2] / "calc" / "calc.go").read_text()) or real(*args)
    )
    suite = gate.Suite(sandbox, "go test ./...", DEFAULT_PROTECT, timeout=60)
    found = suite.run_variants(calc, [{"calc/calc.go": NULL}, {"calc/calc.go": KILLED}], {"./calc::TestAdd"})
    assert found is not None and [run.returncode for run in found] == [0, 1]
    (made,) = schemata
    assert re.search(r"func Add_\w+0\(a, b int\) int \{\n\treturn a - b", made)  # the killing one ran first


# A fix that imports os, and a variant of it that reads the file its code is in: every variant's
# code is there in the schema, and which number picks which. It returns the wrong sum while the
# file has any text.
WITH_OS = FIXED.replace("package calc\n", 'package calc\n\nimport "os"\n\nvar _ = os.Getpid\n')
READS_ITSELF = WITH_OS.replace(
    "\treturn a + b", '\tif data, _ := os.ReadFile("calc.go"); len(data) > 0 {\n\t\treturn a - b\n\t}\n\treturn a + b'
)


def test_no_variant_can_read_the_schema(calc, sandbox):
    (calc / "calc" / "calc.go").write_text(WITH_OS)
    found = variants.run_variants(
        sandbox,
        read("go test ./...", PATH),
        calc,
        Limits(wall_seconds=60),
        [{"calc/calc.go": READS_ITSELF}, {"calc/calc.go": WITH_OS.replace("return a + b", "return a * b")}],
        last={},
        only={"./calc::TestAdd"},
    )
    assert found is not None and [run.outcome.returncode for run in found] == [0, 1]
    assert (calc / "calc" / "calc.go").read_text() == WITH_OS


def test_a_schema_that_does_not_build_is_no_verdict(calc, sandbox):
    unused = FIXED.replace("\treturn a + b", "\tc := a\n\treturn a + b")
    found = variants.run_variants(
        sandbox,
        read("go test ./...", PATH),
        calc,
        Limits(wall_seconds=60),
        [{"calc/calc.go": KILLED}, {"calc/calc.go": unused}],
        last={},
        only={"./calc::TestAdd"},
    )
    assert found is None
    assert (calc / "calc" / "calc.go").read_text() == FIXED
