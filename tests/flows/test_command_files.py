"""What the test command runs is protected and never a target, and no reply adds a file Python or
pytest load on their own: end to end through `autofix action`, with real git, the fake GitHub,
the scripted model and the real sandbox (issues as in test_issue_gate.py, red CI as in
test_ci_repair.py)."""

import pytest
from action_world import REPO, act
from fake_openai import Reply
from suite_env import PYTHON as SUITE_PYTHON
from test_ci_repair import BROKEN_ADD, CALC, CONFIG, FIX_ADD, block, open_pull, run_event, world  # noqa: F401 - world: a fixture
from test_freeform import FIX, PASSES_ALREADY, REPRODUCES, shop  # noqa: F401 - shop: a fixture
from test_freeform import issue as freeform_issue
from test_issue_gate import TEST_UNIQUE, by

MAKEFILE = f"test:\n\t{SUITE_PYTHON} -m pytest -q tests/test_unique.py\n"


def make_repository(world) -> None:
    world.commit_to_origin(
        {".github/autofix.yml": "tests:\n  command: make test\nmax_attempts: 1\n", "Makefile": MAKEFILE,
         "tests/test_unique.py": TEST_UNIQUE}
    )  # fmt: skip


@pytest.mark.parametrize(
    ("target", "why"),
    [
        ("Makefile", "is protected: tests.command runs it or reads it as its configuration"),
        ("GNUmakefile", "is protected: tests.command runs it or reads it as its configuration"),  # read before it
        ("tests/test_unique.py", "is a protected path"),
    ],
)
def test_an_outsiders_issue_never_targets_what_the_test_command_runs(world, github, capsys, target, why):
    """The outsider's block sets no tests, only the target: the file `make test` runs, which would
    judge whatever autofix then writes into it."""
    make_repository(world)
    github.set_permission(REPO, "outsider", "read")
    world.event("issues", by("outsider", f"The order is lost.\n\n```yaml\ntarget: {target}\n```\n"))
    code, out, openai = act(capsys, world, [])
    assert code == 2 and openai.requests == []
    [comment] = github.comments(REPO, 1)
    assert f"issue #1, yaml block:1: target: {target} {why}" in comment.body
    assert world.branches() == ["master"] and github.pulls(REPO) == []


def test_a_writers_block_may_not_target_it_either(world, github, capsys):
    make_repository(world)
    world.event("issues", by("Codertocat", "```yaml\ntarget: Makefile\ntests:\n  command: make test\n```\n"))
    code, out, openai = act(capsys, world, [])
    assert code == 2 and openai.requests == []
    assert (
        "issue #1, yaml block:1: target: Makefile is protected: tests.command runs it or reads it as its configuration"
    ) in github.comments(REPO, 1)[0].body


def test_an_outsiders_files_are_ignored_like_its_tests(shop, github, capsys):
    """An outsider's `files:` would choose what the model reads and edits first, with no
    localization: the repository's map decides instead."""
    github.set_permission(REPO, "outsider", "read")
    event = freeform_issue("Hours count as minutes.\n\n```yaml\nfiles: [shop/mod_07.py]\n```\n")
    event["issue"]["user"]["login"] = "outsider"
    shop.event("issues", event)
    script = {"localize": [Reply("```\nshop/durations.py\n```")], "reproduce": [Reply(PASSES_ALREADY)] * 3}
    code, out, openai = act(capsys, shop, script)
    assert code == 1
    assert (
        f"autofix: issue #1: the yaml block's files were ignored: its author @outsider has read permission on {REPO}"
        in out
    )
    assert openai.stages() == ["localize", "reproduce", "reproduce", "reproduce"]  # the map, not the outsider, chose


ADDED = "a file that may not be added: {} (one the repository has may be edited); fix the code under test instead"
RUNNER = "it would be imported instead of {}, which the test runner imports"
FORGE = "import builtins\n"
METADATA = "distribution metadata or environment configuration, which Python and pytest read by looking"
OUTSIDE_PACKAGES = (
    "only a Python module inside one of the repository's packages (a folder with __init__.py), a "
    "JavaScript or TypeScript module in a folder below the root, or a Go file (not a test) in a folder "
    "of Go files is, unless `edit` in .github/autofix.yml names the file"
)  # what it holds never runs: the reply is refused before anything is written


