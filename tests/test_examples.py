"""The example workflows say what they mean, and the docs say what the examples and the Action
do: read from the YAML and the text, never from a copy of either here. Each check fails when the
thing it checks is changed back (the concurrency, the trusted associations, the Action page's count
of triggers, the pages' tiers, the first-day notes)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from bot.github.config import INPUTS

ROOT = Path(__file__).resolve().parent.parent
WORKFLOWS = ROOT / "examples" / "workflows"
ACTION = (ROOT / "docs" / "action.md").read_text(encoding="utf-8")  # the GitHub Action's page
PAGES = "\n".join(p.read_text(encoding="utf-8") for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))])
NUMBERS = {3: "three", 4: "four", 5: "five", 6: "six", 7: "seven"}


def workflow(name: str) -> dict:
    # PyYAML reads the key `on` as True (YAML 1.1): put it back.
    data = yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))
    data["on"] = data.pop(True, data.get("on"))
    return data


def section(title: str) -> str:
    found = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^#)", ACTION, re.M | re.S)
    assert found, f"docs/action.md has no section {title!r}"
    return " ".join(found.group(1).split())


def test_the_issues_example_queues_per_issue_on_the_job_so_skipped_events_never_join():
    issues = workflow("autofix-issues.yml")
    assert "concurrency" not in issues  # at the workflow's level any comment on the issue would join the group
    job = issues["jobs"]["autofix"]
    assert job["concurrency"] == {
        "group": "autofix-issue-${{ github.event.issue.number || github.event.pull_request.number }}",
        "cancel-in-progress": False,
    }
    assert "startsWith(github.event.comment.body, '/autofix')" in job["if"]  # the job-level group sees only these


def test_the_forks_example_trusts_owners_members_and_collaborators_only():
    script = workflow("autofix-red-ci-forks.yml")["jobs"]["author"]["steps"][0]["run"]
    [trusted] = re.findall(r"^\s*([A-Z|]+)\) trusted=true ;;$", script, re.M)
    assert trusted.split("|") == ["OWNER", "MEMBER", "COLLABORATOR"]  # not CONTRIBUTOR: one merged typo fix earns it


def test_the_action_page_names_every_kind_of_event_the_examples_run_on():
    kinds = sorted({kind for path in WORKFLOWS.glob("*.yml") for kind in workflow(path.name)["on"]})
    assert kinds == [
        "issue_comment", "issues", "pull_request_review", "pull_request_review_comment", "schedule",
        "workflow_dispatch", "workflow_run",
    ]  # fmt: skip
    said = re.search(
        r"autofix's examples run on (\w+) kinds of event only: ([^.]+)\.", section("Notes for your repository")
    )
    assert said, "the notes no longer say which events the examples run on"
    assert said.group(1) == NUMBERS[len(kinds)]
    assert sorted(re.findall(r"`(\w+)`", said.group(2))) == kinds


def test_every_mention_of_the_container_s_tier_says_landlock():
    """The smoke test asserts `autofix: sandbox: landlock` in the container, under Docker's default
    seccomp profile; the README and docs/ say so wherever they name the container's tier."""
    smoke = (ROOT / "tests" / "container" / "scenarios.py").read_text(encoding="utf-8")
    assert '"autofix: sandbox: landlock (" in done.log' in smoke
    text = " ".join(PAGES.split())
    about_container = [s for s in re.split(r"(?<=[.;])\s", text) if "container" in s and "process" in s]
    assert all("forces `process`" not in sentence for sentence in about_container), about_container
    assert "on GitHub's hosted runners it gets `landlock`" in text
    assert "`auto` takes the `landlock` tier" in text


def test_the_notes_list_what_a_repository_needs_on_the_first_day():
    notes = section("Notes for your repository")
    for needed in (
        "**The label exists**: autofix never creates it.",
        "in the repository and, for a repository of an organisation, in the organisation's settings too",
        "Settings → Actions → General → Workflow permissions",
        "after 60 days without activity in a public repository",
        "`pr` (with `workflow_dispatch`",
        '`publish` (`"false"`',
        "`comment-path` output",
        "**Linux runners only**",
        "needs an x86-64 runner",
        "`ca-bundle`",
    ):
        assert needed in notes, needed


def test_autofix_creates_no_label_as_the_notes_say():
    code = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "bot" / "github").rglob("*.py"))
    assert "create_label" not in code and '"/labels"' not in code


def test_every_input_the_action_reads_is_declared_in_action_yml_and_the_action_page():
    declared = set(yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))["inputs"])
    assert set(INPUTS) <= declared
    inputs = re.search(r"^## Inputs\n(.*?)^## Outputs", ACTION, re.M | re.S)
    assert inputs and set(re.findall(r"^\| `([^`]+)` \|", inputs.group(1), re.M)) == declared
