"""The code view of JavaScript, TypeScript and TSX (bot/lang): parse errors named by line, the
definitions and units of realistic files (a lodash excerpt among them), the outline and windows,
the lines stack frames point at, a unit spliced in by its span, the mutants (node runs them: a
mutant computes something else, a null mutant the same), the reviewer's findings and npm's
lifecycle scripts."""

from __future__ import annotations

import json
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from bot.lang.base import Unit
from bot.lang.javascript import JAVASCRIPT, TSX, TYPESCRIPT
from bot.lang.js_mutants import Nulls, Source
from bot.lang.npm import lifecycle_scripts
from bot.lang.registry import for_path

NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="no node on this machine")

SHOP = """\
'use strict';
const TAX = 20;

function total(items) {
  let sum = 0;
  for (const item of items) {
    if (item.qty > 0) {
      sum += item.price * item.qty;
    }
  }
  return sum;
}

const withTax = (amount) => amount + Math.floor((amount * TAX) / 100);

const label = function (name, price) {
  return `${name}: ${price}`;
};

class Cart {
  constructor() {
    this.items = [];
  }

  add(item) {
    this.items.push(item);
    return this.items.length;
  }

  get empty() {
    return this.items.length === 0;
  }
}

Cart.prototype.clear = function () {
  this.items = [];
};

module.exports = {
  total,
  withTax,
  discount(amount, percent) {
    return amount - Math.max(percent, 0);
  },
  label,
  Cart,
};
"""

# What every variant of SHOP is asked, in one node process: the same answers, or another behaviour.
SHOP_CALLS = """(m) => {
  const cart = new m.Cart();
  const before = cart.empty;
  cart.add({ price: 2, qty: 3 });
  return [m.total([{ price: 2, qty: 3 }, { price: 5, qty: 0 }]), m.withTax(250), m.label('tea', 3),
    before, cart.add({}), cart.empty, m.discount(100, 15), m.discount(100, -5)];
}"""

STORE = """\
export interface Item {
  price: number;
  qty: number;
}

type Totals = { count: 1 | 2; sum: number };

export function total(items: Item[], limit: number = 10): number {
  let sum: number = 0;
  for (const item of items.slice(0, limit)) {
    if (item.qty > 0) sum += item.price * item.qty;
  }
  return sum as number;
}

export abstract class Store<T extends Item> {
  protected items: Array<T> = [];
  abstract name(): string;
  count(): number {
    return this.items.length;
  }
}

declare function log(message: string, level?: 1 | 2): void;
"""

LIST = """\
import React from 'react';

type Props = { items: string[]; max?: number };

export const List = ({ items, max = 3 }: Props) => (
  <ul>
    {items.slice(0, max).map((item) => (
      <li key={item}>{item.length > 10 ? item.slice(0, 10) : item}</li>
    ))}
  </ul>
);

export default function App(): JSX.Element {
  return <List items={['a', 'b']} />;
}
"""

# From lodash.chunk 4.2.0's index.js (npm, `npm pack lodash.chunk@4.2.0`), MIT licence, Copyright
# JS Foundation and other contributors: its header, baseSlice, chunk and eq, their doc comments cut.
LODASH = """\
/**
 * lodash (Custom Build) <https://lodash.com/>
 * Build: `lodash modularize exports="npm" -o ./`
 * Copyright jQuery Foundation and other contributors <https://jquery.org/>
 * Released under MIT license <https://lodash.com/license>
 * Based on Underscore.js 1.8.3 <http://underscorejs.org/LICENSE>
 * Copyright Jeremy Ashkenas, DocumentCloud and Investigative Reporters & Editors
 */

/* Built-in method references for those with the same name as other `lodash` methods. */
var nativeCeil = Math.ceil,
    nativeMax = Math.max;

function baseSlice(array, start, end) {
  var index = -1,
      length = array.length;

  if (start < 0) {
    start = -start > length ? 0 : (length + start);
  }
  end = end > length ? length : end;
  if (end < 0) {
    end += length;
  }
  length = start > end ? 0 : ((end - start) >>> 0);
  start >>>= 0;

  var result = Array(length);
  while (++index < length) {
    result[index] = array[index + start];
  }
  return result;
}

function chunk(array, size, guard) {
  if ((guard ? isIterateeCall(array, size, guard) : size === undefined)) {
    size = 1;
  } else {
    size = nativeMax(toInteger(size), 0);
  }
  var length = array ? array.length : 0;
  if (!length || size < 1) {
    return [];
  }
  var index = 0,
      resIndex = 0,
      result = Array(nativeCeil(length / size));

  while (index < length) {
    result[resIndex++] = baseSlice(array, index, (index += size));
  }
  return result;
}

function eq(value, other) {
  return value === other || (value !== value && other !== other);
}

module.exports = { baseSlice, chunk, eq };
"""


