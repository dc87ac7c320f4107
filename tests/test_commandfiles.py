"""What a test command runs or reads as its configuration, read from the command and the files it
names, never run."""

import os

import pytest

from bot.commandfiles import CommandFiles, derive

PYTEST = ("pytest.ini", ".pytest.ini", "pytest.toml", ".pytest.toml", "pyproject.toml", "tox.ini", "setup.cfg")
MAKEFILES = ("GNUmakefile", "Makefile", "makefile")
JUSTFILES = (".justfile", "JUSTFILE", "Justfile", "justfile")


def pytest_config(*folders):
    return tuple(f"{folder}/{name}" if folder else name for folder in folders for name in PYTEST)


def files(root, command):
    return derive(command, root)


def tree(root, files):
    for relpath, text in files.items():
        (root / relpath).parent.mkdir(parents=True, exist_ok=True)
        (root / relpath).write_text(text)


def test_make_protects_its_makefiles_what_they_include_and_what_the_recipe_runs(tmp_path):
    tree(
        tmp_path,
        {
            "Makefile": "PY ?= python3\nPYTEST = $(PY) -m pytest\ninclude rules.mk\n"
            "test:\n\t@$(PYTEST) tests\n\t./scripts/check.sh\n\t$(MAKE) -C docs check\n",
            "rules.mk": "lint: ; sh tools/lint.sh\n",
            "scripts/check.sh": "#!/bin/sh\ncd sub\npython runtests.py\n",
            "docs/Makefile": "check:\n\tnox -s docs\n",
            "tests/test_x.py": "",
        },
    )
    found = files(tmp_path, "make test")
    assert found.names == MAKEFILES  # in every folder: a recursive make may go where no reading follows
    assert found.paths == tuple(
        sorted(
            {
                *MAKEFILES, "rules.mk", "tools/lint.sh", "scripts/check.sh", "sub/runtests.py",
                "docs/GNUmakefile", "docs/Makefile", "docs/makefile", "docs/noxfile.py",
                *pytest_config("", "tests"),
            }
        )
    )  # fmt: skip


@pytest.mark.parametrize(
    ("command", "paths"),
    [
        ("make -C build -f ci.mk test", ("build/ci.mk",)),
        ("make --directory=build --file=ci.mk", ("build/ci.mk",)),
        ("cd build && make", ("build/GNUmakefile", "build/Makefile", "build/makefile")),
    ],
)
def test_make_in_another_folder_or_from_another_file(tmp_path, command, paths):
    assert files(tmp_path, command) == CommandFiles(paths, MAKEFILES)


def test_a_makefile_through_a_link_protects_what_it_points_to_and_never_leaves_the_root(tmp_path):
    tree(tmp_path, {"build/real.mk": "test:\n\t./run.sh\n"})
    (tmp_path / "ci.mk").symlink_to("build/real.mk")
    (tmp_path / "out.mk").symlink_to("/etc/passwd")
    assert files(tmp_path, "make -f ci.mk").paths == ("build/real.mk", "ci.mk", "run.sh")
    assert files(tmp_path, "make -f out.mk").paths == ("out.mk",)


def test_a_makefile_that_runs_make_again_is_read_once(tmp_path):
    tree(tmp_path, {"Makefile": "test:\n\t$(MAKE) test\n\t$(MAKE) -C . test\n"})
    assert files(tmp_path, "make test").paths == MAKEFILES


@pytest.mark.parametrize(
    ("command", "paths"),
    [
        ("pytest", pytest_config("")),
        ("python -m pytest -q tests/test_a.py", pytest_config("", "tests")),
        ("python3 -m pytest -c ci/pytest.ini tests", ("ci/pytest.ini", *pytest_config("", "tests"))),
        (
            "PYTHONPATH=src COV=1 .venv/bin/pytest -p helpers.plugin",
            ("helpers/plugin.py", "helpers/plugin/__init__.py", *pytest_config("")),
        ),
        ("cd pkg && python -m pytest", pytest_config("", "pkg")),
        ("env -u HOME A=1 coverage run -m pytest", pytest_config("")),
        ("uv run --python 3.12 pytest", pytest_config("")),
        ("poetry run pytest", pytest_config("")),
        ("hatch run test", ("hatch.toml", "pyproject.toml")),
        ("nox -s tests", ("noxfile.py",)),
        ("python -m nox --noxfile ci/noxfile.py", ("ci/noxfile.py",)),
        ("tox -e py311", ("pyproject.toml", "setup.cfg", "tox.ini", "tox.toml")),
        ("tox -c ci/tox.ini", ("ci/tox.ini",)),
        ("python runtests.py -v", ("runtests.py",)),
        (
            "python -m tools.run",
            ("tools/__init__.py", "tools/run.py", "tools/run/__init__.py", "tools/run/__main__.py"),
        ),
        (
            "pip install -e .[test] -r requirements/test.txt",
            ("pyproject.toml", "requirements/test.txt", "setup.cfg", "setup.py"),
        ),
        ("python -c 'import x' && timeout 60 ./bin/check > out.log", ("bin/check",)),
        ("echo 'unclosed", ()),  # the shell refuses it too
        ("pytest ../elsewhere /etc/x", pytest_config("")),  # nothing outside the root
    ],
)
def test_each_program_names_its_files(tmp_path, command, paths):
    (tmp_path / "tests").mkdir()
    (tmp_path / "pkg").mkdir()
    assert files(tmp_path, command).paths == tuple(sorted(set(paths)))


