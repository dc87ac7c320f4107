"""What a maintainer sees on GitHub (#27): every pull request body, comment and job summary,
rendered by cmark-gfm as GitHub renders it, opens with one verdict line, links the Actions run
and what the step made, and shows no Markdown as text, no repeated block, no miscounted noun.
End to end through `autofix action`, like test_action.py."""

import re

import gfm
import pytest
from action_world import REPO, act, labeled
from conftest import RIGHT, WRONG
from fake_openai import Reply
from test_ci_repair import BROKEN_ADD, FIX_ADD, open_pull, run_event
from test_ci_repair import world as red_ci  # noqa: F401 (the calculator repository)
from test_freeform import PASSES_ALREADY, REPRODUCES, fixed_at_once, issue, shop  # noqa: F401 (shop: the 58-module repository)

RUN = 9041
EXPLAINED = "dict.fromkeys keeps the first of each item in the order it came, unlike a set.\n\n" + RIGHT


@pytest.fixture
def run_url(github, monkeypatch):
    monkeypatch.setenv("GITHUB_RUN_ID", str(RUN))
    return f"{github.web_url}/{REPO}/actions/runs/{RUN}"


def test_a_pull_request_leads_with_its_verdict_the_change_and_the_run(world, github, capsys, run_url):
    world.event("issues", labeled())
    code, out, _ = act(capsys, world, [WRONG, Reply(EXPLAINED)])
    assert code == 0, "\n".join(out)
    [pull] = github.pulls(REPO)
    assert pull.title == "Fix unique_items loses the order"
    page = gfm.shown(pull.body, run_url)
    assert page.first() == "✅ autofix wrote unique.py for #1: the 4 inline checks passed on attempt 2 of 3."
    assert page.paragraphs[1] == "The change: unique.py."
    assert page.paragraphs[2] == "The model's explanation (its own words, unverified):"
    assert page.blocks[0] == "dict.fromkeys keeps the first of each item in the order it came, unlike a set.\n"
    assert pull.body.count("#1") == 2 and "Fixes #1 · [The Actions run]" in pull.body  # the verdict's and Fixes'
    assert page.summaries == ["Attempt 1: what failed, as the model was told"]
    summary = gfm.shown(world.summary.read_text())
    assert summary.paragraphs[0] == page.first()
    assert f"{github.web_url}/{REPO}/pull/2" in summary.links and f"{github.web_url}/{REPO}/issues/1" in summary.links


def test_a_failure_comment_folds_the_same_failures_once_and_shows_the_code_tried(world, github, capsys, run_url):
    world.event("issues", labeled())
    code, out, _ = act(capsys, world, [WRONG] * 3)
    assert code == 1, "\n".join(out)
    [comment] = github.comments(REPO, 1)
    page = gfm.shown(comment.body, run_url)
    assert re.fullmatch(
        r"❌ autofix could not write unique\.py for #1: the 4 inline checks failed on all 3 attempts, "
        r"2 still failing at the end\.",
        page.first(),
    ), page.first()
    assert page.summaries == [
        "The code attempt 1 wrote for <code>unique.py</code>",
        "Attempt 1: what failed, as the model was told",
        "Attempts 2–3: the same failures",  # the same code sent again: told so, no test run
    ]
    assert "def unique_items(items):\n    return list(set(items))\n" in page.blocks
    summary = gfm.shown(world.summary.read_text())
    assert f"{github.web_url}/{REPO}/issues/1" in summary.links


def test_a_free_form_pull_request_names_and_shows_its_reproduction_test(shop, github, capsys, run_url):
    shop.event("issues", issue())
    script = fixed_at_once()
    code, out, _ = act(capsys, shop, script)
    assert code == 0, "\n".join(out)
    [pull] = github.pulls(REPO)
    assert pull.title == "Fix parse_duration counts hours as minutes"
    page = gfm.shown(pull.body, run_url)
    assert page.first() == (
        "✅ autofix fixed issue #1: tests/autofix/test_issue_1.py failed before the change and passes after it, "
        "and every test that passed before still passes (3 tests passed), on attempt 1 of 2."
    )
    assert page.summaries[0] == (
        "The reproduction test, <code>tests/autofix/test_issue_1.py</code>: it failed before the change"
    )
    assert REPRODUCES.split("\n", 1)[1].removesuffix("```") in page.blocks
    assert "<code>tests/test_shop.py::test_legacy_format</code>" in page.html  # pytest's own form of the id
    assert "gate" not in page.prose


def test_a_not_reproduced_comment_gives_each_refused_test_once(shop, github, capsys, run_url):
    shop.event("issues", issue())
    script = {"localize": [Reply("```\nshop/durations.py\n```")], "reproduce": [Reply(PASSES_ALREADY)] * 3}
    code, out, _ = act(capsys, shop, script)
    assert code == 1, "\n".join(out)
    [comment] = github.comments(REPO)
    page = gfm.shown(comment.body, run_url)
    assert page.first().startswith("❌ autofix could not reproduce the bug in issue #1: none of the 3 test files")
    assert len(page.summaries) == 1 and page.summaries[0].startswith("Test files 1, 2, 3 (the same): ")
    assert (
        "```yaml" not in page.prose and "then ask again: remove the label and add it again, or comment ." in page.prose
    )


def test_a_red_ci_comment_shows_the_change_and_what_to_do_next(red_ci, github, capsys, run_url):
    pull, run = open_pull(red_ci, github, {"calc.py": BROKEN_ADD})
    red_ci.event("workflow_run", run_event(github, pull, run))
    code, out, _ = act(capsys, red_ci, [FIX_ADD])
    assert code == 0, "\n".join(out)
    [comment] = github.comments(REPO, 2)
    page = gfm.shown(comment.body, run_url)
    assert page.first().startswith("✅ autofix fixed the failing tests of #2: the 2 tests that failed of run ")
    assert page.paragraphs[1] == "Next: review #3, which goes into this branch (feature), and merge it."
    assert any(block.startswith("diff --git a/calc.py b/calc.py") for block in page.blocks)
    assert "<code>tests/test_calc.py::test_add</code>" in page.html
    fix = github.pull(REPO, 3)
    assert fix.title == "Fix the failing tests of #2"
    gfm.shown(fix.body, run_url)
    summary = gfm.shown(red_ci.summary.read_text())
    assert f"{github.web_url}/{REPO}/pull/3" in summary.links and f"{github.web_url}/{REPO}/issues/2" in summary.links


def test_a_job_summary_the_runner_cannot_take_costs_a_warning_not_the_result(world, github, capsys, monkeypatch):
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(world.temp))  # a folder: no file can be appended there
    world.event("issues", labeled())
    code, out, _ = act(capsys, world, [RIGHT])
    assert code == 0 and len(github.pulls(REPO)) == 1
    assert out[-1] == f"::warning::the job summary was not written: {world.temp}: Is a directory"
