"""tabula from Python: load a ruleset, play games seat by seat, replay logs, run simulations
and sweeps as data frames, and train agents in PettingZoo environments.

Everything runs in the Rust library (`tabula._tabula`): the rules, the visibility of each
seat, the logs and the simulator are the engine's own, nothing is re-implemented here.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence

from . import _tabula
from ._tabula import (
    Action,
    Game,
    IllegalAction,
    LogError,
    Ruleset,
    RulesetError,
    TabulaError,
    list_rulesets,
    replay,
)
from ._frames import sim, sweep

__all__ = [
    "Action",
    "Game",
    "IllegalAction",
    "LogError",
    "Ruleset",
    "RulesetError",
    "TabulaError",
    "list_rulesets",
    "load",
    "new_game",
    "replay",
    "sim",
    "sweep",
]


def load(
    ruleset: str,
    variants: Optional[Sequence[str]] = None,
    params: Optional[Mapping[str, Any]] = None,
) -> Ruleset:
    """Loads a ruleset by name (`tabula list`) or path, with variants applied in order and
    parameters overridden as `--set name=value` does. Raises `RulesetError` with the rendered
    diagnostics (file, line, column) when it does not load."""
    return Ruleset(ruleset, list(variants) if variants is not None else None, dict(params) if params else None)


def new_game(
    ruleset: str | Ruleset,
    seed: int = 0,
    players: Optional[int] = None,
    variants: Optional[Sequence[str]] = None,
    params: Optional[Mapping[str, Any]] = None,
) -> Game:
    """Starts a game of a ruleset (a name, a path or a loaded `Ruleset`) from a seed."""
    if isinstance(ruleset, Ruleset):
        return ruleset.game(seed=seed, players=players)
    return load(ruleset, variants, params).game(seed=seed, players=players)
