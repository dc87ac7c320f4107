"""autofix's hook for `python -m unittest`: the run's result, sealed like pytest's.

autofix writes it for each run, after seal.py and the run's header (bot/judge/hooks.py), as
`sitecustomize.py` in the run's root-owned hook folder, which it puts first on PYTHONPATH: Python
imports it at start-up, before the work folder is on sys.path. In a
process started as `python -m unittest ...` under autofix, it takes the run's nonce before the
tests are imported, notes unittest's machinery, and when the TestProgram has run the suite it
writes the counts (and what changed in that machinery) as one line signed with the nonce (an HMAC). A run that
exits before that (os._exit at import) has no verdict. In every other process it only hands
over to the sitecustomize it shadows, if there is one.
"""

import os
import sys

MACHINERY = (
    "unittest.case",
    "unittest.suite",
    "unittest.result",
    "unittest.runner",
    "unittest.loader",
    "unittest.main",
)


def started_as_unittest():
    argv = getattr(sys, "orig_argv", [])
    return any(argv[i] == "-m" and argv[i + 1] == "unittest" for i in range(len(argv) - 1))


def seal_unittest():
    fd, sign, _ = take_nonce()
    if sign is None:
        return
    import unittest.main  # noqa: F401 - the module; the package's `main` attribute is the class

    program = sys.modules["unittest.main"].TestProgram
    noted = {}
    program.runTests = sealed_run(program.runTests, fd, sign, noted)
    noted.update(identities(MACHINERY))  # after the swap: the sealed runTests is the one to keep


def sealed_run(run_suite, fd, sign, original):
    """TestProgram.runTests, then the counts written. What it calls is bound in its closure, which
    code under test can't rebind (no default argument, no global)."""
    run, write, changed = run_suite, write_line, replaced

    def run_tests(self, *args, **kwargs):
        try:
            return run(self, *args, **kwargs)
        finally:
            result = getattr(self, "result", None)
            if result is not None:
                counts = {
                    "run": result.testsRun,
                    "failures": len(result.failures),
                    "errors": len(result.errors),
                    "skipped": len(result.skipped),
                    "unexpected_successes": len(result.unexpectedSuccesses),
                }
                write(fd, sign, {"unittest": counts, "tampered": changed(original, "unittest")})

    return run_tests


def hand_over():
    """Run the sitecustomize this one shadows (Debian's, a virtual environment's)."""
    here = os.path.dirname(os.path.abspath(__file__))
    saved = sys.path[:]
    sys.path[:] = [p for p in saved if os.path.abspath(p or os.curdir) != here]
    me = sys.modules.pop("sitecustomize")
    try:
        import sitecustomize  # noqa: F401 - the next one on the path, for its side effects
    except ImportError:
        sys.modules["sitecustomize"] = me  # the import system expects to find what it ran
    finally:
        sys.path[:] = saved


if started_as_unittest():
    seal_unittest()
hand_over()
