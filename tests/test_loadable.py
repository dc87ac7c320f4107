"""Files Python or pytest load on their own, and names that take a module's place: refused when
added, left alone when the repository has them."""

import pytest

from bot.loadable import addition, refusal

RUNNER = "it would be imported instead of {}, which the test runner imports"
STANDARD = "it would be imported instead of the standard module {}, from a folder that may be on sys.path"


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("sitecustomize.py", "Python imports sitecustomize on its own at start-up"),
        ("src/usercustomize.py", "Python imports usercustomize on its own at start-up"),
        ("sitecustomize/__init__.py", "Python imports sitecustomize on its own at start-up"),
        ("evil.pth", "Python runs the import lines of a .pth file at start-up"),
        ("lib/site-packages/x.pth", "Python runs the import lines of a .pth file at start-up"),
        ("pkg/conftest.py", "pytest loads every conftest.py on its own"),
        ("pkg/__pycache__/calc.cpython-311.pyc", "Python runs compiled bytecode instead of the source"),
        ("calc.pyc", "Python runs compiled bytecode instead of the source"),
        ("pkg/__pycache__/notes.txt", "Python runs compiled bytecode instead of the source"),
        ("pytest.py", RUNNER.format("pytest")),
        ("src/pytest/__init__.py", RUNNER.format("pytest")),
        ("_pytest/__init__.py", RUNNER.format("_pytest")),
        ("pkg/pluggy/__init__.py", RUNNER.format("pluggy")),  # anywhere: pytest's rootdir insertion
        ("py.py", RUNNER.format("py")),
        ("pluggy.cpython-312-x86_64-linux-gnu.so", RUNNER.format("pluggy")),
        ("json.py", STANDARD.format("json")),  # the work folder is first on sys.path
        ("lib/inspect.py", STANDARD.format("inspect")),  # not a package: may be on sys.path
        ("encodings/__init__.py", STANDARD.format("encodings")),
        # what Python never imports on its own
        ("calc.py", None),
        ("pytest_helpers.py", None),
        ("pytest.ini.example", None),
        ("docs/py/notes.txt", None),  # a folder without __init__ is a namespace portion: it never wins
        ("_pytest/notes.py", None),
    ],
)
def test_what_may_not_be_added(path, problem):
    assert refusal(path, lambda rel: False) == problem


def test_what_the_repository_has_stays_editable():
    # pytest's own repository: its packages, a module added inside them, its conftest.py
    tree = {"src/_pytest/__init__.py", "src/pytest/__init__.py", "testing/conftest.py", "pkg/__init__.py"}
    assert refusal("src/_pytest/__init__.py", tree.__contains__) is None
    assert refusal("src/_pytest/newmodule.py", tree.__contains__) is None
    assert refusal("testing/conftest.py", tree.__contains__) is None
    assert refusal("pkg/json.py", tree.__contains__) is None  # pkg.json: inside a package, it shadows nothing
    assert refusal("testing/other/conftest.py", tree.__contains__) == "pytest loads every conftest.py on its own"
    assert refusal("src/pluggy/__init__.py", tree.__contains__) == RUNNER.format("pluggy")


@pytest.mark.parametrize(
    ("path", "allowed"),
    [
        ("src/chunk-utils.js", True),
        ("lib/deep/parse.ts", True),
        ("src/view.tsx", True),
        ("index.js", False),  # the root, where the runners' configuration and setup files live
        ("src/__mocks__/fs.js", False),  # Jest uses a manual mock it finds there on its own
        ("src/jest.setup.js", False),
        ("src/vitest.config.ts", False),
        ("src/.eslintrc.js", False),
        ("src/globals.d.ts", False),
        ("src/node_modules/left-pad/index.js", False),
    ],
)
def test_a_script_module_may_be_added_below_the_root_unless_a_tool_finds_it_by_looking(path, allowed):
    problem = addition(path, lambda rel: False, lambda rel: False, freed=False)
    assert (problem is None) == allowed, problem
