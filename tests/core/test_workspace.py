"""Search/replace edits: parsed in the forms models write them, applied exactly or not at all."""

import os
import subprocess

import pytest

from bot.core.workspace import TEXT_CAP, EditError, Entry, Workspace, parse
from bot.spec import DEFAULT_PROTECT

CALC = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"
GIT_REFUSAL = "a path in .git, git's own folder, which autofix never edits; fix the code under test instead"


@pytest.fixture
def work(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "calc.py").write_text(CALC)
    (tmp_path / "tests" / "test_calc.py").write_text("from calc import add\n")
    return Workspace(tmp_path, DEFAULT_PROTECT)


def block(path, search, replace, fence=False):
    text = f"{path}\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n"
    return f"{path}\n```python\n{text.split(chr(10), 1)[1]}```\n" if fence else text


def test_blocks_fenced_or_not_with_prose_around_them():
    reply = (
        "The bug is in `add`.\n\n"
        + block("calc.py", "    return a - b\n", "    return a + b\n", fence=True)
        + "\nAnd a new helper:\n\n"
        + block("`lib/util.py`", "", "X = 1\n")
    )
    assert [(b.path, b.search, b.replace) for b in parse(reply)] == [
        ("calc.py", "    return a - b\n", "    return a + b\n"),
        ("lib/util.py", "", "X = 1\n"),
    ]


@pytest.mark.parametrize(
    "reply, problem",
    [
        ("no blocks here", "no edit blocks found: the reply has no '<<<<<<< SEARCH' ... '>>>>>>> REPLACE' block"),
        (
            "calc.py\n<<<<<<< SEARCH\nx\n>>>>>>> REPLACE\n",
            "block 1 (line 2): no '=======' line after its '<<<<<<< SEARCH', before the '>>>>>>> REPLACE' at line 4",
        ),
        (
            "calc.py\n<<<<<<< SEARCH\nx\n=======\ny\n",
            "block 1 (line 2): no '>>>>>>> REPLACE' line after its '=======' (line 4), before the reply's end",
        ),
        (
            "<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n",
            "block 1 (line 1): no line with the file's path before '<<<<<<< SEARCH'",
        ),
    ],
)
def test_malformed_replies_are_format_errors(reply, problem):
    with pytest.raises(EditError) as caught:
        parse(reply)
    assert caught.value.problems == [problem]


def test_a_reply_applies_in_order_and_the_patch_is_what_git_applies(work, tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "__init__.py").write_text("")  # a package: a module may be added to it
    reply = (
        block("calc.py", "    return a - b\n", "    return a + b\n")
        + block("calc.py", "def mul(a, b):\n", "def mul(a, b):  # product\n")
        + block("lib/new.py", "", "VALUE = 2\n")
    )
    assert work.apply(reply) == ["calc.py", "lib/new.py"]
    assert (tmp_path / "calc.py").read_text() == CALC.replace("a - b", "a + b").replace(
        "def mul(a, b):", "def mul(a, b):  # product"
    )
    assert (tmp_path / "lib/new.py").read_text() == "VALUE = 2\n"
    assert work.changed == ["calc.py", "lib/new.py"]
    # The patch recreates the change on the original files, with git's own tool.
    original = tmp_path.parent / "original"
    original.mkdir()
    (original / "calc.py").write_text(CALC)
    subprocess.run(["git", "apply", "-"], cwd=original, input=work.patch(), text=True, check=True)
    assert (original / "calc.py").read_text() == (tmp_path / "calc.py").read_text()
    assert (original / "lib/new.py").read_text() == "VALUE = 2\n"


def test_the_next_reply_edits_what_the_last_one_left(work, tmp_path):
    work.apply(block("calc.py", "    return a - b\n", "    return 5\n"))
    work.apply(block("calc.py", "    return 5\n", "    return a + b\n"))
    assert (tmp_path / "calc.py").read_text() == CALC.replace("a - b", "a + b")
    assert work.patch() == (
        "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,5 +1,5 @@\n"
        " def add(a, b):\n-    return a - b\n+    return a + b\n \n \n def mul(a, b):\n"
    )


