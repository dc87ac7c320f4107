"""find(1) names where a run changed a scratch copy (bot/judge/changes.py): every entry whose
ctime passed the latest one remembered, the start folders split across the finds by size."""

import os
import time
from pathlib import Path

from bot.judge.changes import Finder, split
from bot.judge.scratch import key_of

DIR = (0o040755,)
FILE = (0o100644,)


def remembered(root: Path) -> tuple[dict[str, dict[str, tuple]], int]:
    """The folders below root, name -> lstat key, as a Scratch remembers them, and the latest ctime."""
    entries: dict[str, dict[str, tuple]] = {}
    for folder, folders, files in os.walk(root):
        rel = os.path.relpath(folder, root)
        rel = "" if rel == "." else rel
        entries[rel] = {name: key_of(os.lstat(os.path.join(folder, name))) for name in folders + files}
    latest = max(key[6] for names in entries.values() for key in names.values())
    return entries, latest


def past(latest: int, clock: Path) -> None:
    """Return once the file system's clock is past `latest` (ns), as Scratch waits before a run."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        os.utime(clock)
        if os.stat(clock).st_ctime_ns > latest:
            return
    raise AssertionError("the file system's clock stood still")


def narrowing(parts: int = 2) -> Finder:
    """A Finder that starts find on any tree, however small, with `parts` finds at once."""
    finder = Finder()
    finder.small = 0
    finder.parts = parts
    return finder


def copy_of(tmp_path: Path) -> tuple[Path, dict[str, dict[str, tuple]], int, Path]:
    """A shaped work folder, what a Scratch would remember of it, and a mark file for find."""
    work = shaped(tmp_path / "work")
    entries, latest = remembered(work)
    mark = tmp_path / "mark"
    mark.touch()
    return work, entries, latest, mark


def shaped(root: Path) -> Path:
    for rel in ["a/one.txt", "a/two.txt", "b/c/deep.txt", "b/c/same.txt", "b/d/gone.txt", "b/d/kept.txt", "top.txt"]:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(rel)
    return root


def test_find_names_every_change_and_nothing_else(tmp_path):
    work, entries, latest, mark = copy_of(tmp_path)
    past(latest, mark)
    same = work / "b/c/same.txt"
    before = same.stat()
    same.write_text("B/C/SAME.TXT")  # the same size, and its mtime given back
    os.utime(same, ns=(before.st_atime_ns, before.st_mtime_ns))
    (work / "b/d/gone.txt").unlink()
    os.chmod(work / "a/two.txt", 0o600)
    finder = narrowing()
    found = finder.where(work, entries, latest, mark)
    assert found is not None
    examine, route = found
    assert examine == {"", "b", "b/c", "b/c/same.txt", "b/d", "a", "a/two.txt"}  # the top and b: opened up
    assert route == examine
    assert finder.changed(work, [["a"], ["b/c", "b/d"]], mark) == {"b/c/same.txt", "b/d", "a/two.txt"}


def test_nothing_changed_leaves_only_the_opened_folders_to_compare(tmp_path):
    work, entries, latest, mark = copy_of(tmp_path)
    assert narrowing().where(work, entries, latest, mark) == ({"", "b"}, {"", "b"})


def test_a_find_that_fails_leaves_every_folder_to_compare(tmp_path):
    work, entries, latest, mark = copy_of(tmp_path)
    finder = narrowing()  # b is opened up: b/d is where a find starts
    (work / "b/d/gone.txt").unlink()
    (work / "b/d/kept.txt").unlink()
    (work / "b/d").rmdir()  # a folder a find was to start from
    assert finder.where(work, entries, latest, mark) is None
    finder.find = None  # no findutils
    assert finder.where(work, remembered(work)[0], latest, mark) is None


def test_a_small_copy_is_compared_whole_without_starting_find(tmp_path):
    work, entries, latest, mark = copy_of(tmp_path)
    assert Finder().where(work, entries, latest, mark) is None  # 11 entries: below SMALL


def test_the_largest_folder_is_opened_until_each_find_has_its_share():
    entries = {
        "": {"a": DIR, "b": DIR, "f": FILE},
        "a": {f"{n}": FILE for n in range(10)},
        "b": {"c": DIR, "d": DIR, "x": FILE, "y": FILE},
        "b/c": {f"{n}": FILE for n in range(30)},
        "b/d": {f"{n}": FILE for n in range(30)},
    }
    # 77 entries, 38.5 a find: b (64) is opened, b/c and b/d (30 each) are not
    assert split(entries, 2) == ({"", "b"}, [["b/c", "a"], ["b/d"]])
    assert split(entries, 1) == ({""}, [["b", "a"]])
    assert split({"": {"f": FILE}}, 2) == ({""}, [])  # nothing below the top: no find


def test_names_that_are_not_utf_8_or_hold_a_newline_come_back_as_the_walk_spells_them(tmp_path):
    work, entries, latest, mark = copy_of(tmp_path)
    odd = os.fsencode(work / "b" / "c") + b"/odd\xff\nname"
    os.mkdir(odd)
    with open(odd + b"/file\n.txt", "wb") as file:
        file.write(b"x")
    entries, latest = remembered(work)
    past(latest, mark)
    with open(odd + b"/file\n.txt", "ab") as file:
        file.write(b"y")
    found = narrowing(parts=1).where(work, entries, latest, mark)
    assert found is not None
    folder = os.fsdecode(b"b/c/odd\xff\nname")  # as os.scandir names it: the walk's spelling
    assert found[0] == {"", folder, f"{folder}/file\n.txt"}
