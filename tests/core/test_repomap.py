"""bot/core/repomap.py: which files an issue is about, on real trees written to tmp_path."""

from __future__ import annotations

import os
import time
from pathlib import Path

from bot.core.repomap import (
    MAX_FILE_BYTES,
    Frame,
    Mentions,
    RepoMap,
    Symbol,
    estimated_tokens,
    mentions,
    pagerank,
    rank,
    render,
)

NOTHING = Mentions({}, {}, ())
DAMPING = 0.85


def write(root: Path, files: dict[str, str | bytes]) -> Path:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    return root


def order(ranked: list[tuple[str, float]]) -> list[str]:
    return [path for path, _ in ranked]


def durations_package(root: Path) -> Path:
    """60 modules in a ring of helpers, all of them scheduling through pkg/scheduler.py, which
    (like two more modules) calls parse_duration from pkg/durations.py."""
    files: dict[str, str | bytes] = {"pkg/__init__.py": ""}
    for number in range(60):
        files[f"pkg/mod_{number:02}.py"] = (
            "from pkg.scheduler import run_every\n"
            f"from pkg.mod_{(number + 1) % 60:02} import helper_{(number + 1) % 60:02}\n\n\n"
            f"def helper_{number:02}(job):\n"
            f"    return run_every(helper_{(number + 1) % 60:02}(job))\n"
        )
    helpers = "\n".join(f"from pkg.mod_{number:02} import helper_{number:02}" for number in range(60))
    files["pkg/scheduler.py"] = (
        f"from pkg.durations import parse_duration\n{helpers}\n\n\n"
        "def run_every(every):\n"
        "    return parse_duration(every)\n\n\n"
        f"ALL = [{', '.join(f'helper_{number:02}' for number in range(60))}]\n"
    )
    files["pkg/durations.py"] = (
        "UNITS = {'h': 3600, 'm': 60, 's': 1}\n\n\n"
        "def parse_duration(text):\n"
        '    """Seconds in a duration like 1h30m."""\n'
        "    return sum(UNITS[unit] for unit in text)\n"
    )
    files["pkg/timers.py"] = "from pkg.durations import parse_duration\n\nTIMEOUT = parse_duration('30s')\n"
    files["pkg/cli.py"] = (
        "import pkg.durations\n\n\ndef main(argv):\n    return pkg.durations.parse_duration(argv[1])\n"
    )
    return write(root, files)


def test_the_module_defining_the_function_an_issue_names_ranks_first(tmp_path):
    repo = RepoMap.build(durations_package(tmp_path))
    assert len(repo.files) == 65
    issue = mentions("`parse_duration('1h30m')` returns 90 seconds instead of 5400")
    assert issue.identifiers == {"parse_duration": 2.0}

    ranked = rank(repo, issue)

    # The callers spell the name too: the definer leads them, then the scheduler, which keeps some
    # of the rank its 60 users give it; they all lead the rest.
    assert order(ranked)[:4] == ["pkg/durations.py", "pkg/scheduler.py", "pkg/cli.py", "pkg/timers.py"]
    scores = dict(ranked)
    assert scores["pkg/durations.py"] > 0.5 and scores["pkg/scheduler.py"] > 10 * scores["pkg/cli.py"] > 0
    # Without the issue, the scheduler everything uses would lead, the definer far behind it.
    plain = order(rank(repo, NOTHING))
    assert plain[0] == "pkg/scheduler.py" and plain.index("pkg/durations.py") > 1


def test_the_links_count_uses_of_names_shared_among_their_definers(tmp_path):
    root = write(
        tmp_path,
        {
            "user.py": "from b import helper\nimport c\n\nhelper(helper(helper()))\nc.shared()\nprint(own)\nown = 1\n",
            "b.py": "def helper():\n    pass\n\n\ndef shared():\n    pass\n",
            "c.py": "class Thing:\n    def shared(self):\n        pass\n",
        },
    )
    repo = RepoMap.build(root)
    assert repo.files["b.py"].defines == {"b", "helper", "shared"}
    assert repo.files["c.py"].defines == {"c", "Thing", "shared"}
    # b.py: `b` and `helper` imported, helper called 3 times, half of the one `shared` call.
    # c.py: `c` imported and used, the other half of `shared`. Its own `own` links nowhere.
    assert repo.links == {"user.py": {"b.py": 5.5, "c.py": 2.5}}


