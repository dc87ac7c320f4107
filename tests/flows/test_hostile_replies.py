"""Replies built to crash autofix's own process, end to end through `autofix run`: each is a failed
attempt with a one-line reason naming what was wrong, and the next reply is still judged."""

from __future__ import annotations

import json

from conftest import RIGHT
from fake_openai import ScriptedOpenAI
from test_targets import SHOP_SPEC, fenced, run, write_shop

from bot.cli import main

CONFIG_SPEC = """\
task: The api service's config.
target: config.yaml
tests:
  code: |
    assert data['replicas'] == 3, 'replicas'
"""


def test_yaml_scalars_its_constructors_refuse_are_failed_attempts_told_at_their_line(tmp_path, capsys):
    spec = tmp_path / "task.yml"
    spec.write_text(CONFIG_SPEC)
    replies = [
        fenced("yaml", "replicas: 3\nsince: 2024-13-45"),  # a ValueError from the timestamp's constructor
        fenced("yaml", f"replicas: {'9' * 5000}"),  # a ValueError: past Python's digits for an int from a str
        fenced("yaml", "replicas: 3"),
    ]
    code, report, printed = run(spec, replies, capsys)
    assert code == 0, printed.err
    date, digits, right = report["attempts"]
    assert date["feedback"] == (
        "Failing checks:\n"
        "- config.yaml:2:8: invalid YAML: '2024-13-45' is not a valid timestamp: month must be in 1..12"
    )
    assert digits["feedback"] == (
        "Failing checks:\n- config.yaml:1:11: invalid YAML: '9999999999999999999999999999999999999999'... "
        "(5,000 characters) is not a valid int: Exceeds the limit (4300 digits) for integer string conversion: "
        "value has 5000 digits"
    )
    assert right["passed"]
    assert "Traceback" not in printed.err


def test_a_query_of_thousands_of_select_items_is_refused_before_its_names_are_resolved(tmp_path, capsys):
    spec = write_shop(tmp_path, SHOP_SPEC)
    wide = "SELECT " + ", ".join(f"u.name AS n{i}" for i in range(3000)) + " FROM users u"
    right = (
        "SELECT u.id, u.name, SUM(o.total) AS spent FROM users u JOIN orders o ON o.user_id = u.id\n"
        "WHERE o.total > 0 GROUP BY u.id ORDER BY spent DESC;"
    )
    code, report, printed = run(spec, [fenced("sql", wide), fenced("sql", right)], capsys)
    assert code == 0, printed.err
    assert report["attempts"][0]["feedback"] == (
        "Failing checks:\n- report.sql: the query has more than 10,000 parts; at most 10,000 are resolved"
    )
    assert report["attempts"][1]["passed"]


def test_python_replies_no_file_could_hold_or_no_parser_could_read_are_told_and_the_run_goes_on(task, capsys):
    """`- - ... 1` 100,000 deep makes Python's parser raise MemoryError, not SyntaxError. A lone
    surrogate (the API's JSON escape `\\ud800`) can't be written to a file or a prompt: it is read
    as U+FFFD, and the code is judged."""
    report = task.parent / "report.json"
    replies = [
        "```python\ndef unique_items(items):\n    return items\0\n```",
        "```python\ndef unique_items(items):\n    return '\ud800'\n```",
        "```python\ndef unique_items(items):\n    return " + "-" * 100_000 + "1\n```",
        RIGHT,
    ]
    with ScriptedOpenAI(replies) as fake:
        argv = ["run", str(task), "--base-url", fake.base_url, "--model", "m", "--max-attempts", "4"]
        assert main([*argv, "--report", str(report)]) == 0
    prompts = fake.prompts()
    assert (
        "Your reply could not be used: the reply holds a NUL character (line 3), which no source text holds."
        in (prompts[1])
    )
    # The code is judged with U+FFFD where the API sent a lone surrogate, and the next prompt sent.
    assert "Earlier answers failed the tests" in prompts[2]
    assert "Your reply could not be used: the code nests too deeply for Python to parse it." in prompts[3]
    attempts = json.loads(report.read_text())["attempts"]
    assert [attempt["kind"] for attempt in attempts] == ["no code", "failed", "no code", "passed"]
    assert "return '\ufffd'" in attempts[1]["code"]
    assert "Traceback" not in capsys.readouterr().err


def test_an_edit_whose_code_pythons_parser_cant_hold_is_judged_failed_not_a_crash(task, capsys):
    """The static guard parses the edited file before anything runs: `- - ... 1` 100,000 deep
    raised MemoryError there, which no one caught."""
    task.write_text(task.read_text() + "mode: edit\n")
    (task.parent / "unique.py").write_text("def unique_items(items):\n    return items\n")
    deep = "unique.py\n<<<<<<< SEARCH\n    return items\n=======\n    return " + "-" * 100_000 + "1\n>>>>>>> REPLACE\n"
    right = (
        "unique.py\n<<<<<<< SEARCH\n    return " + "-" * 100_000 + "1\n=======\n"
        "    return list(dict.fromkeys(items))\n>>>>>>> REPLACE\n"
    )
    report = task.parent / "report.json"
    with ScriptedOpenAI([deep, right]) as fake:
        argv = ["run", str(task), "--base-url", fake.base_url, "--model", "m", "--report", str(report)]
        assert main(argv) == 0
    attempts = json.loads(report.read_text())["attempts"]
    assert [attempt["kind"] for attempt in attempts] == ["failed", "passed"]
    assert "Traceback" not in capsys.readouterr().err
