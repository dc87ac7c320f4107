"""What a reviewer should look at in a Go change (bot/core/review.py's kinds, found on tree-sitter's
tree): processes (`os/exec`, `os.StartProcess`), system calls (`syscall`, `golang.org/x/sys/unix`),
the network (`net`, `net/http` and its packages, `net/rpc`, `net/smtp`, `crypto/tls`), the
environment (`os.Getenv`, `os.LookupEnv`, `os.Environ` and the setters), `unsafe`, cgo
(`import "C"`), `plugin`, `//go:generate` and `//go:linkname` directives, a `func init()` (it runs
when the package loads, before any test), files opened by an absolute path or one climbing out
(`..`), and long encoded literals (bot/lang/js_review.py's rule). A package is followed through
the name it is imported as (`x "os/exec"` makes `x.Command` `os/exec.Command`). Only what the
change adds counts: a finding on a line the old text lacks, of a kind and detail the old text
didn't have. Code that doesn't parse is read as far as tree-sitter can place it."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ast_grep_py import SgNode

from bot.lang.base import Spot, changed_lines
from bot.lang.js_review import OUTSIDE, literal
from bot.lang.tree import line, parsed

PACKAGES = {
    "os/exec": "process", "syscall": "system calls", "golang.org/x/sys/unix": "system calls",
    "golang.org/x/sys/windows": "system calls", "net": "network", "net/http": "network", "net/rpc": "network",
    "net/smtp": "network", "crypto/tls": "network", "unsafe": "unsafe", "C": "cgo", "plugin": "dynamic code",
}  # fmt: skip
NETWORK_FAMILIES = ("net/http/", "net/rpc/")  # httptest, httputil, cookiejar, jsonrpc
OS_CALLS = {
    "Getenv": "environment", "LookupEnv": "environment", "Environ": "environment", "Setenv": "environment",
    "Unsetenv": "environment", "Clearenv": "environment", "ExpandEnv": "environment", "StartProcess": "process",
}  # fmt: skip
FILE_PACKAGES = {"os", "io/ioutil"}  # whose calls given a path outside the repository open a file there
DIRECTIVE = re.compile(r"//go:(generate|linkname)\s+(.*)")
VERSION = re.compile(r"v[0-9]+")


def findings(old: str | None, new: str) -> list[Spot]:
    """(line, kind, detail) of what `new` adds to `old` (None: a new file), in the order of the file."""
    before = {(kind, detail) for _, kind, detail in spots(old)} if old is not None else set()
    written = None if old is None else changed_lines(old, new)
    found: list[Spot] = []
    for at, kind, detail in spots(new):
        if (written is None or at in written) and (kind, detail) not in before:
            before.add((kind, detail))
            found.append((at, kind, detail))
    return found


def spots(code: str) -> list[Spot]:
    root = parsed(code, "go")
    imported = dict(imports(root))
    found: list[Spot] = []
    for spec in root.find_all(kind="import_spec"):
        path = import_path(spec)
        if (what := kind_of(path)) is not None:
            found.append((line(spec), what, 'import "C"' if path == "C" else path))
    for node in root.find_all(any=[{"kind": "selector_expression"}, {"kind": "qualified_type"}]):
        found += used(node, imported)
    for comment in root.find_all(kind="comment", regex=r"^//go:(generate|linkname)"):
        if (directive := DIRECTIVE.match(comment.text())) is not None:
            found.append((line(comment), f"go:{directive[1]}", " ".join(directive[2].split())))
    for function in root.children():
        if function.kind() == "function_declaration" and (name := function.field("name")) and name.text() == "init":
            found.append((line(function), "init", "func init(), run when the package loads"))
    for node in root.find_all(any=[{"kind": "interpreted_string_literal"}, {"kind": "raw_string_literal"}]):
        found += literal(node)
    return sorted(found)


def kind_of(path: str) -> str | None:
    return PACKAGES.get(path) or ("network" if path.startswith(NETWORK_FAMILIES) else None)


def import_path(spec: SgNode) -> str:
    path = spec.field("path")
    return path.text()[1:-1] if path is not None else ""


def imports(root: SgNode) -> Iterator[tuple[str, str]]:
    """(the name a package is used by, its import path) of each import; none for `.` and `_`."""
    for spec in root.find_all(kind="import_spec"):
        path = import_path(spec)
        alias = spec.field("name")
        if alias is not None:
            if alias.kind() == "package_identifier":
                yield alias.text(), path
            continue
        yield package_name(path), path


def package_name(path: str) -> str:
    """The name an import path's package goes by, as its last element says: `gopkg.in/yaml.v3` is
    `yaml`, `github.com/x/y/v2` is `y`."""
    parts = [part for part in path.split("/") if part]
    if len(parts) > 1 and VERSION.fullmatch(parts[-1]):
        parts.pop()
    last = parts[-1] if parts else ""
    return re.split(r"[.-]", last.removeprefix("go-"))[0] if last else ""


def used(node: SgNode, imported: dict[str, str]) -> Iterator[Spot]:
    """What `pkg.Name` reaches: a member of a package a reviewer should see, the environment, or a
    file outside the repository."""
    if node.kind() == "qualified_type":
        package, member = node.field("package"), node.field("name")
    else:
        package, member = node.field("operand"), node.field("field")
    if package is None or member is None or package.kind() not in {"identifier", "package_identifier"}:
        return
    path = imported.get(package.text())
    if path is None:
        return
    if (what := kind_of(path)) is not None:
        yield line(node), what, f"{path}.{member.text()}"
    elif path == "os" and member.text() in OS_CALLS:
        yield line(node), OS_CALLS[path_member := member.text()], f"os.{path_member}"
    if path in FILE_PACKAGES and (call := node.parent()) is not None and call.kind() == "call_expression":
        arguments = call.field("arguments")
        strings = (
            arguments.find_all(
                any=[{"kind": "interpreted_string_literal_content"}, {"kind": "raw_string_literal_content"}]
            )
            if arguments is not None
            else []
        )
        for part in strings:
            if OUTSIDE.match(part.text()) and " " not in part.text():
                yield line(part), "outside file", part.text()
