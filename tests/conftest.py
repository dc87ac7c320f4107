import shutil
from pathlib import Path

import pytest
from action_world import World
from fake_github import FakeGitHub

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

WRONG = "```python\ndef unique_items(items):\n    return list(set(items))\n```"
RIGHT = "```python\ndef unique_items(items):\n    return list(dict.fromkeys(items))\n```"


@pytest.fixture
def task(tmp_path) -> Path:
    """The quick start's spec in a folder of its own; its target is `unique.py` there."""
    spec = tmp_path / "unique_items.yml"
    shutil.copy(EXAMPLES / "unique_items.yml", spec)
    return spec


@pytest.fixture(autouse=True)
def no_real_credentials(monkeypatch):
    """Tests never see the developer's real keys or endpoints."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "AUTOFIX_MODEL", "GITHUB_TOKEN"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def github():
    with FakeGitHub() as fake:
        yield fake
        assert fake.errors == []


@pytest.fixture
def world(tmp_path, monkeypatch, github):
    return World(tmp_path, monkeypatch, github)
