"""`sign-commits`: the fix's commit made through GitHub's REST git database instead of pushed, so
GitHub signs it, for repositories whose rules require signed commits.

GitHub signs a commit that a GitHub App, or GITHUB_TOKEN's github-actions[bot], makes with
`POST /git/commits` naming no author, committer or signature ("Signature verification for bots"
in GitHub's docs): it shows as Verified. A personal access token's commit stays unsigned.

The REST git database rather than GraphQL's `createCommitOnBranch`: the commit made here is the one
git built (`Git.commit`: parent the base autofix judged on, tree the base's with the changed files),
and the branch is created on it or moved to it. `createCommitOnBranch` only adds a commit on top of
a branch's current head, so it can't start the branch from the base or rebuild it on a new base,
and it knows no file modes or links; peter-evans/create-pull-request left it for the REST API for
its own `sign-commits`.

What changed is what git says changed between the commit's parent and it (`git diff-tree`): only
those files are uploaded, and the tree is built on the base's tree as GitHub has it. GitHub's tree
must come out with the id git computed, or the commit would not be the fix that was judged, and
nothing is moved. The ref is moved with force, as `git push --force-with-lease` moves it (the
commit's parent is the base, not the branch's old head); the REST API has no lease, so of two runs
racing, the last one's commit stays, each a fix that passed.
"""

from __future__ import annotations

import base64
from typing import Any
from urllib.parse import quote

from bot.github.forge import Forge, ForgeError
from bot.github.git import Git

NO_FILE = "0" * 40  # git's id for "no such file" in diff-tree's output


class SignedBranch:
    """A branch of the repository on GitHub, read and moved through the API; `Git`'s
    `remote_branch` and `push` for `publish` when `sign-commits` is on."""

    def __init__(self, forge: Forge, git: Git):
        self.forge, self.git = forge, git

    def remote_branch(self, branch: str) -> tuple[str, str] | None:
        """(commit, tree) of the branch as GitHub has it, or None when it has no such branch."""
        import github

        def ask() -> tuple[str, str] | None:
            try:
                ref = self.forge.rest("GET", f"/git/ref/heads/{quote(branch)}")
            except github.UnknownObjectException:
                return None
            commit = self.forge.rest("GET", f"/git/commits/{ref['object']['sha']}")
            return commit["sha"], commit["tree"]["sha"]

        return self.forge.call(f"get branch {branch}", ask)

    def push(self, commit: str, branch: str, expected: str | None) -> str | None:
        """`commit` (one commit on its parent, made by `Git.commit`) made again through the API, and
        the branch created on it (`expected` None) or moved to it. None once GitHub signed the
        commit, else why not (GitHub's `verification.reason`, e.g. unsigned for a personal token)."""
        git, forge = self.git, self.forge
        parent, tree = git.run("rev-parse", f"{commit}^"), git.run("rev-parse", f"{commit}^{{tree}}")
        entries = [self.entry(*change) for change in changes(git, parent, commit)]
        base_tree = git.run("rev-parse", f"{parent}^{{tree}}")
        made = self.post("create the fix's tree", "/git/trees", {"base_tree": base_tree, "tree": entries})
        if made["sha"] != tree:
            raise ForgeError(
                f"GitHub API: the tree GitHub built for {branch} ({made['sha'][:12]}) is not the fix's "
                f"({tree[:12]}); nothing was pushed"
            )
        message = git.run("cat-file", "commit", commit, strip=False).split("\n\n", 1)[1]
        # No author, committer or signature: GitHub signs only a commit it writes itself.
        made = self.post(
            "create the fix's commit", "/git/commits", {"message": message, "tree": tree, "parents": [parent]}
        )
        signed, verification = made["sha"], made.get("verification") or {}
        if expected is None:

            def create() -> Any:
                return forge.rest("POST", "/git/refs", {"ref": f"refs/heads/{branch}", "sha": signed})

            def look_then_create() -> Any:  # a lost answer may have created it anyway
                found = self.remote_branch(branch)
                return found if found is not None and found[0] == signed else create()

            forge.call(f"create branch {branch}", create, again=look_then_create)
        else:
            forge.call(
                f"move branch {branch}",
                lambda: forge.rest("PATCH", f"/git/refs/heads/{quote(branch)}", {"sha": signed, "force": True}),
            )
        return None if verification.get("verified") is True else str(verification.get("reason") or "not reported")

    def entry(self, old_mode: str, mode: str, sha: str, path: str) -> dict[str, Any]:
        """The tree entry of one changed path: its blob uploaded, or null for a removed file."""
        if sha == NO_FILE:
            return {"path": path, "mode": old_mode, "type": "blob", "sha": None}
        content = base64.b64encode(self.git.blob(sha)).decode()
        blob = self.post(f"upload {path}", "/git/blobs", {"content": content, "encoding": "base64"})
        return {"path": path, "mode": mode, "type": "blob", "sha": blob["sha"]}

    def post(self, what: str, path: str, body: dict) -> Any:
        """A create of the git database: content-addressed (or, for a commit, unreferenced until a
        ref points at it), so trying it again after a lost answer leaves nothing twice."""
        return self.forge.call(what, lambda: self.forge.rest("POST", path, body))


def changes(git: Git, parent: str, commit: str) -> list[tuple[str, str, str, str]]:
    """(old mode, new mode, new blob, path) of every file `commit` changed against `parent`; a
    removed file's blob is NO_FILE. Paths as git stores them (`-z`: never quoted)."""
    listed = git.run("diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", parent, commit, strip=False)
    fields = listed.split("\0")
    out = []
    for i in range(0, len(fields) - 1, 2):  # ":old-mode new-mode old-sha new-sha status", then the path
        old_mode, mode, _, sha, _ = fields[i].lstrip(":").split(" ")
        out.append((old_mode, mode, sha, fields[i + 1]))
    return out
