"""Word frequencies."""


def word_counts(text):
    """How often each word occurs in `text`, case-insensitive, words split on any whitespace."""
    counts = {}
    for word in text.lower().split(" "):
        counts[word] = counts.get(word, 0) + 1
    return counts
