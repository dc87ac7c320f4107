"""What a JavaScript test file declares for every run, read from its source (bot/judge/js/expected.py)."""

from bot.judge.js import expected

SOURCE = """\
import { describe, test, it } from "vitest";
test("top", () => {});
describe("outer", () => {
  it("in outer", async () => {});
  describe('inner', function () {
    test("deep", () => {});
  });
  if (process.env.SLOW) {
    test("only sometimes", () => {});
  }
  for (const n of [1, 2]) test(`n ${n}`, () => {});
  test.each([1])("each %i", () => {});
  test.skip("skipped", () => {});
  helper();
});
describe.each([1])("rows %i", () => { test("in rows", () => {}); });
describe(name, () => { test("in a computed suite", () => {}); });
function helper() { test("in a helper", () => {}); }
const later = () => test("in an arrow", () => {});
test("no callback");
"""


def test_only_what_every_run_declares_is_expected(tmp_path):
    (tmp_path / "a.test.ts").write_text(SOURCE)
    assert expected.declared(str(tmp_path), "a.test.ts", "vitest") == {
        "top",
        "outer > in outer",
        "outer > inner > deep",
    }


def test_an_unreadable_file_declares_nothing(tmp_path):
    assert expected.declared(str(tmp_path), "absent.test.js", "jest") == set()


def test_a_name_filter_makes_the_declared_tests_unexpected():
    assert expected.filtered(["node", "jest", "-t", "adds"])
    assert expected.filtered(["node", "--test", "--test-name-pattern=adds"])
    assert not expected.filtered(["node", "jest", "--ci", "test/"])
