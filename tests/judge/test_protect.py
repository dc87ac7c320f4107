"""Which paths are protected: normalised paths, the defaults, and what the repository's `edit` frees."""

import pytest

from bot.github.config import load_repo_config
from bot.spec import DEFAULT_PROTECT, is_protected, normalised


@pytest.mark.parametrize(
    "path",
    [
        "data/golden.json",
        "./data/golden.json",
        "data//golden.json",
        "data/./golden.json",
        "data/golden.json/",
        ".//data/golden.json",
    ],
)
def test_a_path_is_matched_normalised(path):
    assert is_protected(path, ("data/golden.json",))
    assert is_protected(path, ("./data//golden.json/",))  # patterns are normalised too


def test_case_is_kept():
    assert not is_protected("Data/golden.json", ("data/golden.json",))


@pytest.mark.parametrize("path", ["../tests/test_a.py", "src/../requirements.txt", "/etc/passwd", "/src/a.py", ".."])
def test_a_path_that_may_leave_the_folder_is_never_allowed(path):
    assert normalised(path) is None
    assert is_protected(path, ())
    assert is_protected(path, DEFAULT_PROTECT, editable=("*", "**"))


def test_a_folder_pattern_with_a_glob_covers_what_the_folder_holds():
    assert is_protected("src/a/fixtures/deep/x.json", ("src/*/fixtures",))
    assert not is_protected("src/a/code.py", ("src/*/fixtures",))


@pytest.mark.parametrize(
    "path",
    [
        ".git/config", ".git/hooks/pre-commit", ".pytest.ini", "pytest.toml", "sub/.pytest.toml", "noxfile.py",
        "CODEOWNERS", "docs/CODEOWNERS", ".github/CODEOWNERS", ".gitlab-ci.yml", ".circleci/config.yml",
        "azure-pipelines.yml", "Jenkinsfile", ".pre-commit-config.yaml", "requirements.txt",
        "requirements-dev.txt", "ci/requirements_test.txt", "poetry.lock", "sub/uv.lock",
    ],
)  # fmt: skip
def test_the_new_defaults_are_protected(path):
    assert is_protected(path, DEFAULT_PROTECT)


@pytest.mark.parametrize(
    ("path", "edit"),
    [
        ("requirements.txt", "requirements*.txt"),
        ("poetry.lock", "*.lock"),
        (".github/workflows/ci.yml", ".github/**"),
        ("./Jenkinsfile", "Jenkinsfile"),
    ],
)
def test_edit_globs_free_ci_files_and_pins(path, edit):
    assert is_protected(path, DEFAULT_PROTECT)
    assert not is_protected(path, DEFAULT_PROTECT, editable=(edit,))


@pytest.mark.parametrize(
    "path",
    ["tests/test_a.py", "src/a_test.py", "conftest.py", "pyproject.toml", "pytest.toml", "noxfile.py", ".git/config"],
)
def test_no_edit_glob_frees_the_tests_or_their_configuration(path):
    assert is_protected(path, DEFAULT_PROTECT, editable=("*", "**", path))


def test_an_explicit_protect_stays_whatever_edit_says():
    protected = DEFAULT_PROTECT + (".github/autofix.yml",)
    assert is_protected(".github/autofix.yml", protected, editable=(".github/*",))
    assert not is_protected(".github/workflows/ci.yml", protected, editable=(".github/*",))


def test_the_repository_config_takes_exempt_paths(tmp_path):
    (tmp_path / "autofix.yml").write_text("tests:\n  exempt: [tests/snapshots, '*.generated.json']\n")
    assert load_repo_config(tmp_path, "autofix.yml").tests.exempt == ["tests/snapshots", "*.generated.json"]
