"""The `humaneval-repo` task set: HumanEval's canonical solutions as one repository, one bug per task.

Each task's repository is a package, `problems/`, with one module per problem (its prompt and
canonical solution), and a `tests/` folder with a test file per problem built from its `check`,
except the task's own problem: that check is hidden, because in the repository the baseline would
name the broken file before localization had to find it. One deterministic bug goes into the
task's function: the first mutation in source order (a flipped comparison, an off-by-one, `+` for
`-`, `and` for `or`...) whose check then fails with a wrong value (else the first that makes it
raise; a problem no mutation breaks is skipped). Which one that is, and the failing example the
issue is written from, are found by running the mutants in the sandbox (bot/eval/repo_probe.py):
mutated code never runs outside it.
"""

from __future__ import annotations

import ast
import json
import re
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from bot import syntax
from bot.core.reproduce import module_id
from bot.errors import UserError
from bot.eval import repo_probe
from bot.judge.verdict import DETERMINISTIC
from bot.safefs import remove_tree
from bot.sandbox.tiers import Limits, Sandbox, allowed_environ
from bot.text import clip_tail

TASKSET = "humaneval-repo"
PACKAGE = "problems"
PROBE_SOURCE = Path(repo_probe.__file__).read_text(encoding="utf-8")  # run in the sandbox as a script
CHECK_SECONDS = 5.0  # one check on one mutant; a mutant that loops forever is stopped, not chosen
PROBE_LIMITS = Limits(wall_seconds=300)  # every mutant of one problem, checked in one process
REASON_CHARS = 300

# Each mutation: the operator as written, what it becomes.
COMPARISONS = {
    ast.Lt: ("<", "<="),
    ast.LtE: ("<=", "<"),
    ast.Gt: (">", ">="),
    ast.GtE: (">=", ">"),
    ast.Eq: ("==", "!="),
    ast.NotEq: ("!=", "=="),
    ast.In: ("in", "not in"),
    ast.NotIn: ("not in", "in"),
    ast.Is: ("is", "is not"),
    ast.IsNot: ("is not", "is"),
}
ARITHMETIC = {
    ast.Add: ("+", "-"),
    ast.Sub: ("-", "+"),
    ast.Mult: ("*", "/"),
    ast.Div: ("/", "*"),
    ast.FloorDiv: ("//", "*"),
    ast.Mod: ("%", "//"),
}
LOGICAL = {ast.And: ("and", "or"), ast.Or: ("or", "and")}


@dataclass(frozen=True)
class Problem:
    id: str  # HumanEval/0
    module: str  # its module's name in the package: the entry point's, numbered when two share it
    entry: str
    source: str  # the module: the prompt and the canonical solution
    test: str  # HumanEval's test code, which defines check(candidate)

    @property
    def path(self) -> str:
        return f"{PACKAGE}/{self.module}.py"

    @property
    def test_path(self) -> str:
        return f"tests/test_{self.module}.py"

    @property
    def test_module(self) -> str:
        return module_id(self.test_path)

    def test_file(self) -> str:
        # A star import: checks call the helpers the prompt defines (poly, encode_cyclic), as in
        # HumanEval's harness, where prompt, solution and test share one namespace.
        return (
            f"from {PACKAGE}.{self.module} import *\n\n{self.test.strip()}\n\n\n"
            f"def test_{self.module}():\n    check({self.entry})\n"
        )


@dataclass(frozen=True)
class RepoTask:
    id: str
    problem: Problem  # the one the bug goes into
    problems: tuple[Problem, ...]  # the repository's, this one included


@dataclass(frozen=True)
class Mutation:
    line: int  # 1-based, in the module
    old: str  # as written
    new: str  # what the bug makes of it
    source: str  # the whole module with the bug

    @property
    def change(self) -> str:
        return f"`{self.old}` → `{self.new}`"


@dataclass(frozen=True)
class Bug:
    problem: Problem
    mutation: Mutation
    call: str  # the failing example's call, as Python
    expected: str  # what the canonical solution returns, repr
    got: str  # what the broken one returns (repr), or what it raises
    raises: bool

    @property
    def issue(self) -> str:
        """The issue as a user would write it: the failing call, what it gave, what it should give."""
        return f"`{self.call}` {'raises' if self.raises else 'returns'} {self.got}, but should return {self.expected}."

    @property
    def where(self) -> str:
        return f"{self.problem.path}:{self.mutation.line}: {self.mutation.change}"


