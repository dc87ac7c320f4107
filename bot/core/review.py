"""What a reviewer of autofix's pull request should look at, found statically in the change (no
model): what it adds that reaches the network, processes, the environment or files outside the
repository, looks at itself or at what runs it (its file's folder, `inspect`, `sys.modules`, the
command line: the static guard refuses the forms that read its own source or look for its tests,
and lets these through), runs dynamic code, carries a long literal, touches packaging or CI, or
changes a file nobody named. Only what the change adds counts: a finding whose kind and detail the old file
already had is not new. None of it refuses a fix; it says where to look."""

from __future__ import annotations

import ast
import difflib
import re
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from fnmatch import fnmatch

from bot import syntax
from bot.lang import npm, registry

NETWORK = ("socket", "ssl", "urllib", "http.client", "http.server", "requests", "httpx", "aiohttp", "urllib3",
           "ftplib", "smtplib", "poplib", "imaplib", "telnetlib", "xmlrpc", "websocket", "websockets", "paramiko",
           "asyncio.open_connection", "asyncio.start_server")  # fmt: skip
PROCESS = ("subprocess", "os.system", "os.popen", "os.fork", "os.forkpty", "os.posix_spawn", "os.posix_spawnp",
           "pty", "asyncio.create_subprocess_exec", "asyncio.create_subprocess_shell", "multiprocessing")  # fmt: skip
PROCESS_FAMILIES = re.compile(r"os\.(exec|spawn)\w*")
ENVIRONMENT = ("os.environ", "os.environb", "os.getenv", "os.getenvb", "os.putenv", "os.unsetenv")
SELF_INSPECTION = ("inspect", "sys.modules", "sys.argv", "sys.orig_argv", "importlib.resources")
OWN_NAMES = {"__file__", "__spec__", "__loader__", "__cached__"}  # what a module knows of its own file
DYNAMIC = ("eval", "exec", "compile", "__import__", "importlib", "ctypes", "pickle", "marshal", "cffi", "dill")
BUILTIN_DYNAMIC = {"eval", "exec", "compile", "__import__"}

PACKAGING = ("pyproject.toml", "setup.py", "setup.cfg", "requirements*.txt", "requirements*.in", "constraints*.txt",
             "Pipfile", "Pipfile.lock", "poetry.lock", "uv.lock", "MANIFEST.in", "Makefile", "GNUmakefile",
             "*.mk", "justfile", "Justfile", "tox.ini", "noxfile.py", "conftest.py", "pytest.ini", "Dockerfile*",
             "*.dockerfile", "docker-compose*.yml", "docker-compose*.yaml", ".pre-commit-config.yaml",
             ".gitlab-ci.yml", ".travis.yml", "azure-pipelines.yml", "Jenkinsfile", "*.pth",
             "sitecustomize.py", "usercustomize.py", "package.json", "package-lock.json", "npm-shrinkwrap.json",
             "pnpm-lock.yaml", "yarn.lock", ".npmrc", ".yarnrc*", "jest.config.*", "vitest.config.*",
             "vite.config.*", "babel.config.*", ".babelrc*", "tsconfig*.json", "go.mod", "go.sum", "go.work",
             "go.work.sum")  # fmt: skip
CI_FOLDERS = (".github/", ".circleci/", ".gitlab/", ".buildkite/")

SHOWN = 50  # findings listed; the count of the rest follows
LONG = 200  # characters: a literal this long is a payload more often than a message
ENCODED = 100  # characters: a base64- or hex-looking literal this long is an encoded payload
BASE64 = re.compile(r"[A-Za-z0-9+/_-]+={0,2}")
HEX = re.compile(r"(?:[0-9a-fA-F]{2}|\\x[0-9a-fA-F]{2})+")
OUTSIDE = re.compile(r"(?:/[\w.-]|~(?:/|$)|\.\.(?:/|$))")  # absolute, the home folder, a climb out


@dataclass(frozen=True)
class Finding:
    path: str
    line: int  # in the new file; 0: the file is gone
    kind: str
    detail: str


def findings(changes: Mapping[str, tuple[str | None, str | None]], named: Collection[str] | None) -> list[Finding]:
    """The findings of `changes`, path to (old text, new text), None where the file is absent;
    `named`: the files the task or the localization named (None: the task named none)."""
    found: list[Finding] = []
    for path, (old, new) in sorted(changes.items()):
        if old == new:
            continue
        line = first_changed_line(old, new)
        if named is not None and path not in named:
            found.append(Finding(path, line, "not named", "changed, though neither the task nor localization named it"))
        if packaging(path):
            found.append(Finding(path, line, "packaging/CI", "deleted" if new is None else "changed"))
        if new is not None and (spots := read_by_language(path, old, new)) is not None:
            before = {(kind, detail) for _, kind, detail in python(old or "")} if path.endswith(".py") else set()
            seen: set[tuple[str, str]] = set()
            for at, kind, detail in spots:
                if (kind, detail) not in before and (kind, detail) not in seen:
                    seen.add((kind, detail))
                    found.append(Finding(path, at, kind, detail))
    return found


