"""The model the Action's step opens: `request-timeout` (the input, over `request_timeout` in
.github/autofix.yml) and `map_tokens` from the file reach its settings. The model is opened
through the same hook as the real ones and captured; no model server at all."""

import os

from action_world import FAST, REPO, TOKEN, labeled
from conftest import RIGHT

from bot.github.dispatch import main
from bot.github.forge import Forge
from bot.models.base import REQUEST_TIMEOUT, Masked, ModelSettings, Reply


class Scripted:
    name, banner = "scripted", "model: scripted (a test's)"

    def complete(self, messages):
        return Reply(RIGHT, 10, 5)


def opened_settings(world, github) -> ModelSettings:
    world.event("issues", labeled())
    for name, value in world.inputs.items():  # as the runner gives each step; autofix removes the secret ones
        world.input(name, value)
    opened: list[ModelSettings] = []

    def models(settings, redact, hints):
        opened.append(settings)
        return Masked(Scripted(), redact, settings)

    assert main(os.environ, forge=Forge(github.api_url, TOKEN, REPO, FAST), models=models) == 0
    [settings] = opened
    return settings


def test_nothing_set_is_the_default_timeout_and_a_map_by_where_the_model_runs(world, github):
    settings = opened_settings(world, github)
    assert (settings.timeout, settings.map_tokens) == (REQUEST_TIMEOUT, None)


def test_the_file_sets_both_and_the_input_wins_over_its_timeout(world, github):
    world.commit_to_origin({".github/autofix.yml": "request_timeout: 90\nmap_tokens: 1500\n"})
    settings = opened_settings(world, github)
    assert (settings.timeout, settings.map_tokens) == (90, 1500)
    world.input("request-timeout", "45.5")
    assert opened_settings(world, github).timeout == 45.5
