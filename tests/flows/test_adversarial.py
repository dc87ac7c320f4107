"""Hostile candidates, each delivered through the scripted model server, on both sandbox tiers.

Every attack must end with `passed: false` and a reason naming what happened — or, for
harmless-but-nosy correct code, pass with nothing leaked.
"""

import json
import socket
import subprocess
import threading
import time
import uuid
from pathlib import Path

import pytest
from conftest import EXAMPLES, RIGHT
from fake_openai import ScriptedOpenAI
from suite_env import PYTHON as SUITE_PYTHON

from bot.cli import main

TIERS = ["bwrap", "landlock", "process"]
SECRET = "sk-planted-" + uuid.uuid4().hex
TOKEN = "ghp_planted" + uuid.uuid4().hex
TEST_FILE = """\
from unique import unique_items


def test_order():
    assert unique_items([3, 1, 3, 2, 1]) == [3, 1, 2]


def test_empty():
    assert unique_items([]) == []
"""
GOOD_BODY = "def unique_items(items):\n    return list(dict.fromkeys(items))\n"


def candidate(prelude: str, body: str = GOOD_BODY) -> str:
    return f"```python\n{prelude.strip()}\n\n\n{body}```"


@pytest.fixture(autouse=True)
def planted_secrets(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    monkeypatch.setenv("ACTIONS_RUNTIME_TOKEN", TOKEN + "-runtime")


@pytest.fixture
def inline_task(tmp_path) -> Path:
    folder = tmp_path / "inline"
    folder.mkdir()
    spec = folder / "task.yml"
    spec.write_text((EXAMPLES / "unique_items.yml").read_text().replace("timeout: 20", "timeout: 5"))
    return spec


@pytest.fixture
def pytest_task(tmp_path) -> Path:
    """A repository with a pytest suite, checked out the way actions/checkout leaves it: with a
    token in .git/config."""
    folder = tmp_path / "repo"
    (folder / "tests").mkdir(parents=True)
    (folder / "tests" / "test_unique.py").write_text(TEST_FILE)
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    subprocess.run(
        ["git", "-C", str(folder), "config", "http.https://github.com/.extraheader", f"AUTHORIZATION: basic {TOKEN}"],
        check=True,
    )
    spec = folder / "task.yml"
    spec.write_text(
        "task: Write unique_items(items) keeping first-seen order.\n"
        "target: unique.py\n"
        "entry: unique_items\n"
        f"tests:\n  command: {SUITE_PYTHON} -m pytest -q tests\n"
        "timeout: 20\n"
    )
    return spec


def solve(spec: Path, replies: list[str], tier: str, capsys) -> tuple[int, dict, list[str], str]:
    report = spec.parent.parent / f"report-{uuid.uuid4().hex}.json"
    with ScriptedOpenAI(replies) as fake:
        code = main(
            [
                "run",
                str(spec),
                "--model",
                "m",
                "--base-url",
                fake.base_url,
                "--sandbox",
                tier,
                "--max-attempts",
                str(len(replies)),
                "--report",
                str(report),
            ]
        )
    out = capsys.readouterr()
    text = report.read_text()
    everything = "\n".join([out.out, out.err, text, *fake.prompts()])
    for secret in (SECRET, TOKEN):
        assert secret not in everything
    return code, json.loads(text), fake.prompts(), out.out


def first_feedback(report: dict) -> str:
    return report["attempts"][0]["feedback"]


@pytest.mark.parametrize("tier", TIERS)
def test_environment_holds_no_secrets(inline_task, tier, capsys):
    nosy = candidate(
        "import os\nprint(sorted(dict(os.environ).items()))", "def unique_items(items):\n    return list(set(items))\n"
    )
    code, report, prompts, _ = solve(inline_task, [nosy, RIGHT], tier, capsys)
    assert code == 0
    assert "('PYTHONHASHSEED', '0')" in prompts[1]  # the dump reached the model: the channel works
    for name in ("OPENAI_API_KEY", "GITHUB_TOKEN", "ACTIONS_RUNTIME_TOKEN"):
        assert name not in prompts[1]


@pytest.mark.parametrize("tier", TIERS)
def test_git_credentials_are_not_in_the_scratch_copy(pytest_task, tier, capsys):
    original = pytest_task.parent / ".git" / "config"
    # pytest hides what an import prints, so the candidate shows what it found in an exception.
    nosy = candidate(
        f"found = []\nfor path in ('.git/config', {str(original)!r}):\n"
        "    try:\n        found.append(path + ' ' + open(path).read())\n"
        "    except OSError as exc:\n        found.append(path + ' unreadable: ' + type(exc).__name__)\n"
        "raise RuntimeError(' | '.join(found))"
    )
    code, report, prompts, _ = solve(pytest_task, [nosy], tier, capsys)
    assert code == 1
    assert ".git/config unreadable: FileNotFoundError" in first_feedback(report)
    hidden = "FileNotFoundError" if tier == "bwrap" else "PermissionError"  # not mounted / not its uid's
    assert f"{original} unreadable: {hidden}" in first_feedback(report)


@pytest.fixture
def listener():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.2)
    received: list[bytes] = []
    stop = threading.Event()

    def accept():
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            with conn:
                received.append(conn.recv(100))

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1], received
    stop.set()
    thread.join()
    server.close()


