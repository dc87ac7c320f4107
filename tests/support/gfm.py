"""What a reader sees of autofix's Markdown: rendered by cmark-gfm, GitHub's own renderer (its
tables, autolinks, strikethrough and tag filter), raw HTML kept as GitHub keeps `<details>`, then
read back as HTML. `shown` asserts what every body, comment and summary must hold (#27): the
verdict line first, no Markdown left as text, `<summary>` text escaped, counts agreeing with their
nouns, no block of text shown twice."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

import cmarkgfm
from cmarkgfm.cmark import Options

# A count and its noun disagreeing: "1 new failures", "1 tests", "2 attempt".
SINGULAR = re.compile(r"\b1 (?:new )?(?:tests|failures|attempts|mutants|checks|files|lines|times)\b")
PLURAL = re.compile(
    r"\b(?:[02-9]|\d\d+) (?:new )?(?:test|failure|attempt|mutant|check|file|line|time)\b(?![-\w]| files?\b)"
)


def render(markdown: str) -> str:
    return cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)


@dataclass
class Page:
    html: str
    paragraphs: list[str] = field(default_factory=list)  # each top-level paragraph's text
    summaries: list[str] = field(default_factory=list)  # each <summary>'s inner HTML, as written
    blocks: list[str] = field(default_factory=list)  # each <pre>'s text
    prose: str = ""  # the text outside code, as a reader reads it
    links: list[str] = field(default_factory=list)  # every <a href>

    def first(self) -> str:
        return self.paragraphs[0] if self.paragraphs else ""


class Reader(HTMLParser):
    def __init__(self, page: Page):
        super().__init__(convert_charrefs=True)
        self.page = page
        self.depth = 0  # of block elements: a paragraph at 0 is top-level
        self.paragraph: list[str] | None = None
        self.code = 0
        self.pre: list[str] | None = None
        self.prose: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "p" and self.depth == 0:
            self.paragraph = []
        if tag in ("details", "table", "blockquote", "ul", "ol"):
            self.depth += 1
        if tag in ("code", "pre"):
            self.code += 1
        if tag == "pre":
            self.pre = []
        if tag == "a":
            self.page.links.append(dict(attrs).get("href") or "")

    def handle_endtag(self, tag):
        if tag == "p" and self.paragraph is not None:
            self.page.paragraphs.append("".join(self.paragraph).strip())
            self.paragraph = None
        if tag in ("details", "table", "blockquote", "ul", "ol"):
            self.depth -= 1
        if tag in ("code", "pre"):
            self.code -= 1
        if tag == "pre" and self.pre is not None:
            self.page.blocks.append("".join(self.pre))
            self.pre = None
        self.prose.append(" ")

    def handle_data(self, data):
        if self.paragraph is not None:
            self.paragraph.append(data)
        if self.pre is not None:
            self.pre.append(data)
        if not self.code:
            self.prose.append(data)


def read(markdown: str) -> Page:
    page = Page(render(markdown))
    reader = Reader(page)
    reader.feed(page.html)
    page.prose = " ".join("".join(reader.prose).split())
    page.summaries = re.findall(r"<summary>(.*?)</summary>", page.html, re.S)
    return page


def shown(markdown: str, run_url: str | None = None) -> Page:
    """`markdown` as GitHub shows it, with what every output of autofix must hold asserted."""
    page = read(markdown)
    assert page.first()[:1] in ("✅", "❌"), f"the first paragraph is no verdict: {page.first()!r}"
    assert "`" not in page.prose, f"a backtick shown as text: {page.prose!r}"
    for summary in page.summaries:
        outside = re.sub(r"<code>[^<]*</code>", "", summary)
        assert "<" not in outside and "`" not in outside, f"a <summary> holding markup or backticks: {summary!r}"
    wrong = SINGULAR.findall(page.prose) + PLURAL.findall(page.prose)
    assert not wrong, f"counts and nouns disagree: {wrong}"
    blocks = [block for block in page.blocks if len(block) > 40]
    assert len(blocks) == len(set(blocks)), "a block of text shown twice"
    if run_url is not None:
        assert run_url in page.links, f"no link to the run {run_url}: {page.links}"
    return page
