"""An OSError the system raises in the middle of a task (here: a target that names a folder, which
only fails once a candidate is written; a checkout the file system refuses) ends that task with
one line naming the path and the system's words, told where the task came from, exit 2, and no
traceback: the issue's one comment; a spec's annotation, the other specs still regenerated; the
job's error line wherever no flow tells it. The real flows."""

import re
import tempfile

from action_world import REPO, act, labeled, payload
from conftest import RIGHT, WRONG
from test_action_specs import GOOD_CODE, spec_text
from test_ci_repair import open_pull, world  # noqa: F401 (world: the red-CI repository)

# The judge's scratch copy of the workspace, where the candidate is written first.
FOLDER_ERROR = re.escape(tempfile.gettempdir()) + r"/autofix-\w+/work/unique\.py: Is a directory"


def test_an_issue_whose_target_is_a_folder_gets_one_comment(world, github, capsys):
    world.commit_to_origin({"unique.py/README": "a folder, not a module\n"})
    world.event("issues", labeled())
    code, out, openai = act(capsys, world, [RIGHT])
    assert code == 2
    assert re.fullmatch(f"::error::{FOLDER_ERROR}", out[-1]), out[-1]
    [comment] = github.comments(REPO)
    assert re.search(f"autofix stopped with an error:\n\n```text\n{FOLDER_ERROR}\n```", comment.body), comment.body
    assert world.branches() == ["master"]


def test_a_spec_whose_target_is_a_folder_stops_alone(world, github, capsys):
    world.commit_to_origin({
        ".autofix/a_folder.yml": spec_text("unique.py"), "unique.py/README": "a folder, not a module\n",
        ".autofix/b_broken.yml": spec_text("lib/b.py"), "lib/b.py": "def unique_items(items):\n    return items\n",
    })  # fmt: skip
    world.event("schedule", {"schedule": "17 3 * * *"})
    code, out, openai = act(capsys, world, [RIGHT, WRONG, RIGHT])
    assert code == 2
    errors = [line for line in out if line.startswith("::error")]
    assert len(errors) == 1 and re.fullmatch(f"::error::{FOLDER_ERROR}", errors[0]), errors
    assert world.branches() == ["autofix/spec-b_broken", "master"]  # the next spec still ran
    assert world.file_at("autofix/spec-b_broken", "lib/b.py") == GOOD_CODE


def test_an_error_no_flow_tells_is_still_one_line(world, github, capsys):
    """`/autofix <text>` on a pull request posts no comment for an error of its own; the step's
    error line still names it."""
    world.monkeypatch.setenv("RUNNER_TEMP", "/proc")  # procfs makes no folder, for root either
    pull, _ = open_pull(world, github, {"calc.py": "def add(a, b):\n    return a - b\n"})
    event = payload("issue_comment.created")
    event["comment"]["body"] = "/autofix make add subtract"
    event["issue"].update(number=pull.number, pull_request={"url": f"{github.api_url}/repos/{REPO}/pulls/2"})
    world.event("issue_comment", event)
    code, out, openai = act(capsys, world, {})
    assert code == 2
    assert re.fullmatch(r"::error::/proc/autofix-pr-2-\w{8}: No such file or directory", out[-1]), out[-1]
    assert openai.requests == []
