"""`autofix action` on `schedule` / `workflow_dispatch`, and `autofix plan`: spec files regenerated
only when their code no longer passes, one pull request per spec."""

import json

import pytest
from action_world import CHECKS, REPO, World, act, payload
from conftest import RIGHT, WRONG
from fake_github import FakeGitHub

from bot.cli import main

GOOD_CODE = "def unique_items(items):\n    return list(dict.fromkeys(items))\n"
BROKEN_CODE = "def unique_items(items):\n    return sorted(set(items))\n"


def spec_text(target: str, max_attempts: int = 2) -> str:
    checks = "".join(f"    {line}\n" for line in CHECKS.splitlines())
    return (
        f"task: Remove duplicates, keep the order.\ntarget: {target}\n"
        f"max_attempts: {max_attempts}\ntests:\n  code: |\n{checks}"
    )


@pytest.fixture
def world(tmp_path, monkeypatch, github):
    world = World(tmp_path, monkeypatch, github)
    world.commit_to_origin({
        ".autofix/a_passing.yml": spec_text("lib/a.py"), "lib/a.py": GOOD_CODE,
        ".autofix/b_broken.yml": spec_text("lib/b.py"), "lib/b.py": BROKEN_CODE,
        ".autofix/c_hopeless.yml": spec_text("lib/c.py", max_attempts=1),
    })  # fmt: skip
    return world


@pytest.mark.parametrize("event", ["schedule", "workflow_dispatch"])
def test_nightly_opens_exactly_one_pull_request_for_the_spec_that_fails(world, github, capsys, event):
    world.event(event, payload("workflow_dispatch") if event == "workflow_dispatch" else {"schedule": "0 3 * * *"})
    code, out, openai = act(capsys, world, [WRONG, RIGHT, WRONG])
    assert code == 1  # c_hopeless failed its one attempt
    assert len(openai.requests) == 3
    assert "autofix: .autofix/a_passing.yml: lib/a.py already passes its tests; nothing to do" in out
    assert "autofix: .autofix/c_hopeless.yml: every attempt failed (the one attempt failed); no branch pushed" in out
    assert world.branches() == ["autofix/spec-b_broken", "master"]
    assert world.file_at("autofix/spec-b_broken", "lib/b.py") == GOOD_CODE
    assert world.file_at("autofix/spec-b_broken", "lib/a.py") == GOOD_CODE
    [pull] = github.pulls(REPO)
    assert (pull.head_ref, pull.base_ref, pull.title) == (
        "autofix/spec-b_broken",
        "master",
        "Regenerate lib/b.py: its tests no longer passed",
    )
    assert pull.body.startswith(
        "<!-- autofix:spec-b_broken -->\n\n✅ autofix regenerated `lib/b.py` from `.autofix/b_broken.yml`: "
        "the 4 inline checks passed on attempt 2 of 2.\n\n**The change:** `lib/b.py`.\n\n| # | outcome |"
    )
    assert "Fixes #" not in pull.body
    assert github.comments(REPO) == []
    # The workspace is left as checked out: the published fix does not leak into the next spec.
    assert world.git("status", "--porcelain") == ""
    out = ".autofix/out"
    assert world.outputs() == {
        "passed": "false", "attempts": "3", "pr-number": str(pull.number),
        "pr-url": f"{github.web_url}/{REPO}/pull/{pull.number}", "pr-operation": "created",
        "report-path": f"{out}/autofix-spec-a_passing.json\n{out}/autofix-spec-b_broken.json\n"
                       f"{out}/autofix-spec-c_hopeless.json",
    }  # fmt: skip
    a = json.loads((world.out / "autofix-spec-a_passing.json").read_text())
    assert (a["passed"], a["attempts"], a["stop_reason"]) == (True, [], "the current code already passes its tests")
    b = json.loads((world.out / "autofix-spec-b_broken.json").read_text())
    assert [attempt["kind"] for attempt in b["attempts"]] == ["failed", "passed"]  # written through the one loop
    summary = world.summary.read_text()
    # One heading per spec, its target's; under it, the verdict and what the task made.
    assert "### autofix: `lib/a.py`\n\n✅ `lib/a.py` already passes the 4 inline checks: nothing to do.\n\n" in summary
    assert (
        "### autofix: `lib/b.py`\n\n✅ autofix regenerated `lib/b.py` from `.autofix/b_broken.yml`: the 4 inline "
        f"checks passed on attempt 2 of 2.\n\n**Made:** [pull request #{pull.number}]"
        f"({github.web_url}/{REPO}/pull/{pull.number})"
    ) in summary
    assert (
        "### autofix: `lib/c.py`\n\n❌ autofix could not regenerate `lib/c.py` from `.autofix/c_hopeless.yml`: "
        "the 4 inline checks failed on the one attempt.\n\n"
    ) in summary


