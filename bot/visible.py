"""What GitHub shows a reader of a piece of Markdown, and nothing else: the text autofix prompts
with. The Markdown is rendered as GitHub renders it and read back as the text a page shows
(bot/rendered.py): an HTML comment, a processing instruction, an attribute, a link reference
definition is seen by no maintainer who labels an issue or reviews a pull request, so instructions
hidden in them never reach the model. Then every character a reader can't see goes, in code too (a
zero-width space there shows as nothing as well): the Unicode default-ignorable code points, which
include the variation selectors (256 of them: a byte each, carried invisibly), the tag characters
(ASCII no one sees) and the bidi controls. What was removed is counted, for the reviewer."""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.rendered import rendered

# Unicode 15.1, DerivedCoreProperties.txt, Default_Ignorable_Code_Point: every range, as listed
# there (unchanged since Unicode 14.0; Python's unicodedata doesn't carry the property).
IGNORABLE = re.compile(
    "["
    "\u00ad"  # soft hyphen
    "\u034f"  # combining grapheme joiner
    "\u061c"  # Arabic letter mark
    "\u115f-\u1160"  # Hangul choseong and jungseong fillers
    "\u17b4-\u17b5"  # Khmer inherent vowels
    "\u180b-\u180f"  # Mongolian free variation selectors, vowel separator
    "\u200b-\u200f"  # zero width space, non-joiner, joiner, left-to-right and right-to-left marks
    "\u202a-\u202e"  # bidi embeddings and overrides
    "\u2060-\u206f"  # word joiner, invisible operators, bidi isolates, deprecated format characters
    "\u3164"  # Hangul filler
    "\ufe00-\ufe0f"  # variation selectors 1-16
    "\ufeff"  # zero width no-break space
    "\uffa0"  # halfwidth Hangul filler
    "\ufff0-\ufff8"  # reserved
    "\U0001bca0-\U0001bca3"  # shorthand format controls
    "\U0001d173-\U0001d17a"  # musical symbol format controls
    "\U000e0000-\U000e0fff"  # tag characters, variation selectors 17-256, reserved
    "]"
)
# Of those, the ones that reorder what is shown (Trojan Source): counted apart.
BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


@dataclass(frozen=True)
class Visible:
    text: str
    comments: int = 0
    comment_chars: int = 0
    zero_width: int = 0
    bidi: int = 0
    hidden: int = 0  # the rest of what HTML hides: processing instructions, CDATA, hidden elements
    hidden_chars: int = 0
    references: int = 0  # link reference definitions no link uses
    reference_chars: int = 0

    @property
    def removed(self) -> str:
        """`1 HTML comment, 212 characters; 3 zero-width characters`, or "" when nothing was hidden."""
        parts = []
        if self.comments:
            parts.append(f"{plural(self.comments, 'HTML comment')}, {plural(self.comment_chars, 'character')}")
        if self.hidden:
            parts.append(f"{plural(self.hidden, 'hidden HTML part')}, {plural(self.hidden_chars, 'character')}")
        if self.references:
            parts.append(
                f"{plural(self.references, 'unused link reference')}, {plural(self.reference_chars, 'character')}"
            )
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
            self.hidden + other.hidden,
            self.hidden_chars + other.hidden_chars,
            self.references + other.references,
            self.reference_chars + other.reference_chars,
        )


def plural(number: int, noun: str) -> str:
    return f"{number} {noun if number == 1 else noun + 's'}"


def visible(markdown: str) -> Visible:
    """`markdown` as a reader sees it, and how much of it was removed."""
    page = rendered(markdown)
    shown = plain(page.text)
    return Visible(
        shown.text,
        page.comments,
        page.comment_chars,
        shown.zero_width,
        shown.bidi,
        page.hidden,
        page.hidden_chars,
        page.references,
        page.reference_chars,
    )


def plain(text: str) -> Visible:
    """Text GitHub shows as it is, not as Markdown (a job's log): only its invisible characters removed."""
    found = IGNORABLE.findall(text)
    bidi = sum(char in BIDI for char in found)
    return Visible(IGNORABLE.sub("", text), zero_width=len(found) - bidi, bidi=bidi)