@pytest.mark.parametrize(
    "reply, problem",
    [
        (
            block("calc.py", "    return a-b\n", "    return a + b\n"),
            "block 1 (calc.py): the SEARCH lines do not match the file exactly "
            "(compare them with its current content, whitespace included)",
        ),
        (
            block("calc.py", "return a - b\n", "return a + b\n"),
            "block 1 (calc.py): the SEARCH lines do not match the file exactly "
            "(compare them with its current content, whitespace included)",
        ),
        (
            block("calc.py", "\n", ""),
            "block 1 (calc.py): the SEARCH lines match 2 places; add surrounding lines so they match one",
        ),
        (
            block("tests/test_calc.py", "from calc import add\n", "add = lambda a, b: a + b\n"),
            "block 1 (tests/test_calc.py): a protected path (tests and CI configuration can't be edited); "
            "fix the code under test instead",
        ),
        (
            block(".github/workflows/ci.yml", "", "on: push\n"),
            "block 1 (.github/workflows/ci.yml): a protected path (tests and CI configuration can't be edited); "
            "fix the code under test instead",
        ),
        (
            block("../outside.py", "", "x = 1\n"),
            "block 1 (../outside.py): the path must be relative to the repository's root, without '..'",
        ),
        (block(".git/config", "", "[core]\n\tfsmonitor = touch /tmp/pwned\n"), "block 1 (.git/config): " + GIT_REFUSAL),
        (
            block(".git", "gitdir: /work/.git/worktrees/head\n", "gitdir: build/cache\n"),
            "block 1 (.git): " + GIT_REFUSAL,
        ),
        (
            block("./vendor/.GIT/hooks/pre-commit", "", "touch /tmp/pwned\n"),
            "block 1 (./vendor/.GIT/hooks/pre-commit): " + GIT_REFUSAL,
        ),
        (
            block("./tests//test_calc.py", "from calc import add\n", "add = lambda a, b: a + b\n"),
            "block 1 (./tests//test_calc.py): a protected path (tests and CI configuration can't be edited); "
            "fix the code under test instead",
        ),
        (
            block("calc.py/inner.py", "", "x = 1\n"),
            "block 1 (calc.py/inner.py): not a regular file, or a folder on its way is not a folder",
        ),
        (
            block("tests", "", "x = 1\n"),
            "block 1 (tests): a protected path (tests and CI configuration can't be edited); "
            "fix the code under test instead",
        ),
        (
            block("x" * 256 + ".py", "", "x = 1\n"),
            f"block 1 ({'x' * 256}.py): not a name a file can have (a NUL in it, or a name longer than 255 bytes)",
        ),
        (
            block("calc.py", "", "x = 1\n"),
            "block 1 (calc.py): an empty SEARCH creates a new file, but the file exists: quote the lines to replace",
        ),
        (block("missing.py", "x\n", "y\n"), "block 1 (missing.py): no such file (an empty SEARCH creates one)"),
    ],
)
def test_refused_blocks_are_reported_and_nothing_is_applied(work, tmp_path, reply, problem):
    good = block("calc.py", "def mul(a, b):\n", "def multiply(a, b):\n")
    with pytest.raises(EditError) as caught:
        work.apply(good + reply.replace("block 1", "block 2"))
    assert caught.value.problems == [problem.replace("block 1", "block 2")]
    assert (tmp_path / "calc.py").read_text() == CALC  # the good block was not applied either
    assert work.changed == [] and work.patch() == ""


def test_overlapping_matches_are_ambiguous_too(tmp_path):
    (tmp_path / "a.py").write_text("x\nx\nx\n")
    with pytest.raises(EditError) as caught:
        Workspace(tmp_path, DEFAULT_PROTECT).apply(block("a.py", "x\nx\n", "y\n"))
    assert caught.value.problems == [
        "block 1 (a.py): the SEARCH lines match 2 places; add surrounding lines so they match one"
    ]


def test_edit_globs_and_symlinks(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("A = 1\n")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "linked").symlink_to(tmp_path / "elsewhere")
    work = Workspace(tmp_path, DEFAULT_PROTECT, allowed=("src/*",))
    with pytest.raises(EditError) as caught:
        work.apply(block("setup_helpers.py", "", "x = 1\n") + block("linked/b.py", "", "x = 1\n"))
    assert caught.value.problems == [
        "block 1 (setup_helpers.py): not among the paths the repository lets autofix edit (src/*)",
        "block 2 (linked/b.py): not among the paths the repository lets autofix edit (src/*)",
    ]
    assert (
        Workspace(tmp_path, DEFAULT_PROTECT).refusal("linked/b.py")
        == "the path goes through a symbolic link; edit the file it points to"
    )
    assert work.apply(block("src/a.py", "A = 1\n", "A = 2\n")) == ["src/a.py"]


