//! Dig Your Way Out (Blackgate): playouts of every player count, random and heuristic, and of
//! team mode end without error with the invariants checked after every action; the turn's
//! `options` hook agrees with the actions' `legal` hooks; no seat learns another's hand or
//! background; and the generic features the game brought to the engine (a card taken at random
//! from a hidden hand, a deck made again from its discard pile, teams) behave as documented.

use std::rc::Rc;

use tabula::event::Event;
use tabula::log::{ReplayOptions, parse, record, replay_with, seat_log};
use tabula::secrecy::{SecrecyOptions, check_secrecy};
use tabula::sim::{SimOptions, agents_for, play_out_observed, simulate};
use tabula::{Error, Game, LoadOptions, Rules};

fn blackgate(variant: Option<&str>) -> Rc<Rules> {
    let options = LoadOptions { variants: variant.map(|v| vec![v.to_string()]).unwrap_or_default(), overrides: vec![] };
    Rc::new(tabula::load("rulesets/blackgate", &options).unwrap_or_else(|e| panic!("{e}")))
}

fn counter(game: &Game, name: &str) -> i64 {
    game.state().counter(game.rules().counter(name).expect("counter"))
}

/// Plays one game to its end, checking the invariants after every action.
fn play(rules: &Rc<Rules>, players: u8, agent: &str, seed: u64) -> Game {
    let mut game = Game::recorded(rules.clone(), players, seed).expect("start");
    let mut agents = agents_for(rules, agent, players, seed).expect("agents");
    play_out_observed(&mut game, &mut agents, 100_000, &mut |g| {
        g.state().check_invariants(rules).map_err(Error::Input)
    })
    .unwrap_or_else(|e| panic!("{players} players, {agent}, seed {seed}: {e}"));
    game
}

#[test]
fn every_player_count_plays_to_the_end_with_both_agents() {
    let rules = blackgate(None);
    let mut won = 0;
    for players in 2..=6u8 {
        for agent in ["random", "heuristic"] {
            let game = play(&rules, players, agent, u64::from(players));
            let outcome = game.outcome().expect("over");
            let seats: Vec<&str> = rules.seats.iter().take(players.into()).map(|s| s.name.as_str()).collect();
            assert!(outcome == "draw" || seats.contains(&outcome), "{players} players: {outcome}");
            if outcome != "draw" {
                won += 1;
                // "As soon as a player reaches the necessary number of Tunnel points, this
                // player wins": the winner has the goal (12 / 10 / 8), nobody else does.
                let goal = match players {
                    2 | 3 => 12,
                    4 => 10,
                    _ => 8,
                };
                for seat in &seats {
                    let points = counter(&game, &format!("points.{seat}"));
                    assert_eq!(points >= goal, *seat == outcome, "{players} players: {seat} has {points}");
                }
            }
            // A beating token has two faces: never more than 2.
            for seat in &seats {
                assert!((0..=2).contains(&counter(&game, &format!("beatings.{seat}"))));
            }
        }
    }
    // Every one of these games ends with an escape, not at the safety bound: the heuristic
    // prisoners' (in about 20 rounds) and the random ones' (in about 130).
    assert_eq!(won, 10, "only {won} games were won");
}

#[test]
fn team_mode_plays_to_the_end_and_its_outcomes_name_teams() {
    let rules = blackgate(Some("team"));
    assert_eq!(rules.players, (4, 6));
    for players in [4u8, 6] {
        for agent in ["random", "heuristic"] {
            let game = play(&rules, players, agent, 3);
            let outcome = game.outcome().expect("over");
            assert!(matches!(outcome, "team_a" | "team_b" | "draw"), "{outcome}");
            if outcome != "draw" {
                // "Tunnel points are scored and victory decided for each team": the winning
                // team's points reach the team goal (16 / 20).
                let team = if outcome == "team_a" { ["red", "green", "purple"] } else { ["blue", "yellow", "white"] };
                let total: i64 =
                    team.iter().take(usize::from(players / 2)).map(|s| counter(&game, &format!("points.{s}"))).sum();
                assert!(total >= if players == 4 { 16 } else { 20 }, "{outcome} has {total}");
            }
        }
    }
    let report =
        simulate(rules, &SimOptions { games: 6, players: Some(4), ..SimOptions::default() }, &mut |_| {}).expect("sim");
    assert_eq!(report.outcomes["team_a"] + report.outcomes["team_b"] + report.outcomes["draw"], 6);
    assert!(report.outcomes["team_a"] + report.outcomes["team_b"] > 0, "{:?}", report.outcomes);
}

