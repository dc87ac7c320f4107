"""`python -m unittest`'s verdict against code under repair that has read autofix's source, with
the static guard off (these evade it: exec of decoded text): each attack fails on every tier.

- the sealed runTests's closure: a cell rebound to code that runs the suite, empties the result's
  failures and exits 0; or the signer's key read out of a cell and a line forged with it;
- the result reached through unittest.signals, where the runner registers it, and its failures
  swallowed;
- a TestProgram of its own, run from the code under repair, whose empty suite would be signed;
- the machinery rebound at import and put back by the first test that calls the code."""

import base64
import sys

import pytest
from test_audit_hook import OWN
from test_verdict import RIGHT, TIERS, validator

TESTS = """\
import unittest
from unique import unique_items


class Unique(unittest.TestCase):
    def test_order(self):
        self.assertEqual(unique_items([3, 1, 3, 2, 1]), [3, 1, 2])

    def test_empty(self):
        self.assertEqual(unique_items([]), [])
"""
WRONG_BODY = "\ndef unique_items(items):\n    return list(set(items))\n"

# Every cell of the sealed runTests, and of what they hold: what an attacker walks.
CELLS = """
import sys
import unittest.main

def cells(function, depth=0):
    found = []
    for cell in getattr(function, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:
            continue
        found.append((cell, value))
        if depth < 3 and callable(value):
            found += cells(value, depth + 1)
    return found

SEALED = sys.modules["unittest.main"].TestProgram.runTests
"""
REBIND_RUN = (
    CELLS
    + """
for cell, value in cells(SEALED):
    if getattr(value, "__name__", "") == "runTests" and value is not SEALED:
        real = value

        def swallowing(self, *args, _real=real, **kwargs):
            self.exit = False
            _real(self, *args, **kwargs)
            self.result.failures.clear()
            self.result.errors.clear()
            raise SystemExit(0)

        cell.cell_contents = swallowing
"""
)
STEAL_KEY = (
    CELLS
    + """
import hashlib, hmac, os
key = next(v for _, v in cells(SEALED) if isinstance(v, bytes) and v.startswith(b"@@autofix-verdict-"))
fd = next(v for _, v in cells(SEALED) if type(v) is int and v > 2)
body = repr({"unittest": {"run": 2, "failures": 0, "errors": 0, "skipped": 0, "unexpected_successes": 0},
             "tampered": []}).encode()
line = b"\\n@@autofix-verdict@@" + hmac.new(key, body, hashlib.sha256).hexdigest().encode() + body + b"\\n"
os.pwrite(fd, line, os.fstat(fd).st_size)
os._exit(0)
"""
)
SIGNALS = """
import unittest.signals

def unique_items(items):
    for result in list(unittest.signals._results):
        result.addFailure = lambda test, err: None
        result.addError = lambda test, err: None
    return list(set(items))
"""
OWN_PROGRAM = """
import os, sys, types, unittest

class Unique(unittest.TestCase):
    def test_order(self):
        pass

    def test_empty(self):
        pass

module = types.ModuleType("fake")
module.Unique = Unique
unittest.main(module=module, argv=["python -m unittest"], exit=False)
os._exit(0)
"""
REBIND_AND_RESTORE = """
import unittest.runner

real = unittest.runner.TextTestRunner._makeResult
held = []

def making(self):
    result = real(self)
    result.addFailure = lambda test, err: None
    held.append(result)
    return result

unittest.runner.TextTestRunner._makeResult = making

def unique_items(items):
    unittest.runner.TextTestRunner._makeResult = real  # put back before the suite's end
    return list(set(items))
"""


def hidden(source: str) -> str:
    """The attack as a candidate past the static guard would ship it: exec of decoded text."""
    encoded = base64.b64encode(source.encode()).decode()
    return f"import base64\nexec(base64.b64decode({encoded!r}).decode())\n"


@pytest.fixture(params=TIERS)
def checker(request, tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_unique.py").write_text(TESTS)
    return validator(tmp_path, request.param, {"command": f"{sys.executable} -m unittest discover -s tests"})


@pytest.mark.parametrize(
    "attack",
    [REBIND_RUN + WRONG_BODY, STEAL_KEY + WRONG_BODY, SIGNALS, OWN_PROGRAM + WRONG_BODY, REBIND_AND_RESTORE],
    ids=["closure-rebound", "key-stolen", "result-through-signals", "own-program", "rebound-and-restored"],
)
def test_an_attack_on_the_unittest_verdict_fails(checker, attack):
    assert checker.check(RIGHT).passed  # the baseline and an honest fix
    verdict = checker.check(hidden(attack))
    assert not verdict.passed, verdict.feedback


def test_the_attacks_name_what_they_did(checker):
    checker.check(RIGHT)
    feedback = checker.check(hidden(OWN_PROGRAM + WRONG_BODY)).feedback
    assert "unittest's runTests was called by code other than `python -m unittest`" in feedback
    feedback = checker.check(hidden(REBIND_AND_RESTORE)).feedback
    assert "unittest's unittest.runner.TextTestRunner._makeResult was replaced during the run" in feedback


# The audit hook runs under unittest too: the repository's own sys._getframe (OWN) is noted by
# the baseline and let be; one a candidate adds, reaching for the runner's frames, is refused.


def test_the_repositorys_own_frames_are_let_be_and_an_added_reach_is_refused(checker):
    target = checker.spec.workdir / "unique.py"
    target.write_text(OWN.format(body="    return list(set(items))\n"))
    checker.preflight()
    assert checker.check(OWN.format(body="    return list(dict.fromkeys(items))\n")).passed
    added = OWN.format(body="    sys._getframe(0)\n    return list(dict.fromkeys(items))\n")
    verdict = checker.check(added)
    assert not verdict.passed
    assert "code under repair at unique.py:10 asked for sys._getframe" in verdict.feedback
