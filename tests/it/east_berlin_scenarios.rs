//! Scripted games of Escape from East Berlin, checked against the rulebook.
//!
//! Each test is an example: the ruleset, a list of actions written as in a log (one per line,
//! `#` starts a comment), and the state the rulebook says the game must be in afterwards. Rule
//! citations ("Phase 4-2"...) refer to the East Berlin rulebook (Ficdep, 2018); the interpretations
//! (tunnel track 0-10, checkpoints at 4->5 and 8->9, decision order) to the interpretations in the ruleset's README.
//!
//! The key facts are asserted one by one; the final views (omniscient, exile, police) are pinned
//! as snapshots in tests/it/snapshots/.

use std::rc::Rc;

use tabula::view::{describe_options, view};
use tabula::{Game, LoadOptions, Rules};

const EXILE: u8 = 0;
const POLICE: u8 = 1;

/// "Decision of members ability": the recommended three construction and three funding members.
const SETUP: &str = "
    exile: choose_ability angela construction
    exile: choose_ability bruno construction
    exile: choose_ability carl construction
    exile: choose_ability dan funding
    exile: choose_ability erika funding
    exile: choose_ability fine funding
";

fn rules() -> Rc<Rules> {
    Rc::new(tabula::load("rulesets/east-berlin", &LoadOptions::default()).expect("the East Berlin ruleset loads"))
}

/// A recorded two-player game after `SETUP` (the game has no chance, so the seed does not matter).
fn new_game() -> Game {
    let mut game = Game::recorded(rules(), 2, 1).expect("a two-player game starts");
    play(&mut game, SETUP);
    game
}

/// Plays a script, one action per line; panics with the line that does not parse or is refused.
fn play(game: &mut Game, script: &str) {
    for line in script.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let action = game.parse_action(line).unwrap_or_else(|e| panic!("`{line}` does not parse: {e}"));
        if let Err(e) = game.apply(&action) {
            panic!("`{line}` was refused: {e}");
        }
    }
}

fn counter(game: &Game, name: &str) -> i64 {
    let id = game.rules().counter(name).unwrap_or_else(|| panic!("no counter `{name}`"));
    game.state().counter(id)
}

/// The zone a piece is in, by name.
fn zone_of(game: &Game, piece: &str) -> String {
    let rules = game.rules();
    let id = rules.piece(piece).unwrap_or_else(|| panic!("no piece `{piece}`"));
    rules.zones[game.state().zone_of(id) as usize].name.clone()
}

fn level(game: &Game, member: &str) -> i64 {
    let rules = game.rules();
    let id = rules.piece(member).unwrap_or_else(|| panic!("no piece `{member}`"));
    game.state().prop(rules.prop_slot(id, "level").expect("members have a level"))
}

fn is_face_up(game: &Game, piece: &str) -> bool {
    game.state().is_face_up(game.rules().piece(piece).expect("a piece"))
}

/// The legal actions of a seat, as written in logs.
fn options(game: &Game, seat: u8) -> Vec<String> {
    describe_options(game, seat)
}

/// Everything the events since `from` say, one per line (for snapshots and `contains` checks).
fn events_since(game: &Game, from: usize) -> Vec<String> {
    game.events()[from..].iter().map(|e| e.describe(game.rules())).collect()
}

/// The omniscient view and what each seat sees, for a snapshot.
fn views(game: &Game) -> String {
    [view(game, None), view(game, Some(EXILE)), view(game, Some(POLICE))]
        .iter()
        .map(|v| v.render())
        .collect::<Vec<_>>()
        .join("\n")
}