def is_repo_taskset(name: str) -> bool:
    return name == TASKSET or name.startswith(f"{TASKSET}:")


def repo_taskset(name: str, problems: list[dict]) -> list[RepoTask]:
    """`humaneval-repo`: a repository of every problem; `humaneval-repo:N`: of the first N (every
    suite run is quicker; the tasks are those N). The size is in the name, so runs of repositories
    of different sizes never mix in one results folder."""
    match = re.fullmatch(rf"{re.escape(TASKSET)}(?::(\d+))?", name)
    if match is None:
        raise UserError(f"taskset: {name!r}: expected {TASKSET}, or {TASKSET}:N for a repository of N problems")
    size = int(match[1]) if match[1] else len(problems)
    if not 2 <= size <= len(problems):
        raise UserError(f"taskset: {name!r}: the repository holds 2 to {len(problems)} problems")
    shared = Counter(p["entry_point"] for p in problems)  # over them all: a module keeps its name at any size
    chosen = tuple(
        Problem(
            id=p["task_id"],
            module=p["entry_point"] if shared[p["entry_point"]] == 1 else f"{p['entry_point']}_{number(p)}",
            entry=p["entry_point"],
            source=p["prompt"] + p["canonical_solution"],
            test=p["test"],
        )
        for p in problems[:size]
    )
    return [RepoTask(problem.id, problem, chosen) for problem in chosen]


def number(problem: dict) -> str:
    """HumanEval/53's is 53."""
    return problem["task_id"].rsplit("/", 1)[-1]


def write_repository(root: Path, task: RepoTask, broken: str) -> None:
    """Every problem's module, the task's own as `broken`; every problem's test file but the task's."""
    (root / PACKAGE).mkdir(parents=True)
    (root / PACKAGE / "__init__.py").write_text("", encoding="utf-8")
    (root / "tests").mkdir()
    for problem in task.problems:
        mine = problem is task.problem
        (root / problem.path).write_text(broken if mine else problem.source, encoding="utf-8")
        if not mine:
            (root / problem.test_path).write_text(problem.test_file(), encoding="utf-8")


# -- the bug ----------------------------------------------------------------------------------


def mutations(problem: Problem) -> list[Mutation]:
    """Every single-token mutation of the entry function's body, in source order. Each changes
    the operator or number in place, so the module reads as before but for that token."""
    tree = syntax.parse(problem.source)
    function = next(
        node
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == problem.entry
    )
    body = function.body[1:] if ast.get_docstring(function) is not None else function.body
    offsets = Offsets(problem.source)
    found: dict[int, Mutation] = {}  # by where the change starts: one mutation per token
    for statement in body:
        for node in walk_code(statement):
            for start, end, old, new in sites(node, offsets):
                if start not in found:
                    text = problem.source[:start] + new + problem.source[end:]
                    found[start] = Mutation(offsets.line(start), " ".join(old.split()), new, text)
    return [found[start] for start in sorted(found)]


def walk_code(node: ast.AST):
    """The node and those inside it, but not inside an f-string: Python 3.11 gives the
    expressions in one no usable position."""
    yield node
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, ast.JoinedStr):
            yield from walk_code(child)