def results(tmp_path: Path, codes: list[str], calls: str) -> list[str]:
    """What `calls` (a JavaScript function of a module) returns for each of `codes` loaded as a
    CommonJS module, as JSON, or the error it throws: one node process for all of them."""
    files = []
    for index, code in enumerate(codes):
        path = tmp_path / f"variant{index}.js"
        path.write_text(code, encoding="utf-8")
        files.append(str(path))
    script = (
        f"const calls = {calls};\n"
        f"for (const file of {json.dumps(files)}) {{\n"
        "  try { console.log(JSON.stringify(calls(require(file)))); }\n"
        "  catch (error) { console.log(`throws ${error.name}`); }\n"
        "}\n"
    )
    done = subprocess.run([NODE or "node", "-e", script], capture_output=True, text=True, timeout=60, check=True)
    return done.stdout.splitlines()


# The view a path gets, and what parses.


def test_a_view_is_picked_by_the_extension():
    assert [for_path(p) for p in ("a.js", "b.mjs", "c.cjs", "src/d.jsx")] == [JAVASCRIPT] * 4
    assert [for_path(p) for p in ("a.ts", "b.mts", "c.cts", "types.d.ts")] == [TYPESCRIPT] * 4
    assert (for_path("src/App.tsx"), for_path("setup.py"), for_path("README"), for_path("Makefile.js.bak")) == (
        TSX,
        None,
        None,
        None,
    )
    assert (JAVASCRIPT.name, TYPESCRIPT.name, TSX.name) == ("javascript", "typescript", "tsx")


def test_code_that_parses_has_no_problem():
    assert (JAVASCRIPT.parses(SHOP), TYPESCRIPT.parses(STORE), TSX.parses(LIST), JAVASCRIPT.parses(LODASH)) == (
        None,
        None,
        None,
        None,
    )


def test_a_parse_error_is_named_with_its_line():
    assert JAVASCRIPT.parses("var a = 1;\nvar b = 2 +;\n") == "line 2: syntax error at `+`"
    assert JAVASCRIPT.parses("function f(a {\n  return a\n}\n") == "line 1: missing `)`"
    assert JAVASCRIPT.parses("class A {\n  m() { return 1 }\n") == "line 2: missing `}`"
    # JSX is TSX's, not TypeScript's: the same text parses as .tsx only. tree-sitter names where its
    # recovery went wrong, not always the token a compiler would (the JSX starts on line 6).
    assert TYPESCRIPT.parses(LIST) == "line 7: missing `}`"
    # TypeScript's annotations are no JavaScript.
    assert JAVASCRIPT.parses("let n: number = 1;\n") == "line 1: syntax error at `n`"


# Definitions, the outline, the windows.


def test_the_definitions_of_a_commonjs_module():
    assert JAVASCRIPT.definitions(SHOP) == [
        ("total", 4, 12),
        ("withTax", 14, 14),
        ("label", 16, 18),
        ("Cart", 20, 33),
        ("Cart.constructor", 21, 23),
        ("Cart.add", 25, 28),
        ("Cart.empty", 30, 32),
        ("Cart.clear", 35, 37),
        ("discount", 42, 44),  # a method of the exported object
    ]


def test_the_definitions_of_typescript_leave_out_types_and_signatures():
    # No interface, type alias, abstract method or `declare`d function: none has a body.
    assert TYPESCRIPT.definitions(STORE) == [("total", 8, 14), ("Store", 16, 22), ("Store.count", 19, 21)]
    assert TSX.definitions(LIST) == [("List", 5, 11), ("App", 13, 15)]


