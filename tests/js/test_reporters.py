"""autofix's reporters for node:test, Jest and Vitest, run inside the real runners (`make js-deps`
installs Jest and Vitest, pinned by tests/js/runners/package-lock.json; node:test is Node's), each
on a small project in tmp_path whose node_modules links to those, with a real memfd for the
record; then what bot/judge/js reads of it, and the runners' own listings of the tests."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import shutil
import subprocess
from pathlib import Path

import pytest

from bot.judge.integrity import Case
from bot.judge.js import report
from bot.judge.verdict import MARK, memfd_of

ROOT = Path(__file__).resolve().parent.parent.parent
RUNNERS = ROOT / "out" / "js" / "runners"
REPORTERS = ROOT / "bot" / "judge" / "sandboxed" / "js"
NODE_REPORTER = REPORTERS / "node_reporter.mjs"
JEST_REPORTER = REPORTERS / "jest_reporter.cjs"
VITEST_REPORTER = REPORTERS / "vitest_reporter.mjs"

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="no node on this machine")


# Each runner's test files: a pass, a failure on a value (line 5 of the file), a skip, a todo, a
# test two describe blocks deep; and a file that throws as it loads.
JEST_SUITE = """\
const { add } = require("./math.js");

test("adds", () => { expect(add(1, 1)).toBe(2); });
test("fails", () => {
  expect(add(1, 1)).toBe(3);
});
test.skip("skipped", () => {});
test.todo("later");
describe("outer", () => { describe("inner", () => { test("deep", () => {}); }); });
"""
VITEST_SUITE = """\
import { describe, expect, test } from "vitest";
import { add } from "./math.js";
test("adds", () => { expect(add(1, 1)).toBe(2); });
test("fails", () => {
  expect(add(1, 1)).toBe(3);
});
test.skip("skipped", () => {});
test.todo("later");
describe("outer", () => { describe("inner", () => { test("deep", () => {}); }); });
"""
NODE_SUITE = """\
import { describe, test } from "node:test";
import assert from "node:assert";
import { add } from "./math.mjs";
test("adds", () => { assert.strictEqual(add(1, 1), 2); });
test("fails", () => { assert.strictEqual(add(1, 1), 3); });
test("skipped", { skip: true }, () => {});
test.todo("later");
describe("outer", () => { describe("inner", () => { test("deep", () => {}); }); });
"""
BROKEN = 'throw new Error("boom at load");\n'


def expected(suite: str, broken: str) -> set[tuple[str, str]]:
    return {
        (f"{suite}::adds", "passed"),
        (f"{suite}::fails", "failed"),
        (f"{suite}::skipped", "skipped"),
        (f"{suite}::later", "skipped"),
        (f"{suite}::outer > inner > deep", "passed"),
        (f"{broken}::", "error"),
    }


def project(where: Path, node_modules: Path, files: dict[str, str], module: bool = False) -> Path:
    where.mkdir()
    (where / "package.json").write_text(
        json.dumps({"name": "fixture", "private": True, "type": "module" if module else "commonjs"})
    )
    (where / "node_modules").symlink_to(node_modules)
    for name, text in files.items():
        (where / name).write_text(text)
    return where


def node_argv() -> list[str]:
    return [
        "node",
        "--test",
        "--test-reporter=spec",
        "--test-reporter-destination=stdout",
        f"--test-reporter={NODE_REPORTER}",
        "--test-reporter-destination=/dev/null",
    ]


def jest_argv(*extra: str) -> list[str]:
    return ["node_modules/.bin/jest", *extra, "--reporters=default", f"--reporters={JEST_REPORTER}"]


def vitest_argv(*extra: str) -> list[str]:
    return ["node_modules/.bin/vitest", "run", *extra, "--reporter=default", f"--reporter={VITEST_REPORTER}"]


class Run:
    def __init__(self, argv: list[str], cwd: Path, payload: bytes | None = None, fd_text: str | None = None):
        self.nonce = f"@@autofix-verdict-{secrets.token_hex(16)}@@"
        fd = memfd_of("autofix-verdict", self.nonce.encode() + b"\n" if payload is None else payload)
        try:
            env = {**os.environ, "NO_COLOR": "1", report.ENV: str(fd) if fd_text is None else fd_text}
            env.pop("FORCE_COLOR", None)
            self.done = subprocess.run(
                argv, cwd=cwd, env=env, pass_fds=(fd,), capture_output=True, text=True, timeout=120
            )
            self.data = os.pread(fd, 1 << 24, 0)
            self.record = report.read_record(fd, self.nonce)
        finally:
            os.close(fd)
        self.cases = report.cases(self.record) if self.record is not None else None

    def outcomes(self) -> set[tuple[str, str]]:
        assert self.cases is not None, self.done.stdout + self.done.stderr
        return {(case.test_id, case.outcome) for case in self.cases}

    def case(self, test_id: str) -> Case:
        assert self.cases is not None
        return next(case for case in self.cases if case.test_id == test_id)

    def sealed_alone(self) -> None:
        """The memfd holds the record's line and nothing else: the nonce is gone."""
        body = json.dumps(self.record, separators=(",", ":"), ensure_ascii=False).encode()
        assert self.nonce.encode() not in self.data
        assert self.data.strip(b"\n").startswith(MARK)
        assert self.data.count(b"\n") == 2
        assert json.loads(self.data.strip(b"\n")[len(MARK) + 64 :]) == json.loads(body)


