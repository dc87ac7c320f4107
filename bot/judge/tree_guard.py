"""What the static guards over ast-grep's trees share (bot/judge/js/guard.py, go/guard.py): every
node asked once what rule it breaks, only on the lines a change wrote, one finding per line and rule."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ast_grep_py import SgNode

from bot.judge.guard import TEXT_CHARS, Finding
from bot.lang.base import changed_lines
from bot.lang.tree import line, walk
from bot.text import clip_line


def scan(
    root: SgNode, code: str, original: str | None, path: str, offence: Callable[[SgNode], str | None],
    rules: Mapping[str, tuple[str, str]],
) -> list[Finding]:  # fmt: skip
    """The findings of `offence` over the tree of `code`; with `original`, only on the lines a
    change wrote. `rules`: each rule's (what it catches, why), the why told to the model."""
    lines = code.splitlines()
    wanted = None if original is None else changed_lines(original, code)
    found: dict[tuple[int, str], Finding] = {}
    for node in walk(root):
        rule = offence(node)
        at = line(node)
        if rule is None or (wanted is not None and at not in wanted) or (at, rule) in found:
            continue
        text = clip_line(lines[at - 1].strip(), TEXT_CHARS) if at <= len(lines) else ""
        found[(at, rule)] = Finding(at, rule, text, rules[rule][1], path)
    return sorted(found.values(), key=lambda finding: (finding.line, finding.rule))
