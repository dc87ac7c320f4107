"""What the model is shown of a pull request's files: read inside the work tree only, never through
a symbolic link (shown as the link it is), and binary files named, not read."""

from bot.core.workspace import TEXT_CAP, Workspace
from bot.github.red_ci import evidence
from bot.judge.gate import Baseline, SuiteRun
from bot.judge.integrity import Case
from bot.spec import DEFAULT_PROTECT

SECRET = "ghs_plantedGitHubToken0123456789"
CALC = "def add(a, b):\n    return a - b\n"


def baseline_pointing_at(*locations: str, root: str = "/tmp/autofix-x/work") -> Baseline:
    """A baseline whose one failing test's traceback points at `locations` ("path:line")."""
    details = "\n".join(f"{root}/{location}: in f" for location in locations)
    run = SuiteRun(
        {"tests.test_calc::test_add": Case("tests.test_calc::test_add", "failed", "assert -1 == 5", details)},
        1,
        "",
        None,
        root,
    )
    return Baseline(run, ["tests.test_calc::test_add"], [], set())


def test_a_link_is_shown_as_a_link_and_never_followed(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text(f"TOKEN = {SECRET!r}\n")
    work = tmp_path / "work"
    work.mkdir()
    (work / "calc.py").write_text(CALC)
    (work / "notes.txt").symlink_to("/proc/self/environ")
    (work / "config.py").symlink_to(outside / "secret.py")
    (work / "lib").symlink_to(outside)
    shown = evidence.files(
        baseline_pointing_at("calc.py:2", "lib/secret.py:1", "config.py:1"),
        Workspace(work, DEFAULT_PROTECT),
        ["notes.txt", "calc.py"],
    )
    assert (
        "### notes.txt (changed by the pull request)\nA symbolic link, not followed:\n"
        "```text\nnotes.txt -> /proc/self/environ\n```" in shown
    )
    assert (
        "### config.py (lines the tracebacks point at)\nA symbolic link, not followed:\n"
        f"```text\nconfig.py -> {outside}/secret.py\n```" in shown
    )
    assert (
        "### lib/secret.py (lines the tracebacks point at)\nA symbolic link, not followed:\n"
        f"```text\nlib -> {outside}\n```" in shown
    )
    assert (
        "### calc.py (changed by the pull request)\n```text\n   1 | def add(a, b):\n   2 |     return a - b\n```"
        in shown
    )
    assert SECRET not in shown and "PATH=" not in shown


def test_binary_and_huge_files_are_named_not_read(tmp_path):
    (tmp_path / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (tmp_path / "legacy.py").write_bytes(b"NAME = 'caf\xe9'\n")  # Latin-1: not UTF-8
    (tmp_path / "generated.py").write_text("x = 1\n" * (TEXT_CAP // 6 + 1))
    shown = evidence.files(
        baseline_pointing_at("legacy.py:1"), Workspace(tmp_path, DEFAULT_PROTECT), ["logo.png", "generated.py"]
    )
    assert shown == (
        "### logo.png (changed by the pull request)\n(a binary file: not shown)\n\n"
        "### generated.py (changed by the pull request)\n(a file over 2 MiB: not shown)\n\n"
        "### legacy.py (lines the tracebacks point at)\n(a binary file: not shown)"
    )


def test_paths_outside_the_work_tree_or_no_file_can_have_are_not_read(tmp_path):
    (tmp_path / "secret.py").write_text(f"TOKEN = {SECRET!r}\n")
    work = tmp_path / "work"
    (work / "pkg").mkdir(parents=True)
    locations = ("../secret.py:1", "pkg/../../secret.py:1", f"{tmp_path}/secret.py:1", "x" * 300 + ".py:1")
    shown = evidence.files(baseline_pointing_at(*locations), Workspace(work, DEFAULT_PROTECT), [])
    assert shown == "(no repository file is named in the tracebacks)"


def test_a_large_changed_file_shows_its_outline_and_the_lines_the_tracebacks_point_at(tmp_path):
    helpers = "".join(f"def helper_{i}(x):\n    return x + {i}\n\n\n" for i in range(400))
    (tmp_path / "calc.py").write_text(helpers + CALC)
    broken_line = helpers.count("\n") + 2  # `return a - b`
    shown = evidence.files(
        baseline_pointing_at(f"calc.py:{broken_line}"), Workspace(tmp_path, DEFAULT_PROTECT), ["calc.py"]
    )
    assert (
        "### calc.py (changed by the pull request)\n(1602 lines: its outline, then the lines the tracebacks point at)"
        in shown
    )
    assert f"{broken_line:>4} |     return a - b" in shown and "1601 | def add(a, b):" in shown
    assert "return x + 200" not in shown and len(shown) < 8000  # never the whole file


def test_a_large_changed_file_shows_the_functions_the_pull_request_changed(tmp_path):
    """toolz's `frequencies` counting twice: the tracebacks end in the tests' assertions and name no
    line of the 1,058-line module the pull request changed, so the outline alone was shown; the
    diff's hunks name the changed line, and the whole function holding it is shown."""
    helpers = "".join(f"def helper_{i}(x):\n    return x + {i}\n\n\n" for i in range(400))
    counting = (
        "def frequencies(seq):\n    d = {}\n    for item in seq:\n        d[item] = d.get(item, 0) + 2\n    return d\n"
    )
    (tmp_path / "calc.py").write_text(helpers + counting)
    first = helpers.count("\n") + 1
    diff = (
        "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n"
        f"@@ -{first + 2},3 +{first + 2},3 @@\n     for item in seq:\n-        d[item] = d.get(item, 0) + 1\n"
        "+        d[item] = d.get(item, 0) + 2\n     return d\n"
    )
    assert evidence.changed_lines(diff) == {"calc.py": {first + 3}}
    shown = evidence.files(
        baseline_pointing_at("tests/test_calc.py:3"), Workspace(tmp_path, DEFAULT_PROTECT), ["calc.py"],
        evidence.changed_lines(diff),
    )  # fmt: skip
    assert (
        "(1605 lines: its outline, then the lines the tracebacks point at and the functions the pull request changed)"
        in shown
    )
    assert f"{first:>4} | def frequencies(seq):\n{first + 1:>4} |     d = {{}}\n" in shown
    assert f"{first + 3:>4} |         d[item] = d.get(item, 0) + 2\n{first + 4:>4} |     return d" in shown
    assert "return x + 200" not in shown and len(shown) < 8000


def test_a_diff_s_own_lines_that_look_like_headers_are_read_as_lines():
    diff = (
        "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,3 @@\n x = 1\n+++ y\n-z\n+w\n"
        "diff --git a/gone.py b/gone.py\n--- a/gone.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-q = 1\n"
    )
    assert evidence.changed_lines(diff) == {"a.py": {2, 3}}
