//! Escape from Colditz: random and heuristic playouts for 2-6 players end without error, with
//! the invariants kept after every action and the rulebook's bounds (round marker, hand limit,
//! one kit at a time, solitary and tunnel rules) holding between turns; and no seat sees
//! another's hand (information-set pairs at several player counts).

use std::rc::Rc;

use tabula::secrecy::{SecrecyOptions, check_secrecy};
use tabula::sim::{agents_for, play_out_observed};
use tabula::{Error, Game, LoadOptions, Rules};

const NATIONS: [&str; 5] = ["american", "british", "dutch", "french", "polish"];

fn colditz(overrides: &[(&str, &str)]) -> Rc<Rules> {
    let options = LoadOptions {
        variants: vec![],
        overrides: overrides.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
    };
    Rc::new(tabula::load("rulesets/colditz", &options).unwrap_or_else(|e| panic!("{e}")))
}

fn count(game: &Game, zone: &str) -> usize {
    game.state().count(game.rules().zone(zone).unwrap_or_else(|| panic!("zone {zone}"))) as usize
}

fn counter(game: &Game, name: &str) -> i64 {
    game.state().counter(game.rules().counter(name).expect("counter"))
}

/// The rulebook's bounds, checked after every action.
fn rulebook_bounds(game: &Game) -> Result<(), String> {
    let players = game.players() as usize;
    let per = [0, 0, 8, 7, 6, 5, 4][players];
    for seat in NATIONS.iter().take(players - 1) {
        // "5. Escape Kits": only one kit at a time.
        if count(game, &format!("kit.{seat}")) > 1 {
            return Err(format!("{seat} holds two escape kits"));
        }
    }
    // "3. Setup": 8/7/6/5/4 POWs a nationality; none ever leaves play.
    let in_box = count(game, "box");
    if in_box != 40 - per * (players - 1) {
        return Err(format!("{in_box} POWs out of play, expected {}", 40 - per * (players - 1)));
    }
    let rules = game.rules();
    for (z, def) in rules.zones.iter().enumerate() {
        let name = def.name.as_str();
        let n = game.state().count(z as u16) as usize;
        // "5. Movement": one pawn a space (rooms and safe areas hold a few: see the README).
        let single = ["ic_", "post_", "gate_", "oc_", "walk_", "out_"].iter().any(|p| name.starts_with(p));
        if single && n > 1 {
            return Err(format!("{n} pawns on {name}"));
        }
        // Security player aid: no guard in a room, a safe area, the Appel area, a tunnel or on a
        // walkway.
        let barred = ["room_", "safe_", "appel", "tunnel", "walk_", "target_"].iter().any(|p| name.starts_with(p));
        let guard = |p: &u16| rules.kinds[rules.pieces[*p as usize].kind as usize].name == "guard";
        if barred && game.state().pieces_in(rules, z as u16).iter().any(guard) {
            return Err(format!("a guard on {name}"));
        }
    }
    // "5. Tunnels": a closed tunnel holds nobody.
    for t in 1..=3 {
        let inside: usize = (1..=5).map(|k| count(game, &format!("tunnel{t}_{k}"))).sum();
        if counter(game, &format!("tunnel_{t}")) == 0 && inside > 0 {
            return Err(format!("{inside} POWs in closed tunnel {t}"));
        }
    }
    Ok(())
}

fn play(rules: &Rc<Rules>, players: u8, agent: &str, seed: u64) -> Game {
    let mut game = Game::new(rules.clone(), players, seed).expect("start");
    let mut agents = agents_for(rules, agent, players, seed).expect("agents");
    let mut last_seat = None;
    play_out_observed(&mut game, &mut agents, 200_000, &mut |g| {
        g.state().check_invariants(rules).map_err(Error::Input)?;
        rulebook_bounds(g).map_err(Error::Input)?;
        // "5. Cards": the hand limit holds whenever a turn passes to another seat.
        let seat = g.phase().strip_prefix("turn_").map(str::to_string);
        if seat != last_seat {
            if let Some(prev) = &last_seat {
                let hand = count(g, &format!("hand.{prev}"));
                if hand > 3 {
                    return Err(Error::Input(format!("{prev} ended its turn with {hand} cards")));
                }
            }
            last_seat = seat;
        }
        Ok(())
    })
    .unwrap_or_else(|e| panic!("{players} players, {agent}, seed {seed}: {e}"));
    game
}