def test_the_definitions_of_exports_decorators_and_nesting():
    code = textwrap.dedent("""\
        export default {
          name: 'shapes',
          area(r) { return 3 * r * r; },
          double: (x) => x * 2,
        };
        exports.neg = (a) => -a;
        module.exports.pow = function (a, b) { return a ** b; };
        function outer() {
          function inner() {}
          const arrow = () => inner();
        }
        class Panel {
          @Input() title: string;
          @HostListener('click')
          onClick(event: Event) {
            return event;
          }
          static make = (n: number) => new Panel();
        }
        """)
    assert TYPESCRIPT.definitions(code) == [
        ("area", 3, 3),
        ("double", 4, 4),
        ("neg", 6, 6),
        ("pow", 7, 7),
        ("outer", 8, 11),
        ("outer.inner", 9, 9),
        ("outer.arrow", 10, 10),
        ("Panel", 12, 19),
        ("Panel.onClick", 14, 17),  # its decorator's line first
        ("Panel.make", 18, 18),
    ]


def test_the_definitions_of_a_real_package_s_source():
    assert JAVASCRIPT.definitions(LODASH) == [("baseSlice", 14, 33), ("chunk", 35, 53), ("eq", 55, 57)]


def test_definitions_are_found_in_code_that_doesn_t_parse():
    broken = "function ok() {\n  return 1;\n}\n\nfunction broken( {\n"
    assert JAVASCRIPT.definitions(broken)[0] == ("ok", 1, 3)
    assert JAVASCRIPT.units(broken) == []  # nothing to splice into


def test_the_outline_lists_each_definition_s_first_line():
    assert JAVASCRIPT.outline(SHOP, set()) == "\n".join(
        [
            "   4 | function total(items) {",
            "  14 | const withTax = (amount) => amount + Math.floor((amount * TAX) / 100);",
            "  16 | const label = function (name, price) {",
            "  20 | class Cart {",
            "  21 |   constructor() {",
            "  25 |   add(item) {",
            "  30 |   get empty() {",
            "  35 | Cart.prototype.clear = function () {",
            "  42 |   discount(amount, percent) {",
        ]
    )


def test_a_long_outline_keeps_the_definitions_nearest_the_lines_shown():
    code = "".join(f"function f{n}() {{ return {n}; }}\n" for n in range(1, 71))
    shown = JAVASCRIPT.outline(code, {70}).splitlines()
    assert shown[0] == "(60 of its 70 definitions: those nearest the lines shown below)"
    assert (shown[1], shown[-1], len(shown)) == (
        "  11 | function f11() { return 11; }",
        "  70 | function f70() { return 70; }",
        61,
    )


def test_windows_show_the_lines_around_a_frame_and_a_named_definition():
    assert JAVASCRIPT.windows(SHOP, {9}, ["add"]) == "\n".join(
        [
            "   3 | ",
            "   4 | function total(items) {",
            "   5 |   let sum = 0;",
            "   6 |   for (const item of items) {",
            "   7 |     if (item.qty > 0) {",
            "   8 |       sum += item.price * item.qty;",
            "   9 |     }",
            "  10 |   }",
            "  11 |   return sum;",
            "  12 | }",
            "  13 | ",
            "  14 | const withTax = (amount) => amount + Math.floor((amount * TAX) / 100);",
            "  15 | ",
            "     ...",
            "  25 |   add(item) {",
            "  26 |     this.items.push(item);",
            "  27 |     return this.items.length;",
            "  28 |   }",
        ]
    )
    assert (
        JAVASCRIPT.windows(SHOP, set(), ["Cart.clear"]).splitlines()[0] == "  35 | Cart.prototype.clear = function () {"
    )
    assert JAVASCRIPT.windows(SHOP, set(), ["nothing"]) == ""


# Where failures point.

