"""The gate (bot/judge/gate.py) with a JavaScript suite: the baseline names the failing Jest tests
and learns which tests can be twinned; a fix passes the whole suite against it; a candidate
that forges outcomes is caught by the twins the gate's runs plant."""

import json

import pytest
from test_js_spec import BROKEN, EVERYWHERE, FIXED, TESTS

from bot.judge import gate
from bot.judge.js.command import linked_modules
from bot.judge.validate import open_test_sandbox
from bot.spec import DEFAULT_PROTECT

FAILING = ["test/chunk.test.js::chunk > one per chunk", "test/chunk.test.js::chunk > splits into pairs"]


def jest_project(folder, node_modules, files: dict[str, str]):
    """`files` (path: text) beside a package.json whose `npm test` runs Jest, and the runners' node_modules."""
    for path, text in files.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(text)
    (folder / "package.json").write_text(json.dumps({"name": "p", "scripts": {"test": "jest"}}))
    (folder / "node_modules").symlink_to(node_modules)
    return folder


@pytest.fixture
def head(tmp_path, node_modules):
    return jest_project(tmp_path, node_modules, {"src/chunk.js": BROKEN, "test/chunk.test.js": TESTS})


@pytest.mark.parametrize("tier", ["bwrap", "landlock"])
def test_the_gate_judges_a_jest_suite_and_its_twins_catch_a_forger(head, tier):
    sandbox = open_test_sandbox(tier, "--sandbox", print, also=linked_modules(head))
    suite = gate.Suite(sandbox, "npm test", DEFAULT_PROTECT, timeout=60, jobs=2)
    baseline = gate.Baseline.measure(suite, head)
    assert (baseline.target, baseline.flaky) == (FAILING, [])
    assert baseline.passing == {"test/chunk.test.js::chunk > handles empty input"}
    assert set(suite.twinned) == {*FAILING, *baseline.passing}  # every test's twin behaved

    (head / "src" / "chunk.js").write_text(FIXED)
    run = suite.run(head)
    assert run.forged == [] and gate.judge(baseline, run).passed
    assert set(run.results) == {*FAILING, *baseline.passing}  # the twins are not among the results

    (head / "src" / "chunk.js").write_text(EVERYWHERE)
    run = suite.run(head)
    assert run.forged and "a canary that fails by construction was reported passed" in run.forged[0]


DOUBLE = "exports.double = (x) => x * 2;\n"
SAME_NAMES = (
    'const { double } = require("../src/double");\n\n'
    'test("doubles", () => {\n  expect(double(2)).toBe(4);\n});\n\n'
    'test("doubles", () => {\n  expect(double(0)).toBe(0);\n});\n'
)


def test_of_two_tests_of_one_name_the_one_that_fails_is_the_name_s_outcome(tmp_path, node_modules):
    """Jest reports both (an `it.each` or ESLint's RuleTester makes many); the judges key a test by
    its file and name. A candidate breaking the first of the two, the second passing after it, is
    refused: read as one outcome per name, the last one's pass would hide the failure."""
    jest_project(tmp_path, node_modules, {"src/double.js": DOUBLE, "test/double.test.js": SAME_NAMES})
    sandbox = open_test_sandbox("bwrap", "--sandbox", print, also=linked_modules(tmp_path))
    suite = gate.Suite(sandbox, "npm test", DEFAULT_PROTECT, timeout=60, jobs=2)
    baseline = gate.Baseline.measure(suite, tmp_path)
    assert baseline.passing == {"test/double.test.js::doubles"}
    (tmp_path / "src" / "double.js").write_text("exports.double = (x) => (x === 2 ? 5 : x * 2);\n")
    verdict = gate.judge(baseline, suite.run(tmp_path))
    assert not verdict.passed
    assert [name for name, _ in verdict.newly_broken] == ["test/double.test.js::doubles"]
