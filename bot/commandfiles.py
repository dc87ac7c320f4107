"""The files a test command runs or reads as its configuration, found by reading the command,
never running it: a candidate that could rewrite one would rewrite its own verdict (a Makefile's
recipe runs before and after pytest, with everything pytest's process has).

The command is split as a shell splits it (`shlex`): `cd x && ...` moves the folder the rest
runs in, `A=b cmd`, `env`, `uv run`, `poetry run`, `hatch run` and the like are prefixes, and
each program names its files: `make` its makefiles (every name make looks for, or the `-f` ones)
and what they `include`, `just` its justfile, `nox` its noxfile, `tox` its configuration, pytest
every file it may take its configuration from, an interpreter or a shell the script it runs.
Makefile recipes, justfile recipes and shell scripts are read the same way, a few levels deep,
so `make test` whose recipe runs `./scripts/test.sh` protects both.

pytest's configuration: every candidate file (pytest.ini, .pytest.ini, pytest.toml,
.pytest.toml, pyproject.toml, tox.ini, setup.cfg) in the folder it runs in, the folders of the
paths it is given, and every folder above them, not only the one pytest would pick: which one
it picks depends on the files' contents and on which exist, and a candidate that added an
earlier one would take the run over."""

from __future__ import annotations

import configparser
import os
import posixpath
import re
import shlex
import stat
from dataclasses import dataclass
from pathlib import Path

MAKEFILES = ("GNUmakefile", "makefile", "Makefile")  # make's order: a new earlier one would win
JUSTFILES = ("justfile", ".justfile", "Justfile", "JUSTFILE")
PYTEST_CONFIG = ("pytest.ini", ".pytest.ini", "pytest.toml", ".pytest.toml", "pyproject.toml", "tox.ini", "setup.cfg")
TOX_CONFIG = ("tox.ini", "tox.toml", "pyproject.toml", "setup.cfg")
HATCH_CONFIG = ("hatch.toml", "pyproject.toml")
SHELLS = {"sh", "bash", "dash", "zsh", "ksh"}
OPERATORS = {"&&", "||", ";", "|", "&", "(", ")", "|&", ";;"}
REDIRECTS = {">", ">>", "<", "<<", "<<<", "&>", ">&", "2>", "2>>"}
# Words that start a command but are not its program: shell keywords, and programs that run the
# rest of the line (options of their own skipped, and those of OPTION_VALUES with their value).
KEYWORDS = {"if", "then", "else", "elif", "do", "while", "until", "!", "{", "}", "exec", "time", "command", "builtin"}
RUNNERS = {"env", "nice", "nohup", "timeout", "xvfb-run", "stdbuf", "ionice", "setsid"}
OPTION_VALUES = {
    "-n", "-u", "-s", "-k", "-p", "-C", "--python", "--with", "--with-requirements", "--with-editable", "--extra",
    "--group", "--package", "--project", "--env-file", "--index", "--index-url", "--directory", "--only-group",
    "-e", "--env", "-E", "--signal", "--kill-after",
}  # fmt: skip
PYTHON = re.compile(r"(python|pypy)[0-9.]*")
# Options of python that take a value: python's own, then what `coverage run` takes.
PYTHON_VALUES = {"-W", "-X", "--rcfile", "--source", "--include", "--omit", "--concurrency", "--context", "--data-file"}
PYTEST_VALUES = {"-k", "-m", "-o", "-n", "-W", "-r", "--tb", "--override-ini", "--deselect", "--junitxml", "--basetemp"}
MAKE_VARIABLE = re.compile(r"^\s*(?:override\s+|export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*[:?+!]?=\s*(.*)$")
MAKE_REFERENCE = re.compile(r"\$[({]([A-Za-z_][A-Za-z0-9_]*)[)}]")
INCLUDE = re.compile(r"^\s*[-s]?include\s+(.*)$")
JUST_IMPORT = re.compile(r"""^\s*(?:import|mod\s+\S+)\??\s+['"]([^'"]+)['"]""")
TOX_FACTOR = re.compile(r"^[\w\-,!.{}]+:\s+")  # `py311,py312: pytest`, `!lint: ...`
ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
DEPTH = 4  # files read within files: make, its recipe's script, the script's make, ...
READ_CAP = 256 << 10  # bytes of one file read for what it runs: a pull request may have shaped it
FILES_CAP = 32  # files read in all


