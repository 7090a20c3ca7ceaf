//! The search agent (`--seat S=search`): it never peeks (the information-set check passes with
//! search seats in every ruleset), a playout budget makes its games the same on any number of
//! threads, and its samples match what its seat saw.

use std::cell::RefCell;
use std::rc::Rc;

use tabula::agent::{Agent, Decision, Plan, Turn};
use tabula::search::{SearchAgent, SearchOptions, SearchStats};
use tabula::secrecy::{SecrecyOptions, check_secrecy};
use tabula::sim::{SimOptions, agent_seed, play_out, seated_agents, simulate_parallel};
use tabula::{Game, LoadOptions, load};

/// A small budget: the point is what the agent reads, not how well it plays. Two wide, so that
/// the rollout agent is also asked for its second choice (without its first) where there are
/// more options.
const SMALL: &str = "search:playouts=3,particles=2,depth=8,tries=2,width=2";

/// For two games that differ only in what a search seat may not see, it is told the same and
/// decides the same, in every shipped ruleset (a new one is checked without being named).
#[test]
fn search_seats_keep_every_rulesets_secrets() {
    for path in crate::common::shipped_rulesets() {
        let path = path.as_str();
        let rules = Rc::new(load(path, &LoadOptions::default()).unwrap_or_else(|e| panic!("{path}: {e}")));
        let options = SecrecyOptions {
            pairs: 24,
            players: Some(rules.players.0),
            max_steps: 30,
            agent: Some(SMALL.into()),
            ..SecrecyOptions::default()
        };
        let report = check_secrecy(rules, &options).unwrap_or_else(|e| panic!("{path} with search seats: {e}"));
        eprintln!("{path}: {report:?}");
        assert!(report.steps_compared >= 10, "{path}: too few steps compared: {report:?}");
    }
}

/// The fixtures with hidden things of every kind (hands, a secret action, a face-down deck, a
/// pointer to a hidden card, real time), with a search seat.
#[test]
fn search_seats_keep_the_fixtures_secrets() {
    for path in ["tests/fixtures/secrets", "tests/fixtures/interrupts"] {
        let rules = Rc::new(load(path, &LoadOptions::default()).expect("fixture"));
        let options =
            SecrecyOptions { pairs: 200, max_steps: 60, agent: Some(SMALL.into()), ..SecrecyOptions::default() };
        let report = check_secrecy(rules.clone(), &options).unwrap_or_else(|e| panic!("{path} with search seats: {e}"));
        assert!(report.steps_hidden_apart > 10, "{path}: too few informative steps: {report:?}");
    }
}

/// With a playout budget, game `i` of a run is the same whether one thread or two play it.
#[test]
fn a_playout_budget_gives_the_same_games_on_any_thread_count() {
    let options = SimOptions {
        games: 6,
        seed: 3,
        seat_agents: vec![("police".into(), "search:playouts=8,particles=4".into())],
        keep_records: true,
        ..SimOptions::default()
    };
    let load = LoadOptions::default();
    let one = simulate_parallel("rulesets/east-berlin", &load, &options, 1, &|_| {}).expect("one thread");
    let two = simulate_parallel("rulesets/east-berlin", &load, &options, 2, &|_| {}).expect("two threads");
    let games = |r: &tabula::sim::SimReport| {
        r.records.iter().map(|g| (g.index, g.seed, g.outcome.clone(), g.decisions)).collect::<Vec<_>>()
    };
    assert_eq!(games(&one), games(&two));
    // The search seat played, and not as the random agent would have.
    let random = SimOptions { seat_agents: vec![("police".into(), "random".into())], ..options.clone() };
    let random = simulate_parallel("rulesets/east-berlin", &load, &random, 1, &|_| {}).expect("random");
    assert_ne!(games(&one), games(&random));
}

