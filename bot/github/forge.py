"""GitHub through PyGithub: permissions, one pull request per branch, one comment per issue.

Every call goes through `Forge.call`: GitHub's transient failures (5xx, rate limits, a dropped
connection) are tried again within a bounded wait, and a final failure is a one-line ForgeError.
Writes are never repeated blindly: a create whose answer was lost is looked for before it is tried
again. Forge hands out plain dataclasses, never PyGithub objects, and only calls endpoints the
example workflows' `permissions:` cover (comments through `/issues/{n}/comments`, which a pull
request's `pull-requests` permission covers too).

PyGithub is imported inside the methods: `autofix run` and `--help` never pay for it.
"""

from __future__ import annotations

import http.client
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.errors import UserError
from bot.text import capped_markdown

# Legacy permission values answered by the API: `maintain` reads as `write`, `triage` as `read`.
MAY_TRIGGER = ("admin", "write")
BODY_LIMIT = 65_536  # characters GitHub accepts in a comment or a pull request body
TRANSIENT = (500, 502, 503, 504)
SECONDARY_WAIT = 60.0  # GitHub: after a secondary rate limit without a Retry-After, wait at least a minute
DRAFTS_REFUSED = "Draft pull requests are not supported"
LOG_TAIL = 200_000  # bytes of the end of a job's log kept as evidence
LOG_READ_CAP = 32 * 2**20  # bytes read of one log at most, however long it is
LOG_SECONDS = 30.0  # seconds spent reading the logs of one run at most
LOG_CHUNK = 64 * 2**10


class ForgeError(UserError):
    """A GitHub API call failed: the message names the call and GitHub's own words."""


@dataclass(frozen=True)
class Pacing:
    """How Forge spaces, times and retries its calls. The defaults follow GitHub's advice for
    integrations (serial requests, a pause between writes); tests pass a fast one."""

    between_requests: float | None = 0.25  # seconds, PyGithub's own pacing
    between_writes: float | None = 1.0
    timeout: int = 15  # seconds per request
    retries: int = 5  # tries after the first, for a transient failure
    first_wait: float = 1.0  # seconds before the first retry, doubled for each next one
    budget: float = 60.0  # seconds of waiting in all, for one call


@dataclass(frozen=True)
class PullResult:
    operation: str  # "created" | "updated" | "none"
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


@dataclass(frozen=True)
class Comment:
    id: int
    body: str
    url: str


