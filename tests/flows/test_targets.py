"""Targets that aren't Python, end to end through `autofix run` (and `autofix eval`): recorded
replies, the real judge, the real sandbox. A JSON or YAML document is parsed and validated
against its JSON Schema; a SQL query is parsed, resolved against its schema and run on SQLite."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from conftest import EXAMPLES
from fake_openai import Reply, ScriptedOpenAI, prompt_text

from bot.cli import main

SERVICE_SCHEMA = {
    "type": "object",
    "required": ["name", "servers"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string"},
        "servers": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["host", "port"],
                "properties": {"host": {"type": "string"}, "port": {"type": "integer"}},
            },
        },
    },
}
SHOP_SCHEMA = """\
CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE orders (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users (id), total REAL NOT NULL);
"""
SHOP_DATA = """\
INSERT INTO users VALUES (1, 'alice'), (2, 'bob'), (3, 'carol');
INSERT INTO orders VALUES (1, 1, 10), (2, 1, 5.5), (3, 2, 7), (4, 3, 0);
"""


def fenced(kind: str, text: str) -> str:
    return f"Here it is:\n\n```{kind}\n{text}\n```\n"


def run(spec: Path, replies: list[str], capsys) -> tuple[int, dict, pytest.CaptureResult]:
    """`autofix run` with these recorded replies: its exit code, its report, what it printed."""
    replay = spec.with_name("replies.replay.yml")
    replay.write_text(yaml.safe_dump({"replies": replies}))
    report = spec.with_name("report.json")
    code = main(["run", str(spec), "--model", f"replay:{replay}", "--report", str(report)])
    return code, json.loads(report.read_text()) if report.exists() else {}, capsys.readouterr()


def write_shop(folder: Path, spec: str) -> Path:
    (folder / "shop.sql").write_text(SHOP_SCHEMA)
    (folder / "shop_data.sql").write_text(SHOP_DATA)
    path = folder / "task.yml"
    path.write_text(spec)
    return path


SHOP_SPEC = """\
task: Each user with orders over 0, with their total spent, the biggest total first.
target: report.sql
tests:
  sql:
    schema: shop.sql
    data: shop_data.sql
    expect: [[1, alice, 15.5], [2, bob, 7]]
    ordered: true
