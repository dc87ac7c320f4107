"""GitHub through PyGithub: permissions, one pull request per branch, one comment per issue.

PyGithub is imported inside the methods: `autofix run` and `--help` never pay for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.errors import UserError

# Legacy permission values answered by the API: `maintain` reads as `write`, `triage` as `read`.
MAY_TRIGGER = ("admin", "write")


class ForgeError(UserError):
    """A GitHub API call failed: the message names the call and GitHub's own words."""


@dataclass(frozen=True)
class PullResult:
    operation: str  # "created" | "updated"
    number: int
    url: str


@dataclass(frozen=True)
class PullInfo:
    number: int
    title: str
    state: str
    url: str
    head_ref: str
    head_sha: str
    head_repo: str  # "owner/name"; "" when the fork was deleted
    base_ref: str


@dataclass(frozen=True)
class RunInfo:
    id: int
    url: str
    head_sha: str


class Forge:
    def __init__(self, api_url: str, token: str, repository: str, pacing: bool = True):
        self.api_url = api_url
        self.token = token
        self.repository = repository
        self.pacing = pacing
        self._gh = None
        self._repo = None
        self._own_login: str | None = None
        self._own_login_asked = False

    def client(self):
        if self._gh is None:
            import github

            # Without pacing: no client-side waits (0.25 s a request, 1 s a write) and no retries,
            # so a local fake answers at once and its injected errors are seen.
            off: dict[str, Any] = {} if self.pacing else dict(retry=None, seconds_between_requests=None, seconds_between_writes=None)
            self._gh = github.Github(base_url=self.api_url, auth=github.Auth.Token(self.token), **off)
        return self._gh

    def repo(self):
        if self._repo is None:
            self._repo = self.call(f"get repository {self.repository}", self.client().get_repo, self.repository)
        return self._repo

    def call(self, what: str, function, *args, **kwargs):
        """Run one API call; its failure becomes a one-line ForgeError naming it."""
        import github

        try:
            return function(*args, **kwargs)
        except github.GithubException as exc:
            raise ForgeError(f"GitHub API: {what} failed ({exc.status}): {message_of(exc)}") from None

    def permission(self, login: str) -> str:
        """The user's legacy permission on the repository, asked of the API (never the payload)."""
        import github

        try:
            return self.repo().get_collaborator_permission(login)
        except github.UnknownObjectException:
            return "none"
        except github.GithubException as exc:
            raise ForgeError(f"GitHub API: permission of @{login} failed ({exc.status}): {message_of(exc)}") from None

    def own_login(self) -> str | None:
        """Who the token acts as; None for installation tokens (GITHUB_TOKEN, apps): GitHub refuses them /user."""
        import github

        if not self._own_login_asked:
            self._own_login_asked = True
            try:
                self._own_login = self.client().get_user().login
            except github.GithubException:
                self._own_login = None
        return self._own_login

    def default_branch(self) -> str:
        return self.call("get repository", lambda: self.repo().default_branch)

    def upsert_pull(self, branch: str, base: str, title: str, body: str, draft: bool) -> PullResult:
        """Update the open pull request of `branch`, or open one: never two."""
        import github

        existing = self.open_pull(branch, base)
        if existing is None:
            try:
                pull = self.repo().create_pull(base=base, head=branch, title=title, body=body, draft=draft)
                return PullResult("created", pull.number, pull.html_url)
            except github.GithubException as exc:
                # Another run opened it between our look and our create.
                if exc.status != 422 or "already exists" not in message_of(exc):
                    raise ForgeError(f"GitHub API: create pull request failed ({exc.status}): {message_of(exc)}") from None
            existing = self.open_pull(branch, base)
            if existing is None:
                raise ForgeError(f"GitHub API: a pull request for {branch} exists but cannot be found")
        self.call("update pull request", existing.edit, title=title, body=body)
        return PullResult("updated", existing.number, existing.html_url)

    def open_pull(self, branch: str, base: str):
        owner = self.repository.split("/", 1)[0]
        # `head` needs the owner: GitHub silently ignores a bare branch name there.
        pulls = self.call("list pull requests", lambda: list(self.repo().get_pulls(state="open", head=f"{owner}:{branch}", base=base)))
        return pulls[0] if pulls else None

    def pull(self, number: int) -> PullInfo:
        p = self.call(f"get pull request #{number}", self.repo().get_pull, number)
        head_repo = p.head.repo.full_name if p.head.repo is not None else ""
        return PullInfo(number, p.title or "", p.state, p.html_url, p.head.ref, p.head.sha, head_repo, p.base.ref)

    def pull_of_commit(self, head_sha: str) -> int | None:
        """The open pull request whose head is `head_sha`: for runs whose payload lists none
        (GitHub leaves `pull_requests` empty for pull requests from forks)."""
        pulls = self.call("list pull requests", lambda: list(self.repo().get_pulls(state="open")))
        return next((p.number for p in pulls if p.head.sha == head_sha), None)

    def failed_run(self, head_sha: str) -> RunInfo | None:
        """The latest failed workflow run of a commit, if any."""
        runs = self.call("list workflow runs", lambda: list(self.repo().get_workflow_runs(head_sha=head_sha, status="failure")[:1]))
        return RunInfo(runs[0].id, runs[0].html_url, runs[0].head_sha) if runs else None

    def failed_job_logs(self, run_id: int, limit: int = 200_000) -> tuple[list[tuple[str, str]], str | None]:
        """(job name, the end of its log) of each failed job of the run, and why the rest are
        missing. Logs are optional evidence: expired logs or no `actions: read` only leave them out."""
        import urllib.request

        import github

        found = []
        try:
            jobs = list(self.repo().get_workflow_run(run_id).jobs())
            for job in jobs:
                if job.conclusion != "failure":
                    continue
                location = job.logs_url()  # GitHub answers with a short-lived signed URL
                if not location.startswith(("https://", "http://")):
                    continue
                with urllib.request.urlopen(location, timeout=30) as response:  # no token: the URL is signed
                    found.append((job.name, response.read()[-limit:].decode("utf-8", "replace")))
        except github.GithubException as exc:
            return found, f"job logs of run {run_id} unavailable ({exc.status}): {message_of(exc)}"
        except OSError as exc:
            return found, f"job logs of run {run_id} unavailable: {exc}"
        return found, None

    def find_comment(self, number: int, marker: str):
        """Our comment on the issue: it carries the marker and was written by us or a bot."""
        own = self.own_login()
        issue = self.call(f"get issue #{number}", self.repo().get_issue, number)
        for comment in self.call(f"list comments of #{number}", lambda: list(issue.get_comments())):
            if marker in (comment.body or "") and (comment.user.type == "Bot" or comment.user.login == own):
                return issue, comment
        return issue, None

    def upsert_comment(self, number: int, marker: str, body: str) -> str:
        """One autofix comment per issue, edited in place on re-runs: "created" or "updated"."""
        issue, comment = self.find_comment(number, marker)
        if comment is None:
            self.call(f"comment on #{number}", issue.create_comment, body)
            return "created"
        self.call(f"edit comment on #{number}", comment.edit, body)
        return "updated"


def message_of(exc) -> str:
    data = exc.data if isinstance(exc.data, dict) else {}
    parts = [str(data.get("message") or exc)]
    for error in data.get("errors") or []:
        if isinstance(error, dict) and error.get("message"):
            parts.append(str(error["message"]))
    return " ".join(" ".join(parts).split())[:300]
