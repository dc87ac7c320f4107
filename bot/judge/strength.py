"""Test strength: whether the tests can tell the code a candidate wrote from small variants of it.

A mutant changes one thing on a line the candidate added or changed: a comparison or boolean
operator flipped, an integer constant off by one, a `return` of a default, an if-body removed, a
call's first two arguments swapped. Each mutant is judged like a candidate (Validator.check, so in
the sandbox, never written to the target); one the tests still pass survived: a mistake there
would go unnoticed. A mutant whose compiled bytecode equals the original's can't be told apart by
any test, so it is skipped rather than counted against the tests.

The mutator is our own, on `ast`, rather than a mutation-testing tool's: it mutates only the lines
written, leaves the rest of the file byte for byte, and hands each mutant to autofix's own judge
instead of running the tests its own way. A mutant belongs to the line where its change starts.

Code that reads its own source or bytecode (a hash of `open(__file__)`, `inspect.getsource`, its
`__code__`) could fail whenever it differs from itself, so that every mutant "breaks" and weak
tests score 1.00. The static guard refuses such code (bot/judge/guard.py); behind it, among the
mutants go null ones: variants drawn at random from several rewrites that keep what the code
computes (a statement that does nothing in every body, a local renamed, an integer written as a
sum, `a in b` as `not a not in b`, operands regrouped, parentheses), each but the statements proven by compiling to
the code's own bytecode, which change the file's bytes, every function's source and syntax tree
and its bytecode, never by one fixed statement a filter could drop. Tests that fail a null mutant
are not judging behaviour: the score is void.
"""

from __future__ import annotations

import ast
import os
import random
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from types import CodeType
from typing import TYPE_CHECKING

from bot import syntax
from bot.judge.guard import is_main_guard
from bot.lang import base, registry
from bot.lang.base import changed_lines
from bot.text import clip_line, count

if TYPE_CHECKING:
    from bot.judge.validate import Validator

SHOWN_CHARS = 60  # of each side of a mutant's one-line change
LINE_CHARS = 120  # of the mutated line shown to the model

FLIPPED: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE, ast.LtE: ast.Gt,
    ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
}  # fmt: skip
SYMBOLS: dict[type[ast.cmpop], str] = {
    ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.GtE: ">=", ast.Gt: ">", ast.LtE: "<=",
    ast.In: "in", ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not",
}  # fmt: skip

# Built-ins whose first two arguments can swap without a change: such a mutant only looks like a weak test.
SYMMETRIC = {"max", "min"}
# Statements that do nothing, each leaving an instruction (NOP, UNPACK_SEQUENCE 0): new bytecode, no effect.
NO_OPS = ("pass", "...", "[] = ()", "() = ()")
CHOOSE = random.SystemRandom()  # where the null mutants go: nothing the candidate can predict


Edit = tuple[int, int, str]  # start and end byte offsets in the source, and what replaces them


@dataclass(frozen=True)
class Mutation:
    """One change, before it is made: making one copies the whole file."""

    line: int  # in the original code
    operator: str  # comparison, boolean, constant, return, branch, arguments
    change: str  # one line: 'not in' → 'in'
    edits: tuple[Edit, ...]
    mutated_line: str | None = None  # what the model is shown; None: the line as the mutant has it


@dataclass(frozen=True)
class Mutant:
    line: int
    operator: str
    change: str
    code: str  # the whole file with the change
    mutated_line: str  # the line as the mutant has it, for the model ("" when `change` shows it)


@dataclass
class Made:
    mutants: list[Mutant]  # distinct, none equivalent, at most the budget, in the order of the file
    mutations: int  # of the lines written, before any was made
    tried: int  # made and compiled, to find `mutants`
    equivalent: int  # of those tried, compiled to the code's own bytecode


@dataclass
class Survivor:
    file: str
    line: int
    operator: str
    change: str
    mutated_line: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line} {self.change}"


