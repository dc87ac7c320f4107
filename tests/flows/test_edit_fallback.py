"""`autofix run` on a large module with a model that can't write edit blocks: after two replies whose
blocks can't be applied, it is asked for the one function the failures name, whole, and autofix
splices it into the 5,000-line file by the definition's span; a reply of the whole function without
being asked is spliced at once."""

import json

from fake_openai import ScriptedOpenAI
from test_existing_code import BROKEN, FIXED, PYTEST, TESTS, autofix, big_module, write_task


def test_a_model_that_breaks_edit_blocks_twice_is_asked_for_the_function_and_the_splice_passes(tmp_path, capsys):
    module = big_module()
    (tmp_path / "big.py").write_text(module)
    (tmp_path / "test_big.py").write_text(TESTS)
    spec = write_task(tmp_path, f"{PYTEST} test_big.py", strength="off")
    report = tmp_path / "report.json"
    unclosed = f"big.py\n```python\n<<<<<<< SEARCH\n{BROKEN}=======\n{FIXED}```\n"  # the fence ends it
    misspelt = f"big.py\n<<<<<<< SEARCH\n{BROKEN}=======\n{FIXED}>>>>>>>REPLACE\n"
    whole = f"The corrected function:\n\n```python\nimport itertools\n\n{FIXED}```\n\nIt counts the last window."
    with ScriptedOpenAI([unclosed, misspelt, whole]) as fake:
        code = autofix(spec, fake, "--report", str(report))
    out = capsys.readouterr().out
    assert code == 0, out
    assert (tmp_path / "big.py").read_text() == module.replace(BROKEN, FIXED)  # the function alone changed

    note = (
        "attempt 3: asked for the function `window_sums` instead of edit blocks, "
        "after 2 replies in a row whose edit blocks could not be applied"
    )
    assert f"autofix: note: {note}" in out.splitlines()
    data = json.loads(report.read_text())
    assert note in data["notes"]
    assert [a["kind"] for a in data["attempts"]] == ["edits refused", "edits refused", "passed"]

    _, second, third = fake.prompts()
    assert "block 1 (line 3): no '>>>>>>> REPLACE' line after its '=======' (line 6)" in second
    assert "Rewrite the function `window_sums` of `big.py`, whole." in third
    assert "line 8 holds '>>>>>>>REPLACE': the marker is '>>>>>>> REPLACE'" in third  # the refusal it follows
    assert f"(lines 2401-2402 of `big.py`)\n\n```python\n{BROKEN}```" in third
    assert "assert window_sums([1, 2, 3, 4], 2) == [3, 5, 7]" in third  # what fails, not only where
    assert len(third) < len(module) // 10


def test_a_reply_of_the_whole_function_instead_of_edit_blocks_is_spliced_at_once(tmp_path, capsys):
    """Qwen2.5-Coder-1.5B, asked for edit blocks against inflection's 400-line module, sent the
    corrected functions whole in a fence: refused, that cost two attempts before autofix asked for
    the function. Now the first reply is judged."""
    module = big_module()
    (tmp_path / "big.py").write_text(module)
    (tmp_path / "test_big.py").write_text(TESTS)
    spec = write_task(tmp_path, f"{PYTEST} test_big.py", strength="off")
    report = tmp_path / "report.json"
    whole = f"Here is the updated code:\n\n```python\n# big.py\n{FIXED}\n\nprint(window_sums([1, 2], 1))\n```\n"
    with ScriptedOpenAI([whole]) as fake:
        code = autofix(spec, fake, "--report", str(report))
    out = capsys.readouterr().out
    assert code == 0, out
    assert (tmp_path / "big.py").read_text() == module.replace(BROKEN, FIXED)  # its print left out
    note = "attempt 1: the reply had no edit blocks: its definitions of `window_sums` took the place of the file's"
    assert f"autofix: note: {note}" in out.splitlines()
    data = json.loads(report.read_text())
    assert note in data["notes"] and [a["kind"] for a in data["attempts"]] == ["passed"]
    assert len(fake.prompts()) == 1


def test_a_block_copied_with_the_views_line_numbers_and_no_path_line_is_applied(tmp_path, capsys):
    """The same model, run again, wrote edit blocks: no path line, and the numbered view's gutter
    copied into both halves. The numbers are read off where they name the lines matched."""
    module = big_module()
    (tmp_path / "big.py").write_text(module)
    (tmp_path / "test_big.py").write_text(TESTS)
    spec = write_task(tmp_path, f"{PYTEST} test_big.py", strength="off")

    def numbered(code: str) -> str:
        return "".join(f"{n:>4} | {line}\n" for n, line in enumerate(code.splitlines(), 2401))

    reply = f"```python\n<<<<<<< SEARCH\n{numbered(BROKEN)}=======\n{numbered(FIXED)}>>>>>>> REPLACE\n```\n"
    with ScriptedOpenAI([reply]) as fake:
        code = autofix(spec, fake)
    assert code == 0, capsys.readouterr().out
    assert (tmp_path / "big.py").read_text() == module.replace(BROKEN, FIXED)
    assert f"{numbered(BROKEN)}" in fake.prompts()[0]  # the view the gutter was copied from
