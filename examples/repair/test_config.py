import pytest
from config import as_bool, parse


def test_settings():
    text = "# comment\nname = demo\n\ndebug = yes\nname = final\n"
    assert parse(text) == {"name": "final", "debug": "yes"}


def test_values_may_hold_equals_signs():
    settings = parse("url = https://example.com/?a=1&b=2\nformula = x = y + 1\n")
    assert settings == {"url": "https://example.com/?a=1&b=2", "formula": "x = y + 1"}


def test_not_a_setting():
    with pytest.raises(ValueError):
        parse("just words")


def test_flags():
    settings = parse("debug = On\nquiet = 0")
    assert (as_bool(settings, "debug"), as_bool(settings, "quiet"), as_bool(settings, "x", True)) == (True, False, True)
