"""The Markdown autofix writes to GitHub: untrusted text renders as text, and bodies fit GitHub.

Exact strings: each was checked with cmark-gfm, GitHub's renderer, for what it shows."""

import gfm
import pytest

from bot import spec
from bot.core.report import Attempt, Report
from bot.github import render

LIVE = "a|**APPROVED**|<img src=x>@team"


def report(*failing: list[str], feedback: str = "- order: expected [3, 1, 2]") -> Report:
    """One failed attempt per list of failing tests, each with the same `feedback`."""
    done = Report("m", "bwrap", "unique.py", 3)
    for number, names in enumerate(failing, 1):
        done.attempts.append(Attempt(number, False, names, feedback, 0.5, {"input": 20, "output": 10}, "", ""))
    return done


def test_a_check_name_stays_in_its_cell_with_nothing_live():
    # `|` unescaped splits the row before the code span is found: bold, an image and a mention rendered.
    rows = render.attempts_table(report([LIVE], ["x`y\n|z", "[link](https://e.x) <details>"])).splitlines()
    assert rows[2] == "| 1 | ❌ fail | `a\\|**APPROVED**\\|<img src=x>@team` | 0.50 | 30 |"
    assert rows[3] == "| 2 | ❌ fail | 2 | 0.50 | 30 |"  # a count: the names are in the attempt's fold
    page = gfm.read(render.log(report([LIVE], ["x`y\n|z", "[link](https://e.x) <details>"])))
    assert "<img" not in page.html and "<strong>APPROVED" not in page.html
    assert "<li><code>x`y |z</code></li>" in page.html  # the fold's list, each name once


def test_identical_feedback_is_folded_once_and_the_last_attempt_s_is_not_called_sent():
    done = report(["order"], ["order"], ["order"], feedback="- order: expected [3, 1, 2]\n" * 3)
    page = gfm.read(render.log(done))
    assert page.summaries == ["Attempts 1–3: the same failures"]
    done = report(["order"], ["order", "empty"])
    page = gfm.read(render.log(done))
    assert page.summaries == ["Attempt 1: what failed, as the model was told", "Attempt 2: what failed"]


def test_a_repeat_s_feedback_points_at_the_failures_shown_already():
    done = report(["order"], ["order"], feedback="- order: expected [3, 1, 2], got [1, 2, 3]")
    done.attempts[1].feedback = "This is the same code as attempt 1.\n\n" + done.attempts[0].feedback
    page = gfm.read(render.log(done))
    assert page.blocks[1] == "This is the same code as attempt 1.\n\n[the same failures as attempt 1, shown above]\n"


def test_test_ids_are_shown_as_pytest_takes_them():
    assert render.test_name("tests.test_shop::test_minutes[1]") == "tests/test_shop.py::test_minutes[1]"
    assert render.test_name("order") == "order"  # an inline check's name
    assert render.names(["tests.test_calc::test_add"]) == "`tests/test_calc.py::test_add`"


def test_a_summary_shows_autofix_s_code_spans_as_code_elements():
    assert render.spans("your test `x <b>` failed: `a`") == "your test <code>x &lt;b&gt;</code> failed: <code>a</code>"
    assert render.spans("an unclosed ` tick & <i>") == "an unclosed ` tick &amp; &lt;i&gt;"


def test_a_long_diff_is_folded_and_a_short_one_shown():
    short = "".join(f"+line {n}\n" for n in range(render.DIFF_LINES))
    assert render.diff(short) == render.fence(short, "diff")
    long = short + "+one more\n"
    folded = f"<details><summary>The change ({render.DIFF_LINES + 1} lines of diff)</summary>"
    assert render.diff(long).startswith(folded)


@pytest.mark.parametrize(
    "text, span",
    [
        ("tests.test_calc::test_add[a  b]", "`tests.test_calc::test_add[a  b]`"),  # spaces kept: what ran, exactly
        ("line\nbreak\r", "` line break  `"),  # one line: a line break would end a table row
        ("`tick` ", "`` `tick`  ``"),  # GitHub strips the one space padding each side
        (" x", "`  x `"),
    ],
)
def test_code_spans_are_exact_and_on_one_line(text, span):
    assert render.code_span(text) == span


@pytest.mark.parametrize(
    "tests, line",
    [
        (spec.Tests(command="python -m pytest -q tests"), "**Judged by:** `python -m pytest -q tests`."),
        (spec.Tests(command="true"), "**Judged by:** `true`."),
        (spec.Tests(code="assert f() == 1"), "**Judged by:** the 1 inline check of `tests.code`."),
        (
            spec.Tests(code="assert f() == 1\nfor x in (1, 2):\n    assert f(x)", command="make `x`"),
            "**Judged by:** `` make `x` `` and the 2 inline checks of `tests.code`.",
        ),
        (
            spec.Tests(command="make deps\nmake test\n"),
            "**Judged by:** this command:\n\n```sh\nmake deps\nmake test\n```",
        ),
    ],
)
def test_the_tests_that_judged_are_named_exactly(tests, line):
    assert render.judged_by(tests) == line


