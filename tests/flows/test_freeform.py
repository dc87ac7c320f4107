"""A free-form issue (no yaml block, no target) end to end: the real PyGithub against the fake
GitHub, the real openai SDK against a scripted server answering by stage tag, real git, the real
sandbox and the repository's own pytest suite. The repository has 58 modules, so localization
has something to search."""

import json
import re

import pytest
from action_world import REPO, World, act, labeled
from fake_openai import Reply
from suite_env import PYTHON as SUITE_PYTHON

DURATIONS = '''\
"""Durations written the way people write them."""

import re

UNITS = {"h": 60, "m": 60, "s": 1}


def parse_duration(text):
    """Seconds in a duration like `1h30m` or `45s`."""
    return sum(int(amount) * UNITS[unit] for amount, unit in re.findall(r"(\\d+)([hms])", text))
'''
CALLER = '''\
"""Module {n} of the shop: {what}."""

from shop.durations import parse_duration


def {what}_seconds(spec):
    """How long {what} takes, in seconds."""
    return parse_duration(spec)
'''
FILLER = '''\
"""Module {n} of the shop: prices."""


def price_{n}(amount, rate={n}):
    """The price of `amount` items at `rate`."""
    return amount * rate


class Basket{n}:
    """A basket of items."""

    def total(self, items):
        return sum(price_{n}(i) for i in items)
'''
TESTS = """\
from shop.mod_03 import price_3
from shop.durations import parse_duration


def test_price():
    assert price_3(2) == 6


def test_minutes():
    assert parse_duration("30m") == 1800


def test_legacy_format():
    assert parse_duration("1:30") == 90  # never supported: fails before autofix ever runs
"""
# map_tokens: a hosted model's map. The scripted server listens on loopback, where the map would
# be 2,000 tokens: 49 of the 58 files.
CONFIG = f"tests:\n  command: {SUITE_PYTHON} -m pytest -q tests\nmax_attempts: 2\nmap_tokens: 6000\n"
ISSUE = (
    "`parse_duration('1h30m')` returns 1860 seconds instead of 5400.\n\n"
    "Hours seem to be counted as minutes: `shipping_seconds('2h')` gives 120."
)
PASSES_ALREADY = "```python\ndef test_minutes():\n    from shop.durations import parse_duration\n    assert parse_duration('30m') == 1800\n```"  # noqa: E501
DOES_NOT_IMPORT = "```python\nfrom shop.duration import parse_duration\n\ndef test_it():\n    assert parse_duration('1h') == 3600\n```"  # noqa: E501
REPRODUCES = (
    "```python\ndef test_hours_and_minutes():\n    from shop.durations import parse_duration\n\n"
    "    assert parse_duration('1h30m') == 5400\n```"
)
FIX = 'shop/durations.py\n<<<<<<< SEARCH\nUNITS = {"h": 60, "m": 60, "s": 1}\n=======\nUNITS = {"h": 3600, "m": 60, "s": 1}\n>>>>>>> REPLACE\n'  # noqa: E501
RETURN = '    return sum(int(amount) * UNITS[unit] for amount, unit in re.findall(r"(\\d+)([hms])", text))\n'
# Passes the reproduction by special-casing it, and breaks a test that passed.
WRONG_FIX = f"shop/durations.py\n<<<<<<< SEARCH\n{RETURN}=======\n    return 5400\n>>>>>>> REPLACE\n"
UNDO_AND_FIX = f"shop/durations.py\n<<<<<<< SEARCH\n    return 5400\n=======\n{RETURN}>>>>>>> REPLACE\n\n" + FIX
PROOF = (
    # The fix's six constants off by one: the test kills the hours' and minutes' four, not the seconds' two.
    "**Proof:** reproduction test: failed before, passes after, and fails 4 of 6 mutants of the fix; "
    "suite: 3 passed, 0 new failures; "
    "pre-existing failures: 1 (`tests/test_shop.py::test_legacy_format`)."
)


def fixed_at_once() -> dict[str, list[Reply]]:
    """The model's replies when a free-form issue is fixed on the first try: the file, the
    reproduction, the fix (a fresh script each time: the fake consumes it)."""
    return {
        "localize": [Reply("```\nshop/durations.py\n```")],
        "reproduce": [Reply(REPRODUCES)],
        "repair": [Reply(FIX)],
    }


@pytest.fixture
def shop(tmp_path, monkeypatch, github):
    world = World(tmp_path, monkeypatch, github)
    files = {f"shop/mod_{n:02}.py": FILLER.format(n=n) for n in range(50)}
    files |= {
        f"shop/{what}.py": CALLER.format(n=n, what=what)
        for n, what in enumerate(["shipping", "baking", "parking", "billing", "renting", "hosting"])
    }
    files |= {"shop/__init__.py": "", "shop/durations.py": DURATIONS, "tests/test_shop.py": TESTS}
    files |= {".github/autofix.yml": CONFIG}
    world.commit_to_origin(files)
    return world