JEST = """\
 FAIL  src/cart.test.js
  ● total › counts each item

    expect(received).toBe(expected) // Object.is equality

    Expected: 6
    Received: 0

       7 |   test('counts each item', () => {
       8 |     const items = [{ price: 2, qty: 3 }];
    >  9 |     expect(total(items)).toBe(6);
         |                          ^
      10 |   });

      at Object.toBe (src/cart.test.js:9:26)

  ● Test suite failed to run

    SyntaxError: /work/repo/src/shop.js: Unexpected token (14:9)

      12 | }
      13 |
    > 14 | const withTax = (amount) =>
         |          ^
"""

NODE_FRAMES = """\
TypeError: Cannot read properties of undefined (reading 'qty')
    at total (/work/repo/src/shop.js:7:14)
    at Object.<anonymous> (/work/repo/src/shop.test.js:3:1)
    at Module._compile (node:internal/modules/cjs/loader:1358:14)
    at /work/repo/src/shop.js:26:5
    at async run (file:///work/repo/src/my%20lib/shop.mjs:4:2)
    at helper (/work/repo/vendor/other/shop.js:99:1)
"""


def test_node_s_stack_frames_name_the_file_s_lines():
    assert JAVASCRIPT.pointed_at(NODE_FRAMES, "src/shop.js", "/work/repo") == {7, 26}
    assert JAVASCRIPT.pointed_at(NODE_FRAMES, "src/my lib/shop.mjs", "/work/repo") == {4}
    # A relative path ends the absolute one without a root, as far as it goes.
    assert JAVASCRIPT.pointed_at(NODE_FRAMES, "other/shop.js") == {99}
    assert JAVASCRIPT.pointed_at(NODE_FRAMES, "shop.js") == {7, 26, 99}


def test_jest_s_code_frames_and_babel_s_syntax_errors():
    assert JAVASCRIPT.pointed_at(JEST, "src/cart.test.js") == {9}
    # The second frame points at line 14 of the file Babel's message names before it.
    assert JAVASCRIPT.pointed_at(JEST, "src/shop.js", "/work/repo") == {14}


def test_tsc_and_vitest_locations():
    text = (
        "src/store.ts(13,3): error TS2322: Type 'string' is not assignable to type 'number'.\n"
        "src/store.ts:20:5 - error TS2339: Property 'size' does not exist on type 'Store<T>'.\n"
        " ❯ src/store.test.ts:5:22\n"
        "/work/repo/src/store.ts:3\n"
    )
    assert TYPESCRIPT.pointed_at(text, "src/store.ts", "/work/repo") == {3, 13, 20}
    assert TYPESCRIPT.pointed_at(text, "src/store.test.ts") == {5}


# Units and the splice.


def test_the_units_leave_out_what_a_function_holds():
    assert JAVASCRIPT.units(SHOP) == [
        Unit("total", "total", "function", 4, 12, ""),
        Unit("withTax", "withTax", "function", 14, 14, ""),
        Unit("label", "label", "function", 16, 18, ""),
        Unit("Cart", "Cart", "class", 20, 33, ""),
        Unit("constructor", "Cart.constructor", "method", 21, 23, "  "),
        Unit("add", "Cart.add", "method", 25, 28, "  "),
        Unit("empty", "Cart.empty", "method", 30, 32, "  "),
        Unit("clear", "Cart.clear", "method", 35, 37, ""),
        Unit("discount", "discount", "function", 42, 44, "  "),
    ]
    assert [unit.qualname for unit in JAVASCRIPT.units("function outer() {\n  function inner() {}\n}\n")] == ["outer"]


def test_each_unit_spliced_with_its_own_text_gives_the_file_back():
    for code, view in ((SHOP, JAVASCRIPT), (STORE, TYPESCRIPT), (LIST, TSX), (LODASH, JAVASCRIPT)):
        for unit in view.units(code):
            assert view.spliced(code, unit.qualname, unit.text(code)) == code, unit.qualname
            assert view.spliced(code, unit.qualname, textwrap.dedent(unit.text(code))) == code, unit.qualname


