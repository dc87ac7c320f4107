"""The verdict's own guards, without the static guard in front: candidates that know autofix's
source try to forge, skip or redirect the judgement, on both sandbox tiers. Each must fail with
the reason its guard gives (the static guard would refuse most of them earlier: see
test_adversarial.py for the whole path)."""

import os
import subprocess
import sys

import pytest
from suite_env import PYTHON as SUITE_PYTHON

from bot.errors import UserError
from bot.judge import hooks
from bot.judge.validate import Validator, python_paths
from bot.judge.verdict import writable_in
from bot.sandbox.tiers import open_sandbox
from bot.spec import Spec

TIERS = ["bwrap", "landlock", "process"]
WRONG = "def unique_items(items):\n    return list(set(items))\n"
RIGHT = "def unique_items(items):\n    return list(dict.fromkeys(items))\n"
CHECKS = 'assert unique_items([3, 1, 3, 2, 1]) == [3, 1, 2], "order"\nassert unique_items([]) == [], "empty"\n'
TEST_FILE = """\
from unique import unique_items


def test_order():
    assert unique_items([3, 1, 3, 2, 1]) == [3, 1, 2]


def test_empty():
    assert unique_items([]) == []
"""
sandboxes = {}


def sandbox(tier):
    if tier not in sandboxes:
        sandboxes[tier] = open_sandbox(tier, readable=python_paths())
    return sandboxes[tier]


def validator(folder, tier, tests: dict, target="unique.py"):
    spec = Spec.model_validate({"task": "t", "target": target, "tests": tests, "timeout": 20})
    spec.workdir = folder
    return Validator(spec, sandbox(tier), screen=None)


def inline(tmp_path, tier):
    return validator(tmp_path, tier, {"code": CHECKS})


def suite(tmp_path, tier, command=f"{SUITE_PYTHON} -m pytest -q tests"):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_unique.py").write_text(TEST_FILE)
    return validator(tmp_path, tier, {"command": command})


@pytest.mark.parametrize("tier", TIERS)
def test_inline_checks_pass_and_fail_on_their_values(tmp_path, tier):
    checker = inline(tmp_path, tier)
    assert checker.check(RIGHT).passed
    verdict = checker.check(WRONG)
    assert verdict.failing == ["order"]
    assert verdict.feedback.startswith("Failing checks:\n- order: expected [3, 1, 2], got [1, 2, 3]")


@pytest.mark.parametrize("tier", TIERS)
def test_replacing_the_runners_function_changes_nothing(tmp_path, tier):
    forger = (
        "import sys\nsys.modules['__main__'].run_statement = lambda s, ns: {'line': s['line'], 'kind': 'ok'}\n" + WRONG
    )
    assert inline(tmp_path, tier).check(forger).failing == ["order"]


@pytest.mark.parametrize("tier", TIERS)
def test_wrapping_the_runner_to_swap_operands_changes_nothing(tmp_path, tier):
    forger = (
        "import sys\nmain = sys.modules['__main__']\nreal = getattr(main, 'run_statement', None)\n"
        "def swapped(statement, namespace):\n"
        "    if statement.get('kind') == 'compare':\n        statement = dict(statement, left=statement['right'])\n"
        "    return real(statement, namespace)\n"
        "main.run_statement = swapped\n" + WRONG
    )
    assert inline(tmp_path, tier).check(forger).failing == ["order"]


@pytest.mark.parametrize("tier", TIERS)
def test_a_result_line_forged_from_the_arguments_fails(tmp_path, tier):
    forger = (
        "import os, sys\n"
        "for arg in open('/proc/%d/cmdline' % os.getppid(), 'rb').read().split(b'\\0') + "
        "[a.encode() for a in sys.argv]:\n"
        "    if arg.startswith(b'@@'):\n"
        "        print(arg.decode() + repr({'import_error': None, "
        "'records': [{'line': 1, 'kind': 'ok'}, {'line': 2, 'kind': 'ok'}]}))\n"
        "print('@@autofix-' + '0' * 32 + '@@' + repr({'import_error': None, 'records': []}))\n"
        "sys.stdout.flush()\nos._exit(0)\n" + WRONG
    )
    verdict = inline(tmp_path, tier).check(forger)
    assert verdict.failing == ["(import)"]
    assert "the candidate's process ended or broke the protocol (exit code 0)" in verdict.feedback