def issue(body=ISSUE):
    event = labeled(body=body)
    event["issue"]["title"] = "parse_duration counts hours as minutes"
    return event


NOTHING = (
    "no new network, process, environment, outside-file, self-inspection, dynamic-code, long-literal, packaging/CI or "
    "unnamed-file change."
)


def test_a_free_form_issue_is_reproduced_then_fixed_in_one_pull_request(shop, github, capsys):
    shop.event("issues", issue())
    script = {
        "localize": [Reply("```\nshop/durations.py\nshop/shipping.py\n```", 900, 20)],
        "reproduce": [Reply(PASSES_ALREADY, 500, 40), Reply(DOES_NOT_IMPORT, 600, 40), Reply(REPRODUCES, 700, 40)],
        "repair": [Reply(FIX, 1200, 50)],
    }
    code, out, openai = act(capsys, shop, script)
    assert code == 0, "\n".join(out)
    assert openai.stages() == ["localize", "reproduce", "reproduce", "reproduce", "repair"]
    prompts = openai.prompts()
    assert "shop/durations.py" in prompts[0]  # the map ranked it into the outline
    assert "your test passed on the current code, so it does not show the bug" in prompts[2]
    assert "The test file was refused: your test file failed to import:" in prompts[3]
    assert "ModuleNotFoundError" in prompts[3]
    assert "tests/autofix/test_issue_1.py (it can't be edited), reproduces the bug" in prompts[4]
    assert 'UNITS = {"h": 60, "m": 60, "s": 1}' in prompts[4]  # the chosen file, shown whole
    assert "autofix: reproduce: tests.autofix.test_issue_1::test_hours_and_minutes fail on the current code" in out

    assert shop.branches() == ["autofix/issue-1", "master"]
    assert shop.file_at("autofix/issue-1", "tests/autofix/test_issue_1.py") == REPRODUCES.split("\n", 1)[
        1
    ].removesuffix("```")
    assert 'UNITS = {"h": 3600, "m": 60, "s": 1}' in shop.file_at("autofix/issue-1", "shop/durations.py")
    changed = shop.git("diff", "--name-only", "master", "autofix/issue-1", cwd=shop.origin).splitlines()
    assert changed == ["shop/durations.py", "tests/autofix/test_issue_1.py"]
    [pull] = github.pulls(REPO)
    assert (pull.title, pull.draft) == ("Fix parse_duration counts hours as minutes", False)
    assert PROOF in pull.body and "Fixes #1" in pull.body
    # model calls, seconds, tokens: the attempts table's order
    assert re.search(r"\| localize \| 1 \| \d+\.\d\d \| 920 \|", pull.body)
    assert re.search(r"\| reproduce \| 3 \| \d+\.\d\d \| 1920 \|", pull.body)
    assert re.search(r"\| repair \| 1 \| \d+\.\d\d \| 1250 \|", pull.body)
    assert pull.body.endswith("### For the reviewer\n\nNothing of these kinds: " + NOTHING)  # both files were named

    report = json.loads((shop.out / "autofix-issue-1.json").read_text())
    assert "shop/durations.py" in report["files_shown"] and len(report["files_shown"]) >= 50
    assert report["files_changed"] == ["shop/durations.py", "tests/autofix/test_issue_1.py"]
    assert report["stages"]["reproduce"]["calls"] == 3
    assert report["tokens"] == {"input": 900 + 500 + 600 + 700 + 1200, "output": 20 + 3 * 40 + 50}


def test_a_fix_that_breaks_a_passing_test_is_refused_by_the_gate(shop, github, capsys):
    shop.commit_to_origin({".github/autofix.yml": CONFIG + "strategy: repair\n"})  # the repair hears the gate
    shop.event("issues", issue())
    script = {
        "localize": [Reply("```\nshop/durations.py\n```")],
        "reproduce": [Reply(REPRODUCES)],
        "repair": [Reply(WRONG_FIX), Reply(UNDO_AND_FIX)],
    }
    code, out, openai = act(capsys, shop, script)
    assert code == 0, "\n".join(out)
    assert "- tests.test_shop::test_minutes: passed before the change, failed now" in openai.prompts()[-1]
    [pull] = github.pulls(REPO)
    assert PROOF in pull.body


def test_no_reproduction_means_one_comment_and_no_branch(shop, github, capsys):
    shop.event("issues", issue())
    script = {"localize": [Reply("```\nshop/durations.py\n```")], "reproduce": [Reply(PASSES_ALREADY)] * 3}
    code, out, openai = act(capsys, shop, script)
    assert code == 1
    assert openai.stages() == ["localize", "reproduce", "reproduce", "reproduce"]  # no repair without proof
    assert shop.branches() == ["master"] and github.pulls(REPO) == []
    [comment] = github.comments(REPO)
    assert comment.body.startswith(
        "<!-- autofix:issue-1 -->\n\n❌ autofix could not reproduce the bug in issue #1: none of the 3 test files"
    )
    # The three identical files, one fold and their reason once.
    assert comment.body.count("your test passed on the current code, so it does not show the bug") == 1
    assert "<summary>Test files 1, 2, 3 (the same): your test passed on the current code" in comment.body
    assert "add a failing example to the issue" in comment.body


