from slugs import slugify, unique_slug


def test_words():
    assert slugify("Hello, World") == "hello-world"


def test_accents():
    assert slugify("Crème brûlée") == "creme-brulee"


def test_no_hyphens_at_the_ends():
    assert slugify("  -- Release notes! --") == "release-notes"
    assert slugify("What's new?") == "what-s-new"


def test_long_titles_are_cut_at_a_word():
    assert slugify("the quick brown fox jumps", max_length=12) == "the-quick"


def test_unique():
    assert unique_slug("What's new?", {"what-s-new", "what-s-new-2"}) == "what-s-new-3"
