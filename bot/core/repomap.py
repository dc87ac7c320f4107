"""Which files of a repository an issue is about, found without a model (after aider's repo map
and Agentless's localization), and the outline of them a model is shown.

`RepoMap.build` parses every source file once: its classes, functions and methods (signature,
line, the docstring's first line), the names it defines, and the names it uses. Python's files with
`ast`; JavaScript's and TypeScript's through their view (bot/lang/map_registry.py). A file links to
the files that define the names it uses. `mentions` reads an issue for identifiers, paths and
traceback frames; `rank` runs a PageRank over the links, personalized toward the files those
name, and puts the traceback's own files, then the files that spell the issue's identifiers,
first. `render` writes the outline in that order up to a token budget and says what it showed.
"""

from __future__ import annotations

import ast
import builtins
import fnmatch
import keyword
import operator
import os
import posixpath
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from bot import syntax
from bot.core.source import LOCATIONS
from bot.lang import map_registry, registry
from bot.lang.mapped import Names, Symbol
from bot.safefs import read_regular, shown, walk
from bot.text import FENCE, clip_line, count

MAX_FILE_BYTES = 1 << 20  # a larger source file is generated or data: listed by name, never parsed
SKIPPED_FOLDERS = frozenset({"__pycache__", "node_modules", "site-packages", "venv", "__pypackages__"})
ROOT_ONLY_SKIPPED = frozenset({"build", "dist"})  # deeper they can be packages (pip's operations/build)
VIRTUALENV_MARK = "pyvenv.cfg"  # what every virtualenv holds, whatever its folder is called
# A name more files than this define (get, run, name) says nothing about which one a use means;
# linking to all of them would also make the graph quadratic.
GENERIC_NAME_FILES = 20

DAMPING = 0.85
TOLERANCE = 1e-6  # of the L1 change between two iterations
MAX_ITERATIONS = 100

# Personalization: what the issue names, weighted. A backticked or fenced name was written as code
# on purpose; a path or a traceback frame names the file itself.
PROSE_WEIGHT = 1.0
CODE_WEIGHT = 2.0
PATH_WEIGHT = 3.0
FRAME_WEIGHT = 3.0
BACKGROUND_JUMPS = 0.1  # the share of the jumps that go to any file, not toward what the issue names
# Grep reads every file once per name: an issue pasting a log of 5,000 names took 45 s on 1,100 files.
GREPPED_NAMES = 20

CHARS_PER_TOKEN = 4  # OpenAI's rule of thumb for English; about right for code
SIGNATURE_CHARS = 160
DOC_CHARS = 100
# The outline's budget: the whole map of a small repository, the top of a large one. A model on
# this machine reads its prompt at a CPU's pace (about 26 tokens/s for a 1.5B model on two cores:
# 6,000 tokens of map cost four minutes before the first token of the answer), so it gets less.
MAP_TOKENS = 6_000
LOCAL_MAP_TOKENS = 2_000

NAME = re.compile(r"(?<![\w.])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*(?!\w)")
CAMEL_CASE = re.compile(r"[a-z0-9][A-Z]|[A-Z]{2}[a-z]")
CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)
STRING_LITERAL = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"")
URL = re.compile(r"\bhttps?://\S+")
PYTHON = ".py"
SUFFIXES = sorted({PYTHON, *registry.VIEWS}, key=len, reverse=True)  # the files the map reads
SUFFIX = "(?:" + "|".join(re.escape(suffix) for suffix in SUFFIXES) + ")"
BLOB_URL = re.compile(rf"\bhttps?://[^/\s]+/[^/\s]+/[^/\s]+/blob/[^/\s]+/([^\s#?]+?{SUFFIX})(?![\w.])")
SOURCE_PATH = re.compile(rf"(?<![\w.\\/-])(?:[A-Za-z]:)?[\w.\\/-]*\w{SUFFIX}(?!\w)")
FRAME_FUNCTION = re.compile(r",?\s*in\s+([\w.<>]+)")
WINDOWS_DRIVE = re.compile(r"^[A-Za-z]:/")
# Words of the language and its builtins name nothing in particular in a repository.
NOT_NAMES = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist) | frozenset(dir(builtins)) | {"self", "cls"}


