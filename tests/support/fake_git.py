"""The git database behind the fake GitHub's ``/git/*`` routes: objects hashed as git hashes them,
so a tree the API builds has the id ``git write-tree`` gives the same files.

Stdlib only.  What the API creates is held here; an object it didn't create is read from
``pushed``, a bare repository standing in for what was pushed to GitHub (``git cat-file``, read
only).  Refs are the fake's ``Repo.branches``: a branch made through the API is in no bare
repository.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

TREE = "40000"  # how git writes a tree's mode inside a tree object
MODES = {"100644": "blob", "100755": "blob", "120000": "blob", "040000": "tree", "160000": "commit"}

# A node of a tree being built: an expanded folder, or (mode, sha) as the tree object has it.
Node = dict[str, "Node"] | tuple[str, str]


class BadPath(ValueError):
    """A tree entry the database refuses: GitHub answers 422."""


@dataclass
class Person:
    name: str
    email: str
    date: str  # ISO 8601, as the API writes it
    stamp: int  # seconds since the epoch, as the commit object writes it


@dataclass
class CommitInfo:
    tree: str
    parents: list[str]
    author: Person
    committer: Person
    message: str
    signature: str | None  # the gpgsig header's value


@dataclass
class GitStore:
    pushed: Path | None = None
    objects: dict[str, tuple[str, bytes]] = field(default_factory=dict)  # sha -> (type, content)

    # ---------------------------------------------------------------- objects

    def put(self, kind: str, content: bytes) -> str:
        sha = hashlib.sha1(f"{kind} {len(content)}\0".encode() + content).hexdigest()  # git's object id
        self.objects.setdefault(sha, (kind, content))
        return sha

    def get(self, sha: str) -> tuple[str, bytes] | None:
        if sha in self.objects:
            return self.objects[sha]
        if self.pushed is None or len(sha) != 40 or any(c not in "0123456789abcdef" for c in sha):
            return None
        kind = self._cat("-t", sha)
        if kind is None:
            return None
        content = self._cat(kind.decode().strip(), sha)
        return (kind.decode().strip(), content) if content is not None else None

    def _cat(self, what: str, sha: str) -> bytes | None:
        env = {"PATH": os.environ.get("PATH", os.defpath), "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
        done = subprocess.run(
            ["git", f"--git-dir={self.pushed}", "cat-file", what, sha], env=env, capture_output=True, check=False
        )
        return done.stdout if done.returncode == 0 else None

    def kind(self, sha: str) -> str | None:
        found = self.get(sha)
        return found[0] if found else None

    # ---------------------------------------------------------------- trees

    def entries(self, sha: str) -> list[tuple[str, str, str]]:
        """(mode, name, sha) of a tree object, in its order; modes as the API writes them (040000)."""
        found = self.get(sha)
        if found is None or found[0] != "tree":
            raise BadPath(f"{sha} is not a tree")
        content, out, i = found[1], [], 0
        while i < len(content):
            space = content.index(b" ", i)
            nul = content.index(b"\0", space)
            name = content[space + 1 : nul].decode("utf-8", "surrogateescape")
            out.append((content[i:space].decode().zfill(6), name, content[nul + 1 : nul + 21].hex()))
            i = nul + 21
        return out

    def walk(self, sha: str, prefix: str = "") -> list[tuple[str, str, str]]:
        """(mode, path, sha) of every entry under the tree, folders included, depth first."""
        out = []
        for mode, name, child in self.entries(sha):
            out.append((mode, prefix + name, child))
            if mode == "040000":
                out += self.walk(child, f"{prefix}{name}/")
        return out

    def build(self, base: str | None, changes: list[tuple[str, str | None, str | None]]) -> str:
        """The tree `base` (None: empty) with each (path, mode, sha) set, or removed when sha is None."""
        root: dict[str, Node] = self._expand(base) if base else {}
        for path, mode, sha in changes:
            parts = path.split("/")
            if not path or any(p in ("", ".", "..", ".git") for p in parts):
                raise BadPath(f"tree.path {path!r} is not a valid path")
            folder = root
            for part in parts[:-1]:
                child = folder.get(part)
                if isinstance(child, tuple):
                    if child[0] != "040000":
                        raise BadPath(f"{path}: {part} is a file")
                    child = folder[part] = self._expand(child[1])
                elif child is None:
                    if sha is None:
                        raise BadPath(f"{path}: no such file to delete")
                    child = folder[part] = {}
                folder = child
            if sha is None:
                if parts[-1] not in folder:
                    raise BadPath(f"{path}: no such file to delete")
                del folder[parts[-1]]
            else:
                assert mode is not None
                folder[parts[-1]] = (mode, sha)
        return self._write(root)

    def _expand(self, sha: str) -> dict[str, Node]:
        return {name: (mode, child) for mode, name, child in self.entries(sha)}

    def _write(self, folder: dict[str, Node]) -> str:
        rows = []
        for name, node in folder.items():
            if isinstance(node, dict):
                if not node:
                    continue  # git keeps no empty folder
                mode, sha = "040000", self._write(node)
            else:
                mode, sha = node
            rows.append((name + "/" if mode == "040000" else name, mode, name, sha))
        rows.sort()  # git's order: a folder sorts as if its name ended with "/"
        content = b"".join(
            f"{TREE if mode == '040000' else mode} {name}".encode("utf-8", "surrogateescape")
            + b"\0"
            + bytes.fromhex(sha)
            for _, mode, name, sha in rows
        )
        return self.put("tree", content)

    # ---------------------------------------------------------------- commits

    def commit(self, info: CommitInfo) -> str:
        return self.put("commit", self.encode(info))

    @staticmethod
    def encode(info: CommitInfo) -> bytes:
        """The commit object as git writes it (the signature a header, each of its lines indented)."""

        def person(role: str, p: Person) -> str:
            return f"{role} {p.name} <{p.email}> {p.stamp} +0000\n"

        head = f"tree {info.tree}\n" + "".join(f"parent {p}\n" for p in info.parents)
        head += person("author", info.author) + person("committer", info.committer)
        if info.signature:
            head += "gpgsig " + info.signature.replace("\n", "\n ") + "\n"
        return (head + "\n" + info.message).encode()

    def read_commit(self, sha: str) -> CommitInfo | None:
        found = self.get(sha)
        if found is None or found[0] != "commit":
            return None
        text = found[1].decode("utf-8", "replace")
        head, _, message = text.partition("\n\n")
        tree, parents, people, signature, lines = "", [], {}, None, head.split("\n")
        i = 0
        while i < len(lines):
            key, _, value = lines[i].partition(" ")
            if key == "gpgsig":
                block = [value]
                while i + 1 < len(lines) and lines[i + 1].startswith(" "):
                    i += 1
                    block.append(lines[i][1:])
                signature = "\n".join(block)
            elif key == "tree":
                tree = value
            elif key == "parent":
                parents.append(value)
            elif key in ("author", "committer"):
                who, _, when = value.rpartition("> ")
                name, _, email = who.partition(" <")
                stamp = int(when.split()[0])
                people[key] = Person(name, email, _iso(stamp), stamp)
            i += 1
        return CommitInfo(tree, parents, people["author"], people["committer"], message, signature)

    def descends(self, sha: str, ancestor: str) -> bool:
        """Whether `ancestor` is `sha` or one of its ancestors (a fast-forward from it)."""
        seen, todo = set(), [sha]
        while todo:
            current = todo.pop()
            if current == ancestor:
                return True
            if current in seen:
                continue
            seen.add(current)
            info = self.read_commit(current)
            todo += info.parents if info else []
        return False


def _iso(stamp: int) -> str:
    return datetime.fromtimestamp(stamp, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
