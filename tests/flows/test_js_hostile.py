"""Hostile candidates that end the test process or rewrite what it prints, from the code under
repair, against real Jest, Vitest and node:test runs on bwrap and landlock. The static guard
refuses each before any run (its findings are asserted); with the guard left out, the run itself
still fails: the verdict comes from the reporter's signed record in the runner's main process,
never from the exit status or the printed summary."""

import pytest
from fake_openai import ScriptedOpenAI
from test_js_spec import BROKEN, autofix, project, reply  # noqa: F401 (project: the fixture)

# Ends the test's process with status 0 the first time the code under repair is called.
EXITS = BROKEN.replace("  const out = [];", "  process.exit(0);\n  const out = [];")
# Every line the runner prints is swallowed and a passing summary printed instead; the code stays broken.
QUIET = BROKEN.replace(
    "module.exports",
    "const write = process.stdout.write.bind(process.stdout);\n"
    "process.stdout.write = () => true;\nprocess.stderr.write = () => true;\n"
    'process.on("exit", () => write("Tests: 4 passed, 4 total\\n# pass 4\\n# fail 0\\n"));\n'
    "module.exports",
)


@pytest.mark.parametrize("project", ["jest"], indirect=True)
def test_the_guard_refuses_both_before_any_run(project, capsys):
    with ScriptedOpenAI([reply(EXITS), reply(QUIET), reply(EXITS)]) as fake:
        assert autofix(project, fake, "bwrap") == 1
    out = capsys.readouterr().out
    assert "src/chunk.js:2 (process-end): `process.exit(0);`" in out
    assert "src/chunk.js:9 (patching): `process.stdout.write = () => true;`" in out
    assert "src/chunk.js:10 (patching): `process.stderr.write = () => true;`" in out
    assert "src/chunk.js:11 (process-end): `process.on(" in out
    assert (project.parent / "src" / "chunk.js").read_text() == BROKEN


# What the log says of each run with the guard left out: the runner's own account of the file.
SEEN = {
    "jest-exit": "test/chunk.test.js::: error: A jest worker process (pid=",
    "vitest-exit": 'test/chunk.test.js::chunk > splits into pairs: failed: process.exit unexpectedly called with "0"',
    "node-stdout": "test/chunk.test.js::: error: test failed",
    "jest-stdout": "test/chunk.test.js::chunk > splits into pairs: failed: Error: expect(received).toEqual(expected)",
}


@pytest.mark.parametrize(
    ("project", "forger", "seen", "sandbox"),
    [
        ("jest", EXITS, SEEN["jest-exit"], "bwrap"),
        ("vitest", EXITS, SEEN["vitest-exit"], "landlock"),
        ("node", QUIET, SEEN["node-stdout"], "landlock"),
        ("jest", QUIET, SEEN["jest-stdout"], "bwrap"),
    ],
    ids=["jest-exit-bwrap", "vitest-exit-landlock", "node-stdout-landlock", "jest-stdout-bwrap"],
    indirect=["project"],
)
def test_without_the_guard_the_run_still_fails(project, capsys, forger, seen, sandbox, no_js_guard):
    with ScriptedOpenAI([reply(forger)] * 3) as fake:
        assert autofix(project, fake, sandbox) == 1
    out = capsys.readouterr().out
    assert (project.parent / "src" / "chunk.js").read_text() == BROKEN
    assert "attempt 1/3  FAIL" in out and seen in out
