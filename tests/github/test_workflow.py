"""The job's log and summary: untrusted text never becomes a workflow command, and the summary
fits what GitHub keeps."""

import io

from action_world import API_KEY, TOKEN, act
from test_ci_repair import BROKEN_ADD, FIX_ADD, Flip, open_pull, run_event, world  # noqa: F401 (world: the red-CI repository)

from bot.github.workflow import SUMMARY_BYTES, Workflow, append_summary

# A pull request's pytest.ini keeps the test ids as written, newlines included.
KEEP_IDS = "[pytest]\ndisable_test_id_escaping_and_forfeit_all_rights_to_community_support = true\n"
COMMANDS = "a\n::error::x\n::add-mask::y\n::set-output name=a::b"


def obeyed(lines: list[str]) -> list[str]:
    """The workflow commands the runner obeys in these log lines: those outside a
    `::stop-commands::<token>` ... `::<token>::` stretch."""
    commands, stopped = [], None
    for line in lines:
        if stopped is not None:
            stopped = None if line == f"::{stopped}::" else stopped
        elif line.startswith("::stop-commands::"):
            stopped = line.removeprefix("::stop-commands::")
        elif line.startswith("::"):
            commands.append(line)
    return commands


def test_test_names_with_newlines_never_become_commands(world, github, capsys, monkeypatch, tmp_path):
    flip = Flip(tmp_path / "flip")  # a test that fails once, then passes: flaky, named in a line of autofix's own
    monkeypatch.syspath_prepend(str(tmp_path / "flip"))
    flaky = (
        "import socket\n\nimport pytest\n\n\n"
        f"@pytest.mark.parametrize('case', [1], ids=[{COMMANDS!r}])\ndef test_sometimes(case):\n"
        f"    client = socket.socket(socket.AF_UNIX)\n    client.settimeout(30)\n    client.connect({flip.path!r})\n"
        "    assert client.recv(4) == b'pass'\n"
    )
    world.commit_to_origin({"tests/test_flaky.py": flaky})
    (world.seed / "pytest.ini").write_text(KEEP_IDS)
    world.git("add", "pytest.ini", cwd=world.seed)  # staged: open_pull's commit takes it into the pull request
    pull, run = open_pull(world, github, {"calc.py": BROKEN_ADD})
    assert "pytest.ini" in world.git("show", "--name-only", "--format=", pull.head_sha, cwd=world.origin)
    world.event("workflow_run", run_event(github, pull, run))
    try:
        code, out, _ = act(capsys, world, [FIX_ADD])
    finally:
        flip.close()
    assert code == 0
    commands = obeyed(out)
    assert commands[:3] == [f"::add-mask::{TOKEN}", f"::add-mask::{API_KEY}", out[2]]  # the token as git sends it
    assert {line.split("::")[1].split(" ")[0] for line in commands[3:]} == {"group", "endgroup"}
    escaped = COMMANDS.replace("\n", "\\n")
    assert (
        f"autofix: baseline: 5 tests, 2 failing in both runs, flaky: tests.test_flaky::test_sometimes[{escaped}]" in out
    )


def test_a_line_of_autofix_s_own_stays_one_line():
    out = io.StringIO()
    Workflow(out).print("autofix: flaky: a\n::error::x\r::add-mask::y\u2028z\x1b[2K\tend")
    assert out.getvalue() == "autofix: flaky: a\\n::error::x\\r::add-mask::y\\u2028z\\x1b[2K\tend\n"


def test_the_job_summary_stays_below_what_github_keeps(tmp_path):
    summary = tmp_path / "summary.md"
    append_summary(summary, "### first\n\n" + "é" * 450_000, str)  # 900,000 bytes
    append_summary(summary, "### second\n\n```text\n" + "ü\n" * 100_000 + "```", str)
    text = summary.read_text()
    assert SUMMARY_BYTES - 100 < len(text.encode()) <= SUMMARY_BYTES
    assert text.startswith("### first") and "\n\n### second\n\n```text\nü\n" in text
    assert text.endswith("ü\n```\n\n**[... 133,403 characters cut: too long for GitHub ...]**\n")
    append_summary(summary, "### third", str)
    assert summary.read_text() == text  # no room left: nothing more