@dataclass(frozen=True)
class SourceFile:
    path: str  # from the root, '/'-separated
    symbols: tuple[Symbol, ...]
    # Its top-level names, methods and class attributes, and the module's own name
    # (`import pkg.mod` and `mod.f()` refer to pkg/mod.py).
    defines: frozenset[str]
    problem: str  # "" when parsed; else why it is listed by name only
    source: str = field(repr=False)  # what grep looks at
    language: str = "Python"


@dataclass(frozen=True)
class RepoMap:
    root: Path  # absolute
    files: Mapping[str, SourceFile]  # in path order
    definers: Mapping[str, tuple[str, ...]]  # name: the files that define it
    links: Mapping[str, Mapping[str, float]]  # file: {file defining names it uses: weight}

    @cached_property
    def languages(self) -> tuple[str, ...]:
        """The languages of its files, the most files first."""
        found = Counter(source.language for source in self.files.values())
        return tuple(sorted(found, key=lambda language: (-found[language], language)))

    @cached_property
    def path_endings(self) -> dict[str, tuple[str, ...]]:
        """The files each relative path an issue may write names: every ending, after a '/', of
        every way to write a file's path (keys): pkg/mod.py, mod.py, pkg/mod, mod."""
        found: dict[str, list[str]] = defaultdict(list)
        for path in self.files:
            for key in keys(path):
                parts = key.split("/")
                for start in range(len(parts)):
                    found["/".join(parts[start:])].append(path)
        return {ending: tuple(paths) for ending, paths in found.items()}

    @classmethod
    def build(cls, root: Path, exclude: Iterable[str] = ()) -> RepoMap:
        """The map of every source file under `root` (Python's, JavaScript's, TypeScript's), but
        those in version control's and tools' folders, virtualenvs, caches, build output, and those
        an `exclude` pattern (fnmatch, on the path from the root: `tests/*`, `docs`) matches. No
        symlink is followed."""
        root = Path(os.path.abspath(root))
        files: dict[str, SourceFile] = {}
        used: dict[str, Counter[str]] = {}
        for path, data in sorted(source_files(root, tuple(exclude)), key=operator.itemgetter(0)):
            files[path], used[path] = read_source(path, data)
        found: dict[str, list[str]] = defaultdict(list)
        for path, source in files.items():
            for name in source.defines:
                found[name].append(path)
        definers = {name: tuple(paths) for name, paths in found.items()}
        return cls(root, files, definers, linked(used, definers))


def source_files(root: Path, exclude: Sequence[str]) -> Iterator[tuple[str, bytes | None]]:
    """(path from the root, its first MAX_FILE_BYTES + 1 bytes or None when unreadable) of every
    source file to map."""
    for folder in walk(root):
        if folder.fd is None:
            continue
        if folder.depth and any(entry.name == VIRTUALENV_MARK for entry in folder.entries):
            folder.entries = []
            continue
        subfolders = []
        for entry in folder.entries:
            path = folder.rel_of(entry.name)
            if any(fnmatch.fnmatchcase(path, pattern) for pattern in exclude):
                continue
            if entry.is_dir(follow_symlinks=False):
                if not skipped_folder(entry.name, folder.depth):
                    subfolders.append(entry)
            elif is_source(path) and entry.is_file(follow_symlinks=False):
                yield path, read_regular((folder.fd, entry.name), MAX_FILE_BYTES + 1)
        folder.entries = subfolders  # the walk goes on into these only


def is_source(path: str) -> bool:
    return path.endswith(PYTHON) or map_registry.for_path(path) is not None


def skipped_folder(name: str, depth: int) -> bool:
    # .git, .venv, .tox, .mypy_cache: tools' state, never the project's code.
    return name.startswith(".") or name in SKIPPED_FOLDERS or (depth == 0 and name in ROOT_ONLY_SKIPPED)


