//! Heap allocations of a simulated game, counted by this test binary's own global allocator
//! (a binary of its own: a counting allocator counts everything its process does).
//!
//! The engine core (listing options, checking and applying actions) allocates nothing once its
//! buffers are warm, and compiled hooks little: what an East Berlin game still allocates is
//! the arrays its scripts receive (`pieces_where`), the first map of each action's arguments
//! (later hooks of the action get it filled in again), and the constant list its reveal is
//! given, about 55 allocations a game. Issue 13's bar is fewer than 100.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::rc::Rc;

use tabula::rng::Rng;
use tabula::sim::{play_out, random_agents};
use tabula::{Game, LoadOptions};

/// Counts the allocations (and reallocations) of each thread: the test's own, whatever the
/// test harness does on other threads.
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn count() {
    // `try_with`: a thread being torn down has no counter left, and is not the test's.
    let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
}

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

// SAFETY: every call is passed to the system allocator unchanged; only a counter changes here.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: the caller's contract is passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: the caller's contract is passed on.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is passed on.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: the caller's contract is passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const GAMES: u64 = 40;

fn east_berlin() -> Rc<tabula::Rules> {
    Rc::new(tabula::load("rulesets/east-berlin", &LoadOptions::default()).expect("East Berlin loads"))
}

#[test]
fn an_east_berlin_game_allocates_little_after_setup() {
    let rules = east_berlin();
    let mut total = 0;
    for i in 0..GAMES {
        let seed = Rng::derive_seed(0, i);
        let mut game = Game::new(rules.clone(), 2, seed).expect("a game starts");
        let mut agents = random_agents(2, seed);
        let before = allocations();
        play_out(&mut game, &mut agents, 10_000).expect("the game ends");
        total += allocations() - before;
    }
    let mean = total / GAMES;
    // About 2,000 before the engine core stopped allocating, about 980 on Rhai's interpreter,
    // 370 compiled, about 85 since literal filters are prepared at load and zone lists reuse
    // one buffer.
    assert!(mean < 100, "{mean} allocations per game after setup");
}

/// The allocations of a game of the names fixture asking for every name `rounds` times (the
/// game is over once started).
fn names_game_allocations(rounds: u32) -> u64 {
    let options = LoadOptions { overrides: vec![("rounds".into(), rounds.to_string())], ..LoadOptions::default() };
    let rules = Rc::new(tabula::load("tests/fixtures/names", &options).expect("the names fixture loads"));
    let before = allocations();
    let game = Game::new(rules, 2, 1).expect("the game plays");
    assert!(game.is_over());
    allocations() - before
}

#[test]
fn names_written_with_a_prefix_are_found_without_building_a_string() {
    // Each round asks for 42 names: `"points." + seat` twice and `"pool." + seat` for ten
    // seats, and `"pawn_" + n` for twelve pawns. Found by what follows the prefix, they cost
    // no allocation; built, they cost one each (ten seats are more joins than a `+` keeps).
    // The first game also fills what the thread keeps for every hook call (its stack).
    names_game_allocations(1);
    let once = names_game_allocations(1);
    let more = names_game_allocations(101).saturating_sub(once);
    assert!(more < 10, "{more} allocations for 100 rounds of 42 names");
}

#[test]
fn listing_and_checking_options_allocate_nothing() {
    // East Berlin's actions have no `legal` hook: listing and checking them is the engine's
    // work alone (applying one runs the phase hooks, in Rhai).
    let rules = east_berlin();
    let mut legal = Vec::new();
    let mut decisions = 0u64;
    for i in 0..GAMES {
        let seed = Rng::derive_seed(0, i);
        let mut game = Game::new(rules.clone(), 2, seed).expect("a game starts");
        let mut rng = Rng::seeded(seed);
        // Room for any decision's options, so that the buffer never grows while counted.
        legal.reserve(256);
        while !game.is_over() {
            let seat = game.acting().next().expect("someone acts");
            let before = allocations();
            game.legal_actions_into(seat, &mut legal).expect("options");
            let action = legal[rng.index(legal.len())];
            game.check_legal(&action).expect("a listed action is legal");
            assert_eq!(allocations(), before, "listing and checking {action:?}");
            decisions += 1;
            game.apply_unchecked(&action).expect("applies");
        }
    }
    assert!(decisions > GAMES * 50, "{decisions} decisions");
}