fn outcome_is_a_rulebook_end(game: &Game) {
    let outcome = game.outcome().expect("over");
    if outcome == "german" {
        // "6. Scoring": the Security Officer wins at the eagle, nobody having two out.
        assert_eq!(counter(game, "rounds"), 0, "german won before the eagle");
        for seat in NATIONS.iter().take(game.players() as usize - 1) {
            assert!(count(game, &format!("escaped.{seat}")) < 2, "{seat} had two out but german won");
        }
    } else {
        // Every nationality named by the outcome has two POWs out; no other has.
        let winners: Vec<&str> = outcome.split('_').collect();
        for seat in NATIONS.iter().take(game.players() as usize - 1) {
            let out = count(game, &format!("escaped.{seat}"));
            assert_eq!(winners.contains(seat), out >= 2, "{outcome}: {seat} has {out} out");
        }
    }
}

/// Three games for each player count, on a round marker of 15 (random play rarely gets anyone
/// out, so a game lasts to the eagle: its length is the marker's).
#[test]
fn random_games_for_two_to_six_players_end_with_the_invariants_kept() {
    let rules = colditz(&[("rounds", "15")]);
    for players in 2..=6u8 {
        for seed in 0..3 {
            let game = play(&rules, players, "random", seed);
            outcome_is_a_rulebook_end(&game);
        }
    }
}

/// One game for each player count, on a round marker of 12 (a heuristic game in a debug build
/// costs seconds a round; the invariants are the same in every round).
#[test]
fn heuristic_games_for_two_to_six_players_end_with_the_invariants_kept() {
    let rules = colditz(&[("rounds", "12")]);
    let mut escapes = 0;
    for players in 2..=6u8 {
        for seed in 0..1 {
            let game = play(&rules, players, "heuristic", seed);
            outcome_is_a_rulebook_end(&game);
            escapes +=
                NATIONS.iter().take(players as usize - 1).map(|s| count(&game, &format!("escaped.{s}"))).sum::<usize>();
        }
    }
    assert!(escapes > 0, "the heuristic Escape Officers never got a POW out");
}

#[test]
fn a_shorter_round_marker_ends_sooner() {
    let rules = colditz(&[("rounds", "3")]);
    let game = play(&rules, 4, "random", 7);
    outcome_is_a_rulebook_end(&game);
    assert_eq!(counter(&game, "rounds"), 0);
}

#[test]
fn no_seat_sees_another_hand_at_two_four_and_six_players() {
    let rules = colditz(&[("rounds", "4")]);
    for players in [2u8, 4, 6] {
        let options = SecrecyOptions { pairs: 8, players: Some(players), max_steps: 250, ..SecrecyOptions::default() };
        let report = check_secrecy(rules.clone(), &options).unwrap_or_else(|e| panic!("{players} players: {e}"));
        assert!(report.steps_hidden_apart > 20, "{players} players: too few informative steps: {report:?}");
    }
}

/// Replays examples/logs/colditz/<name> up to (and including) the first line containing `mark`.
fn replay_until(name: &str, mark: &str) -> Game {
    replay_to(name, mark, 0)
}

/// Replays examples/logs/colditz/<name> up to the line before the first containing `mark`.
fn replay_before(name: &str, mark: &str) -> Game {
    replay_to(name, mark, 1)
}

fn replay_to(name: &str, mark: &str, back: usize) -> Game {
    crate::common::replay_example("colditz", name, mark, back)
}

