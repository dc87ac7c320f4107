"""How autofix proposes code: one commit on its own branch, pushed only when it changes the branch,
and one pull request for it, opened or updated; every flow publishes through here."""

from __future__ import annotations

from dataclasses import dataclass

from bot.core import review
from bot.github.forge import PullResult
from bot.github.git import Git
from bot.github.signed import SignedBranch
from bot.github.step import Step, TaskOutcome

HELD = (
    "opened as a draft: autofix pushed with a token other than GITHUB_TOKEN, so this repository's workflows run "
    "on the branch with their secrets; review the change before marking it ready"
)


@dataclass(frozen=True)
class Proposal:
    branch: str  # autofix's own: autofix/<flow>-<name>
    base: str  # the branch the pull request goes into
    title: str
    body: str  # Markdown, masked and capped here
    message: str  # the commit's
    what: str = "code"  # what the branch holds, for the log: "code", "fix"
    draft: bool = False  # a draft whatever the `draft` input says (an unproven fix)
    named: tuple[str, ...] | None = None  # the files the task or localization named; None: none was


def publish(step: Step, git: Git, paths: list[str], proposal: Proposal, outcome: TaskOutcome) -> None:
    """Commit `paths` of `git`'s folder on `proposal.branch`; push unless the branch already holds
    this tree (then an open pull request is left as it is); open or update the pull request. With
    `sign-commits` the commit is made again through GitHub's API, which signs it, and not pushed."""
    forge, flow = step.forge, step.flow
    commit, tree = git.commit(paths, proposal.message)
    # Read from the commits, not the work tree: exactly what the reviewer is asked to merge.
    old, new = contents(git, git.base, paths), contents(git, commit, paths)
    found = review.findings({path: (old.get(path), new.get(path)) for path in paths}, proposal.named)
    signing = SignedBranch(forge, git) if step.config.sign_commits else None
    remote = (signing or git).remote_branch(proposal.branch)
    if remote is not None and remote[1] == tree:
        existing = forge.open_pull(proposal.branch, proposal.base)
        if existing is not None:
            outcome.pull = PullResult("none", existing.number, existing.url)
            flow.print(
                f"autofix: {proposal.branch} already holds this {proposal.what}; "
                f"pull request #{existing.number} left as it is"
            )
            return
    elif signing is not None:
        unsigned = signing.push(commit, proposal.branch, remote[0] if remote else None)
        flow.print(f"autofix: committed {proposal.branch} through GitHub's API")
        if unsigned:
            flow.annotate(
                "warning",
                f"sign-commits: GitHub did not sign the commit on {proposal.branch} ({unsigned}); "
                "it signs only a GitHub App's or GITHUB_TOKEN's commits, not a personal access token's",
            )
    else:
        git.push(commit, proposal.branch, remote[0] if remote else None)
        flow.print(f"autofix: pushed {proposal.branch}")
    held = f"\n\n{HELD}" if step.config.held_for_review else ""
    body = step.for_github(f"{proposal.body}{held}\n\n{review.section(found)}")
    outcome.pull = forge.upsert_pull(
        proposal.branch, proposal.base, proposal.title, body, proposal.draft or step.config.draft
    )
    outcome.operation = outcome.pull.operation
    flow.print(f"autofix: pull request #{outcome.pull.number} {outcome.pull.operation}: {outcome.pull.url}")


def contents(git: Git, rev: str, paths: list[str]) -> dict[str, str]:
    """The text of each of `paths` that `rev` holds (undecodable bytes replaced)."""
    listed = git.run("ls-tree", "-z", rev, "--", *paths, strip=False)
    blobs = {}
    for entry in listed.split("\0"):
        if entry:
            meta, path = entry.split("\t", 1)
            if meta.split()[1] == "blob":
                blobs[path] = git.blob(meta.split()[2]).decode("utf-8", "replace")
    return blobs
