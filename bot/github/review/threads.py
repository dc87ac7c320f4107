"""A review's threads on GitHub: which are the review's (its comments, by REST), their state and
anchor (GraphQL `reviewThreads`), the visible text of their comments; a reply on a thread (REST,
looked for before it is posted again) and its resolution (GraphQL `resolveReviewThread`).

Every call goes through `Forge.call` (bounded retries, one-line errors)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bot.github.forge import Forge, capped
from bot.visible import Visible, visible

THREADS = """query($owner: String!, $name: String!, $number: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $after) {
        pageInfo { hasNextPage endCursor }
        nodes {
          id isResolved isOutdated path line startLine
          comments(first: 100) { nodes { databaseId body diffHunk author { login } } }
        }
      }
    }
  }
}"""
RESOLVE = (
    "mutation($input: ResolveReviewThreadInput!) { resolveReviewThread(input: $input) { thread { id isResolved } } }"
)


@dataclass(frozen=True)
class Said:
    """One comment of a thread as a reader sees it."""

    id: int
    author: str
    text: str  # visible: rendered as GitHub renders it, invisible characters removed


@dataclass(frozen=True)
class Thread:
    number: int  # its place in the batch, from 1: how the model names it
    node_id: str  # GraphQL's, for resolving
    first_id: int  # its first comment's REST id, which replies go to
    path: str
    line: int | None  # the last line it is anchored to, in the head it was made on
    start_line: int | None  # the first, for a comment on several lines; else None
    diff_hunk: str
    comments: list[Said]
    hidden: Visible  # what of its comments no reader saw, counted

    @property
    def lines(self) -> tuple[int, int] | None:
        if self.line is None:
            return None
        return (self.start_line or self.line, self.line)

    @property
    def where(self) -> str:
        if not self.path:
            return "the pull request"
        span = self.lines
        if span is None:
            return self.path
        return f"{self.path}:{span[0]}" + (f"-{span[1]}" if span[1] != span[0] else "")


@dataclass(frozen=True)
class Batch:
    threads: list[Thread]
    left_out: list[str]  # why each of the review's other threads is not in it


def batch(forge: Forge, number: int, review_id: int) -> Batch:
    """The review's threads that are neither resolved nor outdated, in the order GitHub lists them."""
    ids = forge.call(f"list the comments of review {review_id}", lambda: review_comment_ids(forge, number, review_id))
    nodes = forge.call(f"read the review threads of #{number}", lambda: thread_nodes(forge, number))
    return kept(n for n in nodes if first_id(n) in ids)


def holding(forge: Forge, number: int, comment_id: int) -> Batch:
    """The one thread holding comment `comment_id` (a reply in it), unless resolved or outdated."""
    nodes = forge.call(f"read the review threads of #{number}", lambda: thread_nodes(forge, number))
    return kept(
        n for n in nodes if comment_id in {c.get("databaseId") for c in (n.get("comments") or {}).get("nodes") or []}
    )


def first_id(node: dict) -> int | None:
    comments = (node.get("comments") or {}).get("nodes") or []
    return comments[0].get("databaseId") if comments else None


def kept(nodes: Iterable[dict]) -> Batch:
    found: list[Thread] = []
    left_out: list[str] = []
    for node in nodes:
        comments = (node.get("comments") or {}).get("nodes") or []
        if not comments:
            continue
        path = str(node.get("path") or "")
        if node.get("isResolved"):
            left_out.append(f"{path}: resolved already")
            continue
        if node.get("isOutdated"):
            left_out.append(f"{path}: outdated (its lines changed since)")
            continue
        said, hidden = [], None
        for c in comments:
            shown = visible(str(c.get("body") or "").replace("\r\n", "\n"))
            hidden = shown if hidden is None else hidden + shown
            said.append(Said(int(c["databaseId"]), str((c.get("author") or {}).get("login") or "ghost"), shown.text))
        assert hidden is not None
        found.append(
            Thread(
                len(found) + 1,
                str(node["id"]),
                int(comments[0]["databaseId"]),
                path,
                node.get("line"),
                node.get("startLine") if node.get("startLine") != node.get("line") else None,
                str(comments[0].get("diffHunk") or ""),
                said,
                hidden,
            )  # fmt: skip
        )
    return Batch(found, left_out)


def unanchored(id: int, author: str, text: str, hidden: Visible) -> Thread:
    """A request on no file and no line (`/autofix <text>`, a red CI run) as the round's one thread:
    no review thread to reply on or resolve."""
    return Thread(1, "", id, "", None, None, "", [Said(id, author, text)], hidden)


def review_comment_ids(forge: Forge, number: int, review_id: int) -> set[int]:
    ids, page = set(), 1
    while True:
        listed = listing(forge, f"/pulls/{number}/reviews/{review_id}/comments", page)
        ids |= {int(c["id"]) for c in listed}
        if len(listed) < 100:
            return ids
        page += 1


def thread_nodes(forge: Forge, number: int) -> list[dict]:
    owner, name = forge.repository.split("/", 1)
    nodes: list[dict] = []
    after = None
    while True:
        data = graphql(forge, THREADS, {"owner": owner, "name": name, "number": number, "after": after})
        threads = data["data"]["repository"]["pullRequest"]["reviewThreads"]
        nodes += threads.get("nodes") or []
        page = threads.get("pageInfo") or {}
        if not page.get("hasNextPage"):
            return nodes
        after = page.get("endCursor")


def listing(forge: Forge, path: str, page: int) -> list[dict]:
    """One page of 100 of a list endpoint of the repository's."""
    return forge.rest("GET", f"{path}?per_page=100&page={page}")


def graphql(forge: Forge, query: str, variables: dict) -> dict:
    return forge.client().requester.graphql_query(query, variables)[1]


def reply(forge: Forge, number: int, thread: Thread, marker: str, body: str) -> None:
    """autofix's answer on the thread, once: a reply carrying `marker` already there (an answer
    lost on the way) is not posted again."""
    body = capped(f"{marker}\n{body}")

    def post() -> None:
        page = 1
        while True:
            listed = listing(forge, f"/pulls/{number}/comments", page)
            if any(c.get("in_reply_to_id") == thread.first_id and marker in (c.get("body") or "") for c in listed):
                return
            if len(listed) < 100:
                break
            page += 1
        forge.rest("POST", f"/pulls/{number}/comments/{thread.first_id}/replies", {"body": body})

    forge.call(f"reply on the thread at {thread.where}", post)


def resolve(forge: Forge, thread: Thread) -> None:
    forge.call(
        f"resolve the thread at {thread.where}",
        lambda: graphql(forge, RESOLVE, {"input": {"threadId": thread.node_id}}),
    )
