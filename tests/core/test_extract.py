import pytest

from bot.core.extract import NoCode, extract_block, extract_code

GOOD = "def unique_items(items):\n    return list(dict.fromkeys(items))\n"


def test_fences_and_prose_are_stripped():
    reply = f"Sure! Here it is:\n\n```python\n{GOOD}```\n\nThis keeps order because dicts do."
    assert extract_code(reply, "unique_items") == GOOD


def test_bare_code_with_prose_around_it():
    reply = f"Here you go.\n{GOOD}\nHope this helps!"
    assert extract_code(reply, "unique_items") == GOOD


def test_several_blocks_pick_the_one_defining_the_name():
    reply = (
        "Usage:\n```python\nprint(unique_items([1, 1]))\n```\n"
        f"Implementation:\n```py\n{GOOD}```\n"
        "Shell:\n```bash\npython unique.py\n```\n"
    )
    assert extract_code(reply, "unique_items") == GOOD


def test_the_last_defining_block_wins():
    first = "def unique_items(items):\n    return list(set(items))\n"
    assert extract_code(f"```python\n{first}```\nBetter:\n```python\n{GOOD}```", "unique_items") == GOOD


def test_unterminated_fence_is_taken_to_the_end():
    assert extract_code(f"```python\n{GOOD}", "unique_items") == GOOD


ADD = "def add(a, b):\n    return a + b\n"


def test_code_before_a_stray_fence_is_the_code_not_the_prose_after_it():
    """A small model's reply: the code, a lone fence, then its explanation in what reads as a
    fenced block. The only block holds prose; the code is outside it."""
    reply = f"{ADD}```\n\nThis function adds two numbers and returns the sum.\n```\n"
    assert extract_code(reply, "add") == ADD


def test_code_before_the_first_fence_is_a_candidate():
    assert extract_code(f"{ADD}\nExample:\n```python\nprint(add(1, 2))\n```\n", "add") == ADD


def test_of_several_blocks_the_only_one_defining_the_name_is_taken_though_a_fence_is_unclosed():
    """The first block's fence never closes: paired as fences, both blocks are one body holding a
    fence line, which no parser takes. Between fence lines, the last stretch defines `add`, and
    what a fence tagged `python` opens is its body whole, not from its first `def`."""
    final = f"LIMIT = 10\n\n\n{ADD}"
    reply = f"```python\nimport math\n```python\ndef helper(x):\n    return x\n```python\n{final}```\n"
    assert extract_code(reply, "add") == final
    after_the_blocks = f"```python\nimport math\n```\nThen the function itself:\n\n{ADD}"
    assert extract_code(after_the_blocks, "add") == ADD


def test_of_candidates_defining_the_name_one_that_parses_wins_and_of_equals_the_last():
    broken = "def add(a, b):\n    return a +\n"
    later = "def add(a, b):\n    return b + a\n"
    assert extract_code(f"```python\n{ADD}```\n```python\n{broken}```\n", "add") == ADD
    assert extract_code(f"```python\n{ADD}```\n```python\n{later}```\n", "add") == later
    assert extract_code(f"```python\n{broken}```\n", "add") == broken  # judged: the syntax error is told


def test_a_block_tagged_for_another_language_is_not_the_code():
    reply = f"```python\n{ADD}```\nThe old version, for comparison:\n```text\ndef add(a, b):\n    return a - b\n```\n"
    assert extract_code(reply, "add") == ADD


def test_code_indented_as_a_whole_is_taken_without_its_margin():
    """A method written at its class's depth (asked for one function of a long file)."""
    assert extract_code("```python\n    def add(a, b):\n        return a + b\n```\n", "add") == ADD


def test_no_code_at_all():
    with pytest.raises(NoCode, match="no code"):
        extract_code("I cannot help with that.", "unique_items")


def test_blocks_that_miss_the_name_are_refused():
    with pytest.raises(NoCode, match="none of the reply's 2 code blocks defines `unique_items`"):
        extract_code("```python\nx = 1\n```\n```python\ny = 2\n```", "unique_items")


def test_a_document_or_query_is_the_last_block_of_its_kind_or_untagged():
    reply = 'The shape:\n```json\n{"a": 0}\n```\nThe file:\n```json\n{"a": 1}\n```\nRun:\n```sh\nls\n```\n'
    assert extract_block(reply, "json") == '{"a": 1}\n'
    assert extract_block("```yml\na: 1\n```\n```\na: 2\n```", "yaml") == "a: 2\n"
    assert extract_block("```sqlite\nSELECT 1\n```", "sql") == "SELECT 1\n"


def test_a_reply_without_a_fenced_document_has_none():
    with pytest.raises(NoCode, match="the reply contained no ```yaml block"):
        extract_block("a: 1\nb: 2\n", "yaml")  # prose would parse as YAML too: only a fence counts
    with pytest.raises(NoCode):
        extract_block("```python\nprint(1)\n```", "json")


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        pytest.param(
            "```python\ndef f():\n    return 1\0\n```",
            "the reply holds a NUL character (line 3), which no source text holds",
        ),
        pytest.param(
            "```python\nx = '\ud800'\n```",
            "the reply holds a lone surrogate (line 2), which is not a Unicode character",
        ),
        pytest.param(
            "x = 1\n" * 166_667,
            "the reply is 1,000,002 characters long; at most 1,000,000 are read",
            id="past the size",
        ),
        pytest.param(
            "```python\ndef unique_items(items):\n    return " + "-" * 100_000 + "1\n```",
            "the code nests too deeply for Python to parse it",
            id="MemoryError from Python's parser",
        ),
        pytest.param(
            "```python\ndef unique_items(items):\n    return " + "f" + "()" * 50_000 + "\n```",
            "the code nests too deeply for Python to parse it",
            id="RecursionError from Python's parser",
        ),
    ],
)
def test_a_reply_no_file_or_parser_could_hold_is_no_code_with_the_reason(reply, reason):
    with pytest.raises(NoCode) as caught:
        extract_code(reply, "unique_items")
    assert str(caught.value) == reason
    with pytest.raises(NoCode) as caught:
        extract_block(reply, "json")
    if "nests too deeply" not in reason:  # a document's parser is the judge's, not Python's
        assert str(caught.value) == reason


def test_bare_code_followed_by_what_never_parses_is_cut_a_bounded_number_of_times():
    """Cut one line at a time, 30,000 lines were parsed 30,000 times (minutes, past the deadline).
    Cut where Python stopped: an unclosed bracket is cut in one go; a continuation Python only
    notices at the end gives up after MAX_CUTS parses."""
    assert extract_code("import os\nx = [\n" + "    1,\n" * 30_000) == "import os\n"
    with pytest.raises(NoCode) as caught:
        extract_code("import os\nx = 1 + \\\n" + "    1 + \\\n" * 30_000)
    assert str(caught.value) == "the reply contained no code"