timeout: 10
"""


def test_a_json_document_that_breaks_its_schema_in_two_places_hears_both_and_passes_next(tmp_path, capsys):
    (tmp_path / "service.schema.json").write_text(json.dumps(SERVICE_SCHEMA))
    spec = tmp_path / "task.yml"
    spec.write_text(
        "task: The api service's servers.\ntarget: service.json\ntests:\n  json_schema: service.schema.json\n"
        "strategy: repair\n"  # the second reply answers the first's feedback
    )
    broken = {"name": "api", "servers": [{"host": "a.internal", "port": "abc"}, {"port": 80}]}
    right = {"name": "api", "servers": [{"host": "a.internal", "port": 8080}, {"host": "b.internal", "port": 80}]}
    code, report, _ = run(
        spec, [fenced("json", json.dumps(broken, indent=2)), fenced("json", json.dumps(right))], capsys
    )
    assert code == 0
    first, second = report["attempts"]
    assert first["failing_tests"] == ["$.servers[0].port", "$.servers[1]"]
    assert first["feedback"] == (
        "Failing checks:\n"
        "- $.servers[0].port: 'abc' is not of type 'integer'\n"
        "- $.servers[1]: 'host' is a required property"
    )
    assert first["feedback"] in second["prompt"][-1]["content"]  # the model hears both
    assert second["prompt"][0]["content"].startswith("You are a careful author of JSON documents.")
    assert "in a single ```json fenced block" in second["prompt"][0]["content"]
    assert json.loads((tmp_path / "service.json").read_text()) == right


def test_a_sql_query_hears_the_misspelled_column_then_the_wrong_rows_then_passes(tmp_path, capsys):
    spec = write_shop(tmp_path, SHOP_SPEC + "strategy: repair\n")  # each reply answers the last feedback
    misspelled = "SELECT u.id, u.nmae, SUM(o.total)\nFROM users u JOIN orders o ON o.user_id = u.id\nGROUP BY u.id"
    wrong_rows = "SELECT u.id, u.name, SUM(o.total) FROM users u JOIN orders o ON o.user_id = u.id GROUP BY u.id"
    right = (
        "SELECT u.id, u.name, SUM(o.total) AS spent FROM users u JOIN orders o ON o.user_id = u.id\n"
        "WHERE o.total > 0 GROUP BY u.id ORDER BY spent DESC;"
    )
    replies = [fenced("sql", misspelled), fenced("sql", wrong_rows), fenced("sql", right)]
    code, report, _ = run(spec, replies, capsys)
    assert code == 0
    first, second, third = report["attempts"]
    assert first["feedback"] == "Failing checks:\n- report.sql:1:16: unknown column users.nmae; did you mean name?"
    assert second["failing_tests"] == ["(rows)"]
    assert second["feedback"].startswith(
        "Failing checks:\n- (rows): expected 2 rows, got 3; unexpected: (3, 'carol', 0)\n\nDetails:\n"
        "The query returned 3 rows (columns id, name, SUM(o.total))\n(1, 'alice', 15.5)\n(2, 'bob', 7)\n"
    )
    assert second["feedback"] in third["prompt"][-1]["content"]
    assert third["passed"] and (tmp_path / "report.sql").read_text() == right + "\n"
    # The query can't be written without the tables' names: the prompt shows the schema.
    task = first["prompt"][1]["content"]
    assert "It must hold a single read-only query (sqlite)." in task
    assert f"The database's schema (`shop.sql`):\n```sql\n{SHOP_SCHEMA}```" in task


def test_a_sql_spec_reads_the_expected_rows_from_a_csv_and_the_order_can_be_left_free(tmp_path, capsys):
    spec = write_shop(tmp_path, SHOP_SPEC.replace("expect: [[1, alice, 15.5], [2, bob, 7]]", "expect_file: rows.csv"))
    spec.write_text(spec.read_text().replace("ordered: true", "ordered: false"))
    (tmp_path / "rows.csv").write_text("id,name,spent\n2,bob,7\n1,alice,15.5\n")
    reversed_rows = "SELECT u.id, u.name, SUM(o.total) FROM users u JOIN orders o ON o.user_id = u.id"
    reversed_rows += " WHERE o.total > 0 GROUP BY u.id ORDER BY u.id"
    code, report, _ = run(spec, [fenced("sql", "DELETE FROM orders"), fenced("sql", reversed_rows)], capsys)
    assert code == 0
    assert report["attempts"][0]["feedback"] == (
        "Failing checks:\n- report.sql: only a single read-only query is accepted (SELECT, WITH ... SELECT), not DELETE"
    )


def test_a_dialect_sqlite_cannot_run_is_parsed_and_resolved_and_the_log_says_so(tmp_path, capsys):
    spec = write_shop(tmp_path, SHOP_SPEC.replace("    data: shop_data.sql\n", "    dialect: postgres\n"))
    misspelled = "SELECT name FROM users WHERE nmae ILIKE 'a%'"
    right = "SELECT name FROM users WHERE name ILIKE 'a%'"  # ILIKE: no SQLite could run it
    code, report, printed = run(spec, [fenced("sql", misspelled), fenced("sql", right)], capsys)
    assert code == 0
    note = (
        "tests.sql.dialect is postgres, which SQLite can't run: a query is checked by parsing it and resolving "
        "its names against the schema, not by its rows"
    )
    assert report["notes"] == [note]
    assert f"autofix: note: {note}" in printed.out.splitlines()
    assert report["attempts"][0]["feedback"] == (
        "Failing checks:\n- report.sql:1:30: unknown column users.nmae; did you mean name?"
    )


def test_a_yaml_document_is_parsed_and_the_checks_run_on_it_as_data_in_the_sandbox(tmp_path, capsys):
    spec = tmp_path / "task.yml"
    spec.write_text(
        "task: The api service's config.\n"
        "target: config.yaml\n"
        "tests:\n"
        "  code: |\n"
        "    import jsonschema, sqlglot  # autofix's own path: the checks may use them\n"
        "    assert sqlglot.parse_one('select 1').sql() == 'SELECT 1', 'sqlglot'\n"
        "    assert data['replicas'] == 3, 'replicas'\n"
        "    assert sorted(data['ports']) == [80, 443], 'ports'\n"
    )
    replies = [
        fenced("yaml", "replicas: 3\nports: [80, 443"),
        fenced("yaml", "replicas: 2\nports: [80, 443]"),
        fenced("yaml", "replicas: 3\nports:\n  - 443\n  - 80"),
    ]
    code, report, _ = run(spec, replies, capsys)
    assert code == 0
    unclosed, wrong, _ = report["attempts"]
    assert unclosed["feedback"] == "Failing checks:\n- config.yaml:2:8: invalid YAML: this '[' is never closed"
    assert wrong["feedback"] == (
        "Failing checks:\n- replicas: expected 3, got 2\n\nDetails:\n"
        "### replicas (line 3)\nassert data['replicas'] == 3, 'replicas'\ndata['replicas'] is 2, expected 3"
    )
    assert wrong["inprocess_checks"] == []  # plain data: judged in the checker, not the server


@pytest.mark.parametrize(
    ("spec", "files", "error"),
    [
        pytest.param(
            "tests:\n  sql:\n    schema: missing.sql\n    expect: [[1]]\n",
            {},
            "task.yml:5: tests.sql.schema: cannot read missing.sql: No such file or directory",
            id="missing schema file",
        ),
        pytest.param(
            "tests:\n  sql:\n    schema: s.sql\n    expect_file: rows.csv\n",
            {"s.sql": "CREATE TABLE t (a INT);", "rows.csv": "a,b\n1,2\n3\n"},
            "task.yml:6: tests.sql.expect_file: rows.csv:3: 1 value where the header names 2",
            id="ragged CSV",
        ),
        pytest.param(
            "tests:\n  sql:\n    schema: s.sql\n    expect_file: rows.csv\n",
            {"s.sql": "CREATE TABLE t (a INT);", "rows.csv": 'a\n"unclosed\n'},
            "task.yml:6: tests.sql.expect_file: rows.csv:2: invalid CSV: unexpected end of data",
            id="unclosed quote in the CSV",
        ),
        pytest.param(
            "tests:\n  sql:\n    schema: s.sql\n    dialect: postgress\n",
            {"s.sql": "CREATE TABLE t (a INT);"},
            "task.yml:6: tests.sql.dialect: unknown dialect 'postgress'; did you mean postgres?",
            id="unknown dialect",
        ),
        pytest.param(
            "tests:\n  sql:\n    schema: s.sql\n    expect: [[1]]\n",
            {"s.sql": "CREATE TABLE t (a INT;"},
            'task.yml: tests.sql.schema: s.sql: SQLite refused it: near ";": syntax error',
            id="a schema SQLite refuses",
        ),
        pytest.param(
            "tests:\n  sql:\n    schema: s.sql\n    data: d.sql\n    expect: [[1]]\n",
            {"s.sql": "CREATE TABLE t (a INT);", "d.sql": "INSERT INTO nowhere VALUES (1);"},
            "task.yml: tests.sql.data: d.sql: SQLite refused it: no such table: nowhere",
            id="data SQLite refuses",
        ),
        pytest.param(
            "tests:\n  sql:\n    schema: s.sql\n    dialect: postgres\n",
            {"s.sql": "CREATE TABLE t (a INT,\n  b TEXT"},
            "task.yml:5: tests.sql.schema: s.sql:2:8: invalid SQL: Expecting )",
            id="a schema sqlglot can't parse",
        ),
        pytest.param(
            "tests:\n  json_schema: schema.json\n",
            {"schema.json": '{"type": "object",\n "properties": {"a": {"type": "strng"}}}'},
            "task.yml:4: tests.json_schema: schema.json: not a valid JSON Schema: 'strng' is not valid under any "
            "of the given schemas (at $.properties.a.type)",
            id="an invalid JSON Schema",
        ),
        pytest.param(
            "tests:\n  json_schema: schema.json\n",
            {"schema.json": '{"type": "object",\n "required": ["a"]'},
            "task.yml:4: tests.json_schema: schema.json:2:19: invalid JSON: Expecting ',' delimiter",
            id="a JSON Schema that isn't JSON",
        ),
    ],
)
def test_a_mistake_in_the_tests_files_is_one_line_naming_file_and_key_and_exit_2(tmp_path, capsys, spec, files, error):
    target = "c.json" if "json_schema" in spec else "q.sql"
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    path = tmp_path / "task.yml"
    path.write_text(f"task: t\ntarget: {target}\n{spec}")
    code, _, printed = run(path, [fenced("sql", "SELECT 1")], capsys)
    assert code == 2
    assert printed.err == f"autofix: error: {tmp_path}/{error}\n"
    assert not (tmp_path / target).exists()


@pytest.mark.parametrize("name", ["service_config.yml", "orders_report.sql.yml"])
def test_each_example_fails_with_its_first_recorded_reply_and_passes_with_the_second(tmp_path, capsys, name):
    shutil.copytree(EXAMPLES, tmp_path / "examples", ignore=shutil.ignore_patterns("easy", "workflows"))
    spec = tmp_path / "examples" / name
    replay = spec.with_name(name.removesuffix(".yml") + ".replay.yml")
    report = tmp_path / "report.json"
    assert main(["run", str(spec), "--model", f"replay:{replay}", "--report", str(report)]) == 0
    assert [attempt["passed"] for attempt in json.loads(report.read_text())["attempts"]] == [False, True]


def test_an_eval_prompts_a_sql_task_with_its_schema_though_it_writes_elsewhere(tmp_path, monkeypatch):
    """An eval judges in the task's folder but writes the passing query under --out: the prompt's
    schema comes from the spec as it was loaded."""
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    for name in ("orders_report.sql.yml", "orders.schema.sql", "orders.data.sql", "orders_report.expected.csv"):
        shutil.copy(EXAMPLES / name, tasks)
    replies = yaml.safe_load((EXAMPLES / "orders_report.sql.replay.yml").read_text())["replies"]
    wrong, right = (Reply(reply["text"]) for reply in replies)
    prompts: list[str] = []

    def answer(body: dict) -> Reply:
        prompts.append(prompt_text(body))
        return right if "Earlier answers failed the tests" in prompts[-1] else wrong

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    out = tmp_path / "out"
    with ScriptedOpenAI([answer] * 10) as fake:
        args = ["eval", str(tasks), "--model", "m", "--base-url", fake.base_url, "--strategy", "repair"]
        assert main([*args, "--out", str(out)]) == 0
    assert len(prompts) == 2 and all("CREATE TABLE customers" in prompt for prompt in prompts)
    assert (
        "WHERE o.status = 'paid'"
        in (out / "solutions" / "repair" / "orders_report.sql" / "orders_report.sql").read_text()
    )
