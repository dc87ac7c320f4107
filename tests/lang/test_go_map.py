"""What the repository map reads of Go (bot/lang/go_map.py, through bot/lang/map_registry.py): the
outline of a file (functions, methods with their receivers, generics, types, an interface's
methods) with each doc comment's first line, the names it defines and uses, and a module mapped by
bot/core/repomap.py: its packages linked through their imports and calls, `vendor/` and `testdata/`
left out, test files mapped."""

from __future__ import annotations

from pathlib import Path

from test_go import SHOP

from bot.core.repomap import RepoMap, mentions, rank, render
from bot.lang.go_map import GO
from bot.lang.map_registry import for_path
from bot.lang.mapped import Symbol


def test_the_outline_of_a_file_with_its_doc_comments():
    names = GO.names("cart/shop.go", SHOP)
    assert names.symbols == (
        Symbol("Item", 16, 0, "type Item struct", "Item is one line of a cart."),
        Symbol("Priced", 23, 0, "type Priced interface", "Priced is anything with a price."),
        Symbol("Cost", 25, 1, "Cost() int", "Cost is the price in cents."),
        Symbol("Cart", 29, 0, "type Cart struct", "Cart holds items."),
        Symbol(
            "Add",
            34,
            0,
            "func (c *Cart) Add(item Item) int",
            "Add puts an item in the cart and says how many it holds.",
        ),
        Symbol("Total", 40, 0, "func (c *Cart) Total() (int, error)", "Total is the sum of the items' prices."),
        Symbol("Cost", 53, 0, "func (i Item) Cost() int", ""),
        Symbol("WithTax", 56, 0, "func WithTax(amount int) int", "WithTax adds the tax to an amount."),
        Symbol("Map", 61, 0, "func Map[T, U any](xs []T, f func(T) U) []U", "Map applies f to each of xs."),
        Symbol("Label", 70, 0, "func Label(item Item) string", "Label names an item with its price."),
        Symbol("Cents", 79, 0, "type Cents int", "Cents is an amount of money."),
        Symbol("Names", 80, 0, "type Names = []string", ""),
    )
    # Its definitions, methods, `var`s and `const`s, and its package's name (its folder's).
    assert names.defines == {
        "Item", "Priced", "Cost", "Cart", "Add", "Total", "WithTax", "Map", "Label", "Cents", "Names",
        "TaxPercent", "ErrEmpty", "cart",
    }  # fmt: skip
    # The packages it imports and the names it reads; not its own package clause's name.
    assert (names.uses["errors"], names.uses["fmt"], names.uses["Sprintf"], names.uses["shop"]) == (2, 2, 1, 0)
    assert "WithTax" not in names.uses and names.uses["TaxPercent"] == 1  # used once besides its definition


def test_directives_trailing_comments_and_block_comments():
    code = (
        "package p\n\n"
        "//go:generate stringer -type=Kind\n"
        "// Kind of a thing.\n"
        "type Kind int\n\n"
        "var x = 1 // not a doc comment\n"
        "func Next() {}\n\n"
        "/*\n * Prev goes back.\n */\n"
        "func (k *Kind) Prev() {}\n\n"
        "//go:noinline\n"
        "func Fast() {}\n"
    )
    assert [(s.name, s.line, s.doc) for s in GO.names("p/p.go", code).symbols] == [
        ("Kind", 5, "Kind of a thing."),
        ("Next", 8, ""),
        ("Prev", 13, "Prev goes back."),
        ("Fast", 16, ""),
    ]


def test_imports_are_used_by_their_package_s_name():
    code = (
        "package main\n\nimport (\n"
        '\t"example.com/shop/internal/money"\n'
        '\tyaml "gopkg.in/yaml.v3"\n'
        '\t"github.com/jackc/pgx/v5"\n'
        '\t_ "github.com/lib/pq"\n'
        ")\n\nfunc main() { money.Round(1) }\n"
    )
    names = GO.names("cmd/shop/main.go", code)
    assert {name: names.uses[name] for name in ("money", "yaml", "pgx", "pq", "Round")} == {
        "money": 2,
        "yaml": 2,  # its path's and its alias's
        "pgx": 1,
        "pq": 1,
        "Round": 1,
    }
    # A `package main` and a test file define no package name: nothing imports them.
    assert names.defines == {"main"}
    assert GO.names("money/money_test.go", "package money\n\nfunc TestRound() {}\n").defines == {"TestRound"}


