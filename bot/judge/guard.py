"""A static guard on what a candidate adds: code that reaches into the machinery that runs and
judges the tests is refused, whatever the tests would say.

It is the second line. The first is dynamic — the sandbox, the protected paths, the JUnit
baseline, plain values compared outside the candidate's process — and catches the attacks it
knows by their effect. The guard reads the code itself: an attack the dynamic checks were not
built for still has to get past it. It reads the syntax tree, follows import aliases, `getattr(x, "name")`,
`__import__("name")`, `importlib.import_module("name")`, `sys.modules["name"]`, strings joined
with `+` and the literal code given to exec, eval and compile. Code built at run time (exec of
decoded bytes) is refused where the edit adds it; names assembled in a loop still get past it.

Code that ordinary programs are made of never trips it: string, list, number and date
utilities, classes and dataclasses, itertools, functools, re, json, collections, typing, math,
pathlib, logging, and the `if __name__ == "__main__":` idiom.
"""

from __future__ import annotations

import ast
import builtins
import re
import sys
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass
from types import CodeType
from typing import TypeGuard

from bot import syntax
from bot.lang.base import changed_lines
from bot.text import clip_line

TEXT_CHARS = 120  # of an offending line, in a finding

# rule: (what it catches, why code under test may not). RULES_TABLE shows them in docs/judging.md.
RULES: dict[str, tuple[str, str]] = {
    "test-runner": (
        "imports `pytest`, `_pytest` or `pluggy` (also by `__import__`, `importlib` or `sys.modules`), "
        "`pytest.exit`/`main`/`hookimpl`, a pytest hook (`def pytest_*`, `pytest_plugins`), `.pluginmanager`, "
        "strings naming `_pytest`, a `pytest_` hook or `conftest`",
        "the test runner's internals can skip the tests or rewrite their results",
    ),
    "main-module": (
        '`__main__`, imported or named in a string (`if __name__ == "__main__":` is fine)',
        "the `__main__` module is the runner that judges the checks",
    ),
    "sys-modules": (
        "changes `sys.modules` or a module reached through it",
        "swapping modules puts fakes in place of the test machinery",
    ),
    "import-system": (
        "changes `sys.meta_path`, `sys.path_hooks` or `sys.path_importer_cache`",
        "an import hook can rewrite the tests as they are imported",
    ),
    "gc": ("imports `gc`", "the garbage collector hands out every live object, the test runner's too"),
    "frames": (
        "`sys._getframe`, `inspect.currentframe`/`stack`/`getouterframes`, `traceback.walk_stack`, "
        "`.f_back`, `.f_globals`, `.f_locals`, `.tb_frame`, ...",
        "the calling frames are the tests' and the runner's, with the expected values and the verdict",
    ),
    "builtins": (
        "`__builtins__`, or a change to the `builtins` module",
        "replacing built-ins changes how the tests themselves behave",
    ),
    "patching": (
        "assigns an attribute of a standard-library or test-runner module "
        "(`unittest.TestCase.run = ...`, `sys.stdout = ...`)",
        "monkeypatching the machinery that runs and reports the tests changes the verdict, not the code",
    ),
    "hard-exit": (
        "`os._exit`, `os.abort`, `os.kill`, `os.killpg`, `signal.raise_signal`, `signal.pthread_kill`, `os.exec*`",
        "ending the process behind the runner's back, or replacing it with another program, skips its report",
    ),
    "exit-at-import": (
        "`sys.exit()`, `exit()`, `quit()` or `raise SystemExit` in code that runs on import "
        '(not in functions or `if __name__ == "__main__":`)',
        "importing the module must not end the test run",
    ),
    "atexit": ("imports `atexit`", "exit handlers run after the tests and can rewrite their report or exit status"),
    "native-code": ("imports `ctypes`, `_ctypes` or `cffi`", "native calls can patch the interpreter's memory"),
    "test-report": (
        "strings naming the test report or the runner's settings: `junit` (any case), "
        "`PYTEST_` (`PYTEST_ADDOPTS`, `PYTEST_CURRENT_TEST`, ...)",
        "finding the report lets code forge it, and detecting the test run lets it behave differently under test",
    ),
    "self-reading": (
        "reads its own source, file, bytecode or syntax tree: `__file__` used but for its folder "
        "(`open(__file__)`, `Path(__file__).read_bytes()`; `os.path.dirname(__file__)` and `Path(__file__).parent` "
        "are fine, not a `.py` file or a listing of that folder), `inspect.getsource`/`getfile`/`getmodule`/..., "
        "`linecache`, `dis`, `marshal`, `tokenize.open`, `__code__` and `co_*` read, `__loader__`, `__spec__`, "
        "`__cached__`, `importlib.resources` of its own `.py` files",
        "code that reads itself can act differently once it is changed: it would tell the strength check's "
        "variants from itself and break only those",
    ),
    "test-detection": (
        "looks whether it is being tested: `sys.modules` read but by `__name__` (`in`, iterated, `.get` of "
        'another module), `sys.argv` or `sys.orig_argv` outside `if __name__ == "__main__":`, `os.environ` '
        "iterated, `sys.meta_path` read, `__globals__`, `sys.gettrace`, `faulthandler.is_enabled`, ...",
        "code that behaves one way under test and another everywhere else passes tests it doesn't; "
        "at import the command line is the runner's, with its private arguments",
    ),
    "signals": (
        "`signal.signal`, `signal.setitimer`, `signal.alarm`, `signal.set_wakeup_fd`, `signal.siginterrupt`",
        "signal handlers and timers can interrupt the runner or swallow its timeout",
    ),
    "tracing": (
        "`sys.settrace`, `sys.setprofile`, `threading.settrace`/`setprofile`, `sys.monitoring`, `sys.addaudithook`",
        "a trace function sees and changes every frame, the tests' included",
    ),
    "code-objects": (
        "assigns `__code__` or `cell_contents`, calls `.replace()` on a code object, `types.CodeType`",
        "rewriting compiled code changes functions behind the tests' back",
    ),
    "dynamic-code": (
        "runs code built at run time: `exec`, `eval` or `compile` of anything but a literal, "
        "`types.FunctionType`/`LambdaType`, `pickle.load`/`loads`, `runpy`, the `code` and `codeop` modules",
        "code the guard can't read can't be let through: text decoded and run as code walks past every check here",
    ),
    "proc": ("strings with `/proc/`", "`/proc` shows the test runner's command line, environment and memory"),
    "unreadable": ("code nested too deeply for the guard to read", "code the guard can't read can't be let through"),
}
RULES_TABLE = "| rule | what it catches | why |\n| --- | --- | --- |\n" + "\n".join(
    f"| `{rule}` | {what} | {why} |" for rule, (what, why) in RULES.items()
)