def test_a_traceback_frame_puts_its_file_first_even_when_no_identifier_matches(tmp_path):
    files: dict[str, str | bytes] = {f"app/page_{number}.py": "from app.base import Base\n" for number in range(10)}
    files["app/base.py"] = "class Base:\n    pass\n"
    files["app/main.py"] = "import app.util.strings\n"
    files["app/util/strings.py"] = "def split(text):\n    return 1 / 0\n"
    root = write(tmp_path, files)
    repo = RepoMap.build(root)
    issue = mentions(
        "Every `Base` page crashes:\n\nTraceback (most recent call last):\n"
        f'  File "{root}/app/main.py", line 1, in <module>\n'
        '  File "app/util/strings.py", line 2, in <lambda>\n'
        "ZeroDivisionError: division by zero\n"
    )
    assert issue.identifiers == {"Base": 2.0}

    ranked = order(rank(repo, issue))

    # The innermost frame first; then the files spelling Base, the one defining it first.
    assert ranked[:3] == ["app/util/strings.py", "app/main.py", "app/base.py"]
    assert order(rank(repo, NOTHING))[0] == "app/base.py"


def test_frames_outside_the_root_are_ignored(tmp_path):
    root = write(
        tmp_path / "repo",
        {
            "decoder.py": "def decode(text):\n    return text\n",
            "codec/decoder.py": "from decoder import decode\n",
            "app.py": "from codec.decoder import decode\n",
            "pkg/mod.py": "def helper_mod():\n    pass\n",
            "pkg/uses.py": "from pkg.mod import helper_mod\n\nhelper_mod()\n",
        },
    )
    write(tmp_path, {"outside/app.py": "x = 1\n"})
    repo = RepoMap.build(root)
    elsewhere = mentions(
        'File "/usr/lib/python3.11/json/decoder.py", line 337, in decode\n'
        'File "../outside/app.py", line 1, in <module>\n'
        f'File "{root}/../outside/app.py", line 1, in <module>\n'
    )
    assert len(elsewhere.frames) == 3 and elsewhere.paths == {}

    assert rank(repo, elsewhere) == rank(repo, NOTHING)


def test_a_frame_from_the_reporters_machine_names_the_file_without_putting_it_on_top(tmp_path):
    root = write(
        tmp_path / "repo",
        {
            "pkg/mod.py": "def compute():\n    return 1\n",
            "pkg/other.py": "def unrelated():\n    pass\n",
            "pkg/flags.py": "RETRY_LIMIT = 3\n",
        },
    )
    repo = RepoMap.build(root)
    issue = mentions('File "/home/alice/src/proj/pkg/mod.py", line 2, in compute\nRETRY_LIMIT is ignored')

    ranked = order(rank(repo, issue))

    # pkg/flags.py spells RETRY_LIMIT; pkg/mod.py, the frame's tail, leads the rest.
    assert ranked == ["pkg/flags.py", "pkg/mod.py", "pkg/other.py"]


