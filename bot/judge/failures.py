"""Failing tests told one by one, not as the tail of the output: each test's pytest node id (to
paste into pytest), its message and the frames of its traceback that lie in the work folder; the
same error at the same line counted once ("and 4 more tests like this"); the failures that touch
the target first. With many failures, the tail of the output would keep only pytest's summary."""

from __future__ import annotations

import re

from bot.judge.integrity import Case

SEPARATOR = re.compile(r"^(?:_ ){2,}_\s*$", re.M)  # between the entries of pytest's long traceback
LOCATION = re.compile(r"^(?P<path>[^\s:][^:\n]*):(?P<line>\d+): ", re.M)  # "tests/test_x.py:12: in f"
LIKE_THIS_SHOWN = 3  # names of the other tests that fail the same way


def node_id(test_id: str) -> str:
    """`tests.test_calc::TestAdd::test_add[1]` as pytest names it: `tests/test_calc.py::TestAdd::test_add[1]`."""
    module, sep, rest = test_id.partition("::")
    return f"{module.replace('.', '/')}.py{sep}{rest}" if sep else f"{module.replace('.', '/')}.py"


def own_frames(details: str, root: str) -> str:
    """The entries of a pytest traceback located in the work folder (paths relative to it, or
    under `root`); library frames go. The last entry stays whatever it is: it holds the error."""
    details = details.replace(root.rstrip("/") + "/", "") if root else details
    entries = SEPARATOR.split(details)
    kept = [entry for entry in entries[:-1] if not is_outside(entry)] + entries[-1:]
    return "\n_ _ _\n".join(entry.strip("\n") for entry in kept if entry.strip())


def is_outside(entry: str) -> bool:
    found = LOCATION.findall(entry)
    return bool(found) and found[-1][0].startswith("/")


def where(details: str) -> str:
    """The last location of a traceback: where the error was raised."""
    found = LOCATION.findall(details)
    return f"{found[-1][0]}:{found[-1][1]}" if found else ""


def per_test(cases: list[Case], target: str, root: str) -> str:
    """The failing tests, grouped by (message, where), the groups touching `target` first."""
    groups: dict[tuple[str, str], list[tuple[Case, str]]] = {}
    for case in cases:
        frames = own_frames(case.details, root)
        groups.setdefault((case.message, where(frames)), []).append((case, frames))
    ordered = sorted(groups.values(), key=lambda group: target not in group[0][0].details)
    parts = []
    for group in ordered:
        (first, frames), others = group[0], [case for case, _ in group[1:]]
        text = f"### {node_id(first.test_id)}\n{first.outcome}: {first.message}"
        if frames:
            text += f"\n{frames}"
        if others:
            named = ", ".join(node_id(case.test_id) for case in others[:LIKE_THIS_SHOWN])
            text += (
                f"\n(and {len(others)} more test{'s' * (len(others) > 1)} like this: {named}"
                f"{', ...' if len(others) > LIKE_THIS_SHOWN else ''})"
            )
        parts.append(text)
    return "\n\n".join(parts)


def summary_line(output: str) -> str:
    """pytest's last line ("2 failed, 9 passed in 0.31s"), or ""."""
    lines = [line.strip("= ") for line in output.strip().splitlines()[-3:] if line.strip()]
    return next((line for line in reversed(lines) if re.search(r"\b(passed|failed|error|deselected)\b", line)), "")