/// With `threads=3` two helper threads, each with its own copy of the rules, play playouts
/// beside the searching one, and the search makes the same choices as on one thread: the same
/// Temple game (real time: waiting is one of the options), event for event, and the same
/// counts of what it did.
#[test]
fn a_search_on_several_threads_plays_as_on_one() {
    let rules = Rc::new(load("rulesets/temple", &LoadOptions::default()).expect("temple"));
    let seed = 2;
    let play = |threads: u32| {
        let options =
            SearchOptions::parse("search:playouts=24,particles=4,depth=20").expect("options").expect("search");
        let options = SearchOptions { threads, ..options };
        let mut game = Game::recorded(rules.clone(), 4, seed).expect("game");
        let mut agents = seated_agents(&rules, &vec!["heuristic".to_string(); 4], seed).expect("agents");
        let searcher =
            Rc::new(RefCell::new(SearchAgent::new(rules.clone(), options, agent_seed(seed, 0)).expect("agent")));
        agents[0] = Box::new(Shared(searcher.clone()));
        play_out(&mut game, &mut agents, 10_000).expect("game ends");
        let stats = searcher.borrow().stats().clone();
        (game.events().to_vec(), stats)
    };
    let (alone, on_one) = play(1);
    let (helped, on_three) = play(3);
    assert!(on_one.playouts > 200, "too few playouts: {on_one:?}");
    assert_eq!(on_one.helped, 0);
    // How many the helpers play depends on timing; that they play is what is checked.
    assert!(on_three.helped > 0, "the helpers played nothing: {on_three:?}");
    assert_eq!(SearchStats { helped: 0, ..on_three }, on_one);
    if let Some(i) = alone.iter().zip(&helped).position(|(a, b)| a != b) {
        panic!("event {i}: on one thread {:?}, on three {:?}", alone[i], helped[i]);
    }
    assert_eq!(alone.len(), helped.len());
}

/// A run's report says what each searching seat's agent did, summed over the games, the same on
/// any number of threads; a run without a search seat says nothing of it.
#[test]
fn a_runs_report_counts_what_the_search_did() {
    let run = |threads: &str, seats: &[&str]| {
        let mut args = vec!["sim", "east-berlin", "--games", "4", "--seed", "5", "--threads", threads, "--json"];
        for seat in seats {
            args.extend(["--seat", seat]);
        }
        let (ok, out, err) = crate::common::tabula(&args, "");
        assert!(ok, "{err}");
        serde_json::from_str::<serde_json::Value>(&out).expect("JSON")
    };
    let seats = ["exile=search:playouts=6,particles=4", "police=search:playouts=6,threads=2"];
    let report = run("1", &seats);
    let counts = &report["agent_counts"];
    let names: Vec<&String> = counts.as_object().expect("counts by seat").keys().collect();
    assert_eq!(names, ["exile", "police"], "in seat order");
    for seat in ["police", "exile"] {
        let searched = counts[seat]["decisions searched"].as_u64().expect("decisions searched");
        let playouts = counts[seat]["playouts"].as_u64().expect("playouts");
        assert!(searched > 10, "{seat}: {counts}");
        assert!(playouts > searched && playouts <= 6 * searched, "{seat}: {counts}");
    }
    assert_eq!(run("2", &seats)["agent_counts"], *counts, "the same on two threads");
    assert!(run("1", &[]).get("agent_counts").is_none(), "random agents count nothing");
    let (ok, out, err) = crate::common::tabula(&["sim", "east-berlin", "--games", "2", "--seat", seats[1]], "");
    assert!(ok, "{err}");
    assert!(
        out.contains("police's agent (search:playouts=6,threads=2):\n") && out.contains(" decisions searched, "),
        "{out}"
    );
    // The counts under the agent's name, wrapped to fit a terminal of 80 columns.
    let counts: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.contains("police's agent"))
        .skip(1)
        .take_while(|l| l.starts_with("    "))
        .collect();
    assert!(counts.len() >= 2 && counts.iter().all(|l| l.len() <= 80), "{out}");
    assert!(counts.concat().contains("playouts the rules failed in"), "{out}");
}

/// A time budget on several threads (not reproducible, so only checked to play a game through):
/// the playouts are played ahead a few a thread at a time, the clock checked between.
#[test]
fn a_time_budget_on_several_threads_plays_a_game_through() {
    let args = ["sim", "east-berlin", "--games", "1", "--seat", "police=search:ms=2,threads=2", "--json"];
    let (ok, out, err) = crate::common::tabula(&args, "");
    assert!(ok, "{err}");
    let report: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(report["games"], 1);
    assert!(report["agent_counts"]["police"]["playouts"].as_u64() > Some(0), "{report}");
}

