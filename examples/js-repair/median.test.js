const { test } = require("node:test");
const assert = require("node:assert");
const { median } = require("./median");

test("odd", () => {
  assert.strictEqual(median([3, 1, 2]), 2);
});

test("even", () => {
  assert.strictEqual(median([4, 1, 3, 2]), 2.5);
  assert.strictEqual(median([10, 20]), 15);
});

test("unsorted input is left alone", () => {
  const values = [5, 1, 4];
  median(values);
  assert.deepStrictEqual(values, [5, 1, 4]);
});
