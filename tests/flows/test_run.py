"""`autofix run` end to end: the real openai SDK over HTTP against a scripted server."""

import json
import re
import subprocess
import sys

import pytest
from conftest import RIGHT, ROOT, WRONG
from fake_openai import Failure, Reply, ScriptedOpenAI

from bot.cli import main


def run(task, fake, *extra, api="responses"):
    return main(["run", str(task), "--base-url", fake.base_url, "--model", "m", "--api", api, *extra])


@pytest.mark.parametrize("api", ["responses", "chat"])
def test_order_mistake_is_repaired_on_attempt_2(task, capsys, api):
    report = task.parent / "report.json"
    with ScriptedOpenAI([Reply(WRONG, 90, 40), Reply(RIGHT, 250, 60)]) as fake:
        assert run(task, fake, "--report", str(report), api=api) == 0
    path = "/v1/responses" if api == "responses" else "/v1/chat/completions"
    assert [r.path for r in fake.requests] == [path, path]
    first, second = fake.prompts()
    assert "unique_items" in first and "Earlier answers failed the tests" not in first
    assert "order: expected [3, 1, 2], got [1, 2, 3]" in second
    # Code written from nothing is repaired from the task and what failed, not shown its own code.
    field = "input" if api == "responses" else "messages"
    opening, sent = fake.requests[0].json[field], fake.requests[1].json[field]
    assert [m["role"] for m in sent] == ["system", "user"] and "list(set(items))" not in second
    assert sent[0] == opening[0] and sent[1]["content"].startswith(opening[1]["content"])
    assert (
        task.parent / "unique.py"
    ).read_text() == "def unique_items(items):\n    return list(dict.fromkeys(items))\n"
    out = capsys.readouterr().out.splitlines()
    assert out[2].startswith("attempt 1/3  FAIL  ") and out[2].endswith("  130 tokens")
    assert out[3] == "    order: expected [3, 1, 2], got [1, 2, 3]"
    assert re.fullmatch(  # "attempt" said once: no "(2 attempts, ...)" after "on attempt 2"
        re.escape(f"passed on attempt 2: wrote {task.parent / 'unique.py'} (") + r"\d+\.\d\d s, 440 tokens\)", out[-1]
    ), out[-1]
    data = json.loads(report.read_text())
    assert data["passed"] is True and data["model"] == "m"
    assert data["tokens"] == {"input": 340, "output": 100}
    assert [a["passed"] for a in data["attempts"]] == [False, True]
    assert data["attempts"][0]["failing_tests"] == ["order", "strings"]
    assert data["attempts"][1]["diff"].startswith("--- a/unique.py\n+++ b/unique.py\n")
    assert data["code"] == (task.parent / "unique.py").read_text()


def test_all_attempts_failing_exits_1_and_leaves_the_target_alone(task, capsys):
    target = task.parent / "unique.py"
    target.write_text("# the user's own file\n")
    with ScriptedOpenAI([WRONG] * 3) as fake:
        assert run(task, fake) == 1
    assert len(fake.requests) == 3
    assert target.read_text() == "# the user's own file\n"
    last = capsys.readouterr().out.splitlines()[-1]
    # The attempts are counted once: by the reason, not again in the totals.
    assert re.fullmatch(
        re.escape(f"failed: all 3 attempts failed; {target} left untouched (") + r"\d+\.\d\d s, 1686 tokens\)", last
    ), last


def test_max_attempts_flag_and_missing_target_untouched(task):
    with ScriptedOpenAI([WRONG]) as fake:
        assert run(task, fake, "--max-attempts", "1") == 1
    assert not (task.parent / "unique.py").exists()


def test_prose_and_several_blocks_around_the_code(task):
    noisy = "Let me think.\n```python\nprint(unique_items([1]))\n```\nThe function:\n" + RIGHT + "\nDone!"
    with ScriptedOpenAI([noisy]) as fake:
        assert run(task, fake) == 0
    assert "dict.fromkeys" in (task.parent / "unique.py").read_text()