/// The search agent, shared so that a test can read what it did after the game.
struct Shared(Rc<RefCell<SearchAgent>>);

impl Agent for Shared {
    fn plan(&mut self, turn: &Turn) -> Result<Plan, tabula::Error> {
        self.0.borrow_mut().plan(turn)
    }
    fn choose(&mut self, decision: &Decision) -> Result<usize, tabula::Error> {
        self.0.borrow_mut().choose(decision)
    }
    fn react(&mut self, decision: &Decision) -> Result<Option<usize>, tabula::Error> {
        self.0.borrow_mut().react(decision)
    }
}

/// Plays two-player games of `path` with seeds `0..games`, the first seat searching (with a small
/// budget), the other random: how many decisions it searched, and how many of them on samples
/// that did not match all it saw.
fn searched_and_approximate(path: &str, games: u64) -> (u64, u64) {
    let rules = Rc::new(load(path, &LoadOptions::default()).expect("ruleset"));
    let options = SearchOptions::parse("search:playouts=4,particles=4").expect("options").expect("search");
    let (mut searched, mut approximate) = (0, 0);
    for seed in 0..games {
        let mut game = Game::recorded(rules.clone(), 2, seed).expect("game");
        let mut agents = seated_agents(&rules, &["random".to_string(), "random".to_string()], seed).expect("agents");
        let searcher = Rc::new(RefCell::new(
            SearchAgent::new(rules.clone(), options.clone(), agent_seed(seed, 0)).expect("agent"),
        ));
        agents[0] = Box::new(Shared(searcher.clone()));
        play_out(&mut game, &mut agents, 10_000).expect("game ends");
        let stats = searcher.borrow().stats().clone();
        searched += stats.decisions;
        approximate += stats.approximate;
    }
    (searched, approximate)
}

/// East Berlin's police places cards face down and the exile learns where at the reveal: the
/// exile's samples are drawn so that the placements agree with the reveals, and then match all
/// it saw (a plain redraw of the police's secret placements matched in under half of them).
#[test]
fn the_exiles_samples_match_everything_it_saw() {
    let (searched, approximate) = searched_and_approximate("rulesets/east-berlin", 3);
    assert!(searched > 50, "too few decisions searched: {searched}");
    assert!(
        approximate * 10 <= searched,
        "{approximate} of {searched} decisions searched on samples that did not match"
    );
}

/// The search improves on its rollout agent's answer rather than replacing it: with one playout a
/// decision it cannot tell the options apart, so it plays exactly as the rollout agent (Temple's
/// heuristic) would on that seat, event for event. Before, it played the first option it tried.
#[test]
fn a_search_too_small_to_tell_options_apart_plays_as_its_rollout_agent() {
    let rules = Rc::new(load("rulesets/temple", &LoadOptions::default()).expect("temple"));
    let options =
        SearchOptions::parse("search:playouts=1,particles=1,depth=1,tries=1").expect("options").expect("search");
    let kinds = vec!["heuristic".to_string(); 4];
    let seed = 5;
    let mut alone = Game::recorded(rules.clone(), 4, seed).expect("game");
    let mut agents = seated_agents(&rules, &kinds, seed).expect("agents");
    play_out(&mut alone, &mut agents, 10_000).expect("game ends");
    let mut searched = Game::recorded(rules.clone(), 4, seed).expect("game");
    let mut agents = seated_agents(&rules, &kinds, seed).expect("agents");
    let searcher = Rc::new(RefCell::new(SearchAgent::new(rules.clone(), options, agent_seed(seed, 0)).expect("agent")));
    agents[0] = Box::new(Shared(searcher.clone()));
    play_out(&mut searched, &mut agents, 10_000).expect("game ends");
    assert!(searcher.borrow().stats().decisions > 10, "too few decisions searched");
    let first = alone.events().iter().zip(searched.events()).position(|(a, b)| a != b);
    if let Some(i) = first {
        panic!("event {i}: the heuristic's {:?}, the search's {:?}", alone.events()[i], searched.events()[i]);
    }
    assert_eq!(alone.events().len(), searched.events().len());
}

