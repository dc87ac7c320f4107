"""The static guard for JavaScript and TypeScript code under repair: what reaches into the runner
that judges it is refused, whatever the tests would say (bot/judge/guard.py is Python's).

Twins can't stop code that runs beside the tests and reads them: it can tell a planted copy from
the suite's file (its tests are copies) and leave the twins alone while it flips the suite's own
failures, from an `afterEach` hook or a wrapped `expect`. Code a library is made of has no reason
to touch a test runner, so this guard refuses the ways in as classes, not as names: any runner
package, any module loaded by a computed name, the global object used as a value, the module
system's registry, ending the process, code built at run time, and what tells a test run from
another. It reads only the lines a change wrote, through ast-grep's tree. Sloppy-mode `this` in a
plain function call (the global object, in CommonJS) gets past it; the canaries and twins stand
behind it.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import PurePosixPath

from ast_grep_py import SgNode

from bot.judge.guard import Finding
from bot.judge.tree_guard import scan
from bot.lang.tree import parsed, walk

# rule: (what it catches, why code under test may not). RULES_TABLE shows them in docs/judging.md.
RULES: dict[str, tuple[str, str]] = {
    "test-runner": (
        "imports or requires a test runner's package (`vitest`, `@vitest/*`, `jest`, `jest-*`, `@jest/*`, "
        "`node:test`, `mocha`, ...)",
        "code under test has no reason to load a test runner: its hooks and matchers rewrite outcomes",
    ),
    "module-by-name": (
        "`require`, `import()` or `createRequire` of a name computed at run time; the `vm` and "
        "`inspector` modules; `require.cache`, `require.main`, `module.parent`, `module.children`, "
        "`process.mainModule`",
        "a module the guard can't name may be the runner; the module registry hands out the test files",
    ),
    "runner-global": (
        "the runners' globals (`afterEach`, `expect`, `test`, `vi`, `jest`, ...) used without declaring them",
        "the runner's globals are the tests', not the code's",
    ),
    "global-object": (
        "`globalThis`, `global`, `window` or `self` used as a value or indexed by a computed name "
        "(`typeof window` and `globalThis.fetch` are fine), or a sloppy-mode function's `this` where the file "
        "calls that function plainly",
        "the global object hands out the runner's globals under any name",
    ),
    "patching": (
        "assigns (or `Object.defineProperty`, `Object.assign`, `Reflect.set`, ... on) a property of a built-in "
        "(`Object`, `Array.prototype`, `JSON`, ...), the global object, or a module from outside the repository "
        '(`require("node:assert").equal = ...`), also through a local name for one (`const O = Object`); '
        "`Object.getPrototypeOf`, `Reflect.getPrototypeOf`, `__proto__`",
        "patching what the tests and the runner call changes the verdict, not the code",
    ),
    "matcher-protocol": (
        "`asymmetricMatch`, `$$typeof`, `jasmineToString` named anywhere; `Symbol.for` of a runner's key "
        "(`expect`, `jest`, `vitest`, `chai`, ...) or of one computed",
        "the runners' matchers trust a value that answers their protocol, and keep their state under global symbols",
    ),
    "test-files": (
        "imports or requires a test file, or a module in a `test`, `tests`, `__tests__`, `spec`, `__fixtures__`, "
        "`fixtures` or `__mocks__` folder",
        "the tests' files and fixtures hold the expected answers",
    ),
    "process-end": (
        "`process.exit`, `exitCode`, `abort`, `kill`, `emit`, `send`, `on` (an `exit` handler), ... (writing "
        "over `process.stdout` is `patching`)",
        "ending the process, or rewriting how it reports, hides the tests' outcomes",
    ),
    "code-at-run-time": (
        "`eval` or `Function` used at all (`(0, eval)`, `const F = Function`), `.constructor.constructor`, "
        "a `.constructor` called with text",
        "code built at run time can't be read before it runs",
    ),
    "test-detection": (
        "`__filename`, `__dirname`, `import.meta`, a new error's `.stack`, `captureStackTrace`, "
        "`prepareStackTrace`, `process.argv`, `process.execArgv`, strings naming a runner's environment "
        "variable or `/proc/`",
        "where the code runs from tells a test run from any other, and the test files from the twins",
    ),
}
RUNNER_RULES = {"test-runner", "runner-global", "test-files"}
RULES_TABLE = "| rule | what it catches | why |\n| --- | --- | --- |\n" + "\n".join(
    f"| `{rule}` | {what} | {why} |" for rule, (what, why) in RULES.items()
)

RUNNER_MODULE = re.compile(
    r"^(?:vitest|@vitest/.*|jest|jest-.*|@jest/.*|ts-jest|(?:node:)?test|mocha|ava|tap|uvu)(?:/.*)?$"
)
LOADER_MODULE = re.compile(r"^(?:node:)?(?:vm|inspector|module)(?:/.*)?$")
RUNNER_GLOBALS = {
    "afterEach", "afterAll", "beforeEach", "beforeAll", "expect", "jest", "vi", "jasmine", "describe",
    "test", "it", "suite", "__vitest_worker__", "__vitest_index__", "__vitest_browser__",
}  # fmt: skip
GLOBAL_OBJECTS = {"globalThis", "global", "window", "self"}
PROCESS_ENDS = {
    "exit", "reallyExit", "abort", "kill", "exitCode", "emit", "send", "_exiting",
    "on", "once", "addListener", "prependListener", "prependOnceListener", "setUncaughtExceptionCaptureCallback",
}  # fmt: skip
MEMBERS = {
    ("require", "cache"): "module-by-name", ("require", "main"): "module-by-name",
    ("module", "parent"): "module-by-name", ("module", "children"): "module-by-name",
    ("module", "require"): "module-by-name", ("process", "mainModule"): "module-by-name",
    ("process", "argv"): "test-detection", ("process", "execArgv"): "test-detection",
    ("process", "binding"): "module-by-name", ("process", "dlopen"): "module-by-name",
    ("import", "meta"): "test-detection",
}  # fmt: skip
PROPERTIES = {"stack": "test-detection", "captureStackTrace": "test-detection", "prepareStackTrace": "test-detection"}
FREE_NAMES = {"__filename": "test-detection", "__dirname": "test-detection"}
PROTOTYPE_GETTERS = {"Object.getPrototypeOf", "Reflect.getPrototypeOf"}
# What Jest's and Vitest's `equals` ask of a value before comparing it, and pretty-format's marks.
MATCHER_PROTOCOL = {"asymmetricMatch", "$$typeof", "jasmineToString"}
PROPERTY_KINDS = {"property_identifier", "shorthand_property_identifier", "private_property_identifier"}
TEST_FOLDERS = frozenset({"test", "tests", "__tests__", "spec", "__fixtures__", "fixtures", "__mocks__"})
TEST_FILE = re.compile(r"\.(test|spec)\.[cm]?[jt]sx?$")
TEXTS = {"string", "template_string"}
RUNNER_KEY = re.compile(r"jest|expect|vitest|vi\b|chai|tinyspy|matcher|asymmetric|node:test", re.I)
WRAPPERS = {
    "parenthesized_expression",
    "as_expression",
    "satisfies_expression",
    "non_null_expression",
    "type_assertion",
}
ALIASES = 8  # local names followed to what they stand for, at most
# What defines properties on its first argument.
DEFINERS = {
    "Object.defineProperty", "Object.defineProperties", "Object.assign", "Object.setPrototypeOf",
    "Reflect.set", "Reflect.defineProperty", "Reflect.setPrototypeOf", "Reflect.deleteProperty",
}  # fmt: skip
LOADERS = {"require", "import", "createRequire", "require.resolve"}
# What a runner puts in the environment, and the paths that show a process from outside.
TELLING_STRINGS = re.compile(r"JEST_WORKER_ID|VITEST|NODE_TEST_CONTEXT|/proc/")
BINDING_KINDS = {"identifier", "shorthand_property_identifier_pattern"}  # `const { test } = helpers`
BINDING_HOLDERS = {"arrow_function", "catch_clause", "for_in_statement"}
IMPORTED = {"import_specifier", "namespace_import"}
WATCHED_NAMES = RUNNER_GLOBALS | GLOBAL_OBJECTS | set(FREE_NAMES) | {"eval", "Function"}
LANGUAGES = {".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx"}


def findings(code: str, original: str | None = None, path: str = "") -> list[Finding]:
    """What in `code` reaches into the test runner; with `original`, only on the lines a change wrote."""
    language = next((lang for suffix, lang in LANGUAGES.items() if path.endswith(suffix)), "javascript")
    return scan(parsed(code, language), code, original, path, lambda node: offence(node, path), RULES)


def in_test_file(code: str, original: str | None = None, path: str = "") -> list[Finding]:
    """The guard over a test file autofix adds (a free-form issue's reproduction test): it calls the
    runner by design, so only the runner's own rules are lifted; a hook it registers reaches the
    tests of its own file alone."""
    return [finding for finding in findings(code, original, path) if finding.rule not in RUNNER_RULES]


def offence(node: SgNode, path: str) -> str | None:
    kind = node.kind()
    if kind in ("assignment_expression", "augmented_assignment_expression"):
        target = node.field("left")
        if target is not None and target.kind() in ("member_expression", "subscript_expression") and foreign(target):
            return None if target.kind() == "member_expression" and member(target) else "patching"
    if kind in ("import_statement", "export_statement"):
        source = node.field("source")
        return None if source is None else module_rule(unquoted(source), path)
    if kind == "call_expression":
        return called(node, path)
    if kind == "new_expression":
        return built_at_run_time(node.field("constructor"), node.field("arguments"))
    if kind in ("member_expression", "subscript_expression"):
        return member(node)
    if kind in PROPERTY_KINDS and unquoted_name(node) in MATCHER_PROTOCOL:
        return "matcher-protocol"
    if kind == "meta_property" and node.text().startswith("import"):  # `import.meta`, not `new.target`
        return "test-detection"
    if kind == "string_fragment" and TELLING_STRINGS.search(node.text()):
        return "test-detection"
    if kind == "string_fragment" and node.text() in MATCHER_PROTOCOL:
        return "matcher-protocol"
    if kind == "identifier" and node.text() in WATCHED_NAMES and not bound(node):
        return free_name(node)
    if kind == "this" and global_this(node):
        return this_used(node)
    return None


FUNCTIONS = {"function_declaration", "function_expression", "generator_function_declaration", "generator_function"}


def global_this(node: SgNode) -> bool:
    """Whether this `this` is the global object: in sloppy mode (no "use strict" around it, no
    import or export in the file, no class), a plain call of the function holding it gives it the
    global object (called_plainly)."""
    holder, scope = None, node.parent()
    while scope is not None:
        kind = scope.kind()
        if kind in ("class_body", "method_definition"):
            return False
        if kind in FUNCTIONS and holder is None:
            holder = scope
        if (kind in FUNCTIONS or kind == "program") and strict(scope):
            return False
        if kind == "program":
            break
        scope = scope.parent()
    if holder is None or scope is None:
        return False  # a module's own `this` is its exports (CommonJS) or undefined (ES)
    return called_plainly(holder, scope)


def called_plainly(function: SgNode, program: SgNode) -> bool:
    """Whether the file calls `function` with no receiver: at once (`(function () {})()`), or by the
    name it declares or a variable it is given (`g()`). Old code's functions that become methods
    (`X.prototype.m = m`) and wrappers that pass their `this` on (`f.apply(this, args)`) are called
    with a receiver elsewhere; a function exported and called plainly by another file is not seen."""
    around = function.parent()
    while around is not None and around.kind() == "parenthesized_expression":
        around = around.parent()
    if around is not None and around.kind() == "call_expression":
        return True
    name = function.field("name")
    if name is None and around is not None and around.kind() == "variable_declarator":
        name = around.field("name")
    if name is None or name.kind() != "identifier":
        return False
    return any(
        node.kind() == "call_expression" and (callee := node.field("function")) is not None
        and bare(callee).kind() == "identifier" and bare(callee).text() == name.text()
        for node in walk(program)
    )  # fmt: skip


def strict(scope: SgNode) -> bool:
    """A "use strict" directive opens the program or the function's body; a program with an import
    or an export is an ES module, strict throughout."""
    body = scope if scope.kind() == "program" else scope.field("body")
    statements = [child for child in (body.children() if body is not None else []) if child.is_named()]
    if scope.kind() == "program" and any(s.kind() in ("import_statement", "export_statement") for s in statements):
        return True
    first = statements[0] if statements else None
    if first is not None and first.kind() == "comment":
        first = next((s for s in statements if s.kind() != "comment"), None)
    said = next((c for c in first.children() if c.is_named()), None) if first is not None else None
    return (
        first is not None
        and first.kind() == "expression_statement"
        and said is not None
        and (said.kind() == "string" and unquoted(said) == "use strict")
    )


def this_used(node: SgNode) -> str | None:
    """The global object reached by a sloppy `this`: as a value, or by a subscript of anything but
    text; a plainly named member is member()'s, as `globalThis.x` is."""
    parent = node.parent()
    if parent is not None and parent.kind() == "member_expression" and parent.field("object") == node:
        return None
    if parent is not None and parent.kind() == "subscript_expression" and parent.field("object") == node:
        index = parent.field("index")
        return None if index is not None and index.kind() == "string" else "global-object"
    return "global-object"


def module_rule(name: str, path: str) -> str | None:
    """What loading the module `name` from the file at `path` is, if it is refused."""
    if RUNNER_MODULE.match(name):
        return "test-runner"
    if LOADER_MODULE.match(name):
        return "module-by-name"
    if name.startswith("."):
        where = posixpath.normpath(posixpath.join(posixpath.dirname(path), name))
        folders = set(PurePosixPath(where).parts[:-1])
        if not TEST_FOLDERS.isdisjoint(folders) or TEST_FILE.search(PurePosixPath(where).name):
            return "test-files"
    return None


def called(call: SgNode, path: str) -> str | None:
    callee = call.field("function")
    arguments = [c for c in (call.field("arguments") or call).children() if c.is_named()]
    name = callee.text() if callee is not None else ""
    if name in LOADERS or (callee is not None and callee.kind() == "import"):
        first = arguments[0] if arguments else None
        if first is None or first.kind() != "string":  # a template or an expression: named at run time
            return "module-by-name"
        return module_rule(unquoted(first), path)
    if name in DEFINERS and arguments and foreign(arguments[0]):
        return "patching"
    if name in PROTOTYPE_GETTERS:
        return "patching"
    if name == "Symbol.for" and not (
        arguments and arguments[0].kind() == "string" and not RUNNER_KEY.search(arguments[0].text())
    ):
        return "matcher-protocol"  # a runner's key, or one named at run time
    return built_at_run_time(callee, call.field("arguments"))


def built_at_run_time(callee: SgNode | None, arguments: SgNode | None) -> str | None:
    """`Function(...)`, `new Function(...)`, and a function's `.constructor` (Function itself)
    given text: `(function () {}).constructor("return this")`."""
    if callee is None:
        return None
    target = bare(callee)
    if target.text() == "Function":
        return "code-at-run-time"
    texts = [c for c in (arguments.children() if arguments is not None else []) if c.kind() in TEXTS]
    return "code-at-run-time" if property_name(target) == "constructor" and texts else None


def foreign(target: SgNode, depth: int = 0) -> bool:
    """Whether `target` (`X.a.b`, `X[k]`, `X`) is rooted in what the file didn't make: a built-in or
    the global object (a name no scope declares, but the module's own `module` and `exports`), a
    module required or imported by a package's name, or `require(...)` of one; also a local name
    given one of those (`const O = Object`, `const p = Object.getPrototypeOf([])`)."""
    root = bare(target)
    while root.kind() in ("member_expression", "subscript_expression"):
        inner = root.field("object")
        if inner is None:
            return False
        root = bare(inner)
    if root.kind() == "call_expression":
        callee, arguments = root.field("function"), root.field("arguments")
        if callee is not None and callee.text() in PROTOTYPE_GETTERS:
            return True
        source = next((c for c in arguments.children() if c.is_named()), None) if arguments is not None else None
        return callee is not None and callee.text() == "require" and source is not None and not relative(source)
    if root.kind() != "identifier" or root.text() in ("module", "exports"):
        return False
    declaration = declaring(root)
    if declaration is None or package_binding(declaration):
        return True
    value = initial_value(declaration, root.text())
    return value is not None and depth < ALIASES and foreign(value, depth + 1)


def member(node: SgNode) -> str | None:
    """`holder.name` or `holder["name"]`, the holder also through a local name for it
    (`const p = process; p["exit"](0)`); a subscript by anything but text is the global object's
    only (free_name)."""
    holder, name = node.field("object"), property_name(node)
    if holder is None or name is None:
        return None
    owner = owner_of(bare(holder))
    if owner in GLOBAL_OBJECTS and name in RUNNER_GLOBALS:
        return "runner-global"
    if owner == "process" and name in PROCESS_ENDS:
        return "process-end"
    if (owner, name) in MEMBERS:
        return MEMBERS[(owner, name)]
    if TELLING_STRINGS.search(name):  # `process.env.JEST_WORKER_ID`
        return "test-detection"
    if name == "stack" and not made_error(bare(holder)):
        return None  # a parser's own `this.stack`
    if name in PROPERTIES:
        return PROPERTIES[name]
    if name == "__proto__":
        return "patching"
    if name == "constructor" and property_name(bare(holder)) == "constructor":
        return "code-at-run-time"
    return None


def owner_of(holder: SgNode) -> str:
    """Whose member `holder.x` is: a local name's value (aliased), the global object for a sloppy
    `this`, and a global's own name when read off the global object (`globalThis.process` is
    `process`)."""
    if holder.kind() == "this":
        return "globalThis" if global_this(holder) else "this"
    if holder.kind() in ("member_expression", "subscript_expression"):
        inner, name = holder.field("object"), property_name(holder)
        if inner is not None and name is not None and owner_of(bare(inner)) in GLOBAL_OBJECTS:
            return name
    return aliased(holder)


def made_error(node: SgNode) -> bool:
    """`new Error()` (any constructor), or a local constant given one: what `.stack` reads the
    calling frames of."""
    if node.kind() == "new_expression":
        return True
    declaration = declaring(node) if node.kind() == "identifier" else None
    value = None if declaration is None else initial_value(declaration, node.text())
    return value is not None and bare(value).kind() == "new_expression"


def property_name(node: SgNode) -> str | None:
    """The name a member or a subscript by a text literal reads: `x.a`, `x["a"]`; None for others."""
    if node.kind() == "member_expression":
        name = node.field("property")
        return None if name is None else name.text()
    if node.kind() == "subscript_expression":
        index = node.field("index")
        return unquoted(index) if index is not None and index.kind() == "string" else None
    return None


def bare(node: SgNode) -> SgNode:
    """The expression inside parentheses and TypeScript's assertions: `(x as any)!` is `x`."""
    while node.kind() in WRAPPERS:
        inner = next((child for child in node.children() if child.is_named()), None)
        if inner is None:
            return node
        node = inner
    return node


def aliased(node: SgNode, depth: int = 0) -> str:
    """The name an identifier stands for: the one a local constant was given (`const p = process`
    is `process`), else its own text."""
    if node.kind() != "identifier":
        return node.text()
    declaration = declaring(node)
    value = None if declaration is None else initial_value(declaration, node.text())
    if value is None or depth >= ALIASES or bare(value).kind() != "identifier":
        return node.text()
    return aliased(bare(value), depth + 1)


def initial_value(declaration: SgNode, name: str) -> SgNode | None:
    """The value a declaration gives `name` (`const name = value`), or None."""
    if declaration.kind() not in ("lexical_declaration", "variable_declaration"):
        return None
    for declarator in declaration.children():
        named = declarator.field("name") if declarator.kind() == "variable_declarator" else None
        if named is not None and named.kind() == "identifier" and named.text() == name:
            return declarator.field("value")
    return None


def unquoted_name(node: SgNode) -> str:
    return unquoted(node) if node.kind() == "string" else node.text()


def free_name(node: SgNode) -> str | None:
    """A name the file doesn't declare: a runner's global, the file's own path, or the global object
    used other than by `typeof` or a plainly named member."""
    name, parent = node.text(), node.parent()
    if parent is not None and parent.kind() == "member_expression" and parent.field("property") == node:
        return None  # `x.test`: a property, not the global
    if parent is not None and parent.kind() == "import_specifier" and parent.field("name") == node:
        return None  # `import { test as check } from "./x"`: the module's name for it
    if parent is not None and parent.kind() == "export_specifier" and parent.field("alias") == node:
        return None  # `export { it_ as it }`: a name for others, not the global
    if name in RUNNER_GLOBALS:
        return "runner-global"
    if name in FREE_NAMES:
        return FREE_NAMES[name]
    if name == "Function" and parent is not None and property_name(parent) == "prototype":
        return None  # `Function.prototype.call`: its methods, not the constructor
    if name in ("eval", "Function"):
        return "code-at-run-time"
    if name not in GLOBAL_OBJECTS or parent is None:
        return None
    operator = parent.field("operator") if parent.kind() == "unary_expression" else None
    if operator is not None and operator.text() == "typeof":
        return None
    if parent.kind() == "member_expression" and parent.field("object") == node:
        return None  # `globalThis.fetch`; a runner's global by name is member()'s
    return "global-object"


def bound(node: SgNode) -> bool:
    """Whether `node`'s name is declared in a scope around it (or is the declaration)."""
    return declaring(node) is not None


def declaring(node: SgNode) -> SgNode | None:
    """The nearest statement or parameter list around `node` that declares its name: a parameter of
    an enclosing function, or a declaration among an enclosing block's statements. A `var` in a
    nested block is missed, which only refuses more."""
    name = node.text()
    scope: SgNode | None = node
    while scope is not None:
        found = next((child for child in scope.children() if name in declared_by(child)), None)
        if found is not None:
            return found
        scope = scope.parent()
    return None


def package_binding(declaration: SgNode) -> bool:
    """Whether a declaration binds a module by a package's name (`import assert from "node:assert"`,
    `const fs = require("fs")`), not one of the repository's own (`./x`)."""
    if declaration.kind() == "import_statement":
        source = declaration.field("source")
        return source is not None and not relative(source)
    if declaration.kind() in ("lexical_declaration", "variable_declaration"):
        for call in walk(declaration):
            function = call.field("function") if call.kind() == "call_expression" else None
            if function is not None and function.text() == "require":
                arguments = [c for c in (call.field("arguments") or call).children() if c.is_named()]
                return bool(arguments) and not relative(arguments[0])
    return False


def relative(source: SgNode) -> bool:
    """A module named by a path (`./x`, `../x`, `/x`): the repository's own."""
    return source.kind() == "string" and unquoted(source).startswith((".", "/"))


def declared_by(node: SgNode) -> set[str]:
    """The names `node` declares in the scope it is a child of."""
    kind = node.kind()
    if kind in ("lexical_declaration", "variable_declaration"):
        return {name for declarator in node.children() if declarator.kind() == "variable_declarator"
                for name in names_in(declarator.field("name"))}  # fmt: skip
    if kind in ("function_declaration", "generator_function_declaration", "class_declaration"):
        return names_in(node.field("name"))
    if kind == "formal_parameters":
        return names_in(node)
    if kind == "import_statement":
        return {imported(name) for name in walk(node) if name.kind() in IMPORTED or is_default_import(name)}
    if kind == "export_statement":
        return {name for child in node.children() for name in declared_by(child)}
    parent = node.parent()
    if parent is None or parent.kind() not in BINDING_HOLDERS:
        return set()
    if kind == "identifier":  # `x => ...`, `catch (x)`, `for (const x of ...)`
        return {node.text()} if (parent.field("parameter") or parent.field("left")) == node else set()
    return names_in(node) if kind in ("object_pattern", "array_pattern") else set()


def imported(node: SgNode) -> str:
    if node.kind() == "import_specifier":  # `{ a }`, `{ a as b }`
        return (node.field("alias") or node.field("name") or node).text()
    return node.children()[-1].text() if node.kind() == "namespace_import" else node.text()


def is_default_import(node: SgNode) -> bool:
    parent = node.parent()
    return node.kind() == "identifier" and parent is not None and parent.kind() == "import_clause"


def names_in(pattern: SgNode | None) -> set[str]:
    """The names a binding pattern declares (`x`, `{ a, b: c }`, `[d, ...e]`, `f = 1`)."""
    if pattern is None:
        return set()
    return {node.text() for node in walk(pattern) if node.kind() in BINDING_KINDS}


def unquoted(node: SgNode) -> str:
    return node.text()[1:-1]