// 1. "Phase 4-2": "To pass a checkpoint, total construction level is need that it equals or over
// defined number, or paying 5 money, you can pass checkpoint." "Last check point: [⚒] Total of
// construction level of assigned members is 2 or more. [ℳ] Pay 5 money." "Victory condition:
// Tunnel completed: The exile hoper group wins", immediately.
// The construction team passes the first checkpoint on its level (3 >= 1) and is then arrested;
// the funding members dig on to the last checkpoint, where their level (0) fails, and the exile
// buys the way through with 5 money and reaches the exit in the same round.
#[test]
fn exile_pays_at_the_last_checkpoint_and_escapes() {
    let mut game = new_game();
    play(
        &mut game,
        "
        # Round 1. Phase 1: every member is assigned, Angela to Fine.
        exile: assign angela tunnel
        exile: assign bruno tunnel
        exile: assign carl tunnel
        exile: assign dan funding
        exile: assign erika funding
        exile: assign fine funding
        # Phase 2: the police guesses wrong everywhere.
        police: investigate arrest_angela police_funding
        police: investigate arrest_bruno police_funding
        police: investigate arrest_carl police_city
        police: investigate arrest_dan police_tunnel
        police: investigate arrest_erika police_hand
        police: investigate arrest_fine police_hand
        police: investigate security_1 police_hand
        police: investigate security_2 police_hand
        ",
    );
    // Phase 4: three level-0 members fund 3 (4 -> 7) and dig 3 (0 -> 3). Phase 5: all six worked
    // in their specialty and reach level 1.
    assert_eq!((counter(&game, "round"), counter(&game, "money"), counter(&game, "tunnel")), (2, 7, 3));
    assert_eq!(counter(&game, "arrests"), 0);
    for member in ["angela", "bruno", "carl", "dan", "erika", "fine"] {
        assert_eq!(level(&game, member), 1, "{member}");
    }
    play(
        &mut game,
        "
        # Round 2. The four cards used in round 1 rest; the police places the other two.
        exile: assign angela tunnel
        exile: assign bruno tunnel
        exile: assign carl tunnel
        exile: assign dan funding
        exile: assign erika funding
        exile: assign fine funding
        police: investigate arrest_erika police_tunnel
        police: investigate arrest_fine police_tunnel
        police: investigate security_1 police_hand
        police: investigate security_2 police_hand
        ",
    );
    // The first checkpoint (4 -> 5) needs a construction level of 1: the team has 3, so the
    // tunnel goes 3 -> 6 without a question. Funding 7 -> 10, the top of the fund statement.
    assert_eq!((counter(&game, "round"), counter(&game, "money"), counter(&game, "tunnel")), (3, 10, 6));
    for member in ["angela", "bruno", "carl", "dan", "erika", "fine"] {
        assert_eq!(level(&game, member), 2, "{member}");
    }
    play(
        &mut game,
        "
        # Round 3. The police fills the tunnel with the construction team's cards.
        exile: assign angela tunnel
        exile: assign bruno tunnel
        exile: assign carl tunnel
        exile: assign dan tunnel
        exile: assign erika tunnel
        exile: assign fine funding
        police: investigate arrest_angela police_tunnel
        police: investigate arrest_bruno police_tunnel
        police: investigate arrest_carl police_tunnel
        police: investigate arrest_dan police_funding
        # The tunnel area is full (3 cards): security can only stay in hand.
        police: investigate security_1 police_hand
        police: investigate security_2 police_hand
        # Phase 3 arrests Angela, Bruno and Carl. Fine funds 2 (level 2), but money stays at 10.
        # Dan and Erika dig 6 -> 8; their steps end in front of the last checkpoint.
        # Phase 6: two releases at 2 money each, Carl stays.
        exile: release angela release
        exile: release bruno release
        exile: release carl stay
        ",
    );
    assert_eq!(counter(&game, "arrests"), 3);
    // 10 (Fine's 2 lost above the maximum) - 2 - 2 = 6.
    assert_eq!((counter(&game, "round"), counter(&game, "money"), counter(&game, "tunnel")), (4, 6, 8));
    assert_eq!(zone_of(&game, "carl"), "prison");
    play(
        &mut game,
        "
        # Round 4. Angela and Bruno, released last round, must sit in the city.
        exile: assign angela city
        exile: assign bruno city
        exile: assign dan tunnel
        exile: assign erika tunnel
        exile: assign fine tunnel
        police: investigate arrest_erika police_funding
        police: investigate arrest_fine police_funding
        police: investigate security_1 police_hand
        police: investigate security_2 police_hand
        ",
    );
    // Dan, Erika and Fine (funding specialists: construction level 0 < 2) stand at the last
    // checkpoint with 3 steps to walk; the exile has 6 money, so may pay.
    assert_eq!(counter(&game, "tunnel"), 8);
    assert_eq!(counter(&game, "money"), 6);
    assert_eq!(options(&game, EXILE), ["exile: checkpoint pay", "exile: checkpoint stop"]);
    // Had the exile kept the money, "a construction stop at the front of checkpoint".
    let mut stopped = game.clone();
    play(&mut stopped, "exile: checkpoint stop");
    assert_eq!((counter(&stopped, "money"), counter(&stopped, "tunnel"), stopped.outcome()), (6, 8, None));
    let before_paying = game.events().len();
    play(&mut game, "exile: checkpoint pay");
    // 6 - 5 = 1 money; 8 -> 9 -> 10: the tunnel is complete and the exile wins at once.
    assert_eq!(counter(&game, "money"), 1);
    assert_eq!(counter(&game, "tunnel"), 10);
    assert_eq!(game.outcome(), Some("exile"));
    assert_eq!(counter(&game, "arrests"), 3);
    // "The game is over immediately": no experience and no release that round.
    let after = events_since(&game, before_paying);
    assert_eq!(after.last().map(String::as_str), Some("end exile"));
    assert!(!after.iter().any(|e| e == "phase experience" || e == "phase release"), "{after:#?}");
    assert!(options(&game, EXILE).is_empty() && options(&game, POLICE).is_empty());
    insta::assert_snapshot!("exile_pays_at_the_last_checkpoint", format!("{}\n{}", after.join("\n"), views(&game)));
}