def test_the_map_leaves_out_vendor_and_testdata():
    assert [for_path(path) for path in ("shop.go", "cart/cart_test.go", "internal/a/b.go")] == [GO, GO, GO]
    assert [for_path(path) for path in ("vendor/github.com/x/y/y.go", "cart/testdata/bad.go", "a/vendor/b.go")] == [
        None,
        None,
        None,
    ]
    assert for_path("vendor/lib.js") is not None  # JavaScript's folders are its own rules


def write(root: Path, files: dict[str, str]) -> Path:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
    return root


CART_TEST = (
    'package cart\n\nimport "testing"\n\n'
    'func TestTotal(t *testing.T) {\n\tc := &Cart{}\n\tc.Add(Item{"tea", 2, 3})\n}\n'
)
MONEY = (
    "// Package money rounds.\npackage money\n\n"
    "// Round rounds to tens.\nfunc Round(cents int) int {\n\treturn cents / 10 * 10\n}\n"
)
MAIN = (
    'package main\n\nimport (\n\t"fmt"\n\n\t"example.com/shop/cart"\n)\n\n'
    "func main() {\n\tfmt.Println(cart.WithTax(100))\n}\n"
)


def module(root: Path) -> Path:
    """A module: cart uses money, the command uses cart, cart's test uses cart, leaf is used by no one."""
    cart = SHOP.replace("package shop", "package cart").replace(
        'import (\n\t"errors"\n\t"fmt"\n)', 'import (\n\t"errors"\n\t"fmt"\n\n\t"example.com/shop/money"\n)'
    )
    return write(
        root,
        {
            "go.mod": "module example.com/shop\n\ngo 1.22\n",
            "cart/cart.go": cart.replace("return amount + amount*TaxPercent/100", "return money.Round(amount * 6 / 5)"),
            "cart/cart_test.go": CART_TEST,
            "money/money.go": MONEY,
            "cmd/shop/main.go": MAIN,
            "internal/leaf/leaf.go": "package leaf\n\nfunc Lonely() int { return 1 }\n",
            "vendor/github.com/x/round/round.go": "package round\n\nfunc Round(x int) int { return x }\n",
            "cart/testdata/broken.go": "package broken\n\nfunc Round( {\n",
            "tools/gen.py": "def gen():\n    return 1\n",
        },
    )


def test_a_module_is_mapped_beside_python_and_its_packages_linked(tmp_path):
    repo = RepoMap.build(module(tmp_path))
    assert list(repo.files) == [
        "cart/cart.go",
        "cart/cart_test.go",
        "cmd/shop/main.go",
        "internal/leaf/leaf.go",
        "money/money.go",
        "tools/gen.py",
    ]
    assert repo.languages == ("Go", "Python")
    # By the imported package's name and the names called: money.Round, cart.WithTax, the test's Cart and Add.
    assert repo.links == {
        "cart/cart.go": {"money/money.go": 3.0},
        "cart/cart_test.go": {"cart/cart.go": 3.0},
        "cmd/shop/main.go": {"cart/cart.go": 3.0},
    }
    shown = render(repo, [("money/money.go", 0.0), ("cmd/shop/main.go", 0.0), ("cart/cart_test.go", 0.0)], 1000)
    assert shown.text == (
        "money/money.go\n"
        "  func Round(cents int) int  # line 5: Round rounds to tens.\n"
        "cmd/shop/main.go\n"
        "  func main()  # line 9\n"
        "cart/cart_test.go\n"
        "  func TestTotal(t *testing.T)  # line 5\n"
    )


def test_the_package_others_use_ranks_first_and_the_issue_s_names_lead(tmp_path):
    repo = RepoMap.build(module(tmp_path))
    assert [path for path, _ in rank(repo, mentions("nothing in particular"))][:2] == ["money/money.go", "cart/cart.go"]
    assert [path for path, _ in rank(repo, mentions("`WithTax` rounds wrong"))][0] == "cart/cart.go"
    # A .go path in an issue names its file, as a .py path does; so does a panic's frame.
    assert [path for path, _ in rank(repo, mentions("Lonely in internal/leaf/leaf.go"))][0] == "internal/leaf/leaf.go"
    frame = "panic: boom\n\nexample.com/shop/money.Round(...)\n\t/work/repo/money/money.go:6 +0x1d\n"
    assert [path for path, _ in rank(repo, mentions(frame))][0] == "money/money.go"