/// The `legal` hook of each standing action (which checks an action an agent or a log gives)
/// must allow exactly what the turn's `options` hook lists, at every moment.
#[test]
fn the_options_hook_and_the_legal_hooks_agree() {
    let mut checked = 0;
    for (variant, players) in [(None, 3u8), (Some("team"), 4)] {
        let rules = blackgate(variant);
        for (agent, seed) in [("random", 11), ("heuristic", 12)] {
            let mut game = Game::new(rules.clone(), players, seed).expect("start");
            let mut agents = agents_for(&rules, agent, players, seed).expect("agents");
            play_out_observed(&mut game, &mut agents, 100_000, &mut |g| {
                if g.prompt().is_some() || checked > 3000 {
                    return Ok(());
                }
                for seat in 0..players {
                    let mut listed = g.legal_actions(seat)?;
                    let mut allowed = g.legal_by_hooks(seat)?;
                    listed.sort_by_key(|a| format!("{a:?}"));
                    allowed.sort_by_key(|a| format!("{a:?}"));
                    if listed != allowed {
                        return Err(Error::Input(format!("seat {seat}: options {listed:?}, legal hooks {allowed:?}")));
                    }
                    checked += 1;
                }
                Ok(())
            })
            .unwrap_or_else(|e| panic!("{variant:?}, {agent}: {e}"));
        }
    }
    assert!(checked > 1000, "only {checked} moments checked");
}

/// Two games that differ only in what a seat may not see (another's hand, another's background,
/// the order of the decks) give it the same view, legal actions, narration and seat log, at 2,
/// 4 and 6 players and in team mode (where teammates still do not see each other's hands).
#[test]
fn no_seat_sees_another_hand_or_background() {
    for (variant, players) in [(None, 2u8), (None, 4), (None, 6), (Some("team"), 4)] {
        let options = SecrecyOptions { pairs: 48, players: Some(players), max_steps: 300, ..SecrecyOptions::default() };
        let report =
            check_secrecy(blackgate(variant), &options).unwrap_or_else(|e| panic!("{variant:?} {players}: {e}"));
        // A seat's own draws show it new cards, which ends a pair's comparison early (the
        // games may then rightly differ): the pairs are short, but they must compare some.
        eprintln!("{variant:?} {players}: {report:?}");
        assert!(report.steps_hidden_apart >= 20, "{variant:?} {players}: too few informative steps: {report:?}");
    }
}