// 2. "Victory condition: 6 times arrest: Secret police wins", "the game is over immediately".
// "Phase 6: One member release requires 2 money." Notes: "a member released and arrested again
// counts again"; "The police win right after the reveal (before funding)".
// Angela is arrested in round 1, released for 2 money, sits in the city in round 2 (her card is
// resting), and is arrested again in round 3: the sixth arrest.
#[test]
fn police_win_on_the_sixth_arrest_with_angela_arrested_twice() {
    let mut game = new_game();
    play(
        &mut game,
        "
        # Round 1.
        exile: assign angela tunnel
        exile: assign bruno tunnel
        exile: assign carl tunnel
        exile: assign dan funding
        exile: assign erika funding
        exile: assign fine funding
        police: investigate arrest_angela police_tunnel
        police: investigate arrest_bruno police_tunnel
        police: investigate arrest_carl police_hand
        police: investigate arrest_dan police_funding
        police: investigate arrest_erika police_hand
        police: investigate arrest_fine police_hand
        police: investigate security_1 police_hand
        police: investigate security_2 police_hand
        # Angela, Bruno and Dan are arrested. Erika and Fine fund 2 (4 -> 6), Carl digs 1.
        # Phase 6, Angela to Fine: Angela is released for 2 money (6 -> 4).
        exile: release angela release
        exile: release bruno stay
        exile: release dan stay
        ",
    );
    assert_eq!(counter(&game, "arrests"), 3);
    assert_eq!((counter(&game, "money"), counter(&game, "tunnel")), (4, 1));
    assert_eq!(zone_of(&game, "angela"), "released");
    play(
        &mut game,
        "
        # Round 2. Released Angela must sit in the city; Bruno and Dan are in prison.
        exile: assign angela city
        exile: assign carl tunnel
        exile: assign erika funding
        exile: assign fine funding
        # Arrest:Angela, Bruno and Dan rest this round.
        police: investigate arrest_carl police_tunnel
        police: investigate arrest_erika police_funding
        police: investigate arrest_fine police_hand
        police: investigate security_1 police_hand
        police: investigate security_2 police_hand
        # Carl and Erika are arrested (5). Fine funds 1 (4 -> 5), nobody digs.
        # Phase 6: the exile keeps the money.
        exile: release bruno stay
        exile: release carl stay
        exile: release dan stay
        exile: release erika stay
        ",
    );
    assert_eq!(counter(&game, "arrests"), 5);
    assert_eq!((counter(&game, "money"), counter(&game, "tunnel")), (5, 1));
    assert_eq!(level(&game, "fine"), 2);
    assert_eq!(zone_of(&game, "angela"), "members");
    let round_3 = game.events().len();
    play(
        &mut game,
        "
        # Round 3. Only Angela and Fine are free.
        exile: assign angela tunnel
        exile: assign fine funding
        # Arrest:Angela is back from resting.
        police: investigate arrest_angela police_tunnel
        police: investigate arrest_bruno police_hand
        police: investigate arrest_dan police_hand
        police: investigate arrest_fine police_hand
        police: investigate security_1 police_hand
        police: investigate security_2 police_hand
        ",
    );
    assert_eq!(counter(&game, "arrests"), 6);
    assert_eq!(game.outcome(), Some("police"));
    assert_eq!(zone_of(&game, "angela"), "prison");
    let round_3 = events_since(&game, round_3);
    let angela_arrested =
        game.events().iter().map(|e| e.describe(game.rules())).filter(|e| e == "move angela tunnel -> prison").count();
    assert_eq!(angela_arrested, 2, "Angela is arrested in the tunnel twice");
    // The game ends right after the reveal: Fine (funding, level 2) does not fund, Angela does
    // not dig.
    assert_eq!((counter(&game, "money"), counter(&game, "tunnel")), (5, 1));
    assert_eq!(round_3.last().map(String::as_str), Some("end police"));
    assert!(!round_3.iter().any(|e| e == "phase funding" || e == "phase construction"), "{round_3:#?}");
    insta::assert_snapshot!("police_win_on_the_sixth_arrest", views(&game));
}

