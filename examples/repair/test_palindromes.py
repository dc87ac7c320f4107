from palindromes import is_palindrome, longest, normalized, palindromic_words


def test_sentences():
    assert is_palindrome("A man, a plan, a canal: Panama")
    assert not is_palindrome("palindrome")
    assert palindromic_words("Anna saw a kayak") == ["anna", "kayak"]


def test_digits_count():
    assert normalized("Route 66!") == "route66"
    assert is_palindrome("12321")
    assert not is_palindrome("1 2 3 a")


def test_longest():
    assert longest(["abc", "Noon", "Was it a car or a cat I saw?"]) == "Was it a car or a cat I saw?"
    assert longest(["no", "dice"]) is None