/// The information-set test, made by hand: a game, and the same game in which one card
/// of blue's starting hand was swapped with the bottom card of the Search deck (by editing the
/// setup's stated shuffle in the log). Until blue's own choices can no longer be the same, red
/// and green are shown the same view, the same legal actions and the same copy of the log.
#[test]
fn a_hidden_card_in_another_hand_changes_nothing_a_seat_is_shown() {
    let rules = blackgate(None);
    let mut compared = 0;
    for seed in 0..6 {
        let mut game = Game::recorded(rules.clone(), 3, seed).expect("start");
        let mut agents = agents_for(&rules, "random", 3, seed).expect("agents");
        let mut decisions = 0;
        play_out_observed(&mut game, &mut agents, 100_000, &mut |_| {
            decisions += 1;
            if decisions > 120 { Err(Error::Input("enough".into())) } else { Ok(()) }
        })
        .ok();
        let text = record(&game, None).to_string();
        let shuffle = text.lines().find(|l| l.starts_with("* shuffle search_deck ")).expect("the setup's shuffle");
        let deck: Vec<&str> = shuffle.split_whitespace().skip(3).collect();
        // Red was dealt the top 3 cards, blue the next 3: blue's first card and the bottom one.
        let (blues, bottom) = (deck[3], deck[deck.len() - 1]);
        let item = |c: &str| rules.pieces[rules.piece(c).unwrap() as usize].props.clone();
        let bottom_id = rules.piece(bottom).expect("card");
        let drawn = game.events().iter().any(|e| matches!(e, Event::Moved { piece, .. } if *piece == bottom_id));
        if item(blues) == item(bottom) || drawn {
            continue;
        }
        let swapped_line = shuffle
            .split(' ')
            .map(|w| {
                if w == blues {
                    bottom
                } else if w == bottom {
                    blues
                } else {
                    w
                }
            })
            .collect::<Vec<_>>()
            .join(" ");
        let other = text.replacen(shuffle, &swapped_line, 1);
        // B is played as far as its lines stay legal (blue may have used the card).
        let log_a = parse(&text, 0).expect("parses");
        let log_b = parse(&other, 0).expect("parses");
        let end = match replay_with(&log_b, rules.clone(), &ReplayOptions::default()) {
            Ok(_) => text.lines().count(),
            Err(e) => e.line - 1,
        };
        let action_lines: Vec<usize> =
            text.lines().enumerate().filter(|(i, l)| *i + 1 < end && l.contains(": ")).map(|(i, _)| i + 1).collect();
        for &line in action_lines.iter().step_by(7) {
            let upto = ReplayOptions { until_line: Some(line), record: false };
            let (Ok(a), Ok(b)) = (replay_with(&log_a, rules.clone(), &upto), replay_with(&log_b, rules.clone(), &upto))
            else {
                break;
            };
            for seat in [0u8, 2] {
                assert_eq!(
                    tabula::view::view(&a.game, Some(seat)),
                    tabula::view::view(&b.game, Some(seat)),
                    "seed {seed}, line {line}"
                );
                assert_eq!(
                    a.game.legal_actions(seat).unwrap(),
                    b.game.legal_actions(seat).unwrap(),
                    "seed {seed}, line {line}"
                );
            }
            if tabula::view::view(&a.game, None) != tabula::view::view(&b.game, None) {
                compared += 1;
            }
        }
        // The seat logs of the part both games share.
        let cut = action_lines.last().copied().unwrap_or(1);
        let prefix = |t: &str| t.lines().take(cut - 1).map(|l| format!("{l}\n")).collect::<String>();
        let (pa, pb) = (parse(&prefix(&text), 0).expect("prefix"), parse(&prefix(&other), 0).expect("prefix"));
        for seat in [0u8, 2] {
            let (sa, sb) = (seat_log(&pa, rules.clone(), seat), seat_log(&pb, rules.clone(), seat));
            assert_eq!(
                sa.map(|l| l.to_string()).ok(),
                sb.map(|l| l.to_string()).ok(),
                "seed {seed}: seat {seat}'s log"
            );
        }
    }
    assert!(compared >= 10, "only {compared} moments at which the games differed were compared");
}

/// The first game (from seed 0 up) with an event matching `wanted`, played by random agents.
fn game_with(rules: &Rc<Rules>, players: u8, wanted: impl Fn(&Game, &Event) -> bool) -> Game {
    for seed in 0..50 {
        let mut game = Game::recorded(rules.clone(), players, seed).expect("start");
        let mut agents = agents_for(rules, "random", players, seed).expect("agents");
        let mut found = false;
        play_out_observed(&mut game, &mut agents, 100_000, &mut |g| {
            found = g.events().iter().any(|e| wanted(g, e));
            if found { Err(Error::Input("found".into())) } else { Ok(()) }
        })
        .ok();
        if found {
            return game;
        }
    }
    panic!("no game showed the event");
}

/// "COMBAT: ... a card randomly drawn from the loser's hand": the card is a chance outcome of
/// its own in the log (`* pick hand.<loser> <card>`), which replay uses when stated (a log
/// stating every outcome replays without a seed), and which a seat's copy shows only to the
/// loser, who saw the card in their hand.
#[test]
fn a_card_taken_at_random_from_a_hand_is_stated_in_the_log_and_masked_for_the_others() {
    let rules = blackgate(None);
    let game = game_with(&rules, 3, |_, e| matches!(e, Event::Picked { .. }));
    let log = record(&game, None);
    let text = log.to_string();
    let line = text.lines().find(|l| l.starts_with("* pick ")).expect("a pick line").to_string();
    let words: Vec<&str> = line.split_whitespace().collect();
    let (zone, card) = (words[2], words[3]);
    let owner = zone.strip_prefix("hand.").expect("taken from a hand");
    assert!(rules.piece(card).is_some(), "{line}");

    // The log states every chance outcome: it replays without a seed, to the same state.
    let replayed = replay_with(&parse(&text, 0).expect("parses"), rules.clone(), &ReplayOptions::default())
        .unwrap_or_else(|e| panic!("line {}: {}", e.line, e.message));
    assert_eq!(tabula::view::view(&replayed.game, None), tabula::view::view(&game, None));

    for seat in 0..3u8 {
        let copy = seat_log(&log, rules.clone(), seat).expect("seat log").to_string();
        let name = &rules.seats[seat as usize].name;
        if name == owner {
            assert!(copy.contains(&line), "{name} lost {card} and sees which: {copy}");
        } else {
            assert!(copy.contains(&format!("* pick {zone} ?")), "{name} must not see which card: {copy}");
            assert!(!copy.contains(&line));
        }
    }
}