# A conftest.py is protected by default (bot/spec.py): test_workspace.py shows the rule alone.
LOADED = {
    "sitecustomize.py": "Python imports sitecustomize on its own at start-up",
    "usercustomize.py": "Python imports usercustomize on its own at start-up",
    "zz_autofix.pth": "Python runs the import lines of a .pth file at start-up",
    "__pycache__/calc.cpython-311.pyc": "Python runs compiled bytecode instead of the source",
    "pytest.py": RUNNER.format("pytest"),
    "_pytest/__init__.py": RUNNER.format("_pytest"),
    "pluggy/__init__.py": RUNNER.format("pluggy"),
    "inspect.py": "it would be imported instead of the standard module inspect, from a folder that may be on sys.path",
    # #40: pytest loads a plugin from distribution metadata on sys.path by itself; what a change
    # may add is an allowlist (a module inside a package), so a top-level module is refused too.
    "speedups-1.0.dist-info/entry_points.txt": METADATA,
    "shop.egg-info/entry_points.txt": METADATA,
    "speedups_plugin.py": OUTSIDE_PACKAGES,
}


def test_a_red_ci_reply_never_adds_what_python_or_pytest_load_on_their_own(world, github, capsys):
    """The fix, and beside it a file the tests' Python would load before any test: each such
    reply is refused whole, the model told why, and the last reply's fix alone is proposed (one
    run of the flow, one refused reply per kind of file)."""
    world.commit_to_origin(
        {".github/autofix.yml": CONFIG.replace("max_attempts: 3", f"max_attempts: {len(LOADED) + 1}\nstrategy: repair")}
    )
    pull, run = open_pull(world, github, {"calc.py": BROKEN_ADD})
    world.event("workflow_run", run_event(github, pull, run))
    replies = [FIX_ADD + block(path, "", FORGE) for path in LOADED]
    code, out, openai = act(capsys, world, [*replies, FIX_ADD])
    assert code == 0, "\n".join(out)
    prompts = openai.prompts()
    for number, (path, problem) in enumerate(LOADED.items(), start=1):
        assert f"- block 2 ({path}): {ADDED.format(problem)}" in prompts[number]
        assert path not in world.git("ls-tree", "-r", "--name-only", "autofix/pr-2", cwd=world.origin).split()
    assert world.file_at("autofix/pr-2", "calc.py") == CALC


def test_a_red_ci_reply_never_edits_the_makefile_the_test_command_runs(world, github, capsys):
    """`make test`'s recipe runs before and after pytest, in the same sandbox: rewritten, it
    would report whatever it likes."""
    world.commit_to_origin(
        {".github/autofix.yml": "tests:\n  command: make test\nmax_attempts: 2\nstrategy: repair\n",
         "Makefile": f"test:\n\t{SUITE_PYTHON} -m pytest -q tests\n"}
    )  # fmt: skip
    pull, run = open_pull(world, github, {"calc.py": BROKEN_ADD})
    world.event("workflow_run", run_event(github, pull, run))
    forged = block(
        "Makefile", f"\t{SUITE_PYTHON} -m pytest -q tests\n", f"\t{SUITE_PYTHON} -m pytest -q tests || true\n"
    )
    code, out, openai = act(capsys, world, [forged, FIX_ADD])
    assert code == 0, "\n".join(out)
    assert (
        "- block 1 (Makefile): a protected path (tests and CI configuration can't be edited); "
        "fix the code under test instead"
    ) in openai.prompts()[-1]
    assert world.file_at("autofix/pr-2", "Makefile") == f"test:\n\t{SUITE_PYTHON} -m pytest -q tests\n"


def test_a_free_form_repair_never_edits_the_makefile_the_test_command_runs(shop, github, capsys):
    recipe = f"\t{SUITE_PYTHON} -m pytest -q tests\n"
    shop.commit_to_origin(
        {
            ".github/autofix.yml": "tests:\n  command: make test\nmax_attempts: 2\nstrategy: repair\n",
            "Makefile": f"test:\n{recipe}",
        }  # fmt: skip
    )
    shop.event("issues", freeform_issue())
    forged = block("Makefile", recipe, recipe.replace("tests\n", "tests || true\n"))
    script = {"localize": [Reply("```\nshop/durations.py\n```")], "reproduce": [Reply(REPRODUCES)]}
    script["repair"] = [Reply(forged), Reply(FIX)]
    code, out, openai = act(capsys, shop, script)
    assert code == 0, "\n".join(out)
    assert (
        "- block 1 (Makefile): a protected path (tests and CI configuration can't be edited); "
        "fix the code under test instead"
    ) in openai.prompts()[-1]
    assert shop.file_at("autofix/issue-1", "Makefile") == f"test:\n{recipe}"