@dataclass(frozen=True)
class CommandFiles:
    """What a command executes or reads as its configuration, whether each exists or not (a
    candidate may not add one either)."""

    paths: tuple[str, ...]  # relative to the root, sorted
    # Names protected in every folder: a recursive make or just reads them wherever it goes,
    # through folders named by variables or loops no reading of the command can follow.
    names: tuple[str, ...]


def derive(command: str, root: Path) -> CommandFiles:
    """What `command`, run in `root`, executes or reads as its configuration."""
    reader = Reader(root)
    reader.command(command, "", 0)
    return CommandFiles(tuple(sorted(reader.found)), tuple(sorted(reader.names)))


class Reader:
    def __init__(self, root: Path):
        self.root = root
        self.found: set[str] = set()
        self.names: set[str] = set()
        self.seen: set[str] = set()  # files read
        self.read = 0

    def place(self, cwd: str | None, path: str) -> str | None:
        """`path`, relative to the folder `cwd` (None: unknown) or absolute, as a normalised path
        relative to the root ('' for the root itself); None when it lies outside or is unknown."""
        if cwd is None or not path or "$" in path or "`" in path:
            return None
        if posixpath.isabs(path):
            rel = os.path.relpath(posixpath.normpath(path), self.root)
        else:
            rel = posixpath.normpath(posixpath.join(cwd, path))
        if rel == ".":
            return ""
        return None if rel == ".." or rel.startswith("../") or posixpath.isabs(rel) else rel

    def add(self, cwd: str | None, path: str) -> str | None:
        """Record the file at `path` (see place): its relative path, or None."""
        rel = self.place(cwd, path)
        if not rel:
            return None
        self.found.add(rel)
        return rel

    def text(self, rel: str) -> str | None:
        """The file's text, opened fd-relative without following a link on the way; a link at
        the end is followed only within the root, and its destination protected too. None for a
        file read already: what it names is known (a recursive make reads its makefile once)."""
        for _ in range(8):
            if self.read >= FILES_CAP or rel in self.seen:
                return None
            self.read += 1
            self.seen.add(rel)
            try:
                data, link = read_nofollow(self.root, rel)
            except (OSError, ValueError):
                return None
            if link is None:
                return data.decode("utf-8", "replace") if data is not None else None
            followed = self.add(posixpath.dirname(rel), link)
            if followed is None:
                return None
            rel = followed
        return None

    def command(self, command: str, cwd: str | None, depth: int) -> str | None:
        """Read shell command lines, a script's or a YAML block's; the folder the last `cd` left
        (None: unknown)."""
        for line in joined_lines(command):
            cwd = self.line(line, cwd, depth)
        return cwd

    def line(self, line: str, cwd: str | None, depth: int) -> str | None:
        try:
            lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
            lexer.whitespace_split = True
            words = list(lexer)
        except ValueError:  # an unclosed quote: the shell refuses it too
            return cwd
        simple: list[str] = []
        for word in [*words, ";"]:
            if word not in OPERATORS:
                simple.append(word)
                continue
            cwd = self.simple(simple, cwd, depth)
            simple = []
        return cwd

    def simple(self, words: list[str], cwd: str | None, depth: int) -> str | None:
        """One simple command: what its program reads; the folder the next one starts in."""
        words = without_redirections(words, self, cwd)
        while words and (ASSIGNMENT.match(words[0]) or words[0] in KEYWORDS):
            words = words[1:]
        if not words:
            return cwd
        program, args = words[0], words[1:]
        if program in ("cd", "pushd"):
            return self.place(cwd, args[0]) if args and args[0] not in ("-", "~") else None
        self.program(program, args, cwd, depth)
        return cwd

    def program(self, program: str, args: list[str], cwd: str | None, depth: int) -> None:
        name = posixpath.basename(program)
        if name in RUNNERS:
            if name == "env" and "-C" in args[:-1]:
                cwd = self.place(cwd, args[args.index("-C") + 1])
            rest = skip_options(args)
            if name == "timeout" and rest:
                rest = rest[1:]  # the duration
            while rest and ASSIGNMENT.match(rest[0]):
                rest = rest[1:]
            if rest:
                self.program(rest[0], rest[1:], cwd, depth)
            return
        if name in ("poetry", "pipenv", "pdm", "rye", "uv", "hatch", "conda") and args[:1] == ["run"]:
            if name == "hatch":
                self.all(cwd, HATCH_CONFIG)
            if name == "pdm":
                self.add(cwd, "pyproject.toml")
            if name == "uv" and "--directory" in args[:-1]:
                cwd = self.place(cwd, args[args.index("--directory") + 1])
            rest = skip_options(args[1:])
            if rest:
                self.program(rest[0], rest[1:], cwd, depth)
            return
        if name in ("make", "gmake"):
            self.make(args, cwd, depth)
        elif name == "just":
            self.just(args, cwd, depth)
        elif name == "nox":
            self.nox(args, cwd)
        elif name == "tox":
            self.tox(args, cwd, depth)
        elif name in ("pytest", "py.test"):
            self.pytest(args, cwd)
        elif name == "coverage" and args[:1] == ["run"]:
            self.python(args[1:], cwd, depth)
        elif PYTHON.fullmatch(name):
            self.python(args, cwd, depth)
        elif name in SHELLS:
            self.shell(args, cwd, depth)
        elif name in ("pip", "pip3"):
            self.pip(args, cwd)
        elif name in ("npm", "yarn", "pnpm"):
            self.add(cwd, "package.json")
        elif "/" in program:  # a script of the tree, run by its path
            self.script(program, cwd, depth)

    def all(self, cwd: str | None, names: tuple[str, ...]) -> None:
        for name in names:
            self.add(cwd, name)

    def make(self, args: list[str], cwd: str | None, depth: int) -> None:
        self.names.update(MAKEFILES)
        files: list[str] = []
        index = 0
        while index < len(args):
            arg, value = args[index], args[index + 1] if index + 1 < len(args) else None
            for short, long_forms in (("-C", ("--directory",)), ("-f", ("--file", "--makefile"))):
                given = option_value(arg, value, short, long_forms)
                if given is not None:
                    if short == "-C":
                        cwd = self.place(cwd, given[0])
                    else:
                        files.append(given[0])
                    index += given[1]
                    break
            else:
                index += 1
        makefiles = [rel for path in files or MAKEFILES if (rel := self.add(cwd, path))]
        if depth >= DEPTH:
            return
        for rel in makefiles:
            text = self.text(rel)
            if text is not None:
                self.makefile(text, cwd, depth)

    def makefile(self, text: str, cwd: str | None, depth: int) -> None:
        lines = joined_lines(text)
        variables = {"MAKE": "make", "CURDIR": cwd or ""}
        for line in lines:
            if not line.startswith("\t") and (assigned := MAKE_VARIABLE.match(line)):
                variables.setdefault(assigned[1], assigned[2].strip())
        for line in lines:
            expanded = line
            for _ in range(DEPTH):  # a variable's value may name others
                expanded = MAKE_REFERENCE.sub(lambda m: variables.get(m[1], m[0]), expanded)
            expanded = expanded.replace("$$", "$")
            if line.startswith("\t"):
                self.command(expanded.lstrip("\t").lstrip("@-+ "), cwd, depth + 1)
            elif included := INCLUDE.match(expanded):
                for path in included[1].split():
                    if (rel := self.add(cwd, path)) and (inner := self.text(rel)) is not None and depth + 1 < DEPTH:
                        self.makefile(inner, cwd, depth + 1)
            elif ":" in expanded and ";" in expanded.partition(":")[2] and "=" not in expanded.partition(":")[0]:
                self.command(expanded.partition(":")[2].partition(";")[2], cwd, depth + 1)  # `target: ; recipe`

    def just(self, args: list[str], cwd: str | None, depth: int) -> None:
        self.names.update(JUSTFILES)
        files: list[str | None] = []
        for index, arg in enumerate(args):
            if given := option_value(arg, at(args, index + 1), "-d", ("--working-directory",)):
                cwd = self.place(cwd, given[0])
            elif given := option_value(arg, at(args, index + 1), "-f", ("--justfile",)):
                files.append(self.add(cwd, given[0]))
        if not files:  # just looks in the folder, then in every folder above it
            files = [self.add(folder, name) for folder in upward(cwd) for name in JUSTFILES]
        for rel in files:
            text = self.text(rel) if rel and depth < DEPTH else None
            here = posixpath.dirname(rel or "")  # where just runs the recipes
            for line in joined_lines(text or ""):
                if imported := JUST_IMPORT.match(line):
                    self.add(here, imported[1])
                elif line[:1] in (" ", "\t") and line.strip():
                    self.command(line.strip().lstrip("@-"), here, depth + 1)

    def nox(self, args: list[str], cwd: str | None) -> None:
        given = next(
            (v for i, a in enumerate(args) if (v := option_value(a, at(args, i + 1), "-f", ("--noxfile",)))), None
        )
        self.add(cwd, given[0] if given else "noxfile.py")

    def tox(self, args: list[str], cwd: str | None, depth: int) -> None:
        given = next(
            (v for i, a in enumerate(args) if (v := option_value(a, at(args, i + 1), "-c", ("--conf",)))), None
        )
        if given is None:
            self.all(cwd, TOX_CONFIG)
        for rel in [self.add(cwd, given[0] if given else "tox.ini")]:  # the ini's `commands`, run from its folder
            text = self.text(rel) if rel and rel.endswith(".ini") and depth < DEPTH else None
            for line in tox_commands(text or ""):
                self.command(line, posixpath.dirname(rel or ""), depth + 1)

    def pytest(self, args: list[str], cwd: str | None) -> None:
        folders = {cwd}
        index = 0
        while index < len(args):
            arg, value = args[index], at(args, index + 1)
            given = option_value(arg, value, "-c", ("--config-file",))
            if given:
                self.add(cwd, given[0])
            elif given := option_value(arg, value, "--rootdir", ()):
                folders.add(self.folder_of(cwd, given[0], True))
            elif given := option_value(arg, value, "-p", ()):
                if not given[0].startswith("no:"):  # a plugin module, imported from the folder
                    module = given[0].replace(".", "/")
                    self.all(cwd, (f"{module}.py", f"{module}/__init__.py"))
            elif arg in PYTEST_VALUES:
                given = (value or "", 2)
            elif not arg.startswith("-"):
                folders.add(self.folder_of(cwd, arg.partition("::")[0], False))
            index += given[1] if given else 1
        for start in folders:
            for folder in upward(start):
                self.all(folder, PYTEST_CONFIG)

    def folder_of(self, cwd: str | None, path: str, is_folder: bool) -> str | None:
        rel = self.place(cwd, path)
        if rel is None or is_folder or (self.root / rel).is_dir():
            return rel
        return posixpath.dirname(rel)

    def python(self, args: list[str], cwd: str | None, depth: int) -> None:
        index = 0
        while index < len(args):
            arg = args[index]
            if arg in ("-c", "--"):
                return
            if arg == "-m" or (arg.startswith("-m") and len(arg) > 2 and not arg.startswith("--")):
                module = arg[2:] or at(args, index + 1) or ""
                rest = args[index + (1 if arg[2:] else 2) :]
                self.module(module, rest, cwd, depth)
                return
            if arg in PYTHON_VALUES:
                index += 2
                continue
            if arg.startswith("-"):
                index += 1
                continue
            self.add(cwd, arg)  # the script: its imports are its own business, like a test's
            return

    def module(self, module: str, args: list[str], cwd: str | None, depth: int) -> None:
        if module == "pytest":
            self.pytest(args, cwd)
        elif module == "nox":
            self.nox(args, cwd)
        elif module == "tox":
            self.tox(args, cwd, depth)
        elif module == "pip":
            self.pip(args, cwd)
        elif module and module not in ("unittest", "coverage") and "$" not in module:
            # `-m tools.run` runs tools/run.py (or its __main__) from the folder, and every
            # package __init__ on the way
            parts = module.split(".")
            for depth in range(1, len(parts)):
                self.add(cwd, "/".join(parts[:depth]) + "/__init__.py")
            self.all(cwd, (f"{'/'.join(parts)}.py", f"{'/'.join(parts)}/__init__.py", f"{'/'.join(parts)}/__main__.py"))

    def pip(self, args: list[str], cwd: str | None) -> None:
        """`pip install`: the requirement files it reads, and the build files of a folder it
        installs (its setup.py runs)."""
        if "install" not in args:
            return
        for index, arg in enumerate(args):
            if given := option_value(arg, at(args, index + 1), "-r", ("--requirement", "-c", "--constraint")):
                self.add(cwd, given[0])
            elif arg.startswith("-") or arg == "install":
                continue
            elif (folder := self.place(cwd, arg.partition("[")[0])) is not None and (self.root / folder).is_dir():
                self.all(folder, ("setup.py", "pyproject.toml", "setup.cfg"))

    def shell(self, args: list[str], cwd: str | None, depth: int) -> None:
        for index, arg in enumerate(args):
            if arg == "-c" or (arg.startswith("-") and not arg.startswith("--") and "c" in arg):
                if index + 1 < len(args) and depth < DEPTH:
                    self.command(args[index + 1], cwd, depth + 1)
                return
            if not arg.startswith("-") and not arg.startswith("+"):
                self.script(arg, cwd, depth)
                return

    def script(self, path: str, cwd: str | None, depth: int) -> None:
        rel = self.add(cwd, path)
        if rel is None or depth >= DEPTH:
            return
        text = self.text(rel)
        if text is None or (text.startswith("#!") and "python" in text.partition("\n")[0]):
            return
        self.command(text, cwd, depth + 1)