@pytest.mark.parametrize("tier", TIERS)
def test_the_checker_cannot_be_read_or_killed_into_a_pass(tmp_path, tier):
    snoop = (
        "import os\nparent = os.getppid()\nfound = []\n"
        "for name in ('mem', 'environ', 'fd/1'):\n"
        "    try:\n        open(f'/proc/{parent}/{name}', 'rb').read(1)\n        found.append(name)\n"
        "    except OSError as exc:\n        found.append(type(exc).__name__)\n"
        "print('SNOOP', found)\nos.kill(parent, 9)\n" + WRONG
    )
    verdict = inline(tmp_path, tier).check(snoop)
    assert verdict.failing == ["(all checks)"]
    assert "SNOOP ['PermissionError', 'PermissionError', 'PermissionError']" in verdict.feedback


@pytest.mark.parametrize("tier", TIERS)
def test_objects_travel_by_reference_and_their_operators_are_theirs(tmp_path, tier):
    code = (
        "class Stack:\n    def __init__(self):\n        self.items = []\n"
        "    def push(self, x):\n        self.items.append(x)\n"
        "    def pop(self):\n        return self.items.pop()\n    def __len__(self):\n        return len(self.items)\n"
        "def apply(f, x):\n    return f(x)\ndef boom():\n    raise ValueError('bad')\n"
        "def count(n):\n    yield from range(n)\n"
    )
    checks = (
        "s = Stack()\ns.push(3)\nassert s.pop() == 3, 'pop'\nassert len(s) == 0, 'len'\n"
        "assert apply(lambda x: x + 1, 2) == 3, 'lambda'\n"
        "try:\n    boom()\nexcept ValueError as exc:\n    assert str(exc) == 'bad'\n"
        "else:\n    raise AssertionError('no raise')\n"
        "assert list(count(3)) == [0, 1, 2], 'generator'\nassert Stack() == [], 'object'\n"
    )
    verdict = validator(tmp_path, tier, {"code": checks}).check(code)
    assert verdict.failing == ["object"]
    assert "- object: the result is a Stack object; checks compare plain values" in verdict.feedback
    assert verdict.inprocess == ["lambda"]  # a lambda can't cross: that check ran in the candidate's process


@pytest.mark.parametrize("tier", TIERS)
def test_a_candidates_builtin_names_do_not_judge_its_results(tmp_path, tier):
    liar = WRONG + "def len(x):\n    return 0\ndef isinstance(x, y):\n    return True\n"
    checks = "assert len(unique_items([1, 1])) == 1, 'len'\nassert isinstance(unique_items([]), tuple), 'type'\n"
    assert validator(tmp_path, tier, {"code": checks}).check(liar).failing == ["type"]


@pytest.mark.parametrize("tier", TIERS)
def test_pytest_passes_and_fails_on_the_candidate(tmp_path, tier):
    checker = suite(tmp_path, tier)
    assert checker.check(RIGHT).passed
    verdict = checker.check(WRONG)
    assert verdict.failing == ["tests.test_unique::test_order"], verdict.feedback


@pytest.mark.parametrize("tier", TIERS)
def test_replacing_runtest_fails(tmp_path, tier):
    forger = "import _pytest.python\n_pytest.python.Function.runtest = lambda self: None\n" + WRONG
    verdict = suite(tmp_path, tier).check(forger)
    assert verdict.failing == ["(pytest)", "(pytest)"]  # the canaries, and the machinery check
    assert verdict.forged
    assert (
        "(pytest): pytest's _pytest.python.Function.runtest was replaced during the run; "
        "the tests' machinery may not change" in verdict.feedback
    )


# The suite's own conftest hands the config out, as if code under repair held the plugin manager
# (no plain read leads it there: test_runner_reach.py): the checks behind that still hold.
HANDS_OUT = "import sys\n\n\ndef pytest_configure(config):\n    sys.runner_config = config\n"


def handing_out(tmp_path, tier):
    judge = suite(tmp_path, tier)
    (tmp_path / "tests" / "conftest.py").write_text(HANDS_OUT)
    return judge


