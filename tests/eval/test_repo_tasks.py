"""`autofix eval humaneval-repo`: HumanEval's canonical solutions as one repository, one injected
bug per task, the free-form pipeline judged by the problem's hidden check. The bug and its issue
are checked exactly for named problems, in the real sandbox; the eval runs end to end through the
CLI with the real openai SDK against a scripted server answering by stage tag. The repository
holds the first 60 problems (`humaneval-repo:60`): the same code path as all 164, quicker suites."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_openai import Reply, ScriptedOpenAI, prompt_text

from bot.cli import main
from bot.eval.freeform import hidden_check, pytest_command
from bot.eval.freeform_report import summarize
from bot.eval.repo_tasks import Bug, Problem, RepoTask, inject, mutations, repo_taskset, write_repository
from bot.eval.results import Result
from bot.eval.tasks import humaneval_problems
from bot.judge import gate
from bot.judge.validate import open_test_sandbox
from bot.spec import DEFAULT_PROTECT

SIZE = 60
TASKSET = f"humaneval-repo:{SIZE}"


@pytest.fixture(scope="module")
def sandbox():
    return open_test_sandbox("auto", "--sandbox", print)


@pytest.fixture(scope="module")
def tasks() -> dict[str, RepoTask]:
    return {task.id: task for task in repo_taskset(TASKSET, humaneval_problems())}


def bug_of(tasks, sandbox, task_id: str) -> Bug:
    bug = inject(tasks[task_id].problem, sandbox)
    assert isinstance(bug, Bug), bug
    return bug


# -- the task set ------------------------------------------------------------------------------


def test_the_repository_holds_every_module_and_every_test_but_the_hidden_one(tasks, tmp_path):
    task = tasks["HumanEval/3"]
    write_repository(tmp_path, task, "def below_zero(operations):\n    return True\n")
    modules = sorted(p.name for p in (tmp_path / "problems").iterdir())
    tests = sorted(p.name for p in (tmp_path / "tests").iterdir())
    assert len(modules) == SIZE + 1 and "__init__.py" in modules and "has_close_elements.py" in modules
    assert len(tests) == SIZE - 1 and "test_below_zero.py" not in tests and "test_has_close_elements.py" in tests
    assert (tmp_path / "problems/below_zero.py").read_text() == "def below_zero(operations):\n    return True\n"
    assert (
        (tmp_path / "tests/test_has_close_elements.py")
        .read_text()
        .startswith("from problems.has_close_elements import *\n\nMETADATA = {")
    )
    assert (
        (tmp_path / "tests/test_has_close_elements.py")
        .read_text()
        .endswith("\n\ndef test_has_close_elements():\n    check(has_close_elements)\n")
    )


def test_modules_that_share_an_entry_point_are_numbered_at_any_repository_size():
    problems = humaneval_problems()
    full = {t.id: t.problem.module for t in repo_taskset("humaneval-repo", problems)}
    assert len(full) == 164 and len(set(full.values())) == 164
    assert (full["HumanEval/53"], full["HumanEval/0"]) == ("add_53", "has_close_elements")
    assert {t.problem.module for t in repo_taskset(TASKSET, problems)} <= set(full.values())


def test_mutations_change_one_token_of_the_entry_function_in_source_order():
    source = (
        "def helper(a):\n"
        "    return a + 1\n\n\n"
        "def f(xs, n):\n"
        '    """Docstring: 1 < 2."""\n'
        "    total = 0\n"
        "    for x in xs:\n"
        "        if x >= n and (x) not in (3, 4):  # 5 + 6\n"
        "            total += x * 2\n"
        "    label = f'{total + 1}'\n"
        "    return total < 0 or True  # a comment\n"
    )
    problem = Problem("T/1", "f", "f", source, "")
    found = [(m.line, m.change) for m in mutations(problem)]
    assert found == [
        (7, "`0` → `1`"),
        (9, "`>=` → `>`"),
        (9, "`and` → `or`"),
        (9, "`not in` → `in`"),
        (9, "`3` → `4`"),
        (9, "`4` → `5`"),
        (10, "`+=` → `-=`"),
        (10, "`*` → `/`"),
        (10, "`2` → `3`"),
        (12, "`<` → `<=`"),
        (12, "`0` → `1`"),
        (12, "`or` → `and`"),
        (12, "`True` → `False`"),
    ]  # the helper, the docstring, the comment and the f-string are left alone
    mutated = mutations(problem)[3].source.splitlines()
    original = source.splitlines()
    assert [n for n, (a, b) in enumerate(zip(original, mutated, strict=True), 1) if a != b] == [9]
    assert mutated[8] == "        if x >= n and (x) in (3, 4):  # 5 + 6"


def test_the_bug_is_deterministic_and_the_issue_names_the_failing_call(tasks, sandbox):
    first = bug_of(tasks, sandbox, "HumanEval/0")
    assert bug_of(tasks, sandbox, "HumanEval/0") == first
    assert first.where == "problems/has_close_elements.py:14: `!=` → `==`"
    assert first.mutation.source.splitlines()[13] == "            if idx == idx2:"
    assert first.issue == (
        "`has_close_elements([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.05)` returns True, but should return False."
    )
    second = bug_of(tasks, sandbox, "HumanEval/2")
    assert second.where == "problems/truncate_number.py:12: `%` → `//`"
    assert second.issue == "`truncate_number(3.5)` returns 3.0, but should return 0.5."
    # No mutation before it returns a wrong value: the first that makes the check raise is the bug.
    crash = bug_of(tasks, sandbox, "HumanEval/9")
    assert crash.where == "problems/rolling_max.py:14: `is` → `is not`"
    assert crash.issue == (
        "`rolling_max([1, 2, 3, 4])` raises TypeError: '>' not supported between instances of 'int' and "
        "'NoneType', but should return [1, 2, 3, 4]."
    )


def test_the_bug_breaks_the_hidden_check_as_pytest_runs_it(tasks, sandbox, tmp_path):
    task = tasks["HumanEval/0"]
    suite = gate.Suite(sandbox, pytest_command(task.problem.test_path), DEFAULT_PROTECT, 60)
    write_repository(tmp_path / "broken", task, bug_of(tasks, sandbox, task.id).mutation.source)
    write_repository(tmp_path / "right", task, task.problem.source)
    why = hidden_check(suite, tmp_path / "broken", task.problem)
    assert why is not None and why.startswith("failed: assert True == False\n")
    assert hidden_check(suite, tmp_path / "right", task.problem) is None


def test_a_problem_no_mutation_breaks_is_skipped_and_a_mutant_that_hangs_is_never_chosen(sandbox):
    check = "def check(candidate):\n    assert candidate(3) == 10\n"
    unbreakable = Problem(
        "T/1", "f", "f", "def f(n):\n    return max(n, len('abcdefghij')) if True else len('abcdefghij')\n", check
    )
    assert inject(unbreakable, sandbox) == "none of its 1 mutations breaks its check"
    assert inject(Problem("T/2", "f", "f", "def f(n):\n    return abs(n)\n", check), sandbox) == (
        "no mutation applies to its function"
    )
    # Both mutations of the loop's step never end; the probe stops each and takes the next.
    looping = Problem("T/3", "f", "f", "def f(n):\n    while n:\n        n -= 1\n    return n + 10\n", check)
    bug = inject(looping, sandbox, seconds=0.2)
    assert isinstance(bug, Bug) and bug.where == "problems/f.py:4: `+` → `-`"
    assert bug.issue == "`f(3)` returns -10, but should return 10."


def test_skipped_tasks_are_counted_and_left_out_of_the_rates():
    def result(task, passed, skipped=""):
        return Result(task, "freeform", passed, 3, 1, 10, 5, 2.0, 1.0, None, located=True, skipped=skipped)

    summary = summarize([result("a", True), result("b", False), result("c", False, "no mutation")], ["freeform"])
    figures = summary["freeform"]
    assert (figures["tasks"], figures["skipped"], figures["resolved"], figures["resolve_rate"]) == (2, 1, 1, 0.5)
    assert (figures["localized"], figures["localization_hit_rate"], figures["reproduction_valid_rate"]) == (2, 1.0, 0)
    assert figures["tokens_per_resolved"] == 30.0


# -- end to end --------------------------------------------------------------------------------


def task_of(bugs: list[Bug], body: dict) -> Bug:
    """The task a request is about: every stage's prompt quotes the issue, so its failing call."""
    prompt = prompt_text(body)
    [bug] = [bug for bug in bugs if bug.call in prompt]
    return bug


