"""The step's settings as two runners hand them over: GitHub's, and nektos/act's (which
`make act` runs the Action under). Where they differ, each case says which runner does what;
Config reads both the same way: an input only ever from `INPUT_<NAME>`, any path wherever the
runner puts it."""

from pathlib import Path

import pytest

from bot.errors import UserError
from bot.github.config import INPUTS, Config

TOKEN = "ghs_fromTheInput0123456789"


def runner(root: str) -> dict[str, str]:
    return {
        "GITHUB_EVENT_NAME": "issues",
        "GITHUB_EVENT_PATH": f"{root}/workflow/event.json",
        "GITHUB_REPOSITORY": "octo/widgets",
        "GITHUB_WORKSPACE": f"{root}/workspace",
        "GITHUB_OUTPUT": f"{root}/file_commands/set_output",
    }


def test_an_input_comes_from_its_prefixed_variable_when_the_bare_one_is_set_too():
    """GitHub's runner gives a container action each input once, as `INPUT_<NAME>` (upper-cased,
    hyphens kept). act also sets every input without the prefix, with the same value, beside the
    step's own `env:`: here the bare ones differ, as a job's `env:` or a self-hosted host's
    environment can make them. The prefixed one wins, always."""
    given = {"github-token": TOKEN, "model": "gpt-from-input", "sandbox": "landlock", "plan": "false", "jobs": "2"}
    environ = runner("/github") | {f"INPUT_{name.upper()}": value for name, value in given.items()}
    environ |= {name.upper(): "bare" for name in INPUTS}  # act's unprefixed copies, here all different
    environ |= {"SANDBOX": "none", "PLAN": "true", "MODEL": "gpt-from-env", "GITHUB-TOKEN": "ghs_fromTheHost000"}
    c = Config.from_environ(environ)
    assert c.inputs == given
    assert (c.token, c.model, c.sandbox, c.plan, c.jobs) == (TOKEN, "gpt-from-input", "landlock", False, 2)


def test_a_bare_variable_alone_is_never_an_input():
    """A self-hosted job's container gets the host's environment (act's `-self-hosted` platform):
    a variable named like an input (`SANDBOX`, `MODEL`, `GITHUB-TOKEN`) is the host's, not the
    workflow's `with:`. GitHub's runner passes none of the host's variables to a container action."""
    environ = runner("/github") | {"GITHUB-TOKEN": TOKEN, "SANDBOX": "none", "MODEL": "gpt-from-env", "PLAN": "true"}
    with pytest.raises(UserError) as caught:
        Config.from_environ(environ)
    assert str(caught.value) == "input github-token is required (e.g. `github-token: ${{ secrets.GITHUB_TOKEN }}`)"
    c = Config.from_environ(environ | {"INPUT_GITHUB-TOKEN": TOKEN})
    assert c.inputs == {"github-token": TOKEN}
    assert (c.sandbox, c.model, c.plan) == ("auto", None, False)


@pytest.mark.parametrize(
    "root",
    [
        "/github",  # GitHub's runner: the workspace, event and file commands mounted under /github/
        "/home/runner/work/_temp/act",  # act in a self-hosted job: the host's own paths, unmounted
    ],
)
def test_the_runner_s_paths_are_taken_wherever_they_are(root):
    c = Config.from_environ(runner(root) | {"INPUT_GITHUB-TOKEN": TOKEN})
    assert (c.event_path, c.workspace, c.output) == (
        Path(f"{root}/workflow/event.json"), Path(f"{root}/workspace"), Path(f"{root}/file_commands/set_output")
    )  # fmt: skip
    assert c.shown(Path(f"{root}/workspace/.autofix/out/autofix-issue-1.json")) == ".autofix/out/autofix-issue-1.json"
    assert c.shown(Path(f"{root}/elsewhere/report.json")) == f"{root}/elsewhere/report.json"
