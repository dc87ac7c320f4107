"""A JSON or YAML target's judge: the document parses, and every violation of its JSON Schema is
told at its location; the draft is the schema's own `$schema`, else 2020-12."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot import spec as specs
from bot.errors import UserError
from bot.judge.documents import DocumentCheck


def document_check(folder: Path, schema: dict, target: str = "doc.json") -> DocumentCheck:
    (folder / "schema.json").write_text(json.dumps(schema))
    (folder / "task.yml").write_text(f"task: t\ntarget: {target}\ntests:\n  json_schema: schema.json\n")
    return DocumentCheck(specs.load(folder / "task.yml"))


def told(check: DocumentCheck, text: str) -> list[str]:
    return [f"{name}: {message}" for name, message, _ in check.check(text, Path()).problems]


def test_every_violation_is_told_at_its_location(tmp_path):
    schema = {
        "type": "object",
        "properties": {
            "servers": {"type": "array", "items": {"required": ["host"], "properties": {"port": {"type": "integer"}}}},
            "mode": {"anyOf": [{"type": "integer"}, {"type": "string", "maxLength": 3}]},
        },
        "required": ["name"],
    }
    check = document_check(tmp_path, schema)
    document = {"servers": [{"host": "a", "port": "abc"}, {"port": 1}], "mode": "long"}
    assert told(check, json.dumps(document)) == [
        "$.servers[0].port: 'abc' is not of type 'integer'",
        "$.servers[1]: 'host' is a required property",
        "$.mode: 'long' is not valid under any of the given schemas; the closest: $.mode: 'long' is too long",
        "$: 'name' is a required property",
    ]
    assert told(check, json.dumps({"name": "n", "servers": [{"host": "a", "port": 1}], "mode": 3})) == []


def test_the_draft_is_the_schemas_own_and_formats_are_checked(tmp_path):
    # `dependencies` is a keyword of draft 7, gone in 2020-12 (which ignores it).
    draft7 = {"$schema": "http://json-schema.org/draft-07/schema#", "dependencies": {"a": ["b"]}}
    assert told(document_check(tmp_path, draft7), '{"a": 1}') == ["$: 'b' is a dependency of 'a'"]
    assert told(document_check(tmp_path, {"dependencies": {"a": ["b"]}}), '{"a": 1}') == []
    address = {"properties": {"address": {"type": "string", "format": "ipv4"}}}
    assert told(document_check(tmp_path, address), '{"address": "10.0.0.256"}') == [
        "$.address: '10.0.0.256' is not a 'ipv4'"
    ]


def test_a_syntax_error_is_told_with_line_and_column_and_nothing_else_runs(tmp_path):
    check = document_check(tmp_path, {"type": "object"})
    checked = check.check('{"a": 1,\n "b": }', Path())
    assert [f"{name}: {message}" for name, message, _ in checked.problems] == [
        "doc.json:2:7: invalid JSON: Expecting value"
    ]
    assert checked.parsed is False  # the inline checks would have no `data`
    assert told(check, '{"ratio": NaN}') == ["doc.json: invalid JSON: NaN is no JSON number"]  # Python's json reads it
    yaml_check = document_check(tmp_path, {"type": "object"}, target="doc.yaml")
    assert told(yaml_check, "a: 1\nb: [2\n") == ["doc.yaml:2:4: invalid YAML: this '[' is never closed"]
    assert told(yaml_check, "a: !!python/object:os.system {}\n") == [
        "doc.yaml:1:4: invalid YAML: could not determine a constructor for the tag "
        "'tag:yaml.org,2002:python/object:os.system'"
    ]


def test_a_yaml_document_whose_aliases_expand_past_the_limit_is_refused_unwalked(tmp_path):
    check = document_check(tmp_path, {"type": "object"}, target="doc.yaml")
    levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    levels += [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 10)}]" for n in range(1, 9)]  # 10**9 values
    assert told(check, "\n".join(levels)) == [
        "doc.yaml: the document holds more than 100,000 values once its aliases are expanded"
    ]


def test_a_reference_the_schema_cant_resolve_is_the_specs_mistake(tmp_path):
    check = document_check(tmp_path, {"$ref": "https://example.com/elsewhere.json"})
    with pytest.raises(UserError) as caught:
        check.check("{}", Path())
    assert str(caught.value) == (
        f"{tmp_path}/task.yml: tests.json_schema: schema.json: cannot resolve "
        "Unresolvable: https://example.com/elsewhere.json"
    )


@pytest.mark.parametrize(
    ("target", "text", "reason"),
    [
        pytest.param(
            "doc.yaml",
            "when: 2024-13-45\n",
            "doc.yaml:1:7: invalid YAML: '2024-13-45' is not a valid timestamp: month must be in 1..12",
            id="a date YAML's timestamp constructor refuses",
        ),
        pytest.param(
            "doc.yaml",
            f"n: {'1' * 5000}\n",
            "doc.yaml:1:4: invalid YAML: '1111111111111111111111111111111111111111'... (5,000 characters) is not "
            "a valid int: Exceeds the limit (4300 digits) for integer string conversion: value has 5000 digits",
            id="a YAML int past Python's digits",
        ),
        pytest.param(
            "doc.json",
            '{"n": ' + "1" * 5000 + "}",
            "doc.json: invalid JSON: Exceeds the limit (4300 digits) for integer string conversion: "
            "value has 5000 digits",
            id="a JSON int past Python's digits",
        ),
        pytest.param(
            "doc.yaml", "[" * 1500 + "]" * 1500, "doc.yaml: invalid YAML: nested too deeply", id="YAML past the stack"
        ),
        pytest.param(
            "doc.json",
            "[" * 100_000 + "]" * 100_000,
            "doc.json: invalid JSON: nested too deeply",
            id="JSON past the stack",
        ),
        pytest.param(
            "doc.json",
            "[" * 500 + "]" * 500,
            "doc.json: the document nests more than 100 levels deep",
            id="JSON the parser reads and the validator's recursion would not",
        ),
        pytest.param(
            "doc.yaml",
            "a: &a [*a]\n",
            "doc.yaml: the document nests more than 100 levels deep",
            id="YAML holding itself",
        ),
        pytest.param(
            "doc.yaml",
            "a: 1\nb: \0\n",
            "doc.yaml: invalid YAML: the document holds a NUL character (line 2), which no source text holds",
            id="a NUL",
        ),
        pytest.param(
            "doc.json",
            '{"a":\n"\ud800"}',
            "doc.json: invalid JSON: the document holds a lone surrogate (line 2), which is not a Unicode character",
            id="a lone surrogate",
        ),
        pytest.param(
            "doc.json",
            " " * 1_000_000 + "1",
            "doc.json: invalid JSON: the document is 1,000,001 characters long; at most 1,000,000 are read",
            id="past the size",
        ),
        pytest.param(
            "doc.yaml",
            "a: 1\n" + " " * 199_996,
            "doc.yaml: invalid YAML: the document is 200,001 characters long; at most 200,000 are read",
            id="past YAML's size: about 3 s of CPU in PyYAML",
        ),
    ],
)
def test_a_document_no_parser_could_read_is_a_failed_attempt_with_its_reason(tmp_path, target, text, reason):
    check = document_check(tmp_path, {"type": ["object", "array"]}, target=target)
    checked = check.check(text, Path())
    assert [f"{name}: {message}" for name, message, _ in checked.problems] == [reason]
    assert checked.parsed is False


def test_a_validation_the_schema_makes_quadratic_is_stopped_at_the_deadline(tmp_path):
    """uniqueItems over objects compares every pair: 10,000 of them take minutes."""
    (tmp_path / "schema.json").write_text(json.dumps({"type": "array", "uniqueItems": True}))
    (tmp_path / "task.yml").write_text("task: t\ntarget: doc.json\ntests:\n  json_schema: schema.json\n")
    check = DocumentCheck(specs.load(tmp_path / "task.yml"), deadline=2)
    checked = check.check(json.dumps([{"a": n} for n in range(10_000)]), Path())
    assert checked.problems == [("doc.json", "validating it against its schema: stopped after 2 s of CPU", "")]


def test_past_a_hundred_violations_the_rest_are_counted_not_told(tmp_path):
    check = document_check(tmp_path, {"type": "array", "items": {"type": "string"}})
    told_now = told(check, json.dumps(list(range(150))))
    assert told_now[:2] == ["$[0]: 0 is not of type 'string'", "$[1]: 1 is not of type 'string'"]
    assert told_now[100:] == ["doc.json: more than 100 violations: the first are told"]
    assert len(told_now) == 101