class Forge:
    def __init__(
        self,
        api_url: str,
        token: str,
        repository: str,
        pacing: Pacing | None = None,
        log: Callable[[str], None] | None = None,
        ca_bundle: Path | None = None,
    ):
        self.api_url = api_url
        self.ca_bundle = ca_bundle  # the certificates GitHub's HTTPS is verified against; None: certifi's
        self.token = token
        self.repository = repository
        self.pacing = pacing or Pacing()
        self.log = log  # where a retry and a fallback are told; `autofix action` passes its log
        self.sleep = time.sleep
        self.drafts = True  # until GitHub says this repository has none
        self._gh: Any = None  # a github.Github, made on the first call
        self._own_login: str | None = None
        self._own_login_asked = False

    def tell(self, line: str) -> None:
        if self.log is not None:
            self.log(line)

    def client(self):
        if self._gh is None:
            import github

            p = self.pacing
            # No retries inside PyGithub: `call` retries reads and looks before re-creating. Lazy
            # objects: no request for an object until one of its attributes needs it.
            self._gh = github.Github(
                base_url=self.api_url, auth=github.Auth.Token(self.token), retry=None, timeout=p.timeout,
                seconds_between_requests=p.between_requests, seconds_between_writes=p.between_writes, lazy=True,
                verify=str(self.ca_bundle) if self.ca_bundle else True,
            )  # fmt: skip
        return self._gh

    def repo(self):
        return self.client().get_repo(self.repository)

    def call(self, what: str, function: Callable[[], Any], again: Callable[[], Any] | None = None) -> Any:
        """Run one API call, tried again while its failure is transient (5xx, a rate limit, a
        dropped connection) and the waits fit the pacing; a final failure is a one-line ForgeError
        naming the call. `again` replaces `function` on later tries: for a create, it looks for what
        a lost answer may have created before creating it once more."""
        import github

        waited, tries = 0.0, 0
        while True:
            try:
                return (again if tries and again else function)()
            except (github.GithubException, http.client.HTTPException, OSError) as exc:  # requests' errors are OSErrors
                tries += 1
                wait, why = retry_wait(exc, tries, self.pacing.first_wait)
                if wait is None or tries > self.pacing.retries or waited + wait > self.pacing.budget:
                    raise ForgeError(failure(what, exc, tries, waited, wait, self.pacing.budget)) from None
                self.tell(f"autofix: GitHub: {what}: {why}; trying again in {wait:.3g} s")
                self.sleep(wait)
                waited += wait

    def _api(self, method: str, path: str, body: dict | None = None, **params: Any) -> Any:
        """One request to the repository's `path` (e.g. "/issues/3/comments"): its JSON answer."""
        url = f"/repos/{self.repository}{path}"
        return self.client().requester.requestJsonAndCheck(method, url, parameters=params or None, input=body)[1]

    def rest(self, method: str, path: str, body: dict | None = None) -> Any:
        """`_api` for the endpoints no method here wraps (signed.py's git database); not retried:
        pass it to `call`."""
        return self._api(method, path, body)

    def permission(self, login: str) -> str:
        """The user's legacy permission on the repository, asked of the API (never the payload)."""
        import github

        def ask() -> str:
            try:
                return self.repo().get_collaborator_permission(login)
            except github.UnknownObjectException:
                return "none"

        return self.call(f"permission of @{login}", ask)

    def own_login(self) -> str | None:
        """Who the token acts as; None for installation tokens (GITHUB_TOKEN, apps): GitHub refuses them /user."""
        import github

        def ask() -> str | None:
            try:
                return self.client().get_user().login
            except github.GithubException as exc:
                if exc.status in (401, 404) or (exc.status == 403 and not rate_limited(exc)):
                    return None
                raise

        if not self._own_login_asked:
            self._own_login = self.call("who the token acts as", ask)
            self._own_login_asked = True
        return self._own_login

    def default_branch(self) -> str:
        return self.call("get repository", lambda: self.repo().default_branch)

    # ------------------------------------------------------------------------- pull requests

    def upsert_pull(self, branch: str, base: str, title: str, body: str, draft: bool) -> PullResult:
        """Update the open pull request of `branch`, or open one: never two."""
        body = capped(body)
        pull = self.call("list pull requests", lambda: self._open_pull(branch, base))
        if pull is None:

            def open_once():
                return self._create_pull(branch, base, title, body, draft)

            def look_then_open():  # a lost answer may have opened it anyway
                found = self._open_pull(branch, base)
                return (found, False) if found is not None else open_once()

            pull, opened = self.call("create pull request", open_once, again=look_then_open)
            if opened:
                return PullResult("created", pull.number, pull.html_url)
        self.call("update pull request", lambda: pull.edit(title=title, body=body))
        return PullResult("updated", pull.number, pull.html_url)

    def _create_pull(self, branch: str, base: str, title: str, body: str, draft: bool):
        """(the pull request, True) once opened; (the one another run opened meanwhile, False)."""
        import github

        try:
            return self.repo().create_pull(
                base=base, head=branch, title=title, body=body, draft=draft and self.drafts
            ), True
        except github.GithubException as exc:
            if exc.status == 422 and DRAFTS_REFUSED in message_of(exc) and self.drafts:
                self.drafts = False
                self.tell("autofix: this repository has no draft pull requests (GitHub: 422); opening a regular one")
                return self._create_pull(branch, base, title, body, draft)
            if exc.status != 422 or "already exists" not in message_of(exc):
                raise
        existing = self._open_pull(branch, base)
        if existing is None:
            raise ForgeError(f"GitHub API: a pull request for {branch} exists but cannot be found")
        return existing, False

    def open_pull(self, branch: str, base: str) -> PullInfo | None:
        pull = self.call("list pull requests", lambda: self._open_pull(branch, base))
        return pull_info(pull) if pull is not None else None

    def _open_pull(self, branch: str, base: str):
        owner = self.repository.split("/", 1)[0]
        # `head` needs the owner: GitHub silently ignores a bare branch name there.
        return next(iter(self.repo().get_pulls(state="open", head=f"{owner}:{branch}", base=base)), None)

    def pull(self, number: int) -> PullInfo:
        return self.call(f"get pull request #{number}", lambda: pull_info(self.repo().get_pull(number)))

    def pull_of_commit(self, head_sha: str, head: str) -> int | None:
        """The open pull request from `head` ("owner:branch") whose head is `head_sha`: for runs whose
        payload lists none (GitHub leaves `pull_requests` empty for pull requests from forks)."""
        pulls = self.call("list pull requests", lambda: list(self.repo().get_pulls(state="open", head=head)))
        return next((p.number for p in pulls if p.head.sha == head_sha), None)

    # ------------------------------------------------------------------------- workflow runs

    def failed_run(self, head_sha: str) -> RunInfo | None:
        """The latest failed workflow run of a commit, if any."""
        runs = self.call(
            "list workflow runs", lambda: list(self.repo().get_workflow_runs(head_sha=head_sha, status="failure")[:1])
        )
        return RunInfo(runs[0].id, runs[0].html_url, runs[0].head_sha) if runs else None

    def failed_job_logs(
        self, run_id: int, tail: int = LOG_TAIL, read_cap: int = LOG_READ_CAP, seconds: float = LOG_SECONDS
    ) -> tuple[list[tuple[str, str]], str | None]:
        """(job name, the end of its log) of each failed job of the run, and why some are missing.
        Logs are optional evidence: expired logs, no `actions: read` or a broken download only
        leave them out. Each log is streamed: `tail` bytes kept, `read_cap` bytes read at most,
        and all of them within `seconds`."""
        deadline = time.monotonic() + seconds
        try:
            jobs = self.call(
                f"list jobs of run {run_id}",
                lambda: [j for j in self.repo().get_workflow_run(run_id).jobs() if j.conclusion == "failure"],
            )
        except ForgeError as exc:
            return [], f"job logs of run {run_id} unavailable: {exc}"
        found, missing = [], []
        for job in jobs:
            try:
                location = self.call(f"get the log of job {job.name!r}", job.logs_url)  # a short-lived signed URL
            except ForgeError as exc:
                missing.append(str(exc))
                continue
            text, problem = read_tail(location, tail, read_cap, deadline, self.ca_bundle)
            if text:
                found.append((job.name, text))
            if problem:
                missing.append(f"the log of job {job.name!r}: {problem}")
        return found, f"job logs of run {run_id} incomplete: {'; '.join(missing)}" if missing else None

    # ------------------------------------------------------------------------- comments

    def find_comment(self, number: int, marker: str) -> Comment | None:
        """Our comment on issue or pull request #number: it carries the marker and was written by us or a bot."""
        return self.call(f"list comments of #{number}", lambda: self._find_comment(number, marker))

    def _find_comment(self, number: int, marker: str) -> Comment | None:
        own = self.own_login()
        page = 1
        while True:
            comments = self._api("GET", f"/issues/{number}/comments", per_page=100, page=page)
            for c in comments:
                user = c.get("user") or {}
                if marker in (c.get("body") or "") and (user.get("type") == "Bot" or user.get("login") == own):
                    return Comment(c["id"], c["body"], c["html_url"])
            if len(comments) < 100:
                return None
            page += 1

    def upsert_comment(self, number: int, marker: str, body: str) -> str:
        """One autofix comment per issue, edited in place on re-runs: "created" or "updated"."""
        body = capped(body)
        posted = False

        def upsert() -> str:  # looks first on every try: a POST whose answer was lost is not made twice
            nonlocal posted
            found = self._find_comment(number, marker)
            if found is None:
                posted = True
                self._api("POST", f"/issues/{number}/comments", {"body": body})
                return "created"
            self._api("PATCH", f"/issues/comments/{found.id}", {"body": body})
            return "created" if posted else "updated"

        return self.call(f"comment on #{number}", upsert)

    def react(self, number: int, comment_id: int | None = None) -> None:
        """👀 on issue or pull request #number, or on its comment `comment_id`: what started a task is
        seen. A reaction that is there already is answered 200, so a retried POST adds none."""
        path = f"/issues/comments/{comment_id}/reactions" if comment_id else f"/issues/{number}/reactions"
        what = f"react to comment {comment_id} on #{number}" if comment_id else f"react to #{number}"
        self.call(what, lambda: self._api("POST", path, {"content": "eyes"}))

    def edit_comment(self, comment_id: int, body: str) -> None:
        body = capped(body)
        self.call("edit comment", lambda: self._api("PATCH", f"/issues/comments/{comment_id}", {"body": body}))


