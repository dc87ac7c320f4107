"""Writing one file into a tree a hostile process shaped (bot/safefs.py's write_file): folders
made or entered without following a link, the file written only when it is a regular file."""

import errno
import os

import pytest

from bot import safefs


def test_the_folders_are_made_and_a_regular_file_is_overwritten(tmp_path):
    safefs.write_file(tmp_path, "tests/autofix/test_x.py", b"first, and longer\n")
    safefs.write_file(tmp_path, "tests/autofix/test_x.py", b"second\n")
    assert (tmp_path / "tests/autofix/test_x.py").read_bytes() == b"second\n"
    safefs.remove_file(tmp_path, "tests/autofix/test_x.py")
    assert list((tmp_path / "tests/autofix").iterdir()) == []


@pytest.mark.parametrize("link", ["tests", "tests/autofix", "tests/autofix/test_x.py"])
def test_a_link_on_the_way_is_never_followed(tmp_path, link):
    tree, outside = tmp_path / "tree", tmp_path / "outside"
    (tree / link).parent.mkdir(parents=True, exist_ok=True)
    (outside / "there").mkdir(parents=True)
    os.symlink(outside / "there", tree / link)
    with pytest.raises(OSError) as raised:
        safefs.write_file(tree, "tests/autofix/test_x.py", b"planted\n")
    assert raised.value.strerror == f"{link}: a symbolic link (to {outside / 'there'})"
    assert list((outside / "there").iterdir()) == []
    safefs.remove_file(tree, "tests/autofix/test_x.py")  # goes through no link either
    assert (outside / "there").is_dir() and list((outside / "there").iterdir()) == []


def test_a_fifo_at_the_path_is_never_opened_for_writing(tmp_path):
    os.mkfifo(tmp_path / "test_x.py")  # no reader: opening it to write would block
    with pytest.raises(OSError) as raised:
        safefs.write_file(tmp_path, "test_x.py", b"x")
    assert raised.value.errno == errno.ENXIO