/// Patrols draws as Escape Plan does: tiles from a pile shuffled at the setup (its top set aside
/// unseen), two shown in one step, and for each an officer picked at random from a bag and put
/// on it (a property naming the tile). The samples draw the tiles and officers the seat saw come
/// out, so their officers stand where the real ones do, and match all it saw. (When the sampler
/// exchanged pieces only after the draw, the officer's property kept naming the sample's tile,
/// and no sample ever matched.)
#[test]
fn samples_draw_what_the_seat_saw_come_out_of_a_hidden_pile_and_bag() {
    let (searched, approximate) = searched_and_approximate("tests/fixtures/patrols", 4);
    assert!(searched >= 8, "too few decisions searched: {searched}");
    assert_eq!(approximate, 0, "{approximate} of {searched} decisions searched on samples that did not match");
}

/// Colditz's Escape Officers make a kit from a set of kit-part cards in their hands, which the
/// Security Officer does not see: its samples put the named cards in the officer's hand, all of
/// them at once, and then match all it saw. (When only one card at a time was exchanged, 12 of
/// its 219 decisions in these two games were searched on samples that did not.)
#[test]
fn samples_hand_an_officer_every_card_of_a_set_it_plays() {
    let args = ["sim", "colditz", "--games", "2", "--seed", "0", "--players", "4", "--threads", "1"];
    let seat = ["--seat", "german=search:playouts=4,depth=2", "--json"];
    let (ok, out, err) = crate::common::tabula(&[&args[..], &seat[..]].concat(), "");
    assert!(ok, "{err}");
    let report: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let german = &report["agent_counts"]["german"];
    assert!(german["decisions searched"].as_u64() > Some(100), "{german}");
    assert_eq!(german["on samples that did not match all it saw"], 0, "{german}");
}

/// The report counts the decisions where the search played another option than its rollout
/// agent's answer, and `margin` says how clearly another option must do better for that: with
/// no margin the first option with the better mean is played (most of a Temple game's
/// decisions at eight playouts of ten decisions), with ten standard errors none is.
#[test]
fn the_margin_says_how_often_the_rollout_agent_is_overruled() {
    let overruled = |margin: &str| {
        let seat = format!("red=search:playouts=8,depth=10,margin={margin}");
        let args = ["sim", "temple", "--games", "1", "--seed", "0", "--threads", "1", "--seat", &seat, "--json"];
        let (ok, out, err) = crate::common::tabula(&args, "");
        assert!(ok, "{err}");
        let report: serde_json::Value = serde_json::from_str(&out).expect("JSON");
        let red = &report["agent_counts"]["red"];
        let searched = red["decisions searched"].as_u64().expect("decisions searched");
        let overruled = red["played another option than its rollout agent's"].as_u64().expect("overruled");
        assert!(overruled <= searched, "{red}");
        (overruled, searched)
    };
    let (none, searched) = overruled("0");
    assert!(none * 3 > searched, "margin 0: {none} of {searched} overruled");
    assert_eq!(overruled("10").0, 0, "margin 10");
}

/// `width` compares the rollout agent's answers in its order of preference: in
/// tests/fixtures/ranked red wins with the agent's third answer alone (its first two lose), so a
/// search three wide wins every game and one two wide none. Were the others drawn at random, three
/// wide would find the winning number about one game in fifteen.
#[test]
fn width_compares_the_rollout_agents_answers_in_its_order() {
    // Red's wins, and the decisions where no option had two playouts.
    let red_wins = |width: &str| {
        let seat = format!("red=search:playouts=12{width}");
        let args = ["sim", "tests/fixtures/ranked", "--games", "20", "--threads", "1", "--seat", &seat, "--json"];
        let (ok, out, err) = crate::common::tabula(&args, "");
        assert!(ok, "{err}");
        let report: serde_json::Value = serde_json::from_str(&out).expect("JSON");
        let wins = report["outcomes"]["red"].as_u64().unwrap_or_else(|| panic!("red's wins: {report}"));
        let unsampled = report["agent_counts"]["red"]["where no option had two playouts"].as_u64();
        (wins, unsampled.unwrap_or_else(|| panic!("the count: {report}")))
    };
    assert_eq!(red_wins(",width=3"), (20, 0));
    assert_eq!(red_wins(",width=2"), (0, 0));
    // Without a width, twelve playouts among thirty options play each of twelve once: too few
    // samples to overrule the agent's answer by two standard errors, and the report says so.
    assert_eq!(red_wins(""), (0, 20));
}

