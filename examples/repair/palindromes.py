"""Palindromes, reading letters and digits only."""


def normalized(text):
    """The letters and digits of `text`, lowercased; spaces and punctuation dropped."""
    return "".join(c.lower() for c in text if c.isalpha())


def is_palindrome(text):
    """Whether `text` reads the same backwards, ignoring case, spaces and punctuation."""
    letters = normalized(text)
    return letters == letters[::-1]


def longest(texts):
    """The longest palindrome among `texts` by normalized length, the first on ties; None if none."""
    found = [t for t in texts if is_palindrome(t)]
    return max(found, key=lambda t: len(normalized(t)), default=None)


def palindromic_words(text):
    """The words of `text` that are palindromes of two or more letters or digits, lowercased."""
    return [word.lower() for word in text.split() if len(normalized(word)) > 1 and is_palindrome(word)]