# Modules whose import (or use, through an alias) is a finding in itself.
MODULE_RULES = {
    "pytest": "test-runner", "_pytest": "test-runner", "pluggy": "test-runner", "__main__": "main-module",
    "gc": "gc", "atexit": "atexit", "ctypes": "native-code", "_ctypes": "native-code", "cffi": "native-code",
    "linecache": "self-reading", "dis": "self-reading", "marshal": "self-reading",
}  # fmt: skip
# Importing pytest is a finding, using its names isn't in itself: an edit to a file that imported it
# already may use `pytest.fixture`, not `pytest.exit`.
USABLE_MODULES = {"pytest"}
# What a test file autofix adds (a reproduction test) may import: pytest's public module, for
# `pytest.raises`, `approx` and `mark`; its internals, hooks, exit and plugin manager stay refused.
TEST_FILE_MODULES = {"pytest"}
# A process that execs another program ends its own run: a command judged by its exit code
# would be judged by that program's (`/bin/true`).
EXECS = ("execl", "execle", "execlp", "execlpe", "execv", "execve", "execvp", "execvpe")
NAME_RULES = {
    "sys._getframe": "frames", "sys._current_frames": "frames", "inspect.currentframe": "frames",
    "inspect.stack": "frames", "inspect.trace": "frames", "inspect.getouterframes": "frames",
    "inspect.getinnerframes": "frames", "traceback.walk_stack": "frames", "logging.currentframe": "frames",
    "inspect.getframeinfo": "frames", "traceback.extract_stack": "frames", "traceback.format_stack": "frames",
    "traceback.print_stack": "frames",
    **{f"inspect.{call}": "self-reading" for call in (
        "getsource", "getsourcelines", "getsourcefile", "getfile", "getabsfile", "getmodule", "getcomments",
        "findsource", "getclosurevars",
    )},
    "tokenize.open": "self-reading",
    "sys.gettrace": "test-detection", "sys.getprofile": "test-detection", "threading.gettrace": "test-detection",
    "threading.getprofile": "test-detection", "faulthandler.is_enabled": "test-detection",
    "sys.unraisablehook": "test-detection", "threading.excepthook": "test-detection",
    "os._exit": "hard-exit", "posix._exit": "hard-exit", "os.abort": "hard-exit", "os.kill": "hard-exit",
    "os.killpg": "hard-exit", "signal.raise_signal": "hard-exit", "signal.pthread_kill": "hard-exit",
    **{f"{module}.{call}": "hard-exit" for module in ("os", "posix") for call in EXECS},
    "signal.signal": "signals", "signal.setitimer": "signals", "signal.alarm": "signals",
    "signal.set_wakeup_fd": "signals", "signal.siginterrupt": "signals",
    "sys.settrace": "tracing", "sys.setprofile": "tracing", "threading.settrace": "tracing",
    "threading.setprofile": "tracing", "threading.settrace_all_threads": "tracing",
    "threading.setprofile_all_threads": "tracing", "sys.monitoring": "tracing", "sys.addaudithook": "tracing",
    "types.CodeType": "code-objects",
    "pytest.exit": "test-runner", "pytest.main": "test-runner", "pytest.hookimpl": "test-runner",
}  # fmt: skip
ATTRIBUTE_RULES = {
    "f_back": "frames", "f_globals": "frames", "f_locals": "frames", "f_builtins": "frames",
    "tb_frame": "frames", "gi_frame": "frames", "cr_frame": "frames", "ag_frame": "frames",
    "pluginmanager": "test-runner", "__builtins__": "builtins",
    "__code__": "self-reading", "f_code": "self-reading", "gi_code": "self-reading", "cr_code": "self-reading",
    "ag_code": "self-reading", "__loader__": "self-reading", "__spec__": "self-reading", "__cached__": "self-reading",
    **{name: "self-reading" for name in dir(CodeType) if name.startswith("co_")},
    "__globals__": "test-detection",
}  # fmt: skip
# Names a module has of itself: the loader and spec read its source (`get_source`, `get_data`).
OWN_NAMES = {"__loader__", "__spec__", "__cached__"}
CODE_STORES = {"__code__", "cell_contents"}  # code objects themselves are read-only
STRING_RULES = {
    "test-runner": re.compile(r"_pytest|pytest_|pluggy|conftest|^pytest(?:\.|$)"),
    "main-module": re.compile(r"__main__"),
    "test-report": re.compile(r"(?i:junit)|PYTEST_"),
    "proc": re.compile(r"/proc/"),
    "builtins": re.compile(r"__builtins__"),
}
IMPORT_SYSTEM = ("sys.meta_path", "sys.path_hooks", "sys.path_importer_cache")
PATCHABLE_ROOTS = (set(sys.stdlib_module_names) | {"pytest", "_pytest", "pluggy"}) - {"builtins", "__main__"}
IMPORT_FUNCTIONS = {"builtins.__import__", "importlib.import_module", "importlib.__import__", "sys.modules.get"}
SET_ATTRIBUTE = {"builtins.setattr", "builtins.delattr", "builtins.object.__setattr__", "builtins.object.__delattr__"}
MUTATORS = {
    "append",
    "extend",
    "insert",
    "remove",
    "pop",
    "popitem",
    "clear",
    "update",
    "setdefault",
    "__setitem__",
    "__delitem__",
}
EXITS = {"sys.exit", "builtins.exit", "builtins.quit"}
DYNAMIC_CODE = {"builtins.exec", "builtins.eval", "builtins.compile"}  # with a literal, it is read too
# What runs code made at run time, whatever its argument (a literal to exec is read instead).
CODE_BUILDERS = {
    "types.FunctionType", "types.LambdaType", "pickle.load", "pickle.loads", "pickle.Unpickler",
    "runpy.run_path", "runpy.run_module", "code.InteractiveInterpreter", "code.InteractiveConsole",
    "code.interact", "codeop.compile_command", "codeop.CommandCompiler", "codeop.Compile",
}  # fmt: skip
CODE_ATTRIBUTES = {"__code__", "f_code", "gi_code", "cr_code", "ag_code"}
BUILTIN_NAMES = frozenset(dir(builtins))
# A path to the module's own file may pass through these and still name it; `os.path.dirname` or
# `.parent` makes it the file's folder, whose other files (data, templates) are the module's to read.
PATH_WRAPPERS = {"os.path.abspath", "os.path.realpath", "os.path.normpath", "os.fspath", "builtins.str",
                 "pathlib.Path", "pathlib.PurePath", "pathlib.PosixPath"}  # fmt: skip
