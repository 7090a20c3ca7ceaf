"""Simulation results as data frames: `tabula.sim` (a row per game) and `tabula.sweep` (a row
per cell), with the numbers `tabula sim --csv` and `tabula sweep --json` give for the same seeds."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from . import _tabula


def _frame(columns: Dict[str, list], dtypes: Optional[Dict[str, str]] = None, backend: Optional[str] = None):
    """A polars data frame where polars is installed (or asked for), else pandas."""
    if backend in (None, "polars"):
        try:
            import polars as pl  # type: ignore[import-not-found]

            return pl.DataFrame(columns, strict=False)
        except ImportError:
            if backend == "polars":
                raise
    import pandas as pd

    frame = pd.DataFrame(columns)
    for name, dtype in (dtypes or {}).items():
        if name in frame.columns:
            frame[name] = frame[name].astype(dtype)
    return frame


def _axis_text(values: Any) -> str:
    """A sweep axis as `--set` writes it: a string as it is (`8..12`, `4,5,6`), a list or range
    of values joined by commas."""
    if isinstance(values, str):
        return values
    if isinstance(values, range) and values.step == 1 and len(values) > 0:
        return f"{values.start}..{values.stop - 1}"
    if isinstance(values, (list, tuple, range)):
        return ",".join(str(v).lower() if isinstance(v, bool) else str(v) for v in values)
    return str(values).lower() if isinstance(values, bool) else str(values)


def sim(
    ruleset: str,
    games: int = 1000,
    seed: int = 0,
    players: Optional[int] = None,
    variants: Optional[Sequence[str]] = None,
    params: Optional[Mapping[str, Any]] = None,
    agent: Optional[str] = None,
    seats: Optional[Mapping[str, str]] = None,
    record: Optional[Sequence[str]] = None,
    threads: int = 0,
    backend: Optional[str] = None,
    report: bool = False,
):
    """Plays `games` games as `tabula sim` does and returns a data frame with a row per game:
    game, seed, outcome, winners (space-separated), decisions, rounds, clock_ms, stopped, and the
    `record` counters: the columns and values of `tabula sim --csv` for the same arguments.
    Missing values (rounds of a game without a round counter) are nulls. With `report=True`,
    returns `(frame, report)`, the report being `tabula sim --json`'s object as a dict."""
    columns, report_json = _tabula.sim_columns(
        ruleset,
        games=games,
        seed=seed,
        players=players,
        variants=list(variants) if variants else None,
        params=dict(params) if params else None,
        agent=agent,
        seats=dict(seats) if seats else None,
        record=list(record) if record else None,
        threads=threads,
    )
    dtypes = {"game": "int64", "seed": "uint64", "decisions": "int64", "rounds": "Int64", "clock_ms": "Int64"}
    dtypes.update({name: "Int64" for name in (record or [])})
    frame = _frame(columns, dtypes, backend)
    return (frame, json.loads(report_json)) if report else frame


def cell_rows(results: List[dict]) -> Dict[str, list]:
    """The columns of a sweep's table from its cells (`tabula sweep --json`'s objects): a column
    per parameter, games, each outcome's share, low and high, then the length, as the CLI's
    table.csv names them (with full precision rather than its four decimals)."""
    parameters: List[str] = []
    outcomes: List[str] = []
    for r in results:
        parameters.extend(k for k in r["values"] if k not in parameters)
        outcomes.extend(o for o in r["balance"]["outcome_shares"] if o not in outcomes)
    columns: Dict[str, list] = {p: [] for p in parameters}
    columns["games"] = []
    for o in outcomes:
        for part in ("share", "low", "high"):
            columns[f"{o}_{part}"] = []
    for part in ("mean", "median", "p10", "p90"):
        columns[f"decisions_{part}"] = []
    columns["rounds_mean"] = []
    for r in results:
        for p in parameters:
            columns[p].append(r["values"].get(p))
        columns["games"].append(r["games"])
        shares = r["balance"]["outcome_shares"]
        for o in outcomes:
            s = shares.get(o, {"share": 0.0, "low": 0.0, "high": 0.0})
            for part in ("share", "low", "high"):
                columns[f"{o}_{part}"].append(s[part])
        d = r["balance"]["decisions"]
        for part in ("mean", "median", "p10", "p90"):
            columns[f"decisions_{part}"].append(d[part])
        rounds = r["balance"].get("rounds")
        columns["rounds_mean"].append(rounds["mean"] if rounds else None)
    return columns


def sweep_grid(
    axes: Mapping[str, Any], one_at_a_time: bool = False
) -> List[Tuple[List[Tuple[str, str]], List[Tuple[str, str]], Optional[str]]]:
    """The cells of a sweep in `tabula sweep`'s order: each the overrides its games are played
    with (the parameters fixed in every cell first), the cell's own values, and, one at a time,
    the parameter it varies."""
    return _tabula.sweep_cells([(k, _axis_text(v)) for k, v in axes.items()], one_at_a_time)


def sweep(
    ruleset: str,
    axes: Mapping[str, Any],
    games: int = 1000,
    seed: int = 0,
    players: Optional[int] = None,
    variants: Optional[Sequence[str]] = None,
    agent: Optional[str] = None,
    seats: Optional[Mapping[str, str]] = None,
    one_at_a_time: bool = False,
    threads: int = 0,
    backend: Optional[str] = None,
    cells: bool = False,
):
    """Plays the same games under a grid of parameter values, as `tabula sweep` does, and
    returns a data frame with a row per cell (the columns of the CLI's table.csv). `axes` maps a
    parameter to its values: a `--set` text (`"8..12"`, `"4,5,6"`), a list, or a range. With
    `cells=True`, returns `(frame, cells)`, the cells being `tabula sweep --json`'s objects."""
    results = []
    for overrides, values, axis in sweep_grid(axes, one_at_a_time):
        row = _tabula.sweep_cell(
            ruleset,
            overrides,
            values,
            axis=axis,
            games=games,
            seed=seed,
            players=players,
            variants=list(variants) if variants else None,
            agent=agent,
            seats=dict(seats) if seats else None,
            threads=threads,
        )
        results.append(json.loads(row))
    frame = _frame(cell_rows(results), None, backend)
    return (frame, results) if cells else frame
