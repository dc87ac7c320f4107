"""`autofix eval --candidates N` (#45): each round asks N replies at once (the scripted server's
barrier proves them in flight together), and every one of them is a call of the strategy's
budget and of its count, as in `autofix run`; --samples keeps its meaning."""

import json
import threading

from fake_openai import Reply, ScriptedOpenAI
from test_eval import SPEC, WRONG, fenced, load

from bot.cli import main


def test_every_candidate_is_a_call_of_the_budget_and_of_the_count(tmp_path, capsys):
    folder = tmp_path / "tasks"
    folder.mkdir()
    (folder / "never.yml").write_text(SPEC.format(name="never"))
    barrier = threading.Barrier(2, timeout=30)  # a round's two calls wait for each other

    def answer(body: dict) -> Reply:
        barrier.wait()
        return Reply(
            fenced(WRONG.format(name="never").replace("set", "sorted" if body["seed"] % 2 else "set")), 100, 10
        )

    out = tmp_path / "out"
    with ScriptedOpenAI([answer] * 4) as fake:
        code = main(
            ["eval", str(folder), "--model", "m", "--api", "chat", "--base-url", fake.base_url, "--out", str(out),
             "--strategy", "repair", "--attempts", "4", "--candidates", "2"]
        )  # fmt: skip
    assert code == 0, capsys.readouterr().err[-2000:]
    assert sorted(request.json["seed"] for request in fake.requests) == [0, 1, 2, 3]
    summary = load(out)["summary"]["repair"]
    assert (summary["calls"], summary["passed"]) == (4, 0)
    [result] = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert (result["calls"], result["tokens_in"], result["tokens_out"]) == (4, 400, 40)
    assert json.loads((out / "run.json").read_text())["candidates"] == 2