PATH_METHODS = {"resolve", "absolute"}
SIBLING_METHODS = {"with_name", "with_suffix"}  # `Path(__file__).with_suffix(".json")`: a file beside it
JOIN_METHODS = {"joinpath", *SIBLING_METHODS}
LISTINGS = {"os.listdir", "os.scandir", "os.walk", "glob.glob", "glob.iglob"}
LISTING_METHODS = {"glob", "rglob", "iterdir", "walk"}
CODE_FILE = re.compile(r"\.py[cdiow]?$|(?:^|/)\*+$")  # a Python file, or every file of a folder
OWN_PACKAGE = {"__name__", "__package__"}
ENVIRON = {"os.environ", "os.environb"}
ITERATING = {f"builtins.{name}" for name in (
    "list", "tuple", "set", "frozenset", "sorted", "any", "all", "filter", "map", "iter", "next", "enumerate", "zip",
    "reversed", "str", "repr", "len", "max", "min", "sum",
)}  # fmt: skip
# What a finding can point at: the nodes that carry a line number.
Located = ast.stmt | ast.expr | ast.alias


@dataclass(frozen=True)
class Finding:
    line: int
    rule: str
    text: str  # the offending source line, stripped and clipped
    why: str
    path: str = ""  # the file, when the caller named it


