"""Twins of a JavaScript suite's tests (bot/judge/js/canaries.py): planted beside every test file
that holds a failing test, named from the suite's words, each a copy of its file with every test
call but the twins taken out; a broken twin ends on its test's own assertion."""

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
    # The broken twin fails on the test's own matcher, two different numbers compared.
    assert "expect(" in copy.text.split("})();")[1]


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
