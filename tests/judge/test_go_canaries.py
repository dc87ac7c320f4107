"""Go's canaries (bot/judge/go/canaries.py) on realistic test files: a table-driven test with
t.Run subtests, reflect.DeepEqual, a struct compared, an external test package; the planted file
built and run by the real go (go1.26), its twins coming back as they must; a forged report told."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from bot.judge.go import canaries, report
from bot.judge.integrity import Case

GO = shutil.which("go") or "/usr/local/go/bin/go"
MODULE = "example.com/shop"
CODE = """package cart

import "strings"

type Item struct {
	Name  string
	Cents int
}

func Total(items []Item) int {
	sum := 0
	for _, item := range items[1:] {
		sum += item.Cents
	}
	return sum
}

func Names(items []Item) []string {
	var out []string
	for _, item := range items {
		out = append(out, strings.ToLower(item.Name))
	}
	return out
}

func Cheapest(items []Item) Item { return items[0] }
"""
TESTS = """package cart

import (
	"fmt"
	"reflect"
	"testing"
)

func TestTotal(t *testing.T) {
	tests := []struct {
		name  string
		items []Item
		want  int
	}{
		{"one", []Item{{"tea", 250}}, 250},
		{"two", []Item{{"tea", 250}, {"cake", 300}}, 550},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Total(tt.items); got != tt.want {
				t.Errorf("Total(%v) = %d, want %d", tt.items, got, tt.want)
			}
		})
	}
}

func TestNames(t *testing.T) {
	got := Names([]Item{{"Tea", 1}, {"CAKE", 2}})
	if !reflect.DeepEqual(got, []string{"tea", "cake"}) {
		t.Fatalf("Names = %q", got)
	}
}

func TestCheapest(t *testing.T) {
	want := Item{"tea", 250}
	if got := Cheapest([]Item{{"cake", 300}, want}); got != want {
		t.Errorf("Cheapest = %v, want %v", got, want)
	}
}

func TestEmptyTotal(t *testing.T) {
	if got := fmt.Sprint(Total([]Item{{"x", 0}})); got != "0" {
		t.Fatal("want 0")
	}
}
"""
EXTERNAL = """package cart_test

import (
	"testing"

	"example.com/shop/cart"
)