/// `search:...` options are checked where they are given, naming what is wrong.
#[test]
fn search_options_are_checked() {
    assert_eq!(SearchOptions::parse("random").expect("not search"), None);
    assert_eq!(SearchOptions::parse("searcher").expect("not search"), None);
    let options = SearchOptions::parse("search:playouts=400,depth=50,rollout=random").expect("valid").expect("search");
    assert_eq!((options.playouts, options.depth, options.rollout.as_deref()), (400, 50, Some("random")));
    assert_eq!(options.margin, 200, "two standard errors unless told");
    let options = SearchOptions::parse("search:margin=0.75").expect("valid").expect("search");
    assert_eq!(options.margin, 75);
    assert_eq!(options.width, None, "every option unless told");
    let options = SearchOptions::parse("search:width=3").expect("valid").expect("search");
    assert_eq!(options.width, Some(3));
    for (bad, says) in [
        ("search:playout=4", "no option `playout`"),
        ("search:playouts=0", "playouts must be a whole number from 1"),
        ("search:playouts", "is not key=value"),
        ("search:rollout=search", "cannot be played by search"),
        ("search:threads=0", "threads must be a whole number from 1 to 1024"),
        ("search:margin=11", "margin must be a number of standard errors from 0 to 10"),
        ("search:margin=1.234", "with at most two decimals"),
        ("search:width=1", "width must be a whole number from 2 to 100000"),
        ("search:width=01", "width must be a whole number from 2 to 100000"),
        ("search:width=x", "width must be a whole number from 2 to 100000"),
    ] {
        let e = SearchOptions::parse(bad).expect_err(bad).to_string();
        assert!(e.contains(says), "{bad}: {e}");
    }
    let rules = Rc::new(load("rulesets/east-berlin", &LoadOptions::default()).expect("east-berlin"));
    let kinds = vec!["search:rollout=nobody".to_string(), "random".to_string()];
    let e = seated_agents(&rules, &kinds, 0).err().expect("no such rollout agent").to_string();
    assert!(e.contains("no agent `nobody`"), "{e}");
}

/// A scratch copy of tests/fixtures/patrols whose `[game] evaluate` names `function`, with
/// `script` added to its rules; removed when dropped.
struct Evaluated(std::path::PathBuf);

impl Evaluated {
    fn new(name: &str, function: &str, script: &str) -> Evaluated {
        let dir = crate::common::scratch_dir(&format!("evaluate-{name}"));
        let toml = std::fs::read_to_string("tests/fixtures/patrols/game.toml").expect("fixture");
        let toml = toml.replace("start = \"setup\"\n", &format!("start = \"setup\"\nevaluate = \"{function}\"\n"));
        let rules = std::fs::read_to_string("tests/fixtures/patrols/rules.rhai").expect("fixture") + script;
        std::fs::write(dir.join("game.toml"), toml).expect("write");
        std::fs::write(dir.join("rules.rhai"), rules).expect("write");
        Evaluated(dir)
    }

    fn path(&self) -> &str {
        self.0.to_str().expect("a path in UTF-8")
    }

    /// The line of game.toml that names the evaluation, as diagnostics write it.
    fn line(&self) -> String {
        let toml = std::fs::read_to_string(self.0.join("game.toml")).expect("game.toml");
        let line = toml.lines().position(|l| l.starts_with("evaluate")).expect("evaluate line") + 1;
        format!("game.toml:{line}:")
    }
}

