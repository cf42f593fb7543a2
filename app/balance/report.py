"""Write docs/balance.md and its plot from the measured figures.

The measured part of the report sits between two markers and is rewritten on
every run; everything outside them (the table of levers a designer keeps by hand:
each lever, its change and what it did, and where the game stands) is left as it is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

START = "<!-- balance:measured:start -->"
END = "<!-- balance:measured:end -->"

SKELETON = f"""# Balance

How even the game is, measured with bot games. `imperial-glory balance` rewrites
the measured part below; the levers table and the standing after it are kept by hand.

{START}
{END}

## Levers and what they did

| lever (rule) | change | what it did |
|---|---|---|

## Where it stands
"""


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _run(run: dict[str, Any], games: int | None = None) -> str:
    """How a run was made: its command, games, bots, first seed, time and processes."""
    games = run["total_games"] if games is None else games
    return (
        f"`{run['command']}`: {games} games ({run['bots']} bots, seeds from {run['seed']}), "
        f"{run['seconds']:.0f} s on {run['jobs']} processes"
    )


def measured_markdown(result: dict[str, Any], plot_name: str | None) -> str:
    if result.get("runs"):  # ``balance --merge``: each scenario names its own run
        head = (
            f"Measured in {result['runs']} runs of `imperial-glory balance`, "
            f"{result['total_games']} games in all, each scenario's run named under it."
        )
    else:
        head = f"Measured with {_run(result)}."
    lines = [
        head,
        "",
        "A power's fair share is 1/N of the wins for N seated powers; the interval is "
        "Wilson's 95% score interval. The bust rate is failed petitions over petitions "
        "(rules 5.6). Live minutes are the game's decisions charged at a person's pace "
        "(`app/balance/pace.py`). The comeback line is how often the leader at the "
        "middle of the game (by actions) goes on to win; the margin is the winner's lead "
        "over the runner-up in standing (victory points less the victory level, 26.2).",
        "",
    ]
    if plot_name:
        lines += [f"![Win rate per power, with 95% intervals]({plot_name})", ""]
    for scenario, fig in result["scenarios"].items():
        lines += [
            f"### {scenario}",
            "",
            f"{fig['games']} games, {fig['errors']} with errors; fair share "
            f"{_pct(fig['fair_share'])}, largest deviation {_pct(fig['max_deviation'])}.",
            *([f"Measured with {_run(fig['run'], fig['games'])}."] if "run" in fig else []),
            "",
            "| power | wins | win rate | 95% interval | mean score | victory level | mean standing |",
            "|---|---:|---:|---|---:|---:|---:|",
        ]
        for power, p in fig["powers"].items():
            low, high = p["ci95"]
            lines.append(
                f"| {power} | {p['wins']} | {_pct(p['win_rate'])} | "
                f"{_pct(low)}–{_pct(high)} | {p['mean_score']:.1f} | "
                f"{round(2 * (p['mean_score'] - p['mean_standing'])) / 2:g} | "
                f"{p['mean_standing']:.1f} |"
            )
        if fig["levels"]:
            lines += [
                "",
                "| bot level | seats | wins | win rate per seat | 95% interval |",
                "|---|---:|---:|---:|---|",
            ]
            for level, lv in fig["levels"].items():
                low, high = lv["ci95"]
                lines.append(
                    f"| {level} | {lv['seats']} | {lv['wins']} | {_pct(lv['win_rate'])} | "
                    f"{_pct(low)}–{_pct(high)} |"
                )
        lines += [
            "",
            "| figure | value |",
            "|---|---:|",
            f"| petition bust rate | {_pct(fig['bust_rate'])} ({fig['busts']} of "
            f"{fig['petitions']}) |",
            f"| game length, actions | {fig['mean_actions']:.0f} |",
            f"| game length, live minutes (mean / 90th percentile) | "
            f"{fig['mean_live_minutes']:.0f} / {fig['p90_live_minutes']:.0f} |",
            f"| leader at the midpoint wins | {_pct(fig['midpoint_leader_wins'])} "
            f"(of {fig['midpoint_games']} games with a sole leader) |",
            f"| score margin (mean / median) | {fig['mean_margin']:.1f} / "
            f"{fig['median_margin']:.1f} |",
            "",
        ]
        for sample in fig["error_samples"]:
            lines.append(f"- error: {sample.splitlines()[0]}")
    return "\n".join(lines).rstrip() + "\n"


def write_report(path: Path, measured: str) -> None:
    text = path.read_text(encoding="utf-8") if path.exists() else SKELETON
    if START not in text or END not in text:
        text = text.rstrip() + "\n\n" + START + "\n" + END + "\n"
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    path.write_text(f"{head}{START}\n{measured}{END}{tail}", encoding="utf-8")


def write_plot(path: Path, result: dict[str, Any]) -> None:
    """One panel per scenario: each power's win rate with its 95% interval and a
    dashed line at the fair share."""
    try:
        import matplotlib
    except ImportError as exc:  # an extra: the server itself does not need it
        raise SystemExit("balance: the plot needs matplotlib: pip install -e '.[balance]'") from exc

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    scenarios = list(result["scenarios"].items())
    fig, axes = plt.subplots(1, len(scenarios), figsize=(4.2 * len(scenarios), 3.6), squeeze=False)
    for ax, (scenario, figs) in zip(axes[0], scenarios, strict=True):
        names = list(figs["powers"])
        rates = [figs["powers"][p]["win_rate"] for p in names]
        lows = [r - figs["powers"][p]["ci95"][0] for p, r in zip(names, rates, strict=True)]
        highs = [figs["powers"][p]["ci95"][1] - r for p, r in zip(names, rates, strict=True)]
        ax.bar(names, rates, yerr=[lows, highs], capsize=3, color="#7a5c2e")
        ax.axhline(figs["fair_share"], linestyle="--", color="#333333", linewidth=1)
        ax.set_ylim(0, 1)
        ax.set_title(f"{scenario} ({figs['games']} games)")
        ax.tick_params(axis="x", rotation=45)
        ax.set_ylabel("win rate")
    fig.tight_layout()
    # Fixed metadata so the same figures give the same bytes.
    fig.savefig(path, dpi=90, metadata={"Software": None})
    plt.close(fig)