def sites(node: ast.AST, offsets: Offsets) -> list[tuple[int, int, str, str]]:
    """(start, end, old, new): the source span of the token, the token as written there and its
    replacement. An operator is found between its operands, where only brackets and blanks may
    stand with it (a comment there: no site)."""
    operands: list[ast.expr]
    if isinstance(node, ast.Compare):
        operands, swaps = [node.left, *node.comparators], [COMPARISONS[type(op)] for op in node.ops]
    elif isinstance(node, ast.BoolOp):
        operands, swaps = node.values, [LOGICAL[type(node.op)]] * (len(node.values) - 1)
    elif isinstance(node, ast.BinOp) and type(node.op) in ARITHMETIC:
        operands, swaps = [node.left, node.right], [ARITHMETIC[type(node.op)]]
    elif isinstance(node, ast.AugAssign) and type(node.op) in ARITHMETIC:
        old, new = ARITHMETIC[type(node.op)]
        operands, swaps = [node.target, node.value], [(f"{old}=", f"{new}=")]
    elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
        return [(*offsets.span(node), repr(node.value), repr(not node.value))]
    elif isinstance(node, ast.Constant) and isinstance(node.value, int):
        start, end = offsets.span(node)
        return [(start, end, offsets.source[start:end], str(node.value + 1))]
    else:
        return []
    found = []
    for left, right, (old, new) in zip(operands[:-1], operands[1:], swaps, strict=True):
        start, end = offsets.end(left), offsets.start(right)
        spelled = re.escape(old).replace(r"\ ", r"\s+")  # `not  in` is `not in`
        match = re.fullmatch(rf"[\s()\\]*({spelled})[\s()\\]*", offsets.source[start:end])
        if match:
            found.append((start + match.start(1), start + match.end(1), match[1], new))
    return found


class Offsets:
    """ast's positions (lines, UTF-8 byte columns) as offsets into the source's characters."""

    def __init__(self, source: str):
        self.source = source
        self.lines = source.splitlines(keepends=True)
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))

    def at(self, line: int, column: int) -> int:
        return self.starts[line - 1] + len(self.lines[line - 1].encode()[:column].decode())

    def start(self, node: ast.expr) -> int:
        return self.at(node.lineno, node.col_offset)

    def end(self, node: ast.expr) -> int:
        assert node.end_lineno is not None and node.end_col_offset is not None
        return self.at(node.end_lineno, node.end_col_offset)

    def span(self, node: ast.expr) -> tuple[int, int]:
        return self.start(node), self.end(node)

    def line(self, offset: int) -> int:
        return next(number for number, start in enumerate(self.starts[1:], 1) if offset < start)


def inject(problem: Problem, sandbox: Sandbox, seconds: float = CHECK_SECONDS) -> Bug | str:
    """The task's bug, or why the problem is skipped. Deterministic: the same mutation and the
    same example every run (the probe seeds the checks that draw inputs at random). A mutant
    whose check takes longer than `seconds` is stopped and never chosen."""
    candidates = mutations(problem)
    if not candidates:
        return "no mutation applies to its function"
    answer = probe(problem, candidates, sandbox, seconds)
    if isinstance(answer, str):
        return answer
    if answer["canonical"]["outcome"] != "passed":
        return f"its canonical solution fails its own check ({answer['canonical'].get('why', 'a wrong value')})"
    tried = list(zip(candidates, answer["mutants"], strict=False))  # the probe stops at the first wrong value
    chosen = [pair for pair in tried if pair[1]["outcome"] == "wrong"] + [
        pair for pair in tried if pair[1]["outcome"] == "raises"
    ]
    if not chosen:
        return f"none of its {len(candidates)} mutations breaks its check"
    mutation, found = chosen[0]
    return Bug(problem, mutation, found["call"], found["expected"], found["got"], found["outcome"] == "raises")


def probe(problem: Problem, candidates: list[Mutation], sandbox: Sandbox, seconds: float) -> dict | str:
    """The probe's answer (bot/eval/repo_probe.py), or why there is none."""
    folder = Path(tempfile.mkdtemp(prefix="autofix-probe-"))
    try:
        job = folder / "job.json"
        job.write_text(
            json.dumps(
                {
                    "entry": problem.entry,
                    "canonical": problem.source,
                    "mutants": [m.source for m in candidates],
                    "test": problem.test,
                    "seconds": seconds,
                }
            ),
            encoding="utf-8",
        )
        argv = [sys.executable, "-S", "-s", "-P", "-c", PROBE_SOURCE, str(job)]
        outcome = sandbox.run(argv, folder, allowed_environ(DETERMINISTIC), PROBE_LIMITS)
    finally:
        remove_tree(folder)
    if outcome.killed:
        return f"the mutation probe was stopped: {outcome.killed}"
    marked = [line for line in outcome.output.splitlines() if line.startswith(repo_probe.MARK)]
    if not marked:
        return f"the mutation probe gave no answer: {clip_tail(outcome.output, REASON_CHARS)}"
    return json.loads(marked[-1].removeprefix(repo_probe.MARK))