def findings(code: str, original: str | None = None, path: str = "", test_file: bool = False) -> list[Finding]:
    """What in `code` reaches into the test machinery. With `original` (the file before an edit),
    only the lines the edit added or changed count. Code that doesn't parse has no findings: the
    tests report its syntax error themselves. `test_file`: a test autofix adds, which may import
    pytest itself (TEST_FILE_MODULES)."""
    try:
        tree = syntax.parse(code)
    # ValueError: a null byte; too deep (RecursionError, or MemoryError for `- - ... 1`) won't compile either
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    try:
        scan = Scan(tree, code.splitlines(), None if original is None else changed_lines(original, code), path)
        scan.importable = TEST_FILE_MODULES if test_file else frozenset()
        scan.run(tree)
    except RecursionError:  # it parses, but is deeper than the guard's stack: nothing ordinary is
        return [
            Finding(
                1, "unreadable", clip_line(code.lstrip().partition("\n")[0], TEXT_CHARS), RULES["unreadable"][1], path
            )
        ]
    return sorted(scan.found.values(), key=lambda finding: (finding.line, finding.rule))


def feedback(found: list[Finding]) -> str:
    """The message for the model: each finding, and that the problem is what to solve."""
    if not found:
        return ""
    items = "\n".join(f"- {where(f)} ({f.rule}): `{f.text}` — {f.why}" for f in found)
    return (
        "Your code was refused: it reaches into the machinery that runs and judges the tests, which "
        "code under test has no reason to do. The task is to solve the problem, not the tests: "
        "remove these and make the code itself correct.\n" + items
    )


def where(finding: Finding) -> str:
    return f"{finding.path}:{finding.line}" if finding.path else f"line {finding.line}"