def pull_info(p) -> PullInfo:
    head_repo = p.head.repo.full_name if p.head.repo is not None else ""
    return PullInfo(p.number, p.title or "", p.state, p.html_url, p.head.ref, p.head.sha, head_repo, p.base.ref)


def capped(body: str) -> str:
    """The body as GitHub takes it: over the limit, its end gives way to a visible mark."""
    return capped_markdown(body, BODY_LIMIT, f"GitHub takes at most {BODY_LIMIT:,}")


def rate_limited(exc) -> bool:
    headers = {k.lower(): v for k, v in (exc.headers or {}).items()}
    return exc.status == 429 or (
        exc.status == 403
        and (
            "retry-after" in headers
            or headers.get("x-ratelimit-remaining") == "0"
            or "rate limit" in message_of(exc).lower()
        )
    )


def retry_wait(exc: BaseException, tries: int, first_wait: float) -> tuple[float | None, str]:
    """Seconds to wait before the next try, and why; None when another try can't help."""
    import github

    backoff = first_wait * 2 ** (tries - 1)
    if isinstance(exc, dropped_connection()):
        return backoff, f"the connection failed ({type(exc).__name__})"
    if not isinstance(exc, github.GithubException):
        return None, ""
    if exc.status in TRANSIENT:
        return backoff, f"GitHub answered {exc.status}"
    if not rate_limited(exc):
        return None, ""
    # GitHub's rules: Retry-After first, then the reset of an exhausted quota, else (a secondary rate
    # limit, a 429 or a 403 alike) at least a minute, growing when it goes on.
    headers = {k.lower(): v for k, v in (exc.headers or {}).items()}
    retry_after, reset = str(headers.get("retry-after", "")), str(headers.get("x-ratelimit-reset", ""))
    if retry_after.isdigit():
        wait = float(retry_after)
    elif headers.get("x-ratelimit-remaining") == "0" and reset.isdigit():
        wait = max(int(reset) - time.time() + 1, 1.0)
    else:
        wait = max(SECONDARY_WAIT, backoff)
    return wait, f"rate limited ({exc.status})"


