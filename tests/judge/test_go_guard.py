"""The static guard for Go code under repair (bot/judge/go/guard.py). Each line of HOSTILE is a way
into `go test`'s report the guard refuses; ORDINARY is code Go libraries are made of."""

from bot.judge.go.guard import findings, in_test_file

HOSTILE = """\
package calc

//go:linkname now runtime.nanotime
import (
\t"fmt"
\tex "os/exec"
\t"os"
\t"testing"
\t"runtime"
\t"unsafe"
\t"net/http"
\t"syscall"
)

func init() {
\tos.Stdout = nil
\tfmt.Println("\\x16--- PASS: TestAdd (0.00s)")
\tos.Exit(0)
\t_ = ex.Command("go")
\t_ = os.Args
\t_, f, _, _ := runtime.Caller(1)
\tb, _ := os.ReadFile("calc_test.go")
\thttp.DefaultClient = nil
\t_ = unsafe.Pointer(nil)
\t_ = testing.Testing()
\tsyscall.Exit(0)
\tw := os.NewFile(1, "/dev/stdout")
\tfmt.Print(`=== RUN   TestAdd`)
}
"""
ORDINARY = """\
package calc

import (
\t"errors"
\t"fmt"
\t"os"
\t"sort"
\t"strings"
)

// ErrEmpty is returned for no items.
var ErrEmpty = errors.New("calc: empty")

type Stack[T any] struct{ items []T }

func (s *Stack[T]) Push(v T) { s.items = append(s.items, v) }

func Sum(items []int) (int, error) {
\tif len(items) == 0 {
\t\treturn 0, ErrEmpty
\t}
\ttotal := 0
\tfor _, v := range items {
\t\ttotal += v
\t}
\tsort.Ints(items)
\treturn total, nil
}

func Read(path string) (string, error) {
\tb, err := os.ReadFile(path)
\tif err != nil {
\t\treturn "", fmt.Errorf("read %s: %w", path, err)
\t}
\treturn strings.TrimSpace(string(b)), nil
}
"""


def test_every_way_into_the_report_is_found_on_its_line():
    found = [(f.line, f.rule) for f in findings(HOSTILE, None, "calc/calc.go")]
    assert found == [
        (3, "native-code"),
        (6, "processes"),
        (8, "test-runner"),
        (10, "native-code"),
        (16, "patching"),
        (17, "test-report"),
        (18, "process-end"),
        (20, "test-detection"),
        (21, "test-detection"),
        (22, "test-files"),
        (23, "patching"),
        (25, "test-detection"),
        (26, "process-end"),
        (27, "test-report"),
        (28, "test-report"),
    ]


def test_code_go_libraries_are_made_of_passes():
    assert findings(ORDINARY, None, "calc/calc.go") == []


def test_only_the_lines_a_change_wrote_count_and_a_test_file_may_import_testing():
    original = 'package calc\n\nimport "os"\n\nfunc Quit() { os.Exit(1) }\n'
    changed = original + "\nfunc Again() { os.Exit(0) }\n"
    assert [(f.line, f.rule) for f in findings(changed, original, "calc/calc.go")] == [(7, "process-end")]
    test = 'package calc\n\nimport "testing"\n\nfunc TestIssue1(t *testing.T) {\n\tos.Exit(0)\n}\n'
    assert [(f.line, f.rule) for f in in_test_file(test, None, "calc/issue1_test.go")] == []  # no `os` import
    test = test.replace('import "testing"', 'import (\n\t"os"\n\t"testing"\n)')
    assert [(f.line, f.rule) for f in in_test_file(test, None, "calc/issue1_test.go")] == [(9, "process-end")]
