//! Escape: The Curse of the Temple: playouts of every player count, variant and agent end
//! without error with the invariants kept; the variants change the depot as the rulebook says;
//! and the harder the variant, the fewer games the heuristic team wins.

use std::rc::Rc;

use tabula::sim::{SimOptions, agents_for, play_out_observed, simulate};
use tabula::{Error, Game, LoadOptions, Rules};

fn temple(variant: Option<&str>) -> Rc<Rules> {
    let options = LoadOptions { variants: variant.map(|v| vec![v.to_string()]).unwrap_or_default(), overrides: vec![] };
    Rc::new(tabula::load("rulesets/temple", &options).unwrap_or_else(|e| panic!("{e}")))
}

fn counter(game: &Game, name: &str) -> i64 {
    game.state().counter(game.rules().counter(name).expect("counter"))
}

#[test]
fn every_player_count_variant_and_agent_plays_to_the_end() {
    for variant in [None, Some("experts"), Some("professionals")] {
        let rules = temple(variant);
        for players in 1..=5u8 {
            for agent in ["random", "heuristic"] {
                for seed in 0..2 {
                    let mut game = Game::new(rules.clone(), players, seed).expect("start");
                    let mut agents = agents_for(&rules, agent, players, seed).expect("agents");
                    play_out_observed(&mut game, &mut agents, 100_000, &mut |g| {
                        g.state().check_invariants(&rules).map_err(Error::Input)
                    })
                    .unwrap_or_else(|e| panic!("{variant:?}, {players} players, {agent}, seed {seed}: {e}"));
                    assert!(matches!(game.outcome(), Some("win" | "loss")), "{:?}", game.outcome());
                    // Nobody plays past the collapse at 10:00.
                    assert!(game.clock() <= 600_000);
                }
            }
        }
    }
}

/// Each action's `legal` hook (which checks the actions `act` agents take) must allow exactly
/// what the phase's `options` hook lists, at every moment of a game. (Listing by the hooks
/// tries every set of a seat's dice for `roll` and `offer`: a few games are enough.)
#[test]
fn the_options_hook_and_the_legal_hooks_agree() {
    let mut checked = 0;
    for (variant, counts) in [(None, &[1u8, 3, 5][..]), (Some("professionals"), &[4][..])] {
        let rules = temple(variant);
        for &players in counts {
            for (agent, seed) in [("random", 7), ("heuristic", 8)] {
                let mut game = Game::new(rules.clone(), players, seed).expect("start");
                let mut agents = agents_for(&rules, agent, players, seed).expect("agents");
                play_out_observed(&mut game, &mut agents, 100_000, &mut |g| {
                    for seat in 0..players {
                        let mut listed = g.legal_actions(seat)?;
                        let mut allowed = g.legal_by_hooks(seat)?;
                        if g.prompt().is_some() {
                            continue;
                        }
                        listed.sort_by_key(|a| format!("{a:?}"));
                        allowed.sort_by_key(|a| format!("{a:?}"));
                        if listed != allowed {
                            return Err(Error::Input(format!(
                                "at {} ms, seat {seat}: options {listed:?}, legal hooks {allowed:?}",
                                g.clock()
                            )));
                        }
                        checked += 1;
                    }
                    Ok(())
                })
                .unwrap_or_else(|e| panic!("{variant:?}, {players} players, {agent}: {e}"));
            }
        }
    }
    assert!(checked > 1000, "only {checked} moments checked");
}

#[test]
fn the_depot_and_the_dice_follow_the_setup_rules() {
    // "Setup" 2: 7 / 7 / 11 / 14 / 16 gems by player count, 2 more beside the depot.
    for (players, gems) in [(1, 7), (2, 7), (3, 11), (4, 14), (5, 16)] {
        let game = Game::new(temple(None), players, 1).expect("start");
        assert_eq!(counter(&game, "depot"), gems, "{players} players");
        assert_eq!(counter(&game, "beside_depot"), 2);
        // "Setup" 3: five dice each, seven alone.
        let rules = game.rules();
        let dice: i64 = (0..players)
            .map(|s| {
                let seat = &rules.seats[s as usize].name;
                let zone = |z: &str| game.state().count(rules.zone(&format!("{z}.{seat}")).unwrap()) as i64;
                zone("pool") + zone("cursed")
            })
            .sum();
        assert_eq!(dice, if players == 1 { 7 } else { 5 * i64::from(players) });
    }
    // "Experts: 3 additional magic gems. Professionals: 6 additional magic gems. The action
    // Provoke a turn of fate is no longer available."
    let experts = Game::new(temple(Some("experts")), 4, 1).expect("start");
    assert_eq!(counter(&experts, "depot"), 17);
    assert_eq!(counter(&experts, "beside_depot"), 2);
    let professionals = Game::new(temple(Some("professionals")), 4, 1).expect("start");
    assert_eq!(counter(&professionals, "depot"), 20);
    assert_eq!(counter(&professionals, "beside_depot"), 0);
    for seat in 0..4 {
        let options = tabula::view::describe_options(&professionals, seat);
        assert!(!options.iter().any(|o| o.ends_with(": fate")), "{options:?}");
    }
}