def names(bug: Bug) -> str:
    return f"```\n{bug.problem.path}\n```"


def reproduces(bug: Bug) -> str:
    problem = bug.problem
    return (
        f"```python\ndef test_the_reported_call():\n    from problems.{problem.module} import {problem.entry}\n\n"
        f"    assert {bug.call} == {bug.expected}\n```"
    )


def reverts(bug: Bug) -> str:
    line = bug.mutation.line - 1
    broken, right = bug.mutation.source.splitlines()[line], bug.problem.source.splitlines()[line]
    return f"{bug.problem.path}\n<<<<<<< SEARCH\n{broken}\n=======\n{right}\n>>>>>>> REPLACE\n"


def autofix_eval(fake: ScriptedOpenAI, out: Path, *args: str) -> int:
    return main(
        ["eval", TASKSET, "--limit", "2", "--model", "m", "--base-url", fake.base_url, "--out", str(out), *args]
    )


def test_two_tasks_localized_reproduced_and_resolved(tasks, sandbox, tmp_path, capsys):
    bugs = [bug_of(tasks, sandbox, "HumanEval/0"), bug_of(tasks, sandbox, "HumanEval/1")]
    script = {
        "localize": [lambda body: Reply(names(task_of(bugs, body)), 1000, 10)] * 2,
        "reproduce": [lambda body: Reply(reproduces(task_of(bugs, body)), 500, 50)] * 2,
        "repair": [lambda body: Reply(reverts(task_of(bugs, body)), 2000, 100)] * 2,
    }
    out = tmp_path / "out"
    with ScriptedOpenAI(script) as fake:
        assert autofix_eval(fake, out, "--jobs", "2") == 0
    assert fake.remaining == 0 and sorted(fake.stages()) == ["localize"] * 2 + ["repair"] * 2 + ["reproduce"] * 2
    printed = capsys.readouterr().out
    assert "eval: 2 tasks x 1 strategy = 2 runs" in printed
    assert printed.splitlines()[-1] == f"wrote {out / 'eval.json'} and {out / 'eval.md'}"

    data = json.loads((out / "eval.json").read_text())
    assert (data["taskset"], data["strategies"], data["tasks"]) == (TASKSET, ["freeform"], 2)
    summary = data["summary"]["freeform"]
    assert {key: value for key, value in summary.items() if "latency" not in key and "seconds" not in key} == {
        "tasks": 2,
        "skipped": 0,
        "resolved": 2,
        "resolve_rate": 1.0,
        "localized": 2,
        "localization_hit_rate": 1.0,
        "shown": 2,
        "shown_hit_rate": 1.0,
        "reproduced": 2,
        "reproduction_valid_rate": 1.0,
        "gate_passed": 2,
        "gate_pass_rate": 1.0,
        "calls": 6,
        "tokens_in": 7000,
        "tokens_out": 320,
        "tokens_per_resolved": 3660.0,
        "stages": summary["stages"],
    }
    stages = {name: (s["calls"], s["tokens_in"], s["tokens_out"]) for name, s in summary["stages"].items()}
    assert stages == {
        "setup": (0, 0, 0),
        "baseline": (0, 0, 0),
        "localize": (2, 2000, 20),
        "reproduce": (2, 1000, 100),
        "repair": (2, 4000, 200),
        "hidden": (0, 0, 0),
    }
    assert all(s["seconds"] > 0 for s in summary["stages"].values())  # every stage ran and was timed
    results = {r["task"]: r for r in data["results"]}
    assert results["HumanEval/0"]["bug"] == "problems/has_close_elements.py:14: `!=` → `==`"
    assert results["HumanEval/1"]["bug"] == "problems/separate_paren_groups.py:14: `0` → `1`"
    assert all(r["failure"] is None and r["error"] == r["code"] == "" for r in data["results"])
    fix = (out / "solutions/freeform/HumanEval/0/fix.diff").read_text()
    assert "+++ b/tests/autofix/test_issue.py" in fix and "-            if idx == idx2:" in fix
    assert "+            if idx != idx2:" in fix

    markdown = (out / "eval.md").read_text()
    sentence = (
        "Freeform resolved 2 of 2 tasks (100.0%): the broken file localized in 2, a reproduction accepted in 2, "
        "the gate passed in 2."
    )
    assert markdown.split("\n\n")[1] == sentence
    assert "| freeform | 2 | 0 | 2 (100.0%) | 2 (100.0%) | " in markdown  # tasks, skipped, resolved, gate passed
    assert "| freeform | 2 (100.0%) | 2 (100.0%) | 2 (100.0%) |" in markdown  # localized (chosen, shown), reproduced
    row = "| HumanEval/1 | freeform | problems/separate_paren_groups.py:14: `0` → `1` | ✅ | ✅ | ✅ | ✅ | ✅ |"
    assert row in markdown
    # Slices of a sharded run merge into the same summary, no model call needed.
    assert main(["eval", "merge", str(out), "--out", str(tmp_path / "merged")]) == 0
    assert json.loads((tmp_path / "merged/eval.json").read_text())["summary"] == data["summary"]
    printed = capsys.readouterr().out
    assert sentence in " ".join(printed.split())
    assert ["freeform", "2", "0", "2", "(100.0%)", "2", "(100.0%)"] in [
        line.split()[:7] for line in printed.splitlines()
    ]