// 3. Prison sheet: "Released member cards should be placed in City and shown the surface. But,
// released members should not attend construction and funding in next round." Notes: "Chips of
// released members are public", while "where each chip is assigned is hidden from the police
// until the reveal".
#[test]
fn a_released_member_sits_face_up_in_the_city_next_round() {
    let mut game = new_game();
    play(
        &mut game,
        "
        # Round 1: Carl is arrested in the tunnel and released for 2 money.
        exile: assign angela tunnel
        exile: assign bruno tunnel
        exile: assign carl tunnel
        exile: assign dan funding
        exile: assign erika funding
        exile: assign fine funding
        police: investigate arrest_angela police_hand
        police: investigate arrest_bruno police_hand
        police: investigate arrest_carl police_tunnel
        police: investigate arrest_dan police_hand
        police: investigate arrest_erika police_hand
        police: investigate arrest_fine police_hand
        police: investigate security_1 police_hand
        police: investigate security_2 police_hand
        exile: release carl release
        # Round 2.
        exile: assign angela tunnel
        exile: assign bruno tunnel
        ",
    );
    // 4 + 3 funding - 2 for the release.
    assert_eq!((counter(&game, "arrests"), counter(&game, "money")), (1, 5));
    assert_eq!(zone_of(&game, "carl"), "released");
    assert!(is_face_up(&game, "carl"));
    // Carl's turn to be assigned: the city is the only choice.
    assert_eq!(options(&game, EXILE), ["exile: assign carl city"]);
    play(
        &mut game,
        "
        exile: assign carl city
        exile: assign dan funding
        exile: assign erika funding
        exile: assign fine funding
        ",
    );
    // Phase 2: the police sees Carl face up in the city, but none of the other chips.
    assert_eq!(game.prompt().map(|p| p.seat), Some(POLICE));
    assert!(is_face_up(&game, "carl"));
    let police = view(&game, Some(POLICE));
    let city = &police.zones["city"];
    assert_eq!(city.pieces.iter().map(|p| (p.name.as_str(), p.face_up)).collect::<Vec<_>>(), [("carl", true)]);
    assert_eq!(city.count, None, "the police cannot tell whether other chips sit in the city");
    for area in ["tunnel", "funding"] {
        assert!(police.zones[area].pieces.is_empty() && police.zones[area].count.is_none(), "{area}");
    }
    insta::assert_snapshot!("released_member_in_the_city", views(&game));

    play(
        &mut game,
        "
        police: investigate arrest_angela police_funding
        police: investigate arrest_bruno police_funding
        police: investigate arrest_dan police_tunnel
        police: investigate arrest_erika police_tunnel
        police: investigate arrest_fine police_tunnel
        police: investigate security_1 police_hand
        police: investigate security_2 police_hand
        ",
    );
    // Carl did nothing in the city (no level); the others worked.
    assert_eq!(level(&game, "carl"), 0);
    assert_eq!((level(&game, "angela"), level(&game, "dan")), (2, 2));
    // Round 3: Carl is an ordinary free member again and may go anywhere.
    assert_eq!(counter(&game, "round"), 3);
    assert_eq!(zone_of(&game, "carl"), "members");
    play(&mut game, "exile: assign angela tunnel\nexile: assign bruno tunnel");
    assert_eq!(
        options(&game, EXILE),
        ["exile: assign carl tunnel", "exile: assign carl funding", "exile: assign carl city"]
    );
}

