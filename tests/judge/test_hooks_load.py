"""What a run's hooks cost at load. Their code reaches the run's Python as bytecode autofix
compiled once (bot/judge/hooks.py's `write`): the module a run imports is its header and a loader
of the body beside it, which the import system takes from the cached bytecode when the stamp and
the version match, and compiles from the file otherwise. The plugin freezes what is alive once it
has loaded, so gc's passes during the tests leave pytest's objects out."""

import subprocess
import sys
from pathlib import Path

from suite_env import PYTHON as SUITE_PYTHON

from bot.judge import hooks
from bot.judge.validate import python_paths
from bot.judge.verdict import Plugins, run_tests
from bot.sandbox.tiers import Limits, open_sandbox

PROBE = "import sys; sys.path.insert(0, sys.argv[1]); import mod; print(mod.X, mod.where.__code__.co_filename)"


def imported(folder):
    done = subprocess.run([sys.executable, "-c", PROBE, str(folder)], capture_output=True, text=True, check=True)
    return done.stdout.split()


def test_the_body_comes_from_the_bytecode_autofix_compiled(tmp_path, monkeypatch):
    # The bytecode says X is RUN + 2 where the file says RUN + 1: whichever the run's Python read
    # shows in X. The stamp checks the file's time and size, not its text.
    monkeypatch.setattr(
        hooks, "bytecode", lambda text: hooks.marshal.dumps(compile(text.replace("+ 1", "+ 2"), "x", "exec"))
    )
    hooks.write(tmp_path, "mod", "mod-body", "RUN = 1", "X = RUN + 1\n\n\ndef where():\n    pass\n")
    assert (tmp_path / "__pycache__" / f"mod-body.{sys.implementation.cache_tag}.pyc").is_file()
    # the body's code is named after its file, as a compiled file's is: tracebacks point there
    assert imported(tmp_path) == ["3", str(tmp_path / "mod-body.py")]


def test_without_matching_bytecode_the_body_is_compiled_from_its_file(tmp_path):
    hooks.write(tmp_path, "mod", "mod-body", "RUN = 1", "X = RUN + 1\n\n\ndef where():\n    pass\n")
    (tmp_path / "__pycache__" / f"mod-body.{sys.implementation.cache_tag}.pyc").unlink()  # another version's view
    assert imported(tmp_path) == ["2", str(tmp_path / "mod-body.py")]


GC_TEST = """\
import gc
import weakref


class Node:
    pass


def test_pytest_s_objects_are_frozen_and_the_test_s_own_are_collected():
    assert gc.get_freeze_count() > 10000  # the interpreter's, pytest's and the hooks' objects
    node = Node()
    node.self = node  # a cycle: only gc frees it
    gone = weakref.ref(node)
    del node
    gc.collect()
    assert gone() is None
"""


def test_the_plugin_freezes_what_lives_at_load_and_gc_still_collects_the_tests_objects(tmp_path: Path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_gc.py").write_text(GC_TEST)
    sandbox = open_sandbox("bwrap", readable=python_paths())
    command = f"{SUITE_PYTHON} -m pytest -q tests"
    run = run_tests(sandbox, command, tmp_path, Limits(wall_seconds=30), plugins=Plugins())
    outcomes = {case.test_id: case.outcome for case in run.cases or []}
    assert outcomes == {"tests.test_gc::test_pytest_s_objects_are_frozen_and_the_test_s_own_are_collected": "passed"}
