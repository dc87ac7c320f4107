"""A review on autofix's own pull request (the `pull_request_review` `submitted` event, from the
recorded payload; the fake GitHub holding the review's threads): one batch, one proven commit on
autofix's branch, a reply on every thread, the addressed ones resolved, one summary comment. An
outsider's review, a bot's review that doesn't mention autofix and a fork's pull request start
nothing."""

import gfm
import pytest
from action_world import REPO, World, act, payload
from fake_openai import Reply
from suite_env import PYTHON as SUITE_PYTHON

CALC = "def add(a, b):\n    return a + b\n\n\ndef total(items):\n    return sum(items)\n"
TEXT = 'def shout(words):\n    return words.upper() + "!"\n'
TESTS = (
    "from calc import add, total\nfrom text import shout\n\n\n"
    "def test_add():\n    assert add(2, 3) == 5\n\n\n"
    "def test_total():\n    assert total([1, 2]) == 3\n\n\n"
    'def test_shout():\n    assert shout("hi") == "HI!"\n'
)
CONFIG = f"tests:\n  command: {SUITE_PYTHON} -m pytest -q tests\nmax_attempts: 2\n"
BRANCH = "autofix/issue-1"
HUNK = '@@ -1,2 +1,2 @@\n def shout(words):\n-    return words.upper()\n+    return words.upper() + "!"'
BEHAVIOUR = "shout(None) should return an empty string instead of raising."
SUGGESTION = "Annotate it:\n\n```suggestion\ndef add(a: int, b: int) -> int:\n```"
IMPOSSIBLE = "Please rewrite total() in Rust."
REPRODUCES = "```python\nfrom text import shout\n\n\ndef test_shout_none():\n    assert shout(None) == ''\n```"
ANSWER = (
    "text.py\n```python\n<<<<<<< SEARCH\ndef shout(words):\n=======\n"
    'def shout(words):\n    if words is None:\n        return ""\n'
    ">>>>>>> REPLACE\n```\n\nthread 1: done\nthread 2: done\n"
    "thread 3: not done: this repository is Python and its suite can't judge Rust code\n"
)


@pytest.fixture
def world(tmp_path, monkeypatch, github):
    world = World(tmp_path, monkeypatch, github)
    before = {
        "text.py": "def shout(words):\n    return words.upper()\n",
        "tests/test_all.py": TESTS.replace(' + "!"', ""),
    }
    world.commit_to_origin({"calc.py": CALC, ".github/autofix.yml": CONFIG, **before})
    return world


def autofix_pull(world, github, fork=False):
    """autofix's pull request: its branch on origin, its marker in the body."""
    seed = world.seed
    world.git("checkout", "--quiet", "-B", BRANCH, "origin/master", cwd=seed)
    (seed / "text.py").write_text(TEXT)
    (seed / "tests/test_all.py").write_text(TESTS)
    world.git("commit", "--quiet", "-am", "autofix: shout", cwd=seed)
    sha = world.git("rev-parse", "HEAD", cwd=seed)
    world.git("push", "--quiet", "origin", BRANCH, cwd=seed)
    world.git("checkout", "--quiet", "master", cwd=seed)
    if fork:
        github.add_repo("contributor/Hello-World", default_branch="master", fork=True)
        github.add_branch("contributor/Hello-World", BRANCH, sha=sha)
    else:
        github.add_branch(REPO, BRANCH, sha=sha)
    head = f"contributor:{BRANCH}" if fork else BRANCH
    body = "<!-- autofix:issue-1 -->\n\n✅ autofix fixed issue #1"
    return github.add_pull(REPO, head=head, base="master", title="Fix shout", body=body, user="github-actions[bot]")


def reviewed(github, pull, user="Codertocat", state="CHANGES_REQUESTED", body="A few things", comments=None):
    comments = comments or [
        {"path": "text.py", "line": 2, "body": BEHAVIOUR, "diff_hunk": HUNK},
        {"path": "calc.py", "line": 1, "body": SUGGESTION},
        {"path": "calc.py", "line": 5, "body": IMPOSSIBLE},
    ]
    return github.add_review(REPO, pull.number, user=user, state=state, body=body, comments=comments)


