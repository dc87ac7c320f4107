"""The static guard for JavaScript and TypeScript code under repair (bot/judge/js/guard.py). Each
line of HOSTILE is a way into the runner the guard refuses; ORDINARY is code libraries are made of."""

from bot.judge.js.guard import findings, in_test_file

HOSTILE = """\
import { afterEach } from "vitest";
const g = require("@jest/globals");
globalThis.expect = () => ({});
globalThis["after" + "Each"](() => {});
process.exit(0);
process.exitCode = 0;
const F = ({}).constructor.constructor;
new Function("return 1");
eval("1");
const t = await import("node:test");
expect(1);
const r = require(["vi", "test"].join(""));
const h = Reflect.get(globalThis, "afterEach");
const v = require("node:vm");
const files = Object.keys(require.cache);
const here = __filename;
const caller = new Error().stack;
const worker = process.env.JEST_WORKER_ID;
const args = process.argv;
const url = import.meta.url;
function f(beforeEach) { return beforeEach; } beforeEach(() => {});
const m = await import(`./${name}`);
require("node:assert").deepStrictEqual = () => {};
Object.defineProperty(Array.prototype, "includes", { value: () => true });
import assert from "node:assert";
assert.equal = () => {};
JSON.stringify = (value) => "";
const O = Object; O.is = () => true;
const proto = Object.getPrototypeOf([]);
proto.filter = function () { return []; };
Object.defineProperty(proto, "asymmetricMatch", { get() { return () => true; } });
const g = (function () {}).constructor("return this")();
const e = (0, eval)("this");
const key = Symbol.for("expect-global");
const p = process; p["std" + "out"].write = () => true;
(process as any)["exit"](0);
import { valid } from "./__fixtures__/rules.js";
const answers = require("../test/answers.test.js");
const lenient = { asymmetricMatch: () => true };
"""
ORDINARY = """\
import { readFileSync } from "node:fs";
import render, { test as check } from "./render";
const path = require("node:path");
export function chunk(items, size) {
  const out = [];
  for (const it of items) out.push(it);
  return [1].map((test) => test * size).concat(out);
}
import helpers from "./helpers";
const { describe } = helpers;
export const text = (file) => readFileSync(path.join(".", file), "utf8") + describe;
export const fetcher = typeof window === "undefined" ? globalThis.fetch : window.fetch;
export function expect(value) { return check(value) && render(value); }
try { chunk(); } catch (it) { expect(it); }
export { default as it } from "./locale/it";
const box = {};
box.size = 2;
module.exports.chunk = chunk;
exports.size = Object.assign(box, { a: 1 });
helpers.cache = new Map();
class Counter { constructor(n) { this.n = n; } bump(by) { by.count += 1; } }
for (const [key, entry] of Object.entries(box)) entry.key = key;
"""


def test_every_way_into_the_runner_is_found_on_its_line():
    found = [(f.line, f.rule) for f in findings(HOSTILE, None, "src/a.ts")]
    assert found == [
        (1, "test-runner"),
        (2, "test-runner"),
        (3, "runner-global"),
        (4, "global-object"),
        (5, "process-end"),
        (6, "process-end"),
        (7, "code-at-run-time"),
        (8, "code-at-run-time"),
        (9, "code-at-run-time"),
        (10, "test-runner"),
        (11, "runner-global"),
        (12, "module-by-name"),
        (13, "global-object"),
        (14, "module-by-name"),
        (15, "module-by-name"),
        (16, "test-detection"),
        (17, "test-detection"),
        (18, "test-detection"),
        (19, "test-detection"),
        (20, "test-detection"),
        (21, "runner-global"),
        (22, "module-by-name"),
        (23, "patching"),
        (24, "patching"),
        (26, "patching"),
        (27, "patching"),
        (28, "patching"),
        (29, "patching"),
        (30, "patching"),
        (31, "matcher-protocol"),
        (31, "patching"),
        (32, "code-at-run-time"),
        (33, "code-at-run-time"),
        (34, "matcher-protocol"),
        (35, "patching"),
        (36, "process-end"),
        (37, "test-files"),
        (38, "test-files"),
        (39, "matcher-protocol"),
    ]


def test_code_libraries_are_made_of_passes():
    assert findings(ORDINARY, None, "src/a.ts") == []


def test_a_name_declared_in_one_scope_does_not_hide_the_global_in_another():
    code = "function wrap(afterEach) { return afterEach; }\nafterEach(() => {});\n"
    assert [(f.line, f.rule) for f in findings(code, None, "src/a.js")] == [(2, "runner-global")]


def test_only_the_lines_a_change_wrote_count():
    original = "process.exit(1);\nexport const one = 1;\n"
    changed = original.replace("one = 1", "one = 2") + "process.exit(0);\n"
    assert [(f.line, f.rule) for f in findings(changed, original, "src/a.js")] == [(3, "process-end")]


def test_a_test_file_autofix_adds_may_call_the_runner_and_nothing_else():
    reproduction = (
        'import { test, expect } from "vitest";\nimport { chunk } from "../src/chunk";\n'
        'test("issue 1", () => { expect(chunk([1], 1)).toEqual([[1]]); });\n'
    )
    assert in_test_file(reproduction, None, "test/autofix-issue-1.test.js") == []
    hostile = reproduction + "process.exitCode = 0;\nconst all = require.cache;\n"
    found = in_test_file(hostile, None, "test/autofix-issue-1.test.js")
    assert [(f.line, f.rule) for f in found] == [(4, "process-end"), (5, "module-by-name")]


SLOPPY = """\
function g() { return this; }
const G = g();
const H = (function () { return this[key]; })();
function Cache() { this.size = 0; }
function clear() { this.size = 0; return this; }
Cache.prototype.clear = clear;
function memo(f) { return function m() { return f.apply(this, arguments); }; }
const o = { m() { return this; } };
function exit() { globalThis.process.exit(0); }
"""


def test_a_sloppy_functions_this_called_plainly_is_the_global_object():
    """In sloppy mode a plain call gives a function's `this` the global object, the runner's
    `expect` and `afterEach` on it; old code's constructors and methods, and wrappers passing
    their `this` on, are called with a receiver. `globalThis.process` is `process`."""
    found = [(f.line, f.rule) for f in findings(SLOPPY, None, "src/cache.js")]
    assert found == [(1, "global-object"), (3, "global-object"), (9, "process-end")]
    strict = [(f.line, f.rule) for f in findings('"use strict";\n' + SLOPPY, None, "src/cache.js")]
    assert strict == [(10, "process-end")]  # `this` is undefined there
    module = [(f.line, f.rule) for f in findings(SLOPPY + "export { G };\n", None, "src/cache.mjs")]
    assert module == [(9, "process-end")]  # an ES module is strict
