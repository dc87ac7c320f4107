from words import word_counts


def test_simple():
    assert word_counts("a b a") == {"a": 2, "b": 1}


def test_whitespace():
    assert word_counts("The  cat\nthe\tdog ") == {"the": 2, "cat": 1, "dog": 1}


def test_empty():
    assert word_counts("") == {}