def read_by_language(path: str, old: str | None, new: str) -> list[tuple[int, str, str]] | None:
    """What the new text of `path` adds, read as its language: Python's here, another's by its
    code view (bot/lang, which leaves out what `old` had already), package.json's lifecycle
    scripts; None for a file no reader knows."""
    if path.endswith(".py"):
        return list(python(new))
    if path.rsplit("/", 1)[-1] == "package.json":
        return npm.lifecycle_scripts(old, new)
    view = registry.for_path(path)
    return view.findings(old, new) if view is not None else None


def first_changed_line(old: str | None, new: str | None) -> int:
    if new is None:
        return 0
    matcher = difflib.SequenceMatcher(None, (old or "").splitlines(), new.splitlines(), autojunk=False)
    for tag, _, _, j1, _ in matcher.get_opcodes():
        if tag != "equal":
            return min(j1 + 1, max(len(new.splitlines()), 1))
    return 1


def packaging(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return path.startswith(CI_FOLDERS) or any(fnmatch(name, pattern) for pattern in PACKAGING)


def python(text: str) -> Iterator[tuple[int, str, str]]:
    """(line, kind, detail) for every spot of `text` of the kinds above, in order; nothing for
    code that doesn't parse (the judge refused it already, or it isn't this change's)."""
    try:
        tree = syntax.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # a hostile nesting too
        return
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]  # `import a.b` binds `a`
                aliases[alias.asname or top] = alias.name if alias.asname else top
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    inner = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    docstrings = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
    spots: list[tuple[int, str, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            spots += [(node.lineno, kind, alias.name) for alias in node.names if (kind := classify(alias.name))]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                dotted = f"{node.module}.{alias.name}"
                if kind := classify(dotted):
                    spots.append((node.lineno, kind, dotted))
        elif isinstance(node, ast.Name) and node.id in OWN_NAMES and node.id not in aliases:
            spots.append((node.lineno, "self-inspection", node.id))
        elif isinstance(node, (ast.Attribute, ast.Name)) and id(node) not in inner:
            name = resolved(node, aliases)
            if name is not None and (kind := classify(name)):
                spots.append((node.lineno, kind, name))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in BUILTIN_DYNAMIC:
            if node.func.id not in aliases:  # a name imported over the builtin is that import's
                spots.append((node.lineno, "dynamic code", f"{node.func.id}()"))
        elif isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
            spots += [(node.lineno, kind, detail) for kind, detail in literal(node.value, id(node) in docstrings)]
    yield from sorted(spots)


def resolved(node: ast.expr, aliases: Mapping[str, str]) -> str | None:
    """The dotted name an attribute chain or a name stands for, through the file's imports."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in aliases:
        return None
    return ".".join([aliases[node.id], *reversed(parts)])


def classify(dotted: str) -> str | None:
    def under(prefixes: tuple[str, ...]) -> bool:
        return any(dotted == p or dotted.startswith(p + ".") for p in prefixes)

    if under(NETWORK):
        return "network"
    if under(PROCESS) or PROCESS_FAMILIES.match(dotted):
        return "process"
    if under(ENVIRONMENT):
        return "environment"
    if under(SELF_INSPECTION):
        return "self-inspection"
    if under(DYNAMIC):
        return "dynamic code"
    return None


def literal(value: str | bytes, docstring: bool) -> Iterator[tuple[str, str]]:
    text = value.decode("latin-1") if isinstance(value, bytes) else value
    stripped = "".join(text.split())
    encoded = len(stripped) >= ENCODED and (
        ("base64-looking" if BASE64.fullmatch(stripped) else "") or ("hex-looking" if HEX.fullmatch(stripped) else "")
    )
    if encoded or (len(text) >= LONG and not docstring):
        what = "bytes" if isinstance(value, bytes) else "characters"
        shape = f", {encoded}" if encoded else ""
        yield "long literal", f"{clip(text, 24)} ({len(text)} {what}{shape})"
    elif isinstance(value, str) and "\n" not in text and len(text) < LONG and OUTSIDE.match(text) and " " not in text:
        yield "outside file", text


def clip(text: str, size: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= size else flat[:size] + "…"


def section(found: list[Finding]) -> str:
    """The pull request's Markdown section: one line per finding, or that there was none."""
    heading = "### For the reviewer"
    if not found:
        return f"{heading}\n\nNothing of these kinds: no new network, process, environment, outside-file, self-inspection, dynamic-code, long-literal, packaging/CI or unnamed-file change."  # noqa: E501
    lines = [f"- `{f.path}{f':{f.line}' if f.line else ''}` — {f.kind}: {shown(f)}" for f in found[:SHOWN]]
    if len(found) > SHOWN:  # the rest of the body (the attempts, the proof) must still fit
        lines.append(f"- and {len(found) - SHOWN} more")
    intro = "What this change adds that deserves a look, found in the diff (none of it stopped the fix):"
    return "\n".join([heading, "", intro, "", *lines])


PROSE = {"not named", "packaging/CI"}  # their detail is a sentence, not code


def shown(finding: Finding) -> str:
    return finding.detail if finding.kind in PROSE else code(finding.detail)


def code(text: str) -> str:
    """`text` as one inline code span, whatever backticks it holds."""
    flat = clip(text, 120)
    fence = "`" * (max((len(run) for run in re.findall(r"`+", flat)), default=0) + 1)
    return f"{fence} {flat} {fence}" if fence != "`" or flat.startswith(" ") else f"`{flat}`"
