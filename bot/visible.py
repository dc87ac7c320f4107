"""What GitHub shows a reader of a piece of Markdown, and nothing else: the text autofix prompts
with. An HTML comment, a zero-width or invisible tag character, a bidi control is seen by no
maintainer who labels an issue or reviews a pull request, so instructions hidden in them never
reach the model. markdown-it-py (CommonMark) says where the comments are: one in a code span or a
fenced or indented block is shown literally, and stays."""

from __future__ import annotations

import re
from dataclasses import dataclass

from markdown_it import MarkdownIt

# Rendered as nothing. The tag characters (U+E0000..U+E007F) spell ASCII no one sees.
ZERO_WIDTH = re.compile("[\u00ad\u180e\u200b-\u200d\u2060-\u2064\ufeff\U000e0000-\U000e007f]")
BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# A comment a browser hides; one never closed hides the rest of its block.
COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
BACKTICKS = re.compile(r"`+")

PARSER = MarkdownIt("commonmark")


@dataclass(frozen=True)
class Visible:
    text: str
    comments: int = 0
    comment_chars: int = 0
    zero_width: int = 0
    bidi: int = 0

    @property
    def removed(self) -> str:
        """`1 HTML comment, 212 characters; 3 zero-width characters`, or "" when nothing was hidden."""
        parts = []
        if self.comments:
            parts.append(f"{plural(self.comments, 'HTML comment')}, {plural(self.comment_chars, 'character')}")
        if self.zero_width:
            parts.append(plural(self.zero_width, "zero-width character"))
        if self.bidi:
            parts.append(plural(self.bidi, "bidi control"))
        return "; ".join(parts)

    def __add__(self, other: Visible) -> Visible:
        """Two texts' counts together (the text is the first's): what one task dropped in all."""
        return Visible(
            self.text,
            self.comments + other.comments,
            self.comment_chars + other.comment_chars,
            self.zero_width + other.zero_width,
            self.bidi + other.bidi,
        )


def plural(number: int, noun: str) -> str:
    return f"{number} {noun if number == 1 else noun + 's'}"


def visible(markdown: str) -> Visible:
    """`markdown` as a reader sees it, and how much of it was removed."""
    shown = plain(markdown)
    text, zero_width, bidi = shown.text, shown.zero_width, shown.bidi
    lines = text.splitlines(keepends=True)
    comments, chars = 0, 0
    # Replaced from the end, so the line numbers of the ranges before stay right.
    for start, end, cut in reversed(list(hidden_ranges(text))):
        segment = "".join(lines[start:end])
        kept, removed = cut(segment)
        if removed:
            comments += len(removed)
            chars += sum(map(len, removed))
            lines[start:end] = [kept]
    return Visible("".join(lines), comments, chars, zero_width, bidi)


def plain(text: str) -> Visible:
    """Text GitHub shows as it is, not as Markdown (a job's log): only its invisible characters removed."""
    text, zero_width = ZERO_WIDTH.subn("", text)
    text, bidi = BIDI.subn("", text)
    return Visible(text, zero_width=zero_width, bidi=bidi)


def hidden_ranges(text: str):
    """The line ranges holding comments, each with how to cut them: a whole HTML block's, or an
    inline element's out of a paragraph, its code spans skipped."""
    for token in PARSER.parse(text):
        if token.map is None:
            continue
        if token.type == "html_block" and "<!--" in token.content:
            yield token.map[0], token.map[1], cut_block
        elif token.type == "inline" and token.children:
            wanted = [c.content for c in token.children if c.type == "html_inline" and c.content.startswith("<!--")]
            if wanted:
                yield token.map[0], token.map[1], lambda segment, wanted=wanted: cut_inline(segment, wanted)


def cut_block(segment: str) -> tuple[str, list[str]]:
    removed = COMMENT.findall(segment)
    return COMMENT.sub("", segment), removed


def cut_inline(segment: str, wanted: list[str]) -> tuple[str, list[str]]:
    """The comments the parser found (`wanted`, in order) cut from the paragraph's source, what a
    code span holds passed over: the same text there is shown."""
    kept: list[str] = []
    removed: list[str] = []
    unclosed: set[int] = set()  # widths with no closing run further on: none later either, so no rescan
    at = 0
    while at < len(segment) and wanted:
        ticks = BACKTICKS.match(segment, at)
        if ticks:
            width = len(ticks[0])
            close = None if width in unclosed else closing_ticks(segment, ticks.end(), width)
            if close is None:
                unclosed.add(width)
            end = close if close is not None else ticks.end()
            kept.append(segment[at:end])
            at = end
        elif segment.startswith(wanted[0], at):
            removed.append(wanted.pop(0))
            at += len(removed[-1])
        else:
            kept.append(segment[at])
            at += 1
    kept.append(segment[at:])
    return "".join(kept), removed


def closing_ticks(segment: str, start: int, width: int) -> int | None:
    """Where the code span opened by `width` backticks ends: after the next run of exactly as
    many (CommonMark); None when there is none, and the backticks are only text."""
    for run in BACKTICKS.finditer(segment, start):
        if len(run[0]) == width:
            return run.end()
    return None