#[test]
fn the_exit_lies_among_the_bottom_five_tiles_or_in_the_middle() {
    for seed in 0..30 {
        for (players, expect_bottom) in [(2, false), (4, true)] {
            let game = Game::new(temple(None), players, seed).expect("start");
            let rules = game.rules();
            let pile = game.state().pieces_in(rules, rules.zone("pile").unwrap());
            let exit = rules.piece("exit").unwrap();
            let at = pile.iter().position(|&p| p == exit).expect("the exit is in the pile");
            // 17 tiles, two laid beside the start chamber, and the exit: 16, listed top first.
            assert_eq!(pile.len(), 16);
            if expect_bottom {
                assert!(at >= 11, "seed {seed}: exit at {at} from the top");
            } else {
                assert_eq!(at, 7, "seed {seed}: the exit goes in the middle");
            }
        }
    }
}

#[test]
fn harder_variants_are_won_less_often() {
    let rate = |variant: Option<&str>| {
        let options = SimOptions { games: 120, seed: 5, players: Some(1), ..SimOptions::default() };
        let report = simulate(temple(variant), &options, &mut |_| {}).expect("sim");
        report.outcomes["win"] as f64 / report.games as f64
    };
    let (base, experts, professionals) = (rate(None), rate(Some("experts")), rate(Some("professionals")));
    assert!(base > experts + 0.05, "base {base}, experts {experts}");
    assert!(experts > professionals + 0.02, "experts {experts}, professionals {professionals}");
}

/// "A player may put aside any dice not used for an action [...] At any time, a player may
/// re-roll any dice he set aside previously (other than black masks)": the rolls a player may
/// make are every non-empty set of his own free dice, and no other.
#[test]
fn a_roll_is_any_set_of_the_rollers_own_free_dice() {
    let rules = temple(None);
    let (pool, cursed) = (rules.zone("pool.red").unwrap(), rules.zone("cursed.red").unwrap());
    // A game whose first rolls curse some of red's dice.
    let game = (0..50)
        .map(|seed| Game::new(rules.clone(), 2, seed).expect("start"))
        .find(|g| g.state().count(cursed) > 0)
        .expect("a seed that curses one of red's dice");
    let free: Vec<String> =
        game.state().pieces_in(&rules, pool).iter().map(|&p| rules.pieces[p as usize].name.clone()).collect();
    let rolls: Vec<String> =
        tabula::view::describe_options(&game, 0).into_iter().filter(|o| o.starts_with("red: roll ")).collect();
    assert_eq!(rolls.len(), (1 << free.len()) - 1, "{rolls:?}");
    for roll in &rolls {
        assert!(roll["red: roll ".len()..].split(' ').all(|die| free.iter().any(|f| f == die)), "{roll}");
    }
}

/// Every question the rules put to one adventurer (`lose` at a door slam, `give` after an
/// escape, `consent` to a turn of fate) is answered by the heuristic agent within a few seconds
/// of game time: it never leaves its seat waiting on a question it does not know.
#[test]
fn the_heuristic_agent_answers_every_question() {
    use std::collections::{BTreeSet, HashMap};
    let rules = temple(None);
    let mut asked = BTreeSet::new();
    for (players, seed) in [(2u8, 1), (3, 2), (4, 3), (5, 4), (4, 5), (5, 6)] {
        let mut game = Game::new(rules.clone(), players, seed).expect("start");
        let mut agents = agents_for(&rules, "heuristic", players, seed).expect("agents");
        // When each seat's current question was first seen.
        let mut since: HashMap<(u8, String), i64> = HashMap::new();
        play_out_observed(&mut game, &mut agents, 100_000, &mut |g| {
            let mut pending = HashMap::new();
            for seat in 0..players {
                if let Some(prompt) = g.prompt_for(seat) {
                    let action = g.rules().actions[prompt.action as usize].name.clone();
                    asked.insert(action.clone());
                    let key = (seat, action);
                    let first = since.get(&key).copied().unwrap_or(g.clock());
                    if g.clock() - first > 20_000 {
                        return Err(Error::Input(format!("seat {seat} left `{}` unanswered since {first} ms", key.1)));
                    }
                    pending.insert(key, first);
                }
            }
            since = pending;
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{players} players, seed {seed}: {e}"));
    }
    assert_eq!(asked.into_iter().collect::<Vec<_>>(), ["consent", "give", "lose"]);
}

/// The search agent's evaluation (`chances` in agent.rhai, `[game] evaluate`) follows "4. Escape"
/// (keys equal to the gems in the depot plus one): in escape.log the team's chance rises when
/// red and blue activate 3 gems (the depot from 7 to 4: a roll of 5 keys instead of 8, which no
/// adventurer's 5 dice can show), and again when blue discovers the exit (a known way out instead
/// of the pile's). Both adventurers are told the same: it is the team's chance.
#[test]
fn the_evaluation_rises_with_the_gems_activated_and_the_exit_found() {
    use tabula::search::evaluate;
    let log = "escape.log";
    let chance = |mark: &str, back: usize| {
        let game = crate::common::replay_example("temple", log, mark, back);
        let red = evaluate(&game, 0).expect("evaluates").expect("temple has an evaluation");
        assert_eq!(evaluate(&game, 1).expect("evaluates"), Some(red), "the team's chance, at {mark}");
        (red, counter(&game, "depot"))
    };
    let before = chance("red 00:07.000: activate 3", 1);
    let activated = chance("red 00:07.000: activate 3", 0);
    assert_eq!((before.1, activated.1), (7, 4), "the depot");
    assert!(before.0 < activated.0, "{before:?} {activated:?}");
    let hidden = chance("blue 00:32.000: discover south", 1);
    let found = chance("blue 00:32.000: discover south", 0);
    assert!(hidden.0 < found.0, "{hidden:?} {found:?}");
    assert!((1..100).contains(&hidden.0), "neither sure nor hopeless with the exit hidden: {hidden:?}");
}