def test_a_file_without_a_final_newline_keeps_it_that_way(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\ny = 2")
    work = Workspace(tmp_path, DEFAULT_PROTECT)
    work.apply(block("a.py", "y = 2\n", "y = 3\n"))
    assert (tmp_path / "a.py").read_text() == "x = 1\ny = 3"
    assert work.patch().endswith("-y = 2\n\\ No newline at end of file\n+y = 3\n\\ No newline at end of file\n")


def test_a_spelling_of_a_path_is_the_path(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "golden.json").write_text("[1]\n")
    work = Workspace(tmp_path, ("data/golden.json",))
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "__init__.py").write_text("")  # a package: a module may be added to it
    with pytest.raises(EditError) as caught:
        work.apply(block("./data//golden.json", "[1]\n", "[2]\n"))
    assert caught.value.problems == [
        "block 1 (./data//golden.json): a protected path (tests and CI configuration can't be edited); "
        "fix the code under test instead"
    ]
    assert work.apply(block("./lib//new.py", "", "X = 1\n") + block("lib/new.py", "X = 1\n", "X = 2\n")) == [
        "lib/new.py"
    ]
    assert (tmp_path / "lib" / "new.py").read_text() == "X = 2\n"


def test_a_reply_that_writes_a_file_where_it_needs_a_folder_is_refused(tmp_path):
    work = Workspace(tmp_path, DEFAULT_PROTECT, allowed=("lib*",))  # `edit` lets it add files of any kind
    with pytest.raises(EditError) as caught:
        work.apply(block("lib", "", "x = 1\n") + block("lib/util.py", "", "y = 2\n"))
    assert caught.value.problems == ["lib/util.py: its folder lib is a file this reply writes"]
    assert not (tmp_path / "lib").exists()