@dataclass
class Strength:
    """The report's `strength` entry."""

    killed: int
    total: int  # mutants judged
    mutations: int  # of the lines written, before the budgets
    equivalent: int  # of the mutations tried, compiled to the code's own bytecode: never run
    score: float | None  # killed / total; None when no mutant was judged
    seconds: float
    survivors: list[Survivor] = field(default_factory=list)
    not_run: str = ""  # why some mutations were not judged
    min_strength: float | None = None  # with `strength: gate`: the score a candidate needs
    void: str = ""  # why no score counts: a null mutant failed the tests (the score is None then)

    @property
    def too_weak(self) -> bool:
        if self.min_strength is None:
            return False
        return bool(self.void) or (self.score is not None and self.score < self.min_strength)

    def headline(self) -> str:
        """`tests killed 17 of 20 mutants (score 0.85)`, with why some weren't run and the gate."""
        if self.void:
            return f"void: {self.void}"
        if self.total == 0:
            nothing = "the lines written have nothing to mutate" if not self.mutations else self.not_run
            return f"no mutant judged: {nothing}"
        score = f"score {self.score:.2f}"
        if self.min_strength is not None:
            score += f", {'below ' if self.too_weak else ''}min_strength {self.min_strength:g}"
        not_run = f"; {self.not_run}" if self.not_run else ""
        return f"tests killed {self.killed} of {count(self.total, 'mutant')} ({score}){not_run}"


def measure(
    validator: Validator,
    code: str,
    target: str,
    budget: int,
    seconds: float,
    clock: Callable[[], float] = time.monotonic,
) -> Strength:
    """Judge up to `budget` mutants of the lines of `code` that differ from the validator's original
    target, side by side, starting none after `seconds`."""
    return judged(
        {target: (code, validator.original)},
        lambda path, mutant: judged_once(validator, mutant.code),
        budget,
        seconds,
        max(1, len(os.sched_getaffinity(0))),
        clock,
    )


def judged_once(validator: Validator, code: str) -> bool | None:
    """Whether the tests passed `code`; None when its run was stopped (a timeout) before they said."""
    verdict = validator.check(code)
    return None if verdict.killed and not verdict.passed else verdict.passed