def test_allow_unproven_opens_a_draft_judged_by_the_suite_alone(shop, github, capsys):
    shop.event("issues", issue())
    shop.input("allow-unproven", "true")
    script = {
        "localize": [Reply("```\nshop/durations.py\n```")],
        "reproduce": [Reply(PASSES_ALREADY)] * 3,
        "repair": [Reply(FIX)],
    }
    code, out, openai = act(capsys, shop, script)
    assert code == 0, "\n".join(out)
    [pull] = github.pulls(REPO)
    assert pull.draft and pull.title == "Fix parse_duration counts hours as minutes (unproven)"
    assert "**Proof:** reproduction test: none (unproven" in pull.body
    changed = shop.git("diff", "--name-only", "master", "autofix/issue-1", cwd=shop.origin).splitlines()
    assert changed == ["shop/durations.py"]


def test_a_repository_without_a_test_command_is_told_what_to_set(tmp_path, monkeypatch, github, capsys):
    world = World(tmp_path, monkeypatch, github)
    world.event("issues", issue())
    code, out, openai = act(capsys, world, {})
    assert code == 2
    assert out[-1].startswith("::error::.github/autofix.yml: tests.command: a free-form issue")
    assert out[-1].endswith("or add a ```yaml block to the issue with `target: path/of/the/file.py`")
    assert openai.requests == []


def test_a_command_that_names_its_own_test_files_still_runs_the_reproduction(shop, github, capsys):
    """`pytest tests/test_shop.py` never collects tests/autofix/: autofix names the file to pytest
    too, for the reproduction and for every run of the gate (found on attrs, whose suite was run
    as `pytest tests/test_funcs.py tests/test_filters.py`)."""
    repairs = CONFIG.replace(" tests\n", " tests/test_shop.py\n") + "strategy: repair\n"  # the repair hears the gate
    shop.commit_to_origin({".github/autofix.yml": repairs})
    shop.event("issues", issue())
    script = {
        "localize": [Reply("```\nshop/durations.py\n```")],
        "reproduce": [Reply(REPRODUCES)],
        "repair": [Reply(WRONG_FIX), Reply(UNDO_AND_FIX)],
    }
    code, out, openai = act(capsys, shop, script)
    assert code == 0, "\n".join(out)
    assert "autofix: reproduce: tests.autofix.test_issue_1::test_hours_and_minutes fail on the current code" in out
    [pull] = github.pulls(REPO)
    assert PROOF in pull.body


def test_the_reproduction_test_cannot_be_edited_into_passing(shop, github, capsys):
    """The model that can't fix the bug rewrites the proof instead: refused, and told why."""
    shop.commit_to_origin({".github/autofix.yml": CONFIG + "strategy: repair\n"})  # the repair hears the gate
    shop.event("issues", issue())
    cheat = (
        "tests/autofix/test_issue_1.py\n<<<<<<< SEARCH\n    assert parse_duration('1h30m') == 5400\n=======\n"
        "    assert True\n>>>>>>> REPLACE\n"
    )
    script = {
        "localize": [Reply("```\nshop/durations.py\n```")],
        "reproduce": [Reply(REPRODUCES)],
        "repair": [Reply(cheat), Reply(FIX)],
    }
    code, out, openai = act(capsys, shop, script)
    assert code == 0, "\n".join(out)
    assert "block 1 (tests/autofix/test_issue_1.py): a protected path" in openai.prompts()[-1]
    assert shop.file_at("autofix/issue-1", "tests/autofix/test_issue_1.py").endswith("== 5400\n")


def test_a_writer_s_issue_may_name_the_test_command_in_its_yaml_block(shop, github, capsys):
    shop.commit_to_origin({".github/autofix.yml": "max_attempts: 2\n"})  # the repository names no command
    command = f"{SUITE_PYTHON} -m pytest -q tests"
    shop.event("issues", issue(ISSUE + f"\n\n```yaml\nfiles: [shop/durations.py]\ntests:\n  command: {command}\n```\n"))
    script = {"reproduce": [Reply(REPRODUCES)], "repair": [Reply(FIX)]}  # `files:` given: no localize call
    code, out, openai = act(capsys, shop, script)
    assert code == 0, "\n".join(out)
    assert openai.stages() == ["reproduce", "repair"]
    [pull] = github.pulls(REPO)
    assert f"**Judged by:** `{command}`." in pull.body
