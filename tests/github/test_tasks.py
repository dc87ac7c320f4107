"""An issue's yaml block: which one counts, and what its author may set."""

from pathlib import Path

import pytest

from bot.errors import UserError
from bot.github.config import Config, RepoConfig
from bot.github.tasks import Issue, from_file, from_issue, visible_yaml_block
from bot.spec import DEFAULT_STRATEGY

BLOCK = "```yaml\ntarget: unique.py\n```\n"
GATE = "```yaml\ntarget: evil.py\ntests:\n  command: 'true'\n```\n"


def indented(text: str, prefix: str) -> str:
    return "".join(prefix + line + "\n" for line in text.splitlines())


@pytest.mark.parametrize(
    "body",
    [
        f"<!--\n{GATE}-->\n{BLOCK}",
        f"<!-- a template's note -->\nSteps:\n<!-- a hidden block:\n{GATE}\n-->\n{BLOCK}",
        f"- <!--\n{indented(GATE, '  ')}  -->\n\n{BLOCK}",  # in a list item
        f"> <!--\n{indented(GATE, '> ')}> -->\n\n{BLOCK}",  # in a quote
        f"<div><!--\n{GATE}-->\n</div>\n\n{BLOCK}",  # in raw HTML
        f"~~~markdown\n{GATE}~~~\n{BLOCK}",  # shown as text in another fence: no block
        f"```html\n<!-- a comment in code is only text\n```\n{BLOCK}",
    ],
)
def test_what_an_html_comment_hides_does_not_count(body):
    """GitHub shows none of the blocks setting `tests` in these bodies (checked with cmark-gfm)."""
    assert visible_yaml_block(body) == "target: unique.py\n"


def test_an_opened_comment_hides_what_follows_when_in_doubt():
    # GitHub shows this block, as the text `<!--` and a block; no block at all would be shown if
    # `<!--` opened a raw HTML line. The line isn't parsed that far: whatever follows counts as hidden.
    assert visible_yaml_block(f"Fix it. <!--\n{GATE}-->\n{BLOCK}") == "target: unique.py\n"
    assert visible_yaml_block(f"Fix it.\n<!--\n{GATE}{BLOCK}") is None  # never closed


def config(tmp_path: Path, inputs: dict | None = None, **repo) -> Config:
    base = Config(
        inputs=inputs or {}, event_name="issues", event_path=tmp_path / "event.json", repository="o/r",
        workspace=tmp_path, api_url="", server_url="", output=None, summary=None, temp=tmp_path,
    )  # fmt: skip
    return base.with_repo(RepoConfig.model_validate(repo))


def spec(config: Config, body: str, tests_from_block: bool):
    return from_issue(config, Issue.read(7, "Fix unique_items", body), tests_from_block)


BLOCK_WITH_GATE = "```yaml\ntarget: unique.py\ntests:\n  command: 'true'\n  protect: [data]\nmax_attempts: 50\n```\n"


def test_the_tests_of_an_author_without_write_access_are_ignored(tmp_path):
    repo = config(tmp_path, tests={"command": "make test", "protect": ["golden.json"]}, max_attempts=2)
    ignored = spec(repo, BLOCK_WITH_GATE, tests_from_block=False)
    assert (ignored.tests.command, ignored.tests.protect, ignored.max_attempts) == ("make test", ["golden.json"], 2)
    honoured = spec(repo, BLOCK_WITH_GATE, tests_from_block=True)
    assert (honoured.tests.command, honoured.tests.protect, honoured.max_attempts) == (
        "true",
        ["golden.json", "data"],
        2,
    )


@pytest.mark.parametrize(
    "repo, inputs, block, attempts",
    [
        ({}, {}, "max_attempts: 50", 3),
        ({"max_attempts": 5}, {}, "max_attempts: 2", 2),
        ({"max_attempts": 5}, {"max-attempts": "4"}, "max_attempts: 9", 4),
        ({"max_attempts": 5}, {}, "", 5),
    ],
)
def test_an_issue_can_only_lower_the_attempts(tmp_path, repo, inputs, block, attempts):
    body = f"```yaml\ntarget: unique.py\n{block}\n```\n"
    assert (
        spec(config(tmp_path, inputs, tests={"command": "make test"}, **repo), body, tests_from_block=True).max_attempts
        == attempts
    )


def test_ignored_tests_and_none_in_the_repository_say_so(tmp_path):
    with pytest.raises(UserError) as error:
        spec(config(tmp_path), BLOCK_WITH_GATE, tests_from_block=False)
    assert str(error.value) == (
        "issue #7: no tests: a yaml block's tests count only when the issue's author may write to the repository, "
        "and .github/autofix.yml sets no tests.command"
    )


