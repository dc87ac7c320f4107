const { test } = require("node:test");
const assert = require("node:assert");
const { binarySearch } = require("./binary-search");

test("finds every item", () => {
  const items = [1, 3, 5, 7, 9, 11];
  items.forEach((item, index) => assert.strictEqual(binarySearch(items, item), index));
});

test("one item", () => {
  assert.strictEqual(binarySearch([4], 4), 0);
});

test("missing", () => {
  assert.strictEqual(binarySearch([1, 3, 5], 4), -1);
  assert.strictEqual(binarySearch([], 1), -1);
});