/// "SEARCH: If the Search deck is empty, shuffle the discard pile to form a new deck."
#[test]
fn an_empty_search_deck_is_made_again_from_the_discard_pile() {
    let rules = blackgate(None);
    let deck = rules.zone("search_deck").expect("deck");
    let discard = rules.zone("search_discard").expect("discard");
    let game = game_with(&rules, 2, |_, e| matches!(e, Event::Shuffled { zone, .. } if *zone == deck));
    let events = game.events();
    // The setup's shuffle aside: the first time the deck is shuffled again...
    let at = events
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e, Event::Shuffled { zone, .. } if *zone == deck))
        .nth(1)
        .map(|(i, _)| i);
    let Some(at) = at else { return };
    // ...the cards just before it came from the discard pile into the empty deck,
    let moved_in = events[..at]
        .iter()
        .rev()
        .take_while(|e| matches!(e, Event::Moved { from, to, .. } if *from == discard && *to == deck))
        .count();
    assert!(moved_in > 0, "the deck was shuffled without the discard pile");
    // ...and the shuffle holds exactly those cards: the deck was empty.
    let Event::Shuffled { order, .. } = &events[at] else { unreachable!() };
    assert_eq!(order.len(), moved_in);
}

#[test]
fn team_mode_seats_two_teams_in_turn() {
    let rules = blackgate(Some("team"));
    let teams: Vec<Option<&str>> = rules.seats.iter().map(|s| s.team.as_deref()).collect();
    assert_eq!(teams, [Some("a"), Some("b"), Some("a"), Some("b"), Some("a"), Some("b")]);
    assert!(blackgate(None).seats.iter().all(|s| s.team.is_none()));
    // Each team starts in its own Cell Block.
    let game = Game::new(rules.clone(), 4, 1).expect("start");
    let at = |seat: &str| {
        let z = game.state().zone_of(rules.piece(&format!("standee_{seat}")).expect("standee"));
        rules.zones[z as usize].name.clone()
    };
    assert_eq!(
        [at("red"), at("blue"), at("green"), at("yellow")],
        ["cell_block", "cell_block_b", "cell_block", "cell_block_b"]
    );
}

/// The position of round 3 in a 3-player game: red, in the Cafeteria, holds a spoon and what a
/// shovel is crafted from (2 wood, 1 metal, 1 rope); blue's beat_up card may have beaten red.
fn cafeteria_position(beaten: bool) -> Game {
    let beating = if beaten { "blue: play beat_up\nblue: target red\nred: after_beating keep\n" } else { "" };
    let text = format!(
        "[ruleset \"blackgate\"]\n[players 3]\n[seats \"red blue green\"]\n{SETUP}\n\
         red: cautious\nred: cautious_to cafeteria\nred: end_turn\nred: michel leave\n{beating}blue: end_turn\nblue: michel leave\n\
         green: end_turn\ngreen: michel leave\n\
         red: search\nred: steal\nred: end_turn\nred: michel leave\nblue: end_turn\nblue: michel leave\n\
         green: end_turn\ngreen: michel leave\n"
    );
    let rules = blackgate(None);
    let log = parse(&text, 0).expect("parses");
    replay_with(&log, rules, &ReplayOptions::default())
        .unwrap_or_else(|e| panic!("line {}: {}", e.line, e.message))
        .game
}

fn refused(game: &Game, line: &str) -> bool {
    let action = game.parse_action(line).expect("an action of the rules");
    let listed = game.legal_actions(action.seat).expect("legal").contains(&action);
    assert_eq!(listed, game.check_legal(&action).is_ok(), "{line}: the list and the check disagree");
    !listed
}

