"""The Python the fixture repositories' test commands run: a venv holding pytest alone
(tests/suite-env.txt), which `make test` builds at .venv/suite.

The dev venv's pytest plugins (xdist, hypothesis, anyio) would load in every sandboxed run of a
suite that uses the dev venv's Python: about 0.17 s of a 0.6 s run, a quarter of a flow test's
CPU. Tests about an environment's plugins, or whose suites import hypothesis, keep
`sys.executable`. The venv lies inside the dev venv's folder, which the sandbox already shows
read-only (bot/judge/validate.python_paths: the interpreter's environment).
"""

from __future__ import annotations

import sys
from pathlib import Path

FOLDER = Path(sys.prefix) / "suite"
PYTHON = str(FOLDER / "bin" / "python")

if not (FOLDER / ".stamp").is_file():
    raise RuntimeError(f"{FOLDER} is missing: `make test` (or `make suite-env`) builds it from tests/suite-env.txt")