def judged(
    files: dict[str, tuple[str, str | None]],
    passes: Callable[[str, Mutant], bool | None],
    budget: int,
    seconds: float,
    workers: int,
    clock: Callable[[], float] = time.monotonic,
    together: Callable[[list[tuple[str, Mutant]]], list[bool] | None] | None = None,
) -> Strength:
    """Up to `budget` mutants of the lines written in `files` (path: the code and its original,
    None for a new file), and the null mutants, each judged by `passes` (True: the tests passed
    it) on `workers` threads, starting none after `seconds`; or all at once by `together` (each
    variant's True or False, in order), when it can judge them (not None)."""
    started = clock()
    deadline = started + seconds
    share = max(1, budget // max(1, len(files)))
    made = {path: made_for(path, code, original, share) for path, (code, original) in files.items()}
    chosen = [(path, mutant) for path, one in made.items() for mutant in one.mutants]
    nulls = [(path, mutant) for path, (code, original) in files.items() for mutant in nulls_for(path, code, original)]
    nulls = nulls if chosen else []  # no mutant: nothing for them to vouch for
    queue = [*nulls, *chosen]

    def outcome(pair: tuple[str, Mutant]) -> bool | None:
        if pair[1].operator == "null":  # always judged: without them no score can be trusted
            # A run stopped by its time limit (a loaded machine) is judged once more; stopped
            # twice, the variant that computes what the code computes counts as failed.
            result = passes(*pair)
            if result is None:
                result = passes(*pair)
            return result is True
        if clock() >= deadline:
            return None
        return passes(*pair) is True  # a mutant whose run never ends was told apart: killed

    batch = together(queue) if together is not None and queue else None
    outcomes: list[bool | None] | None = list(batch) if batch is not None else None
    if outcomes is None:
        with ThreadPoolExecutor(max(1, min(len(queue), workers)), thread_name_prefix="strength") as pool:
            outcomes = list(pool.map(outcome, queue))
    killed_nulls = [pair for pair, passed in zip(nulls, outcomes[: len(nulls)], strict=True) if passed is False]
    judged = [(pair, passed) for pair, passed in zip(queue[len(nulls) :], outcomes[len(nulls) :], strict=True)]
    judged = [(pair, passed) for pair, passed in judged if passed is not None]
    killed = sum(not passed for _, passed in judged)
    mutations = sum(one.mutations for one in made.values())
    tried = sum(one.tried for one in made.values())
    reasons = []
    if tried < mutations:
        reasons.append(f"{mutations - tried} of {mutations} mutations not run (strength_budget {budget})")
    if len(judged) < len(chosen):
        reasons.append(f"{len(chosen) - len(judged)} not run (strength_seconds {seconds:g} spent)")
    void = ""
    if killed_nulls:
        path, null = killed_nulls[0]
        void = (
            f"the tests failed a null mutant, {path}:{null.line} ({null.change}), which changes "
            "nothing the code computes: the code tells its variants from itself (it reads its own source or "
            "bytecode), so no mutant's result counts"
        )
    return Strength(
        killed=killed,
        total=len(judged),
        mutations=mutations,
        equivalent=sum(one.equivalent for one in made.values()),
        score=None if void or not judged else round(killed / len(judged), 4),
        seconds=round(clock() - started, 3),
        survivors=[
            Survivor(path, mutant.line, mutant.operator, mutant.change, mutant.mutated_line)
            for (path, mutant), passed in judged
            if passed
        ],
        not_run="; ".join(reasons),
        void=void,
    )


def made_for(path: str, code: str, original: str | None, budget: int) -> Made:
    """The mutants of a file, by its language: Python's here, another's from its code view
    (bot/lang), which makes only distinct ones that parse (no bytecode to call one equivalent)."""
    view = registry.for_path(path)
    if view is None:
        return mutants(code, original, budget)
    found = [as_mutant(mutant) for mutant in view.mutants(code, original, budget)]
    return Made(found, len(found), len(found), 0)


def nulls_for(path: str, code: str, original: str | None) -> list[Mutant]:
    view = registry.for_path(path)
    if view is None:
        return null_mutants(code, original)
    return [as_mutant(mutant) for mutant in view.null_mutants(code, original)]


def as_mutant(mutant: base.Mutant) -> Mutant:
    return Mutant(mutant.line, mutant.operator, mutant.change, mutant.code, mutant.mutated_line)


def null_mutants(code: str, original: str | None) -> list[Mutant]:
    """Two variants of `code` that compute what it computes, made of rewrites drawn at random
    (CHOOSE) among the lines written, so that no filter on one statement or one shape of change
    tells them from real mutants: one with a statement that does nothing in every body written
    (the module's, each function's, class's and block's) at a random statement of it, and a
    rewrite of another kind in every function, so that whatever part of itself the code reads
    (its bytes, a function's source, its syntax tree, its bytecode) differs; and
    one rewrite of a random kind at a random place, like a real mutant's one change. Each rewrite
    but the added statements is proven a no-op: the variant compiles to the code's own bytecode,
    local names aside where it renames one."""
    try:
        tree = syntax.parse(code)
        own = fingerprint(compile(code, "<candidate>", "exec"))
    except (SyntaxError, ValueError):
        return []
    nulls = Nulls(code, tree, None if original is None else changed_lines(original, code), own)
    made: list[Mutant] = []
    for rewrites in (nulls.everywhere(), nulls.somewhere()):
        mutant = nulls.variant(rewrites)
        if mutant is not None and all(mutant.code != other.code for other in made):
            made.append(mutant)
    return made


def mutants(code: str, original: str | None, budget: int | None = None) -> Made:
    """Up to `budget` distinct mutants of the lines of `code` not in `original` (every line for a
    new file), none equivalent to `code`, spread over the file so that every part of it gets some."""
    try:
        tree = syntax.parse(code)
        own = fingerprint(compile(code, "<candidate>", "exec"))
    except (SyntaxError, ValueError):
        return Made([], 0, 0, 0)
    mutator = Mutator(code, tree, None if original is None else changed_lines(original, code))
    mutations = mutator.all()
    wanted = len(mutations) if budget is None else budget
    found: list[tuple[int, Mutant]] = []
    seen = {own}
    tried = equivalent = 0
    for index in spread_order(len(mutations), wanted):
        if len(found) == wanted:
            break
        tried += 1
        mutant = mutator.build(mutations[index])
        try:
            compiled = fingerprint(compile(mutant.code, "<mutant>", "exec"))
        except (SyntaxError, ValueError):
            continue
        if compiled == own:
            equivalent += 1
        elif compiled not in seen:  # two operators can make the same code (`return 1`: `1 → 0`, return 0)
            seen.add(compiled)
            found.append((index, mutant))
    return Made([mutant for _, mutant in sorted(found, key=lambda pair: pair[0])], len(mutations), tried, equivalent)


def spread_order(total: int, wanted: int) -> list[int]:
    """The indexes of `total` mutations in the order they are tried: `wanted` evenly spaced over
    the file first, then the rest in order, to stand in for those that turn out equivalent."""
    first = sorted({index * total // wanted for index in range(wanted)}) if total > wanted else list(range(total))
    chosen = set(first)
    return first + [index for index in range(total) if index not in chosen]


def fingerprint(code: CodeType, renamed: Mapping[str, str] | None = None) -> tuple:
    """What a code object does, without where its source lies: line and column tables differ
    between a file and its mutant even when the bytecode is the same. `renamed` (new: old): local
    names taken as the ones they replace (never global names, `co_names`)."""
    consts = tuple(
        fingerprint(const, renamed) if isinstance(const, CodeType) else (type(const).__name__, repr(const))
        for const in code.co_consts
    )

    def local(names: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(renamed.get(name, name) for name in names) if renamed else names

    return (
        code.co_name, code.co_code, consts, code.co_names, local(code.co_varnames), local(code.co_freevars),
        local(code.co_cellvars),
        code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount, code.co_flags, code.co_exceptiontable,
    )  # fmt: skip


class Mutator:
    def __init__(self, code: str, tree: ast.Module, written: set[int] | None):
        self.source = code.encode("utf-8")  # ast's columns count UTF-8 bytes
        self.starts = [0]
        for line in self.source.split(b"\n")[:-1]:
            self.starts.append(self.starts[-1] + len(line) + 1)
        self.tree = tree
        self.written = written  # None: every line (a new file)
        self.left_alone = unjudged_nodes(tree)

    def all(self) -> list[Mutation]:
        """Every mutation of the lines written, in the order of the file."""
        nodes = [
            node
            for node in ast.walk(self.tree)
            if isinstance(node, (ast.stmt, ast.expr))
            and (self.written is None or node.lineno in self.written)
            and id(node) not in self.left_alone
        ]
        nodes.sort(key=lambda node: (node.lineno, node.col_offset))
        return [mutant for node in nodes for mutant in self.of(node)]

    def of(self, node: ast.stmt | ast.expr) -> Iterator[Mutation]:
        if isinstance(node, ast.Compare):
            yield from self.comparisons(node)
        elif isinstance(node, ast.BoolOp):
            yield self.boolean(node)
        elif isinstance(node, ast.Constant) and type(node.value) is int:  # not bool, whose flips are `not`'s
            yield from self.constants(node, node.value)
        elif isinstance(node, ast.Return) and node.value is not None:
            yield from self.default_return(node, node.value)
        elif isinstance(node, ast.If):
            yield from self.removed_branch(node)
        elif isinstance(node, ast.Call):
            yield from self.swapped_arguments(node)

    def comparisons(self, node: ast.Compare) -> Iterator[Mutation]:
        for index, op in enumerate(node.ops):
            flipped = FLIPPED[type(op)]()
            changed = ast.Compare(node.left, [*node.ops[:index], flipped, *node.ops[index + 1 :]], node.comparators)
            change = f"'{SYMBOLS[type(op)]}' → '{SYMBOLS[type(flipped)]}'"
            yield self.mutant(node, "comparison", change, [self.replacing(node, ast.unparse(changed))])

    def boolean(self, node: ast.BoolOp) -> Mutation:
        before, after = ("and", "or") if isinstance(node.op, ast.And) else ("or", "and")
        changed = ast.BoolOp(ast.Or() if isinstance(node.op, ast.And) else ast.And(), node.values)
        return self.mutant(node, "boolean", f"'{before}' → '{after}'", [self.replacing(node, ast.unparse(changed))])

    def constants(self, node: ast.Constant, number: int) -> Iterator[Mutation]:
        for value in (number + 1, number - 1):
            text = str(value) if value >= 0 else f"({value})"  # `x ** -1` needs no parentheses, `(-1).real` does
            yield self.mutant(node, "constant", f"'{number}' → '{value}'", [self.replacing(node, text)])

    def default_return(self, node: ast.Return, value: ast.expr) -> Iterator[Mutation]:
        default = default_for(value)
        if default is None or self.segment(value) == default:
            return
        before = self.segment(node)
        yield self.mutant(node, "return", shown(before, f"return {default}"), [self.replacing(value, default)])

    def removed_branch(self, node: ast.If) -> Iterator[Mutation]:
        first, last = node.body[0], node.body[-1]
        if len(node.body) == 1 and isinstance(first, ast.Pass):
            return
        start = self.offset(first.lineno, first.col_offset)
        end = self.offset(last.end_lineno or last.lineno, last.end_col_offset or 0)
        test = ast.unparse(node.test)
        body = ast.unparse(first).split("\n")[0] + (" …" if len(node.body) > 1 or "\n" in ast.unparse(first) else "")
        change = shown(f"if {test}: {body}", f"if {test}: pass")
        yield self.mutant(node, "branch", change, [(start, end, "pass")], line="")  # the change shows the line

    def swapped_arguments(self, node: ast.Call) -> Iterator[Mutation]:
        if len(node.args) < 2 or any(isinstance(arg, ast.Starred) for arg in node.args[:2]):
            return
        first, second = node.args[0], node.args[1]
        symmetric = isinstance(node.func, ast.Name) and node.func.id in SYMMETRIC
        if symmetric or self.segment(first) == self.segment(second):
            return
        edits = [self.replacing(first, self.segment(second)), self.replacing(second, self.segment(first))]
        call = ast.Call(node.func, [second, first, *node.args[2:]], node.keywords)
        yield self.mutant(node, "arguments", shown(ast.unparse(node), ast.unparse(call)), edits)

    def mutant(
        self, node: ast.stmt | ast.expr, operator: str, change: str, edits: list[Edit], line: str | None = None
    ) -> Mutation:
        return Mutation(node.lineno, operator, change, tuple(edits), line)

    def build(self, mutation: Mutation) -> Mutant:
        mutated = bytearray(self.source)
        for start, end, text in sorted(mutation.edits, reverse=True):
            mutated[start:end] = text.encode("utf-8")
        code = mutated.decode("utf-8")
        line = mutation.mutated_line
        if line is None:
            line = code.split("\n", mutation.line)[mutation.line - 1].strip()
        return Mutant(mutation.line, mutation.operator, mutation.change, code, clip_line(line, LINE_CHARS))

    def replacing(self, node: ast.stmt | ast.expr, text: str) -> Edit:
        start = self.offset(node.lineno, node.col_offset)
        return start, self.offset(node.end_lineno or node.lineno, node.end_col_offset or 0), text

    def segment(self, node: ast.stmt | ast.expr) -> str:
        start, end, _ = self.replacing(node, "")
        return self.source[start:end].decode("utf-8")

    def offset(self, line: int, column: int) -> int:
        return self.starts[line - 1] + column


def default_for(value: ast.expr) -> str | None:
    """What a function that forgot to compute its result would return: the empty value of the
    result's evident type, else None; None (no mutant) for `return None`."""
    if isinstance(value, ast.Constant):
        if value.value is None:
            return None
        if isinstance(value.value, str):
            return '""'
        if isinstance(value.value, bytes):
            return 'b""'
        if type(value.value) in (int, float):
            return "0"
    empties: list[tuple[tuple[type[ast.expr], ...], str]] = [
        ((ast.List, ast.ListComp), "[]"),
        ((ast.Tuple,), "()"),
        ((ast.Dict, ast.DictComp), "{}"),
        ((ast.Set, ast.SetComp), "set()"),
        ((ast.JoinedStr,), '""'),
    ]
    return next((empty for kinds, empty in empties if isinstance(value, kinds)), "None")


def unjudged_nodes(tree: ast.Module) -> set[int]:
    """Nodes a mutant of would only add noise: annotations and f-strings (never what the code
    computes), and what runs only as a script or for a type checker (`if __name__ == "__main__":`,
    `if TYPE_CHECKING:`), which tests never run."""
    roots: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            roots += [arg.annotation for arg in all_arguments(node.args) if arg.annotation]
            roots += [node.returns] if node.returns else []
        elif isinstance(node, ast.AnnAssign):
            roots.append(node.annotation)
        elif isinstance(node, ast.JoinedStr) or (
            isinstance(node, ast.If) and (is_main_guard(node) or type_checking(node.test))
        ):
            roots.append(node)
    return {id(inner) for root in roots for inner in ast.walk(root)}


def all_arguments(arguments: ast.arguments) -> list[ast.arg]:
    extra = [arg for arg in (arguments.vararg, arguments.kwarg) if arg is not None]
    return [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, *extra]


def type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def shown(before: str, after: str) -> str:
    """A one-line change: 'if x: return 1' → 'if x: pass', each side on one line and clipped."""
    one_line = [clip_line(" ".join(side.split()), SHOWN_CHARS) for side in (before, after)]
    return f"'{one_line[0]}' → '{one_line[1]}'"


@dataclass(frozen=True)
class Rewrite:
    line: int
    change: str
    edits: tuple[Edit, ...]
    renamed: tuple[tuple[str, str], ...] = ()  # (new, old) local names
    added: bool = False  # a statement added: a no-op by construction, and new bytecode


class Nulls(Mutator):
    """The rewrites of the lines written that keep what the code computes, and variants of them."""

    TRIES = 8  # rewrites of a kind compiled to find one proven a no-op

    def __init__(self, code: str, tree: ast.Module, written: set[int] | None, own: tuple):
        super().__init__(code, tree, written)
        self.code, self.own = code, own
        self.names = {name for node in ast.walk(tree) for name in identifiers(node)}
        self.functions = [
            (
                self.offset(node.lineno, node.col_offset),
                self.offset(node.end_lineno or node.lineno, node.end_col_offset or 0),
            )
            for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        ]

    def everywhere(self) -> list[Rewrite]:
        """A statement added in every body, and in every function (and the module's own code) one
        rewrite of a kind drawn among those it has a place for."""
        chosen = [CHOOSE.choice(places) for places in self.statements() if places]
        scopes: dict[int, dict[str, list[Rewrite]]] = {}
        for kind in (self.sums, self.memberships, self.groupings, self.renames, self.parentheses):
            for rewrite in kind():
                scopes.setdefault(self.scope(rewrite.edits[0][0]), {}).setdefault(kind.__name__, []).append(rewrite)
        for kinds in scopes.values():
            for name in CHOOSE.sample(sorted(kinds), len(kinds)):
                found = self.proven([one for one in kinds[name] if not any(overlaps(one, two) for two in chosen)])
                if found is not None:
                    chosen.append(found)
                    break
        return chosen

    def scope(self, offset: int) -> int:
        """The start of the innermost function around `offset`; 0: the module's own code."""
        return max((start for start, end in self.functions if start <= offset < end), default=0)

    def somewhere(self) -> list[Rewrite]:
        kinds: list[Callable[[], Iterable[Rewrite]]] = [
            lambda: [place for places in self.statements() for place in places],
            self.sums, self.memberships, self.groupings, self.renames, self.parentheses,
        ]  # fmt: skip
        CHOOSE.shuffle(kinds)
        for kind in kinds:
            rewrite = self.proven(list(kind()))
            if rewrite is not None:
                return [rewrite]
        return []

    def proven(self, rewrites: list[Rewrite]) -> Rewrite | None:
        """A rewrite drawn from `rewrites` whose variant alone compiles to the code's own bytecode
        (local names aside: `renamed`); an added statement compiling at all."""
        for rewrite in CHOOSE.sample(rewrites, min(len(rewrites), self.TRIES)):
            try:
                compiled = fingerprint(compile(self.apply([rewrite]), "<null>", "exec"), dict(rewrite.renamed))
            except (SyntaxError, ValueError):
                continue
            if rewrite.added or compiled == self.own:
                return rewrite
        return None

    def variant(self, rewrites: list[Rewrite]) -> Mutant | None:
        """The variant of `rewrites`, once it compiles to bytecode of its own (a bytecode reader
        must see it too) or all of it was proven equal (its source still differs)."""
        proven = [rewrite for rewrite in rewrites if not rewrite.added]
        renamed = dict(pair for rewrite in proven for pair in rewrite.renamed)
        try:  # each was proven alone; together too, or only the statements added are kept
            if proven and fingerprint(compile(self.apply(proven), "<null>", "exec"), renamed) != self.own:
                rewrites = [rewrite for rewrite in rewrites if rewrite.added]
        except (SyntaxError, ValueError):
            rewrites = [rewrite for rewrite in rewrites if rewrite.added]
        if not rewrites:
            return None
        variant = self.apply(rewrites)
        try:
            compiled = fingerprint(compile(variant, "<null>", "exec"))
        except (SyntaxError, ValueError):
            return None
        if compiled == self.own and any(rewrite.added for rewrite in rewrites):
            return None
        rewrites = sorted(rewrites, key=lambda rewrite: rewrite.line)
        line = rewrites[0].line
        shown = clip_line("; ".join(rewrite.change for rewrite in rewrites), LINE_CHARS)
        return Mutant(line, "null", shown, variant, clip_line(variant.split("\n")[line - 1].strip(), LINE_CHARS))

    def apply(self, rewrites: list[Rewrite]) -> str:
        mutated = bytearray(self.source)
        edits = [(*edit, rewrite.added) for rewrite in rewrites for edit in rewrite.edits]
        # From the end; at one offset an added statement goes in last, so that it comes first: before a `(`.
        for start, end, text, _ in sorted(edits, key=lambda edit: (edit[0], edit[1], not edit[3]), reverse=True):
            mutated[start:end] = text.encode("utf-8")
        return mutated.decode("utf-8")

    def written_nodes(self) -> list[ast.expr]:
        return [
            node
            for node in ast.walk(self.tree)
            if isinstance(node, ast.expr)
            and (self.written is None or node.lineno in self.written)
            and id(node) not in self.left_alone
        ]

    def statements(self) -> Iterator[list[Rewrite]]:
        """For each body, a statement that does nothing before each of its statements written: never
        before a docstring, a `from __future__` import or a decorated definition."""
        lines = self.code.split("\n")
        for body in bodies(self.tree):
            places = []
            for index, statement in enumerate(body):
                line, column = statement.lineno, statement.col_offset
                if (
                    (self.written is None or line in self.written)
                    and not is_docstring(statement, index)
                    and not (isinstance(statement, ast.ImportFrom) and statement.module == "__future__")
                    and not getattr(statement, "decorator_list", None)
                    and not lines[line - 1][:column].strip()
                ):
                    no_op = CHOOSE.choice(NO_OPS)
                    at = self.offset(line, 0)
                    edit = (at, at, lines[line - 1][:column] + no_op + "\n")
                    places.append(Rewrite(line, f"'{no_op}' added", (edit,), added=True))
            yield places

    def sums(self) -> Iterator[Rewrite]:
        """An integer written as a sum the compiler folds back into it: `5` → `(2 + 3)`."""
        for node in self.written_nodes():
            if isinstance(node, ast.Constant) and type(node.value) is int:
                part = CHOOSE.randint(0, node.value) if node.value < 2**31 else 1
                text = f"({part} + {node.value - part})"
                yield Rewrite(node.lineno, f"'{node.value}' → '{text}'", (self.replacing(node, text),))

    def memberships(self) -> Iterator[Rewrite]:
        """`a in b` → `not a not in b`, `a is b` → `not a is not b`, and back: one instruction either way."""
        for node in self.written_nodes():
            if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], MEMBERSHIP):
                flipped = SYMBOLS[FLIPPED[type(node.ops[0])]]
                text = f"not {self.segment(node.left)} {flipped} {self.segment(node.comparators[0])}"
                yield Rewrite(node.lineno, shown(self.segment(node), text), (self.replacing(node, text),))

    def groupings(self) -> Iterator[Rewrite]:
        """`a and b and c` → `a and (b and c)`: the same jumps."""
        for node in self.written_nodes():
            if isinstance(node, ast.BoolOp) and len(node.values) > 2:
                word = " and " if isinstance(node.op, ast.And) else " or "
                first, *rest = (self.segment(value) for value in node.values)
                text = f"{first}{word}({word.join(rest)})"
                yield Rewrite(node.lineno, shown(self.segment(node), text), (self.replacing(node, text),))

    def parentheses(self) -> Iterator[Rewrite]:
        """An expression in parentheses: the same tree, another text."""
        for node in self.written_nodes():
            if isinstance(node, (ast.Compare, ast.BoolOp, ast.BinOp, ast.Call, ast.Name)):
                before = self.segment(node)
                yield Rewrite(node.lineno, shown(before, f"({before})"), (self.replacing(node, f"({before})"),))

    def renames(self) -> Iterator[Rewrite]:
        """A local variable of a function renamed everywhere in it, where every use is on a line
        written and nothing in it reads names: no `locals()`, `vars()`, `eval`, `exec`, `dir()`,
        f-string, class body, `global` or `nonlocal`, nor the name as a parameter, an exception's,
        an import's or a pattern's capture (names that aren't `ast.Name`s)."""
        for function in ast.walk(self.tree):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            inside = [node for statement in function.body for node in ast.walk(statement)]
            if any(isinstance(node, NAME_READERS) for node in inside) or any(
                isinstance(node, ast.Name) and node.id in INTROSPECTION for node in inside
            ):
                continue
            bound_otherwise = {name for node in [function, *inside] for name in other_bindings(node)}
            uses: dict[str, list[ast.Name]] = {}
            for node in inside:
                if isinstance(node, ast.Name):
                    uses.setdefault(node.id, []).append(node)
            for name, found in uses.items():
                if (
                    name in bound_otherwise
                    or not any(isinstance(use.ctx, ast.Store) for use in found)
                    or any(self.written is not None and use.lineno not in self.written for use in found)
                ):
                    continue
                new = fresh(name, self.names)
                edits = tuple(self.replacing(use, new) for use in found)
                yield Rewrite(found[0].lineno, f"a local renamed: '{name}' → '{new}'", edits, ((new, name),))


MEMBERSHIP = (ast.In, ast.NotIn, ast.Is, ast.IsNot)
NAME_READERS = (ast.ClassDef, ast.Global, ast.Nonlocal, ast.JoinedStr, ast.MatchAs, ast.MatchStar, ast.MatchMapping)
INTROSPECTION = {"locals", "vars", "eval", "exec", "dir", "globals"}
SUFFIXES = ("value", "item", "part", "cur", "new", "one", "tmp", "acc")


def other_bindings(node: ast.AST) -> Iterator[str]:
    """Names `node` binds that aren't `ast.Name`s: parameters, an exception's, an import's."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        yield from (arg.arg for arg in all_arguments(node.args))
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ExceptHandler)) and node.name:
        yield node.name
    elif isinstance(node, (ast.Import, ast.ImportFrom)):
        yield from ((alias.asname or alias.name).partition(".")[0] for alias in node.names)


def identifiers(node: ast.AST) -> Iterator[str]:
    """Every name `node` holds, so that a new one is fresh."""
    if isinstance(node, ast.Name):
        yield node.id
    elif isinstance(node, ast.Attribute):
        yield node.attr
    elif isinstance(node, ast.keyword) and node.arg:
        yield node.arg
    yield from other_bindings(node)


def fresh(name: str, taken: set[str]) -> str:
    """A name like `name` that the code doesn't hold; taken from then on."""
    new = f"{name}_{CHOOSE.choice(SUFFIXES)}"
    while new in taken:
        new += str(CHOOSE.randint(0, 9))
    taken.add(new)
    return new


def overlaps(one: Rewrite, other: Rewrite) -> bool:
    return any(a < d and c < b for a, b, _ in one.edits for c, d, _ in other.edits)


def bodies(tree: ast.Module) -> Iterator[list[ast.stmt]]:
    """Every list of statements in the tree: the module's, each function's, class's and block's."""
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody"):
            body = getattr(node, name, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                yield body


def is_docstring(statement: ast.stmt, index: int) -> bool:
    return (
        index == 0
        and isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )
