"""The PettingZoo environments pass PettingZoo's own API and seed tests for every ruleset and
variant, and play as the engine's scheduler asks."""

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import tabula
import tabula.pettingzoo
from conftest import configurations


@pytest.mark.parametrize("ruleset,variants,players", configurations())
def test_api_test_passes(ruleset, variants, players):
    env = tabula.pettingzoo.env(ruleset, players=players, variants=variants)
    api_test(env, num_cycles=60)


@pytest.mark.parametrize("ruleset,variants,players", configurations())
def test_seed_test_passes(ruleset, variants, players):
    seed_test(lambda: tabula.pettingzoo.env(ruleset, players=players, variants=variants), num_cycles=20)


def test_a_seed_reproduces_the_game():
    def play(seed):
        env = tabula.pettingzoo.env("east-berlin")
        env.reset(seed=seed)
        rng = np.random.default_rng(0)
        for agent in env.agent_iter():
            obs, reward, done, cut, info = env.last()
            env.step(None if done or cut else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        return env

    a, b = play(11), play(11)
    assert a.game.log() == b.game.log()
    assert a.game.is_over
    assert play(12).game.log() != a.game.log()


def test_rewards_come_from_the_outcome():
    env = tabula.pettingzoo.env("east-berlin")
    env.reset(seed=3)
    total = {a: 0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, done, cut, info = env.last()
        total[agent] += reward
        env.step(None if done or cut else int(np.flatnonzero(obs["action_mask"])[0]))
    game = env.game
    assert total == game.rewards()
    assert sorted(total.values()) == [-1, 1]


def test_out_of_turn_chances_are_offered_with_pass():
    """Colditz offers trades out of turn: the selected seat's mask then holds pass."""
    env = tabula.pettingzoo.env("colditz", players=2)
    env.reset(seed=1)
    offered = 0
    for agent in env.agent_iter(3000):
        obs, reward, done, cut, info = env.last()
        if done or cut:
            env.step(None)
            continue
        mask = obs["action_mask"]
        if info["out_of_turn"]:
            offered += 1
            assert mask[env.PASS] == 1
            env.step(env.PASS)
        else:
            assert mask[env.PASS] == 0
            env.step(int(np.flatnonzero(mask)[0]))
        if offered >= 3:
            break
    assert offered >= 1


def test_the_mask_marks_the_legal_list():
    env = tabula.pettingzoo.env("escape-plan", players=2)
    env.reset(seed=4)
    agent = env.agent_selection
    obs = env.observe(agent)
    n = len(env.game.legal_texts(agent))
    assert n > 0
    assert obs["action_mask"][:n].all() and not obs["action_mask"][n:].any()
    assert env.infos[agent]["legal"] == env.game.legal_texts(agent)
