from pathlib import Path

import pytest

from bot.errors import UserError
from bot.spec import is_protected, load

GOOD = """\
task: Remove duplicates, keep order.
target: unique.py
tests:
  code: |
    assert unique_items([1, 1]) == [1], "dups"
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "task.yml"
    path.write_text(text)
    return path


def error_of(path: Path) -> str:
    with pytest.raises(UserError) as caught:
        load(path)
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_a_good_spec_loads_with_defaults(tmp_path):
    spec = load(write(tmp_path, GOOD))
    assert (spec.max_attempts, spec.timeout, spec.api, spec.model) == (3, 60, None, None)
    assert spec.target_path == tmp_path.resolve() / "unique.py"
    assert spec.required_name == "unique_items"


def test_yaml_syntax_error_names_line_and_column(tmp_path):
    path = write(tmp_path, GOOD + "max_attempts: [3\n")
    assert error_of(path) == f"{path}:6:15: invalid YAML: this '[' is never closed"  # where it opens


def test_an_unclosed_bracket_is_reported_where_it_opens_not_at_the_end(tmp_path):
    path = tmp_path / "bad.yml"
    path.write_text("task: t\ntarget: x.py\ntests:\n  code: [unclosed\n")
    assert error_of(path) == f"{path}:4:9: invalid YAML: this '[' is never closed"
    path.write_text("task: 'unclosed\ntarget: x.py\n")
    assert error_of(path) == f"{path}:1:7: invalid YAML: this quote is never closed"
    path.write_text("task: t\n  bad: indent\n")  # noticed where it is: the problem's own mark
    assert error_of(path) == f"{path}:2:6: invalid YAML: mapping values are not allowed here"


def test_unknown_key_names_line_and_key(tmp_path):
    path = write(tmp_path, GOOD.replace("  code:", "  comand: pytest\n  code:"))
    assert error_of(path) == f"{path}:4: tests.comand: unknown key"


def test_missing_field_is_named(tmp_path):
    path = write(tmp_path, GOOD.replace("target: unique.py\n", ""))
    assert error_of(path) == f"{path}:1: target: missing required key"


def test_wrong_type_names_line_and_key(tmp_path):
    path = write(tmp_path, GOOD + "max_attempts: three\n")
    assert error_of(path) == f"{path}:6: max_attempts: Input should be a valid integer"


def test_tests_need_code_or_command(tmp_path):
    path = write(tmp_path, "task: t\ntarget: x.py\ntests:\n  protect: []\n")
    assert error_of(path) == f"{path}:3: tests: needs `code`, `command`, `json_schema` or `sql`"


def test_missing_target_folder(tmp_path):
    path = write(tmp_path, GOOD.replace("unique.py", "src/unique.py"))
    assert error_of(path) == f"{path}: target: folder {tmp_path.resolve() / 'src'} does not exist"


def test_target_may_not_escape_or_be_protected(tmp_path):
    assert error_of(write(tmp_path, GOOD.replace("unique.py", "../x.py"))).endswith(
        "must be a path inside the work folder, got '../x.py'"
    )
    (tmp_path / "tests").mkdir()
    assert error_of(write(tmp_path, GOOD.replace("unique.py", "tests/test_x.py"))).endswith(
        "tests/test_x.py is a protected path"
    )


def test_not_a_mapping(tmp_path):
    path = write(tmp_path, "- just\n- a list\n")
    assert error_of(path) == f"{path}:1: the file must be a YAML mapping of keys to values"


@pytest.mark.parametrize(
    ("path", "protected"),
    [
        ("tests/test_a.py", True),
        ("pkg/tests/data.json", True),
        ("test_a.py", True),
        ("src/a_test.py", True),
        ("src/conftest.py", True),
        (".github/workflows/ci.yml", True),
        ("pyproject.toml", True),
        ("src/unique.py", False),
        ("contest.py", False),
    ],
)
def test_default_protection(path, protected):
    from bot.spec import DEFAULT_PROTECT

    assert is_protected(path, DEFAULT_PROTECT) is protected


def test_spec_protect_adds_patterns():
    assert is_protected("data/golden.json", ("data/*.json",))
    assert is_protected("fixtures/a/b.txt", ("fixtures/",))


def test_exempt_paths_load(tmp_path):
    spec = load(write(tmp_path, GOOD + "  exempt: [tests/snapshots]\n"))
    assert spec.exempt == ("tests/snapshots",)


def test_a_target_is_refused_however_its_path_is_spelled(tmp_path):
    (tmp_path / "data").mkdir()
    text = GOOD.replace("unique.py", "./data//golden.py") + "  protect: [data/golden.py]\n"
    assert error_of(write(tmp_path, text)).endswith("./data//golden.py is a protected path")


def test_checks_that_are_not_python(tmp_path):
    path = write(tmp_path, GOOD.replace('"dups"', '"dups"\n    assert (('))
    assert error_of(path) == f"{path}:4: tests.code: invalid Python at line 2 of the checks: '(' was never closed"


def test_test_strength_defaults_and_an_unquoted_off(tmp_path):
    spec = load(write(tmp_path, GOOD))
    assert (spec.strength, spec.strength_budget, spec.strength_seconds, spec.min_strength) == ("report", 20, 120, 0.8)
    assert load(write(tmp_path, GOOD + "strength: off\n")).strength == "off"  # YAML 1.1 reads it as false
    assert error_of(write(tmp_path, GOOD + "min_strength: 1.5\n")).endswith(
        "task.yml:6: min_strength: Input should be less than or equal to 1"
    )


MAKE_SPEC = "task: t\ntarget: {target}\ntests:\n  command: {command}\n"
FROM_COMMAND = "is protected: tests.command runs it or reads it as its configuration"


@pytest.mark.parametrize(
    ("target", "command"),
    [
        ("Makefile", "make test"),
        ("GNUmakefile", "make test"),  # make would read it before the Makefile
        ("docs/Makefile", "make test"),  # a recursive make reads it there
        ("ci/run.sh", "cd ci && ./run.sh"),
        ("scripts/check.sh", "make check"),  # what the Makefile's recipe runs
        ("noxfile.py", "A=1 python -m nox"),
        ("runtests.py", "uv run python runtests.py"),
    ],
)
def test_what_the_test_command_runs_is_never_a_target(tmp_path, target, command):
    for folder in ("docs", "ci", "scripts"):
        (tmp_path / folder).mkdir()
    (tmp_path / "Makefile").write_text("check:\n\t./scripts/check.sh\n")
    path = write(tmp_path, MAKE_SPEC.format(target=target, command=command))
    assert error_of(path) == f"{path}:2: target: {target} {FROM_COMMAND}"


def test_what_the_test_command_runs_is_protected_for_the_run(tmp_path):
    (tmp_path / "Makefile").write_text("test:\n\tsh ci/test.sh\n")
    spec = load(write(tmp_path, MAKE_SPEC.format(target="unique.py", command="make test")))
    for path in ("Makefile", "GNUmakefile", "sub/makefile", "ci/test.sh", "tests/pytest.ini"):
        assert is_protected(path, spec.protected), path
    assert not is_protected("src/ci/test.sh", spec.protected)  # a path, not a name: only the one the recipe runs
    assert not is_protected("unique.py", spec.protected)


@pytest.mark.parametrize(
    ("target", "problem"),
    [
        ("sitecustomize.py", "Python imports sitecustomize on its own at start-up"),
        ("pytest.py", "it would be imported instead of pytest, which the test runner imports"),
        ("json.py", "it would be imported instead of the standard module json, from a folder that may be on sys.path"),
        ("boot.pth", "Python runs the import lines of a .pth file at start-up"),
    ],
)
def test_a_target_may_not_add_what_python_loads_on_its_own(tmp_path, target, problem):
    path = write(tmp_path, GOOD.replace("unique.py", target))
    assert (
        error_of(path)
        == f"{path}:2: target: {target} may not be added: {problem} (one the repository has may be edited)"
    )
    (tmp_path / target).write_text("")  # the repository's own: editable
    assert load(path).target == target