/// "CRAFT: You can't perform this action if you have received 1 or 2 Beatings." "DIG, Location:
/// Cell Block": "Each of these actions can only be performed by players who are actually in the
/// specified Place."
#[test]
fn a_craft_is_refused_at_one_beating_and_a_dig_outside_the_cell_block() {
    let fresh = cafeteria_position(false);
    assert!(!refused(&fresh, "red: craft shovel"), "the Cafeteria allows crafting");
    assert!(refused(&fresh, "red: dig spoon"), "no digging in the Cafeteria");
    let beaten = cafeteria_position(true);
    assert_eq!(counter(&beaten, "beatings.red"), 1);
    assert!(refused(&beaten, "red: craft shovel"), "no crafting with 1 beating");
    assert!(refused(&beaten, "red: dig spoon"));
    // What is still allowed: a move, and searching again.
    assert!(!refused(&beaten, "red: move"));
    assert!(!refused(&beaten, "red: search"));
}

const SETUP: &str = "* shuffle search_deck wood_1 wood_2 metal_1 beat_up_1 cap_1 cap_2 tattoo_1 tattoo_2 tattoo_3 rope_1 wood_3 bandana_1 bandana_2 bandana_3 cap_3 chain_1 chain_2 chain_3 sunglasses_1 sunglasses_2 sunglasses_3 bracelet_1 bracelet_2 bracelet_3 shiv_1 shiv_2 shiv_3 shiv_4 shiv_5 club_1 club_2 club_3 club_4 club_5 razor_1 razor_2 razor_3 razor_4 wood_4 wood_5 wood_6 wood_7 wood_8 metal_2 metal_3 metal_4 metal_5 metal_6 metal_7 metal_8 rope_2 rope_3 rope_4 rope_5 rope_6 phone_1 phone_2 phone_3 watch_1 watch_2 watch_3 watch_4 beat_up_2 beat_up_3 redeal_1 redeal_2 windfall_1 windfall_2 windfall_3 solitary_1 solitary_2 wood_9 wood_10 metal_9 metal_10 rope_7 rope_8\n* shuffle background_deck background_1 background_2 background_3 background_4 background_5 background_6 background_7 background_8 background_9 background_10 background_11 background_12 background_13 background_14 background_15 background_16 background_17 background_18\n* shuffle michel_deck michel_blank_1 michel_blank_2 michel_blank_3 michel_blank_4 michel_blank_5 michel_blank_6 michel_spoon michel_pickaxe michel_shovel michel_spoon_pickaxe michel_pickaxe_shovel michel_all michel_blank_7 michel_blank_8 michel_blank_9 michel_blank_10 michel_blank_11 michel_blank_12 michel_blank_13 michel_blank_14 michel_blank_15 michel_blank_16 michel_blank_17 michel_blank_18";

/// Determinism: the same seed and the same agents give the same game, event for event.
#[test]
fn the_same_seed_gives_the_same_game() {
    let rules = blackgate(Some("team"));
    let (a, b) = (play(&rules, 4, "heuristic", 21), play(&rules, 4, "heuristic", 21));
    assert!(!a.events().is_empty());
    assert_eq!(a.events(), b.events());
    assert_ne!(a.events(), play(&rules, 4, "heuristic", 22).events());
}

/// The setup of [`SETUP`] with the Search deck's top cards (the starting hands, red's first)
/// and the Michel deck's top cards given: the rest follow in [`SETUP`]'s order.
fn setup_with(search_top: &[&str], michel_top: &[&str]) -> String {
    let reorder = |line: &str, top: &[&str]| {
        let words: Vec<&str> = line.split(' ').collect();
        let (head, cards) = words.split_at(3);
        let rest = cards.iter().filter(|c| !top.contains(c));
        head.iter().chain(top).chain(rest).copied().collect::<Vec<_>>().join(" ")
    };
    let lines: Vec<&str> = SETUP.lines().collect();
    format!("{}\n{}\n{}", reorder(lines[0], search_top), lines[1], reorder(lines[2], michel_top))
}

/// The game a log's text replays to.
fn replayed(text: &str, variant: Option<&str>) -> Game {
    let log = parse(text, 0).expect("parses");
    replay_with(&log, blackgate(variant), &ReplayOptions::default())
        .unwrap_or_else(|e| panic!("line {}: {}", e.line, e.message))
        .game
}

/// Whether `seat` is asked something now, and exactly the given lines are its options.
fn assert_offered(game: &Game, seat: u8, lines: &[&str]) {
    assert_eq!(game.prompt().map(|p| p.seat), Some(seat), "seat {seat} is asked");
    let mut listed = game.legal_actions(seat).expect("legal");
    let mut expected: Vec<_> = lines.iter().map(|l| game.parse_action(l).expect(l)).collect();
    listed.sort_by_key(|a| format!("{a:?}"));
    expected.sort_by_key(|a| format!("{a:?}"));
    assert_eq!(listed, expected);
}

