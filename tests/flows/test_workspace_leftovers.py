"""What other steps of a job leave in the workspace, and what a pull request's tree holds, against
autofix's root-side work: credential files an earlier action wrote (google-github-actions/auth's
`gha-creds-*.json`, a `.git-credentials`) are in no scratch copy a candidate runs in; a credential
a candidate quotes anyway is masked by its shape in everything public; a refused reproduction's
message shows as text inside `<summary>`; an edit through a link a fork committed writes nothing
outside the tree. Through `autofix action`, with real git, the real sandbox, the fake GitHub and the
scripted model."""

import html
import json

from action_world import ISSUE_BODY, REPO, act, labeled
from fake_openai import Reply
from test_ci_repair import BROKEN_ADD, FIX_ADD, Link, block, open_pull, repairing, run_event
from test_ci_repair import world as red_ci  # noqa: F401 - a fixture: the red-CI repository
from test_freeform import (
    issue,
    shop,  # noqa: F401 - a fixture: the free-form repository
)

# A service account's key as google-github-actions/auth writes it into the workspace (made up).
# The project id is no secret by shape: finding it anywhere public means the file was read.
PEM = (
    "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\n"
    "-----END PRIVATE KEY-----\n"
)
PROJECT = "planted-project-4711"
CREDENTIALS = {
    "type": "service_account",
    "project_id": PROJECT,
    "private_key_id": "3f2a9c0e1b7d4a6f8e5c2b1a0d9e8f7c6b5a4d3e",
    "private_key": PEM,
    "client_email": f"deployer@{PROJECT}.iam.gserviceaccount.com",
}
LEFT = {
    "gha-creds-abc.json": json.dumps(CREDENTIALS, indent=2),
    ".git-credentials": f"https://x:{PROJECT}@github.com\n",
}
# The candidate reports what its copy holds of each file, at the copy's root beside it.
PEEK = """```python
from pathlib import Path


def unique_items(items):
    here = Path(__file__).parent
    found = {
        name: (here / name).read_text() if (here / name).exists() else "absent"
        for name in ("gha-creds-abc.json", ".git-credentials", "made-by-setup.txt")
    }
    raise RuntimeError(repr(found))
```"""
ONE_ATTEMPT = ISSUE_BODY.replace("target: unique.py", "target: unique.py\nmax_attempts: 1")


def leave_credentials(world):
    for name, text in LEFT.items():
        (world.workspace / name).write_text(text)


def test_the_issue_flow_copies_what_setup_made_and_no_file_another_step_left(world, github, capsys):
    world.commit_to_origin({".github/autofix.yml": "setup: echo made by setup > made-by-setup.txt\n"})
    leave_credentials(world)
    world.event("issues", labeled(body=ONE_ATTEMPT))
    code, out, _ = act(capsys, world, [PEEK])
    assert code == 1, "\n".join(out)
    [comment] = github.comments(REPO, 1)
    found = "{'gha-creds-abc.json': 'absent', '.git-credentials': 'absent', 'made-by-setup.txt': 'made by setup\\n'}"
    assert found in comment.body
    assert PROJECT not in world.written_text()
    assert {name: (world.workspace / name).read_text() for name in LEFT} == LEFT  # the workspace keeps them


def test_a_credential_a_candidate_quotes_is_masked_by_its_shape(world, github, capsys):
    """The candidate knows a key autofix was never told about (its own code holds it) and puts it
    in its failure: the comment, the summary and the report show its shape masked."""
    leak = f"```python\ndef unique_items(items):\n    raise RuntimeError({json.dumps(CREDENTIALS)!r})\n```"
    world.event("issues", labeled(body=ONE_ATTEMPT))
    code, out, _ = act(capsys, world, [leak])
    assert code == 1, "\n".join(out)
    [comment] = github.comments(REPO, 1)
    masked = (
        '{"type": "service_account", "project_id": "planted-project-4711", "private_key_id": "***", '
        '"private_key": "***\\n", "client_email": "***"}'
    )
    assert masked in comment.body
    written = world.written_text()
    for secret in (CREDENTIALS["private_key_id"], "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", CREDENTIALS["client_email"]):
        assert secret not in written