@pytest.mark.parametrize("tier", TIERS)
def test_network(inline_task, tier, listener, capsys):
    port, received = listener
    caller = candidate(
        "import socket\ntry:\n"
        f"    socket.create_connection(('127.0.0.1', {port}), timeout=2).sendall(b'pwned')\n"
        "    print('NETWORK: connected')\n"
        "except OSError as exc:\n    print('NETWORK: blocked', type(exc).__name__)\n"
        "raise RuntimeError('show the output')"
    )
    code, report, _, _ = solve(inline_task, [caller], tier, capsys)
    assert code == 1
    if tier in ("bwrap", "landlock"):
        assert "NETWORK: blocked" in first_feedback(report)
        assert received == []
    else:  # the process tier can't isolate the network, and says so wherever the tier is named
        assert "NETWORK: connected" in first_feedback(report)
        assert report["sandbox"] == "process (a dedicated uid per run, rlimits; network NOT isolated)"


@pytest.mark.parametrize("tier", TIERS)
def test_writing_outside_the_scratch_copy_fails(inline_task, tier, tmp_path, capsys):
    outside = tmp_path / "outside"
    outside.mkdir()
    escapee = candidate(
        f"try:\n    open({str(outside / 'pwned.txt')!r}, 'w').write('x')\n    print('WRITE: done')\n"
        "except OSError as exc:\n    print('WRITE: refused', type(exc).__name__)\n"
        "raise RuntimeError('show the output')"
    )
    code, report, _, _ = solve(inline_task, [escapee], tier, capsys)
    assert code == 1
    assert "WRITE: refused" in first_feedback(report)
    assert not (outside / "pwned.txt").exists()


@pytest.mark.parametrize("tier", TIERS)
def test_rewriting_the_test_file_fails(pytest_task, tier, capsys):
    cheat = candidate(
        "open('tests/test_unique.py', 'w').write('def test_order():\\n    pass\\n')",
        "def unique_items(items):\n    return list(set(items))\n",
    )
    code, report, _, _ = solve(pytest_task, [cheat], tier, capsys)
    assert code == 1
    # The tree is read-only to the run: the rewrite is refused where it happens, at import.
    assert report["attempts"][0]["failing_tests"] == ["tests.test_unique"]
    assert refused_write("tests/test_unique.py", first_feedback(report))
    assert (pytest_task.parent / "tests" / "test_unique.py").read_text() == TEST_FILE


def refused_write(path: str, feedback: str) -> bool:
    """The feedback shows the tree refusing a write of `path`: bwrap's read-only bind says so, and
    Landlock and ownership deny it."""
    return f"Read-only file system: '{path}'" in feedback or f"Permission denied: '{path}'" in feedback


