"""bot/github/config.py on its own: the step's settings read once from an environment, and the
repository's file read with its line numbers; an input that is set wins over the file."""

import os
from pathlib import Path

import pytest

from bot.errors import UserError
from bot.github.config import DEFAULT_LABEL, DEFAULT_SPECS, Config, RepoConfig, load_repo_config

RUNNER = {
    "GITHUB_EVENT_NAME": "issues",
    "GITHUB_EVENT_PATH": "/tmp/event.json",
    "GITHUB_REPOSITORY": "octo/widgets",
    "GITHUB_WORKSPACE": "/github/workspace",
}


def config(**inputs: str) -> Config:
    environ = RUNNER | {"INPUT_GITHUB-TOKEN": "ghs_token"} | {f"INPUT_{k.upper()}": v for k, v in inputs.items()}
    return Config.from_environ(environ)


def test_the_runner_variables_and_their_defaults():
    c = config()
    assert (c.event_name, c.repository, c.workspace) == ("issues", "octo/widgets", Path("/github/workspace"))
    assert (c.api_url, c.server_url, c.temp, c.output, c.summary) == (
        "https://api.github.com", "https://github.com", Path("/tmp"), None, None
    )  # fmt: skip
    assert (c.label, c.specs, c.sandbox, c.config_path, c.publish, c.draft) == (
        DEFAULT_LABEL, DEFAULT_SPECS, "auto", ".github/autofix.yml", True, False
    )  # fmt: skip


def test_blank_inputs_count_as_unset_and_the_secrets_are_known():
    c = config(model="  ", **{"openai-api-key": "sk-key"})
    assert c.model is None and c.api_key == "sk-key"
    assert c.basic_auth == "eC1hY2Nlc3MtdG9rZW46Z2hzX3Rva2Vu"  # base64 of x-access-token:ghs_token
    assert c.secrets == ["ghs_token", "sk-key", c.basic_auth]


def test_the_strength_input_is_unset_unless_given():
    assert (config().strength, config(strength="gate").strength) == (None, "gate")


def test_an_input_wins_over_the_file_and_the_file_over_the_defaults():
    repo = RepoConfig(label="fix-me", specs="specs/*.yml")
    assert (config().with_repo(repo).label, config().with_repo(repo).specs) == ("fix-me", "specs/*.yml")
    assert config(label="robot", specs="x/*.yml").with_repo(repo).label == "robot"


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"api": "completions"}, "input api: must be responses or chat, got 'completions'"),
        ({"sandbox": "docker"}, "input sandbox: must be one of auto, bwrap, landlock, process, none, got 'docker'"),
        ({"max-attempts": "51"}, "input max-attempts: must be a whole number from 1 to 50, got '51'"),
        ({"max-tokens": "0"}, "input max-tokens: must be a whole number of tokens, at least 1, got '0'"),
        ({"pr": "#3"}, "input pr: must be a pull request number, got '#3'"),
        ({"strength": "strict"}, "input strength: must be one of report, gate, off, got 'strict'"),
        ({"jobs": "0"}, "input jobs: must be a whole number from 1 to 256, got '0'"),
    ],
)
def test_a_bad_input_is_one_line_naming_it(inputs, message):
    with pytest.raises(UserError) as caught:
        config(**inputs)
    assert str(caught.value) == message


def test_jobs_the_input_over_the_file_and_never_more_than_one_over_the_cores():
    cores = len(os.sched_getaffinity(0))
    most = cores + 1 if cores > 1 else 1  # a run more than the cores keeps them busy while one waits
    assert config().jobs == most
    assert config().with_repo(RepoConfig(jobs=1)).jobs == 1
    assert config(jobs="1").with_repo(RepoConfig(jobs=4)).jobs == 1
    assert config(jobs="256").jobs == most


def test_outside_a_runner_the_first_missing_variable_is_named():
    with pytest.raises(UserError, match="^GITHUB_EVENT_PATH is not set: "):
        Config.from_environ({"GITHUB_EVENT_NAME": "issues"})


def test_the_repository_file_is_read_strictly_with_its_line(tmp_path: Path):
    assert load_repo_config(tmp_path, ".github/autofix.yml") == RepoConfig()  # no file: no configuration
    (tmp_path / "autofix.yml").write_text("label: fix\ntests:\n  command: pytest -q\n  protect: [golden/]\n")
    loaded = load_repo_config(tmp_path, "autofix.yml")
    assert (loaded.label, loaded.tests.command, loaded.tests.protect) == ("fix", "pytest -q", ["golden/"])
    (tmp_path / "autofix.yml").write_text("label: fix\nmax_attempts: 99\n")
    with pytest.raises(UserError, match=r"^autofix.yml:2: max_attempts: "):
        load_repo_config(tmp_path, "autofix.yml")