def read_source(path: str, data: bytes | None) -> tuple[SourceFile, Counter[str]]:
    """The file's outline and the names it uses (how often each)."""
    view = map_registry.for_path(path)
    language = view.language if view is not None else "Python"
    if data is None or len(data) > MAX_FILE_BYTES:
        # Listed by name; its module's name still links the files importing it: what an empty file of it defines.
        own_name = module_name(path) if view is None else view.names(path, "").defines
        if data is None:
            return SourceFile(path, (), own_name, "unreadable", "", language), Counter()
        text = data.decode("utf-8", "replace")
        return SourceFile(path, (), own_name, "over 1 MB: not parsed", text, language), Counter()
    text = data.decode("utf-8", "replace")
    # A view's parser places what it can of code with errors: a file listed by name only helps no one.
    names = python_names(path, data) if view is None else view.names(path, text)
    if names is None:
        return SourceFile(path, (), module_name(path), "does not parse", text, language), Counter()
    return SourceFile(path, names.symbols, names.defines, "", text, language), names.uses


def python_names(path: str, data: bytes) -> Names | None:
    """A Python file's outline, the names it defines and those it uses; None when it doesn't parse."""
    try:
        tree = syntax.parse(data)  # bytes: the parser honours a coding cookie and a BOM
    except (SyntaxError, ValueError, RecursionError):
        return None
    symbols: list[Symbol] = []
    defined: set[str] = set()
    outline_of(tree.body, 0, symbols, defined)
    defines = module_name(path) | {name for name in defined if not is_dunder(name)}
    return Names(tuple(symbols), frozenset(defines), used_names(tree))


def module_name(path: str) -> frozenset[str]:
    folder, _, name = path.rpartition("/")
    stem = folder.rpartition("/")[2] if name == "__init__.py" else name.removesuffix(".py")
    return frozenset({stem} if stem.isidentifier() else ())


def is_name(word: str) -> bool:
    """Whether a word of an issue may name something of the repository's own."""
    return len(word) > 1 and word not in NOT_NAMES and not is_dunder(word)


def is_dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def outline_of(statements: list[ast.stmt], depth: int, symbols: list[Symbol], defined: set[str]) -> None:
    """Collect the classes, functions and methods of a module's or a class's body, and the names it
    defines. A function's own body is not entered: what it defines is local to it."""
    for statement in statements:
        if isinstance(statement, ast.ClassDef):
            defined.add(statement.name)
            symbols.append(
                Symbol(statement.name, statement.lineno, depth, class_header(statement), doc_line(statement))
            )
            outline_of(statement.body, depth + 1, symbols, defined)
        elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defined.add(statement.name)
            prefix = "async def" if isinstance(statement, ast.AsyncFunctionDef) else "def"
            header = f"{prefix} {statement.name}({ast.unparse(statement.args)})"
            symbols.append(Symbol(statement.name, statement.lineno, depth, header, doc_line(statement)))
        elif isinstance(statement, ast.Assign):
            defined.update(assigned(statement.targets))
        elif isinstance(statement, ast.AnnAssign):
            defined.update(assigned([statement.target]))
        elif isinstance(statement, (ast.If, ast.Try, ast.TryStar, ast.With, ast.AsyncWith)):
            # `if sys.platform == ...: def f`, `try: import x except ImportError: class x`: still
            # the module's (or the class's) own definitions.
            outline_of(statement.body, depth, symbols, defined)
            for block in (getattr(statement, "orelse", []), getattr(statement, "finalbody", [])):
                outline_of(block, depth, symbols, defined)
            for handler in getattr(statement, "handlers", []):
                outline_of(handler.body, depth, symbols, defined)


def class_header(node: ast.ClassDef) -> str:
    bases = ", ".join(ast.unparse(base) for base in [*node.bases, *node.keywords])
    return f"class {node.name}({bases}):" if bases else f"class {node.name}:"