fn zone_of(game: &Game, piece: &str) -> String {
    let rules = game.rules();
    let z = game.state().zone_of(rules.piece(piece).expect("piece"));
    rules.zones[z as usize].name.clone()
}

/// "JOIN A GANG" (Triad: "ALL", 3 different accessories): with 4 different accessories in hand,
/// red chooses the 3 it gives, one at a time, each one not given yet; the fourth stays in hand.
#[test]
fn joining_a_gang_of_any_accessories_lets_the_player_choose_them() {
    let setup = setup_with(
        &["bandana_1", "tattoo_1", "cap_1", "shiv_1", "club_1", "rope_1", "wood_1", "wood_2", "metal_1", "chain_1"],
        &[],
    );
    let head = format!("[ruleset \"blackgate\"]\n[players 3]\n[seats \"red blue green\"]\n{setup}\nred: search\n");
    let joined = replayed(&format!("{head}red: join triad\n"), None);
    let all = ["bandana", "tattoo", "cap", "chain"].map(|a| format!("red: pay triad {a}"));
    assert_offered(&joined, 0, &all.iter().map(String::as_str).collect::<Vec<_>>());
    // After the chain: the three others, never the chain again.
    let one = replayed(&format!("{head}red: join triad\nred: pay triad chain\n"), None);
    assert!(refused(&one, "red: pay triad chain"));
    assert_offered(&one, 0, &["red: pay triad bandana", "red: pay triad tattoo", "red: pay triad cap"]);
    let game = replayed(
        &format!("{head}red: join triad\nred: pay triad chain\nred: pay triad tattoo\nred: pay triad bandana\n"),
        None,
    );
    // The join is over: the turn's two actions are spent; red's Background card (background_1,
    // revealed during its owner's turn) is still hidden, so red may still reveal it before the
    // end of the turn, or end it.
    assert!(game.prompt().is_none());
    assert_eq!(
        game.legal_actions(0).expect("legal"),
        ["red: reveal", "red: end_turn"].map(|l| game.parse_action(l).expect(l))
    );
    assert_eq!(zone_of(&game, "triad_1"), "gang.red");
    assert_eq!(zone_of(&game, "cap_1"), "hand.red", "the accessory not chosen stays in hand");
    for given in ["chain_1", "tattoo_1", "bandana_1"] {
        assert_eq!(zone_of(&game, given), "search_discard");
    }
    assert_eq!(counter(&game, "actions_left"), 0, "one action for the search, one for the join");
    // A gang of named accessories asks nothing: Cartel takes the tattoo and the bracelet.
    let setup = setup_with(&["tattoo_1", "bracelet_1", "cap_1"], &[]);
    let text = format!("[ruleset \"blackgate\"]\n[players 3]\n[seats \"red blue green\"]\n{setup}\nred: join cartel\n");
    let cartel = replayed(&text, None);
    assert!(cartel.prompt().is_none());
    assert_eq!(zone_of(&cartel, "cartel_1"), "gang.red");
    assert_eq!(zone_of(&cartel, "cap_1"), "hand.red");
}