fn legal(game: &Game, line: &str) -> bool {
    let action = game.parse_action(line).expect("parses");
    game.check_legal(&action).is_ok()
}

/// "5. Arrest Rules": in the inner courtyard a POW may be arrested only while its Escape Officer
/// holds Equipment. In arrests.log the guard next to american_1 may not step onto it before the
/// American makes a pass, and may after.
#[test]
fn an_inner_courtyard_arrest_needs_equipment() {
    let before = replay_before("arrests.log", "the American holds no Equipment, so american_1");
    // guard_1 stands on post_i1, next to american_1 on ic_d1; no Equipment yet.
    assert!(!legal(&before, "german: move guard_1 ic_d1"), "arrest without equipment");
    let after = replay_before("arrests.log", "german: move guard_1 ic_d1");
    assert!(legal(&after, "german: move guard_1 ic_d1"), "arrest with equipment");
}

/// "5. General Search": "if so, Security Officer may instead perform a General Search" and, of
/// the search, "Guards do not move": the search takes the place of the turn's movement. In
/// appel-search-and-interrupt.log, once the search has arrested american_2 the Security Officer
/// may only end its turn: no movement roll, no guard moves, no draw.
#[test]
fn a_general_search_takes_the_place_of_the_guards_movement() {
    let game = replay_before("appel-search-and-interrupt.log", "german: end_turn");
    assert_eq!(counter(&game, "searched"), 1);
    assert_eq!(count(&game, "solitary_inner"), 1, "american_2 arrested");
    assert_eq!(counter(&game, "moves"), 0);
    assert_eq!(options_of(&game, "german"), ["german: end_turn"]);
}

/// "5. Arrest Rules": no arrest of a POW "returning promptly from outer solitary without
/// Equipment and using all movement toward inner courtyard". In returning-from-outer-solitary.log
/// the American spends all its movement walking american_3 home: guard_2, beside it, may not
/// arrest it; a round later the American moves another POW too, and guard_2 may.
#[test]
fn a_pow_back_from_the_outer_solitary_is_safe_only_while_all_movement_takes_it_home() {
    let log = "returning-from-outer-solitary.log";
    let game = replay_until(log, "german: move guard_2 gate_3");
    assert_eq!(count(&game, "gate_2"), 1, "american_3 beside the guard");
    assert!(!legal(&game, "german: move guard_2 gate_2"), "safe while all movement took it home");
    let game = replay_before(log, "german: move guard_2 gate_1");
    assert!(legal(&game, "german: move guard_2 gate_1"), "not after the American moved another POW");
}

/// "5. Equipment Cards": "Using Equipment (e.g., rope, wire cutters) returns card to bottom of
/// deck"; "7. FAQ": "Can Equipment be used by multiple POWs? Yes, in the same turn it is played."
/// In equipment-used-up.log two POWs go through the gateway on one pass, which goes back to its
/// pile at the end of the turn: a round later the first stands before the east gate bridge and
/// may not cross it.
#[test]
fn equipment_is_used_up_at_the_end_of_the_turn_it_is_played() {
    let log = "equipment-used-up.log";
    let game = replay_until(log, "american: move american_6 gate_4");
    assert_eq!(count(&game, "played.american"), 1, "the pass, played once for both");
    assert_eq!(count(&game, "equipment.american"), 1, "the key");
    let game = replay_until(log, "american: move american_5 oc_b2");
    assert_eq!(count(&game, "played.american"), 0, "back to its pile");
    assert!(!legal(&game, "american: move american_5 out_e1"), "no pass left for the bridge");
}