@pytest.mark.parametrize("tier", TIERS)
def test_a_hookwrapper_registered_with_the_plugin_manager_fails(tmp_path, tier):
    forger = (
        "import sys, pytest\n"
        "class Passing:\n"
        "    @pytest.hookimpl(wrapper=True)\n"
        "    def pytest_runtest_makereport(self, item, call):\n"
        "        report = yield\n        report.outcome = 'passed'\n        return report\n"
        "sys.runner_config.pluginmanager.register(Passing())\n" + WRONG
    )
    verdict = handing_out(tmp_path, tier).check(forger)
    assert verdict.forged  # the canaries came back passed, and the hook's origin shows
    assert verdict.failing == ["(pytest)", "(pytest)"]
    assert (
        "(pytest): the hook pytest_runtest_makereport was implemented by unique.py during the run" in verdict.feedback
    )


@pytest.mark.parametrize("tier", TIERS)
def test_a_test_function_swapped_for_the_candidates_fails(tmp_path, tier):
    # The first call swaps every test item's function for one that passes (no hook involved).
    forger = (
        "import sys\n"
        "def unique_items(items):\n"
        "    if not items:\n        raise ValueError('not solved')\n"
        "    for found in sys.runner_config.pluginmanager.get_plugin('session').items:\n"
        "        found.obj = lambda: None\n"
        "    return list(dict.fromkeys(items))\n"
    )
    verdict = handing_out(tmp_path, tier).check(forger)
    assert verdict.forged
    assert verdict.failing.count("(pytest)") == len(verdict.failing) >= 3
    assert "tests/test_unique.py::test_empty: runs a function from unique.py instead of its own" in verdict.feedback


@pytest.mark.parametrize("tier", TIERS)
def test_a_forged_junit_report_and_early_exit_fail(tmp_path, tier):
    forger = (
        "import os, re, tempfile\n"
        "options = os.environ.get('PYTEST_ADDOPTS', '')\n"
        "path = (re.findall(r'--junitxml=(\\S+)', options) or [tempfile.gettempdir() + '/report.xml'])[0]\n"
        'open(path, \'w\').write(\'<testsuite><testcase classname="tests.test_unique" name="test_order"/>'
        '<testcase classname="tests.test_unique" name="test_empty"/></testsuite>\')\n'
        "fd = int(os.environ.get('AUTOFIX_VERDICT_FD', '-1'))\n"
        "if fd >= 0:\n"
        "    os.write(fd, b'\\n@@autofix-verdict-' + b'0' * 32 + b'@@' + "
        "repr({'exitstatus': 0, 'cases': [], 'tampered': [], 'paths': [], 'loaded': []}).encode())\n"
        "os._exit(0)\n" + WRONG
    )
    verdict = suite(tmp_path, tier).check(forger)
    assert verdict.failing == ["(pytest)"]
    assert "(pytest): the test run ended before pytest finished its session (exit code 0)" in verdict.feedback


@pytest.mark.parametrize("tier", TIERS)
def test_a_module_level_skip_fails(tmp_path, tier):
    skipper = "import pytest\npytest.skip('not today', allow_module_level=True)\n" + WRONG
    verdict = suite(tmp_path, tier).check(skipper)
    assert verdict.failing == ["tests.test_unique", "tests.test_unique"]  # skipped, and its tests did not run
    assert "tests/test_unique.py: skipped (not today), but tests may not be skipped" in verdict.feedback


@pytest.mark.parametrize("tier", TIERS)
def test_a_conftest_written_at_run_time_fails(tmp_path, tier):
    # The tree is read-only to the run: a conftest written during collection (that would turn
    # failures into passes and delete itself before the comparison) can't be written at all.
    plugin = "import pytest\n@pytest.hookimpl(tryfirst=True)\ndef pytest_runtest_call(item):\n    return True\n"
    checker = suite(tmp_path, tier)
    (tmp_path / "tests" / "sub").mkdir()
    writer = f"open('tests/sub/conftest.py', 'w').write({plugin!r})\n" + WRONG
    verdict = checker.check(writer)
    assert verdict.failing == ["tests.test_unique"]
    assert "PermissionError" in verdict.feedback or "Read-only file system" in verdict.feedback
    assert not (tmp_path / "tests" / "sub" / "conftest.py").exists()