def read_nofollow(root: Path, rel: str) -> tuple[bytes | None, str | None]:
    """(content, None) for a regular file at `rel` of `root` (None for anything else), or (None,
    the link) when its last component is a symbolic link; each folder opened relative to the one
    before it, never through a link (OSError then)."""
    parts = rel.split("/")
    folder = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for name in parts[:-1]:
            inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=folder)
            os.close(folder)
            folder = inner
        info = os.stat(parts[-1], dir_fd=folder, follow_symlinks=False)
        if stat.S_ISLNK(info.st_mode):
            return None, os.readlink(parts[-1], dir_fd=folder)
        if not stat.S_ISREG(info.st_mode):
            return None, None
        fd = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=folder)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None, None
            return os.read(fd, READ_CAP), None
        finally:
            os.close(fd)
    finally:
        os.close(folder)


def tox_commands(text: str) -> list[str]:
    """The command lines of every environment of a tox.ini, their factor conditions (`py311:`)
    and `-` (ignore the exit code) taken off."""
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:  # tox refuses it too
        return []
    lines = []
    for section in parser.sections():
        if section.startswith("testenv"):
            for line in parser[section].get("commands", "").splitlines():
                lines.append(TOX_FACTOR.sub("", line.strip()).lstrip("- "))
    return [line for line in lines if line]


