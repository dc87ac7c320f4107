"""What the languages' mutants share (bot/lang/js_mutants.py, go_mutants.py): a file's text and tree
with the lines a candidate wrote, edits made and kept only when the result parses, mutants spread
over those lines, and null mutants drawn at random among the places a language offers."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import TypeVar

from ast_grep_py import SgNode

from bot.lang.base import Mutant, changed_lines, spread_order
from bot.lang.tree import line, parsed, problem, span
from bot.text import clip_line

SHOWN_CHARS = 60  # of each side of a mutant's one-line change
LINE_CHARS = 120  # of the mutated line shown to the model
INTEGER = re.compile(r"(?:0|[1-9][0-9]*)")  # a decimal integer, as written
CHOOSE = random.SystemRandom()  # where the null mutants go: nothing the candidate can predict

Edit = tuple[int, int, str]  # start and end index in the text, and what replaces them


@dataclass(frozen=True)
class Mutation:
    line: int
    operator: str
    change: str
    edits: tuple[Edit, ...]
    shows_line: bool = True  # False: the change shows the line (an emptied if-body)


@dataclass(frozen=True)
class Rewrite:
    """A change that keeps what the code computes."""

    line: int
    change: str
    edits: tuple[Edit, ...]
    kind: str


class Source:
    """The code, its tree and the nodes of the lines written that run (none under `not_run`)."""

    def __init__(self, code: str, language: str, original: str | None, not_run: frozenset[str] = frozenset()):
        self.code, self.language = code, language
        self.root = parsed(code, language)
        self.written = None if original is None else changed_lines(original, code)
        self.running = list(running(self.root, not_run))

    def nodes(self) -> list[SgNode]:
        return [node for node in self.running if self.written is None or line(node) in self.written]

    def apply(self, edits: list[Edit]) -> str | None:
        """The code with `edits` made (from the end; at one index the insertion first), or None
        when the result doesn't parse."""
        text = self.code
        for start, end, new in sorted(edits, key=lambda edit: (edit[0], edit[1]), reverse=True):
            text = text[:start] + new + text[end:]
        return text if text != self.code and problem(parsed(text, self.language)) is None else None

    def segment(self, node: SgNode) -> str:
        start, end = span(node)
        return self.code[start:end]


S = TypeVar("S", bound=Source)


