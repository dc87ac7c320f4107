"""How a spec's loop goes on after a failed attempt (#45): `strategy:` in the spec or the config,
`--strategy` for `autofix run`. With resample the model is sent the task's first prompt at every
call, never a verdict; the real openai SDK against the scripted server, and the real sandbox."""

import json

from conftest import RIGHT, WRONG
from fake_openai import Reply, ScriptedOpenAI

from bot import cli
from bot.cli import main
from bot.spec import DEFAULT_STRATEGY, STRATEGIES

ALSO_WRONG = "```python\ndef unique_items(items):\n    return sorted(set(items))\n```"


def test_resample_asks_the_task_again_after_each_failure(task, capsys):
    with ScriptedOpenAI([Reply(WRONG), Reply(ALSO_WRONG), Reply(RIGHT)]) as fake:
        argv = ["run", str(task), "--base-url", fake.base_url, "--model", "m", "--api", "chat"]
        assert main([*argv, "--strategy", "resample", "--max-attempts", "3"]) == 0
        prompts = fake.prompts()
    assert len(prompts) == 3 and prompts[1] == prompts[0] and prompts[2] == prompts[0]
    assert "failed" not in prompts[2].lower()
    assert "passed on attempt 3" in capsys.readouterr().out


def test_the_log_shows_each_sample_the_prompt_the_model_was_sent(task, tmp_path):
    """Resample's later calls are the task's first prompt, and the report says so: never a repair
    prompt the model didn't get."""
    report = tmp_path / "report.json"
    with ScriptedOpenAI([Reply(WRONG), Reply(RIGHT)]) as fake:
        argv = ["run", str(task), "--base-url", fake.base_url, "--model", "m", "--api", "chat"]
        assert main([*argv, "--strategy", "resample", "--max-attempts", "2", "--report", str(report)]) == 0
        sent = [body.json["messages"] for body in fake.requests]
    logged = [attempt["prompt"] for attempt in json.loads(report.read_text())["attempts"]]
    assert logged == sent and logged[1] == logged[0]


def test_a_strategy_the_loop_has_not_is_one_line_naming_the_key(task, capsys):
    task.write_text(task.read_text() + "strategy: guess\n")
    with ScriptedOpenAI([]) as fake:
        assert main(["run", str(task), "--base-url", fake.base_url, "--model", "m"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"autofix: error: {task}:") and "strategy" in err and len(err.splitlines()) == 1


def test_the_cli_offers_the_spec_s_strategies_and_names_the_default():
    run = next(a for a in cli.parser()._subparsers._group_actions[0].choices["run"]._actions if a.dest == "strategy")
    assert tuple(run.choices) == STRATEGIES
    assert f"else {DEFAULT_STRATEGY})" in run.help
