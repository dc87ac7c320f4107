"""The stub a wanted name's definition becomes (bot/core/proof.py): its body only raises
NotImplementedError, so a test that never runs the new code still passes it."""

from bot.core.proof import stub

STUBBED = "def add_fixed(*args, **kwargs):\n    raise NotImplementedError\n"


def test_a_function_s_body_only_raises():
    code = 'import x\n\n\n@x.cache\ndef add_fixed(a, b):\n    """Sum."""\n    return a + b\n\n\nz = 1\n'
    assert (
        stub(code, "add_fixed")
        == "import x\n\n\n@x.cache\ndef add_fixed(a, b):\n    raise NotImplementedError\n\n\nz = 1\n"
    )
    assert stub("def add_fixed(a, b): return a + b\n", "add_fixed") == (
        "def add_fixed(a, b): raise NotImplementedError\n"
    )


def test_a_class_or_an_assignment_becomes_a_function_that_raises():
    assert stub("add_fixed = None\n", "add_fixed") == STUBBED
    assert stub("x = 1\nadd_fixed: int = 2\n", "add_fixed") == "x = 1\n" + STUBBED
    assert stub("@dataclass\nclass add_fixed:\n    a: int\n", "add_fixed") == STUBBED


def test_a_name_defined_elsewhere_or_not_at_the_top_has_no_stub():
    assert stub("def other():\n    add_fixed = 1\n", "add_fixed") is None
    assert stub("def f(:\n", "add_fixed") is None
