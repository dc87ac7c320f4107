"""Markdown as GitHub renders it, read back as the text a reader sees. cmark-gfm (GitHub's own
renderer, its extensions on) turns it into HTML with the raw HTML kept, as GitHub keeps it before
sanitizing; what reaches the text is then only what a page shows: the text between tags, through
an allowlist of elements modelled on GitHub's sanitizer (html-pipeline's SanitizationFilter). No
attribute's text, comment, processing instruction, CDATA section, declaration or link reference
definition can reach it, because nothing but text between tags is ever read: hidden text needs
no entry on any list to stay out. An element outside the allowlist is unwrapped (its tag gone,
its text kept), as GitHub's sanitizer does, unless browsers never show what it holds (`HIDDEN`).

The text keeps what matters for code as Markdown: code blocks fenced with their language, inline
code in backticks, headings, emphasis, lists, quotes, tables. A link is its text (the address is
seen only by hovering), an image `[image]` (its alt text shows only when it fails to load)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

import cmarkgfm
from cmarkgfm.cmark import Options
from markdown_it import MarkdownIt

# GitHub keeps raw HTML (then sanitizes it) and renders footnotes.
OPTIONS = Options.CMARK_OPT_UNSAFE | Options.CMARK_OPT_FOOTNOTES
# Elements whose content browsers never show: the HTML standard's hidden elements (rendering,
# 15.3.1), `noscript` with scripting on, and ruby's fallback parentheses. The rest of them
# (`script`, `style`, `title`, `xmp`, ...) never open: cmark-gfm's tag filter shows them as text.
HIDDEN = frozenset((
    "area", "base", "basefont", "datalist", "head", "link", "meta", "noembed", "noframes", "noscript", "param", "rp",
    "script", "style", "template", "title",
))  # fmt: skip
VOID = frozenset((
    "area", "base", "br", "col", "embed", "hr", "img", "input", "keygen", "link", "meta", "param", "source", "track",
    "wbr",
))  # fmt: skip
BLOCKS = frozenset((
    "address", "article", "aside", "blockquote", "dd", "details", "div", "dl", "dt", "figcaption", "figure",
    "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section",
    "summary", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
))  # fmt: skip
# The attributes GitHub's sanitizer keeps (html-pipeline's SanitizationFilter: those of every
# element, then `a`'s, `img`'s, `div`'s, quotes'), and those cmark-gfm writes itself. Never read
# either way; the value of any other is counted: GitHub strips it, so it is there to hide.
KEPT_ATTRIBUTES = frozenset((
    "abbr", "accept", "accept-charset", "accesskey", "action", "align", "alt", "axis", "border", "cellpadding",
    "cellspacing", "char", "charoff", "charset", "checked", "clear", "cols", "colspan", "color", "compact", "coords",
    "datetime", "dir", "disabled", "enctype", "for", "frame", "headers", "height", "hreflang", "hspace", "ismap",
    "label", "lang", "maxlength", "media", "method", "multiple", "name", "nohref", "noshade", "nowrap", "open",
    "prompt", "readonly", "rel", "rev", "rows", "rowspan", "rules", "scope", "selected", "shape", "size", "span",
    "start", "summary", "tabindex", "target", "title", "type", "usemap", "valign", "value", "vspace", "width",
    "itemprop", "href", "src", "longdesc", "itemscope", "itemtype", "cite", "class", "id", "aria-label",
    "data-footnotes", "data-footnote-ref", "data-footnote-backref", "data-footnote-backref-idx",
))  # fmt: skip
EMPHASIS = {"strong": "**", "b": "**", "em": "*", "i": "*", "del": "~~", "s": "~~", "strike": "~~"}
TICKS = re.compile(r"`+")
REFERENCES = MarkdownIt("commonmark")
# A line that may open a link reference definition (`[label]:`), inside quotes and lists too:
# markdown-it-py parses only a text holding one.
DEFINITION = re.compile(r"^[ \t>*+\-\d.)]*\[[^\]\n]+\]:", re.MULTILINE)


@dataclass
class Node:
    tag: str
    attrs: dict[str, str]
    children: list[Node | str] = field(default_factory=list)


@dataclass
class Rendered:
    text: str
    comments: int = 0
    comment_chars: int = 0
    hidden: int = 0  # processing instructions, CDATA, declarations, what `HIDDEN` elements held
    hidden_chars: int = 0
    references: int = 0  # link reference definitions no link uses: shown nowhere
    reference_chars: int = 0


def rendered(markdown: str) -> Rendered:
    """`markdown` as a GitHub page shows it, and what of it no page shows, counted."""
    tree = Tree()
    tree.feed(cmarkgfm.github_flavored_markdown_to_html(markdown, options=OPTIONS))
    tree.finish()
    out = Rendered("", tree.comments, tree.comment_chars, tree.hidden, tree.hidden_chars)
    out.text = "\n\n".join(Text(out).blocks(tree.root.children))
    out.references, out.reference_chars = unused_references(markdown)
    return out


class Tree(HTMLParser):
    """The HTML as a tree of elements and text; comments and the like counted and dropped. An end
    tag closes the innermost element it names, an element never closed holds the rest, as a
    browser's tree builder does in the main."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("", {})
        self.open = [self.root]
        self.comments = self.comment_chars = self.hidden = self.hidden_chars = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = self.element(tag, attrs)
        if tag not in VOID:
            self.open.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.element(tag, attrs)

    def element(self, tag: str, attrs: list[tuple[str, str | None]]) -> Node:
        node = Node(tag, {name: value or "" for name, value in attrs})
        self.open[-1].children.append(node)
        for name, value in node.attrs.items():
            if value and name not in KEPT_ATTRIBUTES:
                self.hide(len(value))
        return node

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self.open) - 1, 0, -1):
            if self.open[depth].tag == tag:
                del self.open[depth:]
                return

    def handle_data(self, data: str) -> None:
        self.open[-1].children.append(data)

    def handle_comment(self, data: str) -> None:
        self.comments += 1
        self.comment_chars += len(data) + len("<!---->")

    def handle_pi(self, data: str) -> None:
        self.hide(len(data) + len("<?>"))

    def handle_decl(self, decl: str) -> None:
        self.hide(len(decl) + len("<!>"))

    def unknown_decl(self, data: str) -> None:  # <![CDATA[...]]>
        self.hide(len(data) + len("<![]]>"))

    def hide(self, chars: int) -> None:
        self.hidden += 1
        self.hidden_chars += chars

    def finish(self) -> None:
        """What is left unparsed at the end begins with a construct never closed (`<!--`, a tag
        cut off): a browser hides it to the end of the page. html.parser would pass it on as text."""
        rest = self.rawdata
        if rest.startswith("<"):
            self.rawdata = ""
            if rest.startswith("<!--"):
                self.comments += 1
                self.comment_chars += len(rest)
            else:
                self.hide(len(rest))
        self.close()