def test_an_unparsable_file_is_listed_by_name_only(tmp_path):
    root = write(
        tmp_path,
        {
            "pkg/good.py": "def fine(a, b=2):\n    return a\n",
            "pkg/bad.py": "def broken(:\n    pass\n",
            "pkg/latin.py": b"def f():\n    return '\xe9'\n",  # no coding cookie: not UTF-8
            "pkg/nul.py": b"x = 1\x00\n",
            "pkg/huge.py": "x = 1\n" * (MAX_FILE_BYTES // 6 + 1),
            "pkg/cookie.py": b"# -*- coding: latin-1 -*-\ndef g():\n    return '\xe9'\n",
        },
    )
    repo = RepoMap.build(root)
    problems = {path: source.problem for path, source in repo.files.items()}
    assert problems == {
        "pkg/bad.py": "does not parse",
        "pkg/cookie.py": "",
        "pkg/good.py": "",
        "pkg/huge.py": "over 1 MB: not parsed",
        "pkg/latin.py": "does not parse",
        "pkg/nul.py": "does not parse",
    }
    assert repo.files["pkg/bad.py"].symbols == () and repo.files["pkg/bad.py"].defines == {"bad"}

    shown = render(repo, [(path, 0.0) for path in repo.files], 1000)

    assert shown.text == (
        "pkg/bad.py (does not parse)\n"
        "pkg/cookie.py\n"
        "  def g()  # line 2\n"
        "pkg/good.py\n"
        "  def fine(a, b=2)  # line 1\n"
        "pkg/huge.py (over 1 MB: not parsed)\n"
        "pkg/latin.py (does not parse)\n"
        "pkg/nul.py (does not parse)\n"
    )


def test_the_outline_holds_classes_functions_and_methods_with_signatures_and_docstrings(tmp_path):
    root = write(
        tmp_path,
        {
            "shapes.py": '''"""Shapes."""
import sys


class Shape(Base, metaclass=Meta):
    """A shape.

    More about it."""

    sides = 0

    def area(self, scale: float = 1.0, *, exact=False) -> float:
        """The area, scaled."""
        def inner():
            pass

    @property
    def name(self):
        return "shape"

    class Corner:
        def angle(self, /, unit="deg"):
            """
            Degrees by default.
            """


async def fetch(url, **options):
    pass


if sys.platform == "win32":
    def native():
        pass
else:
    NATIVE = None
''',
        },
    )
    repo = RepoMap.build(root)
    source = repo.files["shapes.py"]
    assert source.symbols == (
        Symbol("Shape", 5, 0, "class Shape(Base, metaclass=Meta):", "A shape."),
        Symbol("area", 12, 1, "def area(self, scale: float=1.0, *, exact=False)", "The area, scaled."),
        Symbol("name", 18, 1, "def name(self)", ""),
        Symbol("Corner", 21, 1, "class Corner:", ""),
        Symbol("angle", 22, 2, "def angle(self, /, unit='deg')", "Degrees by default."),
        Symbol("fetch", 28, 0, "async def fetch(url, **options)", ""),
        Symbol("native", 33, 0, "def native()", ""),
    )
    # Not `inner` (local to area), not `sys` (imported), not dunders.
    assert source.defines == {
        "shapes",
        "Shape",
        "sides",
        "area",
        "name",
        "Corner",
        "angle",
        "fetch",
        "native",
        "NATIVE",
    }
    assert render(repo, [("shapes.py", 1.0)], 1000).text == (
        "shapes.py\n"
        "  class Shape(Base, metaclass=Meta):  # line 5: A shape.\n"
        "    def area(self, scale: float=1.0, *, exact=False)  # line 12: The area, scaled.\n"
        "    def name(self)  # line 18\n"
        "    class Corner:  # line 21\n"
        "      def angle(self, /, unit='deg')  # line 22: Degrees by default.\n"
        "  async def fetch(url, **options)  # line 28\n"
        "  def native()  # line 33\n"
    )


def outline_repo(root: Path) -> RepoMap:
    return RepoMap.build(
        write(
            root,
            {
                "a.py": "def alpha(x):\n    pass\n",
                "b.py": "".join(f"def beta_{n}(y):\n    pass\n" for n in range(4)),
                "c.py": "".join(f"def gamma_{n}(z):\n    pass\n" for n in range(6)),
                "d.py": "def delta():\n    pass\n",
            },
        )
    )


def test_the_budget_cuts_the_outline_and_shown_lists_exactly_what_was_rendered(tmp_path):
    repo = outline_repo(tmp_path)
    ranked = [("a.py", 0.4), ("b.py", 0.3), ("c.py", 0.2), ("d.py", 0.1)]
    whole = render(repo, ranked, 10_000)
    assert whole.files == ("a.py", "b.py", "c.py", "d.py") and whole.cut_short is None
    # Characters: a.py 5 + 25, b.py 5 + 4 x 26, c.py 5 + 5 x 27 + 28, d.py 5 + 24; 4 a token.
    assert len(whole.text) == 336 and whole.tokens == estimated_tokens(whole.text) == 84

    # a.py and b.py (139), then of c.py its path (5), what fits, and the note saying what's left
    # (25): two definitions (2 x 27) fill 223 of the 224 characters.
    shown = render(repo, ranked, 56)

    assert shown.text == (
        "a.py\n"
        "  def alpha(x)  # line 1\n"
        "b.py\n" + "".join(f"  def beta_{n}(y)  # line {2 * n + 1}\n" for n in range(4)) + "c.py\n"
        "  def gamma_0(z)  # line 1\n"
        "  def gamma_1(z)  # line 3\n"
        "  ... 4 more definitions\n"
    )
    assert shown.files == ("a.py", "b.py", "c.py") and shown.cut_short == "c.py"
    assert len(shown.text) == 223 and shown.tokens == 56
    named = tuple(line for line in shown.text.splitlines() if not line.startswith(" "))
    assert named == shown.files

    exactly_two = render(repo, ranked, 35)
    assert exactly_two.files == ("a.py", "b.py") and exactly_two.cut_short is None
    assert render(repo, ranked, 0) == render(repo, [], 100)
    assert render(repo, ranked, 0).files == () and render(repo, ranked, 0).text == ""


def test_ranking_is_deterministic_and_ties_go_by_path(tmp_path):
    first = durations_package(tmp_path / "first")
    # The same tree, written in the reverse order: directory listings come in another order.
    second = tmp_path / "second"
    for path in sorted(first.rglob("*.py"), reverse=True):
        target = second / path.relative_to(first)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(path.read_text())
    issue = mentions("`run_every` and `helper_07` misbehave when parse_duration fails")
    assert rank(RepoMap.build(first), issue) == rank(RepoMap.build(second), issue) == rank(RepoMap.build(first), issue)

    unlinked = RepoMap.build(write(tmp_path / "flat", dict.fromkeys(("b.py", "c.py", "a.py", "a/z.py"), "x = 1\n")))
    ranked = rank(unlinked, NOTHING)
    assert order(ranked) == ["a.py", "a/z.py", "b.py", "c.py"]
    assert {score for _, score in ranked} == {0.25}


def test_pagerank_on_three_nodes_matches_the_hand_computed_figures():
    # a links to b (weight 1) and c (weight 3), b to c; c links nowhere, so from c the walker
    # always jumps. With a uniform jump (1/3 each), writing r = r_a:
    #   r_a = (1 - d)/3 + d r_c/3;  r_b = r_a + d r_a/4;  r_c = r_a + 3d r_a/4 + d r_b
    # so r_b = r (1 + d/4), r_c = r (1 + 7d/4 + d²/4), and the three sum to 1: r = 1/(3 + 2d + d²/4).
    links = {"a": {"b": 1.0, "c": 3.0}, "b": {"c": 1.0}}
    d = DAMPING
    r = 1 / (3 + 2 * d + d * d / 4)
    uniform = pagerank(links, ["a", "b", "c"], {})
    assert abs(r - 0.204891792) < 1e-9
    assert_close(uniform, {"a": r, "b": r * (1 + d / 4), "c": r * (1 + 7 * d / 4 + d * d / 4)})

    # Jumping to a alone: r_a = (1 - d) + d r_c, r_b = d r_a/4, r_c = d r_a (3 + d)/4,
    # so r_a = (1 - d)/(1 - d²(3 + d)/4).
    r = (1 - d) / (1 - d * d * (3 + d) / 4)
    toward_a = pagerank(links, ["a", "b", "c"], {"a": 5.0})
    assert abs(r - 0.492459218) < 1e-9
    assert_close(toward_a, {"a": r, "b": d * r / 4, "c": d * r * (3 + d) / 4})


def assert_close(found: dict[str, float], expected: dict[str, float]) -> None:
    assert found.keys() == expected.keys()
    assert all(abs(found[node] - expected[node]) < 1e-6 for node in expected), (found, expected)


def test_an_issue_names_identifiers_paths_and_frames():
    issue = mentions(
        "Since 2.1, `Scheduler.run_every(every='1h')` ignores the `\"max_retries\"` key; "
        "see src/sched/core.py, `sched.timing.parse_duration` and "
        "https://github.com/o/r/blob/main/src/sched/units.py#L3 (not https://example.com/x.py). "
        "The ParseError from json.loads() is raised by self.check, e.g. when RETRY is set.\n"
        "```\n"
        "Traceback (most recent call last):\n"
        '  File "/home/me/sched/cli.py", line 12, in main\n'
        "    run_every(args.every)\n"
        "ValueError: bad unit\n"
        "```\n"
        "tests/test_units.py:40: in test_hours\n"
    )
    assert issue.identifiers == {
        "Scheduler": 2.0,
        "run_every": 4.0,  # the span, then the code the traceback quotes
        "every": 4.0,  # a keyword argument, then args.every
        "max_retries": 2.0,
        "parse_duration": 2.0,
        "ParseError": 1.0,
        "loads": 1.0,
        "check": 1.0,
        "test_hours": 1.0,
    }
    assert issue.paths == {
        "src/sched/units.py": 3.0,
        "src/sched/core.py": 3.0,
        "Scheduler/run_every": 2.0,
        "sched/timing/parse_duration": 2.0,
        "json/loads": 1.0,
        "args/every": 2.0,
    }
    assert issue.frames == (
        Frame("/home/me/sched/cli.py", 12, "main"),
        Frame("tests/test_units.py", 40, "test_hours"),
    )


def test_a_dotted_name_means_its_longest_start_that_names_a_module(tmp_path):
    root = write(
        tmp_path,
        {
            "sched/__init__.py": "",
            "sched/timing.py": "def parse_duration(text):\n    pass\n",
            "sched/other.py": "x = 1\n",
            "lib/timing.py": "y = 2\n",
        },
    )
    repo = RepoMap.build(root)
    ranked = rank(repo, Mentions({}, {"sched/timing/parse_duration": 2.0}, ()))
    assert order(ranked)[0] == "sched/timing.py"
    (first, first_score), (second, second_score), *_ = rank(repo, Mentions({}, {"timing.py": 3.0}, ()))
    assert (first, second) == ("lib/timing.py", "sched/timing.py")
    # Nothing links anywhere: 9/10 of the jumps shared between the two, 1/10 among all four files.
    assert abs(first_score - 0.475) < 1e-12 and abs(second_score - 0.475) < 1e-12


def test_the_map_skips_tools_virtualenvs_build_output_symlinks_and_exclusions(tmp_path):
    root = write(
        tmp_path / "repo",
        {
            "pkg/mod.py": "",
            "pkg/build/step.py": "",  # a package named build, deep down: kept
            "build/lib/pkg/mod.py": "",
            "dist/x.py": "",
            ".git/hooks/x.py": "",
            ".venv/lib/x.py": "",
            "env3/pyvenv.cfg": "home = /usr/bin\n",
            "env3/lib/site.py": "",
            "node_modules/x/y.py": "",
            "pkg/__pycache__/mod.py": "",
            "docs/conf.py": "",
            "tests/test_mod.py": "",
            "tests/data/sample.py": "",
            "notes.txt": "",
        },
    )
    write(tmp_path, {"elsewhere/linked.py": "", "elsewhere/folder/inside.py": ""})
    os.symlink(tmp_path / "elsewhere/linked.py", root / "pkg/linked.py")
    os.symlink(tmp_path / "elsewhere/folder", root / "pkg/folder")

    assert list(RepoMap.build(root).files) == [
        "docs/conf.py",
        "pkg/build/step.py",
        "pkg/mod.py",
        "tests/data/sample.py",
        "tests/test_mod.py",
    ]
    assert list(RepoMap.build(root, exclude=["docs", "tests/data*"]).files) == [
        "pkg/build/step.py",
        "pkg/mod.py",
        "tests/test_mod.py",
    ]


def test_only_the_heaviest_names_are_grepped(tmp_path):
    files: dict[str, str | bytes] = {
        f"named_{n:02}.py": f"from other import shared\n\nvalue_{n:02} = shared({n})\n" for n in range(20)
    }
    files["other.py"] = "def shared(x):\n    return x\n"
    files["light.py"] = "# mentions light_name in a comment\n"
    repo = RepoMap.build(write(tmp_path, files))
    # 20 names in backticks weigh 2 each; the one in prose, 1: it is the 21st, and not grepped.
    issue = mentions(" ".join(f"`value_{n:02}`" for n in range(20)) + " and light_name")
    assert issue.identifiers["light_name"] == 1.0 and len(issue.identifiers) == 21

    ranked = order(rank(repo, issue))

    # other.py, which every named file uses, leads light.py, which no name's grep brought up.
    assert ranked == [*(f"named_{n:02}.py" for n in range(20)), "other.py", "light.py"]
    assert order(rank(repo, mentions("light_name")))[0] == "light.py"


def test_a_hostile_issue_is_read_in_linear_time():
    # Each took minutes with a pattern that backtracks over the rest of the text at every start.
    for text in ("http://x/" + "/blob/a/" * 25_000, "`` a " * 40_000, "a/" * 100_000, "x" * 200_000 + ".p"):
        started = time.monotonic()
        mentions(text)
        assert time.monotonic() - started < 5, text[:20]