// 4. "Phase 2: Increased security card should be only placed in the Tunnel construction area.
// This card is so strong that it has effect to stop construction, but you must discard the card
// after using." "Phase 4-2: if Increased security card has been placing, there is no advancing of
// a tunnel construction." "Phase 5: when Increased security card are placing, there is no level
// up for construction." (Funding still levels up.)
#[test]
fn increased_security_stops_construction_and_is_discarded() {
    let mut game = new_game();
    play(
        &mut game,
        "
        # Round 1.
        exile: assign angela tunnel
        exile: assign bruno tunnel
        exile: assign carl tunnel
        exile: assign dan funding
        exile: assign erika funding
        exile: assign fine funding
        police: investigate arrest_angela police_hand
        police: investigate arrest_bruno police_hand
        police: investigate arrest_carl police_hand
        police: investigate arrest_dan police_hand
        police: investigate arrest_erika police_hand
        police: investigate arrest_fine police_hand
        police: investigate security_1 police_tunnel
        police: investigate security_2 police_hand
        ",
    );
    assert_eq!(counter(&game, "round"), 2);
    // Both seats are told why the tunnel stands still (the card lies face up since the reveal).
    let reason = "Increased security in the tunnel: the tunnel does not advance this round";
    for seat in [EXILE, POLICE] {
        let told = tabula::narrate::narrate(&game, Some(seat), game.events());
        assert_eq!(told.iter().filter(|l| *l == reason).count(), 1, "seat {seat}: {told:?}");
    }
    // No construction: the tunnel marker stays on the start square, no construction level-up.
    assert_eq!(counter(&game, "tunnel"), 0);
    for member in ["angela", "bruno", "carl"] {
        assert_eq!(level(&game, member), 0, "{member}");
    }
    // Funding goes on: 4 + 3 money, and the funding members reach level 1.
    assert_eq!(counter(&game, "money"), 7);
    for member in ["dan", "erika", "fine"] {
        assert_eq!(level(&game, member), 1, "{member}");
    }
    // Phase 7: the used security card is discarded, the one kept in hand stays.
    assert_eq!(zone_of(&game, "security_1"), "discarded");
    assert_eq!(zone_of(&game, "security_2"), "police_hand");
    play(
        &mut game,
        "
        # Round 2.
        exile: assign angela tunnel
        exile: assign bruno tunnel
        exile: assign carl tunnel
        exile: assign dan funding
        exile: assign erika funding
        exile: assign fine funding
        police: investigate arrest_angela police_hand
        police: investigate arrest_bruno police_hand
        police: investigate arrest_carl police_hand
        police: investigate arrest_dan police_hand
        police: investigate arrest_erika police_hand
        police: investigate arrest_fine police_hand
        ",
    );
    // The last card asked about is the other security card, which goes to the tunnel or stays in
    // hand; the discarded one is never offered again.
    assert_eq!(
        options(&game, POLICE),
        ["police: investigate security_2 police_tunnel", "police: investigate security_2 police_hand"]
    );
    let security_1 = game.parse_action("police: investigate security_1 police_tunnel").unwrap();
    assert!(game.apply(&security_1).is_err());
    insta::assert_snapshot!("security_discarded", views(&game));
    play(&mut game, "police: investigate security_2 police_hand");
    // Without security, the level-1 team digs 3 and levels up.
    assert_eq!(counter(&game, "tunnel"), 3);
    assert_eq!(level(&game, "angela"), 1);
    assert_eq!(zone_of(&game, "security_1"), "discarded");
}