@pytest.mark.parametrize("tier", TIERS)
def test_unittest_exiting_at_import_fails(tmp_path, tier):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_unique.py").write_text(
        "import unittest\nfrom unique import unique_items\n\n\nclass Unique(unittest.TestCase):\n"
        "    def test_order(self):\n        self.assertEqual(unique_items([3, 1, 3]), [3, 1])\n"
    )
    checker = validator(tmp_path, tier, {"command": f"{sys.executable} -m unittest discover -s tests"})
    assert checker.check(RIGHT).passed
    assert checker.check(WRONG).feedback.startswith(
        f"Failing checks:\n- {sys.executable} -m unittest discover -s tests: 1 failed, 0 errors"
    )
    verdict = checker.check("import os\nos._exit(0)\n" + WRONG)
    assert "the test run ended before unittest finished the suite (exit code 0)" in verdict.feedback
    patched = (
        "import unittest\nunittest.TestResult.wasSuccessful = lambda self: True\n"
        "unittest.TestCase.run = lambda self, result=None: None\n" + WRONG
    )
    verdict = checker.check(patched)
    assert "(unittest): unittest's unittest.case.TestCase.run was replaced during the run" in verdict.feedback


@pytest.mark.parametrize("tier", TIERS)
def test_a_cache_the_suite_writes_in_an_exempt_folder_is_not_tampering(tmp_path, tier):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_unique.py").write_text(TEST_FILE)
    command = f"{SUITE_PYTHON} -m pytest -q tests"
    checker = validator(tmp_path, tier, {"command": command, "exempt": ["tests/.hypothesis"]})
    (tmp_path / "tests" / "test_cache.py").write_text(
        "import os, tempfile\n\n\ndef test_cache():\n"
        "    os.makedirs('tests/.hypothesis/examples', exist_ok=True)\n"
        "    open('tests/.hypothesis/examples/x', 'w').write('saved')\n"
        "    open(os.path.join(tempfile.gettempdir(), '.coverage.host.1'), 'w').write('data')\n"
    )
    assert checker.check(RIGHT).passed


@pytest.mark.parametrize("tier", TIERS)
def test_a_suite_that_writes_elsewhere_in_the_tree_is_told_where_and_how(tmp_path, tier):
    checker = suite(tmp_path, tier)
    (tmp_path / "tests" / "test_cache.py").write_text(
        "def test_cache():\n    open('tests/results.txt', 'w').write('saved')\n"
    )
    with pytest.raises(UserError, match=r"the tests write tests/results\.txt, and the tree under test is read-only"):
        checker.check(RIGHT)


@pytest.mark.parametrize("tier", TIERS)
def test_an_import_path_into_the_original_folder_is_a_configuration_error(tmp_path, tier):
    (tmp_path / "src").mkdir()
    checker = suite(tmp_path, tier, f"PYTHONPATH={tmp_path}/src:$PYTHONPATH {SUITE_PYTHON} -m pytest -q tests")
    with pytest.raises(UserError, match=f"the tests import from {tmp_path}/src, inside the work folder autofix copies"):
        checker.check(RIGHT)


@pytest.mark.parametrize("tier", TIERS)
def test_a_relative_import_path_entry_is_the_run_s_own_wherever_autofix_runs(tmp_path, monkeypatch, tier):
    """An editable install of another project puts setuptools' path-hook marker on sys.path
    ("__editable__.pkg-1.0.finder.__path_hook__"), a name, not a folder. Read from autofix's own
    working folder (the original: `autofix run` in the spec's folder), it was "inside the work
    folder" and every run was refused; it names nothing outside the copy the run had."""
    checker = suite(tmp_path, tier)
    (tmp_path / "tests" / "conftest.py").write_text(
        "import sys\n\nsys.path.append('__editable__.other-1.0.finder.__path_hook__')\n"
    )
    monkeypatch.chdir(tmp_path)
    assert checker.check(RIGHT).passed
    assert not checker.check(WRONG).passed


@pytest.mark.parametrize("tier", TIERS)
def test_an_installed_copy_that_shadows_the_target_is_a_configuration_error(tmp_path, tier):
    installed = tmp_path.parent / f"{tmp_path.name}-site"
    installed.mkdir()
    (installed / "unique.py").write_text(RIGHT)
    installed.chmod(0o755)
    work = tmp_path / "work"
    work.mkdir()
    (work / "tests").mkdir()
    (work / "tests" / "test_unique.py").write_text(TEST_FILE)
    # The copy comes first on the path, as an installed package does when the tests run from elsewhere.
    checker = validator(
        work,
        tier,
        {
            "command": f"cd tests && PYTHONPATH={installed}:$PYTHONPATH "
            f"{SUITE_PYTHON} -m pytest -q -p no:cacheprovider ."
        },
    )
    checker.sandbox = open_sandbox(tier, readable=[*python_paths(), installed])
    with pytest.raises(
        UserError, match=f"the tests imported unique from {installed}/unique.py, not from the copy under test"
    ):
        checker.check(WRONG)


