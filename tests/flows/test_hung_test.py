"""A timed-out run names the test that hung and where (#45): through `autofix run`, the real
sandbox and pytest, a candidate whose function never returns is told which test was running when
the run's time ran out (the plugin's signed line) and in which function, at which line (the
stack it dumped just before), not only "timed out after 8 s"."""

import json
import re

from fake_openai import ScriptedOpenAI
from test_existing_code import PYTEST

from bot.cli import main

TESTS = """\
from mod import f, g


def test_quick():
    assert g() == 1


def test_loop():
    assert f(3) == 6
"""
LOOPING = (
    "```python\ndef g():\n    return 1\n\n\ndef f(n):\n    total = 0\n    while n:\n        total += n\n"
    "    return total\n```"
)
RIGHT = "```python\ndef g():\n    return 1\n\n\ndef f(n):\n    return n * (n + 1) // 2\n```"


def test_a_looping_candidate_s_feedback_names_the_test_that_hung_and_where(tmp_path, capsys):
    (tmp_path / "test_mod.py").write_text(TESTS)
    spec = tmp_path / "task.yml"
    spec.write_text(
        "task: f(n) is 1 + 2 + ... + n; g() is 1.\ntarget: mod.py\n"
        f"tests:\n  command: {json.dumps(PYTEST + ' test_mod.py')}\ntimeout: 8\nstrategy: repair+resample\n"
    )
    report = tmp_path / "report.json"
    with ScriptedOpenAI([LOOPING, RIGHT]) as fake:
        code = main(["run", str(spec), "--base-url", fake.base_url, "--model", "m", "--report", str(report)])
    assert code == 0, capsys.readouterr().out
    first = json.loads(report.read_text())["attempts"][0]
    assert first["failing_tests"] == ["test_mod::test_loop"]
    line = r"^- test_mod\.py::test_loop: hung \(over (\d) s\) in (.*): the run (.*)$"
    told = re.search(line, first["feedback"], re.M)
    assert told is not None, first["feedback"]
    assert int(told[1]) < 8  # it started after pytest did, within the run's 8 s
    # where the dump caught it: one of the two lines the loop spins on (`while n:`, `total += n`)
    assert told[2] in ("f() at mod.py:7", "f() at mod.py:8") and told[3] == "timed out after 8 s"
    # The model is told so, with the stack's frames in the work folder and no others.
    repair = fake.prompts()[1]
    at = told[2].rpartition(":")[2]  # the line the dump caught, as the report names it
    assert f"test_mod.py::test_loop: hung (over {told[1]} s) in f() at mod.py:{at}" in repair
    assert f'\n  File "mod.py", line {at} in f\n  File "test_mod.py", line 9 in test_loop' in repair
    assert "_pytest" not in repair