def review_event(github, pull, review, bot=False):
    """The recorded `pull_request_review` `submitted` payload, made this review of `pull`."""
    event = payload("pull_request_review.submitted.changes-requested")
    event["review"].update(id=review.id, state=review.state.lower(), body=review.body, commit_id=pull.head_sha)
    event["review"]["user"].update(login=review.user, type="Bot" if bot else "User")
    event["sender"].update(login=review.user, type="Bot" if bot else "User")
    p = event["pull_request"]
    p.update(number=pull.number, body=pull.body, title=pull.title, user={"login": pull.user, "type": "Bot"})
    p["head"].update(ref=pull.head_ref, sha=pull.head_sha)
    p["head"]["repo"].update(full_name=pull.head_repo, name=pull.head_repo.split("/")[1])
    p["base"]["repo"].update(full_name=REPO)
    event["repository"].update(full_name=REPO)
    return event


def test_a_review_of_three_threads_gets_one_commit_two_resolved_threads_and_one_left_open(world, github, capsys):
    pull = autofix_pull(world, github)
    review = reviewed(github, pull)
    world.event("pull_request_review", review_event(github, pull, review))
    code, out, openai = act(capsys, world, {"reproduce": [Reply(REPRODUCES)], "review": [Reply(ANSWER)]})
    assert code == 0, "\n".join(out)
    assert openai.stages() == ["reproduce", "review"]
    asked = openai.prompts()[1]
    assert BEHAVIOUR in asked and IMPOSSIBLE in asked and "Thread 1, on text.py:2" in asked
    assert "```suggestion" not in asked  # the suggestion is applied as written, not asked of the model
    # One commit on autofix's own branch, on top of its head: no second pull request, no force.
    assert [p.number for p in github.pulls(REPO)] == [pull.number]
    head = world.show(BRANCH)
    assert world.show(f"{BRANCH}^") == pull.head_sha
    assert world.file_at(BRANCH, "calc.py").startswith("def add(a: int, b: int) -> int:\n    return a + b\n")
    assert 'if words is None:\n        return ""' in world.file_at(BRANCH, "text.py")
    assert "def test_shout_none" in world.file_at(BRANCH, f"tests/autofix/test_review_{review.id}.py")
    # Each thread answered; the two addressed resolved with the evidence, the third open with its reason.
    behaviour, suggestion, impossible = github.review_threads(REPO, pull.number)
    assert [t.resolved for t in (behaviour, suggestion, impossible)] == [True, True, False]
    replies = {t.id: github.review_comments_by_id[t.comments[-1]].body for t in (behaviour, suggestion, impossible)}
    assert all(len(t.comments) == 2 for t in (behaviour, suggestion, impossible))
    evidence = (
        f"**Evidence:** the whole suite (`{SUITE_PYTHON} -m pytest -q tests`) in autofix's sandbox: 4 passed, "
        f"0 new failures; `tests/autofix/test_review_{review.id}.py` "
        f"(`tests.autofix.test_review_{review.id}::test_shout_none`) failed before, passes after."
    )
    assert f"✅ Addressed in {head}: changed `calc.py`, `text.py`.\n\n{evidence}" in replies[behaviour.id]
    assert f"✅ Addressed in {head}: the suggestion applied to `calc.py:1`.\n\n{evidence}" in replies[suggestion.id]
    assert replies[impossible.id].endswith(
        f"❌ Not addressed in {head}: the model says: `this repository is Python and its suite can't judge Rust code`. "
        "This thread stays open."
    )
    [summary] = github.comments(REPO, pull.number)
    assert summary.body.startswith(
        f"<!-- autofix:review-{review.id} -->\n\n✅ autofix answered review {review.id} by @Codertocat with "
        f"{head[:12]}: 2 of 3 threads addressed; the 4 tests of `{SUITE_PYTHON} -m pytest -q tests` passed on "
        "attempt 1 of 2."
    )
    assert (
        "| 3 | `calc.py:5` | ❌ the model says: `this repository is Python and its suite can't judge Rust code` |"
        in (summary.body)
    )