def test_a_reply_without_code_is_fed_back(task):
    with ScriptedOpenAI(["I'd rather not.", RIGHT]) as fake:
        assert run(task, fake) == 0
    assert "Your reply could not be used: the reply contained no code" in fake.prompts()[1]


def test_infinite_loop_is_killed_and_the_run_goes_on(task):
    task.write_text(task.read_text().replace("timeout: 20", "timeout: 1"))
    loop = "```python\ndef unique_items(items):\n    while True:\n        pass\n```"
    with ScriptedOpenAI([loop, RIGHT]) as fake:
        assert run(task, fake) == 0
    assert "checks: timed out after 1 s" in fake.prompts()[1]


def test_50_mb_of_output_is_capped(task, tmp_path):
    flood = (
        "```python\nimport sys\nsys.stdout.write('x' * 50_000_000)\n"
        "def unique_items(items):\n    return list(set(items))\n```"
    )
    report = tmp_path / "r.json"
    with ScriptedOpenAI([flood, RIGHT]) as fake:
        assert run(task, fake, "--report", str(report)) == 0
    repair_prompt = fake.prompts()[1]
    assert "- checks: output limit of 16 MiB exceeded" in repair_prompt
    assert len(repair_prompt) < 12_000
    assert "characters cut" in repair_prompt
    assert report.stat().st_size < 100_000


def test_a_500_is_retried_by_the_sdk(task):
    with ScriptedOpenAI([Failure(500, "overloaded", headers={"retry-after-ms": "1"}), RIGHT]) as fake:
        assert run(task, fake) == 0
    assert len(fake.requests) == 2


