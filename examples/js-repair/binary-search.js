/** The index of `wanted` in the sorted array `items`, or -1 when it isn't there. */
function binarySearch(items, wanted) {
  let low = 0;
  let high = items.length - 1;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (items[middle] === wanted) {
      return middle;
    }
    if (items[middle] < wanted) {
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  return -1;
}

module.exports = { binarySearch };
