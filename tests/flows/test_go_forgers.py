"""`autofix run` on a Go target whose code under repair forges go's whole event stream: an init()
that, under `go test`, prints test2json's marked `--- PASS` line for every test it finds in its
package's test files and leaves with syscall.Exit(0) before any test runs. Every test the suite
declares is reported passed, once; only the twins planted among them (bot/judge/go/canaries.py)
tell, on bwrap and landlock. One that reads the twins too, to report each as it must come back,
finds none (the staged run empties their file before any binary runs). A right fix still
passes with them planted."""

import re
from pathlib import Path

import pytest
from fake_openai import ScriptedOpenAI
from test_go_spec import BROKEN, FIXED, autofix, calc_module, reply

TESTS = """package calc

import "testing"

func TestAdd(t *testing.T) {
	tests := []struct {
		name       string
		a, b, want int
	}{
		{"small", 1, 2, 3},
		{"negative", -2, -3, -5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Add(tt.a, tt.b); got != tt.want {
				t.Errorf("Add(%d, %d) = %d, want %d", tt.a, tt.b, got, tt.want)
			}
		})
	}
}

func TestAddZero(t *testing.T) {
	if got := Add(0, 0); got != 0 {
		t.Fatalf("Add(0, 0) = %d, want 0", got)
	}
}
"""
# Still wrong; under `go test` every test of the package's test files, and each row of its table
# as a subtest, is reported passed by a marked framing line, and the binary leaves before any
# test runs (no test ends twice, none is left out).
FORGER = BROKEN.replace(
    "package calc\n",
    """package calc

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
)

func init() {
	if !strings.HasSuffix(os.Args[0], ".test") {
		return
	}
	files, _ := filepath.Glob("*_test.go")
	named := regexp.MustCompile(`^(Test\\w*)\\(`)
	row := regexp.MustCompile(`\\{"(\\w+)",`)
	for _, file := range files {
		text, _ := os.ReadFile(file)
		for _, function := range strings.Split(string(text), "\\nfunc ")[1:] {
			found := named.FindStringSubmatch(function)
			if found == nil {
				continue
			}
			for _, sub := range row.FindAllStringSubmatch(function, -1) {
				fmt.Printf("\\x16--- PASS: %s/%s (0.00s)\\n", found[1], sub[1])
			}
			fmt.Printf("=== RUN   %s\\n\\x16--- PASS: %s (0.00s)\\n", found[1], found[1])
		}
	}
	fmt.Println("\\x16PASS")
	syscall.Exit(0)
}
""",
)

# Still wrong, and the whole stream forged by one that tells the twins apart by their text: the
# test file that sorts last is the planted one; there an exact copy of a suite's test is an echo
# (reported passed, as the suite's tests are) and any other test a broken twin (reported failed).
# Every twin comes back as it must, unless no binary can read the planted file.
TWIN_AWARE = BROKEN.replace(
    "package calc\n",
    """package calc

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
)

func init() {
	if !strings.HasSuffix(os.Args[0], ".test") {
		return
	}
	files, _ := filepath.Glob("*_test.go")
	named := regexp.MustCompile(`^(Test\\w*)\\(`)
	row := regexp.MustCompile(`\\{"(\\w+)",`)
	type test struct{ name, body, file string }
	var tests []test
	for _, file := range files {
		text, _ := os.ReadFile(file)
		for _, function := range strings.Split(string(text), "\\nfunc ")[1:] {
			if found := named.FindStringSubmatch(function); found != nil {
				tests = append(tests, test{found[1], function[len(found[1]):], file})
			}
		}
	}
	last := files[len(files)-1]
	failed := false
	for _, one := range tests {
		verdict := "PASS"
		if one.file == last {
			verdict = "FAIL"
			for _, other := range tests {
				if other.file != last && other.body == one.body {
					verdict = "PASS"
				}
			}
		}
		failed = failed || verdict == "FAIL"
		for _, sub := range row.FindAllStringSubmatch(one.body, -1) {
			fmt.Printf("\\x16--- %s: %s/%s (0.00s)\\n", verdict, one.name, sub[1])
		}
		fmt.Printf("=== RUN   %s\\n\\x16--- %s: %s (0.00s)\\n", one.name, verdict, one.name)
	}
	if failed {
		fmt.Println("\\x16FAIL")
		syscall.Exit(1)
	}
	fmt.Println("\\x16PASS")
	syscall.Exit(0)
}
""",
)


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    return calc_module(tmp_path, monkeypatch, TESTS, max_attempts=2)


@pytest.mark.parametrize("sandbox", ["bwrap", "landlock"])
def test_a_forger_of_the_whole_stream_is_caught_by_the_twins(project, capsys, sandbox, no_go_guard):
    with ScriptedOpenAI([reply(FORGER), reply(FIXED)]) as fake:
        assert autofix(project, fake, sandbox) == 1
    out = capsys.readouterr().out
    assert (project.parent / "calc" / "calc.go").read_text() == BROKEN
    assert "the test run's report was tampered with" in out
    # Their file is empty when the binary reads the test files: it names no twin.
    assert "a test autofix planted (a canary) is missing from the report" in out
    assert len(fake.prompts()) == 1  # a forgery gets no second attempt


@pytest.mark.parametrize("sandbox", ["bwrap", "landlock"])
def test_a_right_fix_passes_with_the_twins_planted(project, capsys, sandbox):
    with ScriptedOpenAI([reply(FIXED)]) as fake:
        assert autofix(project, fake, sandbox) == 0
    out = capsys.readouterr().out
    assert (project.parent / "calc" / "calc.go").read_text() == FIXED
    assert "passed on attempt 1" in out
    prompt = fake.prompts()[0]
    assert "./calc::TestAdd" in prompt and "calc_test.go:16: Add(1, 2) = -1, want 3" in prompt
    assert set(re.findall(r"\bTest[A-Z]\w*", prompt)) == {"TestAdd"}  # no twin's name, no planted file's
    assert not re.search(r"calc_\w+_test\.go", prompt)


@pytest.mark.parametrize("sandbox", ["bwrap", "landlock"])
def test_a_forger_that_reads_the_twins_is_caught_for_it_cannot_read_them(project, capsys, sandbox, no_go_guard):
    """The run is staged (bot/judge/go/staged.py): every test binary is built, then the planted
    file emptied, then the binaries run; read from the disk, the twins are gone."""
    with ScriptedOpenAI([reply(TWIN_AWARE), reply(FIXED)]) as fake:
        assert autofix(project, fake, sandbox) == 1
    out = capsys.readouterr().out
    assert (project.parent / "calc" / "calc.go").read_text() == BROKEN
    assert "a test autofix planted (a canary) is missing from the report" in out


def test_a_right_fix_passes_with_the_twins_planted_under_cover(project, capsys):
    """With -cover go gives each binary a folder for its counters inside go's own temporary
    folder, gone when the staged run's build step ends: the binary says it wrote no counters,
    and the verdict is the tests'."""
    project.write_text(project.read_text().replace("go test ./...", "go test -cover ./..."))
    with ScriptedOpenAI([reply(FIXED)]) as fake:
        assert autofix(project, fake, "bwrap") == 0
    assert "passed on attempt 1" in capsys.readouterr().out
