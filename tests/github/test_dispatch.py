"""`bot.github.dispatch.main` with its collaborators passed in: a model opened through the same
hook the real ones are (no model server at all), a sandbox chosen by the test, a Forge paced for
the local fake GitHub. What main builds itself when one isn't given is what the flows' tests run."""

import io
import json
import os

from action_world import API_KEY, FAST, REPO, TOKEN, labeled
from conftest import RIGHT, WRONG

from bot.github.dispatch import main
from bot.github.forge import Forge
from bot.judge.validate import open_test_sandbox
from bot.models.base import Masked, ModelSettings, Reply
from bot.models.registry import Hints


class Scripted:
    """Plays replies and keeps every prompt it is sent, as the model service would see it."""

    name, banner = "scripted", "model: scripted (a test's)"

    def __init__(self, replies: list[str]):
        self.replies, self.prompts = replies, []

    def complete(self, messages):
        self.prompts.append(messages)
        return Reply(self.replies[len(self.prompts) - 1], 10, 5)


def test_collaborators_passed_in_carry_a_whole_issue_run(world, github):
    world.input("model", "from-the-input")
    world.event("issues", labeled(body=labeled()["issue"]["body"] + f"\nThe key is {API_KEY}.\n"))
    model = Scripted([WRONG, RIGHT])
    opened: list[tuple[ModelSettings, Hints]] = []

    def models(settings, redact, hints):
        opened.append((settings, hints))
        return Masked(model, redact)

    out = io.StringIO()
    warnings: list[str] = []
    sandbox = open_test_sandbox("auto", "test", warnings.append)  # the strongest tier here
    forge = Forge(github.api_url, TOKEN, REPO, FAST)
    code = main(os.environ, out, forge=forge, models=models, sandbox=sandbox)
    lines = out.getvalue().splitlines()

    assert code == 0, lines
    [(settings, hints)] = opened
    assert (settings.name, settings.api, settings.api_key) == ("from-the-input", "responses", API_KEY)
    assert hints.name == "set the `model` input, or `model:` in .github/autofix.yml or the spec"
    assert f"autofix: sandbox: {sandbox.describe()}" in lines and "autofix: model: scripted (a test's)" in lines
    assert len(model.prompts) == 2 and model.prompts[1] == model.prompts[0]  # resample, the default: the task again
    assert all(API_KEY not in message["content"] for prompt in model.prompts for message in prompt)
    report = json.loads((world.out / "autofix-issue-1.json").read_text())
    assert [attempt["kind"] for attempt in report["attempts"]] == ["failed", "passed"]  # through the one loop
    assert forge.log is not None  # the given Forge tells its retries in the step's log
    [pull] = github.pulls(REPO)
    assert (pull.head_ref, pull.base_ref) == ("autofix/issue-1", "master")
    assert lines[-1] == f"autofix: pull request #{pull.number} created: {github.web_url}/{REPO}/pull/{pull.number}"
