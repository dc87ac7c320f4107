"""Splitting sequences into fixed-size pieces."""


def chunks(items, size):
    """`items` in consecutive pieces of `size`, the last one shorter when they don't divide evenly."""
    if size < 1:
        raise ValueError("size must be at least 1")
    return [items[i : i + size - 1] for i in range(0, len(items), size)]


def batches(items, size):
    """How many pieces `chunks(items, size)` makes."""
    return len(chunks(items, size))


def pad_last(pieces, size, fill=None):
    """The pieces with the last one padded with `fill` to `size`."""
    if pieces and len(pieces[-1]) < size:
        pieces = pieces[:-1] + [list(pieces[-1]) + [fill] * (size - len(pieces[-1]))]
    return pieces
