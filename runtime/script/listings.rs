//! Listings of options kept between decisions: an `options` hook's list is given again,
//! without running the hook, while everything the hook read of the game is unchanged.
//!
//! Between two decisions most of the game stands still, and a seat's options often do too: where
//! seats may act out of turn, after each action every other seat is asked what it may do (offer
//! a trade, play a card), and what that depends on (its hand, the trades made this turn) seldom
//! changed. A compiled options hook reads the game only through the natives, which note what
//! they read (`reads.rs`, as for remembered calls): a listing is kept with the values of its
//! reads, and given back for the same hook and seat while those values are the same, which is
//! exactly when running the hook again would list the same options.
//!
//! Noting reads and taking their values costs something, so each hook and seat keeps a score:
//! up when a kept listing is given back, down when one is made and not used again. A key whose
//! listings keep changing (the seat on turn, whose every action changes what it may do next)
//! rests for a while, then is tried again. Whatever the score, the options are those the hook
//! lists: the games are the same with and without keeping.

use std::cell::RefCell;

use rhai::Array;

use super::reads::{self, Read};
use crate::rules::defs::{Defs, HookId};
use crate::state::State;

/// Listings a key's score may fall to before it rests, and where a new key starts: a listing
/// that changes every time rests after four.
const LOWEST_SCORE: i32 = -24;
const FIRST_SCORE: i32 = -20;
/// How much a listing given back raises a key's score (and at most how high it goes).
const HIT_SCORE: i32 = 4;
const HIGHEST_SCORE: i32 = 64;
/// Listings a key rests for (run without noting reads) the first time its score falls to the
/// lowest; each time after, twice as many, up to `REST << MOST_DOUBLINGS`.
const REST: u32 = 512;
const MOST_DOUBLINGS: u32 = 4;

/// One hook and key's kept listing (the key: a seat, and whether it is asked out of turn), and
/// how keeping has fared for it.
struct Entry {
    hook: HookId,
    key: u32,
    /// What the listing read of the game, and those reads' values then.
    reads: Box<[Read]>,
    values: Vec<i64>,
    /// The listing, while it is not lent out; `None` before the first is kept.
    items: Option<Array>,
    score: i32,
    resting: u32,
    /// How many times it has rested.
    rests: u32,
}

/// The kept listings of one ruleset's scripts, on the thread they run on.
#[derive(Default)]
pub(crate) struct KeptListings(RefCell<Vec<Entry>>);

/// What became of an asked listing, to tell [`KeptListings::done`] where it goes.
pub(crate) enum Keeping {
    /// The listing was given back from the kept one: it returns there.
    Lent { hook: HookId, key: u32 },
    /// The listing was made with its reads noted: it is kept with their values.
    Made { hook: HookId, key: u32, reads: Box<[Read]>, values: Vec<i64> },
    /// The listing is not kept.
    Not,
}

/// A listing being made with its reads noted (see [`KeptListings::start`]).
pub(crate) struct Noting {
    hook: HookId,
    key: u32,
    call: reads::Opened,
}

impl KeptListings {
    /// The kept listing of `hook` for `key`, lent out, if what it read is unchanged in `state`;
    /// otherwise `None` (the miss is charged to the key when the listing made instead is kept).
    pub(crate) fn lend(&self, defs: &Defs, state: &State, hook: HookId, key: u32) -> Option<Array> {
        let mut entries = self.0.borrow_mut();
        let e = entries.iter_mut().find(|e| e.hook == hook && e.key == key)?;
        if e.resting > 0 || e.items.is_none() {
            return None;
        }
        if reads::unchanged(defs, state, &e.reads, &e.values) {
            e.score = (e.score + HIT_SCORE).min(HIGHEST_SCORE);
            return e.items.take();
        }
        None
    }

    /// Starts noting the reads of a listing of `hook` for `key` about to be made, unless the
    /// key is resting.
    pub(crate) fn start(&self, hook: HookId, key: u32) -> Option<Noting> {
        let mut entries = self.0.borrow_mut();
        if let Some(e) = entries.iter_mut().find(|e| e.hook == hook && e.key == key)
            && e.resting > 0
        {
            e.resting -= 1;
            return None;
        }
        Some(Noting { hook, key, call: reads::open() })
    }

    /// Ends noting a listing's reads: how to keep the listing, given the state it was made
    /// from (`Keeping::Not` when a native read without saying what, or changed the game).
    pub(crate) fn made(&self, defs: &Defs, state: &State, noting: Noting, ok: bool) -> Keeping {
        if !ok {
            reads::abandon(noting.call);
            return Keeping::Not;
        }
        let Some(closed) = reads::close(noting.call) else { return Keeping::Not };
        let mut values = Vec::new();
        reads::values(defs, state, &closed.reads, &mut values);
        Keeping::Made { hook: noting.hook, key: noting.key, reads: closed.reads, values }
    }

    /// Takes back a listing the flow has read: into its key's place if it is kept, else gives
    /// it back as `spare`s (see `compile::give_back`).
    pub(crate) fn done(&self, keeping: Keeping, items: Array, spare: impl FnOnce(Array)) {
        let mut entries = self.0.borrow_mut();
        match keeping {
            Keeping::Lent { hook, key } => match entries.iter_mut().find(|e| e.hook == hook && e.key == key) {
                Some(e) => e.items = Some(items),
                None => spare(items),
            },
            Keeping::Made { hook, key, reads, values } => {
                let at = match entries.iter().position(|e| e.hook == hook && e.key == key) {
                    Some(at) => at,
                    None => {
                        entries.push(Entry {
                            hook,
                            key,
                            reads: Box::new([]),
                            values: Vec::new(),
                            items: None,
                            score: FIRST_SCORE,
                            resting: 0,
                            rests: 0,
                        });
                        entries.len() - 1
                    }
                };
                let e = &mut entries[at];
                // The listing made before this one was not given back since: a miss.
                if e.items.is_some() {
                    e.score -= 1;
                }
                e.reads = reads;
                e.values = values;
                let old = e.items.replace(items);
                if e.score <= LOWEST_SCORE {
                    e.score = FIRST_SCORE;
                    e.resting = REST << e.rests.min(MOST_DOUBLINGS);
                    e.rests += 1;
                    e.items = None;
                }
                drop(entries);
                if let Some(old) = old {
                    spare(old);
                }
            }
            Keeping::Not => {
                drop(entries);
                spare(items);
            }
        }
    }
}