def test_links_and_binary_files_are_named_never_read_nor_edited(work, tmp_path):
    (tmp_path / "notes.txt").symlink_to("/proc/self/environ")
    (tmp_path / "docs").symlink_to("/proc/self")
    (tmp_path / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    (tmp_path / "legacy.txt").write_bytes(b"caf\xe9\n")
    (tmp_path / "nul.txt").write_text("a\0b\n")
    (tmp_path / "big.py").write_text("x = 1\n" * (TEXT_CAP // 6 + 1))
    os.mkfifo(tmp_path / "pipe")
    assert [
        work.look(path)
        for path in ("notes.txt", "docs/environ", "logo.png", "legacy.txt", "nul.txt", "pipe", "tests", "../calc.py")
    ] == [
        Entry("link", link="notes.txt -> /proc/self/environ"), Entry("link", link="docs -> /proc/self"),
        Entry("binary"), Entry("binary"), Entry("binary"), Entry("other"), Entry("other"), Entry("missing"),
    ]  # fmt: skip
    assert work.look("calc.py") == Entry("text", text=CALC)
    assert work.look("big.py") == Entry("large")
    refusals = {
        path: work.refusal(path) for path in ("notes.txt", "docs/environ", "logo.png", "legacy.txt", "big.py", "pipe")
    }
    assert refusals == {
        "notes.txt": "the path goes through a symbolic link; edit the file it points to",
        "docs/environ": "the path goes through a symbolic link; edit the file it points to",
        "logo.png": "a binary file (not UTF-8 text); autofix edits text files only",
        "legacy.txt": "a binary file (not UTF-8 text); autofix edits text files only",
        "big.py": "a file over 2 MiB; autofix edits smaller files only",
        "pipe": "not a regular file, or a folder on its way is not a folder",
    }


def test_edit_globs_free_pins_and_ci_files_but_never_the_tests_nor_git(tmp_path):
    (tmp_path / "requirements.txt").write_text("numpy==1.0\n")
    work = Workspace(tmp_path, DEFAULT_PROTECT, allowed=("requirements*.txt", "tests/*", ".git/*"))
    assert work.refusal("requirements.txt") is None
    assert (
        work.refusal("tests/test_calc.py")
        == "a protected path (tests and CI configuration can't be edited); fix the code under test instead"
    )
    assert work.refusal(".git/config") == GIT_REFUSAL
    assert (
        Workspace(tmp_path, DEFAULT_PROTECT).refusal("requirements.txt")
        == "a protected path (tests and CI configuration can't be edited); fix the code under test instead"
    )


ADDED = "a file that may not be added: {} (one the repository has may be edited); fix the code under test instead"
RUNNER = "it would be imported instead of {}, which the test runner imports"


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("sitecustomize.py", "Python imports sitecustomize on its own at start-up"),
        ("lib/usercustomize.py", "Python imports usercustomize on its own at start-up"),
        ("zz_boot.pth", "Python runs the import lines of a .pth file at start-up"),
        ("conftest.py", "pytest loads every conftest.py on its own"),
        ("__pycache__/calc.cpython-311.pyc", "Python runs compiled bytecode instead of the source"),
        ("pytest.py", RUNNER.format("pytest")),
        ("_pytest/__init__.py", RUNNER.format("_pytest")),
        ("pluggy/__init__.py", RUNNER.format("pluggy")),
        ("py.py", RUNNER.format("py")),
        (
            "hashlib.py",
            "it would be imported instead of the standard module hashlib, from a folder that may be on sys.path",
        ),
    ],
)
def test_a_reply_may_not_add_what_python_or_pytest_load_on_their_own(tmp_path, path, problem):
    """Even where nothing protects the path (a repository whose `protect` and `edit` free it), and
    with a fix beside it: the whole reply is refused, nothing written."""
    (tmp_path / "calc.py").write_text(CALC)
    work = Workspace(tmp_path, ())
    with pytest.raises(EditError) as caught:
        work.apply(block("calc.py", "    return a - b\n", "    return a + b\n") + block(path, "", "import os\n"))
    assert caught.value.problems == [f"block 2 ({path}): {ADDED.format(problem)}"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["calc.py"]
    assert (tmp_path / "calc.py").read_text() == CALC


def test_what_the_repository_has_of_them_stays_editable(tmp_path):
    """pytest's own repository, a pytest plugin's: their packages and conftest.py are theirs."""
    for relpath in ("src/_pytest/__init__.py", "conftest.py", "sitecustomize.py"):
        (tmp_path / relpath).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relpath).write_text("X = 1\n")
    work = Workspace(tmp_path, ())
    owned = ("src/_pytest/__init__.py", "conftest.py", "sitecustomize.py")
    edits = "".join(block(p, "X = 1\n", "X = 2\n") for p in owned)
    assert work.apply(edits + block("src/_pytest/helpers.py", "", "Y = 1\n")) == [
        "conftest.py", "sitecustomize.py", "src/_pytest/__init__.py", "src/_pytest/helpers.py",
    ]  # fmt: skip


def test_restore_puts_back_the_tree_a_mark_saw(work, tmp_path):
    """A fresh sample of a tree flow starts from the tree before any reply: the files edited since
    the mark as they were, a file added since removed with the folders it alone filled, and a file
    added before the mark (a free-form issue's reproduction test, written as the flow writes it) kept."""
    work.write("tests/test_repro.py", "def test_it():\n    assert True\n")
    work.originals["tests/test_repro.py"] = None
    start = work.mark()
    work.apply(block("calc.py", "    return a - b\n", "    return a + b\n"))
    work.apply(block("lib/deep/util.js", "", "export const x = 1;\n"))
    work.write("tests/test_repro.py", "changed\n")
    assert work.changed == ["calc.py", "lib/deep/util.js", "tests/test_repro.py"]
    work.restore(start)
    assert (tmp_path / "calc.py").read_text() == CALC
    assert not (tmp_path / "lib").exists()
    assert (tmp_path / "tests" / "test_repro.py").read_text() == "def test_it():\n    assert True\n"
    assert work.changed == ["tests/test_repro.py"] and work.originals == {"tests/test_repro.py": None}
    work.apply(block("calc.py", "    return a - b\n", "    return a * b\n"))  # edits apply to the restored text
    assert (tmp_path / "calc.py").read_text() == CALC.replace("a - b", "a * b")


def test_restore_leaves_a_folder_that_holds_more_than_the_added_file(work, tmp_path):
    start = work.mark()
    work.apply(block("lib/helper.js", "", "export const y = 2;\n"))
    (tmp_path / "lib" / "keep.txt").write_text("the repository's\n")
    work.restore(start)
    assert sorted(os.listdir(tmp_path / "lib")) == ["keep.txt"]
