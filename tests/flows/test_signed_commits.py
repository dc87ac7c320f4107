"""`sign-commits: true`: the fix's commit is made through GitHub's REST git database, which signs a
bot's commit, and not pushed. The fake GitHub keeps its own git database (fake_git.py), reading
what was pushed from the world's bare `origin`: a branch made through the API is on GitHub and
not in `origin`, so a push that happened would show there."""

import os

import pytest
from action_world import FAST, REPO, TOKEN, act, labeled
from conftest import RIGHT
from test_action import OTHER_RIGHT, RIGHT_CODE

from bot.github.forge import Forge
from bot.github.git import Git
from bot.github.signed import SignedBranch
from bot.redact import Redactor

BRANCH = "autofix/issue-1"


@pytest.fixture
def signing(world, github):
    world.input("sign-commits", "true")
    github.repo(REPO).git.pushed = world.origin  # GitHub holds what was pushed
    return world


def git_writes(github):
    return [(r.method, r.path.removeprefix(f"/repos/{REPO}")) for r in github.writes() if "/git/" in r.path]


def test_the_fix_is_committed_through_the_api_signed_and_not_pushed(signing, github, capsys):
    world = signing
    world.event("issues", labeled())
    code, out, _ = act(capsys, world, [RIGHT])
    assert code == 0, "\n".join(out)
    assert f"autofix: committed {BRANCH} through GitHub's API" in out
    assert not any(line.startswith("::warning::") for line in out)
    assert world.branches() == ["master"]  # nothing was pushed to origin
    assert git_writes(github) == [
        ("POST", "/git/blobs"), ("POST", "/git/trees"), ("POST", "/git/commits"), ("POST", "/git/refs"),
    ]  # fmt: skip

    repo = github.client(token=TOKEN).get_repo(REPO)
    sha = repo.get_git_ref(f"heads/{BRANCH}").object.sha
    commit = repo.get_git_commit(sha)
    assert commit.raw_data["verification"]["verified"] is True
    assert [p.sha for p in commit.parents] == [world.show("master")]
    assert commit.message == "autofix: write unique.py for #1\n\nFixes #1\n"
    master = {e.path: e.sha for e in repo.get_git_tree(world.show("master", "%T"), recursive=True).tree}
    fixed = {e.path: e.sha for e in repo.get_git_tree(commit.tree.sha, recursive=True).tree}
    assert sorted(path for path in fixed.keys() | master.keys() if fixed.get(path) != master.get(path)) == ["unique.py"]
    assert repo.get_git_blob(fixed["unique.py"]).content  # base64 of the file
    assert github.repo(REPO).git.get(fixed["unique.py"]) == ("blob", RIGHT_CODE.encode())
    [pull] = github.pulls(REPO)
    assert (pull.head_ref, pull.head_sha) == (BRANCH, sha)


def test_a_re_run_leaves_the_same_fix_and_moves_the_branch_onto_a_new_base(signing, github, capsys):
    world = signing
    world.event("issues", labeled())
    assert act(capsys, world, [RIGHT])[0] == 0
    first = github.repo(REPO).branches[BRANCH]

    github.clear_requests()
    world.checkout()
    code, out, _ = act(capsys, world, [RIGHT])
    assert code == 0 and out[-1] == f"autofix: {BRANCH} already holds this code; pull request #2 left as it is"
    assert git_writes(github) == [] and github.repo(REPO).branches[BRANCH] == first

    world.commit_to_origin({"NOTES.md": "master moved on\n"})
    code, out, _ = act(capsys, world, [OTHER_RIGHT])
    assert code == 0, "\n".join(out)
    moved = [r for r in github.writes() if r.method == "PATCH" and "/git/refs/" in r.path]
    assert [(r.path, r.json["force"], r.status) for r in moved] == [
        (f"/repos/{REPO}/git/refs/heads/{BRANCH}", True, 200)
    ]
    repo = github.client(token=TOKEN).get_repo(REPO)
    commit = repo.get_git_commit(github.repo(REPO).branches[BRANCH])
    assert [p.sha for p in commit.parents] == [world.show("master")]  # rebuilt on the new master
    assert world.branches() == ["master"]


