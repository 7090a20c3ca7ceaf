"""Sweeps on Ray: `tabula.ray.sweep` splits every cell's games into Ray tasks, gathers the
tallies the tasks bring back, and gives the table `tabula sweep` gives for the same seeds.

Game `i` of a cell is seeded from the run's seed and `i` alone (as `tabula sim` seeds it), so a
task playing games `start..end` plays exactly the games the command line plays there, and the
tallies of the parts add up to the cell's (`tabula::balance::Tally::merge`). Each task loads the
ruleset itself; the numbers are the library's, nothing is counted in Python.

Workers need the `tabula` package: on one machine the driver's environment serves; on a
cluster, ship the wheel with Ray's runtime environment, e.g.
`ray.init(address="ray://head:10001", runtime_env={"py_modules": ["dist/tabula-0.1.0-cp39-abi3-manylinux_2_34_x86_64.whl"]})`,
and name the ruleset by a path every worker has (or set `TABULA_RULESETS` in `env_vars`).
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Mapping, Optional, Sequence

from . import _tabula
from ._frames import _frame, cell_rows, sweep_grid


def _play_part(ruleset, start, end, seed, players, variants, overrides, agent, seats) -> str:
    from tabula import _tabula as native

    return native.play_part(
        ruleset,
        start,
        end,
        seed=seed,
        players=players,
        variants=variants,
        overrides=overrides,
        agent=agent,
        seats=seats,
    )


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
    games_per_task: int = 500,
    runtime_env: Optional[dict] = None,
    backend: Optional[str] = None,
    cells: bool = False,
):
    """`tabula.sweep` on Ray: the same arguments and the same table (a row per cell), each
    cell's games played by tasks of `games_per_task` games at most. Uses the Ray instance
    already started (`ray.init(...)`), or starts a local one. `runtime_env` is given to every
    task (to ship the wheel to a cluster's workers)."""
    import ray

    if not ray.is_initialized():
        ray.init()
    if games < 1:
        raise ValueError("games must be 1 or more")
    options: Dict[str, Any] = {"num_cpus": 1}
    if runtime_env:
        options["runtime_env"] = runtime_env
    task = ray.remote(_play_part).options(**options)
    variants = list(variants) if variants else None
    seats = dict(seats) if seats else None
    grid = sweep_grid(axes, one_at_a_time)
    pending: List[List[Any]] = []
    for overrides, _values, _axis in grid:
        parts = []
        for start in range(0, games, games_per_task):
            end = min(games, start + games_per_task)
            parts.append(task.remote(ruleset, start, end, seed, players, variants, overrides, agent, seats))
        pending.append(parts)
    results = []
    for (overrides, values, axis), parts in zip(grid, pending):
        tallies = ray.get(parts)
        row = _tabula.merge_cell(
            ruleset, tallies, values, axis=axis, players=players, variants=variants, overrides=overrides
        )
        results.append(json.loads(row))
    frame = _frame(cell_rows(results), None, backend)
    return (frame, results) if cells else frame
