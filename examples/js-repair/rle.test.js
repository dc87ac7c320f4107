const { test } = require("node:test");
const assert = require("node:assert");
const { encode, decode } = require("./rle");

test("encode", () => {
  assert.deepStrictEqual(encode("aaabcc"), [["a", 3], ["b", 1], ["c", 2]]);
  assert.deepStrictEqual(encode("x"), [["x", 1]]);
});

test("empty", () => {
  assert.deepStrictEqual(encode(""), []);
});

test("round trip", () => {
  for (const text of ["hello", "aabbbcccc", "zz"]) {
    assert.strictEqual(decode(encode(text)), text);
  }
});