class Scan:
    def __init__(self, tree: ast.Module, lines: list[str], new_lines: set[int] | None, path: str):
        self.lines, self.new_lines, self.path = lines, new_lines, path
        self.importable: Collection[str] = frozenset()  # modules this file may import (findings' test_file)
        self.found: dict[tuple[int, str], Finding] = {}
        self.aliases: dict[str, str] = {"__builtins__": "builtins"}  # local name -> what it names
        self.bindings = bindings(tree)  # a name bound anywhere is no built-in here
        self.inert = inert_strings(tree)
        self.on_import = runs_on_import(tree)
        self.script = script_only(tree)
        self.parents = {id(child): parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}
        self.learn_aliases(tree)
        self.folders: set[str] = set()  # names bound once to the folder of the module's own file
        for node in ast.walk(tree):  # learnt before any use is judged
            if isinstance(node, ast.expr) and self.names_own_file(node) and (folder := self.own_folder(node)):
                self.beside(folder)

    def flag(self, node: Located, rule: str) -> None:
        first = node.lineno
        # A statement with a body (a def) is judged by its first line, an expression by all of its own.
        last = first if hasattr(node, "body") else (node.end_lineno or first)
        if self.new_lines is not None and self.new_lines.isdisjoint(range(first, last + 1)):
            return
        text = self.lines[first - 1] if first <= len(self.lines) else ""
        self.found.setdefault(
            (first, rule), Finding(first, rule, clip_line(text.strip(), TEXT_CHARS), RULES[rule][1], self.path)
        )

    def learn_aliases(self, tree: ast.Module) -> None:
        """Imported names, then names assigned a module or a function once and only once:
        `modules = sys.modules`, `end = os._exit`. The code's flow isn't followed, so a name bound
        twice, or a value taken from one (`args = sys.argv[1:]`), could mean anything."""
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:  # `import a.b` binds `a`; `import a.b as c` binds a.b
                    name = alias.name if alias.asname else alias.name.partition(".")[0]
                    self.aliases[alias.asname or name] = name
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    if alias.name != "*":
                        self.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        assignments = sorted(
            (n for n in ast.walk(tree) if isinstance(n, ast.Assign)), key=lambda n: (n.lineno, n.col_offset)
        )
        for node in assignments:
            named = self.dotted(node.value)
            for target in node.targets:
                if named and ".[]" not in named and isinstance(target, ast.Name) and self.bindings[target.id] == 1:
                    self.aliases[target.id] = named

    def run(self, tree: ast.Module) -> None:
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                self.check_import(node)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("pytest_"):
                self.flag(node, "test-runner")
            elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
                for target in targets_of(node):
                    self.check_store(target)
            elif isinstance(node, ast.Raise) and id(node) in self.on_import and node.exc is not None:
                exception = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
                if self.dotted(exception) == "builtins.SystemExit":
                    self.flag(node, "exit-at-import")
            if isinstance(node, ast.Call):
                self.check_call(node)
            if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)):
                self.check_reference(node)
            if isinstance(node, (ast.Constant, ast.BinOp)) and id(node) not in self.inert:
                self.check_string(node)

    def check_import(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                self.check_module(alias, alias.name)
            return
        if node.module and not node.level:
            self.check_module(node, node.module)
            for alias in node.names:
                self.check_name(alias, f"{node.module}.{alias.name}")

    def check_module(self, node: Located, module: str) -> None:
        rule = MODULE_RULES.get(module.partition(".")[0])
        if rule and module not in self.importable:
            self.flag(node, rule)

    def check_name(self, node: Located, name: str) -> None:
        rule = NAME_RULES.get(name)
        if rule:
            self.flag(node, rule)
        root = name.partition(".")[0]
        if root in MODULE_RULES and root not in USABLE_MODULES:
            self.flag(node, MODULE_RULES[root])
        if name.startswith(("sys.argv", "sys.orig_argv")) and id(node) not in self.script:
            self.flag(node, "test-detection")

    def check_reference(self, node: ast.expr) -> None:
        name = self.dotted(node)
        if name:
            self.check_name(node, name)
        attribute = self.attribute(node)
        if attribute and attribute[1] in ATTRIBUTE_RULES:
            self.flag(node, ATTRIBUTE_RULES[attribute[1]])
        if isinstance(node, ast.Name) and node.id == "__builtins__":
            self.flag(node, "builtins")
        if isinstance(node, ast.Name) and node.id.startswith("pytest_"):  # pytest_plugins = [...]
            self.flag(node, "test-runner")
        if isinstance(node, ast.Name) and node.id in OWN_NAMES:
            self.flag(node, "self-reading")
        if self.names_own_file(node):
            folder = self.own_folder(node)
            if folder is None or self.beside(folder):
                self.flag(node, "self-reading")
        elif isinstance(node, ast.Name) and node.id in self.folders and self.beside(node):
            self.flag(node, "self-reading")
        if (
            (name == "sys.modules" and self.reads_modules(node))
            or (name in IMPORT_SYSTEM and not self.changes(node))
            or (name in ENVIRON and self.searches(node))
        ):
            self.flag(node, "test-detection")

    def check_call(self, node: ast.Call) -> None:
        function = self.dotted(node.func)
        module = self.imported(node)
        if module:
            self.check_module(node, module)
        if function in EXITS and id(node) in self.on_import:
            self.flag(node, "exit-at-import")
        if function and function.startswith("importlib.resources.") and self.own_resources(node, function):
            self.flag(node, "self-reading")
        source = literal(node.args[0]) if function in DYNAMIC_CODE and node.args else None
        for hidden in findings(source) if source else ():
            self.flag(node, hidden.rule)
        if (function in DYNAMIC_CODE and source is None) or function in CODE_BUILDERS:
            self.flag(node, "dynamic-code")
        if function in SET_ATTRIBUTE and node.args:
            name = literal(node.args[1]) if len(node.args) > 1 else None
            self.check_change(node, self.dotted(node.args[0]), name, attribute_set=True)
        if isinstance(node.func, ast.Attribute):
            if node.func.attr in MUTATORS:
                self.check_change(node, self.dotted(node.func.value), None, attribute_set=False)
            if (
                node.func.attr == "replace"
                and isinstance(node.func.value, ast.Attribute)
                and node.func.value.attr in CODE_ATTRIBUTES
            ):
                self.flag(node, "code-objects")

    def names_own_file(self, node: ast.expr) -> bool:
        """`__file__`, or a module's `.__file__`."""
        if isinstance(node, ast.Name):
            return node.id == "__file__" and isinstance(node.ctx, ast.Load)
        attribute = self.attribute(node)
        return attribute is not None and attribute[1] == "__file__"

    def own_folder(self, node: ast.expr) -> ast.expr | None:
        """The expression that makes the path `node` (the module's own file) its folder or a file
        beside it: `os.path.dirname(os.path.abspath(__file__))`, `Path(__file__).resolve().parent`,
        `Path(__file__).with_suffix(".json")`; None when the path is used as it is."""
        current = node
        while parent := self.parents.get(id(current)):
            if isinstance(parent, ast.Call) and parent.args and parent.args[0] is current:
                function = self.dotted(parent.func)
                if function == "os.path.dirname":
                    return parent
                if function not in PATH_WRAPPERS:
                    return None
            elif isinstance(parent, ast.Attribute) and parent.value is current:
                if parent.attr in ("parent", "parents"):
                    return parent
                call = self.parents.get(id(parent))
                if not (isinstance(call, ast.Call) and call.func is parent):
                    return None
                if parent.attr in SIBLING_METHODS:
                    return call if call.args and not code_file(call.args[0]) else None
                if parent.attr not in PATH_METHODS:
                    return None
                parent = call
            else:
                return None
            current = parent
        return None

    def beside(self, folder: ast.expr) -> bool:
        """Whether `folder`, the module's own folder, is listed or joined with a Python file's
        name (the module itself). A name bound once to it is learnt (`self.folders`), its uses
        judged where they are."""
        current = folder
        while parent := self.parents.get(id(current)):
            if isinstance(parent, ast.Call) and any(arg is current for arg in parent.args):
                function = self.dotted(parent.func)
                if function in LISTINGS:
                    return True
                if function not in ("os.path.join", "os.path.dirname", *PATH_WRAPPERS):
                    return False
                if not self.same_folder(parent.args):
                    return any(code_file(arg) for arg in parent.args)
            elif isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Div) and parent.left is current:
                if not self.same_folder([parent.right]):
                    return code_file(parent.right)
            elif isinstance(parent, ast.Attribute) and parent.value is current:
                if parent.attr in LISTING_METHODS:
                    return True
                if parent.attr in ("parent", "parents"):
                    current = parent
                    continue
                call = self.parents.get(id(parent))
                if not (isinstance(call, ast.Call) and call.func is parent):
                    return False
                if parent.attr in JOIN_METHODS and not self.same_folder(call.args):
                    return any(code_file(arg) for arg in call.args)
                if parent.attr not in (*PATH_METHODS, *JOIN_METHODS):
                    return False
                parent = call
            elif isinstance(parent, ast.Subscript) and parent.value is current:  # Path(__file__).parents[1]
                pass
            elif isinstance(parent, ast.Assign) and [type(target) for target in parent.targets] == [ast.Name]:
                name = parent.targets[0]
                if isinstance(name, ast.Name) and self.bindings[name.id] == 1:
                    self.folders.add(name.id)
                return False
            else:
                return False
            current = parent
        return False

    def same_folder(self, parts: list[ast.expr]) -> bool:
        """Whether joining `parts` to a folder leaves it a folder that holds the module: no part,
        or only `.`, `..` and names of folders above."""
        names = [literal(part) for part in parts[1:]] if len(parts) > 1 else [literal(part) for part in parts]
        return all(name is not None and all(step in ("", ".", "..") for step in name.split("/")) for name in names)

    def own_resources(self, node: ast.Call, function: str) -> bool:
        """`importlib.resources` asked for the module's own package: its listing, or a Python file of it."""
        arguments = [*node.args, *(keyword.value for keyword in node.keywords)]
        if not any(isinstance(arg, ast.Name) and arg.id in OWN_PACKAGE for arg in arguments):
            return False
        if function == "importlib.resources.files":
            return self.beside(node)
        return function == "importlib.resources.contents" or any(code_file(arg) for arg in arguments)

    def reads_modules(self, node: ast.expr) -> bool:
        """Whether this use of `sys.modules` tells which modules are loaded: anything but its own
        module looked up (`sys.modules[__name__]`), a change (the sys-modules rule), or an alias."""
        parent = self.parents.get(id(node))
        if isinstance(parent, ast.Subscript) and parent.value is node:
            return isinstance(parent.ctx, ast.Load) and not own_module(parent.slice)
        if isinstance(parent, ast.Attribute) and parent.value is node:
            call = self.parents.get(id(parent))
            own = isinstance(call, ast.Call) and call.func is parent and bool(call.args) and own_module(call.args[0])
            return parent.attr not in MUTATORS and not (parent.attr == "get" and own)
        if isinstance(parent, ast.Assign) and parent.value is node:
            return not all(isinstance(t, ast.Name) and self.bindings[t.id] == 1 for t in parent.targets)
        return not self.changes(node)

    def changes(self, node: ast.expr) -> bool:
        """Whether `node` is assigned or deleted, or a method that changes it is called."""
        if isinstance(getattr(node, "ctx", None), (ast.Store, ast.Del)):
            return True
        parent = self.parents.get(id(node))
        if isinstance(parent, ast.Subscript) and parent.value is node:
            return isinstance(parent.ctx, (ast.Store, ast.Del))
        return isinstance(parent, ast.Attribute) and parent.value is node and parent.attr in MUTATORS

    def searches(self, node: ast.expr) -> bool:
        """Whether `node` (the environment) is gone through as a whole: iterated, its keys, values
        or items taken, or handed to a function that reads every entry."""
        parent = self.parents.get(id(node))
        if isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)) and parent.iter is node:
            return True
        if isinstance(parent, ast.Starred):
            return True
        if isinstance(parent, ast.Attribute) and parent.value is node:
            return parent.attr in ("keys", "values", "items", "__iter__")
        if isinstance(parent, ast.Call) and any(arg is node for arg in parent.args):
            function = self.dotted(parent.func)
            return function in ITERATING or (isinstance(parent.func, ast.Attribute) and parent.func.attr == "join")
        return False

    def check_store(self, target: ast.expr) -> None:
        """An assignment or `del` of an attribute or an item."""
        attribute = self.attribute(target)
        if attribute:
            self.check_change(target, self.dotted(attribute[0]), attribute[1], attribute_set=True)
        elif isinstance(target, ast.Subscript):
            self.check_change(target, self.dotted(target.value), None, attribute_set=False)

    def check_change(self, node: Located, owner: str | None, attribute: str | None, attribute_set: bool) -> None:
        """`owner` (a dotted name, None if unknown) changes: its `attribute`, or its items."""
        if attribute in CODE_STORES:
            self.flag(node, "code-objects")
        if owner is None:
            return
        changed = f"{owner}.{attribute}" if attribute else owner
        root = changed.partition(".")[0]
        if changed == "sys.modules" or changed.startswith("sys.modules."):
            self.flag(node, "sys-modules")
        elif changed.startswith(IMPORT_SYSTEM):
            self.flag(node, "import-system")
        elif root == "builtins":
            self.flag(node, "builtins")
        elif root == "__main__":
            self.flag(node, "main-module")
        elif attribute_set and root in PATCHABLE_ROOTS:
            self.flag(node, "patching")

    def check_string(self, node: ast.expr) -> None:
        text = literal(node)
        if text is None:
            return
        for rule, pattern in STRING_RULES.items():
            if pattern.search(text):
                self.flag(node, rule)

    def dotted(self, node: ast.expr) -> str | None:
        """The qualified name `node` refers to — `os._exit` for `getattr(os, "_exit")`,
        `__import__("os")._exit` or `e` after `from os import _exit as e` — or None."""
        if isinstance(node, ast.Name):
            if node.id in self.aliases:
                return self.aliases[node.id]
            return f"builtins.{node.id}" if node.id in BUILTIN_NAMES and node.id not in self.bindings else None
        module = self.imported(node)
        if module:
            return module
        attribute = self.attribute(node)
        if attribute:
            owner = self.dotted(attribute[0])
            return owner and f"{owner}.{attribute[1]}"
        if isinstance(node, ast.Subscript):
            owner = self.dotted(node.value)
            return owner and f"{owner}.[]"
        return None

    def attribute(self, node: ast.expr) -> tuple[ast.expr, str] | None:
        """(owner, name) of `owner.name` and of `getattr(owner, "name")`."""
        if isinstance(node, ast.Attribute):
            return node.value, node.attr
        if isinstance(node, ast.Call) and len(node.args) >= 2 and self.dotted(node.func) == "builtins.getattr":
            name = literal(node.args[1])
            return (node.args[0], name) if name else None
        return None

    def imported(self, node: ast.expr) -> str | None:
        """The module `__import__("x")`, `importlib.import_module("x")` or `sys.modules["x"]` gives."""
        if isinstance(node, ast.Call) and node.args and self.dotted(node.func) in IMPORT_FUNCTIONS:
            name = literal(node.args[0])
        elif isinstance(node, ast.Subscript) and self.dotted(node.value) == "sys.modules":
            name = literal(node.slice)
        else:
            return None
        return name if name and not name.startswith(".") else None


