"""The model's SDK loads on a thread of its own while the baseline runs (bot/models/registry.py):
the first model call doesn't wait for it. A fresh interpreter shows it, since this one has it."""

import subprocess
import sys

PROBE = """
import sys, time
from bot.models.registry import preload
preload(sys.argv[1])
deadline = time.monotonic() + float(sys.argv[2])
while "openai" not in sys.modules and time.monotonic() < deadline:
    time.sleep(0.01)  # polling for another thread's import, within a deadline
print("openai" in sys.modules)
"""


def loaded(name: str, seconds: float) -> str:
    argv = [sys.executable, "-c", PROBE, name, str(seconds)]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, check=True).stdout.strip()


def test_a_model_called_through_the_openai_sdk_has_it_imported_by_another_thread():
    assert loaded("gpt-4.1-mini", 60) == "True"


def test_a_recorded_or_in_process_model_loads_no_sdk():
    # Nothing would import it: half a second of waiting shows that as well as a minute.
    assert [loaded(name, 0.5) for name in ("replay:x.yml", "local:m.gguf", "")] == ["False"] * 3
