//! What many games say about a ruleset's balance: one `GameRecord` per game, and the report
//! built from them (`tabula sim`'s summary and `--json`, each cell of `tabula sweep`).

use std::collections::BTreeMap;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::flow::Game;
use crate::rules::{OutcomeKind, Rules};
use crate::stats::{Share, Spread};

/// The outcome name of a game stopped by the simulator's own bound (too many decisions).
pub const STOPPED: &str = "stopped";

/// One game of a run, as `--csv` and `--jsonl` write it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// The game's index in the run (0-based): `game`, as the CSV's column is named.
    #[serde(rename = "game")]
    pub index: u64,
    /// The game's seed: `tabula sim --games 1 --seed` does not give it back, a log does.
    /// Written as a string of digits: seeds go up to 2^64, past what a JavaScript number or a
    /// pandas int64 column holds exactly.
    #[serde(with = "seed_text")]
    pub seed: u64,
    /// How it ended: an outcome of the ruleset, or `stopped` (the simulator's bound).
    pub outcome: String,
    /// The seats that won.
    pub winners: Vec<String>,
    /// Decisions taken.
    pub decisions: u64,
    /// Rounds played, where the ruleset names its round counter (`[game] rounds`).
    pub rounds: Option<i64>,
    /// Game time at the end, in real-time games (ms).
    pub clock_ms: Option<i64>,
    /// Whether a safety bound stopped it (the simulator's, or an outcome of kind `bound`).
    pub stopped: bool,
    /// The counters asked for with `--record`, at the end.
    pub counters: IndexMap<String, i64>,
}

impl GameRecord {
    /// The record of a finished (or stopped) game.
    pub fn of(game: &Game, index: u64, seed: u64, decisions: u64, record: &[String]) -> GameRecord {
        let rules = game.rules();
        let outcome = game.outcome().unwrap_or(STOPPED).to_string();
        let def = rules.outcomes.iter().find(|o| o.name == outcome);
        let seats = game.players() as usize;
        let winners = def
            .map(|o| o.winners.iter().filter(|&&s| (s as usize) < seats).map(|&s| rules.seats[s as usize].name.clone()))
            .into_iter()
            .flatten()
            .collect();
        let counters = record
            .iter()
            .filter_map(|name| rules.counter(name).map(|c| (name.clone(), game.state().counter(c))))
            .collect();
        GameRecord {
            index,
            seed,
            winners,
            decisions,
            rounds: rules.rounds.map(|c| game.state().counter(c)),
            clock_ms: rules.pace.map(|_| game.clock()),
            stopped: def.is_none_or(|o| o.kind == OutcomeKind::Bound),
            counters,
            outcome,
        }
    }
}

/// The balance of a run: how games ended, who won, how long they took.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Balance {
    /// Each outcome's share of the games: the outcomes the player count can reach (see
    /// [`Rules::outcome_possible`](crate::Rules::outcome_possible)), any other that happened,
    /// and `stopped` if any.
    pub outcome_shares: IndexMap<String, Share>,
    /// Each seat's share of wins.
    pub seat_wins: IndexMap<String, Share>,
    /// Each seat's win share less the mean of all seats' (positive: the position helps).
    pub seat_advantage: IndexMap<String, f64>,
    /// Games ending in an outcome of kind `draw`.
    pub draws: Share,
    /// Games stopped by a safety bound (the simulator's, or an outcome of kind `bound`).
    pub stopped: Share,
    /// Decisions per game.
    pub decisions: Spread,
    /// Rounds per game, where the ruleset names its round counter.
    pub rounds: Option<Spread>,
    /// Game time at the end (seconds), in real-time games.
    pub game_seconds: Option<Spread>,
}

impl Balance {
    /// The balance of `records`, games of `rules` with `players` players.
    pub fn of(rules: &Rules, players: u8, records: &[GameRecord]) -> Balance {
        let mut tally = Tally::default();
        for r in records {
            tally.add(r);
        }
        tally.balance(rules, players)
    }
}

/// A run's games counted as they end: what its `Balance` is made from. It holds counts and, for
/// the length spreads, how many games had each length, so its size does not grow with the number
/// of games (a run of a million games keeps no record of each). Tallies of parts of a run add up
/// to the tally of the whole, whatever the parts: several threads give the same balance as one.
/// It serializes, so that parts played in other processes (the Python package's Ray sweeps)
/// come back to be merged.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Tally {
    /// Games counted.
    pub games: u64,
    /// Games per outcome name (`stopped` included).
    pub outcomes: IndexMap<String, u64>,
    /// Wins per seat name.
    wins: IndexMap<String, u64>,
    /// Games stopped by a safety bound.
    stopped: u64,
    /// Games per number of decisions.
    decisions: BTreeMap<i64, u64>,
    /// Games per number of rounds (games that count rounds).
    rounds: BTreeMap<i64, u64>,
    /// Games per game time at the end in ms (real-time games).
    clock_ms: BTreeMap<i64, u64>,
    /// What the seats' agents counted of their work (`Agent::counts`), summed over the games:
    /// by seat name, then by what was counted.
    #[serde(default)]
    agent_counts: IndexMap<String, IndexMap<String, u64>>,
}

