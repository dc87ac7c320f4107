"""The eval's picture: pass rate against model calls, one line per strategy, each point with its
uncertainty: the 95% Wilson interval, or with several samples the range across them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.errors import UserError

# One-shot is a single point at 1 call, where the other lines start too: a large hollow
# ring drawn on top keeps it visible.
STYLE: dict[str, dict[str, Any]] = {  # keyword arguments of matplotlib's errorbar
    "one-shot": {"marker": "o", "color": "tab:gray", "markersize": 12, "markerfacecolor": "none", "zorder": 3},
    "repair": {"marker": "s", "color": "tab:blue"},
    "resample": {"marker": "^", "color": "tab:orange"},
    "repair+resample": {"marker": "D", "color": "tab:green"},
    "side-by-side": {"marker": "v", "color": "tab:purple"},
}
# The strategies share the first call, so their points at 1 call coincide: a nudge sideways keeps
# each one's error bar in sight.
NUDGE = {"one-shot": 0.0, "repair": -0.04, "resample": 0.04, "repair+resample": 0.08, "side-by-side": -0.08}


def plot(path: Path, meta: dict, analysis: dict) -> None:
    try:
        import matplotlib
    except ImportError:
        raise UserError("the eval's plot needs matplotlib: pip install 'autofix[eval]'") from None
    matplotlib.use("Agg")  # files only: no display, and safe off the main thread
    import matplotlib.pyplot as plt

    k, samples = meta["attempts"], analysis["samples"]
    figure, axes = plt.subplots(figsize=(6.4, 4.2), dpi=100)
    drawn = False
    for strategy, s in analysis["summary"].items():
        points = curve(s, samples)
        if not points:  # a strategy with no results, e.g. in a slice of no tasks
            continue
        calls, rates, lows, highs = zip(*points, strict=True)
        axes.errorbar(
            [c + NUDGE[strategy] for c in calls],
            rates,
            yerr=[
                [r - low for r, low in zip(rates, lows, strict=True)],
                [h - r for r, h in zip(rates, highs, strict=True)],
            ],
            capsize=3,
            **STYLE[strategy],
            label=f"{strategy} ({s['passed']}/{s['runs' if samples > 1 else 'tasks']})",
        )
        drawn = True
    axes.set_xticks(range(1, k + 1))
    axes.set_xlim(0.75, k + 0.25)
    axes.set_ylim(0, 104)  # room above 100% for the markers
    axes.set_xlabel("model calls per task")
    axes.set_ylabel("tasks solved (%)")
    axes.set_title(f"{meta['taskset']} · {short(str(meta['model']))}", fontsize=10)
    axes.grid(alpha=0.3)
    if drawn:  # an eval of no tasks draws empty axes, without matplotlib's warning
        bars = "95% Wilson intervals" if samples == 1 else f"mean, range over {samples} samples"
        axes.legend(loc="best", title=bars, title_fontsize=8)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def curve(figures: dict, samples: int) -> list[tuple[int, float, float, float]]:
    """(calls, rate, low, high) in percent for each call count the strategy reached."""
    if samples == 1:
        pairs = zip(figures["pass_rate_within"], figures["pass_rate_within_interval"], strict=True)
        found = [(rate, *bounds) for rate, bounds in pairs if rate is not None]
    else:
        found = [(s["mean"], s["min"], s["max"]) for s in figures["pass_rate_within_spread"] if s is not None]
    return [(c, *(100 * value for value in values)) for c, values in enumerate(found, 1)]


def short(model: str) -> str:
    """`local:/home/me/models/SmolLM2-135M.gguf` as `local:SmolLM2-135M.gguf`: a title, not a path."""
    provider, sep, rest = model.partition(":")
    return f"{provider}:{rest.rsplit('/', 1)[-1]}" if sep and "/" in rest else model
