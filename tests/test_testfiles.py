"""A spec's target kind (its extension, or `kind:`), the keys each kind takes, and the files its
tests name, read when the spec loads: every mistake one line naming the file and the key."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bot import testfiles
from bot.errors import UserError
from bot.spec import load

ROOT = Path(__file__).resolve().parent.parent


def spec_file(folder: Path, text: str, **files: str) -> Path:
    for name, content in files.items():
        (folder / name.replace("__", ".")).write_text(content)
    path = folder / "task.yml"
    path.write_text(f"task: t\n{text}")
    return path


def error_of(path: Path) -> str:
    with pytest.raises(UserError) as caught:
        load(path)
    assert "\n" not in str(caught.value)
    return str(caught.value).removeprefix(f"{path}")


@pytest.mark.parametrize(
    ("target", "kind", "expected"),
    [
        ("config.json", "", "json"),
        ("config.YAML", "", "yaml"),
        ("ci.yml", "", "yaml"),
        ("report.sql", "", "sql"),
        ("tool.py", "", "python"),
        ("script", "", "python"),
        ("settings.conf", "kind: yaml\n", "yaml"),
    ],
)
def test_the_kind_is_the_extensions_unless_the_spec_says(tmp_path, target, kind, expected):
    spec = load(spec_file(tmp_path, f"target: {target}\n{kind}tests:\n  command: 'true'\n"))
    assert spec.target_kind == expected


@pytest.mark.parametrize(
    ("text", "error"),
    [
        (
            "target: x.py\ntests:\n  json_schema: s.json\n",
            ":4: tests.json_schema: only a JSON or YAML target has one (x.py is python)",
        ),
        (
            "target: x.json\ntests:\n  sql:\n    schema: s.sql\n    expect: [[1]]\n",
            ":4: tests.sql: only a SQL target has them (x.json is json)",
        ),
        (
            "target: x.sql\ntests:\n  code: assert 1\n  command: 'true'\n",
            ":4: tests.code: a SQL target is judged by tests.sql, not Python (x.sql is sql)",
        ),
        (
            "target: x.yaml\nentry: f\ntests:\n  command: 'true'\n",
            ":3: entry: only a Python target defines names (x.yaml is yaml)",
        ),
        (
            "target: x.json\nmode: edit\ntests:\n  command: 'true'\n",
            ":3: mode: a document or a query is written whole, never edited (x.json is json)",
        ),
        (
            "target: x.sql\ntests:\n  sql:\n    schema: s.sql\n",
            ":4: tests.sql: needs the rows the query must return: `expect` or `expect_file`",
        ),
        (
            "target: x.sql\ntests:\n  sql:\n    schema: s.sql\n    expect: [[1]]\n    expect_file: r.csv\n",
            ":4: tests.sql: `expect` and `expect_file` exclude each other",
        ),
        (
            "target: x.sql\ntests:\n  sql:\n    schema: s.sql\n    expect:\n      - [1, a]\n      - [2]\n",
            ":8: tests.sql.expect.1: 1 value, row 0 has 2",
        ),
        (
            "target: x.sql\ntests:\n  sql:\n    schema: ../s.sql\n    expect: [[1]]\n",
            ":5: tests.sql.schema: ../s.sql must be a file inside the work folder",
        ),
        (
            "target: x.sql\ntests:\n  sql:\n    schema: s.sql\n    expect: [[1]]\n    colour: red\n",
            ":7: tests.sql.colour: unknown key",
        ),
    ],
)
def test_each_kind_takes_its_own_keys(tmp_path, text, error):
    (tmp_path / "x.json").write_text("{}")  # an existing target, for `mode: edit`
    assert error_of(spec_file(tmp_path, text, s__sql="CREATE TABLE t (a INT);", s__json="{}")) == error


def test_a_tests_file_must_be_utf8_text_in_the_work_folder(tmp_path):
    (tmp_path / "latin1.sql").write_bytes("CREATE TABLE caf\xe9 (a INT);".encode("latin-1"))
    path = spec_file(tmp_path, "target: x.sql\ntests:\n  sql:\n    schema: latin1.sql\n    expect: [[1]]\n")
    assert error_of(path) == ":5: tests.sql.schema: latin1.sql is not UTF-8 text"
    outside = tmp_path.parent / f"{tmp_path.name}-outside.sql"
    outside.write_text("CREATE TABLE t (a INT);")
    (tmp_path / "link.sql").symlink_to(outside)
    path = spec_file(tmp_path, "target: x.sql\ntests:\n  sql:\n    schema: link.sql\n    expect: [[1]]\n")
    assert error_of(path) == ":5: tests.sql.schema: link.sql must be a file inside the work folder"


def test_a_json_schema_must_name_a_draft_jsonschema_knows(tmp_path):
    path = spec_file(
        tmp_path, "target: x.json\ntests:\n  json_schema: s.json\n", s__json='{"$schema": "https://example.com/mine"}'
    )
    assert error_of(path) == (
        ":4: tests.json_schema: s.json: $schema 'https://example.com/mine' is no JSON Schema draft jsonschema knows"
    )


def test_a_table_sqlglot_reads_only_as_a_command_is_the_specs_mistake_for_another_dialect(tmp_path):
    ddl = "CREATE TABLE t (a INT) WITH SYSTEM VERSIONING SOMETHING ODD;"
    path = spec_file(tmp_path, "target: x.sql\ntests:\n  sql:\n    schema: s.sql\n    dialect: mysql\n", s__sql=ddl)
    assert error_of(path).startswith(":5: tests.sql.schema: s.sql: sqlglot can't read this statement as mysql: CREATE")


def test_declared_tables_take_columns_from_definitions_and_selects():
    ddl = """
        CREATE TABLE users (id INT PRIMARY KEY, name TEXT, CONSTRAINT named UNIQUE (name));
        CREATE VIEW names AS SELECT name AS who, id FROM users;
        CREATE VIEW everything AS SELECT * FROM users;
        CREATE INDEX by_name ON users (name);
    """
    assert testfiles.declared_tables(ddl, "s.sql", "postgres", "task.yml:5: tests.sql.schema") == {
        "users": ["id", "name"],
        "names": ["who", "id"],
        "everything": ["id", "name"],
    }


@pytest.mark.parametrize(
    ("text", "value"),
    [("", None), ("7", 7), ("-7", -7), ("2.50", 2.5), ("1e3", 1000.0), ("007x", "007x"), ("nan", "nan"), (" 1", " 1")],
)
def test_a_csv_cell_is_read_as_sqlite_would_hand_it_back(text, value):
    assert testfiles.csv_value(text) == value and type(testfiles.csv_value(text)) is type(value)


def test_the_command_line_starts_without_jsonschema_or_sqlglot():
    probe = (
        "import sys, bot.cli, bot.spec, bot.judge.validate; print(sorted({'jsonschema', 'sqlglot'} & set(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout == "[]\n"
