"""Twins of a JavaScript suite's tests (bot/judge/js/canaries.py): planted beside every test file
that holds a failing test, named from the suite's words, each a copy of its file with every test
call but the twins taken out; a broken twin ends on its test's own assertion."""

import re
import shutil
import subprocess

import pytest
from ast_grep_py import SgRoot

from bot.judge.js import canaries

FILE_A = """\
const { chunk } = require("../src/chunk");

describe("chunk", () => {
  beforeEach(() => {});
  test("splits into pairs", () => {
    expect(chunk([1, 2, 3], 2)).toEqual([[1, 2], [3]]);
  });
  test.each([[1], [2]])("size %i", (n) => { expect(chunk([1], n)).toEqual([[1]]); });
  it("keeps order", () => expect(chunk([2, 1], 1)).toEqual([[2], [1]]));
});
"""
FILE_B = """\
const assert = require("node:assert");
const { chunk } = require("../src/chunk");

test("empty", () => {
  assert.deepStrictEqual(chunk([], 2), []);
});
"""
LAST = {
    "test/a.test.js::chunk > splits into pairs": "failed",
    "test/a.test.js::chunk > keeps order": "passed",
    "test/b.test.js::empty": "failed",
}


def tree(tmp_path):
    (tmp_path / "test").mkdir()
    (tmp_path / "test" / "a.test.js").write_text(FILE_A)
    (tmp_path / "test" / "b.test.js").write_text(FILE_B)
    return tmp_path


def test_every_file_with_a_failing_test_gets_a_planted_copy_beside_it(tmp_path):
    planting = canaries.plant(
        str(tree(tmp_path)), LAST, "jest", prefer=["test/a.test.js::chunk > splits into pairs", "test/b.test.js::empty"]
    )
    assert sorted(planted.path.split("-")[0] for planted in planting) == ["test/a", "test/b"]
    for planted in planting:
        assert planted.path.endswith(".test.js") and planted.path.count("-") == 2
        originals = {twin.original for twin in planted.twins}
        assert originals <= set(LAST) and len({o.split("::")[0] for o in originals}) == 1


def test_a_copy_keeps_the_file_s_setup_and_only_its_twins(tmp_path):
    planting = canaries.plant(str(tree(tmp_path)), LAST, "jest", prefer=["test/a.test.js::chunk > splits into pairs"])
    copy = next(planted for planted in planting if planted.path.startswith("test/a-"))
    assert 'require("../src/chunk")' in copy.text and "beforeEach(() => {});" in copy.text
    assert "test.each" not in copy.text and '"splits into pairs"' not in copy.text
    broken = [twin for twin in copy.twins if twin.broken]
    assert broken and all(twin.test_id.startswith(f"{copy.path}::chunk > ") for twin in copy.twins)
    # The broken twin fails on the test's own last assertion, its expected array changed.
    assert re.search(r"expect\(chunk\(\[1, 2, 3\], 2\)\)\.toEqual\(\[\[1, 2\], \[(?!3\])\d+\]\]\);", copy.text)


def test_a_forged_pass_a_missing_twin_or_an_echo_unlike_its_test_is_named(tmp_path):
    from bot.judge.integrity import Case

    planting = canaries.plant(str(tree(tmp_path)), LAST, "jest", prefer=["test/b.test.js::empty"])
    b = next(planted for planted in planting if planted.path.startswith("test/b-"))
    cases = [Case(test, outcome) for test, outcome in LAST.items()]
    honest = [*cases, *(Case(twin.test_id, "failed") for twin in b.twins)]
    kept, forged = canaries.sift(honest, [b])
    assert (kept, forged) == (cases, [])
    flipped = [*cases, *(Case(twin.test_id, "passed") for twin in b.twins)]
    assert any("fails by construction was reported passed" in why for why in canaries.sift(flipped, [b])[1])
    assert any("missing from the report" in why for why in canaries.sift(cases, [b])[1])


NESTED = """\
test("outer", () => {
  test("inner", () => {});
});
test("after", () => {});
"""