def test_the_tests_that_judged_are_counted_when_their_run_counted_them():
    assert render.judged_by(spec.Tests(command="pytest -q"), 180) == "**Judged by:** the 180 tests of `pytest -q`."
    both = spec.Tests(code="assert f() == 1", command="make deps\nmake test\n")
    assert render.judged_by(both, 1) == (
        "**Judged by:** the 1 test of this command and the 1 inline check of `tests.code`:\n\n"
        "```sh\nmake deps\nmake test\n```"
    )


def test_a_pull_request_counts_the_tests_of_the_run_that_passed():
    done = report(["order"])
    done.attempts.append(Attempt(2, True, [], "", 0.5, {"input": 20, "output": 10}, "", "", tests_passed=180))
    tests = spec.Tests(command="pytest -q")
    assert render.passed_tests(done) == 180
    assert render.pull_body(done, "<!-- m -->", ["✅ Passed."], tests).endswith(
        "\n\n**Judged by:** the 180 tests of `pytest -q`."
    )
    failed = report(["order"])
    failed.attempts[0].tests_passed = 7  # the passing tests of a run that failed decided nothing
    assert render.passed_tests(failed) is None


def test_the_pull_request_and_the_comment_end_with_the_tests_that_judged():
    done = report(["order"])
    tests = spec.Tests(command="pytest -q")
    assert render.pull_body(done, "<!-- m -->", ["✅ Passed."], tests).endswith(" s\n\n**Judged by:** `pytest -q`.")
    comment = render.failure_comment(done, "<!-- m -->", ["❌ Failed."], tests)
    assert comment.endswith(f"**Judged by:** `pytest -q`.\n\n{render.RETRY}")
    assert "Judged by" not in render.failure_comment(None, "<!-- m -->", ["❌ No target."], None)


def test_a_body_over_github_s_limit_is_cut_visibly_and_still_renders():
    mark = render.marker("pr", 2)
    patch = "".join(f"+line {i} @team <img src=x>\n" for i in range(10_000))
    body = "\n\n".join([mark, "Summary.", render.fence(patch, "diff"), render.log(report(["t"] * 12))])
    assert len(body) > render.BODY_LIMIT
    cut = render.capped(body)
    assert len(cut) <= render.BODY_LIMIT
    assert cut.startswith(f"{mark}\n\nSummary.\n\n```diff\n+line 0 @team")
    kept = cut[: cut.rindex("```\n\n**[")]
    assert kept.endswith(" @team <img src=x>\n")  # a whole line, then the fence is closed and the mark shows
    assert cut == kept + f"```\n\n**[... {len(body) - len(kept):,} characters cut: too long for GitHub ...]**\n"


def test_a_cut_inside_folded_feedback_closes_the_fence_and_the_fold():
    body = render.log(report(["t"], feedback="y\n" * 2_000))
    cut = render.capped(body, 3_000)
    assert len(cut) <= 3_000 and "<details><summary>Attempt 1: what failed</summary>\n\n```text\ny\n" in cut
    kept = cut[: cut.rindex("```\n\n</details>")]
    assert kept.endswith("y\n")
    assert (
        cut
        == kept + f"```\n\n</details>\n\n**[... {len(body) - len(kept):,} characters cut: too long for GitHub ...]**\n"
    )


def test_a_body_within_the_limit_is_left_as_it_is():
    body = render.log(report(["order"]))
    assert render.capped(body) == body


def test_untrusted_text_in_a_summary_is_escaped_html_on_one_line():
    # A line that starts with <details> is raw HTML for GitHub: a code span there is no code.
    hostile = "x <img src=x onerror=alert(1)></summary><a href=//e.x>`y`</a> & @team\nnext"
    assert render.html_code(hostile) == (
        "<code>x &lt;img src=x onerror=alert(1)&gt;&lt;/summary&gt;&lt;a href=//e.x&gt;`y`&lt;/a&gt; &amp; @team "
        "next</code>"
    )
    assert render.details(f"Test file 1: {render.html_code(hostile)}", render.fence(hostile)) == (
        "<details><summary>Test file 1: <code>x &lt;img src=x onerror=alert(1)&gt;&lt;/summary&gt;&lt;a href=//e.x&gt;"
        "`y`&lt;/a&gt; &amp; @team next</code></summary>\n\n"
        "```text\nx <img src=x onerror=alert(1)></summary><a href=//e.x>`y`</a> & @team\nnext\n```\n\n</details>"
    )