func TestExternalNames(t *testing.T) {
	if got := cart.Names([]cart.Item{{Name: "A"}})[0]; got != "a" {
		t.Errorf("got %q", got)
	}
}
"""
BASELINE = {
    "./cart::TestTotal": "failed",
    "./cart::TestTotal/one": "failed",
    "./cart::TestTotal/two": "failed",
    "./cart::TestNames": "passed",
    "./cart::TestCheapest": "failed",
    "./cart::TestEmptyTotal": "passed",
    "./cart::TestExternalNames": "passed",
}
FAILING = {test for test, outcome in BASELINE.items() if outcome == "failed"}


@pytest.fixture
def work(tmp_path) -> Path:
    (tmp_path / "cart").mkdir()
    (tmp_path / "go.mod").write_text(f"module {MODULE}\n\ngo 1.22\n")
    (tmp_path / "cart" / "cart.go").write_text(CODE)
    (tmp_path / "cart" / "cart_test.go").write_text(TESTS)
    (tmp_path / "cart" / "names_test.go").write_text(EXTERNAL)
    return tmp_path


def go_test(work: Path, planting: list[canaries.Planted]) -> list[Case]:
    """The real `go test -json ./...` on `work` with the planted files in place (no sandbox:
    the test's own code)."""
    for planted in planting:
        (work / planted.path).write_text(planted.text)
    env = {**os.environ, "GOFLAGS": "", "GOPROXY": "off", "GOTOOLCHAIN": "local", "GOWORK": "off"}
    done = subprocess.run(
        [GO, "test", "-json", "-count=1", "./..."], cwd=work, env=env, capture_output=True, timeout=300, check=False
    )
    for planted in planting:
        (work / planted.path).unlink()
    found = report.cases(report.events(done.stdout), MODULE)
    assert found is not None, done.stderr
    return found


def test_twins_of_table_driven_tests_build_and_come_back_as_their_originals(work):
    planting = canaries.plant(str(work), BASELINE, prefer=FAILING, every=True)
    assert len(planting) == 1
    twins = planting[0].twins
    tried = {t.original for t in twins if not t.broken}
    assert {t.original for t in twins if t.broken} == tried  # a passing test's broken twin is tried too
    assert tried == {
        "./cart::TestTotal",
        "./cart::TestNames",
        "./cart::TestCheapest",
        "./cart::TestEmptyTotal",
    }  # the external test package's test has a package clause of its own
    cases = go_test(work, planting)
    assert canaries.trusted(cases, planting, BASELINE) == {t.original for t in twins}
    outcomes = {case.test_id: case.outcome for case in cases}
    for twin in twins:  # the subtests come with their test
        if twin.original == "./cart::TestTotal":
            assert outcomes[twin.test_id + "/one"] == "failed"
    kept, forged = canaries.sift(cases, planting)
    assert forged == []
    assert {case.test_id: case.outcome for case in kept} == BASELINE


def test_a_broken_twin_fails_on_a_right_fix_too(work):
    planting = canaries.plant(str(work), BASELINE, prefer=FAILING, every=True)
    fixed = CODE.replace("items[1:]", "items").replace("return items[0]", "return items[len(items)-1]")
    (work / "cart" / "cart.go").write_text(fixed)
    cases = go_test(work, planting)
    outcomes = {case.test_id: case.outcome for case in cases}
    for twin in planting[0].twins:
        assert outcomes[twin.test_id] == ("failed" if twin.broken else "passed"), twin
    kept, forged = canaries.sift(cases, planting)
    assert all(case.outcome == "passed" for case in kept) and forged == []


def test_the_broken_twin_expects_another_value_in_the_tests_own_check(work):
    planting = canaries.plant(str(work), BASELINE, prefer=FAILING, every=True)
    text = planting[0].text
    helper = planting[0].helpers[0]
    # The table's row compared through the value changer, typed as what it is compared with.
    assert f"if got := Total(tt.items); got != {helper}(got, tt.want, " in text
    assert f'if got := Cheapest([]Item{{{{"cake", 300}}, want}}); got != {helper}(got, want, ' in text
    assert text.count('t.Errorf("Total(%v) = %d, want %d", tt.items, got, tt.want)') == 2  # its message, as is


def test_the_planted_file_looks_like_the_packages_own(work):
    last = {"./cart::TestTotal": "failed", "./cart::TestNames": "passed", "./cart::TestEmptyTotal": "passed"}
    planting = canaries.plant(str(work), last, prefer={"./cart::TestTotal"})
    planted = planting[0]
    folder, name = os.path.split(planted.path)
    assert folder == "cart" and re.fullmatch(r"[a-z]+_[a-z]+_test\.go", name), name
    assert name > "names_test.go"  # after the package's own test files: its tests run first
    (work / "cart" / "zeta_test.go").write_text("package cart\n")  # no word of the suite sorts after it
    later = canaries.plant(str(work), last, prefer={"./cart::TestTotal"})[0].path
    assert re.fullmatch(r"cart/zeta[a-z]+_[a-z]+_test\.go", later), later
    assert planted.like == "cart_test.go"
    assert planted.text.startswith("package cart\n")
    words = {"total", "names", "empty", *canaries.WORDS}
    for twin in planted.twins:
        parts = re.findall(r"[A-Z][a-z]+", twin.test_id.split("::")[1].removeprefix("Test"))
        assert len(parts) == 2 and {p.lower() for p in parts} <= words, twin
    # The failing test's broken twin first, then a passing one's (each was tried at the calibration).
    broken = [t.original for t in planted.twins if t.broken]
    assert broken[0] == "./cart::TestTotal" and len(broken) == canaries.BROKEN
    assert broken[1] in ("./cart::TestNames", "./cart::TestEmptyTotal")


def test_the_planted_file_imports_only_what_its_twins_use(work):
    last = {"./cart::TestTotal": "failed"}  # its file imports fmt too, which its twins don't use
    planted = canaries.plant(str(work), last, prefer=last)[0]
    imports = planted.text.split("import (", 1)[1].split(")", 1)[0].split()
    assert imports == ['"testing"', '"reflect"']  # reflect: the value changer's
    cases = go_test(work, [planted])  # an unused import wouldn't build
    assert {c.test_id: c.outcome for c in cases}[planted.twins[0].test_id] == "failed"


def test_an_external_test_package_gets_its_own_clause(work):
    last = {"./cart::TestExternalNames": "failed"}
    planted = canaries.plant(str(work), last, prefer=last, every=True)[0]
    assert planted.text.startswith("package cart_test\n") and '"example.com/shop/cart"' in planted.text
    cases = go_test(work, [planted])
    twin = next(t for t in planted.twins if t.broken)
    assert {c.test_id: c.outcome for c in cases}[twin.test_id] == "failed"


def forged_run(work: Path) -> tuple[list[canaries.Planted], list[Case]]:
    planting = canaries.plant(str(work), BASELINE, prefer=FAILING)
    cases = [Case(test, outcome) for test, outcome in BASELINE.items()]
    cases += [Case(t.test_id, "failed" if t.broken else BASELINE[t.original]) for t in planting[0].twins]
    return planting, cases


def test_a_report_that_gets_a_twin_wrong_is_forged(work):
    planting, cases = forged_run(work)
    assert canaries.sift(cases, planting)[1] == []
    broken = next(t for t in planting[0].twins if t.broken)
    echo = next(t for t in planting[0].twins if not t.broken)
    passed = [Case(c.test_id, "passed") if c.test_id == broken.test_id else c for c in cases]
    assert canaries.sift(passed, planting)[1] == [
        f"a canary that fails by construction was reported passed: {broken.test_id.split('::')[1]}"
    ]
    fixed = [Case(c.test_id, "passed") if c.test_id in BASELINE else c for c in cases]
    missing = [c for c in fixed if c.test_id != echo.test_id]
    assert "a test autofix planted (a canary) is missing from the report" in canaries.sift(missing, planting)[1][0]
    # A test of the package failed (a panic may have ended the binary before the twins): the run
    # fails anyway, and the twins it left out forge nothing.
    assert canaries.sift([c for c in cases if c.test_id != echo.test_id], planting)[1] == []
    twice = [*cases, Case(broken.test_id, "failed")]
    assert "reported 2 times" in canaries.sift(twice, planting)[1][0]
    flipped = [Case(c.test_id, "skipped") if c.test_id == echo.test_id else c for c in cases]
    assert "the test it copies" in canaries.sift(flipped, planting)[1][0]
    # A package whose tests don't build (the candidate broke them): that fails the run, nothing is due.
    unbuilt = [Case("./cart::", "error", "the package's tests don't build")]
    assert canaries.sift(unbuilt, planting) == (unbuilt, [])


def test_what_the_model_reads_names_no_twin(work):
    planting, _ = forged_run(work)
    planted = planting[0]
    twin = planted.twins[0].test_id.split("::")[1]
    base = os.path.basename(planted.path)
    output = (
        f"# example.com/shop/cart\ncart/{base}:9:2: undefined: Total\ncart/cart_test.go:20:3: undefined: Total\n"
        f"--- FAIL: {twin} (0.00s)\n--- FAIL: TestTotal (0.00s)\n"
    )
    assert (
        canaries.scrub(output, planting)
        == "# example.com/shop/cart\ncart/cart_test.go:20:3: undefined: Total\n--- FAIL: TestTotal (0.00s)\n"
    )


# As github.com/dustin/go-humanize's tests: every row checked in a helper the test calls, so the
# failing test has no check of its own a broken twin could change.
HELPED = """package cart

import "testing"

type rows []struct{ name, got, want string }

func (r rows) check(t *testing.T) {
	for _, row := range r {
		if row.got != row.want {
			t.Errorf("%s: got %q, want %q", row.name, row.got, row.want)
		}
	}
}

func TestLabels(t *testing.T) {
	rows{{"first", Label(1), "1st"}, {"twelfth", Label(12), "12th"}}.check(t)
}

func TestTotalOne(t *testing.T) {
	if got := Total([]Item{{"tea", 250}}); got != 250 {
		t.Errorf("Total = %d", got)
	}
}

func TestLabelZero(t *testing.T) {
	want := "0th"
	if got := Label(0); got != want {
		t.Fatalf("Label(0) = %q", got)
	}
}
"""
LABEL = """package cart

import "strconv"

type Item struct {
	Name  string
	Cents int
}

func Total(items []Item) int {
	sum := 0
	for _, item := range items {
		sum += item.Cents
	}
	return sum
}

func Label(n int) string {
	if n%10 == 1 || n%10 == 2 {
		return strconv.Itoa(n) + "st"
	}
	return strconv.Itoa(n) + "th"
}
"""
HELPED_LAST = {"./cart::TestLabels": "failed", "./cart::TestTotalOne": "passed", "./cart::TestLabelZero": "passed"}


@pytest.fixture
def helped(tmp_path) -> Path:
    (tmp_path / "cart").mkdir()
    (tmp_path / "go.mod").write_text(f"module {MODULE}\n\ngo 1.22\n")
    (tmp_path / "cart" / "cart.go").write_text(LABEL)
    (tmp_path / "cart" / "cart_test.go").write_text(HELPED)
    return tmp_path


def test_a_failing_test_checked_in_a_helper_gets_broken_twins_of_passing_tests(helped):
    calibration = canaries.plant(str(helped), HELPED_LAST, prefer={"./cart::TestLabels"}, every=True)
    assert {t.original for t in calibration[0].twins if t.broken} == {"./cart::TestTotalOne", "./cart::TestLabelZero"}
    assert canaries.trusted(go_test(helped, calibration), calibration, HELPED_LAST) == set(HELPED_LAST)
    planting = canaries.plant(str(helped), HELPED_LAST, prefer={"./cart::TestLabels"})
    broken = [t for t in planting[0].twins if t.broken]
    assert {t.original for t in broken} == {"./cart::TestTotalOne", "./cart::TestLabelZero"}
    # A report of every test passed (the whole-stream forger's) is told by them.
    cases = [Case(test, "passed") for test in HELPED_LAST] + [Case(t.test_id, "passed") for t in planting[0].twins]
    assert canaries.sift(cases, planting)[1][0].startswith("a canary that fails by construction was reported passed")
    fixed = LABEL.replace("n%10 == 1 || n%10 == 2", "n%10 == 1 && n%100 != 11")
    (helped / "cart" / "cart.go").write_text(fixed)
    outcomes = {case.test_id: case.outcome for case in go_test(helped, planting)}
    assert [outcomes[t.test_id] for t in broken] == ["failed", "failed"]


@pytest.mark.parametrize("go_line", ["", "\ngo 1.16\n", "\ngo 1.17\n"], ids=["no-go-line", "go1.16", "go1.17"])
def test_twins_build_in_a_module_whose_go_has_no_generics(work, go_line):
    (work / "go.mod").write_text(f"module {MODULE}\n{go_line}")
    planting = canaries.plant(str(work), BASELINE, prefer=FAILING, every=True)
    text, helper = planting[0].text, planting[0].helpers[0]
    assert "[V any]" not in text and "reflect.ValueOf" not in text  # no generic value changer
    # The check's condition made to hold where the expected value isn't a literal.
    assert f"if got := Total(tt.items); (got != tt.want) || {helper}(tt.want, " in text
    cases = go_test(work, planting)
    assert not [case for case in cases if case.outcome == "error"], cases
    assert canaries.trusted(cases, planting, BASELINE) == {t.original for t in planting[0].twins}
    fixed = CODE.replace("items[1:]", "items").replace("return items[0]", "return items[len(items)-1]")
    (work / "cart" / "cart.go").write_text(fixed)
    outcomes = {case.test_id: case.outcome for case in go_test(work, planting)}
    for twin in planting[0].twins:
        assert outcomes[twin.test_id] == ("failed" if twin.broken else "passed"), twin


# As go-humanize's bytes_test.go: the file imports math for one test; another names it only in a
# comment (`// math.MaxUint64`). A planted file of that one's twins alone imports nothing unused.
COMMENTED = """package cart

import (
	"math"
	"testing"
)

func TestHuge(t *testing.T) {
	if got := Total([]Item{{"x", math.MaxInt32}}); got != math.MaxInt32 {
		t.Errorf("Total = %d", got)
	}
}

func TestTiny(t *testing.T) {
	want := 1 // math.MaxUint8 would overflow nothing here; "math.Pi" neither
	if got := Total([]Item{{"x", 1}}); got != want {
		t.Errorf("Total = %d", got)
	}
}
"""


def test_an_import_named_only_in_a_comment_or_a_string_is_left_out(helped):
    (helped / "cart" / "cart_test.go").write_text(COMMENTED)
    last = {"./cart::TestTiny": "passed", "./cart::TestHuge": "passed"}
    planted = canaries.plant(str(helped), {"./cart::TestTiny": "passed"}, every=True)[0]
    assert planted.text.split("import (", 1)[1].split(")", 1)[0].split() == ['"testing"', '"reflect"']  # no math
    outcomes = {case.test_id: case.outcome for case in go_test(helped, [planted])}
    assert [outcomes[t.test_id] for t in planted.twins] == ["failed", "passed"], outcomes  # it builds
    assert '"math"' in canaries.plant(str(helped), last, prefer={"./cart::TestHuge"}, every=True)[0].text
