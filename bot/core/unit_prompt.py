"""The prompt asking for one function, method or class whole, in place of edit blocks
(bot/core/edit_file.py): the unit the failures point at named, how the file fails, and the unit as
it is now, in the target's language."""

from __future__ import annotations

from bot.core.languages import Language
from bot.core.prompts import task_text
from bot.core.protocol import Messages
from bot.lang.base import Unit
from bot.spec import Spec
from bot.text import FEEDBACK_CHARS, clip_head, fence

SYSTEM = (
    "You repair existing code so that its automated tests pass; you cannot change the tests. "
    "You are asked for one function or class of `{target}`: reply with its complete new text ({form}) "
    "in a single ```{fence} block, and nothing else of importance. It takes the place of the current "
    "definition; the rest of the file stays as it is. Write no edit blocks."
)
SWITCHED = "That was the second reply in a row whose edit blocks could not be applied, so write no edit blocks now."


def request(spec: Spec, language: Language, unit: Unit, code: str, failing: str, why: str) -> Messages:
    """The prompt asking for `unit` whole: `why` (what came of the last reply), how the file fails
    the tests, and the unit as it is now (whole: what it doesn't show, the reply would drop)."""
    failing = clip_head(failing.strip(), FEEDBACK_CHARS) or "(the tests gave no details)"
    text = (
        f"{task_text(spec, unit=unit.called)}\n\n{why}\n\n"
        f"## How `{spec.target}` fails the tests now\n\n{failing}\n\n"
        f"## {unit.called[0].upper()}{unit.called[1:]} now (lines {unit.first}-{unit.last} of `{spec.target}`)\n\n"
        f"{fence(unit.text(code), language.fence)}\n\n{asking(language, unit)}"
    )
    system = SYSTEM.format(target=spec.target, form=language.form, fence=language.fence)
    return [{"role": "system", "content": system}, {"role": "user", "content": text}]


def asking(language: Language, unit: Unit) -> str:
    return f"Reply with the complete corrected text of {unit.called} in one ```{language.fence} block."