SPECIAL_CASE = (  # passes the reported call alone: the gate passes, the hidden check doesn't
    "problems/has_close_elements.py\n<<<<<<< SEARCH\n    for idx, elem in enumerate(numbers):\n=======\n"
    "    if threshold == 0.05:\n        return False\n    for idx, elem in enumerate(numbers):\n>>>>>>> REPLACE\n"
)
PASSES_ALREADY = (
    "```python\ndef test_empty():\n    from problems.separate_paren_groups import separate_paren_groups\n\n"
    "    assert separate_paren_groups('') == []\n```"
)


def test_a_fix_that_fits_the_example_alone_and_a_bug_never_reproduced_resolve_nothing(tasks, sandbox, tmp_path, capsys):
    first, second = bug_of(tasks, sandbox, "HumanEval/0"), bug_of(tasks, sandbox, "HumanEval/1")
    script = {
        # the second task's localization picks a file of the outline, not the broken one
        "localize": [Reply(names(first), 1000, 10), Reply(names(first), 1000, 10)],
        "reproduce": [Reply(reproduces(first), 500, 50)] + [Reply(PASSES_ALREADY, 500, 50)] * 3,
        "repair": [Reply(SPECIAL_CASE, 2000, 100)],
    }
    out = tmp_path / "out"
    with ScriptedOpenAI(script) as fake:  # one job: the tasks ask in order, as the script answers
        assert autofix_eval(fake, out, "--attempts", "1") == 0
    assert fake.remaining == 0
    assert fake.stages() == ["localize", "reproduce", "repair", "localize", "reproduce", "reproduce", "reproduce"]
    assert second.call in fake.prompts()[3] and f"\n{first.problem.path}\n" in fake.prompts()[3]  # in its outline

    data = json.loads((out / "eval.json").read_text())
    summary = data["summary"]["freeform"]
    rates = ("resolved", "localized", "shown", "reproduced", "gate_passed", "calls", "tokens_in", "tokens_out")
    assert [summary[key] for key in rates] == [0, 1, 2, 1, 1, 7, 6000, 320]
    assert summary["tokens_per_resolved"] is None
    results = {r["task"]: r for r in data["results"]}
    fits = results["HumanEval/0"]
    assert (fits["passed"], fits["gate_passed"], fits["reproduced"], fits["located"]) == (False, True, True, True)
    assert fits["failure"] == "the gate passed, the hidden check fails: failed: assert True == False"
    assert "if threshold == 0.05:" in fits["code"] and "0.8" in fits["error"]
    never = results["HumanEval/1"]
    assert (never["reproduced"], never["located"], never["shown"], never["gate_passed"]) == (False, False, True, False)
    assert never["failure"] == (
        "no reproduction: none of 3 test files showed the bug; "
        "last: your test passed on the current code, so it does not show the bug"
    )
    assert never["stages"]["repair"]["calls"] == 0 and never["stages"]["reproduce"]["calls"] == 3
    assert not (out / "solutions").exists()