/// "5. Equipment Cards": Equipment "can be traded freely between Escape Officers". In trade.log
/// the British accepts a swap and declines a request; once it has declined, the American's
/// options offer it nothing more this turn, and the Security Officer never has an offer to make.
#[test]
fn trades_are_offered_and_answered() {
    let game = replay_until("trade.log", "british: answer_trade key pass american accept");
    assert_eq!(count(&game, "equipment.american"), 1);
    assert_eq!(count(&game, "equipment.british"), 2);
    assert!(options_of(&game, "american").iter().any(|o| o == "american: offer pass rope british"));
    let game = replay_until("trade.log", "british: answer_trade none rope american decline");
    assert!(!options_of(&game, "american").iter().any(|o| o.starts_with("american: offer")), "not asked again");
    assert_eq!(count(&game, "equipment.british"), 2, "nothing moved on a decline");
}

/// "5. Escape Kits": four kit rooms, kit-part cards, "or Combine POW placements and cards": the
/// Escape Officer names the set. In kit-from-rooms.log the American has a POW in each kit room
/// (american_1 food, american_2 documents, american_3 compass, american_4 disguise) and holds the
/// compass-disguise and food-compass cards: four sets make a kit, each POW and card giving a part
/// no other gives, fewest cards first.
#[test]
fn the_escape_officer_names_the_pows_and_cards_of_a_kit() {
    let game = replay_before("kit-from-rooms.log", "american: make_kit");
    let kits: Vec<String> =
        options_of(&game, "american").into_iter().filter(|o| o.starts_with("american: make_kit")).collect();
    assert_eq!(
        kits,
        [
            "american: make_kit american_1 american_2 american_3 american_4",
            "american: make_kit american_1 american_2 kit_compass_disguise_1",
            "american: make_kit american_2 american_4 kit_food_compass_1",
            "american: make_kit american_2 kit_compass_disguise_1 kit_food_compass_1",
        ]
    );
}

/// "5. Movement": guards go "from any post to Commander's Office (cost: 1 movement)". In
/// recall-from-a-post.log guard_2 has stepped off its post: it may not be recalled; guard_3, on
/// its post, may.
#[test]
fn a_guard_is_recalled_from_a_post_only() {
    let game = replay_until("recall-from-a-post.log", "german: move guard_2 oc_a1");
    assert!(!legal(&game, "german: recall guard_2"), "off its post");
    assert!(legal(&game, "german: recall guard_3"), "on its post");
}

/// "5. Escape Attempts": a marker opens its wire or drop to pursuing guards (in key-drop-and-
/// pursuit.log guard_3 follows the American down the south wall) and to its own nationality,
/// with nothing spent (in shared-win.log the second British POW has no wire cutters left).
#[test]
fn a_marker_opens_the_way_for_its_nationality_and_for_guards() {
    let game = replay_until("key-drop-and-pursuit.log", "german: move guard_3 oc_b14");
    assert!(legal(&game, "german: move guard_3 out_s1"));
    let game = replay_until("shared-win.log", "british: move british_2 oc_b21");
    assert_eq!(count(&game, "equipment.british"), 0, "the rope and the wire cutters are spent");
    assert!(legal(&game, "british: move british_2 out_nw3"));
    // The options hook lists it too (the log's replay checks actions against the same list).
    let options = tabula::view::describe_options(&game, game.rules().seat("british").unwrap());
    assert!(options.iter().any(|o| o == "british: move british_2 out_nw3"), "{options:?}");
}

/// The board as text, from the data: each zone's links in declaration order of the edges, a
/// barrier written on its link (`--door--`), one-way links with an arrow; a run of spaces each
/// linked only to the next (a tunnel, a road outside the walls) on one line. The ruleset's
/// README shows this text; the test keeps the two in step.
fn board_text(rules: &Rules) -> String {
    let mut lines: Vec<(String, Vec<String>)> = Vec::new();
    for e in &rules.edges {
        let from = rules.zones[e.from as usize].name.clone();
        let to = &rules.zones[e.to as usize].name;
        let kind = e.kind.as_deref().map(|k| format!("--{k}")).unwrap_or_default();
        let link = if e.one_way { format!("{kind}--> {to}") } else { format!("{kind}-- {to}") };
        match lines.iter_mut().find(|(z, _)| *z == from) {
            Some((_, links)) => links.push(link),
            None => lines.push((from, vec![link])),
        }
    }
    // Chains: a line whose only link is a plain one to the zone the previous chain ended on.
    let mut merged: Vec<(String, String)> = Vec::new();
    let mut end: Option<String> = None;
    for (zone, links) in lines {
        let plain = links.len() == 1 && links[0].starts_with("-- ");
        if plain && end.as_deref() == Some(zone.as_str()) {
            let last = merged.last_mut().expect("a chain");
            last.1.push(' ');
            last.1.push_str(&links[0]);
            end = Some(links[0][3..].to_string());
        } else {
            end = plain.then(|| links[0][3..].to_string());
            merged.push((zone, links.join(", ")));
        }
    }
    let width = merged.iter().map(|(z, _)| z.len()).max().unwrap_or(0);
    merged.iter().map(|(z, links)| format!("{z:width$} {links}\n")).collect()
}

