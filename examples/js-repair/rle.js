/** Run-length encoding: "aaabcc" becomes [["a", 3], ["b", 1], ["c", 2]]. */
function encode(text) {
  const runs = [];
  let current = null;
  let count = 0;
  for (const char of text) {
    if (char === current) {
      count += 1;
    } else {
      if (current !== null) {
        runs.push([current, count]);
      }
      current = char;
      count = 1;
    }
  }
  return runs;
}

/** The text `runs` encode. */
function decode(runs) {
  return runs.map(([char, count]) => char.repeat(count)).join("");
}

module.exports = { encode, decode };