def test_a_review_round_samples_afresh_with_the_suggestions_kept(world, github, capsys):
    """With a spec's default strategy (resample) the second answer is a fresh sample of the round's
    first prompt, on the tree before any answer: the suggestion, applied before the loop, stays."""
    pull = autofix_pull(world, github)
    review = reviewed(github, pull)
    world.event("pull_request_review", review_event(github, pull, review))
    breaks_total = "calc.py\n<<<<<<< SEARCH\n    return sum(items)\n=======\n    return 0\n>>>>>>> REPLACE\n"
    script = {"reproduce": [Reply(REPRODUCES)], "review": [Reply(breaks_total), Reply(ANSWER)]}
    code, out, openai = act(capsys, world, script)
    assert code == 0, "\n".join(out)
    first, second = [p for p, stage in zip(openai.prompts(), openai.stages(), strict=True) if stage == "review"]
    assert second == first
    calc = world.file_at(pull.head_ref, "calc.py")
    assert calc.startswith("def add(a: int, b: int) -> int:\n") and "return sum(items)" in calc


def test_resolve_threads_false_leaves_resolving_to_the_reviewer(world, github, capsys):
    world.commit_to_origin({".github/autofix.yml": CONFIG + "resolve_threads: false\n"})
    pull = autofix_pull(world, github)
    review = reviewed(github, pull, comments=[{"path": "calc.py", "line": 1, "body": SUGGESTION}])
    world.event("pull_request_review", review_event(github, pull, review))
    code, out, openai = act(capsys, world, [])
    assert code == 0, "\n".join(out)
    assert openai.prompts() == []  # a suggestion alone: no model call
    [thread] = github.review_threads(REPO, pull.number)
    assert not thread.resolved and "✅ Addressed in" in github.review_comments_by_id[thread.comments[-1]].body
    assert world.file_at(BRANCH, "calc.py").startswith("def add(a: int, b: int) -> int:\n")
    [summary] = github.comments(REPO, pull.number)
    assert gfm.read(summary.body).first() == (
        f"✅ autofix answered review {review.id} by @Codertocat with {world.show(BRANCH)[:12]}: 1 of 1 thread "
        f"addressed; the 3 tests of {SUITE_PYTHON} -m pytest -q tests passed with no model call."
    )


def untouched(world, github, pull, out, openai, why):
    assert why in "\n".join(out)
    assert openai.prompts() == []
    assert world.show(BRANCH) == pull.head_sha
    assert github.comments(REPO, pull.number) == []
    assert all(len(t.comments) == 1 and not t.resolved for t in github.review_threads(REPO, pull.number))
    assert not [r for r in github.writes() if "/comments" in r.path or r.path == "/graphql"]


def test_an_outsiders_review_starts_nothing(world, github, capsys):
    pull = autofix_pull(world, github)
    review = reviewed(github, pull, user="a-reader")
    world.event("pull_request_review", review_event(github, pull, review))
    code, out, openai = act(capsys, world, [])
    assert code == 0
    untouched(world, github, pull, out, openai, "ignored: @a-reader has read permission on Codertocat/Hello-World")


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ("Looks risky to me.", "ignored: a review by the bot @review-bot[bot] that doesn't mention autofix"),
        ("@autofix please look", "ignored: the bot @review-bot[bot] has read permission on Codertocat/Hello-World"),
    ],
)
def test_a_bots_review_starts_nothing_unless_it_mentions_autofix_and_may_write(world, github, capsys, body, why):
    pull = autofix_pull(world, github)
    review = reviewed(github, pull, user="review-bot[bot]", body=body)
    world.event("pull_request_review", review_event(github, pull, review, bot=True))
    code, out, openai = act(capsys, world, [])
    assert code == 0
    untouched(world, github, pull, out, openai, why)


def test_a_forks_pull_request_starts_nothing(world, github, capsys):
    pull = autofix_pull(world, github, fork=True)
    review = reviewed(github, pull)
    world.event("pull_request_review", review_event(github, pull, review))
    code, out, openai = act(capsys, world, [])
    assert code == 0
    untouched(
        world,
        github,
        pull,
        out,
        openai,
        f"ignored: pull request #{pull.number} comes from the fork contributor/Hello-World",
    )