def test_the_original_folder_is_never_shown_to_the_sandbox(tmp_path):
    inside = tmp_path / "src"
    inside.mkdir()
    sys.path.append(str(inside))
    try:
        assert inside in python_paths()
        assert inside not in python_paths(tmp_path)
    finally:
        sys.path.remove(str(inside))


def test_the_plugin_is_inert_outside_autofix(tmp_path):
    (tmp_path / "test_x.py").write_text("def test_x():\n    pass\n")
    empty = os.memfd_create("not-a-verdict")
    try:
        with hooks.generated(empty, None, tmp_path, "") as hook:
            environ = {"PYTHONPATH": str(hook.folder), "PATH": "/usr/bin:/bin"}
            done = subprocess.run(
                [SUITE_PYTHON, "-m", "pytest", "-q", "-p", hook.plugin, "-p", "no:cacheprovider", str(tmp_path)],
                capture_output=True,
                text=True,
                env=environ,
                cwd=tmp_path,
                pass_fds=(empty,),
            )
    finally:
        os.close(empty)
    assert done.returncode == 0
    assert "1 passed" in done.stdout


@pytest.mark.parametrize("tier", TIERS)
def test_the_plugin_is_nowhere_a_candidate_could_patch_it(tmp_path, tier):
    # The candidate has read the plugin: it looks through every loaded module for the one that
    # records the verdict, to rebind what writes it and what checks the machinery. Once the
    # session is configured the plugin is in no sys.modules, and what it calls is in no global.
    forger = (
        "import sys\n"
        "found = []\n"
        "for module in list(sys.modules.values()):\n"
        "    names = getattr(module, '__dict__', {})\n"
        "    if isinstance(names, dict) and 'writer' in names and 'pytest_configure' in names:\n"
        "        found.append(module.__name__)\n"
        "        names['writer'] = names['tampering'] = lambda *args: []\n"
        "if found:\n    raise RuntimeError('found the plugin: ' + ' '.join(found))\n" + WRONG
    )
    verdict = suite(tmp_path, tier).check(forger)
    assert not verdict.forged
    assert verdict.failing == ["tests.test_unique::test_order"], verdict.feedback
    assert "found the plugin" not in verdict.feedback


@pytest.mark.parametrize("tier", TIERS)
def test_the_verdicts_channel_gives_a_reader_nothing_to_sign_with(tmp_path, tier):
    # The candidate reads the descriptor's number from the generated plugin and the channel itself
    # (what a run's own process can always do), waits for the session's line, and appends its own
    # with every test passed, signed with whatever the channel showed it, then exits 0.
    forger = (
        "import ast, glob, hashlib, hmac, os, re, threading, time\n"
        "def watch(fd):\n"
        "    while True:\n"
        "        data = os.pread(fd, 1 << 24, 0)\n"
        "        if b\"'cases'\" in data:\n"
        "            keys = set(re.findall(rb'@@autofix-verdict[^@]*@@', data))\n"
        "            record = {'exitstatus': 0, 'cases': [], 'tampered': [], 'paths': [], 'loaded': []}\n"
        "            body = repr(record).encode()\n"
        "            for key in keys:\n"
        "                mac = hmac.new(key, body, hashlib.sha256).hexdigest().encode()\n"
        "                forged = b'\\n' + key + mac + body + b'\\n' + key + body + b'\\n'\n"
        "                os.pwrite(fd, forged, os.fstat(fd).st_size)\n"
        "            os.execv('/bin/true', ['true'])\n"
        "        time.sleep(0.001)\n"
        "for path in glob.glob(os.path.join(os.environ['PYTHONPATH'].split(':')[0], 'm*.py')):\n"
        "    if not re.fullmatch(r'm[0-9a-f]{16}[.]py', os.path.basename(path)):\n"
        "        continue  # the plugin's body and sitecustomize's, beside it\n"
        "    fd = int(re.search(r\"'fd': (\\d+)\", open(path).readline()).group(1))\n"
        "    threading.Thread(target=watch, args=(fd,), daemon=True).start()\n" + WRONG
    )
    verdict = suite(tmp_path, tier).check(forger)
    assert verdict.failing == ["tests.test_unique::test_order"], verdict.feedback