def upward(folder: str | None) -> list[str]:
    """The folder and every folder above it, up to the root ('')."""
    found = []
    while folder is not None:
        found.append(folder)
        folder = posixpath.dirname(folder) if folder else None
    return found


def joined_lines(text: str) -> list[str]:
    """The lines of a makefile, justfile or script, a backslash's continuation joined, comments
    left to shlex."""
    return text.replace("\\\n", " ").splitlines()


def without_redirections(words: list[str], reader: Reader, cwd: str | None) -> list[str]:
    """The words without redirections; what `<` feeds in is read, so it is recorded."""
    kept, index = [], 0
    while index < len(words):
        if words[index] in REDIRECTS or (words[index][:1].isdigit() and words[index][1:] in REDIRECTS):
            if words[index].endswith("<") and index + 1 < len(words):
                reader.add(cwd, words[index + 1])
            index += 2
            continue
        kept.append(words[index])
        index += 1
    return kept


def skip_options(args: list[str]) -> list[str]:
    """args after the options of a program that runs the rest of the line."""
    index = 0
    while index < len(args) and args[index].startswith("-"):
        if args[index] == "--":
            return args[index + 1 :]
        index += 2 if args[index] in OPTION_VALUES else 1
    return args[index:]


def option_value(arg: str, following: str | None, short: str, long_forms: tuple[str, ...]) -> tuple[str, int] | None:
    """The value an option gives and how many words it took: `-C dir`, `-Cdir`, `--directory=dir`,
    `--directory dir`; None when `arg` is not that option."""
    for form in (short, *long_forms):
        if not form:
            continue
        if arg == form:
            return (following, 2) if following is not None else None
        if form.startswith("--") and arg.startswith(form + "="):
            return arg[len(form) + 1 :], 1
        if not form.startswith("--") and arg.startswith(form) and len(arg) > len(form):
            return arg[len(form) :], 1
    return None


def at(words: list[str], index: int) -> str | None:
    return words[index] if index < len(words) else None
