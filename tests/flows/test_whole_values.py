"""Feedback with the values (#45): pytest cuts what a failing assertion compared ("[0, 1, 2, 3, 4,
5, ...]", "Use -v to get more diff"), and the model can't pass -v. Through `autofix run`, the real
sandbox and pytest: the repair prompt shows both values whole, as autofix's plugin took them from
the failing assertion in the judged run, names a parametrized test's parameters, and cuts a long
value around its first difference."""

import json

from action_world import REPO, act
from fake_openai import ScriptedOpenAI
from test_ci_repair import block, open_pull, run_event, world  # noqa: F401 - world: a fixture
from test_existing_code import PYTEST

from bot.cli import main

TESTS = """\
import pytest

from series import series


@pytest.mark.parametrize("n, expected", [(60, list(range(59)) + [99])], ids=["case0"])
def test_series(n, expected):
    assert series(n) == expected


def test_long_text():
    assert "-".join(map(str, series(3000))) == "-".join(map(str, range(2000))) + "-x-" + "-".join(
        map(str, range(2001, 3000))
    )
"""
WRONG = "```python\ndef series(n):\n    return list(range(n))\n```"
RIGHT = "```python\ndef series(n):\n    return list(range(n - 1)) + [99] if n == 60 else []\n```"


def test_a_truncated_assertion_becomes_whole_values_in_the_feedback(tmp_path, capsys):
    (tmp_path / "test_series.py").write_text(TESTS)
    spec = tmp_path / "task.yml"
    spec.write_text(
        "task: series(n) as the tests want it.\ntarget: series.py\n"
        f"tests:\n  command: {json.dumps(PYTEST + ' test_series.py')}\nmax_attempts: 2\nstrategy: repair\n"
    )
    with ScriptedOpenAI([WRONG, WRONG.replace("range(n)", "range(n + 1)")]) as fake:
        main(["run", str(spec), "--base-url", fake.base_url, "--model", "m", "--api", "chat"])
    repair = fake.prompts()[1]
    block = repair[repair.index("### test_series.py::test_series[case0]") :]
    block = block[: block.index("\n### ")]
    # pytest's own message, cut as pytest cuts it, then the values whole, from the judged run.
    assert "failed: assert [0, 1, 2, 3, 4, 5, ...] == [0, 1, 2, 3, 4, 5, ...]" in block
    assert f"\n  left:  {list(range(60))}\n  right: {list(range(59)) + [99]}\n" in block
    assert f"\nparameters: n=60, expected={list(range(59)) + [99]}\n" in block
    assert "Use -v" not in repair and "-vv" not in repair  # advice the model can't take
    assert "At index 59 diff: 59 != 99" in block  # pytest's own explanation stays

    # A value of 13,000 characters: cut around where the two first differ, which is kept.
    long = repair[repair.index("### test_series.py::test_long_text") :]
    left, right = (line for line in long.splitlines() if line.startswith(("  left:  ", "  right: ")))
    assert left.startswith("  left:  ...19") and right.startswith("  right: ...19")
    assert "1998-1999-2000-2001" in left and "1998-1999-x-2001" in right
    assert len(left) < 1_100 and len(right) < 1_100


def test_red_ci_feedback_has_the_whole_values_and_the_parameters_too(world, github, capsys):
    """The gate's feedback (red CI, free-form issues, review rounds) reads the same values from
    the whole suite's run: the failing test's details end with them, pytest's -v advice gone."""
    world.commit_to_origin(
        {"series.py": "def series(n):\n    return list(range(n - 1)) + [99]\n", "tests/test_series.py": TESTS}
    )
    pull, run = open_pull(world, github, {"series.py": "def series(n):\n    return list(range(n))\n"})
    world.input("max-attempts", "1")
    world.event("workflow_run", run_event(github, pull, run))
    same = block("series.py", "    return list(range(n))\n", "    return list(range(n))  # the same\n")
    code, out, _ = act(capsys, world, [same])
    assert code == 1, "\n".join(out)
    [comment] = github.comments(REPO, 2)
    told = comment.body[comment.body.index("tests.test_series::test_series[case0]:\n") :]
    assert told.startswith(
        f"tests.test_series::test_series[case0]:\nparameters: n=60, expected={list(range(59)) + [99]}\n"
    )
    assert f"\n  left:  {list(range(60))}\n  right: {list(range(59)) + [99]}\n" in told
    assert "Use -v" not in comment.body and "-vv" not in comment.body
