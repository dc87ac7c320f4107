"""Finding anagrams in a word list."""


def signature(word):
    """What every anagram of `word` shares: its letters, lowercased and sorted, spaces ignored."""
    letters = [c for c in word if c != " "]
    return "".join(sorted(letters))


def are_anagrams(first, second):
    """Whether two words or phrases use the same letters, ignoring case and spaces."""
    return signature(first) == signature(second)


def groups(words):
    """The words grouped by signature, groups of two or more only, each in the input's order."""
    found = {}
    for word in words:
        found.setdefault(signature(word), []).append(word)
    return [group for group in found.values() if len(group) > 1]