def test_a_personal_access_token_s_commit_is_not_signed_and_the_log_says_so(signing, github, capsys):
    github.login = "octocat"  # a personal access token acts as its person
    signing.event("issues", labeled())
    code, out, _ = act(capsys, signing, [RIGHT])
    assert code == 0 and f"autofix: committed {BRANCH} through GitHub's API" in out, "\n".join(out)
    assert [line for line in out if line.startswith("::warning::")] == [
        f"::warning::sign-commits: GitHub did not sign the commit on {BRANCH} (unsigned); it signs only a GitHub "
        "App's or GITHUB_TOKEN's commits, not a personal access token's"
    ]


def test_a_tree_that_is_not_the_fix_s_moves_no_branch(signing, github, capsys):
    github.fail_next("POST", r"/git/trees$", 201, {"sha": "1" * 40, "url": "", "tree": [], "truncated": False})
    signing.event("issues", labeled())
    code, out, _ = act(capsys, signing, [RIGHT])
    assert code == 2
    [error] = [line for line in out if line.startswith("::error::")]
    assert error.startswith(
        f"::error::GitHub API: the tree GitHub built for {BRANCH} (111111111111) is not the fix's ("
    )
    assert error.endswith("); nothing was pushed")
    assert BRANCH not in github.repo(REPO).branches and github.pulls(REPO) == []
    assert [m for m, _ in git_writes(github)] == ["POST", "POST"]  # the blob and the tree, no commit, no ref


def test_without_sign_commits_the_branch_is_pushed(world, github, capsys):
    world.event("issues", labeled())
    assert act(capsys, world, [RIGHT])[0] == 0
    assert world.branches() == [BRANCH, "master"] and git_writes(github) == []


def test_every_kind_of_change_is_made_again_with_the_tree_git_built(world, github):
    """Changed, added, removed, executable, linked and binary files, in folders: GitHub's tree is
    git's, so the commit is exactly the one that was judged."""
    github.repo(REPO).git.pushed = world.origin
    world.commit_to_origin({"lib/old.py": "x = 1\n", "lib/keep.py": "y = 2\n", "run.sh": "#!/bin/sh\n"})
    work = world.workspace
    (work / "lib" / "old.py").unlink()
    (work / "lib" / "keep.py").write_text("y = 3\n")
    (work / "run.sh").chmod(0o755)
    (work / "new" / "deep").mkdir(parents=True)
    (work / "new" / "deep" / "data.bin").write_bytes(b"\x00\xff\xfe binary\n")
    os.symlink("../lib/keep.py", work / "new" / "link.py")
    git = Git(work, github.web_url, None, Redactor([]))
    paths = ["lib/old.py", "lib/keep.py", "run.sh", "new/deep/data.bin", "new/link.py"]
    commit, tree = git.commit(paths, "many changes\n")
    forge = Forge(github.api_url, TOKEN, REPO, FAST)
    assert SignedBranch(forge, git).push(commit, "autofix/many", None) is None  # signed
    sha = github.repo(REPO).branches["autofix/many"]
    made = github.repo(REPO).git.read_commit(sha)
    assert made is not None and (made.tree, made.parents, made.message) == (
        tree,
        [world.show("master")],
        "many changes\n",
    )
    assert SignedBranch(forge, git).remote_branch("autofix/many") == (sha, tree)


def test_a_branch_made_whose_answer_was_lost_is_found_not_made_twice(signing, github, capsys):
    github.truncate_next("POST", r"/git/refs$")  # made, but the answer is cut
    signing.event("issues", labeled())
    code, out, _ = act(capsys, signing, [RIGHT])
    assert code == 0, "\n".join(out)
    assert [r.status for r in github.writes() if r.path.endswith("/git/refs")] == [201]
    [pull] = github.pulls(REPO)
    assert pull.head_sha == github.repo(REPO).branches[BRANCH]
