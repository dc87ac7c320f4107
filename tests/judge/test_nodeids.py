"""bot/judge/nodeids.py: which tests a run asks for go on pytest's command line as node ids, and
when the command's own arguments leave it to collecting the whole suite and deselecting."""

import os
from pathlib import Path

import pytest

from bot.judge.nodeids import arguments

ASKED = {"tests.test_calc::test_add", "tests.test_calc::TestTotal::test_sum[1-2]"}
IDS = ["tests/test_calc.py::TestTotal::test_sum[1-2]", "tests/test_calc.py::test_add"]


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_calc.py").write_text("def test_add():\n    pass\n")
    (tmp_path / "calc.py").write_text("")
    return tmp_path


def test_the_commands_paths_give_way_to_the_node_ids_of_the_tests_asked(work):
    root = os.path.realpath(work)
    assert arguments(["-q", "tests"], ASKED, work) == ["-q", f"--rootdir={root}", *IDS]
    assert arguments([], ASKED, work) == [f"--rootdir={root}", *IDS]
    assert arguments(["-x", "--tb=short", "."], {"tests.test_calc"}, work) == [
        "-x",
        "--tb=short",
        f"--rootdir={root}",
        "tests/test_calc.py",
    ]


@pytest.mark.parametrize(
    "rest",
    [
        ["-k", "add"],  # a value in a word of its own: no telling it from a path
        ["--tb", "short"],
        ["-p", "no:randomly"],
        ["--rootdir=elsewhere"],  # ids relative to another root
        ["-c", "tox.ini"],
        ["calc.py"],  # a path that doesn't hold the tests asked
        ["missing"],
    ],
)
def test_arguments_pytest_would_read_otherwise_leave_the_whole_collection(work, rest):
    assert arguments(rest, ASKED, work) is None


def test_a_test_whose_file_isnt_there_or_lies_past_a_link_or_a_configuration_is_not_named(work):
    assert arguments([], {"tests.test_gone::test_x"}, work) is None
    assert arguments([], {"tests.test_calc::test_x[a::b]"}, work) is None  # "::" in a parameter
    (work / "linked").symlink_to(work / "tests")
    assert arguments([], {"linked.test_calc::test_add"}, work) is None
    (work / "tests" / "pytest.ini").write_text("[pytest]\n")  # pytest would read this one, not the root's
    assert arguments([], ASKED, work) is None
