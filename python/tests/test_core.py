"""The core API: rulesets, games seat by seat, views, narration, logs and replay, errors."""

import pytest

import tabula


def test_rulesets_are_listed_with_their_variants():
    found = dict(tabula.list_rulesets())
    assert found["temple"] == ["experts", "professionals"]
    assert found["blackgate"] == ["team"]
    assert {"east-berlin", "colditz", "escape-plan"} <= set(found)


def test_a_ruleset_loads_with_variants_and_parameters():
    rules = tabula.load("east-berlin", params={"tunnel_length": 9})
    assert rules.id == "east-berlin"
    assert rules.seats == ["exile", "police"]
    assert rules.params["tunnel_length"] == 9
    assert rules.overrides == {"tunnel_length": "9"}
    assert "exile" in rules.outcomes
    temple = tabula.load("temple", variants=["experts"])
    assert temple.variants == ["experts"]


def test_a_ruleset_that_does_not_load_raises_the_rendered_diagnostic():
    with pytest.raises(tabula.RulesetError) as caught:
        tabula.load("tests/fixtures/broken/unknown-zone")
    text = str(caught.value)
    assert "unknown zone `tabel`" in text
    assert "game.toml:14:8" in text


def test_unknown_names_get_a_did_you_mean():
    with pytest.raises(tabula.TabulaError, match="did you mean `east-berlin`"):
        tabula.load("east-berlim")
    with pytest.raises(tabula.TabulaError, match="tunnel_length"):
        tabula.load("east-berlin", params={"tunnel_lenght": 3})


def play_first_legal(game):
    """Plays a game to its end, each seat the game asks taking its first option."""
    while (turn := game.next_turn()) is not None:
        seat, out_of_turn = turn
        if out_of_turn:
            game.pass_turn(seat)
        elif game.legal_count(seat) == 0:
            game.pass_turn(seat)
        else:
            game.apply(game.legal_actions(seat)[0])
    return game


def test_legal_actions_are_structured_and_written_as_the_log_writes_them():
    game = tabula.new_game("east-berlin", seed=3)
    (seat,) = game.to_act()
    actions = game.legal_actions(seat)
    texts = game.legal_texts(seat)
    assert [a.text for a in actions] == texts
    first = actions[0]
    assert first.seat == seat
    assert texts[0].startswith(f"{seat}: {first.name}")
    # The arguments by parameter name, as the log's words.
    assert " ".join(str(v) for v in first.args.values()) in first.text
    game.apply(first)
    assert game.legal_texts(seat) != texts or game.to_act() != [seat]


def test_an_action_may_be_given_as_its_text():
    a = tabula.new_game("east-berlin", seed=5)
    b = tabula.new_game("east-berlin", seed=5)
    for _ in range(10):
        (seat,) = a.to_act()
        choice = a.legal_actions(seat)[-1]
        a.apply(choice)
        b.apply(choice.text)
    assert a.log() == b.log()


def test_an_illegal_action_raises_and_changes_nothing():
    game = tabula.new_game("east-berlin", seed=1)
    (seat,) = game.to_act()
    other = [s for s in game.seats if s != seat][0]
    before = game.log()
    with pytest.raises(tabula.IllegalAction):
        game.apply(game.legal_texts(seat)[0].replace(seat, other, 1))
    with pytest.raises(tabula.IllegalAction):
        game.apply_index(seat, 10_000)
    with pytest.raises(tabula.IllegalAction):
        game.apply("exile: fly_away")
    assert game.log() == before


def test_a_seat_sees_only_its_view():
    game = tabula.new_game("east-berlin", seed=2)
    # The exile places its members face down: the police does not see where.
    for _ in range(8):
        (seat,) = game.to_act()
        game.apply_index(seat, 0)
    everything = game.view()
    police = game.view("police")
    assert police["seat"] == "police"
    hidden = [
        name
        for name, zone in police["zones"].items()
        if len(everything["zones"][name]["pieces"]) > len(zone["pieces"])
    ]
    assert hidden, "the police should not see the exile's placement"
    assert "police" in game.view_text("police")


def test_a_game_plays_to_its_outcome_and_rewards():
    game = play_first_legal(tabula.new_game("east-berlin", seed=4))
    assert game.is_over
    assert game.outcome in tabula.load("east-berlin").outcomes
    rewards = game.rewards()
    assert set(rewards) == {"exile", "police"}
    assert sorted(rewards.values()) in ([-1, 1], [0, 0])
    assert [s for s, r in rewards.items() if r == 1] == game.winners


def test_events_since_a_seats_last_decision_are_narrated():
    game = tabula.new_game("east-berlin", seed=6)
    (seat,) = game.to_act()
    game.apply_index(seat, 0)
    assert game.events(seat) == []
    while seat in game.to_act():
        game.apply_index(seat, 0)
    other = game.to_act()[0]
    while seat not in game.to_act():
        game.apply_index(game.to_act()[0], 0)
    told = game.events(seat)
    assert told, f"{seat} should be told what {other} did"


def test_the_log_replays_to_the_same_game_and_seat_logs_mask_secrets():
    game = play_first_legal(tabula.new_game("east-berlin", seed=7))
    log = game.log()
    assert "[seed 7]" in log
    again = tabula.replay(log)
    assert again.is_over and again.outcome == game.outcome
    assert again.log() == log
    police = game.seat_log("police")
    assert "[seed" not in police
    assert "?" in police


def test_replay_names_the_first_illegal_line():
    game = tabula.new_game("east-berlin", seed=8)
    for _ in range(5):
        game.apply_index(game.to_act()[0], 0)
    lines = game.log().splitlines()
    bad = len(lines) + 1
    text = "\n".join(lines + ["police: investigate nobody nowhere"]) + "\n"
    with pytest.raises(tabula.LogError) as caught:
        tabula.replay(text)
    assert caught.value.line == bad
    assert f"line {bad}" in str(caught.value)


def test_a_game_copies_independently():
    game = tabula.new_game("east-berlin", seed=9)
    copy = game.clone()
    game.apply_index(game.to_act()[0], 0)
    assert copy.log() != game.log()


def test_every_ruleset_plays_through_the_scheduler():
    for name in ["temple", "blackgate", "escape-plan", "colditz"]:
        game = tabula.new_game(name, seed=1, players=2)
        steps = 0
        while steps < 60 and (turn := game.next_turn()) is not None:
            seat, out_of_turn = turn
            if out_of_turn or game.legal_count(seat) == 0:
                game.pass_turn(seat)
            else:
                game.apply_index(seat, steps % game.legal_count(seat))
            steps += 1
        assert tabula.replay(game.log()).log() == game.log(), name


def test_turn_and_choose_play_as_next_turn_and_apply_index():
    a = tabula.new_game("blackgate", seed=2, players=3)
    b = tabula.new_game("blackgate", seed=2, players=3)
    for step in range(80):
        turn = a.turn()
        assert (turn is None) == ((other := b.next_turn()) is None)
        if turn is None:
            break
        seat, out_of_turn, n = turn
        assert (seat, out_of_turn) == other and n == b.legal_count(seat)
        if out_of_turn or n == 0:
            a.pass_turn(seat)
            b.pass_turn(seat)
        else:
            a.choose(step % n)
            b.apply_index(seat, step % n)
    assert a.log() == b.log()
    with pytest.raises(tabula.TabulaError):
        a.choose(0)
