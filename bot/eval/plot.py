"""The eval's picture: pass rate against model calls, one line per strategy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.errors import UserError

# One-shot is a single point at 1 call, where the other lines start too: a large hollow
# ring drawn on top keeps it visible.
STYLE: dict[str, dict[str, Any]] = {  # keyword arguments of matplotlib's plot
    "one-shot": {"marker": "o", "color": "tab:gray", "markersize": 12, "markerfacecolor": "none", "zorder": 3},
    "repair": {"marker": "s", "color": "tab:blue"},
    "resample": {"marker": "^", "color": "tab:orange"},
}


def plot(path: Path, meta: dict, summary: dict) -> None:
    try:
        import matplotlib
    except ImportError:
        raise UserError("the eval's plot needs matplotlib: pip install 'autofix[eval]'") from None
    matplotlib.use("Agg")  # files only: no display, and safe off the main thread
    import matplotlib.pyplot as plt

    k = meta["attempts"]
    figure, axes = plt.subplots(figsize=(6.4, 4.2), dpi=100)
    for strategy, s in summary.items():
        points = [(c, 100 * rate) for c, rate in enumerate(s["pass_rate_within"], 1) if rate is not None]
        if not points:  # a strategy with no results, e.g. in a slice of no tasks
            continue
        axes.plot(*zip(*points, strict=True), **STYLE[strategy], label=f"{strategy} ({s['passed']}/{s['tasks']})")
    axes.set_xticks(range(1, k + 1))
    axes.set_xlim(0.75, k + 0.25)
    axes.set_ylim(0, 104)  # room above 100% for the markers
    axes.set_xlabel("model calls per task")
    axes.set_ylabel("tasks solved (%)")
    axes.set_title(f"{meta['taskset']} · {short(str(meta['model']))}", fontsize=10)
    axes.grid(alpha=0.3)
    if axes.lines:  # an eval of no tasks draws empty axes, without matplotlib's warning
        axes.legend(loc="lower right")
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def short(model: str) -> str:
    """`local:/home/me/models/SmolLM2-135M.gguf` as `local:SmolLM2-135M.gguf`: a title, not a path."""
    provider, sep, rest = model.partition(":")
    return f"{provider}:{rest.rsplit('/', 1)[-1]}" if sep and "/" in rest else model
