//! Playouts on several threads (`search:threads=N`).
//!
//! Rules cannot cross threads (their script engine stays where it was made), so each helper
//! thread loads its own copy from the rules' `Replica` once, when the pool starts, and is sent
//! playouts as plain data: the state of a particle, the option to take and the sample's seeds.
//! A playout's result depends on nothing else, so it is the same on whichever thread plays it,
//! and the search, which asks for results in its own order, makes the same choices with any
//! number of threads. The searching thread plays its share too: with `threads=N` there are
//! N - 1 helpers. A helper the system will not start, or whose copy of the rules fails to load,
//! takes no playouts, and the others (at least the searching thread) play them all.

use std::collections::VecDeque;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::rc::Rc;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use crate::diag::Error;
use crate::flow::Game;
use crate::rules::{Replica, Rules, SeatId};
use crate::state::{Action, State};

/// Which playout a result is for: the particle, the option (an index into the decision's
/// options; past them, letting the game go on) and the sample's seeds.
pub(super) type Key = (usize, usize, (u64, u64));

/// What a playout gave: its score, `None` when the rules failed on its sample (`super::play`).
pub(super) type Played = Result<Option<f64>, Error>;

/// A playout, as plain data that can be sent to another thread.
pub(super) struct Job {
    /// Which playout this is.
    pub key: Key,
    /// The particle's state, a copy.
    pub state: Box<State>,
    /// The option taken, `None` for letting the game go on.
    pub action: Option<Action>,
    /// The searching seat.
    pub seat: SeatId,
    /// The agents playing the playout, one a seat.
    pub kinds: Arc<[String]>,
    /// Decisions before the playout is cut.
    pub depth: u64,
}

impl Job {
    /// Plays the playout by `rules` (this thread's copy of the rules the state was made with).
    fn play(self, rules: &Rc<Rules>) -> Played {
        let game = Game::resumed(rules.clone(), self.state);
        super::play(game, self.action.as_ref(), self.seat, self.key.2, &self.kinds, self.depth)
    }
}

/// What a helper sends back: the playout, and its result or the error, rendered (a rendered
/// error needs the rules' files, which stay on the helper's thread).
type Done = (Key, Result<Option<f64>, String>);

/// The playouts waiting for a thread, and whether the pool is closing.
#[derive(Default)]
struct Queue {
    jobs: VecDeque<Job>,
    closed: bool,
}

/// What the searching thread and its helpers share.
#[derive(Default)]
struct Shared {
    queue: Mutex<Queue>,
    /// Signalled when playouts are queued or the pool closes.
    ready: Condvar,
}

impl Shared {
    /// The queue; a thread that panicked holding it left it whole (every change to it is one
    /// call), so a poisoned lock is taken all the same.
    fn queue(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Helper threads for a search agent's playouts.
pub(super) struct Pool {
    shared: Arc<Shared>,
    done: Receiver<Done>,
    helpers: Vec<JoinHandle<()>>,
}

impl Pool {
    /// A pool of `helpers` threads, each with its own copy of the rules `replica` makes.
    pub fn new(replica: &Replica, helpers: usize) -> Pool {
        let shared = Arc::new(Shared::default());
        let (send, done) = channel();
        let helpers = (0..helpers)
            .map_while(|i| {
                let (shared, send, replica) = (shared.clone(), send.clone(), replica.clone());
                std::thread::Builder::new()
                    .name(format!("search-{}", i + 1))
                    .spawn(move || help(&shared, &send, &replica))
                    .ok()
            })
            .collect();
        Pool { shared, done, helpers }
    }

    /// Plays `jobs` on the helpers and on this thread (by `rules`, this thread's rules) and
    /// returns every job's result, in no particular order, and how many the helpers played.
    pub fn run(&self, rules: &Rc<Rules>, jobs: Vec<Job>) -> (Vec<(Key, Played)>, usize) {
        let count = jobs.len();
        self.shared.queue().jobs.extend(jobs);
        self.shared.ready.notify_all();
        let mut results = Vec::with_capacity(count);
        // This thread plays until the queue is empty, then waits for what the helpers took.
        loop {
            let job = self.shared.queue().jobs.pop_front();
            let Some(job) = job else { break };
            let key = job.key;
            results.push((key, job.play(rules)));
        }
        let played_here = results.len();
        while results.len() < count {
            match self.done.recv() {
                Ok((key, result)) => results.push((key, result.map_err(Error::Rendered))),
                // Every helper is gone, and with it the playouts it held: not expected (a
                // helper answers even for a playout that panicked), but not waited for either.
                Err(_) => break,
            }
        }
        let helped = results.len() - played_here;
        (results, helped)
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.shared.queue().closed = true;
        self.shared.ready.notify_all();
        for helper in self.helpers.drain(..) {
            // A helper's panic was answered already; nothing is left to report.
            let _ = helper.join();
        }
    }
}

/// A helper's life: load the rules, then play playouts from the queue until the pool closes.
fn help(shared: &Shared, done: &Sender<Done>, replica: &Replica) {
    let Ok(rules) = replica.load() else { return };
    let rules = Rc::new(rules);
    loop {
        let job = {
            let mut queue = shared.queue();
            loop {
                if queue.closed {
                    return;
                }
                if let Some(job) = queue.jobs.pop_front() {
                    break job;
                }
                queue = shared.ready.wait(queue).unwrap_or_else(|poisoned| poisoned.into_inner());
            }
        };
        let key = job.key;
        let result = catch_unwind(AssertUnwindSafe(|| job.play(&rules)));
        let (result, panicked) = match result {
            Ok(result) => (result.map_err(|e| crate::diag::render(&e, &rules.sources)), false),
            Err(_) => (Err(format!("a search thread failed in a playout of {}", rules.name)), true),
        };
        if done.send((key, result)).is_err() || panicked {
            // The pool is gone, or this thread's rules may be left mid-change by the panic.
            return;
        }
    }
}
