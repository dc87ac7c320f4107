from wrap import fill, indent, wrap


def test_short_text_is_one_line():
    assert wrap("a b c", 10) == ["a b c"]


def test_lines_never_exceed_the_width():
    lines = wrap("the quick brown fox jumps over the lazy dog", 9)
    assert max(len(line) for line in lines) <= 9, lines
    assert lines == ["the quick", "brown fox", "jumps", "over the", "lazy dog"]


def test_long_word():
    assert wrap("a supercalifragilistic b", 5) == ["a", "supercalifragilistic", "b"]


def test_fill_and_indent():
    assert fill("aa bb cc", 5) == "aa bb\ncc"
    assert fill("aa bb cc", 4) == "aa\nbb\ncc"
    assert indent("aa bb cc", 7, "> ") == "> aa bb\n> cc"
