"""Runs inside the sandbox for bot/eval/repo_tasks.py: `python -S -c <this file> JOB`, stdlib only.

JOB (a JSON file) holds one HumanEval problem: its module as the canonical solution has it, the
mutants of its entry function, its test code (which defines `check(candidate)`) and the seconds
one check may take. The canonical module runs its check first, then each mutant in turn, each in
a namespace of its own with the test code, as HumanEval's own harness puts them together. The
function handed to `check` records every call, so when the check fails, the last call is the
failing example: its arguments, what the mutant returned or raised, and what the canonical
function returns for the same arguments. The first mutant that returns a wrong value ends the
run: nothing after it can be chosen. The answer is one line, MARK then JSON, on stdout.
"""

import copy
import json
import random
import signal
import sys

MARK = "@@autofix-probe@@ "


class Timeout(BaseException):
    """Raised by the timer inside the checked code: a BaseException, so no `except Exception`
    of the code or the check swallows it."""


def ring(signum, frame):
    raise Timeout


def load(source, test):
    namespace = {"__name__": "problem"}
    exec(compile(source, "problem.py", "exec"), namespace)
    exec(compile(test, "check.py", "exec"), namespace)
    return namespace


def timed(seconds, function, *args, **kwargs):
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return function(*args, **kwargs)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def described(error):
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


def call_text(entry, args, kwargs):
    return f"{entry}({', '.join([repr(a) for a in args] + [f'{k}={v!r}' for k, v in kwargs.items()])})"


def probe(source, job, canonical):
    """One module's verdict: `passed`, `wrong` or `raises` with the example, or `unclear` (the
    check failed but its last call doesn't show it) or `stopped` (too slow, out of memory)."""
    entry, seconds = job["entry"], job["seconds"]
    last: dict = {}  # the last call to the function: its arguments, then its value or exception
    try:
        namespace = load(source, job["test"])
        function = namespace[entry]

        def candidate(*args, **kwargs):
            last.clear()
            last["call"] = copy.deepcopy((args, kwargs))  # before the call: the function may change them
            try:
                last["value"] = function(*args, **kwargs)
            except Exception as error:  # recorded for the example, then raised on
                last["raised"] = error
                raise
            return last["value"]

        random.seed(0)  # some checks draw their inputs at random: the example must be the same every run
        timed(seconds, namespace["check"], candidate)
    except (Timeout, MemoryError) as error:
        return {"outcome": "stopped", "why": "too slow" if isinstance(error, Timeout) else "out of memory"}
    except Exception as error:  # noqa: BLE001 - whatever the code raises fails the check
        failure = error
    else:
        return {"outcome": "passed"}
    if "call" not in last:
        return {"outcome": "unclear", "why": f"the check failed before calling {entry}: {described(failure)}"}
    args, kwargs = last["call"]
    try:
        expected = timed(seconds, canonical, *copy.deepcopy(args), **copy.deepcopy(kwargs))
    except (Timeout, Exception) as error:  # noqa: BLE001 - then the example can't be told
        return {"outcome": "unclear", "why": f"the canonical solution fails on the same call: {described(error)}"}
    example = {"call": call_text(entry, args, kwargs), "expected": repr(expected)}
    if "raised" in last:
        return {"outcome": "raises", "got": described(last["raised"])} | example
    if repr(last["value"]) == example["expected"]:
        return {"outcome": "unclear", "why": "the last call returned the right value"}
    return {"outcome": "wrong", "got": repr(last["value"])} | example


def main(path):
    signal.signal(signal.SIGALRM, ring)
    with open(path, encoding="utf-8") as file:
        job = json.load(file)
    canonical = load(job["canonical"], job["test"])[job["entry"]]
    answer = {"canonical": probe(job["canonical"], job, canonical), "mutants": []}
    if answer["canonical"]["outcome"] == "passed":
        for source in job["mutants"]:
            answer["mutants"].append(probe(source, job, canonical))
            if answer["mutants"][-1]["outcome"] == "wrong":
                break
    sys.stdout.write(MARK + json.dumps(answer) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
