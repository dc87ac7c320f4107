"""bot/text.py: every cut keeps to its budget and shows where it cut."""

from bot.text import capped_markdown, clip_head, clip_line, clip_tail, closing


def test_text_within_the_limit_is_left_alone():
    assert clip_head("short", 10) == clip_tail("short", 10) == clip_line("short", 10) == "short"


def test_clip_head_keeps_the_beginning_and_counts_the_cut():
    text = "a" * 50 + "b" * 950
    cut = clip_head(text, 100)
    assert len(cut) <= 100
    kept = cut.split("\n")[0]
    assert text.startswith(kept) and cut == kept + f"\n[... {1000 - len(kept)} characters cut ...]"


def test_clip_tail_keeps_the_end_and_counts_the_cut():
    text = "a" * 950 + "z" * 50
    cut = clip_tail(text, 100)
    assert len(cut) <= 100
    kept = cut.split("\n", 1)[1]
    assert text.endswith(kept) and cut == f"[... {1000 - len(kept)} characters cut ...]\n" + kept


def test_clip_line_ends_in_dots():
    assert clip_line("x" * 200, 120) == "x" * 117 + "..."


def test_markdown_is_cut_after_a_whole_line_and_its_fence_closed():
    body = "intro\n```text\n" + "".join(f"line {i}\n" for i in range(1000)) + "```\nend\n"
    cut = capped_markdown(body, 500, "too long")
    assert len(cut) <= 500
    kept, mark = cut.rsplit("```\n\n", 1)
    assert body.startswith(kept) and kept.endswith("\n")
    assert mark == f"**[... {len(body) - len(kept):,} characters cut: too long ...]**\n"


def test_one_huge_line_is_cut_inside_the_line_rather_than_lost():
    body = "<!-- mark -->\n" + "x" * 100_000
    cut = capped_markdown(body, 1000, "GitHub takes at most 1,000")
    assert len(cut) <= 1000 and cut.startswith("<!-- mark -->\nxxx")
    assert cut.endswith("characters cut: GitHub takes at most 1,000 ...]**\n")


def test_the_limit_is_measured_as_the_caller_measures():
    body = "ü" * 1000 + "\n" + "ü" * 1000 + "\n"
    cut = capped_markdown(body, 1500, "bytes", size=lambda s: len(s.encode()))
    assert len(cut.encode()) <= 1500 and cut.startswith("ü" * 10)


def test_closing_follows_commonmark_fences_and_details():
    assert closing("~~~~\ncode\n~~~\n") == "~~~~\n"  # a shorter fence doesn't close a longer one
    assert closing("````\ncode\n````\n") == ""
    assert closing("<details>\n```\nx\n") == "```\n" + "\n</details>\n"
    assert closing("```\n<details>\n") == "```\n"  # inside a fence, <details> is only text
