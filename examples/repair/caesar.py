"""The Caesar cipher."""

import string


def shift_letter(char, shift):
    """`char` moved `shift` places along the alphabet, wrapping around, case kept; other
    characters as they are."""
    for alphabet in (string.ascii_lowercase, string.ascii_uppercase):
        if char in alphabet:
            return alphabet[(alphabet.index(char) + shift) % 26]
    return char


def encrypt(text, shift):
    """`text` with every letter shifted by `shift`."""
    return "".join(shift_letter(char, shift) for char in text)


def decrypt(text, shift):
    """What `encrypt(..., shift)` turned into `text`."""
    return encrypt(text, shift)


def crack(text, word):
    """The shift under which `text` decrypts to something containing `word`, or None."""
    for shift in range(26):
        if word in decrypt(text, shift):
            return shift
    return None
