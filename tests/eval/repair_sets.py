"""What the tests of the shipped repair sets share (test_repair_set.py for examples/repair/,
test_js_repair_set.py for examples/js-repair/): a set is a folder of specs, each target with one
wrong line, whose tests fail on the target as shipped and pass with that line fixed, judged in the
real sandbox. Test modules beside it import it by name (pytest puts their folder on the path)."""

from collections.abc import Iterable
from pathlib import Path

import pytest

from bot import spec as specs
from bot.judge.validate import Validator, open_test_sandbox


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
