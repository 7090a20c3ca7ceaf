"""PettingZoo environments for every tabula ruleset.

`tabula.pettingzoo.env("east-berlin")` is an AEC environment (`pettingzoo.AECEnv`) whose agents
are the players' seats. The game, who is asked next, and what each seat may see are the
engine's: the environment asks the simulator's own scheduler (`tabula sim`'s) which seat acts.

Actions: a fixed `Discrete(max_actions)` space. Index `i` below the number of the seat's legal
actions now is the `i`th of them, as `Game.legal_actions(seat)` lists them; the last index,
`max_actions - 1`, is *pass*. The observation's `action_mask` marks exactly the current legal
indices (and pass where passing is allowed). A legal list longer than `max_actions - 1` raises
an error naming the ruleset and the length: give a larger `max_actions`.

Out of turn: after each action, every seat that may act out of turn (a card played "at any
time") is selected in turn, as the simulator offers them the chance; its mask holds its
out-of-turn options and pass, which lets the game go on. In real-time games (Temple) the seat
whose agent is ready first is selected at its game time; pass there means *wait* until the seat
sees a change (as an agent that waits), and a seat with nothing to do is skipped (it waits).
Everywhere else pass is masked out.

Observations: a dict with `observation`, an int64 vector built only from the seat's view
(`Game.observation(seat)`; layout in python/README.md), and `action_mask`, an int8 vector. The
seat's view as plain data, its legal actions as log text, and what it was told since its last
decision are in `infos[agent]` for the selected agent.

Rewards: at the end, 1 for each winning seat and -1 for the others (0 for all in a draw or a
game stopped by a bound); 0 before. Seeding: `reset(seed=s)` plays the game seeded from `s`, so
the same seed and the same actions give the same game.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from . import Game, Ruleset, TabulaError, load

#: The default size of the action space (pass included).
DEFAULT_MAX_ACTIONS = 4096


class TabulaEnv(AECEnv):
    """An AEC environment playing one tabula ruleset (see the module's documentation)."""

    metadata = {"render_modes": ["ansi", "human"], "name": "tabula", "is_parallelizable": False}

    def __init__(
        self,
        ruleset: str | Ruleset,
        players: Optional[int] = None,
        variants: Optional[Sequence[str]] = None,
        params: Optional[Mapping[str, Any]] = None,
        max_actions: int = DEFAULT_MAX_ACTIONS,
        max_steps: Optional[int] = None,
        render_mode: Optional[str] = None,
    ):
        super().__init__()
        self.rules = ruleset if isinstance(ruleset, Ruleset) else load(ruleset, variants, params)
        self.players = players if players is not None else self.rules.usual_players
        self.max_actions = int(max_actions)
        self.max_steps = max_steps
        self.render_mode = render_mode
        self.metadata = dict(self.metadata, name=f"tabula_{self.rules.id}")
        probe = self.rules.game(seed=0, players=self.players)
        self.possible_agents: List[str] = probe.seats
        size = len(probe.observation(self.possible_agents[0]))
        big = np.iinfo(np.int64).max
        self._observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(low=-big, high=big, shape=(size,), dtype=np.int64),
                    "action_mask": spaces.Box(low=0, high=1, shape=(self.max_actions,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self._action_spaces = {a: spaces.Discrete(self.max_actions) for a in self.possible_agents}
        self.np_random, _ = seeding.np_random(None)
        self.game: Optional[Game] = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_spaces[agent]

    @property
    def PASS(self) -> int:
        """The index of pass (let an out-of-turn chance go, or wait in real time)."""
        return self.max_actions - 1

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> None:
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        game_seed = int(self.np_random.integers(0, 2**63 - 1))
        self.game = self.rules.game(seed=game_seed, players=self.players)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: Dict[str, dict] = {a: {} for a in self.agents}
        self.steps = 0
        self._out_of_turn = False
        self._advance()

    def _legal(self, agent: str) -> int:
        n = self.game.legal_count(agent)
        if n > self.max_actions - 1:
            raise TabulaError(
                f"{self.rules.id}: {agent} has {n} legal actions, more than max_actions - 1 = "
                f"{self.max_actions - 1}: make the environment with a larger max_actions"
            )
        return n

    def _may_pass(self) -> bool:
        return self._out_of_turn or self.game.real_time

    def _advance(self) -> None:
        """Selects the next seat the scheduler asks (skipping real-time seats with nothing to
        do, which wait), or ends the episode."""
        game = self.game
        while True:
            turn = game.next_turn()
            if turn is None:
                self._finish()
                return
            seat, out_of_turn = turn
            if game.real_time and self._legal(seat) == 0:
                game.pass_turn(seat)
                continue
            self._out_of_turn = out_of_turn
            self.agent_selection = seat
            self.infos = {a: {} for a in self.agents}
            self.infos[seat] = {
                "legal": game.legal_texts(seat),
                "out_of_turn": out_of_turn,
                "told": game.events(seat),
            }
            return

    def _finish(self) -> None:
        rewards = self.game.rewards()
        for a in self.agents:
            self.rewards[a] = rewards[a]
            self.terminations[a] = True
        self._accumulate_rewards()
        self.infos = {a: {"outcome": self.game.outcome} for a in self.agents}
        self.agent_selection = self.agents[0]

    def observe(self, agent: str) -> dict:
        mask = np.zeros(self.max_actions, dtype=np.int8)
        if self.game is not None and agent == self.agent_selection and not self.terminations.get(agent, True):
            mask[: self._legal(agent)] = 1
            if self._may_pass():
                mask[self.PASS] = 1
        obs = np.asarray(self.game.observation(agent), dtype=np.int64)
        return {"observation": obs, "action_mask": mask}

    def step(self, action: Optional[int]) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        index = int(action)
        self._cumulative_rewards[agent] = 0
        if index == self.PASS and self._may_pass():
            self.game.pass_turn(agent)
        else:
            n = self._legal(agent)
            if not 0 <= index < n:
                raise TabulaError(f"{agent} chose action {index}, which the mask does not allow (legal: 0..{n - 1})")
            self.game.apply_index(agent, index)
        self.rewards = {a: 0 for a in self.agents}
        self.steps += 1
        if self.max_steps is not None and self.steps >= self.max_steps and not self.game.is_over:
            for a in self.agents:
                self.truncations[a] = True
            self.infos = {a: {} for a in self.agents}
            return
        self._advance()

    def render(self) -> Optional[str]:
        if self.game is None:
            return None
        text = self.game.view_text(None)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        self.game = None

    def __str__(self) -> str:
        return f"tabula_{self.rules.id}"


def env(
    ruleset: str | Ruleset,
    players: Optional[int] = None,
    variants: Optional[Sequence[str]] = None,
    params: Optional[Mapping[str, Any]] = None,
    max_actions: int = DEFAULT_MAX_ACTIONS,
    max_steps: Optional[int] = None,
    render_mode: Optional[str] = None,
) -> TabulaEnv:
    """An AEC environment for a ruleset (a name, a path or a loaded `Ruleset`)."""
    return TabulaEnv(ruleset, players, variants, params, max_actions, max_steps, render_mode)


def observation(game: Game, seat: str, max_actions: int = DEFAULT_MAX_ACTIONS, may_pass: bool = False) -> dict:
    """The observation `TabulaEnv` gives `seat` of `game` when it is selected: the vector of its
    view and the mask of its legal actions (for tests that compare what two games show a seat)."""
    mask = np.zeros(max_actions, dtype=np.int8)
    mask[: game.legal_count(seat)] = 1
    if may_pass:
        mask[max_actions - 1] = 1
    return {"observation": np.asarray(game.observation(seat), dtype=np.int64), "action_mask": mask}
