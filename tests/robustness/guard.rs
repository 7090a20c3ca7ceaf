//! Running one nasty input under watch: in its own thread, with a deadline, counting the memory
//! the thread allocates. A panic, a hang or a memory bomb fails the test with the case's name
//! instead of taking the machine down.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::mpsc;
use std::time::Duration;

/// Counts the bytes each thread has allocated and not freed, and the most it ever had.
pub struct Counting;

thread_local! {
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

/// A thread that goes past this many live bytes is refused memory (the process aborts, with
/// the allocation that failed): a safety net, far above what `Limits::memory` allows.
const HARD_CAP: usize = 2 << 30;

fn grew(by: usize) -> bool {
    let live = LIVE.get().saturating_add(by);
    if live > HARD_CAP {
        return false;
    }
    LIVE.set(live);
    if live > PEAK.get() {
        PEAK.set(live);
    }
    true
}

fn shrank(by: usize) {
    // Memory freed by another thread than the one that allocated it is not counted twice.
    LIVE.set(LIVE.get().saturating_sub(by));
}

// SAFETY: every call is passed to the system allocator unchanged; only counters change here.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !grew(layout.size()) {
            return std::ptr::null_mut();
        }
        // SAFETY: the caller's contract is passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if !grew(layout.size()) {
            return std::ptr::null_mut();
        }
        // SAFETY: the caller's contract is passed on.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        shrank(layout.size());
        // SAFETY: the caller's contract is passed on.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() && !grew(new_size - layout.size()) {
            return std::ptr::null_mut();
        }
        shrank(layout.size().saturating_sub(new_size));
        // SAFETY: the caller's contract is passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// What a case may use.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Wall-clock time (a debug build on a busy 2-core machine: generous).
    pub time: Duration,
    /// Peak bytes allocated by the case's thread at any one moment.
    pub memory: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { time: Duration::from_secs(20), memory: 64 << 20 }
    }
}

/// What a guarded run measured.
#[derive(Debug)]
pub struct Measured<T> {
    /// What the case returned.
    pub value: T,
    /// The most memory its thread held at once.
    pub peak: usize,
}

/// Runs `f` in its own thread and returns its result, or fails the test if it panics, runs out
/// of time or uses more memory than `limits` allow.
pub fn guarded<T: Send + 'static>(case: &str, limits: Limits, f: impl FnOnce() -> T + Send + 'static) -> T {
    let measured = measure(case, limits, f);
    assert!(
        measured.peak <= limits.memory,
        "{case}: used {} MB at its peak, more than the {} MB allowed",
        measured.peak >> 20,
        limits.memory >> 20
    );
    measured.value
}

/// Runs `f` like `guarded`, without judging its memory.
pub fn measure<T: Send + 'static>(case: &str, limits: Limits, f: impl FnOnce() -> T + Send + 'static) -> Measured<T> {
    let (send, receive) = mpsc::channel();
    let worker = std::thread::Builder::new()
        .name(case.to_string())
        .spawn(move || {
            LIVE.set(0);
            PEAK.set(0);
            let value = f();
            let _ = send.send((value, PEAK.get()));
        })
        .expect("spawn a thread");
    match receive.recv_timeout(limits.time) {
        Ok((value, peak)) => {
            let _ = worker.join();
            Measured { value, peak }
        }
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            let panic = worker.join().err().map(|p| {
                p.downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default()
            });
            panic!("{case}: panicked: {}", panic.unwrap_or_default())
        }
        Err(mpsc::RecvTimeoutError::Timeout) => {
            panic!("{case}: still running after {:?} (a hang?)", limits.time)
        }
    }
}