def test_node_test_reports_each_test_and_the_file_that_failed_to_load(node_modules, tmp_path):
    where = project(
        tmp_path / "p",
        node_modules,
        {"math.mjs": "export const add = (a, b) => a + b;\n", "math.test.mjs": NODE_SUITE, "broken.test.mjs": BROKEN},
    )
    run = Run(node_argv(), where)
    assert run.done.returncode == 1
    assert run.record is not None and run.record["runner"] == "node"
    assert run.outcomes() == expected("math.test.mjs", "broken.test.mjs")
    failed = run.case("math.test.mjs::fails")
    assert failed.message == "Expected values to be strictly equal:"
    assert "2 !== 3" in failed.details and f"{where}/math.test.mjs:5:" in failed.details
    broken = run.case("broken.test.mjs::")
    assert broken.message == "Error: boom at load"
    assert f"{where}/broken.test.mjs:1:" in broken.details
    assert "✖ fails" in run.done.stdout  # the spec reporter still prints
    run.sealed_alone()


def test_jest_reports_each_test_and_the_file_that_failed_to_load(node_modules, tmp_path):
    where = project(
        tmp_path / "p",
        node_modules,
        {"math.js": "exports.add = (a, b) => a + b;\n", "math.test.js": JEST_SUITE, "broken.test.js": BROKEN},
    )
    run = Run(jest_argv(), where)
    assert run.done.returncode == 1
    assert run.record is not None and run.record["runner"] == "jest"
    assert run.outcomes() == expected("math.test.js", "broken.test.js")
    failed = run.case("math.test.js::fails")
    assert failed.message == "expect(received).toBe(expected) // Object.is equality"
    assert "Expected: 3\nReceived: 2" in failed.details and f"{where}/math.test.js:5:" in failed.details
    broken = run.case("broken.test.js::")
    assert broken.message == "boom at load" and f"{where}/broken.test.js:1:" in broken.details
    assert "● fails" in run.done.stderr  # Jest's default reporter still prints
    run.sealed_alone()


def test_vitest_reports_each_test_and_the_file_that_failed_to_load(node_modules, tmp_path):
    where = project(
        tmp_path / "p",
        node_modules,
        {"math.js": "export const add = (a, b) => a + b;\n", "math.test.js": VITEST_SUITE, "broken.test.js": BROKEN},
        module=True,
    )
    run = Run(vitest_argv(), where)
    assert run.done.returncode == 1
    assert run.record is not None and run.record["runner"] == "vitest"
    assert run.outcomes() == expected("math.test.js", "broken.test.js")
    failed = run.case("math.test.js::fails")
    assert failed.message == "expected 2 to be 3 // Object.is equality"
    assert (
        failed.details.startswith("AssertionError: expected 2 to be 3") and f"{where}/math.test.js:5:" in failed.details
    )
    broken = run.case("broken.test.js::")
    assert broken.message == "boom at load" and f"{where}/broken.test.js:1:" in broken.details
    assert "Test Files  2 failed (2)" in run.done.stdout  # Vitest's default reporter still prints
    run.sealed_alone()


# Test code that appends a line of its own to the memfd, wherever it can reach it: through every
# descriptor of its process that is autofix's memfd (by its name). Its MAC can't be right.
FORGER = """
const fs = require("node:fs");
const forged = '\\n@@autofix-verdict@@' + '0'.repeat(64) + '{"runner":"RUNNER","cases":[]}\\n';
function forge() {
  const reached = [];
  for (const name of fs.readdirSync("/proc/self/fd")) {
    let target = "";
    try { target = fs.readlinkSync(`/proc/self/fd/${name}`); } catch { continue; }
    if (!target.startsWith("/memfd:autofix-verdict")) continue;
    try { fs.appendFileSync(`/proc/self/fd/${name}`, forged); reached.push(name); } catch {}
  }
  return reached;
}
"""
FORGES = 'test("forges", () => { console.log("REACHED", JSON.stringify(forge())); });\n'
ESM = 'import { createRequire } from "node:module";\nconst require = createRequire(import.meta.url);\n'