@pytest.mark.parametrize("tier", TIERS)
def test_reaching_into_the_test_runner_is_refused_before_it_runs(pytest_task, inline_task, tier, capsys):
    """The static guard names what it found; test_verdict.py shows each runtime guard without it."""
    plugin = "import pytest\\n@pytest.hookimpl(tryfirst=True)\\ndef pytest_runtest_call(item):\\n    pass\\n"
    attacks = {
        "conftest": (candidate(f"open('conftest.py', 'w').write({plugin!r})"), "(test-runner)"),
        "skip": (
            candidate("import pytest\npytest.skip('not today', allow_module_level=True)"),
            "line 1 (test-runner): `import pytest`",
        ),
        "exit": (candidate("import os\nos._exit(0)"), "line 2 (hard-exit): `os._exit(0)`"),
    }
    for task in (pytest_task, inline_task):
        for reply, found in attacks.values():
            code, report, _, _ = solve(task, [reply], tier, capsys)
            assert code == 1
            feedback = first_feedback(report)
            assert feedback.startswith(
                "Your code was refused: it reaches into the machinery that runs and judges the tests"
            )
            assert found in feedback
            assert report["attempts"][0]["failing_tests"][0].startswith("(guard) line ")


@pytest.mark.parametrize("tier", TIERS)
def test_an_always_equal_object_fails(inline_task, tier, capsys):
    liar = candidate(
        "class Anything(list):\n    def __eq__(self, other):\n        return True\n    __hash__ = None",
        "def unique_items(items):\n    return Anything()\n",
    )
    code, report, _, _ = solve(inline_task, [liar], tier, capsys)
    assert code == 1
    assert report["attempts"][0]["failing_tests"] == ["order", "empty", "duplicates", "strings"]
    assert "order: the result is a Anything object; checks compare plain values" in first_feedback(report)


@pytest.mark.parametrize("tier", TIERS)
def test_fork_bomb_is_contained(inline_task, tier, capsys):
    inline_task.write_text(inline_task.read_text().replace("timeout: 5", "timeout: 3"))
    bomb = candidate("import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass")
    code, report, _, _ = solve(inline_task, [bomb], tier, capsys)
    assert code == 1
    assert report["attempts"][0]["failing_tests"] == ["checks"]
    assert "checks: timed out after 3 s" in first_feedback(report)


@pytest.mark.parametrize("tier", TIERS)
def test_memory_bomb_fails(inline_task, tier, capsys):
    inline_task.write_text(inline_task.read_text() + "limits:\n  memory_mb: 512\n")
    bomb = candidate("hog = []\nwhile True:\n    hog.append(bytearray(64 * 2**20))")
    code, report, _, _ = solve(inline_task, [bomb], tier, capsys)
    assert code == 1
    assert "MemoryError" in first_feedback(report)


@pytest.mark.parametrize("tier", TIERS)
def test_infinite_loop_is_killed(inline_task, tier, capsys):
    inline_task.write_text(inline_task.read_text().replace("timeout: 5", "timeout: 1"))
    code, report, _, _ = solve(inline_task, [candidate("while True:\n    pass")], tier, capsys)
    assert code == 1
    assert first_feedback(report).startswith("Failing checks:\n- checks: timed out after 1 s")


@pytest.mark.parametrize("tier", TIERS)
def test_200_mb_of_output_is_cut_off(inline_task, tier, capsys):
    flood = candidate("import sys\nchunk = 'y' * 2**20\nfor _ in range(200):\n    sys.stdout.write(chunk)")
    code, report, _, _ = solve(inline_task, [flood], tier, capsys)
    assert code == 1
    assert "checks: output limit of 16 MiB exceeded" in first_feedback(report)
    assert len(first_feedback(report)) <= 6000


