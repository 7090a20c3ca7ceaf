//! What a `choose` agent is given: its options as maps, as the engine lists them at every
//! decision, also where the engine fills in again the maps it gave the agent at the decision
//! before (kept to save building them) and the agent changed them after reading them.

/// tests/fixtures/agent_option_maps: red's agent reads its options (the round's number among `pick`
/// 0 to 9, and a `pass`), then spoils them (every number 42, a key added to every other map, the
/// list reversed, a map pushed). A value or key of the spoiled maps left in the next decision's
/// options makes it pick wrong (the game ends `wrong`) or find nothing (an error).
#[test]
fn an_agent_reads_each_decisions_options_whatever_it_did_to_the_last_ones() {
    let args = ["sim", "tests/fixtures/agent_option_maps", "--games", "5", "--threads", "1", "--json"];
    let (ok, out, err) = crate::common::tabula(&args, "");
    assert!(ok, "{err}");
    let report: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(report["outcomes"]["done"], 5, "{report}");
    // Six rounds of one decision each, every game.
    assert_eq!(report["decisions_per_game"], 6.0, "{report}");
}
