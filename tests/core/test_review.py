"""The reviewer's section: what a change adds that reaches out, found statically, old file vs new."""

import base64

from bot.core.review import findings, section

PAYLOAD = base64.b64encode(bytes(range(225))).decode()  # 300 characters
OLD = "import os\n\n\ndef unique_items(items):\n    return list(set(items))\n"
RISKY = f'''import os
import subprocess
import urllib.request

BLOB = "{PAYLOAD}"


def unique_items(items):
    subprocess.run(["true"], check=False)
    urllib.request.urlopen("http://127.0.0.1:9")
    home = os.environ["HOME"]
    return list(dict.fromkeys(items))
'''


def lines(found):
    return [(f.path, f.line, f.kind, f.detail) for f in found]


def test_a_risky_fix_names_each_addition_with_its_file_and_line():
    found = lines(findings({"pkg/unique.py": (OLD, RISKY)}, ["pkg/unique.py"]))
    assert ("pkg/unique.py", 2, "process", "subprocess") in found
    assert ("pkg/unique.py", 9, "process", "subprocess.run") in found
    assert ("pkg/unique.py", 3, "network", "urllib.request") in found
    assert ("pkg/unique.py", 10, "network", "urllib.request.urlopen") in found
    assert ("pkg/unique.py", 11, "environment", "os.environ") in found
    [(path, line, _, detail)] = [f for f in found if f[2] == "long literal"]
    assert (path, line) == ("pkg/unique.py", 5) and detail.endswith("(300 characters, base64-looking)")
    assert len(found) == 6
    shown = section(findings({"pkg/unique.py": (OLD, RISKY)}, ["pkg/unique.py"]))
    assert shown.startswith("### For the reviewer\n")
    assert "- `pkg/unique.py:10` — network: `urllib.request.urlopen`" in shown
    assert "- `pkg/unique.py:11` — environment: `os.environ`" in shown


def test_a_plain_fix_gets_nothing_of_these_kinds():
    plain = OLD.replace("set(items)", "dict.fromkeys(items)")
    assert findings({"pkg/unique.py": (OLD, plain)}, ["pkg/unique.py"]) == []
    assert "Nothing of these kinds" in section([])


def test_only_what_the_change_adds_counts():
    more = RISKY.replace("    return list", '    subprocess.run(["false"], check=False)\n    return list')
    assert findings({"pkg/unique.py": (RISKY, more)}, None) == []


def test_aliases_dynamic_code_and_outside_paths():
    new = (
        "from os import environ as env, system\nimport pickle\n\n"
        "def f(x):\n    system('ls')\n    eval(x)\n    open('/etc/passwd')\n    open('../../secret')\n"
        "    return env, pickle.loads(x), '/'.join(['a'])\n"
    )
    found = {(f.line, f.kind, f.detail) for f in findings({"a.py": (None, new)}, None)}
    assert found == {
        (1, "environment", "os.environ"),
        (1, "process", "os.system"),
        (2, "dynamic code", "pickle"),
        (5, "process", "os.system"),
        (6, "dynamic code", "eval()"),
        (7, "outside file", "/etc/passwd"),
        (8, "outside file", "../../secret"),
        (9, "environment", "os.environ"),
        (9, "dynamic code", "pickle.loads"),
    } - {(5, "process", "os.system"), (9, "environment", "os.environ")}  # each (kind, detail) once, first line


def test_packaging_ci_and_unnamed_files_are_named_for_any_file_type():
    changes = {
        ".github/workflows/ci.yml": ("on: push\n", "on: push\njobs: {}\n"),
        "requirements-dev.txt": ("pytest\n", "pytest\nevil\n"),
        "pkg/unique.py": (OLD, OLD.replace("set", "sorted")),
        "notes.txt": (None, "hello\n"),
    }
    found = {(f.path, f.line, f.kind) for f in findings(changes, ["pkg/unique.py"])}
    assert found == {
        (".github/workflows/ci.yml", 2, "packaging/CI"), (".github/workflows/ci.yml", 2, "not named"),
        ("requirements-dev.txt", 2, "packaging/CI"), ("requirements-dev.txt", 2, "not named"),
        ("notes.txt", 1, "not named"),
    }  # fmt: skip


def test_a_long_list_is_cut_with_the_count_of_the_rest():
    new = "".join(f"import socket as s{n}\n" for n in range(60))
    found = findings({"a.py": (None, new)}, None)
    assert len(found) == 1  # one (kind, detail): `socket`, at its first line
    many = findings({f"p{n}/conftest.py": (None, "") for n in range(55)}, None)
    shown = section(many)
    assert shown.count("\n- `") == 50 and shown.endswith("\n- and 5 more")


def test_what_the_guard_lets_through_of_self_inspection_is_named():
    """The guard refuses code that reads its own source or looks for its tests; what it lets
    through of the same names (a file beside the module, its own module, a signature, the command
    line of a script) still deserves a look."""
    new = (
        "import inspect\nimport json\nimport os\nimport sys\nfrom importlib.resources import files\n\n"
        "DATA = json.load(open(os.path.join(os.path.dirname(__file__), 'data.json')))\n"
        "SCHEMA = files(__package__).joinpath('schema.json')\n\n"
        "def arity(f):\n    return len(inspect.signature(f).parameters), sys.modules[__name__]\n\n"
        "if __name__ == '__main__':\n    print(arity(sys.argv))\n"
    )
    found = {(f.line, f.kind, f.detail) for f in findings({"a.py": (OLD, new)}, None)}
    assert found == {
        (1, "self-inspection", "inspect"),
        (5, "self-inspection", "importlib.resources.files"),
        (7, "self-inspection", "__file__"),
        (11, "self-inspection", "inspect.signature"),
        (11, "self-inspection", "sys.modules"),
        (14, "self-inspection", "sys.argv"),
    }
    assert "- `a.py:7` — self-inspection: `__file__`" in section(findings({"a.py": (OLD, new)}, None))