// 5. "Phase 2: Used card in this round cannot be used in the next round." "Phase 7: Before a
// next round, Secret police collect the card that is used in the pre round." Notes: "A card kept
// in hand was not used and can be placed next round."
#[test]
fn an_arrest_card_rests_one_round_and_returns() {
    let mut game = new_game();
    const ASSIGN: &str = "
        exile: assign angela tunnel
        exile: assign bruno tunnel
        exile: assign carl tunnel
        exile: assign dan funding
        exile: assign erika funding
        exile: assign fine funding
    ";
    play(&mut game, ASSIGN);
    play(
        &mut game,
        "
        # Round 1: Arrest:Angela is used (it misses); every other card stays in hand.
        police: investigate arrest_angela police_city
        police: investigate arrest_bruno police_hand
        police: investigate arrest_carl police_hand
        police: investigate arrest_dan police_hand
        police: investigate arrest_erika police_hand
        police: investigate arrest_fine police_hand
        police: investigate security_1 police_hand
        police: investigate security_2 police_hand
        ",
    );
    assert_eq!(counter(&game, "arrests"), 0);
    assert_eq!(zone_of(&game, "arrest_angela"), "resting");
    play(&mut game, ASSIGN);
    // Round 2: the police is asked about Arrest:Bruno first; Arrest:Angela is never offered.
    assert_eq!(options(&game, POLICE)[0], "police: investigate arrest_bruno police_tunnel");
    let mut round_2 = Vec::new();
    for card in ["arrest_bruno", "arrest_carl", "arrest_dan", "arrest_erika", "arrest_fine", "security_1", "security_2"]
    {
        let offered = options(&game, POLICE);
        assert!(offered.iter().all(|o| o.starts_with(&format!("police: investigate {card} "))), "{offered:?}");
        round_2.extend(offered);
        play(&mut game, &format!("police: investigate {card} police_hand"));
    }
    assert!(!round_2.iter().any(|o| o.contains("arrest_angela")));
    // Round 3: Arrest:Angela is back in hand and offered first.
    assert_eq!(counter(&game, "round"), 3);
    assert_eq!(zone_of(&game, "arrest_angela"), "police_hand");
    play(&mut game, ASSIGN);
    assert_eq!(
        options(&game, POLICE),
        [
            "police: investigate arrest_angela police_tunnel",
            "police: investigate arrest_angela police_funding",
            "police: investigate arrest_angela police_city",
            "police: investigate arrest_angela police_hand",
        ]
    );
    insta::assert_snapshot!("arrest_card_back_in_hand", views(&game));
}

// Refused actions change nothing. "Phase 2: Tunnel construction area: 0-3 cards (Including
// Increased security card)"; "Increased security card should be only placed in the Tunnel
// construction area"; a released member may only go to the city; only the seat being asked
// may act.
#[test]
fn illegal_actions_are_refused_and_change_nothing() {
    let mut game = new_game();
    play(
        &mut game,
        "
        exile: assign angela tunnel
        exile: assign bruno tunnel
        exile: assign carl tunnel
        exile: assign dan funding
        exile: assign erika funding
        exile: assign fine funding
        police: investigate arrest_angela police_tunnel
        police: investigate arrest_bruno police_tunnel
        police: investigate arrest_carl police_tunnel
        ",
    );
    let refused = |game: &mut Game, line: &str| {
        let before = (views(game), game.events().len(), game.prompt().cloned());
        let action = game.parse_action(line).unwrap();
        assert!(game.apply(&action).is_err(), "`{line}` should be refused");
        assert_eq!((views(game), game.events().len(), game.prompt().cloned()), before, "`{line}` changed the game");
    };
    // A fourth card in the tunnel area.
    refused(&mut game, "police: investigate arrest_dan police_tunnel");
    // Not the card being asked about (Arrest:Dan is), and the exile is not being asked.
    refused(&mut game, "police: investigate arrest_erika police_funding");
    refused(&mut game, "exile: assign dan tunnel");
    play(
        &mut game,
        "
        police: investigate arrest_dan police_funding
        police: investigate arrest_erika police_funding
        police: investigate arrest_fine police_city
        ",
    );
    // Increased security outside the tunnel area, or in the full tunnel area.
    refused(&mut game, "police: investigate security_1 police_funding");
    refused(&mut game, "police: investigate security_1 police_tunnel");
    play(
        &mut game,
        "
        police: investigate security_1 police_hand
        police: investigate security_2 police_hand
        # Angela, Bruno, Carl, Dan and Erika are arrested; money 4 + 1 (Fine).
        exile: release angela release
        exile: release bruno stay
        exile: release carl stay
        exile: release dan stay
        exile: release erika stay
        ",
    );
    assert_eq!((counter(&game, "arrests"), counter(&game, "money")), (5, 3));
    // Released Angela is not allowed to work in round 2.
    refused(&mut game, "exile: assign angela tunnel");
    refused(&mut game, "exile: assign angela funding");
    play(&mut game, "exile: assign angela city");
}
