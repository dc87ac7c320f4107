const { test } = require("node:test");
const assert = require("node:assert");
const { movingAverage } = require("./moving-average");

test("windows of two", () => {
  assert.deepStrictEqual(movingAverage([1, 2, 3, 4], 2), [1.5, 2.5, 3.5]);
});

test("one window", () => {
  assert.deepStrictEqual(movingAverage([2, 4, 6], 3), [4]);
});

test("too short", () => {
  assert.deepStrictEqual(movingAverage([1], 2), []);
});
