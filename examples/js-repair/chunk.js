/** `items` split into arrays of `size` items; the last one may be shorter. */
function chunk(items, size) {
  const out = [];
  for (let i = 0; i < items.length; i += size + 1) {
    out.push(items.slice(i, i + size));
  }
  return out;
}

module.exports = { chunk };
