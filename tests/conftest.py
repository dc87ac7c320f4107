import fcntl
import shutil
import subprocess
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


JS_RUNNERS = Path(__file__).resolve().parent.parent / "out" / "js" / "runners"


@pytest.fixture(scope="session")
def node_modules() -> Path:
    """out/js/runners/node_modules: Jest, Vitest, ts-jest and TypeScript from the npm registry,
    installed by `make js-deps` when they aren't yet (under a lock: pytest-xdist's workers may all
    ask at once)."""
    JS_RUNNERS.parent.mkdir(parents=True, exist_ok=True)
    with open(JS_RUNNERS.parent / ".js-deps.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        made = subprocess.run(
            ["make", "js-deps"], cwd=JS_RUNNERS.parent.parent.parent, capture_output=True, text=True, timeout=600
        )
    assert made.returncode == 0, made.stdout + made.stderr
    return JS_RUNNERS / "node_modules"


@pytest.fixture
def no_js_guard(monkeypatch):
    """The JavaScript static guard left out (as `screen=None` leaves Python's), so that a forger it
    would refuse reaches the layer a test is about: the twins, the canaries, the expected tests."""
    from bot.judge.js import guard as js_guard

    monkeypatch.setattr(js_guard, "findings", lambda code, original=None, path="": [])


@pytest.fixture
def no_go_guard(monkeypatch):
    """Go's static guard left out, as `no_js_guard` leaves JavaScript's: a forger reaches the runner."""
    from bot.judge.go import guard as go_guard

    monkeypatch.setattr(go_guard, "findings", lambda code, original=None, path="": [])