#[test]
fn the_readme_shows_the_board_of_the_data() {
    let readme = std::fs::read_to_string("rulesets/colditz/README.md").expect("README");
    let board = board_text(&colditz(&[]));
    let start = readme.find("<!-- board -->\n```\n").expect("a <!-- board --> block") + "<!-- board -->\n```\n".len();
    let end = start + readme[start..].find("```").expect("end of the block");
    assert_eq!(readme[start..end], board, "the README's board differs from game.toml; it should read:\n{board}");
}

/// "3. Setup": POWs per player count on the Appel area, one kit and one Opportunity card per
/// Escape Officer, one Security card; with six players six kit-part cards go face down to the
/// Security Officer, who cannot look at them, and the others see how many there are.
#[test]
fn set_up_follows_the_player_count() {
    let rules = colditz(&[]);
    for (players, per) in [(2u8, 8usize), (3, 7), (4, 6), (5, 5), (6, 4)] {
        let game = Game::new(rules.clone(), players, 3).expect("start");
        let eos = players as usize - 1;
        assert_eq!(count(&game, "appel"), per * eos, "{players} players");
        for seat in NATIONS.iter().take(eos) {
            assert_eq!(count(&game, &format!("kit.{seat}")), 1);
            assert_eq!(count(&game, &format!("hand.{seat}")), 1);
        }
        assert_eq!(count(&game, "hand.german"), 1);
        let reserve = if players == 6 { 6 } else { 0 };
        assert_eq!(count(&game, "kit_reserve"), reserve);
        assert_eq!(count(&game, "opportunity_deck"), 47 - eos - reserve);
        if players == 6 {
            let german = rules.seat("german").unwrap();
            let seen = tabula::view::view(&game, Some(german));
            assert!(seen.zones["kit_reserve"].pieces.is_empty(), "the Security Officer looked at the kit parts");
            assert_eq!(seen.zones["kit_reserve"].count, Some(6));
        }
    }
}

fn options_of(game: &Game, seat: &str) -> Vec<String> {
    tabula::view::describe_options(game, game.rules().seat(seat).expect("seat"))
}

fn apply(game: &mut Game, line: &str) {
    let action = game.parse_action(line).expect("parses");
    game.apply(&action).unwrap_or_else(|e| panic!("{line}: {e}"));
}