@pytest.mark.parametrize("tier", TIERS)
def test_files_named_as_autofix_hooks_were_shadow_nothing(tmp_path, tier):
    # The names the plugin and its helpers had before: files of the work folder's root, first on
    # the tests' sys.path, that would have stood in for them and reported every test passed.
    checker = suite(tmp_path, tier)
    (tmp_path / "autofix_seal.py").write_text("raise SystemExit('shadowed')\n")
    (tmp_path / "autofix_verdict.py").write_text("raise SystemExit('shadowed')\n")
    (tmp_path / "sitecustomize.py").write_text("raise SystemExit('shadowed')\n")
    assert checker.check(RIGHT).passed
    assert checker.check(WRONG).failing == ["tests.test_unique::test_order"]


@pytest.mark.parametrize("tier", TIERS)
def test_a_plain_pytest_command_hands_the_verdict_to_pytest_alone(tmp_path, tier):
    # No variable names the plugin or a descriptor, and a process the tests start inherits no
    # descriptor beyond its standard three.
    checker = suite(tmp_path, tier)
    (tmp_path / "tests" / "test_env.py").write_text(
        "import os, subprocess, sys\n\n\ndef test_nothing_of_the_verdict_is_inherited():\n"
        "    assert [k for k in os.environ if 'AUTOFIX' in k or k == 'PYTEST_ADDOPTS'] == []\n"
        "    child = [sys.executable, '-c', 'import os; print(sorted(os.listdir(\"/proc/self/fd\")))']\n"
        "    assert subprocess.run(child, capture_output=True, text=True).stdout == \"['0', '1', '2', '3']\\n\"\n"
    )
    assert checker.check(RIGHT).passed


@pytest.mark.parametrize("tier", ["bwrap"])
def test_a_suite_whose_own_conftest_rewrites_outcomes_cannot_judge(tmp_path, tier):
    (tmp_path / "unique.py").write_text(WRONG)  # the current code, which the preflight runs the suite on
    checker = suite(tmp_path, tier)
    (tmp_path / "tests" / "conftest.py").write_text(
        "import pytest\n\n\n@pytest.hookimpl(wrapper=True)\ndef pytest_runtest_makereport(item, call):\n"
        "    report = yield\n    report.outcome = 'passed'\n    return report\n"
    )
    with pytest.raises(UserError, match="on the current code, the test run's report was tampered with"):
        checker.check(RIGHT)


def test_a_check_judged_in_the_candidates_process_is_said_so(tmp_path, capsys):
    import json

    from fake_openai import ScriptedOpenAI

    from bot.cli import main

    spec = tmp_path / "task.yml"
    spec.write_text(
        "task: t\ntarget: apply.py\ntests:\n  code: |\n    assert apply(lambda x: x + 1, 2) == 3, 'lambda'\n"
        "    assert apply(abs, -2) == 2, 'builtin'\n"
    )
    reply = "```python\ndef apply(f, x):\n    return f(x)\n```"
    with ScriptedOpenAI([reply]) as fake:
        code = main(
            ["run", str(spec), "--model", "m", "--base-url", fake.base_url, "--report", str(tmp_path / "r.json")]
        )
    assert code == 0
    headline = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("attempt 1/3  PASS"))
    assert headline.endswith(
        "tokens  (2 checks judged in the candidate's process)"
    )  # a lambda and a built-in can't cross
    assert json.loads((tmp_path / "r.json").read_text())["attempts"][0]["inprocess_checks"] == ["lambda", "builtin"]


@pytest.mark.parametrize("tier", TIERS)
def test_records_forged_in_the_candidates_process_are_caught_by_the_planted_check(tmp_path, tier):
    # A lambda can't cross to the checker, so the check that passes one runs in the candidate's
    # process, whose runner the candidate replaced: every comparison there comes back equal.
    forger = (
        "import sys\n"
        "main = sys.modules['__main__']\n"
        "def forged(statement, namespace):\n"
        "    if statement.get('kind') == 'compare':\n"
        "        return {'line': statement['line'], 'kind': 'compare', 'op': statement['op'],\n"
        "                'left': ['int', '1'], 'right': ['int', '1']}\n"
        "    return real(statement, namespace)\n"
        "real = getattr(main, 'run_statement', None)\n"
        "if real is not None:\n"
        "    main.run_statement = forged\n"
        "def apply(f, x):\n    return f(x)\n"
    )
    checks = "assert apply(lambda x: x + 1, 2) == 4, 'lambda'\n"
    verdict = validator(tmp_path, tier, {"code": checks}, target="apply.py").check(forger)
    assert verdict.forged
    assert verdict.failing == ["(checks)"]
    assert verdict.feedback == (
        "Failing checks:\n- (checks): the test run's report was tampered with: "
        "a check that fails by construction passed (line 1)"
    )