class Text:
    """The tree as Markdown text, blocks separated by a blank line."""

    def __init__(self, counts: Rendered):
        self.counts = counts

    def blocks(self, children: list[Node | str]) -> list[str]:
        out: list[str] = []
        run: list[str] = []
        for child in children:
            if isinstance(child, Node) and child.tag in BLOCKS:
                out.extend(flush(run))
                out.extend(self.block(child))
            else:
                run.append(self.inline(child))
        out.extend(flush(run))
        return [block for block in out if block]

    def block(self, node: Node) -> list[str]:
        tag = node.tag
        if tag == "pre":
            return [fence(node.attrs.get("lang", ""), self.raw(node))]
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            return [f"{'#' * int(tag[1])} {self.line(node)}"]
        if tag == "hr":
            return ["---"]
        if tag == "blockquote":
            return ["\n".join(f"> {line}".rstrip() for line in "\n\n".join(self.blocks(node.children)).split("\n"))]
        if tag in ("ul", "ol"):
            return [self.items(node)]
        if tag == "table":
            return [self.table(node)]
        return self.blocks(node.children)

    def inline(self, child: Node | str) -> str:
        if isinstance(child, str):
            return child
        tag = child.tag
        if tag in HIDDEN:
            self.counts.hidden += 1
            self.counts.hidden_chars += len(text_of(child))
            return ""
        if tag == "code":
            return code_span(self.raw(child))
        if tag == "br":
            return "\n"
        if tag == "img":
            return "[image]"
        if tag == "input":  # a task list's box; no other input shows text
            if child.attrs.get("type") != "checkbox":
                return ""
            return "[x]" if "checked" in child.attrs else "[ ]"
        if tag in BLOCKS:  # a block inside inline HTML
            return "\n".join(self.blocks(child.children))
        inner = "".join(self.inline(grandchild) for grandchild in child.children)
        mark = EMPHASIS.get(tag, "")
        return f"{mark}{inner}{mark}" if mark and inner.strip() else inner

    def raw(self, node: Node) -> str:
        """The text of code, as it is: no mark added, what `HIDDEN` elements hold left out."""
        return "".join(child if isinstance(child, str) else self.raw_child(child) for child in node.children)

    def raw_child(self, node: Node) -> str:
        return self.inline(node) if node.tag in HIDDEN else self.raw(node)

    def line(self, node: Node) -> str:
        return " ".join("\n".join(self.blocks(node.children)).split())

    def items(self, node: Node) -> str:
        number = int(node.attrs["start"]) if node.attrs.get("start", "").isdigit() else 1
        lines = []
        for item in (child for child in node.children if isinstance(child, Node)):
            marker = f"{number}. " if node.tag == "ol" else "- "
            number += 1
            body = "\n".join(self.blocks(item.children) if item.tag == "li" else self.block(item))
            first, *rest = body.split("\n") or [""]
            lines.append(marker + first)
            lines.extend((" " * len(marker) + line).rstrip() for line in rest)
        return "\n".join(lines)

    def table(self, node: Node) -> str:
        rows = [row for row in descendants(node) if row.tag == "tr"]
        lines = []
        for index, row in enumerate(rows):
            cells = [self.line(cell).replace("|", "\\|") for cell in row.children if isinstance(cell, Node)]
            lines.append("| " + " | ".join(cells) + " |")
            if index == 0:
                lines.append("|" + " --- |" * len(cells))
        return "\n".join(lines)