def survivors(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.mark.parametrize("tier", TIERS)
def test_a_detached_background_process_does_not_survive(inline_task, tier, capsys):
    marker = f"autofix-survivor-{uuid.uuid4().hex}"
    daemon = candidate(
        "import subprocess, sys\n"
        f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)', {marker!r}], start_new_session=True,"
        " stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)"
    )
    code, report, _, _ = solve(inline_task, [daemon], tier, capsys)
    assert code == 0  # correct code that leaves a process behind passes; the process does not stay
    deadline = time.monotonic() + 10
    while survivors(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert survivors(marker) == []


@pytest.mark.parametrize("tier", TIERS)
def test_a_planted_symlink_target_never_writes_the_protected_file(pytest_task, tier, capsys):
    folder = pytest_task.parent
    (folder / "unique.py").symlink_to("tests/test_unique.py")
    code, report, _, _ = solve(pytest_task, [RIGHT], tier, capsys)
    assert code == 0
    assert (folder / "tests" / "test_unique.py").read_text() == TEST_FILE
    assert not (folder / "unique.py").is_symlink()
    assert (folder / "unique.py").read_text() == GOOD_BODY


@pytest.mark.parametrize("tier", TIERS)
def test_swapping_a_test_for_a_symlink_fails(pytest_task, tier, capsys):
    swap = candidate(
        "import os\nos.replace('tests/test_unique.py', 'tests/old.txt')\n"
        "open('empty_test.py', 'w').write('')\nos.symlink('../empty_test.py', 'tests/test_unique.py')",
        "def unique_items(items):\n    return list(set(items))\n",
    )
    code, report, _, _ = solve(pytest_task, [swap], tier, capsys)
    assert code == 1
    assert refused_write("tests/test_unique.py", first_feedback(report))
    assert (pytest_task.parent / "tests" / "test_unique.py").read_text() == TEST_FILE


@pytest.mark.parametrize("tier", TIERS)
def test_hostile_shapes_in_the_scratch_copy_neither_hang_nor_crash_the_judgement(pytest_task, tier, capsys):
    """What the candidate leaves behind is read after the sandbox returned, where no timeout
    applies: FIFOs named like tests, 1,500 nested folders, paths beyond PATH_MAX, names that aren't
    UTF-8, in the one folder the run may write (tests.exempt). Each attempt fails with a reason,
    quickly, and the next run of the machine is fine."""
    spec = pytest_task.read_text()
    pytest_task.write_text(spec.replace(" -m pytest -q tests\n", " -m pytest -q tests\n  exempt: [tests/out]\n"))
    shapes = candidate(
        "import os\n"
        "os.chdir('tests/out')\n"
        "os.mkfifo('test_fifo.py')\n"
        "os.mkfifo('report.xml')\n"
        "fd = os.open('.', os.O_RDONLY)\n"
        "for _ in range(1500):\n"
        "    os.mkdir('d', dir_fd=fd)\n"
        "    fd = os.open('d', os.O_RDONLY, dir_fd=fd)\n"
        "fd = os.open('.', os.O_RDONLY)\n"
        "for _ in range(20):\n"
        "    os.mkdir('n' * 250, dir_fd=fd)\n"
        "    fd = os.open('n' * 250, os.O_RDONLY, dir_fd=fd)\n"
        "open(b'test_\\xff.py', 'w').close()\n"
        "os.chdir('../..')",
        "def unique_items(items):\n    return list(set(items))\n",
    )
    started = time.monotonic()
    code, report, _, _ = solve(pytest_task, [shapes, RIGHT], tier, capsys)
    assert time.monotonic() - started < 60
    assert code == 0  # attempt 1 failed, attempt 2 passed: nothing was left to trip the next run
    assert report["attempts"][0]["failing_tests"] == ["tests.test_unique::test_order"]
    assert report["attempts"][1]["passed"]
    assert not (pytest_task.parent / "tests" / "out").exists()


@pytest.mark.parametrize("tier", TIERS)
def test_secrets_by_shape_never_reach_the_model_or_the_report(inline_task, tier, capsys):
    """Values autofix doesn't know are masked by their shape: a token the tests print goes to
    the next prompt as ***."""
    shaped = "ghp_" + "Z9" * 18
    leaky = candidate(f"raise RuntimeError('found ' + {shaped[:10]!r} + {shaped[10:]!r})")
    code, report, prompts, out = solve(inline_task, [leaky, RIGHT], tier, capsys)
    assert code == 0
    assert "RuntimeError: found ***" in prompts[1]
    assert shaped not in "\n".join([*prompts, json.dumps(report), out])