@needs_node
def test_a_function_replaced_changes_what_the_module_computes(tmp_path):
    fixed = "function total(items) {\n  return items.reduce((sum, item) => sum + item.price * item.qty, 0) * 10;\n}\n"
    new = JAVASCRIPT.spliced(SHOP, "total", fixed)
    assert new == SHOP.replace(SHOP[SHOP.index("function total") : SHOP.index("\n\nconst withTax")], fixed.strip())
    assert results(tmp_path, [SHOP, new], "(m) => m.total([{ price: 2, qty: 3 }])") == ["6", "60"]


def test_a_method_comes_alone_and_goes_in_at_its_depth():
    reply = textwrap.dedent("""\
        add(item) {
          if (!item) throw new Error('no item');
          this.items.push(item);
          return this.items.length;
        }""")
    new = JAVASCRIPT.spliced(SHOP, "Cart.add", reply)
    assert new.splitlines()[24:30] == [
        "  add(item) {",
        "    if (!item) throw new Error('no item');",
        "    this.items.push(item);",
        "    return this.items.length;",
        "  }",
        "",
    ]
    assert new.replace("    if (!item) throw new Error('no item');\n", "") == SHOP


def test_a_class_holding_only_the_method_gives_that_method():
    reply = "class Cart {\n  get empty() {\n    return !this.items.length;\n  }\n}\n"
    new = JAVASCRIPT.spliced(SHOP, "Cart.empty", reply)
    assert new == SHOP.replace("return this.items.length === 0;", "return !this.items.length;")


def test_a_member_of_the_exported_object_comes_alone():
    reply = "discount(amount, percent) {\n  return amount - Math.max(percent, 0) * 2;\n},"
    new = JAVASCRIPT.spliced(SHOP, "discount", reply)
    assert new == SHOP.replace("return amount - Math.max(percent, 0);", "return amount - Math.max(percent, 0) * 2;")


def test_the_file_s_export_stays_and_the_reply_s_is_left_out():
    reply = "export function total(items: Item[]): number {\n  return items.length;\n}\n"
    new = TYPESCRIPT.spliced(STORE, "total", reply)
    assert new.splitlines()[7:10] == ["export function total(items: Item[]): number {", "  return items.length;", "}"]
    assert TYPESCRIPT.spliced(STORE, "total", reply.removeprefix("export ")) == new


def test_a_template_string_s_lines_keep_their_indentation():
    reply = "label(name) {\n  return `${name}\n  ok`;\n}"
    code = "class A {\n  label(name) {\n    return name;\n  }\n}\n"
    assert (
        JAVASCRIPT.spliced(code, "A.label", reply)
        == "class A {\n  label(name) {\n    return `${name}\n  ok`;\n  }\n}\n"
    )


def test_a_splice_counts_characters_not_bytes():
    code = "const GREETING = 'héllo wörld 😀';\nfunction shout() { return GREETING; }\nconst after = '✓';\n"
    new = JAVASCRIPT.spliced(code, "shout", "function shout() { return GREETING.toUpperCase(); }")
    assert new == code.replace("return GREETING;", "return GREETING.toUpperCase();")


def test_a_reply_that_doesn_t_fit_is_refused_with_the_reason():
    with pytest.raises(ValueError) as caught:
        JAVASCRIPT.spliced(SHOP, "total", "function total(items) {\n  return items.;\n}\n")
    assert str(caught.value) == "the code in your reply does not parse: line 2: syntax error at `.`"
    with pytest.raises(ValueError) as caught:
        JAVASCRIPT.spliced(SHOP, "total", "function sum(items) { return 0; }")
    assert str(caught.value) == "the code in your reply does not define `total`"
    with pytest.raises(ValueError) as caught:
        JAVASCRIPT.spliced(SHOP, "Cart.clear", "function clear() { this.items = []; }")
    assert str(caught.value) == (
        "the code in your reply defines `clear` as a declaration, where the file has an assignment"
    )
    with pytest.raises(ValueError) as caught:
        JAVASCRIPT.spliced(SHOP, "Cart.remove", "remove() {}")
    assert str(caught.value) == "the file has no `Cart.remove` to replace"


# Mutants.


