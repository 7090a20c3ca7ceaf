"""The information-set test over the Python channel: what the environment gives a seat (its
observation, its action mask, its legal actions as text, its view, what it was told) is the
same in two games
that differ only in what that seat may not see. The pairs are the engine's
(`tabula::secrecy`)."""

import numpy as np
import pytest

import tabula
from conftest import configurations
from tabula._tabula import secrecy_pairs
from tabula.pettingzoo import observation


@pytest.mark.parametrize("ruleset,variants,players", configurations())
def test_a_seat_is_shown_the_same_in_paired_games(ruleset, variants, players):
    seats = tabula.load(ruleset, variants).game(players=players).seats
    compared = apart = 0
    for k, seat in enumerate(seats):
        for seed in range(4):
            pairs = secrecy_pairs(
                ruleset, seat, seed=100 * k + seed, players=players, steps=25, share_prefix=seed % 2 == 1,
                variants=variants,
            )
            for a, b in pairs:
                oa, ob = observation(a, seat), observation(b, seat)
                assert np.array_equal(oa["observation"], ob["observation"]), (seat, seed)
                assert np.array_equal(oa["action_mask"], ob["action_mask"]), (seat, seed)
                assert a.legal_texts(seat) == b.legal_texts(seat)
                assert a.view(seat) == b.view(seat)
                assert a.events(seat) == b.events(seat)
                compared += 1
                apart += a.view() != b.view()
    assert compared > 0
    # The pairs must differ in something hidden, or the comparison would prove nothing.
    assert apart > 0, f"{ruleset}: no pair differed in what its seat may not see"