def test_a_test_declared_in_a_test_s_body_goes_with_the_outer_one():
    statements = canaries.test_statements(SgRoot(NESTED, "javascript").root())
    assert len(statements) == 3  # the inner one's span lies inside the outer one's
    assert canaries.rewritten(NESTED, statements, {}) == ";\n;\n"
    assert canaries.rewritten(NESTED, statements, {0: ["twin();"]}) == "twin();\n;\n"


def test_the_runners_counts_which_count_the_twins_are_scrubbed_from_what_the_model_reads(tmp_path):
    planting = canaries.plant(str(tree(tmp_path)), LAST, "vitest", prefer=["test/b.test.js::empty"])
    output = (
        " FAIL  test/b.test.js > empty\nAssertionError: expected [] to deeply equal [ 1 ]\n"
        " Test Files  2 failed (3)\n      Tests  3 failed | 11 passed (14)\n"
        "Test Suites: 2 failed, 2 total\nTests:       3 failed, 11 passed, 14 total\n"
        "ℹ tests 14\nℹ pass 11\n   Duration  1.2s\n"
    )
    assert canaries.scrub(output, planting) == (
        " FAIL  test/b.test.js > empty\nAssertionError: expected [] to deeply equal [ 1 ]\n   Duration  1.2s\n"
    )


def broken_twin(tmp_path, assertion: str, runner: str = "jest", name: str = "f.test.js") -> str:
    """The statement of the broken twin autofix plants for a one-test file ending on `assertion`."""
    (tmp_path / name).write_text(f'test("sums", () => {{\n  const x = [1];\n  {assertion};\n}});\n')
    test = f"{name}::sums"
    planting = canaries.plant(str(tmp_path), {test: "failed"}, runner, prefer=[test])
    (twin,) = [twin for planted in planting for twin in planted.twins if twin.broken]
    title = twin.test_id.rsplit("::", 1)[-1]
    text = planting[0].text
    start = text.index(f'test("{title}"')
    return text[start : text.index("\n});", start) + 4]


def differs_only_in(twin: str, before: str, after: str, original: str) -> str:
    """The twin is the test again but for what lies between `before` and `after`, which is not `original`."""
    lines = twin.split("\n")
    assert lines[1] == "  const x = [1];" and lines[-1] == "});"
    line = lines[2]
    assert line.startswith("  " + before) and line.endswith(after + ";"), twin
    middle = line[len(before) + 2 : -len(after) - 1]
    assert middle and middle != original, twin
    return middle


@pytest.mark.parametrize(
    ("assertion", "before", "after", "original", "changed"),
    [
        (
            "expect(sum(x)).toEqual([[1, 2], [3]])",
            "expect(sum(x)).toEqual(",
            ")",
            "[[1, 2], [3]]",
            r"\[\[1, 2\], \[(\d+)\]\]",
        ),
        ("expect(sum(x)).toBe(3)", "expect(sum(x)).toBe(", ")", "3", r"(\d+)"),
        ('expect(sum(x)).toBe("x")', "expect(sum(x)).toBe(", ")", '"x"', r'"x [a-z]+"'),
        ("expect(sum(x)).toStrictEqual({a: 1})", "expect(sum(x)).toStrictEqual(", ")", "{a: 1}", r"\{a: (\d+)\}"),
        ("assert.deepStrictEqual(sum(x), [1])", "assert.deepStrictEqual(sum(x), ", ")", "[1]", r"\[(\d+)\]"),
        ("assert.strictEqual(sum(x), 2)", "assert.strictEqual(sum(x), ", ")", "2", r"(\d+)"),
        ("expect(sum(x)).toBe(true)", "expect(sum(x)).toBe(", ")", "true", r"false"),
    ],
    ids=[
        "toEqual-array",
        "toBe-number",
        "toBe-string",
        "toStrictEqual-object",
        "deepStrictEqual",
        "strictEqual",
        "toBe-true",
    ],
)
def test_a_broken_twin_keeps_the_call_and_the_matcher_and_changes_the_expected_literal(
    tmp_path, assertion, before, after, original, changed
):
    runner = "node" if assertion.startswith("assert") else "jest"
    middle = differs_only_in(broken_twin(tmp_path, assertion, runner), before, after, original)
    found = re.fullmatch(changed, middle)
    assert found is not None, middle
    if found.groups():  # a number moved, never by one (an off-by-one fix isn't a forger)
        assert abs(int(found[1]) - int(re.findall(r"\d+", original)[-1])) >= 2