def running(root: SgNode, not_run: frozenset[str]) -> Iterator[SgNode]:
    """The nodes under `root` that aren't under one of `not_run`'s kinds, in the order of the text."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.kind() in not_run:
            continue
        yield node
        stack.extend(reversed(node.children()))


def made(source: S, mutations: Callable[[S, SgNode], Iterable[Mutation]], budget: int | None) -> list[Mutant]:
    """Up to `budget` distinct mutants (all for None) of the lines written, spread over them, in the
    order of the file; none of code that doesn't parse. Each mutant made is parsed, so only as many
    are made as are wanted."""
    if problem(source.root) is not None:
        return []
    planned = [mutation for node in source.nodes() for mutation in mutations(source, node)]
    wanted = len(planned) if budget is None else budget
    found: list[tuple[int, Mutant]] = []
    seen = {source.code}
    for index in spread_order(len(planned), wanted):
        if len(found) == wanted:
            break
        mutation = planned[index]
        mutated = source.apply(list(mutation.edits))
        if mutated is None or mutated in seen:  # two operators can make the same code (`return 1`)
            continue
        seen.add(mutated)
        shown_line = mutated.split("\n")[mutation.line - 1].strip() if mutation.shows_line else ""
        found.append((index, Mutant(mutation.line, mutation.operator, mutation.change, mutated, clip(shown_line))))
    return [mutant for _, mutant in sorted(found, key=lambda pair: pair[0])]


def drawn(source: Source, nulls: Nulls) -> list[Mutant]:
    """Two variants of the code that compute what it computes, drawn at random (CHOOSE) among the
    lines written, so that no filter on one statement or one shape of change tells them from real
    mutants: one with a statement that does nothing in every body written and, in every function,
    one rewrite of a kind drawn among those it has a place for; one with a single rewrite of a
    random kind at a random place."""
    if problem(source.root) is not None:
        return []
    found: list[Mutant] = []
    for rewrites in (nulls.everywhere(), nulls.somewhere()):
        variant = source.apply([edit for rewrite in rewrites for edit in rewrite.edits])
        if variant is None:  # one of them can't stand there (`!(a !== b) ** 2`): those that can, alone
            rewrites = [rewrite for rewrite in rewrites if source.apply(list(rewrite.edits)) is not None]
            variant = source.apply([edit for rewrite in rewrites for edit in rewrite.edits])
        if variant is None or not rewrites or any(variant == other.code for other in found):
            continue
        rewrites = sorted(rewrites, key=lambda rewrite: rewrite.line)
        first = rewrites[0].line
        change = clip("; ".join(rewrite.change for rewrite in rewrites))
        found.append(Mutant(first, "null", change, variant, clip(variant.split("\n")[first - 1].strip())))
    return found


class Nulls:
    """The rewrites of the lines written that keep what the code computes. A language gives the
    kinds (`kinds`: the statements' first, then the rest) and where a statement that does nothing
    may go (`places`); the drawing is shared."""

    def __init__(self, source: Source, functions: frozenset[str]):
        self.source = source
        self.functions = [span(node) for node in source.running if node.kind() in functions]

    def kinds(self) -> list[Callable[[], list[Rewrite]]]:
        raise NotImplementedError

    def places(self) -> Iterator[list[Rewrite]]:
        raise NotImplementedError

    @cached_property
    def bodies(self) -> list[list[Rewrite]]:
        return [places for places in self.places() if places]

    @cached_property
    def rewrites(self) -> dict[str, list[Rewrite]]:
        """Each kind's rewrites but the statements, found once for both variants."""
        return {kind.__name__: kind() for kind in self.kinds()[1:]}

    def everywhere(self) -> list[Rewrite]:
        chosen = [CHOOSE.choice(places) for places in self.bodies]
        scopes: dict[int, dict[str, list[Rewrite]]] = {}
        for found in self.rewrites.values():
            for rewrite in found:
                scopes.setdefault(self.scope(rewrite.edits[0][0]), {}).setdefault(rewrite.kind, []).append(rewrite)
        for kinds in scopes.values():
            for name in CHOOSE.sample(sorted(kinds), len(kinds)):
                free = [one for one in kinds[name] if not any(overlaps(one, other) for other in chosen)]
                if free:
                    chosen.append(CHOOSE.choice(free))
                    break
        return chosen

    def somewhere(self) -> list[Rewrite]:
        kinds = [self.statements(), *self.rewrites.values()]
        CHOOSE.shuffle(kinds)
        return next(([CHOOSE.choice(found)] for found in kinds if found), [])

    def scope(self, index: int) -> int:
        """The start of the innermost function around `index`; -1: the file's own level."""
        return max((start for start, end in self.functions if start <= index < end), default=-1)

    def statements(self) -> list[Rewrite]:
        return [rewrite for places in self.bodies for rewrite in places]


def summed(node: SgNode) -> Rewrite | None:
    """An integer literal written as a sum of two drawn parts (`5` → `(2 + 3)`); None for another
    spelling (hex, a separator) or one too large for every integer type to hold the parts."""
    if not INTEGER.fullmatch(node.text()) or int(node.text()) >= 2**31:
        return None
    value = int(node.text())
    part = CHOOSE.randint(0, value)
    text = f"({part} + {value - part})"
    return Rewrite(line(node), f"'{value}' → '{text}'", ((*span(node), text),), "sum")


def overlaps(one: Rewrite, other: Rewrite) -> bool:
    """Whether an edit of one touches what an edit of the other replaces (an insertion counts as a point)."""
    return any(a < d and c < b for a, b, _ in one.edits for c, d, _ in other.edits)


def shown(before: str, after: str) -> str:
    """A one-line change: 'if (x) { return 1 }' → 'if (x) {}', each side on one line and clipped."""
    sides = [clip_line(" ".join(side.split()), SHOWN_CHARS) for side in (before, after)]
    return f"'{sides[0]}' → '{sides[1]}'"


def clip(text: str) -> str:
    return clip_line(text, LINE_CHARS)
