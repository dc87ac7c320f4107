"""Proofs that prove, through `autofix action` on a free-form issue (the fake GitHub, the scripted
model, real git, the real sandbox): the reproduction test is written without following a link the
tree holds; a test that fails only on a name that doesn't exist is no reproduction, unless the
issue asks for that name, and then the fix must run it; a fix none of whose mutants fails the
reproduction is proposed as unproven."""

import os

import pytest
from action_world import REPO, World, act, labeled
from fake_openai import Reply
from suite_env import PYTHON as SUITE_PYTHON

CALC = "def add(a, b):\n    return a - b\n"
TESTS = "from calc import add\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n"
CONFIG = f"tests:\n  command: {SUITE_PYTHON} -m pytest -q tests\nmax_attempts: 2\n"
ISSUE = "`add(2, 3)` returns -1 instead of 5."
ASKS = "`add` is broken and callers rely on it; please add a function `add_fixed(a, b)` that returns the sum."
LOCATE = [Reply("```\ncalc.py\n```")]


def python(code: str) -> Reply:
    return Reply(f"```python\n{code}```")


def edit(search: str, replace: str) -> Reply:
    return Reply(f"calc.py\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n")


REPRODUCES = python("def test_add():\n    from calc import add\n\n    assert add(2, 3) == 5\n")
IMPORTS_A_NEW_NAME = python("def test_add():\n    from calc import add_fixed\n\n    assert add_fixed(2, 3) == 5\n")
IMPORTS_ONLY = python("def test_add():\n    from calc import add_fixed\n\n    assert add_fixed\n")
FIX = edit("    return a - b\n", "    return a + b\n")


@pytest.fixture
def calc(tmp_path, monkeypatch, github):
    world = World(tmp_path, monkeypatch, github)
    world.commit_to_origin({"calc.py": CALC, "tests/test_calc.py": TESTS, ".github/autofix.yml": CONFIG})
    return world


def issue(body: str) -> dict:
    event = labeled(body=body)
    event["issue"]["title"] = "add subtracts"
    return event


@pytest.mark.parametrize("link", ["tests/autofix", "tests/autofix/test_issue_1.py"])
def test_a_link_at_the_reproduction_s_path_is_never_followed(calc, github, capsys, tmp_path, link):
    """The tree (a fork's pull request shapes it for `/autofix` on it) holds a symbolic link where
    autofix, as root, writes the reproduction test: nothing is written where it points."""
    outside = tmp_path / "outside"
    outside.mkdir()
    target = outside if link == "tests/autofix" else outside / "planted.py"
    (calc.seed / link).parent.mkdir(parents=True, exist_ok=True)
    calc.git("pull", "--quiet", "origin", "master", cwd=calc.seed)
    os.symlink(target, calc.seed / link)
    calc.git("add", ".", cwd=calc.seed)
    calc.git("commit", "--quiet", "-m", "a link", cwd=calc.seed)
    calc.git("push", "--quiet", "origin", "master", cwd=calc.seed)
    calc.checkout()
    calc.event("issues", issue(ISSUE))
    code, out, openai = act(capsys, calc, {"localize": LOCATE, "reproduce": [REPRODUCES]})
    assert code == 2, "\n".join(out)
    assert list(outside.iterdir()) == []
    why = (
        f"{link}: a symbolic link (to {target}): autofix writes the reproduction test only where no link or file "
        "stands on its way; nothing was written"
    )
    assert any(why in line for line in out), "\n".join(out)
    [comment] = github.comments(REPO)
    assert why in comment.body
    assert openai.stages() == ["localize", "reproduce"]  # no repair


def test_a_test_that_fails_only_on_a_name_the_issue_never_mentions_is_no_reproduction(calc, github, capsys):
    """The bug is in `add`; the test imports `add_fixed`, which doesn't exist: it "fails" on the
    current code, and defining `add_fixed` would make it pass with `add` still broken."""
    calc.event("issues", issue(ISSUE))
    code, out, openai = act(capsys, calc, {"localize": LOCATE, "reproduce": [IMPORTS_A_NEW_NAME] * 3})
    assert code == 1, "\n".join(out)
    assert openai.stages() == ["localize", "reproduce", "reproduce", "reproduce"]  # no repair without proof
    refused = (
        "tests.autofix.test_issue_1::test_add fails only because `calc` has no `add_fixed`, a name the issue "
        "doesn't mention: a name that doesn't exist yet is not the bug."
    )
    assert refused in openai.prompts()[2]
    assert github.pulls(REPO) == [] and calc.branches() == ["master"]


def test_a_name_the_issue_asks_for_must_be_run_by_the_test_not_only_defined(calc, github, capsys):
    """The issue asks for `add_fixed`; the test only imports it, and the "fix" names the broken
    `add` so: the test passes, and still does when `add_fixed` only raises NotImplementedError."""
    calc.commit_to_origin({".github/autofix.yml": CONFIG + "strategy: repair\n"})  # the repair hears the proof
    calc.event("issues", issue(ASKS))
    trivial = edit("    return a - b\n", "    return a - b\n\n\nadd_fixed = add\n")
    script = {"localize": LOCATE, "reproduce": [IMPORTS_ONLY], "repair": [trivial, trivial]}
    code, out, openai = act(capsys, calc, script)
    assert code == 1, "\n".join(out)
    assert "autofix: reproduce: tests.autofix.test_issue_1::test_add fail on the current code" in out
    told = (
        "The reproduction test still passes when `add_fixed` only raise NotImplementedError: it never runs the "
        "code you added"
    )
    assert told in openai.prompts()[-1]
    assert github.pulls(REPO) == []


def test_a_name_the_issue_asks_for_passes_when_the_test_runs_it(calc, github, capsys):
    calc.event("issues", issue(ASKS))
    fix = edit("    return a - b\n", "    return a - b\n\n\ndef add_fixed(a, b):\n    return a + b\n")
    code, out, openai = act(capsys, calc, {"localize": LOCATE, "reproduce": [IMPORTS_A_NEW_NAME], "repair": [fix]})
    assert code == 0, "\n".join(out)
    [pull] = github.pulls(REPO)
    # One mutant of `return a + b`: `return None`, which the test fails.
    assert "**Proof:** reproduction test: failed before, passes after, and fails 1 of 1 mutant of the fix;" in pull.body
    assert not pull.draft


def test_a_fix_none_of_whose_mutants_fails_the_reproduction_is_proposed_unproven(calc, github, capsys):
    """`add(2, 3) != -1` fails now and passes after `a + b`, but it passes `return None` too: the
    fix's one mutant survives, so the test proves nothing about the fix."""
    calc.event("issues", issue(ISSUE))
    weak = python("def test_add():\n    from calc import add\n\n    assert add(2, 3) != -1\n")
    code, out, openai = act(capsys, calc, {"localize": LOCATE, "reproduce": [weak], "repair": [FIX]})
    assert code == 0, "\n".join(out)
    [pull] = github.pulls(REPO)
    assert pull.draft and pull.title == "Fix add subtracts (unproven)"
    assert (
        "**Proof:** reproduction test: failed before, passes after, but fails none of 1 mutant of the fix (unproven);"
        in pull.body
    )
    assert "failed before, passes after;" not in pull.body  # the claim never stands alone
