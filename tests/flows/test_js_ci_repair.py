"""Red CI repair of a JavaScript repository through `autofix action`: a pull request breaks a
function, its Jest suite fails in CI; autofix runs the suite in its sandbox (Jest started by
autofix, twins of the suite's tests planted), fixes the code with edit blocks and proposes the
fix. Real PyGithub against the fake GitHub, real git, the real sandbox, real Jest."""

import json

import pytest
from action_world import REPO, World, act
from test_ci_repair import open_pull, run_event
from test_js_spec import BROKEN, FIXED, TESTS

# A mutant of the fix may loop for ever: the suite is given 20 s, not the default minutes.
CONFIG = "tests:\n  command: npm test\nmax_attempts: 2\ntimeout: 20\n"
JOB_LOG = (
    "2024-05-01T10:00:00.0000000Z FAIL test/chunk.test.js\n"
    "2024-05-01T10:00:00.0000000Z   ● chunk › splits into pairs\n"
    "2024-05-01T10:00:01.0000000Z ##[error]Process completed with exit code 1.\n"
)
FIX = (
    "The loop stepped one item too far.\n\nsrc/chunk.js\n```javascript\n<<<<<<< SEARCH\n"
    "  for (let i = 0; i < items.length; i += size + 1) {\n=======\n"
    "  for (let i = 0; i < items.length; i += size) {\n>>>>>>> REPLACE\n```\n"
)


@pytest.fixture
def world(tmp_path, monkeypatch, github, node_modules):
    world = World(tmp_path, monkeypatch, github)
    world.commit_to_origin(
        {
            "src/chunk.js": FIXED,
            "test/chunk.test.js": TESTS,
            "package.json": json.dumps({"name": "p", "scripts": {"test": "jest"}}),
            ".gitignore": "node_modules\n",
            ".github/autofix.yml": CONFIG,
        }
    )
    (world.workspace / "node_modules").symlink_to(node_modules)  # the workflow's `npm ci`, before autofix
    return world


def test_a_pull_request_that_breaks_a_javascript_function_gets_a_fix(world, github, capsys):
    pull, run = open_pull(world, github, {"src/chunk.js": BROKEN})
    world.event("workflow_run", run_event(github, pull, run))
    code, out, _ = act(capsys, world, [FIX])
    assert code == 0, "\n".join(out)
    assert "autofix: baseline: 3 tests, 2 failing in both runs" in out
    assert world.file_at("autofix/pr-2", "src/chunk.js") == FIXED
    fix = github.pull(REPO, 3)
    assert (
        "before the change, 2 failing (`test/chunk.test.js::chunk > one per chunk`, "
        "`test/chunk.test.js::chunk > splits into pairs`); after it, 0 of them still failing, 0 new failures"
    ) in fix.body
    # The proof's mutants are the fixed line's, judged by Jest like the fix.
    assert "**Test strength** (mutants of the code autofix wrote): tests killed 3 of 3 mutants" in fix.body
    # The logs show the suite's own tests, never the twins' code.
    assert "})(); expect(" not in "\n".join(out)
