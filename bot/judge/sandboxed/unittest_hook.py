"""autofix's hook for `python -m unittest`: the run's result, sealed like pytest's.

autofix writes it for each run, after seal.py, audit.py and the run's header (bot/judge/hooks.py),
as `sitecustomize.py` in the run's root-owned hook folder, which it puts first on PYTHONPATH:
Python imports it at start-up, before the work folder is on sys.path. In a process started as
`python -m unittest ...` under autofix, it takes the run's nonce before the tests are imported,
adds the audit hook (audit.py: no frames, gc or tracing for code under repair), notes unittest's
machinery, and puts a sealed runTests on TestProgram. When unittest's own `python -m unittest`
program runs the suite, the counts (and what changed in that machinery, before the suite ran or
after) go out as one line signed with the nonce (an HMAC). A run that exits before that
(os._exit at import) has no verdict. In every other process it only hands over to the
sitecustomize it shadows, if there is one.

The signer lives in one generator's frame (`vault`), which runs the suite itself and signs only
for the program whose stack is `python -m unittest`'s: unittest's __main__ module, its
TestProgram.__init__, the sealed runTests, and nothing of the work folder's around them. The
sealed runTests holds nothing but what sends to that generator, so rebinding its closure or
calling it from a TestProgram of one's own signs nothing. The runner registers its result with
unittest.signals, where plain reads reach it: that registration is made to keep nothing.
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
    "unittest.signals",
)
STRAY = "unittest's runTests was called by code other than `python -m unittest`"


def started_as_unittest():
    argv = getattr(sys, "orig_argv", [])
    return any(argv[i] == "-m" and argv[i + 1] == "unittest" for i in range(len(argv) - 1))


def seal_unittest():
    fd, sign, _ = take_nonce()
    if sign is None:
        return
    import runpy  # what `-m` runs the module with: imported now, it is the one that will
    import unittest.main
    import unittest.runner
    import unittest.signals

    # The runner's result, registered for Ctrl-C handling, would sit in a module's dict that any
    # code reads: the registration goes to a built-in that keeps nothing (id), which no one patches.
    unittest.runner.registerResult = id
    unittest.signals.registerResult = id
    undumpable()  # no other process reads this one's memory (memory.py)
    refusals, observed, renamed = watch_runner()  # the audit hook, from now on (audit.py)
    alone(hide_collector)(sys.modules)  # gc's stand-in (collector.py)
    program = sys.modules["unittest.main"].TestProgram  # the package's `main` is the class itself
    main_file = os.path.join(os.path.dirname(unittest.__file__), "__main__.py")
    # Its functions' code, frozen or not: a frozen file's name is no evidence (renamed).
    starters = tuple(f.__code__ for f in vars(runpy).values() if type(f) is type(seal_unittest))
    bound = (refusals, observed, renamed, sys._getframe, inside_workdir, replaced, getattr, len, BaseException)
    stack = (program.__init__.__code__, main_file, starters)
    vault = guarded(writer(fd, sign), program.runTests, stack, RUN["sites"], bound)
    next(vault)
    sealed = alone(sealed_run, (vault.send,))
    program.runTests = sealed
    vault.send(("sealed", (sealed.__code__, identities(MACHINERY))))  # after the swaps: these are kept


def sealed_run(self, _send=None, *args, **kwargs):
    """TestProgram.runTests as autofix seals it: the vault runs the suite and signs; this only
    hands it the program and re-raises what the suite's run raised (its sys.exit). Made `alone`,
    `_send` in its defaults: TestProgram calls it with no arguments."""
    value, error = _send(("run", (self, args, kwargs)))
    if error is not None:
        raise error
    return value


def guarded(write, run_suite, stack, sites, bound):
    """The generator whose frame alone holds the signer (inside `write`) and the machinery as it
    was noted; everything it calls was bound at load (`bound`)."""
    refusals, observed, renamed, getframe, within, replaced_in, attribute, length, anything = bound
    sealed_code, original, ran, strays = None, None, False, []
    answer = None
    while True:
        kind, args = yield answer
        answer = None
        if kind == "sealed" and sealed_code is None:
            sealed_code, original = args
            continue
        if kind != "run":
            continue
        program, positional, named = args
        sender = getframe(1)  # the frame that sent this: the sealed runTests's, if genuine
        if ran or not genuine(sender, program, sealed_code, stack, within, renamed):
            if STRAY not in strays:
                strays.append(STRAY)
            answer = (None, RuntimeError("autofix: " + STRAY))
            continue
        ran = True
        before = replaced_in(original, "unittest")  # rebound at import, to be put back during the run
        value, error = None, None
        try:
            value = run_suite(program, *positional, **named)
        except anything as exc:  # its sys.exit, or what the run raised: handed back as it came
            error = exc
        result = attribute(program, "result", None)
        if result is not None:
            counts = {
                "run": result.testsRun,
                "failures": length(result.failures),
                "errors": length(result.errors),
                "skipped": length(result.skipped),
                "unexpected_successes": length(result.unexpectedSuccesses),
            }
            tampered = before + [line for line in replaced_in(original, "unittest") if line not in before]
            line = {"unittest": counts, "tampered": tampered + strays + refusals()}
            if sites is None:  # the tree as the repository has it: the places its own code asks
                line.update(plugins=[], sites=observed())
            write(line)
        answer = (value, error)


def genuine(frame, program, sealed_code, stack, within, renamed):
    """Whether `frame` is the sealed runTests called by unittest's own TestProgram.__init__ for
    `program`, from `python -m unittest`'s __main__ module, with nothing outside it but runpy's
    functions or code from outside the work folder that is what its file says (coverage's)."""
    init_code, main_file, starters = stack
    if frame is None or frame.f_code is not sealed_code:
        return False
    init = frame.f_back
    if init is None or init.f_code is not init_code or init.f_locals.get("self") is not program:
        return False
    top = init.f_back
    if top is None or top.f_code.co_name != "<module>" or top.f_code.co_filename != main_file or renamed(top.f_code):
        return False
    outer = top.f_back
    while outer is not None:
        code = outer.f_code
        if not any(code is starter for starter in starters) and (within(code.co_filename) or renamed(code)):
            return False
        outer = outer.f_back
    return True


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
    private()["seal_unittest"]()
hand_over()