def dropped_connection() -> tuple[type[BaseException], ...]:
    """What a request raises when the network, not GitHub's answer, failed: worth another try."""
    import requests

    errors = requests.exceptions
    return (
        errors.ConnectionError,
        errors.Timeout,
        errors.ChunkedEncodingError,
        errors.RetryError,
        http.client.HTTPException,
        ConnectionError,
        TimeoutError,
    )


def failure(what: str, exc: BaseException, tries: int, waited: float, wait: float | None, budget: float) -> str:
    """The one line a call's final failure is reported with."""
    import github

    after = f" after {tries} tries" if tries > 1 else ""
    if isinstance(exc, github.GithubException):
        line = f"GitHub API: {what} failed ({exc.status}){after}: {message_of(exc)}"
        if wait is not None and waited + wait > budget and rate_limited(exc):
            line += f" (GitHub asks to wait {wait:.0f} s; autofix waits at most {budget:g} s)"
        return line
    detail = " ".join(str(exc).split())[:300]
    return f"GitHub API: {what} failed{after}: {type(exc).__name__}: {detail}"


def read_tail(url: str, keep: int, cap: int, deadline: float, ca_bundle: Path | None = None) -> tuple[str, str | None]:
    """The end of the text at `url` (no token: the URL is signed), streamed so that only `keep`
    bytes are held; reading stops after `cap` bytes or at `deadline` (checked between reads of the
    socket, each of which waits at most the time left when the download began), and whatever
    arrived before the connection broke is kept. (text, what went wrong or None)."""
    import urllib.request

    tail, read, problem = bytearray(), 0, None
    try:
        context = ssl.create_default_context(cafile=ca_bundle) if ca_bundle else None
        timeout = min(max(deadline - time.monotonic(), 1.0), 30.0)
        with urllib.request.urlopen(url, timeout=timeout, context=context) as response:
            while True:
                if read >= cap:
                    problem = f"read the first {read:,} bytes only; the end is missing"
                    break
                if time.monotonic() > deadline:
                    problem = f"read {read:,} bytes before the time ran out; the end is missing"
                    break
                chunk = response.read1(min(LOG_CHUNK, cap - read))  # one read of the socket at most: the deadline holds
                if not chunk:
                    if response.length:  # the server promised more than it sent
                        problem = f"the download broke off after {read:,} bytes"
                    break
                read += len(chunk)
                tail += chunk
                if len(tail) > 2 * keep:
                    del tail[:-keep]
    except (OSError, http.client.HTTPException) as exc:
        problem = f"the download broke off after {read:,} bytes ({type(exc).__name__})"
    return bytes(tail[-keep:]).decode("utf-8", "replace"), problem


def message_of(exc) -> str:
    data = exc.data if isinstance(exc.data, dict) else {}
    parts = [str(data.get("message") or exc)]
    for error in data.get("errors") or []:
        if isinstance(error, dict) and error.get("message"):
            parts.append(str(error["message"]))
    return " ".join(" ".join(parts).split())[:300]
