//! Zones as a board graph (tests/fixtures/graph): the links of a zone in both directions with
//! their kinds, distances along the graph within a bound and between two zones, how many of a
//! list of zones lie within a bound (`count_within`), influence maps (`influence`), where each
//! kind of option begins in a list of maps (`first_indices`), and `go_to`
//! (the name scripts use for `goto`, a reserved word of Rhai).

use std::rc::Rc;

use tabula::event::Event;
use tabula::{Game, LoadOptions};

#[test]
fn links_distances_and_go_to() {
    let rules =
        Rc::new(tabula::load("tests/fixtures/graph", &LoadOptions::default()).unwrap_or_else(|e| panic!("{e}")));
    let game = Game::recorded(rules, 1, 1).expect("start");
    let notes: Vec<&str> = game
        .events()
        .iter()
        .filter_map(|e| match e {
            Event::Note(text) => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        notes,
        [
            // a's one link is the drop, forward.
            r#"a ["b:drop:false"]"#,
            // From b, back over the one-way drop is against it; c is a plain link.
            r#"b ["a:drop:true", "c::false"]"#,
            r#"d ["c:door:false"]"#,
            "e []",
            // Distances respect one_way: from a everything but e; from d, a cannot be reached.
            r#"a<=9 ["a=0", "b=1", "c=2", "d=3"]"#,
            r#"a<=2 ["a=0", "b=1", "c=2"]"#,
            r#"d<=9 ["b=2", "c=1", "d=0"]"#,
            r#"c<=0 ["c=0"]"#,
            // Towards b: a reaches it down the drop; c and d over plain links.
            r#"to b ["a=1", "b=0", "c=1", "d=2"]"#,
            // As `distances` counts: nothing leads back up the drop to a, nothing to e; d
            // reaches b through c.
            r#"distance ["a->d=3", "d->a=", "b->a=", "c->c=0", "a->e=", "d->b=2", "a->d=3"]"#,
            // Within 2 of a: a, b (twice) and c, not d (3) nor e; from d, a is past the one-way
            // drop and e unreachable; within 1 of c: b twice, c and d (not a: the drop leads
            // only down); none of an empty list.
            "within [4, 1, 4, 0]",
            // Sums over the sources: c gets a's 10 and d's 6 / 4; none from no source.
            r#"influence ["a=30", "b=20", "c=11", "d=3"] 0"#,
            // What influence refuses, each with its message.
            "influence: the divisor must be 1 or more, not 0 (in [\"a\", 1, 1, 0])",
            "influence: a source is [zone, weight, reach] or [zone, weight, reach, divisor], not [\"a\", 1]",
            "influence: a source is [zone, weight, reach] or [zone, weight, reach, divisor], not [1, 1, 1]",
            "no zone named `nowhere`",
            "influence: a source is [zone, weight, reach] or [zone, weight, reach, divisor], not 4",
            "influence: the sums pass the largest integer",
            // Where each kind of option begins.
            r#"first ["end_turn", "play", "roll"] [5, 1, 0]"#,
            "after",
        ]
    );
    assert_eq!(game.outcome(), Some("done"));
}
