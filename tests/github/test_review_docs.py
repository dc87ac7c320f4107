"""The Action page's Triggers table has a row for every event autofix answers (dispatch.HANDLERS,
`check_run` too), and the example that answers reviews asks for the two permissions a round needs:
read from the page and the YAML, never from a copy here."""

import re
from pathlib import Path

import yaml

from bot.github.dispatch import HANDLERS

ROOT = Path(__file__).resolve().parents[2]
ACTION = (ROOT / "docs" / "action.md").read_text(encoding="utf-8")


def test_every_event_autofix_answers_has_a_row_in_the_triggers_table():
    table = re.search(r"^## Triggers\n(.*?)(?=^## )", ACTION, re.M | re.S)
    assert table, "docs/action.md has no Triggers section"
    rows = re.findall(r"^\| `(\w+)`", table.group(1), re.M)
    assert sorted(rows) == sorted(HANDLERS)


def test_the_review_example_asks_for_the_commit_and_the_replies():
    data = yaml.safe_load((ROOT / "examples" / "workflows" / "autofix-issues.yml").read_text(encoding="utf-8"))
    on = data.get(True, data.get("on"))  # PyYAML reads the key `on` as True (YAML 1.1)
    assert on["pull_request_review"] == {"types": ["submitted"]}
    assert on["pull_request_review_comment"] == {"types": ["created"]}
    assert {"contents": "write", "pull-requests": "write"}.items() <= data["permissions"].items()