def flush(run: list[str]) -> list[str]:
    text = "".join(run).strip()
    run.clear()
    return [text] if text else []


def text_of(node: Node) -> str:
    return "".join(child if isinstance(child, str) else text_of(child) for child in node.children)


def descendants(node: Node):
    for child in node.children:
        if isinstance(child, Node):
            yield child
            yield from descendants(child)


def fence(language: str, code: str) -> str:
    """A fenced block holding `code` exactly: its fence longer than any run of backticks in it."""
    ticks = "`" * max([3, *(len(run) + 1 for run in TICKS.findall(code))])
    return f"{ticks}{language}\n{code}{'' if code.endswith(chr(10)) or not code else chr(10)}{ticks}"


def code_span(code: str) -> str:
    ticks = "`" * (max((len(run) for run in TICKS.findall(code)), default=0) + 1)
    pad = " " if code.startswith("`") or code.endswith("`") else ""
    return f"{ticks}{pad}{code}{pad}{ticks}"


def unused_references(markdown: str) -> tuple[int, int]:
    """The link reference definitions no link or image uses (CommonMark's, by markdown-it-py):
    GitHub shows them nowhere (`[//]: # (a hidden note)`). How many, and their characters."""
    if not DEFINITION.search(markdown):
        return 0, 0
    env: dict = {}
    tokens = REFERENCES.parse(markdown, env)
    used = {
        child.attrs.get("href", child.attrs.get("src"))
        for token in tokens
        for child in token.children or []
        if child.type in ("link_open", "image")
    }
    unused = [(label, ref) for label, ref in env.get("references", {}).items() if ref["href"] not in used]
    return len(unused), sum(len(label) + len(ref["href"]) + len(ref.get("title") or "") for label, ref in unused)
