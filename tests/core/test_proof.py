"""The stub a wanted name's definition becomes (bot/core/proof.py): its body only raises
NotImplementedError, so a test that never runs the new code still passes it."""

from bot.core.proof import stub

STUBBED = "def add_fixed(*args, **kwargs):\n    raise NotImplementedError\n"


def test_a_function_s_body_only_raises():
    code = 'import x\n\n\n@x.cache\ndef add_fixed(a, b):\n    """Sum."""\n    return a + b\n\n\nz = 1\n'
    assert (
        stub(code, "add_fixed")
        == "import x\n\n\n@x.cache\ndef add_fixed(a, b):\n    raise NotImplementedError\n\n\nz = 1\n"
    )
    assert stub("def add_fixed(a, b): return a + b\n", "add_fixed") == (
        "def add_fixed(a, b): raise NotImplementedError\n"
    )


def test_a_class_or_an_assignment_becomes_a_function_that_raises():
    assert stub("add_fixed = None\n", "add_fixed") == STUBBED
    assert stub("x = 1\nadd_fixed: int = 2\n", "add_fixed") == "x = 1\n" + STUBBED
    assert stub("@dataclass\nclass add_fixed:\n    a: int\n", "add_fixed") == STUBBED


def test_a_name_defined_elsewhere_or_not_at_the_top_has_no_stub():
    assert stub("def other():\n    add_fixed = 1\n", "add_fixed") is None
    assert stub("def f(:\n", "add_fixed") is None


def test_variants_judged_together_send_a_stopped_null_mutant_back_to_a_run_of_its_own():
    """A null mutant stopped by its share of the run's time (a loaded machine) would count as
    failed and void the proof: the proof judges every variant alone instead, which runs it again.
    A real mutant stopped counts as killed, as a run of its own that never ends does."""
    from contextlib import nullcontext
    from types import SimpleNamespace

    from bot.core.proof import ProofJudge
    from bot.judge.gate import SuiteRun
    from bot.judge.integrity import Case
    from bot.judge.strength import Mutant

    def run(killed: str | None) -> SuiteRun:
        return SuiteRun({"t::a": Case("t::a", "passed", "", "")}, 0, "", killed, "/w")

    answers: list[list[SuiteRun]] = []
    suite = SimpleNamespace(
        run_variants=lambda root, variants, only: answers.pop(0), bounded=lambda seconds: nullcontext()
    )
    baseline = SimpleNamespace(target=["t::a"], passing=set(), first=SimpleNamespace(sealed=False, tampered=[]))
    inner = SimpleNamespace(work=SimpleNamespace(root="/w"), suite=suite, baseline=baseline, targets_seconds=None)
    proof = ProofJudge(inner, ["t::a"], [], SimpleNamespace())  # type: ignore[arg-type]
    null, real = Mutant(1, "null", "", "", ""), Mutant(1, "comparison", "", "", "")
    answers.append([run(None), run("stopped")])
    assert proof.together([("m.go", null), ("m.go", real)]) == [True, False]
    answers.append([run("stopped"), run(None)])
    assert proof.together([("m.go", null), ("m.go", real)]) is None