def test_the_mutants_of_a_module():
    made = [(m.line, m.operator, m.change, m.mutated_line) for m in JAVASCRIPT.mutants(SHOP, None)]
    assert made[:9] == [
        (2, "constant", "'20' → '21'", "const TAX = 21;"),
        (2, "constant", "'20' → '19'", "const TAX = 19;"),
        (5, "constant", "'0' → '1'", "let sum = 1;"),
        (5, "constant", "'0' → '-1'", "let sum = (-1);"),
        (7, "branch", "'if (item.qty > 0) { sum += item.price * item.qty; }' → 'if (item.qty > 0) {}'", ""),
        (7, "comparison", "'>' → '<='", "if (item.qty <= 0) {"),
        (7, "constant", "'0' → '1'", "if (item.qty > 1) {"),
        (7, "constant", "'0' → '-1'", "if (item.qty > (-1)) {"),
        (11, "return", "'return sum' → 'return null'", "return null;"),
    ]
    assert [(line, operator, change) for line, operator, change, _ in made[9:]] == [
        (14, "constant", "'100' → '101'"),
        (14, "constant", "'100' → '99'"),
        (17, "return", "'return `${name}: ${price}`' → 'return '''"),
        (27, "return", "'return this.items.length' → 'return null'"),
        (31, "return", "'return this.items.length === 0' → 'return false'"),
        (31, "comparison", "'===' → '!=='"),
        (31, "constant", "'0' → '1'"),
        (31, "constant", "'0' → '-1'"),
        (43, "return", "'return amount - Math.max(percent, 0)' → 'return null'"),
        (43, "constant", "'0' → '1'"),
        (43, "constant", "'0' → '-1'"),  # and Math.max's arguments never swapped
    ]


def test_only_the_lines_written_are_mutated():
    original = SHOP.replace("    if (item.qty > 0) {", "    if (item.qty) {")
    assert [(m.line, m.change) for m in JAVASCRIPT.mutants(SHOP, original)] == [
        (7, "'if (item.qty > 0) { sum += item.price * item.qty; }' → 'if (item.qty > 0) {}'"),
        (7, "'>' → '<='"),
        (7, "'0' → '1'"),
        (7, "'0' → '-1'"),
    ]
    assert JAVASCRIPT.mutants(SHOP, SHOP) == []
    # A budget: as many, spread over the lines written.
    assert [(m.line, m.change) for m in JAVASCRIPT.mutants(SHOP, original, budget=2)] == [
        (7, "'if (item.qty > 0) { sum += item.price * item.qty; }' → 'if (item.qty > 0) {}'"),
        (7, "'0' → '1'"),
    ]
    assert [m.line for m in JAVASCRIPT.mutants(SHOP, None, budget=4)] == [2, 7, 14, 31]
    assert JAVASCRIPT.mutants("function broken( {\n", None) == []


def test_arguments_swap_and_a_boolean_flips():
    code = "function f(a, b) {\n  return a && b ? Math.pow(a, b) : fallback(a || b, b);\n}\n"
    made = [(m.operator, m.change) for m in JAVASCRIPT.mutants(code, None)]
    assert made == [
        ("return", "'return a && b ? Math.pow(a, b) : fallback(a || b, b)' → 'return null'"),
        ("boolean", "'&&' → '||'"),
        ("arguments", "'Math.pow(a, b)' → 'Math.pow(b, a)'"),
        ("arguments", "'fallback(a || b, b)' → 'fallback(b, a || b)'"),
        ("boolean", "'||' → '&&'"),
    ]


def test_typescript_s_types_give_no_mutant():
    # The same function with and without its annotations: the same mutants; the types alone: none.
    typed = STORE[STORE.index("export function") : STORE.index("\nexport abstract")]
    plain = typed.replace("items: Item[], limit: number = 10): number", "items, limit = 10)")
    plain = plain.replace("let sum: number", "let sum").replace("sum as number", "sum")
    assert plain != typed and JAVASCRIPT.parses(plain) is None and len(JAVASCRIPT.mutants(plain, None)) == 12
    assert [(m.line, m.operator, m.change) for m in TYPESCRIPT.mutants(typed, None)] == [
        (m.line, m.operator, m.change.replace("'return sum'", "'return sum as number'"))
        for m in JAVASCRIPT.mutants(plain, None)
    ]
    types = "interface A { n: 1 | 2 }\ntype B = A & { m: 3 };\ndeclare function f(x: 4): 5;\nlet c: 6 | 7;\n"
    assert TYPESCRIPT.mutants(types, None) == []