/// "MICHEL(LE)": "If, at any moment, the player can't or doesn't want to play a Weapon, they lose
/// the combat ... they must discard, if able, one of the Tools shown on the initial Michel card":
/// red, holding a spoon and a pickaxe, both shown, chooses the pickaxe and keeps the spoon.
#[test]
fn a_prisoner_beaten_by_michel_chooses_the_shown_tool_to_discard() {
    // Red crafts a pickaxe (wood + 2 metal) and steals a spoon in the Cafeteria, then sends
    // Michel(le) there (a 1: the Cell Block or the Cafeteria). The top Michel card shows a knife
    // and all three tools; red has no weapon and stops at once.
    let setup = setup_with(&["wood_1", "metal_1", "metal_2"], &["michel_all"]);
    let head = format!(
        "[ruleset \"blackgate\"]\n[players 3]\n[seats \"red blue green\"]\n{setup}\n\
         red: cautious\nred: cautious_to cafeteria\nred: end_turn\nred: michel leave\nblue: end_turn\nblue: michel leave\n\
         green: end_turn\ngreen: michel leave\n\
         red: craft pickaxe\nred: steal\nred: end_turn\nred: michel roll\n* roll die 1\nred: michel_go cafeteria\n\
         red: answer_michel fight\nred: fight stop\n"
    );
    let lost = replayed(&head, None);
    assert_offered(&lost, 0, &["red: lose_tool spoon", "red: lose_tool pickaxe"]);
    assert_eq!(counter(&lost, "beatings.red"), 0, "the beating comes with the discard");
    let spoon = (1..=13).map(|i| format!("spoon_{i}")).find(|s| zone_of(&lost, s) == "hand.red").expect("a spoon");
    assert_eq!(zone_of(&lost, "pickaxe_1"), "hand.red");
    let game = replayed(&format!("{head}red: lose_tool pickaxe\n"), None);
    assert_eq!(zone_of(&game, "pickaxe_1"), "pickaxes");
    assert_eq!(zone_of(&game, &spoon), "hand.red");
    assert_eq!(counter(&game, "beatings.red"), 1);
    // The other choice, the other tool.
    let game = replayed(&format!("{head}red: lose_tool spoon\n"), None);
    assert_eq!(zone_of(&game, "pickaxe_1"), "hand.red");
    assert_eq!(zone_of(&game, &spoon), "spoons");
    assert_eq!(counter(&game, "beatings.red"), 1);
}

/// Team mode, "EXTORT": "the winning player having originally initiated or suffered the
/// extortion can take a card at random from the hand of each losing participating player": in
/// the example log, red wins against blue, helped by yellow. Red takes blue's card (the combat's
/// own rule), and is asked whether to take one from yellow; leaving it, yellow keeps its hand.
#[test]
fn the_winner_of_a_team_combat_chooses_whether_to_take_a_helpers_card() {
    let text = std::fs::read_to_string("examples/logs/blackgate/team.log").expect("the example log");
    let take = "red: loot yellow take\n* pick hand.yellow tattoo_1\n";
    let at = text.find(take).expect("the log takes from yellow");
    let before = replayed(&text[..at], Some("team"));
    assert_offered(&before, 0, &["red: loot yellow take", "red: loot yellow leave"]);
    assert_eq!(zone_of(&before, "cap_2"), "hand.red", "the loser's card is taken without a question");
    assert_eq!(zone_of(&before, "tattoo_1"), "hand.yellow");
    let left = replayed(&text.replacen(take, "red: loot yellow leave\n", 1), Some("team"));
    assert_eq!(zone_of(&left, "tattoo_1"), "hand.yellow");
    assert_eq!(zone_of(&left, "tattoo_2"), "hand.yellow");
    assert_eq!(counter(&left, "beatings.yellow"), 1, "the helper is beaten all the same");
    let taken = replayed(&text, Some("team"));
    assert_eq!(zone_of(&taken, "tattoo_1"), "hand.red");
}

/// Team mode, "EXTORT": "During any combat, any players can help a teammate ... by playing a
/// Weapon card in place of this teammate. However, at the end of the combat, all players having
/// helped the loser must take a Beating too": Michel(le)'s combat included. In the example log,
/// red, extorted by Michel(le) without a weapon, is asked nothing but `stop`, and green, its
/// teammate on the place, is asked to play in its place; when green stops helping, red loses,
/// and green, who helped once, is beaten too.
#[test]
fn a_teammate_helps_against_michel_and_shares_the_beating() {
    let text = std::fs::read_to_string("examples/logs/blackgate/team-michel.log").expect("the example log");
    let at = text.find("green: help shiv\n").expect("green helps red");
    let asked = replayed(&text[..at], Some("team"));
    assert_offered(&asked, 2, &["green: help shiv", "green: help club", "green: help stop"]);
    // The log goes on with green's two weapons and red's win.
    let won = replayed(&text, Some("team"));
    assert_eq!(counter(&won, "beatings.red"), 0);
    assert_eq!(counter(&won, "beatings.green"), 1, "green's own lost combat only");
    // Had green stopped at the second knife, red would have lost: a card of red's at random (no
    // shovel, the tool shown), a beating for red and one for green, who helped.
    let second = text.find("green: help club\n").expect("green's second weapon");
    let lost = replayed(&format!("{}green: help stop\n* pick hand.red wood_1\n", &text[..second]), Some("team"));
    assert_eq!(zone_of(&lost, "wood_1"), "search_discard");
    assert_eq!(counter(&lost, "beatings.red"), 1);
    assert_eq!(counter(&lost, "beatings.green"), 2);
}
