"""The flows that edit a tree (red CI and free-form issues here; review rounds in
tests/github/test_review_loop.py) go on after a failed
attempt as the config's `strategy` says, else as a spec does (resample, #45): every sample is the
task's first prompt, answered on the tree as it was before any reply, so its edit blocks match the
files the prompt showed and nothing an earlier sample wrote reaches the proposal."""

from action_world import REPO, act
from fake_openai import Reply
from test_ci_repair import BROKEN_ADD, CALC, FIX_ADD, block, open_pull, repairing, run_event, world  # noqa: F401 - a fixture
from test_freeform import FIX, REPRODUCES, WRONG_FIX, issue, shop  # noqa: F401 - a fixture

from bot.spec import DEFAULT_STRATEGY


def test_the_tree_flows_default_is_a_spec_s():
    assert DEFAULT_STRATEGY == "resample"


def test_red_ci_samples_afresh_from_the_pull_request_s_head(world, github, capsys):
    pull, run = open_pull(world, github, {"calc.py": BROKEN_ADD})
    breaks_negatives = block("calc.py", "    return a - b\n", "    return abs(a) + abs(b)\n")
    world.event("workflow_run", run_event(github, pull, run))
    # FIX_ADD's SEARCH is the head's `return a - b`: it matches only if attempt 1's edit was undone.
    code, out, openai = act(capsys, world, [breaks_negatives, FIX_ADD])
    assert code == 0, "\n".join(out)
    first, second = openai.prompts()
    assert second == first and "abs(a)" not in second and "failed now" not in second
    assert world.file_at("autofix/pr-2", "calc.py") == CALC
    assert "abs(" not in github.pull(REPO, 3).body.split("| # | outcome |")[0]


def test_red_ci_repairs_when_the_config_says_so(world, github, capsys):
    repairing(world)
    pull, run = open_pull(world, github, {"calc.py": BROKEN_ADD})
    breaks_negatives = block("calc.py", "    return a - b\n", "    return abs(a) + abs(b)\n")
    world.input("max-attempts", "2")
    world.event("workflow_run", run_event(github, pull, run))
    code, out, openai = act(capsys, world, [breaks_negatives, FIX_ADD])
    assert code == 1, "\n".join(out)  # FIX_ADD answers the head's text, but the repair prompt showed attempt 1's
    second = openai.prompts()[1]
    assert "passed before the change, failed now" in second and "abs(a) + abs(b)" in second


def test_a_free_form_issue_samples_afresh_with_its_reproduction_test_kept(shop, github, capsys):
    shop.event("issues", issue())
    script = {
        "localize": [Reply("```\nshop/durations.py\n```")],
        "reproduce": [Reply(REPRODUCES)],
        "repair": [Reply(WRONG_FIX), Reply(FIX)],  # FIX edits the file as it was: WRONG_FIX undone
    }
    code, out, openai = act(capsys, shop, script)
    assert code == 0, "\n".join(out)
    first, second = [p for p, stage in zip(openai.prompts(), openai.stages(), strict=True) if stage == "repair"]
    assert second == first and "test_hours_and_minutes" in second
    [pull] = github.pulls(REPO)
    branch = pull.head_ref
    assert "return 5400" not in shop.file_at(branch, "shop/durations.py")
    assert "def test_hours_and_minutes" in shop.file_at(branch, "tests/autofix/test_issue_1.py")
