"""What the model is told: the task first, then the task with its last code and the failures."""

from __future__ import annotations

from bot.spec import Spec

SYSTEM = (
    "You are a careful Python programmer. Reply with the complete contents of the file "
    "`{target}` in a single ```python fenced block, and nothing else of importance. "
    "The file is judged by automated tests that you cannot change."
)


def first(spec: Spec) -> list[dict[str, str]]:
    return [system(spec), {"role": "user", "content": task_text(spec)}]


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


def task_text(spec: Spec) -> str:
    text = f"Task: {spec.task.strip()}\nWrite the file `{spec.target}`."
    if spec.required_name:
        text += f" It must define `{spec.required_name}`."
    return text
