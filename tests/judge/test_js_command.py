"""A JavaScript test command read as data (bot/judge/js/command.py): the runner it starts, through
package.json's scripts, without a shell; what it can't read is judged by its exit code."""

import json
import os
import shutil

import pytest

from bot.errors import UserError
from bot.judge.js.command import Started, Unread, is_javascript, resolve, runner_of

NODE = shutil.which("node")
PATH = os.environ["PATH"]


def project(tmp_path, scripts=None, runners=("jest", "vitest")):
    (tmp_path / "package.json").write_text(json.dumps({"name": "p", "scripts": scripts or {}}))
    for name in runners:
        package = tmp_path / "node_modules" / name
        (package / "bin").mkdir(parents=True)
        (package / "bin" / f"{name}.js").write_text("")
        (package / "package.json").write_text(json.dumps({"name": name, "bin": {name: f"./bin/{name}.js"}}))
    return tmp_path


def entry(tmp_path, name):
    return str(tmp_path / "node_modules" / name / "bin" / f"{name}.js")


def test_npm_test_runs_the_test_script_s_runner_with_the_arguments_after_the_double_dash(tmp_path):
    work = project(tmp_path, {"test": "jest --ci src"})
    found = resolve("npm test -- --runInBand", work, PATH)
    assert found == Started("jest", [NODE, entry(work, "jest"), "--ci", "src", "--runInBand"], {}, found.via)
    assert found.via == "npm test -- --runInBand -> jest --ci src"


def test_scripts_that_name_scripts_are_followed_and_their_assignments_kept(tmp_path):
    work = project(tmp_path, {"test": "npm run unit", "unit": "TZ=UTC vitest --coverage=false"})
    found = resolve("pnpm test", work, PATH)
    assert isinstance(found, Started)
    assert found.argv == [NODE, entry(work, "vitest"), "run", "--coverage=false"]
    assert found.env == {"TZ": "UTC"}


def test_vitest_without_run_would_watch_so_run_is_added_and_watch_mode_is_refused(tmp_path):
    work = project(tmp_path)
    assert resolve("npx vitest", work, PATH).argv[2:] == ["run"]
    assert resolve("npx vitest run math", work, PATH).argv[2:] == ["run", "math"]
    assert isinstance(resolve("npx vitest watch", work, PATH), Unread)


def test_node_test_loses_the_command_s_own_reporters(tmp_path):
    found = resolve("node --test --test-reporter=tap --test-reporter-destination stdout test/", tmp_path, PATH)
    assert found == Started("node", [NODE, "--test", "test/"], {}, found.via)


@pytest.mark.parametrize(
    ("command", "scripts", "why"),
    [
        ("npm test && echo ok", {"test": "jest"}, "`npm test && echo ok` has shell syntax, which autofix doesn't run"),
        ("npm test", {"test": "jest", "pretest": "tsc"}, "package.json's `pretest` script runs beside `test`"),
        ("npm test", {"test": "mocha"}, "`mocha` starts mocha, which isn't node:test, Jest or Vitest"),
        ("npm run lint", {"test": "jest"}, "package.json has no `lint` script"),
        ("npm test --runInBand", {"test": "jest"}, "`npm test --runInBand`: npm reads arguments before `--`"),
        ("npm test", {"test": "jest $CI_FLAGS"}, "`jest $CI_FLAGS` has shell syntax, which autofix doesn't run"),
        ("node test.js", {}, "`node` without --test isn't a test runner autofix reads"),
    ],
)
def test_what_can_t_be_read_says_why(tmp_path, command, scripts, why):
    found = resolve(command, project(tmp_path, scripts), PATH)
    assert isinstance(found, Unread)
    assert found.why.startswith(why)


def test_scripts_that_loop_stop_at_a_depth(tmp_path):
    work = project(tmp_path, {"test": "npm run a", "a": "npm run test"})
    assert resolve("npm test", work, PATH) == Unread("package.json's scripts name scripts more than 3 levels deep")


def test_a_runner_bin_pointing_out_of_its_package_is_not_started(tmp_path):
    work = project(tmp_path, runners=())
    package = work / "node_modules" / "jest"
    package.mkdir(parents=True)
    (package / "package.json").write_text(json.dumps({"bin": "../../evil.js"}))
    (work / "evil.js").write_text("")
    assert resolve("npx jest", work, PATH) == Unread(
        "jest isn't installed in node_modules: install the dependencies before autofix runs (a workflow step's "
        "`npm ci`) or in `setup`",
        missing=True,
    )


def test_which_commands_are_javascript():
    assert [is_javascript(c) for c in ("npm test", "CI=1 npx jest", "/usr/bin/node --test", "python -m pytest")] == [
        True,
        True,
        True,
        False,
    ]


@pytest.mark.parametrize(("version", "refused"), [("20.0.4", True), ("28.1.3", True), ("29.0.0", False)])
def test_a_jest_older_than_29_is_one_line_naming_it(tmp_path, version, refused):
    """Jest before 29 refuses --workerIdleMemoryLimit: its every run would fail at the command line,
    and the baseline would read that as pre-existing failures. The task stops, saying why."""
    work = project(tmp_path, {"test": "jest"})
    manifest = work / "node_modules" / "jest" / "package.json"
    manifest.write_text(json.dumps({"name": "jest", "version": version, "bin": {"jest": "./bin/jest.js"}}))
    if not refused:
        assert resolve("npm test", work, PATH) == Started("jest", [NODE, entry(work, "jest")], via="npm test -> jest")
        return
    why = (
        f"Jest {version} (node_modules/jest) is older than 29, the first that autofix can run apart from its "
        "reporter (--workerIdleMemoryLimit): upgrade Jest to 29 or later"
    )
    assert resolve("npm test", work, PATH) == Unread(why, missing=True)
    with pytest.raises(UserError) as stopped:
        runner_of("npm test", work)
    assert str(stopped.value) == f"tests.command `npm test`: {why}"