# A reproduction test that reports what the gate's copy holds, its message opening with HTML that
# would close the <summary> and add an image and a link if GitHub rendered it.
HOSTILE = "<img src=x onerror=alert(1)></summary><a href=//evil.example>click</a>"
PEEKING_TEST = f"""```python
from pathlib import Path


def test_copy():
    root = Path(__file__).resolve().parents[2]
    found = {{name: (root / name).read_text() if (root / name).exists() else "absent" for name in {sorted(LEFT)!r}}}
    raise RuntimeError({HOSTILE!r} + repr(found))
```"""


def test_a_refused_reproduction_is_text_in_its_summary_and_the_gate_copies_no_left_file(shop, github, capsys):
    leave_credentials(shop)
    shop.event("issues", issue())
    script = {"localize": [Reply("```\nshop/durations.py\n```")], "reproduce": [Reply(PEEKING_TEST)] * 3}
    code, out, _ = act(capsys, shop, script)
    assert code == 1, "\n".join(out)
    [comment] = github.comments(REPO)
    summaries = [line for line in comment.body.splitlines() if line.startswith("<details><summary>Test file")]
    assert len(summaries) == 1  # the three files the same, and refused for the same reason: one fold
    escaped = html.escape(HOSTILE)
    assert escaped == "&lt;img src=x onerror=alert(1)&gt;&lt;/summary&gt;&lt;a href=//evil.example&gt;click&lt;/a&gt;"
    for line in summaries:
        assert line.startswith("<details><summary>Test files 1, 2, 3 (the same): ") and line.endswith("</summary>")
        assert escaped in line and "<img" not in line and "<a " not in line
        assert line.count("<summary>") == line.count("</summary>") == 1
    assert "{'.git-credentials': 'absent', 'gha-creds-abc.json': 'absent'}" in comment.body
    assert PROJECT not in shop.written_text()


def test_an_edit_through_a_link_a_fork_committed_writes_nothing_outside_the_tree(red_ci, github, capsys, tmp_path):
    """The fork commits `vendor -> <a folder outside>` and `helper.py -> <a file outside>`; the
    model's edits create a file through the first and rewrite the second, as root."""
    repairing(red_ci)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "owned.py").write_text("ROOT_OWNED = True\n")
    links = {"vendor": Link(str(outside)), "helper.py": Link(str(outside / "owned.py"))}
    pull, run = open_pull(red_ci, github, {"calc.py": BROKEN_ADD, **links}, fork=True)
    red_ci.input("publish", "false")  # the forks example's shape: a fork's code runs nowhere else
    red_ci.event("workflow_run", run_event(github, pull, run, fork=True))
    through = block("vendor/pwned.py", "", "PWNED = 1\n") + block("helper.py", "ROOT_OWNED = True\n", "X = 1\n")
    code, out, openai = act(capsys, red_ci, [FIX_ADD + through, FIX_ADD])
    assert code == 0, "\n".join(out)
    refusal = "the path goes through a symbolic link; edit the file it points to"
    feedback = openai.prompts()[1]
    assert f"- block 2 (vendor/pwned.py): {refusal}" in feedback and f"- block 3 (helper.py): {refusal}" in feedback
    assert sorted(p.name for p in outside.iterdir()) == ["owned.py"]
    assert (outside / "owned.py").read_text() == "ROOT_OWNED = True\n"


def test_a_link_an_earlier_step_left_for_the_report_folder_is_not_followed(world, github, capsys, tmp_path):
    """`.autofix -> <a folder outside>` in the workspace: autofix, as root, would write its report
    and the folder's .gitignore there."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (world.workspace / ".autofix").symlink_to(outside)
    world.event("issues", labeled(body=ONE_ATTEMPT))
    code, out, _ = act(capsys, world, [PEEK])
    assert code == 2, "\n".join(out)
    refused = (
        f".autofix/out/autofix-issue-1.json: not written: .autofix: a symbolic link (to {outside}); "
        "autofix writes its reports only where no link stands"
    )
    assert f"::error::{refused}" in out
    [comment] = github.comments(REPO, 1)
    assert f"autofix stopped with an error:\n\n```text\n{refused}\n```" in comment.body
    assert list(outside.iterdir()) == []