def test_a_401_exits_2_with_a_clear_message(task, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-planted-secret-123456")
    with ScriptedOpenAI([Failure(401, "Incorrect API key provided: sk-plan*****3456.")]) as fake:
        assert run(task, fake) == 2
    assert fake.requests[0].headers["authorization"] == "Bearer sk-planted-secret-123456"
    err = capsys.readouterr().err
    assert (
        err == "autofix: error: the model API refused the credentials (401): "
        "Incorrect API key provided: sk-plan*****3456.; check OPENAI_API_KEY\n"
    )


def test_the_model_service_down_exits_3_and_keeps_the_report(task, tmp_path, capsys):
    report = tmp_path / "r.json"
    down = Failure(503, "maintenance", headers={"retry-after-ms": "1"})
    with ScriptedOpenAI([WRONG, down, down, down]) as fake:
        assert run(task, fake, "--report", str(report)) == 3
    assert "the model API failed after retries (503): maintenance" in capsys.readouterr().err
    data = json.loads(report.read_text())
    assert len(data["attempts"]) == 1 and data["stop_reason"].startswith("stopped: the model API failed")


def test_no_model_configured_names_the_flag(task, capsys):
    assert main(["run", str(task)]) == 2
    assert (
        capsys.readouterr().err
        == "autofix: error: no model configured: pass --model NAME (or set AUTOFIX_MODEL, or `model:` in the spec)\n"
    )


def test_no_api_key_names_the_variable(task, capsys):
    assert main(["run", str(task), "--model", "gpt-4.1-mini"]) == 2
    assert "set OPENAI_API_KEY" in capsys.readouterr().err


def test_quick_start_replay_through_the_installed_command(tmp_path):
    """What `make demo` runs, as a subprocess: real exit code, real output."""
    autofix = [sys.executable, "-m", "bot"]
    result = subprocess.run(
        [
            *autofix,
            "run",
            "examples/unique_items.yml",
            "--model",
            "replay:examples/unique_items.replay.yml",
            "--workdir",
            str(tmp_path),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert (
        lines[0]
        == "autofix: model: replaying 2 recorded replies from examples/unique_items.replay.yml (no model is called)"
    )
    assert lines[2].startswith("attempt 1/3  FAIL  ") and lines[2].endswith("  133 tokens")
    assert lines[3:5] == [
        "    order: expected [3, 1, 2], got [1, 2, 3]",
        "    strings: expected ['b', 'a'], got ['a', 'b']",
    ]
    assert lines[5].startswith("attempt 2/3  PASS  ")
    assert "seen = set()" in (tmp_path / "unique.py").read_text()


def test_malformed_spec_exits_2_naming_the_line(tmp_path):
    spec = tmp_path / "bad.yml"
    spec.write_text("task: t\ntarget: x.py\ntests:\n  code: 'assert f() == 1\n")
    result = subprocess.run(
        [sys.executable, "-m", "bot", "run", str(spec), "--model", "replay:x"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr == f"autofix: error: {spec}:4:9: invalid YAML: this quote is never closed\n"
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_the_endpoint_and_key_come_from_the_environment(task, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-environment")
    monkeypatch.setenv("AUTOFIX_MODEL", "env-model")
    with ScriptedOpenAI([RIGHT]) as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
        assert main(["run", str(task)]) == 0
    request = fake.requests[0]
    assert request.headers["authorization"] == "Bearer sk-from-the-environment"
    assert request.json["model"] == "env-model"


def test_sandbox_none_warns_once_in_one_line(task, capsys):
    with ScriptedOpenAI([RIGHT]) as fake:
        assert run(task, fake, "--sandbox", "none") == 0
    out = capsys.readouterr()
    assert out.err == (
        "autofix: warning: sandbox 'none': the tests run with autofix's own uid, network and filesystem"
        " (only env, rlimits, output and time are limited)\n"
    )
    assert "autofix: sandbox: none (NO isolation" in out.out


def test_a_server_without_the_responses_api_is_asked_through_chat_completions(task, capsys):
    with ScriptedOpenAI([Reply(WRONG), Reply(RIGHT)], endpoints=("/v1/chat/completions",)) as fake:
        assert main(["run", str(task), "--base-url", fake.base_url, "--model", "m"]) == 0
    # Asked once the default way, then Chat Completions for every call.
    assert [r.path for r in fake.requests] == ["/v1/responses", "/v1/chat/completions", "/v1/chat/completions"]
    err = capsys.readouterr().err.splitlines()
    assert err == [
        f"autofix: warning: the server at {fake.base_url} has no Responses API (404); using Chat Completions "
        "(set --api chat, or the Action's `api: chat` input, to skip this)"
    ]


def test_a_404_with_chat_completions_too_names_the_settings_to_check(task, capsys):
    with ScriptedOpenAI([], endpoints=()) as fake:
        assert main(["run", str(task), "--base-url", fake.base_url, "--model", "m"]) == 2
    assert len(fake.requests) == 2
    error = capsys.readouterr().err.splitlines()[-1]
    assert error.startswith("autofix: error: the model API rejected the request (404): ")
    assert error.endswith("; check --model and --base-url")


def test_spend_shows_in_dollars_and_a_cost_budget_stops_the_run(task, capsys):
    report = task.parent / "report.json"
    with ScriptedOpenAI([Reply(WRONG, 1000, 500), Reply(RIGHT, 2000, 500)]) as fake:
        code = main(["run", str(task), "--base-url", fake.base_url, "--model", "gpt-4.1-mini", "--report", str(report)])
    assert code == 0
    # gpt-4.1-mini: $0.40 in, $1.60 out per million: 3000 in, 1000 out
    assert capsys.readouterr().out.splitlines()[-1].endswith(", 4000 tokens, $0.0028)")
    assert json.loads(report.read_text())["cost_usd"] == 0.0028
    task.write_text(task.read_text() + "max_cost: 0.001\nprice: {input: 1.0, output: 0.0}\n")
    with ScriptedOpenAI([Reply(WRONG, 1000, 500)] * 3) as fake:
        assert main(["run", str(task), "--base-url", fake.base_url, "--model", "my-own", "--report", str(report)]) == 1
    assert len(fake.requests) == 1  # $0.001 for the first 1000 input tokens: the budget is spent
    # The reason names no attempt, so the totals say how many there were.
    assert re.fullmatch(
        re.escape(
            f"failed: cost budget spent ($0.0010 of $0.001); {task.parent / 'unique.py'} left untouched (1 attempt, "
        )
        + r"\d+\.\d\d s, 1500 tokens, \$0\.0010\)",
        capsys.readouterr().out.splitlines()[-1],
    )
    data = json.loads(report.read_text())
    assert (data["stop_reason"], data["cost_usd"]) == ("cost budget spent ($0.0010 of $0.001)", 0.001)


def test_the_console_says_why_an_attempt_failed(task, capsys):
    report = task.parent / "report.json"
    with ScriptedOpenAI([Reply("I think the order matters here."), Reply(WRONG), Reply(RIGHT)]) as fake:
        assert run(task, fake, "--report", str(report)) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[2].startswith("attempt 1/3  FAIL  ")
    assert out[3] == (
        "    Your reply could not be used: the reply contained no code. "
        "Reply with the whole file in one ```python block."
    )
    attempts = json.loads(report.read_text())["attempts"]
    assert [a["kind"] for a in attempts] == ["no code", "failed", "passed"]
    assert attempts[0]["diff"] == attempts[1]["diff"] == ""  # the prose was never code to diff against
    assert attempts[2]["diff"].startswith("--- a/unique.py\n+++ b/unique.py\n")


def test_a_failing_command_shows_its_own_last_lines(tmp_path, capsys):
    spec = tmp_path / "task.yml"
    command = f"{sys.executable} -c \"import sys; print('boom from the tests'); sys.exit(3)\""
    spec.write_text(f"task: t\ntarget: unique.py\ntests:\n  command: {json.dumps(command)}\nmax_attempts: 1\n")
    with ScriptedOpenAI([RIGHT]) as fake:
        assert run(spec, fake) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[3:5] == [f"    {command}: exited with code 3", "    | boom from the tests"]


def test_the_report_tells_the_whole_story(task, capsys):
    report = task.parent / "report.json"
    with ScriptedOpenAI([Reply(WRONG), Reply(RIGHT)]) as fake:
        assert run(task, fake, "--report", str(report)) == 0
    assert report.stat().st_mode & 0o777 == 0o644  # like everything autofix writes
    data = json.loads(report.read_text())
    assert (data["spec"], data["version"]) == (str(task), "0.1.0")
    assert data["task"].startswith("Write a Python function unique_items(items)")
    first, second = data["attempts"]
    assert first["prompt"][1]["content"] in fake.prompts()[0] and first["reply"] == WRONG
    assert "Earlier answers failed the tests" in second["prompt"][-1]["content"] and second["reply"] == RIGHT
    for attempt in (first, second):
        assert attempt["started_at"].endswith("+00:00") and attempt["started_at"][:2] == "20"
        assert 0 <= attempt["model_seconds"] <= attempt["seconds"] and attempt["test_seconds"] > 0


EARLY_RETURN = (
    "```python\ndef unique_items(items):\n    if len(items) == 0:\n        return []\n    seen = set()\n"
    "    result = []\n    for item in items:\n        if item not in seen:\n            seen.add(item)\n"
    "            result.append(item)\n    return result\n```"
)
LOOP = (
    "```python\ndef unique_items(items):\n    seen = set()\n    result = []\n    for item in items:\n"
    "        if item not in seen:\n            seen.add(item)\n            result.append(item)\n    return result\n```"
)


def weak(task):
    """The quick start's task, its tests cut to the empty case."""
    lines = task.read_text().splitlines()
    task.write_text("\n".join(line for line in lines if "assert" not in line or '"empty"' in line) + "\n")
    return task


def test_after_a_pass_the_console_and_the_report_show_the_test_strength(task, capsys):
    report = task.parent / "report.json"
    with ScriptedOpenAI([EARLY_RETURN]) as fake:
        assert run(task, fake, "--report", str(report)) == 0
    out = capsys.readouterr().out.splitlines()
    # No test has a one-item list, so `len(items) == 1` returning [] goes unnoticed.
    assert out[3:7] == [
        "test strength: tests killed 4 of 7 mutants (score 0.57)",
        "    survived: unique.py:2 'if len(items) == 0: return []' → 'if len(items) == 0: pass'",
        "    survived: unique.py:2 '0' → '1'",
        "    survived: unique.py:2 '0' → '-1'",
    ]
    assert out[7].startswith("passed on attempt 1: wrote ")
    strength = json.loads(report.read_text())["strength"]
    figures = ("killed", "total", "mutations", "equivalent", "score", "min_strength")
    assert {key: strength[key] for key in figures} == {
        "killed": 4, "total": 7, "mutations": 7, "equivalent": 0, "score": 0.5714, "min_strength": None,
    }  # fmt: skip
    assert strength["survivors"][1] == {
        "file": "unique.py", "line": 2, "operator": "constant", "change": "'0' → '1'",
        "mutated_line": "if len(items) == 1:",
    }  # fmt: skip


def test_with_the_gate_a_weak_test_keeps_the_code_out_and_the_model_hears_the_survivors(task, capsys):
    report = task.parent / "report.json"
    with ScriptedOpenAI([LOOP, RIGHT]) as fake:
        assert run(weak(task), fake, "--strength", "gate", "--report", str(report)) == 0
    repair = fake.prompts()[1]
    assert (
        "Your code passes the tests, but the tests can't tell it from these variants of it, each of which changes "
        "one thing in the code you wrote and still passes (the tests failed 1 of 3; they must fail at least 80%):\n"
        "- unique.py:5 'if item not in seen: seen.add(item) …' → 'if item not in seen: pass'\n"
        "- unique.py:5 'not in' → 'in', the line becoming `if item in seen:`\n"
    ) in repair
    out = capsys.readouterr().out.splitlines()
    assert out[2].startswith("attempt 1/3  FAIL  ")
    assert out[3:5] == [
        "    unique.py:5 'if item not in seen: seen.add(item) …' → 'if item not in seen: pass'",
        "    unique.py:5 'not in' → 'in', the line becoming `if item in seen:`",
    ]
    assert (
        out[6] == "test strength: tests killed 1 of 1 mutant (score 1.00, min_strength 0.8)"
    )  # dict.fromkeys: only its return
    assert (
        task.parent / "unique.py"
    ).read_text() == "def unique_items(items):\n    return list(dict.fromkeys(items))\n"
    first = json.loads(report.read_text())["attempts"][0]
    assert (first["passed"], first["kind"]) == (False, "failed")
    assert first["failing_tests"] == [
        "(strength) unique.py:5 'if item not in seen: seen.add(item) …' → 'if item not in seen: pass'",
        "(strength) unique.py:5 'not in' → 'in'",
    ]


def test_a_gated_candidate_is_never_written_and_the_weak_spots_are_named(task, capsys):
    task.write_text(weak(task).read_text() + "strength: gate\nmin_strength: 0.5\n")
    with ScriptedOpenAI([LOOP]) as fake:
        assert run(task, fake, "--max-attempts", "1") == 1
    assert not (task.parent / "unique.py").exists()
    out = capsys.readouterr().out.splitlines()
    assert out[-4:-1] == [
        "test strength: tests killed 1 of 3 mutants (score 0.33, below min_strength 0.5)",
        "    survived: unique.py:5 'if item not in seen: seen.add(item) …' → 'if item not in seen: pass'",
        "    survived: unique.py:5 'not in' → 'in'",
    ]
    assert out[-1].startswith("failed: the one attempt failed; ")


def test_strength_off_judges_no_mutant(task, tmp_path):
    report = tmp_path / "r.json"
    with ScriptedOpenAI([EARLY_RETURN]) as fake:
        assert run(task, fake, "--strength", "off", "--report", str(report)) == 0
    assert json.loads(report.read_text())["strength"] is None
