/** The average of every window of `size` consecutive values. */
function movingAverage(values, size) {
  const out = [];
  for (let start = 0; start < values.length - size; start += 1) {
    const window = values.slice(start, start + size);
    out.push(window.reduce((sum, value) => sum + value, 0) / size);
  }
  return out;
}

module.exports = { movingAverage };