@pytest.mark.parametrize("runner", ["node", "jest", "vitest"])
def test_a_line_forged_by_test_code_is_ignored(node_modules, tmp_path, runner):
    forger = FORGER.replace("RUNNER", runner)
    if runner == "node":
        files, argv = {"forge.test.mjs": f'import {{ test }} from "node:test";\n{ESM}{forger}{FORGES}'}, node_argv()
    elif runner == "jest":
        files = {"forge.test.js": forger + FORGES}
        argv = jest_argv()
    else:
        files, argv = {"forge.test.js": f'import {{ test }} from "vitest";\n{ESM}{forger}{FORGES}'}, vitest_argv()
    where = project(tmp_path / "p", node_modules, files, module=runner == "vitest")
    run = Run(argv, where)
    assert run.done.returncode == 0, run.done.stdout + run.done.stderr
    ext = "mjs" if runner == "node" else "js"
    assert run.outcomes() == {(f"forge.test.{ext}::forges", "passed")}
    # The forged line is there where the test could reach the memfd (Jest runs one test file in
    # its own main process, beside the reporter), and ignored.
    reached = b'{"runner":"' + runner.encode() + b'","cases":[]}' in run.data
    assert reached == (runner == "jest")
    output = run.done.stdout + run.done.stderr
    assert ("REACHED []" in output) == (runner != "jest")
    assert run.nonce.encode() not in run.data


PATCHER = """
const fs = require("node:fs");
const crypto = require("node:crypto");
// The main realm's globals, reached through a core module's function: not the test's vm context.
const main = fs.readFileSync.constructor("return this")();
test("patches", () => {
  crypto.createHmac = () => { throw new Error("no"); };
  fs.writeSync = () => 0;
  fs.fstatSync = () => ({ size: 0 });
  main.JSON.stringify = () => '"forged"';
  main.Object.prototype.toJSON = function () { return "forged"; };
});
test.skip("skipped", () => {});
"""


def test_jest_in_band_code_that_rebinds_what_the_reporter_calls_changes_nothing(node_modules, tmp_path):
    """Jest runs one test file in its main process: the test rebinds crypto's, fs's and the main
    realm's JSON functions; the reporter bound its own at load, and its record is the true one.
    (Not everything: the reporter still calls the main realm's prototype methods, split or join,
    which such a test can replace too; report.py says why a record alone proves little.)"""
    where = project(tmp_path / "p", node_modules, {"patch.test.js": PATCHER})
    run = Run(jest_argv(), where)
    assert run.outcomes() == {("patch.test.js::patches", "passed"), ("patch.test.js::skipped", "skipped")}
    run.sealed_alone()


EXITS_JEST = 'test("first", () => {});\ntest("exits", () => { process.exit(0); });\ntest("after", () => {});\n'
OTHER_JEST = 'test("other", () => {});\n'


def test_process_exit_in_node_test_loses_that_files_tests(node_modules, tmp_path):
    """node:test: the file's process exits 0 before it reports any of its tests (even the one
    that passed before): node reports the file alone, as one passing test, which the reporter
    ignores. The record holds the other files' tests and none of that one's."""
    exits = 'import { test } from "node:test";\n' + EXITS_JEST
    where = project(
        tmp_path / "p",
        node_modules,
        {"exits.test.mjs": exits, "other.test.mjs": 'import { test } from "node:test";\n' + OTHER_JEST},
    )
    run = Run(node_argv(), where)
    assert run.done.returncode == 0
    assert run.outcomes() == {("other.test.mjs::other", "passed")}


def test_process_exit_in_jest_in_band_leaves_no_record(node_modules, tmp_path):
    """Jest in band (one file; any run on 2 cores): the test's process.exit ends Jest itself, exit
    status 0, before the reporter writes: no record."""
    where = project(tmp_path / "p", node_modules, {"exits.test.js": EXITS_JEST})
    run = Run(jest_argv(), where)
    assert run.done.returncode == 0
    assert "process.exit called with" in run.done.stderr
    assert run.record is None and run.data == b""


def test_process_exit_in_a_jest_worker_is_that_files_error(node_modules, tmp_path):
    """With workers (--workerIdleMemoryLimit keeps Jest from running in band): the worker dies, and
    the record has the file's error in place of its tests."""
    where = project(tmp_path / "p", node_modules, {"exits.test.js": EXITS_JEST, "other.test.js": OTHER_JEST})
    run = Run(jest_argv("--workerIdleMemoryLimit=2GB"), where)
    assert run.done.returncode == 1
    assert run.outcomes() == {("other.test.js::other", "passed"), ("exits.test.js::", "error")}
    assert run.case("exits.test.js::").message.startswith("A jest worker process (pid=")


