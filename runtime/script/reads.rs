//! What a script function read of the game, so that its result can be remembered.
//!
//! A compiled script function called with the `game` handle and plain values (`cards_held(game,
//! seat)`, `may_cross(game, from, to, kind, against)`) depends on its arguments and on
//! what it reads of the game through the natives, nothing else: scripts cannot keep anything
//! between calls, and the rules' definitions never change. While such a call runs, the natives
//! it calls note here what they read (a zone's pieces, a counter, a property...); once it
//! returns, the values of those reads are taken, and the next call with equal arguments is
//! given the same result if every one of those values is still the same, without running (see
//! `compile/memo.rs`). Between two decisions most of the board stands still, so most of the
//! checks a listing of options makes are answered so.
//!
//! The comparison is of values, not of versions, so it holds across copies of a game, between
//! games, and whatever changed the game in between (the flow's own bookkeeping included): a
//! remembered result is given back only where running the function would see exactly what it
//! saw. A native that reads the game without saying what (through `GameApi::state`), or changes
//! it (through `GameApi::state_mut`), spoils every call running: those are not remembered.

use std::cell::{Cell, RefCell};

use crate::rules::defs::{CounterId, Defs, PieceId, ZoneId};
use crate::state::State;

/// One thing of the game a native read.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub(crate) enum Read {
    /// A zone's pieces in the zone's order, with each one's face and properties.
    Zone(ZoneId),
    /// A counter's value.
    Counter(CounterId),
    /// The zone a piece lies in.
    ZoneOf(PieceId),
    /// A property's value, by slot.
    Prop(u32),
    /// Whether a piece is face up.
    FaceUp(PieceId),
    /// How many seats play.
    Players,
    /// The current phase.
    Phase,
    /// How many prompts are pending.
    Prompts,
    /// How the game ended, if it has.
    Outcome,
    /// The game's clock.
    Clock,
}

/// The reads of the calls running on this thread, innermost last.
struct Recorder {
    /// How many remembered calls are running (nested).
    open: usize,
    /// Their reads, in order: a call's reads are those from the length at its start.
    reads: Vec<Read>,
    /// How many times a native spoiled the running calls (read without saying what, or wrote).
    spoils: u64,
}

thread_local! {
    static RECORDER: RefCell<Recorder> = const { RefCell::new(Recorder { open: 0, reads: Vec::new(), spoils: 0 }) };
    /// Whether a remembered call is running (`Recorder::open > 0`), asked first: most natives
    /// run outside one, and then pay only this.
    static RECORDING: Cell<bool> = const { Cell::new(false) };
}

/// Notes that a native read `what`, for the calls running.
#[inline]
pub(crate) fn note(what: Read) {
    if !RECORDING.get() {
        return;
    }
    RECORDER.with_borrow_mut(|r| {
        // Not skipped when the last read is the same: it may be the caller's, noted before
        // this call began (each call's reads are sorted and deduplicated when it ends).
        if r.open > 0 {
            r.reads.push(what);
        }
    });
}

/// Notes the reads of a remembered call given back (its callers read them too).
pub(crate) fn note_all(what: &[Read]) {
    if !RECORDING.get() {
        return;
    }
    RECORDER.with_borrow_mut(|r| {
        if r.open > 0 {
            r.reads.extend_from_slice(what);
        }
    });
}

/// Notes that a native read the game without saying what, or changed it: no call running now
/// may be remembered.
#[inline]
pub(crate) fn spoil() {
    if !RECORDING.get() {
        return;
    }
    RECORDER.with_borrow_mut(|r| {
        if r.open > 0 {
            r.spoils += 1;
        }
    });
}

/// A call whose reads are being noted (see [`open`]).
pub(crate) struct Opened {
    start: usize,
    spoils: u64,
}

/// Starts noting the reads of a call.
pub(crate) fn open() -> Opened {
    RECORDING.set(true);
    RECORDER.with_borrow_mut(|r| {
        r.open += 1;
        Opened { start: r.reads.len(), spoils: r.spoils }
    })
}

/// What a call read (see [`close`]).
pub(crate) struct Closed {
    /// Its reads, sorted, each once.
    pub(crate) reads: Box<[Read]>,
    /// How many reads the natives it called noted, repeats included: about how many of them
    /// it called that read the game (what running it costs besides its operations).
    pub(crate) noted: usize,
}

/// Ends a call begun with [`open`]: what it read, or `None` if it was spoiled. The reads stay
/// noted for the calls around it.
pub(crate) fn close(call: Opened) -> Option<Closed> {
    RECORDER.with_borrow_mut(|r| {
        r.open -= 1;
        let reads = (r.spoils == call.spoils).then(|| {
            let mut reads = r.reads[call.start..].to_vec();
            let noted = reads.len();
            reads.sort_unstable();
            reads.dedup();
            Closed { reads: reads.into_boxed_slice(), noted }
        });
        if r.open == 0 {
            r.reads.clear();
            RECORDING.set(false);
        }
        reads
    })
}

/// Ends a call begun with [`open`] that failed: it is not remembered, and neither are the
/// calls around it (one may have caught the error with `try`, which is seldom worth a memory).
pub(crate) fn abandon(call: Opened) {
    RECORDER.with_borrow_mut(|r| r.spoils += 1);
    let _ = close(call);
}

/// The values of `reads` in `state`, one after the other, into `out`.
pub(crate) fn values(defs: &Defs, state: &State, reads: &[Read], out: &mut Vec<i64>) {
    SCRATCH.with_borrow_mut(|(_, pieces)| reads.iter().for_each(|read| value(defs, state, *read, out, pieces)));
}

/// Whether `reads` still have the `values` they had (see [`values`]) in `state`.
pub(crate) fn unchanged(defs: &Defs, state: &State, reads: &[Read], values: &[i64]) -> bool {
    SCRATCH.with_borrow_mut(|(now, pieces)| {
        now.clear();
        reads.iter().for_each(|read| value(defs, state, *read, now, pieces));
        now.as_slice() == values
    })
}

thread_local! {
    /// The values read again to compare, and a list of pieces, kept between comparisons.
    static SCRATCH: RefCell<(Vec<i64>, Vec<PieceId>)> = const { RefCell::new((Vec::new(), Vec::new())) };
}

fn value(defs: &Defs, state: &State, read: Read, out: &mut Vec<i64>, pieces: &mut Vec<PieceId>) {
    match read {
        Read::Zone(z) => {
            // The pieces in the zone's order (as the natives list them), each with its face and
            // properties: whatever a filter or a listing of the zone may look at.
            state.pieces_in_into(defs, z, pieces);
            out.push(pieces.len() as i64);
            for &p in pieces.iter() {
                let def = &defs.pieces[p as usize];
                out.push(i64::from(p));
                out.push(i64::from(state.is_face_up(p)));
                let props = defs.kinds[def.kind as usize].props.len();
                (def.prop_base..def.prop_base + props).for_each(|slot| out.push(state.prop(slot)));
            }
        }
        Read::Counter(c) => out.push(state.counter(c)),
        Read::ZoneOf(p) => out.push(i64::from(state.zone_of(p))),
        Read::Prop(slot) => out.push(state.prop(slot as usize)),
        Read::FaceUp(p) => out.push(i64::from(state.is_face_up(p))),
        Read::Players => out.push(i64::from(state.players)),
        Read::Phase => out.push(i64::from(state.phase)),
        Read::Prompts => out.push(state.prompts.len() as i64),
        Read::Outcome => out.push(state.outcome.map_or(-1, i64::from)),
        Read::Clock => out.push(state.clock),
    }
}