impl Drop for Evaluated {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// An evaluation the scripts do not define is a load error at the key that names it.
#[test]
fn an_evaluation_missing_from_the_scripts_is_a_load_error() {
    let ruleset = Evaluated::new("missing", "nowhere", "");
    let (ok, _, err) = crate::common::tabula(&["check", ruleset.path()], "");
    assert!(!ok, "{err}");
    assert!(err.contains("nowhere") && err.contains(&ruleset.line()), "{err}");
}

/// An evaluation that returns anything but a whole number from 0 to 100 stops the search with
/// an error naming the function, where game.toml names it, and what it returned.
#[test]
fn an_evaluation_out_of_range_stops_the_search_where_it_is_named() {
    for (name, body, found) in [("high", "150", "150"), ("text", "\"high\"", "string")] {
        let ruleset = Evaluated::new(name, "guess", &format!("\nfn guess(view) {{ {body} }}\n"));
        let args = ["sim", ruleset.path(), "--games", "1", "--seat", "red=search:playouts=4,depth=1"];
        let (ok, _, err) = crate::common::tabula(&args, "");
        assert!(!ok, "{name}: {err}");
        for says in ["the evaluation `guess` must return a percent", found, &ruleset.line()] {
            assert!(err.contains(says), "{name}: no `{says}` in {err}");
        }
    }
}

/// Red's choices in games of `path` where it searches with playouts cut after one decision
/// (blue plays its first option): for each decision whose options differ in the loot they give
/// (less the officers), the best option's and the chosen one's. Red's last decision is left out:
/// its playouts end the game, and the outcome scores them.
fn cut_choices(path: &str) -> Vec<(i64, i64)> {
    let rules = Rc::new(load(path, &LoadOptions::default()).expect("ruleset"));
    let loot = rules.counter("loot.red").expect("loot.red");
    let options = SearchOptions::parse("search:playouts=8,depth=1").expect("options").expect("search");
    let mut choices = Vec::new();
    for seed in 0..8 {
        let mut game = Game::recorded(rules.clone(), 2, seed).expect("game");
        let mut red = SearchAgent::new(rules.clone(), options.clone(), agent_seed(seed, 0)).expect("agent");
        let mut decisions = 0;
        while !game.is_over() {
            let blue = game.legal_actions(1).expect("options");
            if !blue.is_empty() {
                game.apply(&blue[0]).expect("legal");
                continue;
            }
            let legal = game.legal_actions(0).expect("options");
            let chosen = red.choose(&Decision::new(&game, 0, &legal)).expect("search");
            let net = |a: &tabula::Action| {
                let mut after = game.clone();
                after.apply(a).expect("legal");
                after.state().counter(loot) - game.state().counter(loot)
            };
            let nets: Vec<i64> = legal.iter().map(net).collect();
            // Patrols gives each seat 3 decisions.
            decisions += 1;
            if decisions < 3 && nets.iter().any(|&n| n != nets[0]) {
                choices.push((*nets.iter().max().expect("options"), nets[chosen]));
            }
            game.apply(&legal[chosen]).expect("legal");
        }
    }
    choices
}

/// Playouts cut at the depth limit are scored by the ruleset's evaluation: with red's own loot
/// as its measure and playouts of one decision, search takes the tile worth most every time.
/// Without an evaluation every cut playout counts 1/2, the options look alike, and it takes the
/// first listed, often not the best.
#[test]
fn cut_playouts_are_scored_by_the_evaluation() {
    let own_loot = "\nfn own_loot(view) {\n    let loot = view.counter(\"loot.\" + view.seat());\n    if loot < 0 { 0 } else if loot > 10 { 100 } else { 10 * loot }\n}\n";
    let ruleset = Evaluated::new("loot", "own_loot", own_loot);
    let evaluated = cut_choices(ruleset.path());
    assert!(evaluated.len() >= 5, "too few decisions with options of different worth: {evaluated:?}");
    assert!(evaluated.iter().all(|(best, chosen)| best == chosen), "{evaluated:?}");
    let even = cut_choices("tests/fixtures/patrols");
    assert!(even.iter().any(|(best, chosen)| best != chosen), "{even:?}");
}
