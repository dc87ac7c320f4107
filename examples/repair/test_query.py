from query import build_query, first, parse_query


def test_parse():
    assert parse_query("?a=1&b=2&b=3") == {"a": ["1"], "b": ["2", "3"]}


def test_escapes_and_bare_names():
    assert parse_query("q=fish+%26+chips&debug") == {"q": ["fish & chips"], "debug": [""]}


def test_first():
    params = parse_query("b=2&b=3")
    assert (first(params, "b"), first(params, "c", "none")) == ("2", "none")


def test_round_trip():
    params = {"q": ["a b"], "tag": ["x", "y"]}
    assert parse_query(build_query(params)) == params
    assert parse_query("a=1;b=2", separator=";") == {"a": ["1"], "b": ["2"]}