def test_a_matcher_without_an_expected_value_is_followed_by_its_opposite(tmp_path):
    """The assertion as it is (it fails as its original does while the bug is there), then its
    opposite (which fails on any fix). No argument added: `toBeNull(1653)` is TS2554 to ts-jest,
    and the whole copy fails to compile."""
    null = broken_twin(tmp_path, "expect(sum(x)).toBeNull()").split("\n")[2]
    assert null == "  expect(sum(x)).toBeNull(); expect(sum(x)).not.toBeNull();"
    plain = broken_twin(tmp_path, "expect(sum(x)).not.toContain(3)").split("\n")[2]
    assert plain == "  expect(sum(x)).not.toContain(3); expect(sum(x)).toContain(3);"
    resolved = broken_twin(tmp_path, "await expect(sum(x)).resolves.toBeUndefined()").split("\n")[2]
    assert (
        resolved
        == "  await expect(sum(x)).resolves.toBeUndefined(); await expect(sum(x)).resolves.not.toBeUndefined();"
    )
    ok = broken_twin(tmp_path, "assert.ok(sum(x))", "node").split("\n")[2]
    assert ok == "  assert.ok(sum(x)); assert.ok(!(sum(x)));"


def test_an_expected_value_named_is_changed_at_run_time_by_its_type(tmp_path):
    middle = differs_only_in(
        broken_twin(tmp_path, "expect(sum(x)).toEqual(want)"), "expect(sum(x)).toEqual(", ")", "want"
    )
    assert middle.startswith("((v) => ") and middle.endswith(")(want)")
    if shutil.which("node") is None:
        pytest.skip("no node")
    # Every value comes out as one no value equal to it equals (what node:assert and Jest's equals() agree on).
    script = (
        'const assert = require("node:assert");\n'
        f"const change = (want) => {middle};\n"
        "for (const want of [0, 3, -1.5, NaN, Infinity, 1e20, 2n, '', 'x', true, false, null, undefined,\n"
        "  [], [1, [2]], {}, {a: 1}, new Map([[1, 2]]), Symbol('s'), () => 1, new Date(0)]) {\n"
        "  assert.notDeepStrictEqual(change(want), want);\n"
        "  assert.notDeepEqual(change(want), want);\n"
        "}\n"
    )
    done = subprocess.run(["node", "-e", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_a_broken_twin_is_drawn_alike_all_the_process_long_and_a_typescript_copy_is_unchecked(tmp_path):
    """Calibration's twin is the runs' twin: a test whose broken code happens to give the changed
    value fails calibration, and is never twinned."""
    lines = {broken_twin(tmp_path, "expect(sum(x)).toEqual(want)", name="f.test.ts").split("\n")[2] for _ in range(3)}
    assert len(lines) == 1 and "((v: any) => " in lines.pop()  # a parameter typed for TypeScript
    test = "f.test.ts::sums"
    (planted,) = canaries.plant(str(tmp_path), {test: "failed"}, "jest", prefer=[test])
    assert planted.text.startswith("// @ts-nocheck\n")


def test_a_test_that_may_return_before_its_last_assertion_keeps_it_and_fails_after_its_body(tmp_path):
    twin = broken_twin(tmp_path, "if (x.length > 3) return;\n  expect(sum(x)).toBe(3)")
    assert "expect(sum(x)).toBe(3);" in twin and re.search(r"expect\(\d+\)\.toBe\(\d+\);", twin)
