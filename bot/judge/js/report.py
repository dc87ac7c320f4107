"""What a JavaScript test runner's run tells autofix: the one line autofix's reporter signed.

autofix starts node:test, Jest or Vitest with its reporter among the runner's own
(bot/judge/sandboxed/js/: node_reporter.mjs, jest_reporter.cjs, vitest_reporter.mjs) and
`AUTOFIX_REPORT_FD=<n>` naming an inherited memfd that holds the run's nonce
(`@@autofix-verdict-<32 hex>@@`, verdict.channel). The reporter loads in the runner's main
process before any test file: it reads the nonce, empties the file, reopens it close-on-exec
and closes the inherited number (the test processes the runner starts later don't get it),
and binds everything it calls later. When the run ends it appends one line: MARK, the HMAC-SHA256
of the body keyed by the nonce (hex), and the body, compact JSON:

    {"runner": "jest" | "vitest" | "node",
     "cases": [[file, name, outcome, message, details], ...]}

`file` is relative to the run's folder (posix); `name` the describe blocks' titles and the
test's, joined with " > "; `outcome` passed, failed, skipped (todo too) or error (a file that
failed to load or collect: name "", and Vitest's errors outside any test: file "" too);
`message` the failure's first line, `details` its message and stack (at most 20,000 characters).

What a record proves: the reporter loaded, the runner reached its end of run, and what the
runner's main process believed of each test. What it doesn't: that the tests' outcomes reached
that process unforged. Each runner learns them over a channel the code under test can write:
node:test from each test file's child process's stdout; Jest and Vitest from their workers'
IPC; and Jest runs the tests in its main process itself ("in band": one test file, --runInBand,
or maxWorkers 1, as on any machine of 2 cores or fewer), beside the reporter. Nor does the
record say every test ran: a test file whose process exits early under node:test reports none
of its tests, and a run that ends before the reporter writes (process.exit in Jest's main
process) leaves no record at all. The runners' config files (jest.config.*, vitest.config.* and
the plugins they name) and Jest's and Vitest's globalSetup run in the main process before the
reporter loads. So a record is evidence only together with canaries (tests whose outcome autofix
knows) and the expected tests (expected.py), both the launching side's.
"""

from __future__ import annotations

import json

from bot.judge import verdict
from bot.judge.integrity import Case

RUNNERS = ("jest", "vitest", "node")
OUTCOMES = ("passed", "failed", "skipped", "error")
ENV = "AUTOFIX_REPORT_FD"  # the variable that names the memfd to the reporter


def read_record(fd: int, nonce: str) -> dict | None:
    """The record the reporter signed, its body JSON (verdict.read_record)."""
    return verdict.read_record(fd, nonce, json.loads)


def cases(record: dict) -> list[Case] | None:
    """The record's cases, each test's id `file::name` (a file that failed to load: `file::`);
    None when the record isn't one a reporter of autofix's writes."""
    if record.get("runner") not in RUNNERS or not isinstance(found := record.get("cases"), list):
        return None
    result = []
    for case in found:
        if not (isinstance(case, list) and len(case) == 5 and all(isinstance(field, str) for field in case)):
            return None
        file, name, outcome, message, details = case
        if outcome not in OUTCOMES:
            return None
        result.append(Case(f"{file}::{name}", outcome, message, details))
    return result