@pytest.mark.parametrize(
    "args, message",
    [
        (["humaneval-repo", "--strategy", "repair"], "--strategy repair: humaneval-repo is evaluated by freeform"),
        (
            ["humaneval", "--strategy", "freeform"],
            "--strategy freeform: humaneval is evaluated by one-shot, repair, resample, repair+resample",
        ),
        (["humaneval-repo:1"], "taskset: 'humaneval-repo:1': the repository holds 2 to 164 problems"),
        (
            ["humaneval-repo:all"],
            "taskset: 'humaneval-repo:all': expected humaneval-repo, "
            "or humaneval-repo:N for a repository of N problems",
        ),
    ],
)
def test_user_errors(args, message, tmp_path, capsys):
    assert main(["eval", *args, "--model", "m", "--out", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err == f"autofix: error: {message}\n"


def no_fix(bug: Bug, again: bool = False) -> str:
    """An edit that changes the broken line's text, not what it does; `again`, the same change once
    more, a trailing space aside, which doesn't count (a fresh sample's tree is the one before any reply)."""
    broken = bug.mutation.source.splitlines()[bug.mutation.line - 1]
    before, after = broken, f"{broken}  # checked{' ' if again else ''}"
    return f"{bug.problem.path}\n<<<<<<< SEARCH\n{before}\n=======\n{after}\n>>>>>>> REPLACE\n"


def test_a_repair_that_repeats_a_judged_edit_is_a_call_not_an_attempt(tasks, sandbox, tmp_path):
    first, second = bug_of(tasks, sandbox, "HumanEval/0"), bug_of(tasks, sandbox, "HumanEval/1")
    script = {
        "localize": [Reply(names(first), 1000, 10), Reply(names(first), 1000, 10)],
        "reproduce": [Reply(reproduces(first), 500, 50)] + [Reply(PASSES_ALREADY, 500, 50)] * 3,
        "repair": [Reply(no_fix(first), 2000, 100), Reply(no_fix(first, again=True), 2000, 100)],
    }
    out = tmp_path / "out"
    with ScriptedOpenAI(script) as fake:
        assert autofix_eval(fake, out, "--attempts", "2") == 0
    assert fake.remaining == 0 and second.call  # the second task is never reproduced: no repair call
    results = {r["task"]: r for r in json.loads((out / "eval.json").read_text())["results"]}
    repeated = results["HumanEval/0"]
    assert (repeated["passed"], repeated["calls"], repeated["attempts"]) == (False, 4, 1)