/// A script function that never changes its parameter is lent the caller's list or map, not a
/// copy (`lend` in `script/compile/expr.rs`): tests/fixtures/lending hands a list of 100 items
/// and a map to two such functions a thousand times at setup. Copies would cost at least one
/// allocation a call (2,000 in all).
#[test]
fn a_list_or_map_a_function_only_reads_is_lent_not_copied() {
    let rules = Rc::new(tabula::load("tests/fixtures/lending", &LoadOptions::default()).expect("the probe loads"));
    let before = allocations();
    let game = Game::new(rules.clone(), 1, 1).expect("the setup runs");
    let during = allocations() - before;
    let total = rules.counter("total").expect("counter");
    // 1,000 x (0 + 1 + ... + 99 = 4,950, and 3 for "c").
    assert_eq!(game.state().counter(total), 1000 * (4950 + 3));
    assert!(during < 500, "{during} allocations for 2,000 calls");
}

/// Rhai's `abs` and `pop`, and `+=` and `+` on two lists, are computed by the compiled code
/// itself (`Std` and `assign_sized` in `script/compile/ops.rs`): tests/fixtures/library calls
/// each a thousand times at setup. A call into Rhai's library costs allocations of its own
/// (its call state is copied for each call). Copying a list read from a variable costs two
/// (Rhai's box and the items), so each round of the second loop makes eight: the list appended
/// copied, both lists joined copied, the joined list grown and boxed (eleven through Rhai).
#[test]
fn library_functions_computed_inline_allocate_nothing() {
    let rules = Rc::new(tabula::load("tests/fixtures/library", &LoadOptions::default()).expect("the probe loads"));
    let before = allocations();
    let game = Game::new(rules.clone(), 1, 1).expect("the setup runs");
    let during = allocations() - before;
    let total = rules.counter("total").expect("counter");
    // |i - 500| for i in 0..1000 is 250,000, the items popped add up to 0 + 1 + ... + 999, and
    // each of the thousand lists joined holds two items.
    assert_eq!(game.state().counter(total), 250_000 + 499_500 + 2_000);
    assert!(during < 8_500, "{during} allocations for 4,000 calls");
}

/// A loop over a list in a variable that its body never names, with a loop variable the body
/// never changes, walks the list in place (`each_lent` in `script/compile/stmt.rs`):
/// tests/fixtures/walk walks a list of ten maps a hundred times at setup. Copies would cost
/// the list and each map at every walk (at least 1,100 allocations).
#[test]
fn a_list_a_loop_only_reads_is_walked_in_place() {
    let rules = Rc::new(tabula::load("tests/fixtures/walk", &LoadOptions::default()).expect("the probe loads"));
    let before = allocations();
    let game = Game::new(rules.clone(), 1, 1).expect("the setup runs");
    let during = allocations() - before;
    let total = rules.counter("total").expect("counter");
    // 100 x (0 + 1 + ... + 9 = 45, and 2 tiles for each of the 10 ways).
    assert_eq!(game.state().counter(total), 100 * (45 + 20));
    assert!(during < 200, "{during} allocations for 100 walks of 10 maps");
}

/// The option maps an `options` hook lists are given back once the flow has read them, and the
/// next listing's map literals with the same keys fill them in again (`give_back` in
/// `script/compile/maps.rs`): tests/fixtures/option_maps lists forty `#{action, n, m}` maps, and
/// each pick changes what the next listing reads. Made afresh, each map costs at least two
/// allocations (the map and its box): 80 a listing.
#[test]
fn option_maps_the_flow_has_read_are_filled_in_again() {
    let rules = Rc::new(tabula::load("tests/fixtures/option_maps", &LoadOptions::default()).expect("the probe loads"));
    let mut game = Game::new(rules, 1, 1).expect("a game starts");
    let mut legal = Vec::with_capacity(64);
    let mut list_and_pick = |game: &mut Game| {
        game.legal_actions_into(0, &mut legal).expect("options");
        assert_eq!(legal.len(), 40);
        game.apply_unchecked(&legal[0]).expect("a pick applies");
    };
    // The first rounds make the maps, the thread's spares and the action's arguments.
    (0..100).for_each(|_| list_and_pick(&mut game));
    let before = allocations();
    (0..10).for_each(|_| list_and_pick(&mut game));
    let per_listing = (allocations() - before) / 10;
    assert!(per_listing < 20, "{per_listing} allocations a listing of 40 options and a pick");
}