def test_the_exempt_folders_are_made_and_lent_without_following_the_trees_links(tmp_path):
    # The copy holds what a pull request committed: a link where an exempt folder's parent goes
    # must not make autofix (root) create the folder wherever the link points.
    outside, work = tmp_path / "outside", tmp_path / "work"
    outside.mkdir()
    (work / "tests").mkdir(parents=True)
    (work / "tests" / "record.json").write_text("{}")
    (work / "out").symlink_to(outside)
    (work / "cache").symlink_to(outside)
    lent = writable_in(work, ["out/cache", "cache", "tests/record.json", "build/reports", "*.log", "../up"])
    assert lent == [str(work / "tests" / "record.json"), str(work / "build" / "reports")]
    assert list(outside.iterdir()) == []
    assert (work / "build" / "reports").is_dir()


# A wrapper that says, by functools.wraps, that it is pytest's own function runs its own code.
WRAPS = """\
import functools
import _pytest.runner

_real = _pytest.runner.call_and_report


@functools.wraps(_real)
def call_and_report(item, when, log=True, **kwds):
    report = _real(item, when, False, **kwds)
    if item.name == "test_order" and when == "call":
        report.outcome, report.longrepr = "passed", None
    if log:
        item.ihook.pytest_runtest_logreport(report=report)
    return report


_pytest.runner.call_and_report = call_and_report
"""


@pytest.mark.parametrize("tier", TIERS)
def test_a_replacement_that_names_the_original_as_wrapped_is_still_found(tmp_path, tier):
    verdict = suite(tmp_path, tier).check(WRAPS + WRONG)
    assert not verdict.passed
    assert (
        "(pytest): pytest's _pytest.runner.call_and_report was replaced during the run; "
        "the tests' machinery may not change" in verdict.feedback
    )


# Holding the config, code under repair gives the failing test, during its own call, a planted
# canary's node id: the failing report is filed under the canary, which must fail anyway, and
# test_order keeps its setup's "passed" (a second attacker's find: nothing registered, nothing
# replaced). Each report must carry the node id its item was collected with.
RENAMED_ID = """\
import sys

_done = []


def _must_fail(item):
    try:
        item.obj()
    except AssertionError:
        return True
    except Exception:
        return False
    return False


def _rename():
    session = sys.runner_config.pluginmanager.get_plugin("session")
    item = next(found for found in session.items if found.name == "test_order")
    own = open(str(item.path)).read()
    for other in session.items:
        if "def " + other.name + "(" not in own and _must_fail(other):
            item._id = other._id
            return


def unique_items(items):
    if items and not _done:
        _done.append(1)
        _rename()
    return list(set(items))
"""


@pytest.mark.parametrize("tier", TIERS)
def test_a_report_filed_under_another_tests_id_fails(tmp_path, tier):
    verdict = handing_out(tmp_path, tier).check(RENAMED_ID)
    assert not verdict.passed
    assert (
        "(pytest): a report of tests/test_unique.py::test_order came back as tests/test_unique.py::" in verdict.feedback
    )


def test_the_same_failure_reads_the_same_in_every_run(tmp_path):
    """An object's repr names its address, which differs between runs: feedback that quoted it
    would differ for the same failure (and an eval's strategies, sharing their first call by its
    prompt, would each make their own)."""
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_unique.py").write_text(
        "from unique import unique_items\n\n\nclass Box:\n    pass\n\n\n"
        "def test_order():\n    box = Box()\n    assert unique_items([3, 1, 3]) == [3, 1], box\n"
    )
    checker = validator(tmp_path, "bwrap", {"command": f"{SUITE_PYTHON} -m pytest -q tests"})
    first, second = checker.check(WRONG).feedback, checker.check(WRONG).feedback
    assert "<test_unique.Box object at 0x…>" in first
    assert first == second
