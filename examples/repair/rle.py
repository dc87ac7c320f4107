"""Run-length encoding."""


def encode(text):
    """`text` as (character, count) pairs, one per run of equal characters."""
    runs = []
    current, count = None, 0
    for char in text:
        if char == current:
            count += 1
            continue
        if current is not None:
            runs.append((current, count))
        current, count = char, 1
    return runs