def test_tsx_mutants_go_into_jsx_expressions():
    made = [(m.line, m.change) for m in TSX.mutants(LIST, None)]
    assert made[:3] == [(5, "'3' → '4'"), (5, "'3' → '2'"), (7, "'items.slice(0, max)' → 'items.slice(max, 0)'")]
    assert (8, "'>' → '<='") in made and (14, "'return <List items={['a', 'b']} />' → 'return null'") in made
    assert all(TSX.parses(mutant.code) is None for mutant in TSX.mutants(LIST, None))


@needs_node
def test_a_mutant_computes_something_else(tmp_path):
    mutants = [m for m in JAVASCRIPT.mutants(SHOP, None) if 4 <= m.line <= 12]  # total's
    assert len(mutants) == 7
    got = results(
        tmp_path, [SHOP, *(m.code for m in mutants)], "(m) => m.total([{ price: 2, qty: 3 }, { price: 5, qty: 0 }])"
    )
    # The original; let sum = 1 / -1; the if-body gone; `<=`; `> 1`, `> -1` (no input here tells them); return null.
    assert got == ["6", "7", "5", "0", "0", "6", "6", "null"]


@needs_node
def test_the_real_package_s_mutants_run(tmp_path):
    mutants = JAVASCRIPT.mutants(LODASH, None)
    assert len(mutants) == 51
    assert all(JAVASCRIPT.parses(m.code) is None for m in mutants)
    flipped = next(m for m in mutants if m.line == 18 and m.operator == "comparison")
    assert flipped.change == "'<' → '>='"
    got = results(
        tmp_path, [LODASH, flipped.code], "(m) => [m.baseSlice([1, 2, 3, 4, 5], 1, 3), m.baseSlice([1, 2, 3], -2, 3)]"
    )
    assert got == ["[[2,3],[2,3]]", "[[],[null,null,null,null,null]]"]


@needs_node
def test_every_null_rewrite_computes_the_same(tmp_path):
    source = Source(SHOP, "javascript", None)
    nulls = Nulls(source)
    variants = []
    for kind in nulls.kinds():
        for rewrite in kind():
            variant = source.apply(list(rewrite.edits))
            assert variant is not None, rewrite.change
            variants.append(variant)
    # A statement before each of the 19 written (never before 'use strict'); 6 integers; one `===`;
    # 9 binary expressions and calls that start no statement; `sum`, the one local declared alone.
    counts = {kind.__name__: len(kind()) for kind in nulls.kinds()}
    assert counts == {"statements": 19, "sums": 6, "negations": 1, "parentheses": 9, "renames": 1}
    got = results(tmp_path, [SHOP, *variants], SHOP_CALLS)
    assert got[0] == '[6,300,"tea: 3",true,2,false,85,100]'
    assert set(got) == {got[0]}


@needs_node
def test_null_mutants_are_drawn_anew_and_compute_the_same(tmp_path):
    drawn = [JAVASCRIPT.null_mutants(SHOP, None) for _ in range(6)]
    assert all(1 <= len(nulls) <= 3 for nulls in drawn)
    codes = [mutant.code for nulls in drawn for mutant in nulls]
    assert SHOP not in codes and len(set(codes)) > 2  # no one fixed rewrite marks them
    assert all(mutant.operator == "null" for nulls in drawn for mutant in nulls)
    got = results(tmp_path, [SHOP, *codes], SHOP_CALLS)
    assert set(got) == {'[6,300,"tea: 3",true,2,false,85,100]'}