/// "5. Escape Attempts": "Guards may remove marker when moving over it; if so, must pursue or go
/// to Commander's Office". In pursuit-and-early-card.log guard_3 takes the American marker up on
/// out_s1 with american_4 one space on: its only options are the step onto the POW (nearer) and
/// the Commander's Office; no other guard moves and the turn cannot end. Without the marker taken
/// up (a moment earlier) other guards may move.
#[test]
fn a_guard_that_takes_a_marker_up_must_pursue_or_go_to_the_office() {
    let log = "pursuit-and-early-card.log";
    let before = replay_before(log, "german: take_marker guard_3 out_s1");
    assert!(legal(&before, "german: move guard_2 oc_a9"), "before the marker is taken up, others move");
    let game = replay_until(log, "german: take_marker guard_3 out_s1");
    assert_eq!(count(&game, "out_s1"), 1, "guard_3 on the landing space");
    assert_eq!(counter(&game, "pursuits"), 1);
    assert!(counter(&game, "moves") > 0, "movement left");
    assert_eq!(options_of(&game, "german"), ["german: move guard_3 out_s2", "german: recall guard_3"]);
    assert!(!legal(&game, "german: end_turn"), "a pursuing guard may not stop");
    assert!(!legal(&game, "german: move guard_2 oc_a9"), "other guards wait for the pursuit");
    // Going to the Commander's Office ends the obligation.
    let mut office = game.clone();
    apply(&mut office, "german: recall guard_3");
    assert_eq!(counter(&office, "pursuits"), 0);
    assert_eq!(count(&office, "office"), 1);
    assert!(legal(&office, "german: end_turn"));
    assert!(legal(&office, "german: move guard_2 oc_a9"));
    // Pursuing: the arrest (the POW to the outer solitary, the guard to the Commander's Office).
    let game = replay_until(log, "german: move guard_3 out_s2");
    assert_eq!(count(&game, "solitary_outer"), 1);
    assert_eq!(count(&game, "office"), 1);
    assert_eq!(counter(&game, "pursuits"), 0);
    assert!(legal(&game, "german: end_turn"));
}

/// "5. Cards": "Security cards can be used at any time during turn unless marked 'interrupt'";
/// only the Appel card is bound to come before the roll. In pursuit-and-early-card.log the
/// Security Officer is offered Reinforcements before its first roll and plays it: its 3 movement
/// add to the roll's 6.
#[test]
fn security_cards_may_be_played_before_the_roll() {
    let log = "pursuit-and-early-card.log";
    let game = replay_before(log, "german: play reinforcements_card_1");
    assert_eq!(counter(&game, "rolled"), 0);
    assert_eq!(options_of(&game, "german"), ["german: roll", "german: play reinforcements_card_1"]);
    let game = replay_until(log, "german: play reinforcements_card_1");
    assert_eq!(counter(&game, "moves"), 3);
    assert_eq!(count(&game, "hand.german"), 0);
    assert_eq!(options_of(&game, "german"), ["german: roll"]);
    // The roll (2, 4) adds to the card's movement.
    let game = replay_before(log, "german: end_turn");
    assert_eq!(counter(&game, "rolled"), 1);
    assert_eq!(counter(&game, "moves"), 9);
}

/// "7. FAQ": "Can Opportunity cards be used out of turn? Only if marked 'interrupt'." In
/// appel-search-and-interrupt.log the American holds the Diversion (the stand-in interrupt card)
/// and may play it at any step of the Security Officer's turn while movement is left; the game
/// waits for the Security Officer alone, and the British, without one, has nothing to do.
#[test]
fn an_interrupt_card_is_played_out_of_turn_at_any_step_of_the_security_officers_turn() {
    let game = replay_before("appel-search-and-interrupt.log", "american: interrupt diversion_card_1");
    let german = game.rules().seat("german").unwrap();
    assert_eq!(game.to_act(), [german]);
    assert_eq!(counter(&game, "moves"), 5, "one step of the six taken");
    assert_eq!(options_of(&game, "american"), ["american: interrupt diversion_card_1"]);
    assert!(options_of(&game, "british").is_empty());
    let after = replay_until("appel-search-and-interrupt.log", "american: interrupt diversion_card_1");
    assert_eq!(counter(&after, "moves"), 2, "the diversion took 3");
    assert!(options_of(&after, "american").is_empty(), "the card is spent");
}

