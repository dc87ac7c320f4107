"""Where an editable install's folder is in a run's copy (bot/judge/editables.py), and the hooks'
side of it (bot/judge/sandboxed/editables.py): what moves and what never does."""

import json
import sys
from pathlib import Path

from bot.judge import editables
from bot.judge.hooks import EDITABLES


def environment(tmp_path: Path, url: str) -> Path:
    prefix = tmp_path / "venv"
    record = prefix / "lib/python3.11/site-packages/shop-0.1.dist-info/direct_url.json"
    record.parent.mkdir(parents=True)
    record.write_text(json.dumps({"url": url, "dir_info": {"editable": True}}))
    (prefix / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (prefix / "bin").mkdir()
    (prefix / "bin/python").symlink_to(sys.executable)
    return prefix


def test_the_environment_first_on_the_path_and_its_editable_roots(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    prefix = environment(tmp_path, project.as_uri())
    assert editables.environment_of({"PATH": f"{prefix / 'bin'}:/usr/bin"}) == prefix
    assert editables.editable_roots(prefix) == (str(project),)
    assert editables.environment_of({"PATH": "/usr/bin"}) is None  # the system's Python: no pyvenv.cfg


def test_a_non_editable_url_is_no_root(tmp_path):
    prefix = environment(tmp_path, (tmp_path / "project").as_uri())
    record = next(prefix.glob("lib/*/site-packages/*.dist-info/direct_url.json"))
    record.write_text(json.dumps({"url": "file:///x", "dir_info": {}}))
    (prefix / "lib/python3.11/site-packages").touch()  # a reinstall: the folder's mtime moves
    assert editables.editable_roots(prefix) == ()


def test_a_root_inside_the_original_moves_to_the_same_place_in_the_copy(tmp_path):
    (tmp_path / "ws/src").mkdir(parents=True)
    pairs = editables.redirect((str(tmp_path / "ws/src"),), tmp_path / "ws", Path("/copy"))
    assert pairs == [(str(tmp_path / "ws/src"), "/copy/src")]


def test_a_workspace_root_moves_onto_a_checkout_without_git(tmp_path):
    """The Action installs from its workspace and judges a pull request's files in a folder of
    their own, which holds no .git: the workspace's top maps onto the copy's."""
    (tmp_path / "ws/.git").mkdir(parents=True)
    (tmp_path / "checkout").mkdir()
    pairs = editables.redirect((str(tmp_path / "ws"),), tmp_path / "checkout", Path("/copy"))
    assert pairs == [(str(tmp_path / "ws"), "/copy")]


def test_a_root_around_the_original_in_the_same_repository_does_not_move(tmp_path):
    """autofix run on examples/repair of a project installed editable from its top: the copy is
    of the subfolder, and holds no counterpart of the project's top."""
    (tmp_path / "project/.git").mkdir(parents=True)
    (tmp_path / "project/examples/repair").mkdir(parents=True)
    pairs = editables.redirect((str(tmp_path / "project"),), tmp_path / "project/examples/repair", Path("/copy"))
    assert pairs == []


def test_the_hooks_never_move_the_environment_s_own_folders():
    """A .venv inside the project: its site-packages lies in the editable root, and must stay."""
    inside = {"RUN": {"redirect": [[str(Path(sys.prefix).parent), "/copy"]]}}
    exec(EDITABLES, inside)
    assert inside["moved"](sys.prefix + "/lib/python3.11/site-packages") is None
    assert inside["moved"](str(Path(sys.prefix).parent / "src")) == "/copy/src"
    assert inside["moved"]("/elsewhere/src") is None
