const { test } = require("node:test");
const assert = require("node:assert");
const { chunk } = require("./chunk");

test("pairs", () => {
  assert.deepStrictEqual(chunk([1, 2, 3, 4, 5], 2), [[1, 2], [3, 4], [5]]);
});

test("one per chunk", () => {
  assert.deepStrictEqual(chunk(["a", "b"], 1), [["a"], ["b"]]);
});

test("empty", () => {
  assert.deepStrictEqual(chunk([], 3), []);
});
