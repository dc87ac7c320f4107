"""What the tests of the shipped repair sets share (test_repair_set.py for examples/repair/,
test_js_repair_set.py for examples/js-repair/): a set is a folder of specs, each target with one
wrong line, whose tests fail on the target as shipped and pass with that line fixed, judged in the
real sandbox. Test modules beside it import it by name (pytest puts their folder on the path)."""

import shlex
import shutil
from collections.abc import Iterable
from pathlib import Path

import pytest

from bot import spec as specs
from bot.judge.scratch import Copies
from bot.judge.validate import Validator, open_test_sandbox
from bot.judge.verdict import run_tests, writable_in
from bot.sandbox.tiers import Limits


@pytest.fixture(scope="module")
def sandbox():
    return open_test_sandbox("auto", "test", lambda text: None)


def specs_of(folder: Path, names: Iterable[str]) -> dict[str, specs.Spec]:
    """The set's specs by name: one for each of `names`, and no other in `folder`."""
    assert sorted(path.stem for path in folder.glob("*.yml")) == sorted(names)
    return {name: specs.load(folder / f"{name}.yml") for name in names}


def assert_fails_then_fixed(spec: specs.Spec, wrong: str, right: str, sandbox) -> None:
    """The spec's tests fail on its target as shipped, which holds `wrong` once, and pass with
    `right` in its place; the shipped file is left as it was."""
    shipped = spec.target_path.read_text(encoding="utf-8")
    assert shipped.count(wrong) == 1, spec.target
    validator = Validator(spec, sandbox)
    failed = validator.check(shipped)
    assert not failed.passed and failed.failing, spec.target
    fixed = validator.check(shipped.replace(wrong, right))
    assert fixed.passed, fixed.feedback
    assert spec.target_path.read_text(encoding="utf-8") == shipped


def judged_together(fixes: Iterable[tuple[specs.Spec, str, str]], scratch: Path, sandbox) -> tuple[set[str], set[str]]:
    """Pytest tasks judged at once: one sandboxed run of every task's test file on its target as
    shipped, which holds `wrong` once, and one with `right` in its place, each run in a folder of
    `scratch` holding every target and test file. The test ids each run failed come back; both
    runs must report the same tests, every file's among them, and the shipped files are left as
    they were."""
    tasks = [(spec, wrong, right, shlex.split(spec.tests.command or "")) for spec, wrong, right in fixes]
    prefix = tasks[0][3][:-1]  # each command is `python -m pytest ... test_NAME.py`: one command runs them all
    assert all(argv[:-1] == prefix for *_, argv in tasks)
    files = {spec.target_path: spec.workdir / argv[-1] for spec, *_, argv in tasks}
    before = {path: path.read_text(encoding="utf-8") for pair in files.items() for path in pair}
    command = shlex.join([*prefix, *(test.name for test in files.values())])
    runs = []
    for fixed in (False, True):
        folder = scratch / ("fixed" if fixed else "shipped")
        folder.mkdir()
        for spec, wrong, right, _ in tasks:
            shipped = before[spec.target_path]
            assert shipped.count(wrong) == 1, spec.target
            (folder / spec.target).write_text(shipped.replace(wrong, right) if fixed else shipped, encoding="utf-8")
            shutil.copyfile(files[spec.target_path], folder / files[spec.target_path].name)
        runs.append(pytest_run(folder, command, sandbox))
    assert runs[0].keys() == runs[1].keys(), runs
    assert {test.split("::")[0] for test in runs[0]} == {test.stem for test in files.values()}  # ids name modules
    assert [path for path, text in before.items() if path.read_text(encoding="utf-8") != text] == []
    shipped_failing, fixed_failing = ({test for test, outcome in run.items() if outcome != "passed"} for run in runs)
    return shipped_failing, fixed_failing


def pytest_run(folder: Path, command: str, sandbox) -> dict[str, str]:
    """`command` run once in a scratch copy of `folder`, read-only to it, in the sandbox: each
    test's outcome."""
    with Copies(folder, sandbox, ()).use() as scratch:
        run = run_tests(sandbox, command, scratch.work, Limits(), writable=writable_in(scratch.work, ()), plugins=None)
    assert run.cases is not None, run.outcome.output
    return {case.test_id: case.outcome for case in run.cases}
