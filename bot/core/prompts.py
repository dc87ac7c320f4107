"""What the model is told: the task first (for existing code, with its current failures), then,
after each reply, how its code failed."""

from __future__ import annotations

from collections.abc import Sequence

from bot.spec import Spec
from bot.text import fence

SYSTEM = (
    "You are a careful {role}. Reply with the complete contents of the file "
    "`{target}` in a single ```{kind} fenced block, and nothing else of importance. "
    "The file is judged by automated tests that you cannot change."
)
# Whom the system prompt addresses, by the target's kind (bot/spec.py), whose name is its fence's tag.
ROLES = {
    "python": "Python programmer",
    "json": "author of JSON documents",
    "yaml": "author of YAML documents",
    "sql": "SQL programmer",
    "javascript": "JavaScript programmer",
    "typescript": "TypeScript programmer",
    "go": "Go programmer",
}


def first(spec: Spec, current: str | None = None) -> list[dict[str, str]]:
    """The task; with the target's current content when it has one, so the model starts from it."""
    text = task_text(spec)
    if current:
        text += f"\n\nThe current content of `{spec.target}`:\n{fence(current, spec.target_kind)}"
    return [system(spec), {"role": "user", "content": text}]


def repair(spec: Spec, feedback: str) -> dict[str, str]:
    """The turn after the model's reply (bot/core/whole_file.py keeps the conversation)."""
    content = (
        f"Your previous version of `{spec.target}`, above, failed the tests:\n{feedback}\n\n"
        f"Fix the code. Reply with the whole corrected file `{spec.target}`."
    )
    return {"role": "user", "content": content}


def anew(opening: list[dict[str, str]], failures: Sequence[str], existing: bool = False) -> list[dict[str, str]]:
    """A repair of code written from nothing, or a fresh sample after a reply that repeated code
    judged before: the first prompt as it was sent (`opening`), with how each earlier answer
    failed, and not their code. Shown its own code, a small model sends it back (12 of the 14
    tasks Qwen2.5-Coder-1.5B failed to repair in context); shown what failed, it writes anew,
    informed. `existing`: the prompt shows the code as it is, which the answer starts from."""
    if not failures:
        return opening
    *before, last = opening
    told = "\n\n".join(f"Answer {n}:\n{feedback}" for n, feedback in enumerate(failures, 1))
    again = "start again from the code shown above" if existing else "write the file anew"
    content = (
        f"{last['content']}\n\nEarlier answers failed the tests. Their code is not shown: {again}, so that "
        f"these checks pass too.\n\n{told}"
    )
    return [*before, {**last, "content": content}]


def with_failures(messages: list[dict[str, str]], failures: str) -> list[dict[str, str]]:
    """A first prompt for existing code, with how that code fails the tests now (the same feedback
    a repair prompt carries): where to look, and what is wrong there. The system message stays first
    and as it was, so a server that caches prefixes reuses it."""
    if not failures:
        return messages
    *before, last = messages
    return [*before, {**last, "content": f"{last['content']}\n\nIt fails the tests now:\n{failures}"}]


def system(spec: Spec) -> dict[str, str]:
    kind = spec.target_kind
    return {"role": "system", "content": SYSTEM.format(role=ROLES[kind], target=spec.target, kind=kind)}


def task_text(spec: Spec, edit: bool = False, unit: str | None = None) -> str:
    """`unit`: the one function or class asked for whole (bot/core/splice.py), instead of edit blocks."""
    if unit:
        doing = f"Rewrite {unit} of `{spec.target}`, whole."
    else:
        doing = f"Change `{spec.target}` with edit blocks." if edit else f"Write the file `{spec.target}`."
    text = f"Task: {spec.task.strip()}\n{doing}"
    if spec.required_name:
        text += f" It must define `{spec.required_name}`."
    sql = spec.tests.sql
    if spec.target_kind == "sql" and sql is not None:
        # The query needs the tables' and columns' names; the expected rows stay the tests'.
        ddl = sql.ddl_text(spec.workdir, f"{spec.path}: tests.sql.schema")
        text += (
            f" It must hold a single read-only query ({sql.dialect})."
            f"\n\nThe database's schema (`{sql.ddl}`):\n{fence(ddl, 'sql')}"
        )
    return text