def test_the_spec_input_restricts_a_run_to_one_spec_and_reruns_change_nothing(world, github, capsys):
    world.input("spec", ".autofix/b_broken.yml")
    world.event("schedule", {"schedule": "0 3 * * *"})
    assert act(capsys, world, [RIGHT])[0] == 0
    assert world.outputs()["pr-operation"] == "created"
    world.checkout()
    code, out, _ = act(capsys, world, [RIGHT])
    assert code == 0 and world.outputs()["pr-operation"] == "none"
    assert len(github.pulls(REPO)) == 1 and world.branches() == ["autofix/spec-b_broken", "master"]


def test_all_passing_needs_no_model_and_no_key(world, github, capsys):
    world.input("spec", ".autofix/a_passing.yml")
    world.input("openai-api-key", "")
    world.event("workflow_dispatch", payload("workflow_dispatch"))
    code, out, openai = act(capsys, world)
    assert code == 0 and openai.requests == [] and github.writes() == []
    assert world.outputs() | {"report-path": ""} == {
        "passed": "true", "attempts": "0", "pr-number": "", "pr-url": "", "pr-operation": "none", "report-path": "",
    }  # fmt: skip


def test_plan_prints_the_matrix(world, capsys):
    assert main(["plan", "--workdir", str(world.workspace)]) == 0
    assert capsys.readouterr().out == '[".autofix/a_passing.yml", ".autofix/b_broken.yml", ".autofix/c_hopeless.yml"]\n'
    assert main(["plan", "--workdir", str(world.workspace), "--specs", ".autofix/b*.yml"]) == 0
    assert capsys.readouterr().out == '[".autofix/b_broken.yml"]\n'


def test_plan_input_writes_the_specs_output_for_a_matrix(world, github, capsys):
    world.input("plan", "true")
    world.input("github-token", "")
    world.event("schedule", {"schedule": "0 3 * * *"})
    code, out, _ = act(capsys, world)
    assert code == 0 and github.requests == []
    assert world.outputs()["specs"] == '[".autofix/a_passing.yml", ".autofix/b_broken.yml", ".autofix/c_hopeless.yml"]'


def test_the_config_file_sets_the_specs_glob_and_defaults(tmp_path, monkeypatch, capsys):
    with FakeGitHub() as github:
        world = World(tmp_path, monkeypatch, github)
        world.commit_to_origin({
            ".github/autofix.yml": "specs: 'specs/**/*.yaml'\nmax_attempts: 1\nmodel: from-config\n",
            "specs/deep/x.yaml": spec_text("x.py", max_attempts=3).replace("max_attempts: 3\n", ""),
        })  # fmt: skip
        world.input("model", "")
        world.event("schedule", {"schedule": "0 3 * * *"})
        code, out, openai = act(capsys, world, [WRONG])
        assert code == 1
        assert [r.json["model"] for r in openai.requests] == ["from-config"]  # max_attempts 1 from the file
        assert "autofix: specs/deep/x.yaml: every attempt failed (the one attempt failed); no branch pushed" in out
