"""What the model is told: the task first, then the task with its last code and the failures."""

from __future__ import annotations

from bot.spec import Spec
from bot.text import fence

SYSTEM = (
    "You are a careful Python programmer. Reply with the complete contents of the file "
    "`{target}` in a single ```python fenced block, and nothing else of importance. "
    "The file is judged by automated tests that you cannot change."
)


def first(spec: Spec, current: str | None = None) -> list[dict[str, str]]:
    """The task; with the target's current content when it has one, so the model starts from it."""
    text = task_text(spec)
    if current:
        text += f"\n\nThe current content of `{spec.target}`:\n{fence(current, 'python')}"
    return [system(spec), {"role": "user", "content": text}]


def repair(spec: Spec, previous_code: str, feedback: str) -> list[dict[str, str]]:
    content = (
        f"{task_text(spec)}\n\n"
        f"Your previous version of `{spec.target}`:\n```python\n{previous_code.rstrip()}\n```\n\n"
        f"It failed the tests:\n{feedback}\n\n"
        f"Fix the code. Reply with the whole corrected file `{spec.target}`."
    )
    return [system(spec), {"role": "user", "content": content}]


def system(spec: Spec) -> dict[str, str]:
    return {"role": "system", "content": SYSTEM.format(target=spec.target)}


def task_text(spec: Spec, edit: bool = False) -> str:
    doing = f"Change `{spec.target}` with edit blocks." if edit else f"Write the file `{spec.target}`."
    text = f"Task: {spec.task.strip()}\n{doing}"
    if spec.required_name:
        text += f" It must define `{spec.required_name}`."
    return text