def test_scripts_are_read_as_the_shell_reads_them(tmp_path):
    tree(tmp_path, {"ci/test.sh": "set -e\ncd src\nbash -c 'python -m pytest tests'\n", "run": "sh ci/test.sh\n"})
    (tmp_path / "src/tests").mkdir(parents=True)
    expected = ("ci/test.sh", *pytest_config("", "src", "src/tests"))
    assert files(tmp_path, "bash ci/test.sh").paths == tuple(sorted(expected))
    assert files(tmp_path, "./ci/test.sh").paths == tuple(sorted(expected))
    assert files(tmp_path, "sh -e ./run").paths == tuple(sorted(("run", *expected)))


def test_a_python_script_is_protected_not_read_as_shell(tmp_path):
    tree(tmp_path, {"bin/check": "#!/usr/bin/env python3\nimport os\nos.system('make')\n"})
    assert files(tmp_path, "bin/check") == CommandFiles(("bin/check",), ())


def test_just_looks_upward_and_reads_its_recipes(tmp_path):
    tree(tmp_path, {"justfile": "import 'ci.just'\ntest:\n    ./scripts/t.sh\n", "sub/.keep": ""})
    found = files(tmp_path, "cd sub && just test")
    assert found.names == JUSTFILES
    assert found.paths == tuple(sorted({*JUSTFILES, *(f"sub/{name}" for name in JUSTFILES), "ci.just", "scripts/t.sh"}))


def test_what_a_hostile_tree_holds_is_never_opened_through_a_link(tmp_path):
    outside = tmp_path / "outside"
    tree(outside, {"Makefile": "test:\n\t./secret.sh\n"})
    root = tmp_path / "root"
    root.mkdir()
    (root / "build").symlink_to(outside)
    os.mkfifo(root / "fifo.mk")  # never opened: it would block
    assert files(root, "make -C build test").paths == ("build/GNUmakefile", "build/Makefile", "build/makefile")
    assert files(root, "make -f fifo.mk").paths == ("fifo.mk",)


def test_a_command_of_several_lines_is_read_line_by_line(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "tests").mkdir()
    assert files(tmp_path, "cd sub\nmake -f ci.mk\n") == CommandFiles(("sub/ci.mk",), MAKEFILES)
    assert files(tmp_path, "pytest -k 'a or b' -o addopts= \\\n  tests").paths == tuple(
        sorted(pytest_config("", "tests"))
    )


def test_tox_reads_what_its_environments_run(tmp_path):
    tree(
        tmp_path,
        {
            "tox.ini": "[tox]\nenv_list = py311\n[testenv]\ncommands =\n"
            "    py311,py312: python tools/run.py {posargs}\n    - sh ci/after.sh\n"
            "[testenv:lint]\ncommands = make lint\n",
        },
    )
    found = files(tmp_path, "tox -e py311")
    assert found == CommandFiles(
        (
            "GNUmakefile",
            "Makefile",
            "ci/after.sh",
            "makefile",
            "pyproject.toml",
            "setup.cfg",
            "tools/run.py",
            "tox.ini",
            "tox.toml",
        ),
        MAKEFILES,
    )
    (tmp_path / "tox.ini").write_text("[testenv\ncommands = sh x.sh\n")  # tox refuses it: nothing more is read
    assert files(tmp_path, "tox").paths == ("pyproject.toml", "setup.cfg", "tox.ini", "tox.toml")