def doc_line(node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    first = node.body[0] if node.body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return next((line.strip() for line in first.value.value.splitlines() if line.strip()), "")
    return ""


def assigned(targets: list[ast.expr]) -> Iterator[str]:
    for target in targets:
        if isinstance(target, ast.Name):
            yield target.id
        elif isinstance(target, (ast.Tuple, ast.List)):
            yield from assigned(target.elts)
        elif isinstance(target, ast.Starred):
            yield from assigned([target.value])


def used_names(tree: ast.AST) -> Counter[str]:
    """How often the module reads each name: variables, attributes, what it imports (the modules'
    names too). A loop over the nodes: ast.walk takes three times as long."""
    names: list[str] = []
    pending: list[Any] = [tree]  # nodes, and what lists of them may hold
    while pending:
        node = pending.pop()
        kind = type(node)
        if kind is ast.Name:
            if type(node.ctx) is ast.Load:
                names.append(node.id)
            continue
        if kind is ast.Attribute:
            names.append(node.attr)
            pending.append(node.value)  # its one child with names: the loop over fields costs a third more
            continue
        if kind is ast.ImportFrom:
            names.extend((node.module or "").split("."))
            names.extend(alias.name for alias in node.names)
        elif kind is ast.Import:
            names.extend(part for alias in node.names for part in alias.name.split("."))
        # Lists may hold plain strings (`global a, b`) and None (`{**d}`): they have no fields.
        for name in getattr(node, "_fields", ()):
            child = getattr(node, name, None)
            if type(child) is list:
                pending.extend(child)
            elif isinstance(child, ast.AST):
                pending.append(child)
    return Counter(names)


def linked(used: Mapping[str, Counter[str]], definers: Mapping[str, tuple[str, ...]]) -> dict[str, dict[str, float]]:
    """File A links to file B as often as A uses a name B defines, a use shared among the files
    that define the name. A file's uses of its own names say nothing about other files."""
    links: dict[str, dict[str, float]] = {}
    for user, times_used in used.items():
        weights: dict[str, float] = defaultdict(float)
        for name, times in times_used.items():
            files = definers.get(name, ())
            if not files or len(files) > GENERIC_NAME_FILES:
                continue
            for definer in files:
                if definer != user:
                    weights[definer] += times / len(files)
        if weights:
            links[user] = dict(weights)
    return links


@dataclass(frozen=True)
class Frame:
    path: str  # as the traceback writes it
    line: int
    function: str  # "" when the traceback doesn't say


@dataclass(frozen=True)
class Mentions:
    identifiers: Mapping[str, float]  # name: weight, summed over its mentions
    # '/'-separated: files as written (`pkg/mod.py`), dotted names as paths (`pkg.mod.f`: `pkg/mod/f`): weight
    paths: Mapping[str, float]
    frames: tuple[Frame, ...]  # in the text's order: Python's tracebacks end with the innermost


def mentions(issue_text: str) -> Mentions:
    """What an issue names: identifiers (snake_case, CamelCase, dotted or called, and any name in
    backticks; those in backticks or a fenced block weigh more), paths and modules (dotted names,
    links to a file on GitHub), and traceback frames."""
    frames, text = traceback_frames(issue_text)
    paths: dict[str, float] = defaultdict(float)
    for match in BLOB_URL.finditer(text):  # a link to a file of the repository, on GitHub
        paths[match[1]] += PATH_WEIGHT
    text = URL.sub(" ", text)
    for match in SOURCE_PATH.finditer(text):
        paths[match[0].replace("\\", "/")] += PATH_WEIGHT
    text = SOURCE_PATH.sub(" ", text)
    identifiers: dict[str, float] = defaultdict(float)

    def note(names: Iterable[str], weight: float) -> None:
        for name in names:
            parts = name.split(".")
            for number, part in enumerate(parts, 1):
                # What a dotted name names is its last part; before it, lowercase parts are modules
                # or variables (json.loads, request.json), the rest classes (Path.resolve, red_ci.x).
                if (number == len(parts) or "_" in part or not part.islower()) and is_name(part):
                    identifiers[part] += weight
            # self.x and e.g. name no module.
            if len(parts) > 1 and parts[0] not in NOT_NAMES and all(len(part) > 1 for part in parts):
                paths["/".join(parts)] += weight

    prose, blocks = split_fences(text)
    for block in blocks:
        note(names_in(block, every_word=False), CODE_WEIGHT)
    for span in CODE_SPAN.finditer(prose):
        code = span[2]
        note(names_in(STRING_LITERAL.sub(" ", code), every_word=True), CODE_WEIGHT)
        for literal in STRING_LITERAL.findall(code):  # `"max_retries"`: a key, spelled as a string
            note(names_in(literal, every_word=False), CODE_WEIGHT)
    note(names_in(CODE_SPAN.sub(" ", prose), every_word=False), PROSE_WEIGHT)
    return Mentions(dict(identifiers), dict(paths), frames)


def traceback_frames(text: str) -> tuple[tuple[Frame, ...], str]:
    """The frames of the tracebacks in `text` (Python's and pytest's), and the text with their
    locations blanked, so a library's path in a frame isn't read again as a path the issue names."""
    found: list[tuple[int, int, Frame]] = []
    for pattern in LOCATIONS:
        for match in pattern.finditer(text):
            function = FRAME_FUNCTION.match(text, match.end())
            frame = Frame(match["path"], int(match["line"]), function[1] if function else "")
            found.append((match.start(), match.end(), frame))
    found.sort(key=operator.itemgetter(0))
    pieces, last = [], 0
    for start, end, _ in found:
        pieces += [text[last:start], " "]
        last = end
    return tuple(frame for _, _, frame in found), "".join(pieces) + text[last:]


def split_fences(text: str) -> tuple[str, list[str]]:
    """The Markdown's prose, and the contents of its fenced code blocks (CommonMark: closed by the
    same character, at least as many, nothing after; an unclosed one runs to the end)."""
    prose: list[str] = []
    blocks: list[str] = []
    block: list[str] | None = None
    opening = ""
    for line in text.split("\n"):
        found = FENCE.match(line)
        if block is None:
            if found:
                block, opening = [], found[1]
            else:
                prose.append(line)
        elif found and found[1][0] == opening[0] and len(found[1]) >= len(opening) and not found[2].strip():
            blocks.append("\n".join(block))
            block = None
        else:
            block.append(line)
    if block is not None:
        blocks.append("\n".join(block))
    return "\n".join(prose), blocks


def names_in(text: str, every_word: bool) -> Iterator[str]:
    """The names, dotted or not, in `text`: all of them, or only those that look like code (an
    underscore, a dot, a capital inside, a call), not English words."""
    for match in NAME.finditer(text):
        name = match[0]
        if (
            every_word
            or "_" in name
            or "." in name
            or text.startswith("(", match.end())
            or CAMEL_CASE.search(name) is not None
        ):
            yield name


def rank(repo_map: RepoMap, mentioned: Mentions) -> list[tuple[str, float]]:
    """Every file of the map with its PageRank, personalized toward the files defining the issue's
    identifiers, named by its paths or in its tracebacks; in the order: the traceback's files in
    the repository (innermost first), then the files spelling out one of the identifiers or named
    by a source file's path, then the rest; by rank within each, then by path. A traceback's frame outside the
    root (a library's, the reporter's machine's) only counts as a path the issue names."""
    wanted: dict[str, float] = defaultdict(float)
    for name, weight in mentioned.identifiers.items():
        share(wanted, repo_map.definers.get(name, ()), weight)
    named: set[str] = set()
    for path, weight in mentioned.paths.items():
        files = files_named(repo_map, path)
        share(wanted, files, weight)
        if has_suffix(path):
            named.update(files)
    for frame in mentioned.frames:
        share(wanted, files_named(repo_map, frame.path), FRAME_WEIGHT)
    mentioned_weight = sum(wanted.values())
    if mentioned_weight:
        # Some jumps go anywhere: the files no mention leads to still rank by how much the others
        # use them, rather than tie at nothing and go by name.
        anywhere = BACKGROUND_JUMPS / len(repo_map.files)
        wanted = {path: (1 - BACKGROUND_JUMPS) * wanted[path] / mentioned_weight + anywhere for path in repo_map.files}
    scores = pagerank(repo_map.links, list(repo_map.files), wanted)
    in_frames: dict[str, int] = {}
    for frame in reversed(mentioned.frames):
        inside = inside_root(repo_map.root, frame.path)
        if inside is not None and inside in repo_map.files:
            in_frames.setdefault(inside, len(in_frames))
    heaviest = sorted(mentioned.identifiers, key=lambda name: (-mentioned.identifiers[name], name))
    spelling = files_spelling(repo_map, heaviest[:GREPPED_NAMES]) | named

    def order(path: str) -> tuple[int, int, float, str]:
        if path in in_frames:
            return (0, in_frames[path], 0.0, path)
        return (1 if path in spelling else 2, 0, -scores[path], path)

    return [(path, scores[path]) for path in sorted(repo_map.files, key=order)]


def share(wanted: dict[str, float], files: Sequence[str], weight: float) -> None:
    """Split a mention's weight among the files it may mean: one of 40 `run`s is a weak hint."""
    for path in files:
        wanted[path] += weight / len(files)


def files_named(repo_map: RepoMap, written: str) -> tuple[str, ...]:
    """The files a path names. A relative one (`core/x.py`, `pkg/mod` for a module) names every
    file ending in it; an absolute one under the root, that file; an absolute one elsewhere (the
    reporter's machine, site-packages) the file whose path is its longest tail of two parts or more
    (`.../pkg/mod.py`: pkg/mod.py), so a library's `json/decoder.py` never means our `decoder.py`."""
    path = written.replace("\\", "/")
    inside = inside_root(repo_map.root, path)
    if inside is None:
        parts = [part for part in path.split("/") if part not in ("", ".")]
        tails = ("/".join(parts[start:]) for start in range(len(parts) - 1))
        return next(((tail,) for tail in tails if tail in repo_map.files), ())
    if is_absolute(path):
        return (inside,) if inside in repo_map.files else ()
    if has_suffix(path):
        return repo_map.path_endings.get(inside, ())
    # A dotted name may go on into what the module defines (pkg.mod.f): its longest start naming a module.
    parts = inside.split("/")
    starts = ("/".join(parts[:end]) for end in range(len(parts), 0, -1))
    return next((files for start in starts if (files := repo_map.path_endings.get(start, ()))), ())


def has_suffix(path: str) -> bool:
    return path.endswith(tuple(SUFFIXES))


def keys(path: str) -> tuple[str, ...]:
    """How an issue may write a file's path: pkg/mod.py, pkg/mod, and pkg for pkg/__init__.py."""
    module = posixpath.splitext(path)[0]
    return (path, module, module.removesuffix("/__init__")) if module.endswith("/__init__") else (path, module)


def inside_root(root: Path, written: str) -> str | None:
    """A traceback's or issue's path from the root, normalized: a relative one is taken as one (if
    it climbs out, `../x.py`, it names no file of the map); an absolute one under the root loses the
    root; None for an absolute one elsewhere."""
    path = written.replace("\\", "/")
    if is_absolute(path):
        spellings = {root.as_posix(), root.resolve().as_posix()}  # the root may be reached through a symlink
        under = next((spelling for spelling in spellings if path.startswith(spelling.rstrip("/") + "/")), None)
        if under is None:
            return None
        path = path[len(under.rstrip("/")) + 1 :]
    return posixpath.normpath(path)


def is_absolute(path: str) -> bool:
    return path.startswith("/") or WINDOWS_DRIVE.match(path) is not None


def files_spelling(repo_map: RepoMap, names: Iterable[str]) -> set[str]:
    """The files whose source has one of `names` as a whole word (in code, strings or comments)."""
    words = [(word, re.compile(rf"(?<!\w){re.escape(word)}(?!\w)")) for word in sorted(set(names))]
    # `in` first: a substring search is some 20 times faster than the regular expression's.
    return {
        path
        for path, source in repo_map.files.items()
        if any(word in source.source and whole.search(source.source) for word, whole in words)
    }


def pagerank(
    links: Mapping[str, Mapping[str, float]], nodes: Sequence[str], personalization: Mapping[str, float]
) -> dict[str, float]:
    """Personalized PageRank by power iteration: a walker follows a link (chosen by weight) with
    probability DAMPING, else jumps to a node chosen by `personalization` (uniformly when it is
    empty or all zero); from a node without links it always jumps. Until the L1 change is below
    TOLERANCE or after MAX_ITERATIONS."""
    if not nodes:
        return {}
    index = {node: number for number, node in enumerate(nodes)}
    total = sum(personalization.get(node, 0.0) for node in nodes)
    jump = [personalization.get(node, 0.0) / total if total else 1 / len(nodes) for node in nodes]
    sources: list[list[int]] = [[] for _ in nodes]  # who links to each node, and which share of
    shares: list[list[float]] = [[] for _ in nodes]  # their rank each link carries
    dead_ends = []
    for number, node in enumerate(nodes):
        out = {target: weight for target, weight in links.get(node, {}).items() if weight > 0 and target in index}
        weight_out = sum(out.values())
        if not weight_out:
            dead_ends.append(number)
        for target, weight in out.items():
            sources[index[target]].append(number)
            shares[index[target]].append(weight / weight_out)
    rank = jump  # from where the walks start: a node none of them reaches keeps exactly 0
    for _ in range(MAX_ITERATIONS):
        jumping = 1 - DAMPING + DAMPING * sum(rank[number] for number in dead_ends)
        following = [sum(map(operator.mul, map(rank.__getitem__, sources[n]), shares[n])) for n in range(len(nodes))]
        new = [jumping * jump[n] + DAMPING * following[n] for n in range(len(nodes))]
        change = sum(map(abs, map(operator.sub, new, rank)))
        rank = new
        if change < TOLERANCE:
            break
    return dict(zip(nodes, rank, strict=True))


@dataclass(frozen=True)
class Shown:
    text: str
    files: tuple[str, ...]  # the files the outline names, in its order
    cut_short: str | None  # the last of them, when the budget cut its outline short
    tokens: int  # estimated_tokens of the text


def budget_of(model: object) -> int:
    """The outline's budget for `model`: the one its settings name (`map_tokens`), else by where
    it runs. Models opened by open_model say both (models.base.Masked); another (a test's scripted
    model) gets the hosted default."""
    chosen = getattr(model, "map_tokens", None)
    if isinstance(chosen, int):
        return chosen
    return LOCAL_MAP_TOKENS if getattr(model, "local", False) else MAP_TOKENS


def estimated_tokens(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN)


def render(repo_map: RepoMap, ranked: Sequence[tuple[str, float]], budget_tokens: int) -> Shown:
    """The outline of the ranked files, in order, within `budget_tokens` (estimated_tokens): a
    file's path, then its classes, functions and methods, indented, with their line and their
    docstring's first line; a file that wasn't parsed by name only. The first file that doesn't
    fit whole shows what fits of it and how much is missing, and ends the outline."""
    room = budget_tokens * CHARS_PER_TOKEN  # the estimate keeps to the budget exactly while the text keeps to this
    lines: list[str] = []
    files: list[str] = []
    for path, _ in ranked:
        source = repo_map.files[path]
        block = [file_line(source), *(symbol_line(symbol) for symbol in source.symbols)]
        size = sum(len(line) + 1 for line in block)
        if size <= room:
            lines += block
            files.append(path)
            room -= size
            continue
        room -= len(block[0]) + 1 + len(more_line(len(block))) + 1  # the note, for the most it could say
        if room < 0:
            break
        kept = 1
        while len(block[kept]) + 1 <= room:  # stops before the block's end: the block didn't fit whole
            room -= len(block[kept]) + 1
            kept += 1
        lines += [*block[:kept], more_line(len(block) - kept)]
        files.append(path)
        return shown_outline(lines, files, path)
    return shown_outline(lines, files, None)


def shown_outline(lines: list[str], files: list[str], cut_short: str | None) -> Shown:
    text = "".join(line + "\n" for line in lines)
    return Shown(text, tuple(files), cut_short, estimated_tokens(text))


def file_line(source: SourceFile) -> str:
    return f"{shown(source.path)} ({source.problem})" if source.problem else shown(source.path)


def symbol_line(symbol: Symbol) -> str:
    line = f"{'  ' * (symbol.depth + 1)}{clip_line(symbol.header, SIGNATURE_CHARS)}  # line {symbol.line}"
    return f"{line}: {clip_line(symbol.doc, DOC_CHARS)}" if symbol.doc else line


def more_line(definitions: int) -> str:
    return f"  ... {count(definitions, 'more definition')}"