def test_null_rewrites_keep_off_directives_overloads_and_statement_starts():
    code = (
        "'use strict';\n"
        "function f(x: string): string;\n"
        "function f(x: any) {\n"
        "  'use asm';\n"
        "  const y = x\n"
        "  y === 1 && log(y);\n"
        "  return y;\n"
        "}\n"
    )
    source = Source(code, "typescript", None)
    nulls = Nulls(source)
    # Not before a directive (1, 4), a signature (2: a type) or its implementation (3).
    assert [rewrite.line for rewrite in nulls.statements()] == [5, 6, 7]
    # TypeScript types `1` as 1 and `(0 + 1)` as number: no sums.
    assert [kind.__name__ for kind in nulls.kinds()] == ["statements", "negations", "parentheses", "renames"]
    # `y === 1 && …` starts its statement: after line 5, which has no `;`, `(y === 1 …` or `!(y …` would
    # continue it (`x(y === 1 …)`, TypeScript's `x!`); `log(y)` inside it may have its parentheses.
    assert nulls.negations() == []
    assert [rewrite.change for rewrite in nulls.parentheses()] == ["'log(y)' → '(log(y))'"]
    assert [rewrite.change.split(" → ")[0] for rewrite in nulls.renames()] == ["a local renamed: 'y'"]


# What a reviewer should look at.

RISKY = """\
const cp = require('child_process');
const { exec, spawn: run } = require('node:child_process');
import * as net from 'net';
import https, { request as ask } from 'node:https';
const fs = require('fs');
import { writeFileSync } from 'fs/promises';
function go() {
  cp.exec('ls');
  exec('ls'); run('x');
  ask('https://x');
  fetch('https://example.com/x');
  const socket = new WebSocket('wss://example.com');
  const key = process.env.SECRET_KEY;
  fs.readFileSync('/etc/passwd');
  writeFileSync('../../outside.txt', 'x');
  fs.readFileSync('./local.txt');
  eval('1 + 1'); new Function('return 1')();
  const vm = require('vm'); vm.runInNewContext('1');
  const blob = "%s";
  /abc/.exec('abc');
}
""" % ("QUJD" * 60)


def test_what_a_new_file_adds_for_the_reviewer():
    assert JAVASCRIPT.findings(None, RISKY) == [
        (1, "process", "child_process"),
        (3, "network", "net"),
        (4, "network", "https"),
        (8, "process", "child_process.exec"),
        (9, "process", "child_process.spawn"),
        (10, "network", "https.request"),
        (11, "network", "fetch()"),
        (12, "network", "WebSocket"),
        (13, "environment", "process.env"),
        (14, "outside file", "/etc/passwd"),
        (15, "outside file", "../../outside.txt"),
        (17, "dynamic code", "eval()"),
        (17, "dynamic code", "new Function()"),
        (18, "dynamic code", "vm"),
        (18, "dynamic code", "vm.runInNewContext"),
        (19, "long literal", "QUJDQUJDQUJDQUJDQUJDQUJD… (240 characters, base64-looking)"),
    ]


def test_only_what_the_change_adds_counts():
    old = "const cp = require('child_process');\nfunction go() {\n  cp.execSync('ls');\n}\n"
    new = old.replace(
        "  cp.execSync('ls');\n", "  cp.execSync('ls');\n  cp.spawn('sh');\n  const home = process.env.HOME;\n"
    )
    assert TYPESCRIPT.findings(old, new) == [(4, "process", "child_process.spawn"), (5, "environment", "process.env")]
    # A line moved is no new finding, nor a kind the old text had on another line.
    moved = "function go() {\n  cp.execSync('ls');\n}\nconst cp = require('child_process');\n"
    assert JAVASCRIPT.findings(old, moved) == []


def test_lifecycle_scripts_added_or_changed():
    old = json.dumps({"name": "shop", "scripts": {"test": "jest", "prepare": "husky"}}, indent=2)
    new = json.dumps(
        {
            "name": "shop",
            "scripts": {"test": "jest", "prepare": "husky", "postinstall": "node x.js", "pretest": "curl e"},
        },
        indent=2,
    )
    assert lifecycle_scripts(old, new) == [
        (6, "lifecycle script", '"postinstall": "node x.js"'),
        (7, "lifecycle script", '"pretest": "curl e"'),
    ]
    assert lifecycle_scripts(None, old) == [(5, "lifecycle script", '"prepare": "husky"')]
    assert lifecycle_scripts(old, old.replace("jest", "vitest")) == []  # `test` is the command, judged elsewhere
    assert lifecycle_scripts(old, "{ not json") == []
