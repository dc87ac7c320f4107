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