impl Tally {
    /// Counts one game.
    pub fn add(&mut self, r: &GameRecord) {
        self.games += 1;
        *self.outcomes.entry(r.outcome.clone()).or_default() += 1;
        for w in &r.winners {
            *self.wins.entry(w.clone()).or_default() += 1;
        }
        self.stopped += u64::from(r.stopped);
        *self.decisions.entry(r.decisions as i64).or_default() += 1;
        if let Some(n) = r.rounds {
            *self.rounds.entry(n).or_default() += 1;
        }
        if let Some(ms) = r.clock_ms {
            *self.clock_ms.entry(ms).or_default() += 1;
        }
    }

    /// Adds what a seat's agent counted of its work in one game (`Agent::counts`).
    pub fn add_agent_counts(&mut self, seat: &str, counts: &[(&str, u64)]) {
        if counts.is_empty() {
            return;
        }
        let seat = self.agent_counts.entry(seat.to_string()).or_default();
        for &(what, n) in counts {
            *seat.entry(what.to_string()).or_default() += n;
        }
    }

    /// What the seats' agents counted of their work, summed over the games: by seat name, then
    /// by what was counted (empty when no agent counts anything).
    pub fn agent_counts(&self) -> &IndexMap<String, IndexMap<String, u64>> {
        &self.agent_counts
    }

    /// Adds the games of another part of the run.
    pub fn merge(&mut self, other: Tally) {
        for (seat, counts) in &other.agent_counts {
            let counts: Vec<(&str, u64)> = counts.iter().map(|(what, &n)| (what.as_str(), n)).collect();
            self.add_agent_counts(seat, &counts);
        }
        self.games += other.games;
        for (k, n) in other.outcomes {
            *self.outcomes.entry(k).or_default() += n;
        }
        for (k, n) in other.wins {
            *self.wins.entry(k).or_default() += n;
        }
        self.stopped += other.stopped;
        for (map, more) in [
            (&mut self.decisions, other.decisions),
            (&mut self.rounds, other.rounds),
            (&mut self.clock_ms, other.clock_ms),
        ] {
            for (k, n) in more {
                *map.entry(k).or_default() += n;
            }
        }
    }

    /// Decisions taken in all the games counted.
    pub fn decisions(&self) -> u64 {
        self.decisions.iter().map(|(&d, &n)| d as u64 * n).sum()
    }

    /// The balance of the games counted, games of `rules` with `players` players.
    pub fn balance(&self, rules: &Rules, players: u8) -> Balance {
        let games = self.games;
        let games_ending = |name: &str| self.outcomes.get(name).copied().unwrap_or(0);
        // The outcomes this count of players can reach, and any other that happened all the same.
        let mut outcome_shares: IndexMap<String, Share> = (0..rules.outcomes.len())
            .filter(|&i| rules.outcome_possible(i as u16, players) || games_ending(&rules.outcomes[i].name) > 0)
            .map(|i| {
                let name = &rules.outcomes[i].name;
                (name.clone(), Share::of(games_ending(name), games))
            })
            .collect();
        let stopped_by_simulator = games_ending(STOPPED);
        if stopped_by_simulator > 0 {
            outcome_shares.insert(STOPPED.into(), Share::of(stopped_by_simulator, games));
        }
        let seat_wins: IndexMap<String, Share> = rules
            .seats
            .iter()
            .take(players as usize)
            .map(|s| (s.name.clone(), Share::of(self.wins.get(&s.name).copied().unwrap_or(0), games)))
            .collect();
        let mean = seat_wins.values().map(|s| s.share).sum::<f64>() / seat_wins.len().max(1) as f64;
        let seat_advantage = seat_wins.iter().map(|(s, share)| (s.clone(), share.share - mean)).collect();
        let draws = rules.outcomes.iter().filter(|o| o.kind == OutcomeKind::Draw).map(|o| games_ending(&o.name)).sum();
        let spread =
            |counts: &BTreeMap<i64, u64>, scale: f64| (!counts.is_empty()).then(|| Spread::of_counts(counts, scale));
        Balance {
            outcome_shares,
            seat_wins,
            seat_advantage,
            draws: Share::of(draws, games),
            stopped: Share::of(self.stopped, games),
            decisions: spread(&self.decisions, 1.0).unwrap_or_default(),
            rounds: spread(&self.rounds, 1.0),
            game_seconds: spread(&self.clock_ms, 0.001),
        }
    }
}

/// A 64-bit seed as a JSON string of digits (read back from a string or a number).
mod seed_text {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(seed: &u64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&seed.to_string())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Seed {
            Number(u64),
            Text(String),
        }
        match Seed::deserialize(d)? {
            Seed::Number(n) => Ok(n),
            Seed::Text(t) => t.parse().map_err(serde::de::Error::custom),
        }
    }
}

/// The CSV header of `--csv`, with the recorded counters.
pub fn csv_header(record: &[String]) -> String {
    let mut columns = vec!["game", "seed", "outcome", "winners", "decisions", "rounds", "clock_ms", "stopped"];
    columns.extend(record.iter().map(String::as_str));
    columns.join(",")
}

/// One CSV row of `--csv` (winners separated by spaces; empty cells for what the game lacks).
pub fn csv_row(r: &GameRecord, record: &[String]) -> String {
    let opt = |v: Option<i64>| v.map(|v| v.to_string()).unwrap_or_default();
    let mut cells = vec![
        r.index.to_string(),
        r.seed.to_string(),
        r.outcome.clone(),
        r.winners.join(" "),
        r.decisions.to_string(),
        opt(r.rounds),
        opt(r.clock_ms),
        r.stopped.to_string(),
    ];
    cells.extend(record.iter().map(|c| opt(r.counters.get(c).copied())));
    cells.join(",")
}