def targets_of(node: ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Delete) -> list[ast.expr]:
    found: list[ast.expr] = list(node.targets) if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
    unpacked: list[ast.expr] = []
    while found:
        target = found.pop()
        if isinstance(target, (ast.Tuple, ast.List)):
            found += target.elts
        elif isinstance(target, ast.Starred):
            found.append(target.value)
        else:
            unpacked.append(target)
    return unpacked


def literal(node: ast.expr) -> str | None:
    """The text of a string constant, or of constants joined with `+`."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
        return node.value if isinstance(node.value, str) else node.value.decode("latin-1")
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = literal(node.left), literal(node.right)
        return left + right if left is not None and right is not None else None
    return None


def code_file(node: ast.expr) -> bool:
    """A string naming a Python file, or every file of a folder (`*`)."""
    text = literal(node)
    return text is not None and CODE_FILE.search(text) is not None


def own_module(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "__name__"


def is_main_guard(node: ast.AST) -> TypeGuard[ast.If]:
    return isinstance(node, ast.If) and main_comparison(node.test) is not None


def main_comparison(node: ast.AST) -> ast.Constant | None:
    """The "__main__" of `__name__ == "__main__"` (or `!=`, either way round)."""
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Eq, ast.NotEq))):
        return None
    left, right = node.left, node.comparators[0]
    for name, constant in ((left, right), (right, left)):
        if (
            isinstance(name, ast.Name)
            and name.id == "__name__"
            and isinstance(constant, ast.Constant)
            and constant.value == "__main__"
        ):
            return constant
    return None


def bindings(tree: ast.Module) -> Counter[str]:
    """How often the module binds each name: assigned, a parameter, defined, caught or imported."""
    names: Counter[str] = Counter()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names[node.id] += 1
        elif isinstance(node, ast.arg):
            names[node.arg] += 1
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.ExceptHandler)) and node.name:
            names[node.name] += 1
        elif isinstance(node, ast.alias):
            names[(node.asname or node.name).partition(".")[0]] += 1
    return names


def inert_strings(tree: ast.Module) -> set[int]:
    """Strings that do nothing: docstrings and other bare strings, and the "__main__" of the idiom."""
    inert = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            inert.add(id(node.value))
        constant = main_comparison(node)
        if constant is not None:
            inert.add(id(constant))
    return inert


def script_only(tree: ast.Module) -> set[int]:
    """The nodes of the bodies of `if __name__ == "__main__":`, which run only as a script."""
    return {
        id(inner)
        for node in ast.walk(tree)
        if is_main_guard(node)
        for statement in node.body
        for inner in ast.walk(statement)
    }


def runs_on_import(tree: ast.Module) -> set[int]:
    """The nodes that run when the module is imported: not the bodies of functions, nor the body
    of `if __name__ == "__main__":`."""
    seen: set[int] = set()
    pending: list[ast.AST] = list(tree.body)
    while pending:
        node = pending.pop()
        seen.add(id(node))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            pending += [*getattr(node, "decorator_list", []), *node.args.defaults, *filter(None, node.args.kw_defaults)]
        elif is_main_guard(node):
            pending += [node.test, *node.orelse]
        else:
            pending += ast.iter_child_nodes(node)
    return seen
