"""A work tree's files written as root without following a link: the tree is a pull request's,
and what stands at a path may change between the look (`Workspace.refusal`) and the write."""

import pytest

from bot.core.workspace import EditError, Workspace
from bot.spec import DEFAULT_PROTECT


@pytest.fixture
def outside(tmp_path):
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "owned.py").write_text("ROOT_OWNED = True\n")
    return folder


@pytest.fixture
def work(tmp_path, outside):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "vendor").symlink_to(outside)
    (tree / "helper.py").symlink_to(outside / "owned.py")
    (tree / "calc.py").write_text("X = 1\n")
    return Workspace(tree, DEFAULT_PROTECT)


@pytest.mark.parametrize(
    "path, why",
    [
        ("vendor/pwned.py", "vendor: a symbolic link (to {outside})"),
        ("vendor/deeper/pwned.py", "vendor: a symbolic link (to {outside})"),
        ("helper.py", "helper.py: a symbolic link (to {outside}/owned.py)"),
    ],
)
def test_a_write_through_a_link_writes_nothing_anywhere(work, outside, path, why):
    with pytest.raises(EditError) as refused:
        work.write(path, "PWNED = 1\n")
    assert refused.value.problems == [
        f"{path}: not written: {why.format(outside=outside)}; autofix writes regular files only, never through a link"
    ]
    assert sorted(p.name for p in outside.iterdir()) == ["owned.py"]
    assert (outside / "owned.py").read_text() == "ROOT_OWNED = True\n"


def test_a_write_makes_the_folders_on_its_way_and_keeps_a_file_s_mode(work):
    (work.root / "calc.py").chmod(0o755)
    work.write("calc.py", "X = 2\n")
    work.write("lib/new/util.py", "Y = 1\n")
    assert (work.root / "calc.py").read_text() == "X = 2\n" and (work.root / "calc.py").stat().st_mode & 0o777 == 0o755
    assert (work.root / "lib" / "new" / "util.py").read_text() == "Y = 1\n"
