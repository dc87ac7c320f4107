from anagrams import are_anagrams, groups


def test_simple():
    assert are_anagrams("listen", "silent")
    assert not are_anagrams("listen", "lists")


def test_case_and_spaces_are_ignored():
    assert are_anagrams("Dormitory", "dirty room")
    assert are_anagrams("Listen", "Silent")


def test_groups():
    words = ["Stop", "pots", "tops", "cat", "Act", "dog"]
    assert groups(words) == [["Stop", "pots", "tops"], ["cat", "Act"]]