/// "5. Equipment Cards": Equipment "can be traded freely between Escape Officers (except during
/// Security Officer's turn)". In trade-out-of-turn.log the American and the British trade while
/// the Dutch is on turn; in the Security Officer's turn nobody may offer.
#[test]
fn two_escape_officers_trade_while_a_third_is_on_turn_but_not_in_the_security_officers_turn() {
    let game = replay_before("trade-out-of-turn.log", "american: offer key pass british");
    assert_eq!(game.phase(), "turn_dutch");
    let american = options_of(&game, "american");
    assert!(american.contains(&"american: offer key pass british".to_string()), "{american:?}");
    assert!(american.iter().all(|o| o.starts_with("american: offer ")), "only trades out of turn: {american:?}");
    assert!(options_of(&game, "german").is_empty(), "the Security Officer does not trade");
    let german_turn = replay_until("trade-out-of-turn.log", "german: roll");
    assert_eq!(german_turn.phase(), "turn_german");
    for seat in ["american", "british", "dutch"] {
        assert!(options_of(&german_turn, seat).is_empty(), "{seat} may not trade in the Security Officer's turn");
    }
}

/// The search agent's evaluation (`progress` in agent.rhai, `[game] evaluate`) follows "6. Scoring
/// & End Game" ("First Escape Officer to get two of their POWs to escape targets wins", else the
/// Security Officer): in equipment-kit-and-escape.log the American's estimate rises as
/// american_5 walks the east path out to its target and again when it escapes (one of the two
/// POWs the American needs), and the Security Officer's falls as the American's rises.
#[test]
fn the_evaluation_rises_as_a_pow_nears_its_escape_and_escapes() {
    use tabula::search::evaluate;
    let log = "equipment-kit-and-escape.log";
    let estimates = |game: &Game| {
        let german = evaluate(game, 0).expect("evaluates").expect("colditz has an evaluation");
        let american = evaluate(game, 1).expect("evaluates").expect("colditz has an evaluation");
        (american, german)
    };
    let outside = estimates(&replay_before(log, "american: move american_5 out_e2"));
    let at_the_target = estimates(&replay_before(log, "american: move american_5 target_e"));
    let escaped = estimates(&replay_until(log, "american: move american_5 target_e"));
    assert_eq!(count(&replay_until(log, "american: move american_5 target_e"), "escaped.american"), 1);
    assert!(
        outside.0 < at_the_target.0 && at_the_target.0 < escaped.0,
        "american: {outside:?} {at_the_target:?} {escaped:?}"
    );
    assert!(
        outside.1 > at_the_target.1 && at_the_target.1 > escaped.1,
        "german: {outside:?} {at_the_target:?} {escaped:?}"
    );
    assert!(escaped.0 > 50, "one POW out of two is more than half the race: {escaped:?}");
}

/// rules.rhai offers a guard's `take_marker` where `edge_kind` of the step's two spaces is a
/// barrier, and `edge_kind` names the first link between them: that is the link crossed only
/// while no two spaces are linked both by a barrier and by something else.
#[test]
fn no_two_spaces_share_a_barrier_with_another_link() {
    let text = std::fs::read_to_string("rulesets/colditz/game.toml").expect("game.toml");
    let doc: toml::Table = toml::from_str(&text).expect("TOML");
    let mut kinds: std::collections::BTreeMap<(String, String), Vec<Option<String>>> = Default::default();
    for e in doc["edges"].as_array().expect("edges") {
        let (a, b) = (e["from"].as_str().expect("from"), e["to"].as_str().expect("to"));
        let pair = if a < b { (a, b) } else { (b, a) };
        let kind = e.get("kind").and_then(|k| k.as_str()).map(str::to_string);
        kinds.entry((pair.0.to_string(), pair.1.to_string())).or_default().push(kind);
    }
    let barrier = |k: &Option<String>| matches!(k.as_deref(), Some("wire" | "drop30" | "drop60"));
    let mixed: Vec<_> = kinds.iter().filter(|(_, ks)| ks.len() > 1 && ks.iter().any(barrier)).collect();
    assert!(kinds.values().any(|ks| ks.len() > 1), "the castle has a pair linked twice (the gateway)");
    assert!(mixed.is_empty(), "spaces linked by a barrier and another link: {mixed:?}");
}
