"""Write docs/balance.md and its plot from the measured figures.

The measured part of the report sits between two markers and is rewritten on every
run: one table of the figures, a row per scenario with the command that reproduces
it, and the win rate of each power behind it. Everything outside the markers (how
balance works, the targets, how to measure) is kept by hand and left as it is. The
report is a reference of the game as it is now: what earlier runs measured stays in
git (``git log -p -- docs/balance.md``), never in the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.bots.levels import canonical

START = "<!-- balance:measured:start -->"
END = "<!-- balance:measured:end -->"

SKELETON = f"""# Balance

How even the game is, measured with bot games. `imperial-glory balance` rewrites the
figures between the markers below; the rest is kept by hand.

## How balance works

## Today's figures

{START}
{END}
"""


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _lineup(bots: str) -> str:
    """A run's line-up as the commands take it: ``heuristic`` is the Standard bot, and
    a level repeated in a row is written ``LEVEL*n`` (``strong,standard*5``)."""
    parts: list[list[Any]] = []
    for level in (canonical(x) for x in str(bots).split(",") if x):
        if parts and parts[-1][0] == level:
            parts[-1][1] += 1
        else:
            parts.append([level, 1])
    return ",".join(level if n == 1 else f"{level}*{n}" for level, n in parts)


def _command(run: dict[str, Any]) -> str:
    """The command of a row (with its first seed when the command leaves it to the
    default) and the time it took."""
    seeds = "" if "--seed" in str(run["command"]) else f"seeds from {run['seed']}; "
    return f"`{run['command']}` ({seeds}{run['seconds']:.0f} s on {run['jobs']} processes)"


def measured_markdown(result: dict[str, Any], plot_name: str | None) -> str:
    """The report's measured part: one row of figures per scenario, each with the
    command that reproduces it, then each power's share of the wins."""
    merged = bool(result.get("runs"))  # ``balance --merge``: each scenario names its own run
    head = (
        f"{result['total_games']} games in all, from {result['runs']} runs of "
        "`imperial-glory balance`, one a scenario, merged here by `balance --merge`."
        if merged
        else f"{result['total_games']} games in all, from one run of `imperial-glory balance`."
    )
    lines = [
        head,
        "",
        "| scenario | bots | games | largest deviation from the fair share | win rates "
        "(fair share) | petition bust rate | leader at the midpoint wins | live minutes "
        "(mean / 90th percentile) | winner's margin (mean / median) | command |",
        "|---|---|---:|---:|---|---:|---:|---:|---:|---|",
    ]
    for scenario, fig in result["scenarios"].items():
        run = fig.get("run") or result
        rates = [p["win_rate"] for p in fig["powers"].values()] or [0.0]
        errors = f", {fig['errors']} with errors" if fig["errors"] else ""
        lines.append(
            f"| {scenario} | {_lineup(run['bots'])} | {fig['games']}{errors} | "
            f"{100 * fig['max_deviation']:.1f} points | {_pct(min(rates))}–{_pct(max(rates))} "
            f"({_pct(fig['fair_share'])}) | {_pct(fig['bust_rate'])} ({fig['busts']} of "
            f"{fig['petitions']}) | {_pct(fig['midpoint_leader_wins'])} (of "
            f"{fig['midpoint_games']} games) | {fig['mean_live_minutes']:.0f} / "
            f"{fig['p90_live_minutes']:.0f} | {fig['mean_margin']:.1f} / "
            f"{fig['median_margin']:.1f} | {_command(run)} |"
        )
    for scenario, fig in result["scenarios"].items():
        for sample in fig["error_samples"]:
            lines.append(f"- error in {scenario}: {sample.splitlines()[0]}")
    lines += [
        "",
        "A power's fair share is 1/N of the wins for N seated powers. The bust rate is "
        "failed petitions over petitions (rules 5.6). Live minutes are the game's decisions "
        "charged at a person's pace (`app/balance/pace.py`). The leader at the midpoint is "
        "the power alone at the top of the standings (victory points less the victory "
        "level, 26.2) at the round boundary nearest the middle of the game by actions; the "
        "margin is the winner's lead over the runner-up in standing.",
        "",
    ]
    if plot_name:
        lines += [f"![Win rate per power, with 95% intervals]({plot_name})", ""]
    lines += [
        "Each power's wins in the same games (the interval is Wilson's 95% score interval; "
        "the victory level is the one the games were played at):",
        "",
        "| scenario | power | victory level | wins | win rate | 95% interval | mean score "
        "| mean standing |",
        "|---|---|---:|---:|---:|---|---:|---:|",
    ]
    for scenario, fig in result["scenarios"].items():
        for power, p in fig["powers"].items():
            low, high = p["ci95"]
            lines.append(
                f"| {scenario} | {power} | "
                f"{round(2 * (p['mean_score'] - p['mean_standing'])) / 2:g} | {p['wins']} | "
                f"{_pct(p['win_rate'])} | {_pct(low)}–{_pct(high)} | {p['mean_score']:.1f} | "
                f"{p['mean_standing']:.1f} |"
            )
    mixed = [(s, fig) for s, fig in result["scenarios"].items() if fig["levels"]]
    if mixed:
        lines += [
            "",
            "Each bot level's wins per seat, where a run mixed levels:",
            "",
            "| scenario | bot level | seats | wins | win rate per seat | 95% interval |",
            "|---|---|---:|---:|---:|---|",
        ]
        for scenario, fig in mixed:
            for level, lv in fig["levels"].items():
                low, high = lv["ci95"]
                lines.append(
                    f"| {scenario} | {canonical(level)} | {lv['seats']} | {lv['wins']} | "
                    f"{_pct(lv['win_rate'])} | {_pct(low)}–{_pct(high)} |"
                )
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
