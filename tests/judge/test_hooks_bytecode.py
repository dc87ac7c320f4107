"""The hooks' code reaches a run's Python as bytecode autofix compiled once (bot/judge/hooks.py's
`write`): the module a run imports is its header and a loader of the body beside it, which the
import system takes from the cached bytecode when the stamp and the version match, and compiles
from the file otherwise."""

import subprocess
import sys

from bot.judge import hooks

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