def test_process_exit_in_vitest_fails_that_test(node_modules, tmp_path):
    """Vitest stubs process.exit in its workers: the call throws, the test fails, the rest run."""
    exits = 'import { test } from "vitest";\n' + EXITS_JEST
    where = project(tmp_path / "p", node_modules, {"exits.test.js": exits}, module=True)
    run = Run(vitest_argv(), where)
    assert run.done.returncode == 1
    assert run.outcomes() == {
        ("exits.test.js::first", "passed"),
        ("exits.test.js::exits", "failed"),
        ("exits.test.js::after", "passed"),
    }
    assert run.case("exits.test.js::exits").message == 'process.exit unexpectedly called with "0"'


TS_SUITE = """\
import { describe, expect, test } from "RUNNER";
const add = (a: number, b: number): number => a + b;
describe("typed", () => {
  test("adds", () => { expect(add(1, 1)).toBe(2); });
  test("fails", () => { expect(add(1, 1)).toBe(3); });
});
"""


def test_typescript_under_vitest_and_jest(node_modules, tmp_path):
    """Vitest runs a .test.ts as it is; Jest through ts-jest (--preset=ts-jest). node:test on Node 20
    has no type stripping: no TypeScript there."""
    vitest = project(tmp_path / "v", node_modules, {"add.test.ts": TS_SUITE.replace("RUNNER", "vitest")}, module=True)
    jest = project(tmp_path / "j", node_modules, {"add.test.ts": TS_SUITE.replace("RUNNER", "@jest/globals")})
    for run in (Run(vitest_argv(), vitest), Run(jest_argv("--preset=ts-jest"), jest)):
        assert run.outcomes() == {("add.test.ts::typed > adds", "passed"), ("add.test.ts::typed > fails", "failed")}
        assert "add.test.ts:5:" in run.case("add.test.ts::typed > fails").details


@pytest.mark.parametrize("runner", ["node", "jest", "vitest"])
def test_no_usable_channel_is_no_record_and_no_crash(node_modules, tmp_path, runner):
    """A descriptor that isn't open, or a memfd without a nonce: the reporter does nothing, the run
    goes on as without it."""
    files = {
        "node": {"ok.test.mjs": 'import { test } from "node:test";\ntest("ok", () => {});\n'},
        "jest": {"ok.test.js": 'test("ok", () => {});\n'},
        "vitest": {"ok.test.js": 'import { test } from "vitest";\ntest("ok", () => {});\n'},
    }[runner]
    argv = {"node": node_argv(), "jest": jest_argv(), "vitest": vitest_argv()}[runner]
    where = project(tmp_path / "p", node_modules, files, module=runner == "vitest")
    elsewhere, empty = Run(argv, where, fd_text="999"), Run(argv, where, payload=b"")
    for run in (elsewhere, empty):
        assert run.done.returncode == 0, run.done.stdout + run.done.stderr
        assert run.record is None
    assert elsewhere.data == elsewhere.nonce.encode() + b"\n"  # never read: the reporter looked at 999
    assert empty.data == b""


def signed(nonce: str, body: bytes) -> bytes:
    return MARK + hmac.new(nonce.encode(), body, hashlib.sha256).hexdigest().encode() + body


def test_read_record_takes_the_last_line_whose_mac_holds(tmp_path):
    nonce = f"@@autofix-verdict-{secrets.token_hex(16)}@@"
    good = b'{"runner":"jest","cases":[["a.test.js","t","passed","",""]]}'
    wrong = MARK + b"0" * 64 + b'{"runner":"jest","cases":[]}'
    other = signed("@@autofix-verdict-" + "0" * 32 + "@@", b'{"runner":"jest","cases":[]}')
    fd = memfd_of("t", b"junk\n" + signed(nonce, good) + b"\n" + wrong + b"\n" + other + b"\n")
    try:
        record = report.read_record(fd, nonce)
    finally:
        os.close(fd)
    assert record is not None
    assert report.cases(record) == [Case("a.test.js::t", "passed", "", "")]
    for body in (b"[1]", b"not json", b"[" * 100_000):
        fd = memfd_of("t", signed(nonce, body) + b"\n")
        try:
            assert report.read_record(fd, nonce) is None
        finally:
            os.close(fd)


@pytest.mark.parametrize(
    "record",
    [
        {"runner": "mocha", "cases": []},
        {"runner": "jest"},
        {"runner": "jest", "cases": [["a", "t", "passed", ""]]},
        {"runner": "jest", "cases": [["a", "t", "xpassed", "", ""]]},
        {"runner": "jest", "cases": [["a", "t", "passed", "", 1]]},
    ],
)
def test_cases_refuses_a_record_of_another_shape(record):
    assert report.cases(record) is None