def test_an_issue_can_ask_for_edits_to_its_existing_target(tmp_path):
    (tmp_path / "unique.py").write_text("def unique_items(items):\n    return items\n")
    repo = config(tmp_path, tests={"command": "make test"})
    assert spec(repo, "```yaml\ntarget: unique.py\nmode: edit\n```\n", tests_from_block=False).mode == "edit"
    assert spec(repo, "```yaml\ntarget: unique.py\n```\n", tests_from_block=False).mode == "auto"
    with pytest.raises(UserError, match="mode: edit changes an existing target, and new.py does not exist"):
        spec(repo, "```yaml\ntarget: new.py\nmode: edit\n```\n", tests_from_block=False)


def test_the_strength_input_wins_over_a_spec_file_and_an_issue_can_not_set_it(tmp_path):
    repo, gated = config(tmp_path, tests={"command": "make test"}), config(tmp_path, {"strength": "gate"})
    assert spec(repo, BLOCK, tests_from_block=False).strength == "report"
    assert spec(gated.with_repo(repo.repo), BLOCK, tests_from_block=False).strength == "gate"
    with pytest.raises(UserError) as error:  # the block is anyone's: it can't turn the gate off
        spec(gated.with_repo(repo.repo), "```yaml\ntarget: unique.py\nstrength: off\n```\n", tests_from_block=True)
    assert str(error.value) == "issue #7, yaml block:2: strength: unknown key"
    (tmp_path / "task.yml").write_text("task: t\ntarget: unique.py\ntests:\n  code: assert True\nstrength: 'off'\n")
    assert from_file(repo, "task.yml").strength == "off"
    assert from_file(gated, "task.yml").strength == "gate"


def test_a_spec_files_sql_and_json_schema_tests_survive_the_repositorys_protect_list(tmp_path):
    (tmp_path / "shop.sql").write_text("CREATE TABLE t (a INT);")
    (tmp_path / "schema.json").write_text('{"type": "object"}')
    (tmp_path / "q.yml").write_text("task: t\ntarget: q.sql\ntests:\n  sql:\n    schema: shop.sql\n    expect: [[1]]\n")
    (tmp_path / "c.yml").write_text("task: t\ntarget: c.json\ntests:\n  json_schema: schema.json\n")
    repo = config(tmp_path, tests={"protect": ["golden.json"]})
    query = from_file(repo, "q.yml")
    assert (query.tests.sql.ddl if query.tests.sql else None, query.tests.protect) == ("shop.sql", ["golden.json"])
    assert from_file(repo, "c.yml").tests.json_schema == "schema.json"


def test_an_outsiders_block_targets_a_source_file_only(tmp_path):
    (tmp_path / "bin").mkdir()
    repo = config(tmp_path, tests={"command": "make test"})
    body = "Fix it.\n\n```yaml\nmax_attempts: 1\ntarget: bin/release\n```\n"
    assert spec(repo, body, tests_from_block=True).target == "bin/release"  # a writer's block: honoured
    with pytest.raises(UserError) as caught:
        spec(repo, body, tests_from_block=False)
    assert str(caught.value) == (
        "issue #7, yaml block:2: target: bin/release is not a source file (.py, .json, .yaml, .yml, .sql, .js, "
        ".mjs, .cjs, .jsx, .ts, .mts, .cts, .tsx, .go); an issue whose author may not write to the repository targets "
        "code only"
    )
    assert spec(repo, body.replace("bin/release", "bin/release.py"), tests_from_block=False).target == "bin/release.py"


@pytest.mark.parametrize("writer", [True, False])
def test_no_block_targets_what_the_test_command_runs(tmp_path, writer):
    (tmp_path / "Makefile").write_text("test:\n\tpython ci/runner.py\n")
    (tmp_path / "ci").mkdir()
    repo = config(tmp_path, tests={"command": "make test"})
    for target in ("Makefile", "ci/runner.py"):
        with pytest.raises(UserError) as caught:
            spec(repo, f"```yaml\ntarget: {target}\n```\n", tests_from_block=writer)
        assert str(caught.value) == (
            f"issue #7, yaml block:1: target: {target} is protected: tests.command runs it or reads it as its "
            "configuration"
        )


def test_the_config_s_strategy_is_the_default_of_every_spec_and_a_spec_file_s_own_wins(tmp_path):
    resampling = config(tmp_path, tests={"command": "make test"}, strategy="resample")
    assert spec(resampling, BLOCK, tests_from_block=False).strategy == "resample"
    assert spec(config(tmp_path, tests={"command": "make test"}), BLOCK, tests_from_block=False).strategy == (
        DEFAULT_STRATEGY
    )
    (tmp_path / "task.yml").write_text("task: t\ntarget: unique.py\ntests:\n  code: assert True\n")
    assert from_file(resampling, "task.yml").strategy == "resample"
    (tmp_path / "own.yml").write_text("task: t\ntarget: unique.py\ntests:\n  code: assert True\nstrategy: repair\n")
    assert from_file(resampling, "own.yml").strategy == "repair"
    with pytest.raises(UserError) as error:  # the block is anyone's: the repository's config decides
        spec(resampling, "```yaml\ntarget: unique.py\nstrategy: repair\n```\n", tests_from_block=True)
    assert str(error.value) == "issue #7, yaml block:2: strategy: unknown key"
