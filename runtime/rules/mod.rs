//! A loaded ruleset: every definition resolved to ids, scripts compiled, ready to play.
//!
//! `raw` mirrors the files, `load` reads and validates them, `defs` holds the resolved
//! definitions, and this module joins them with the compiled scripts into `Rules`. Nothing in
//! here changes during a game: game state lives in `state::State` and refers to the definitions
//! by index. The layers: `Defs` sit below the state, the compiled scripts above it, and `Rules`
//! above both.

pub mod defs;
pub mod load;
pub mod params;
pub mod raw;

use std::ops::Deref;
use std::path::PathBuf;
use std::rc::Rc;

use crate::diag::{Error, Sources};
use crate::script::Scripts;
pub use defs::*;

/// A loaded, validated ruleset with its compiled scripts.
pub struct Rules {
    /// The definitions (shared with the script engine, which reads names from them).
    pub defs: Rc<Defs>,
    pub(crate) scripts: Scripts,
}

impl Deref for Rules {
    type Target = Defs;
    fn deref(&self) -> &Defs {
        &self.defs
    }
}

impl std::fmt::Debug for Rules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rules").field("name", &self.defs.name).finish_non_exhaustive()
    }
}

impl Rules {
    /// Runs every script hook on Rhai's interpreter instead of the compiled closures: the
    /// reference the scripts compiler is checked against (`tests/it/compiled.rs`). Setting
    /// `TABULA_INTERPRET=1` in the environment does the same for every load.
    pub fn interpret_scripts(&mut self) {
        self.scripts.interpret();
    }

    /// Whether every hook runs on Rhai's interpreter (`interpret_scripts`, or
    /// `TABULA_INTERPRET=1` when the rules were loaded).
    pub fn scripts_interpreted(&self) -> bool {
        self.scripts.interpreted()
    }

    /// The script functions left to Rhai's interpreter, and why: a hook runs compiled only if
    /// it and everything it calls are compiled (`tabula check` lists these).
    pub fn script_fallbacks(&self) -> &[crate::script::Fallback] {
        self.scripts.fallbacks()
    }

    /// How many of the script functions run compiled, of how many.
    pub fn script_functions_compiled(&self) -> (usize, usize) {
        self.scripts.functions_compiled()
    }

    /// What another thread needs to load these rules again (`Replica::load`).
    pub fn replica(&self) -> Replica {
        Replica {
            dir: self.dir.clone(),
            options: load::LoadOptions { variants: self.variants.clone(), overrides: self.overrides.clone() },
            sources: self.sources.clone(),
            interpreted: self.scripts.interpreted(),
        }
    }
}

/// The makings of a copy of some rules for another thread: their folder, variants and
/// overrides, the texts of the files they were loaded from, and whether their scripts run on
/// the interpreter. Rules stay on the thread that loaded them (the script engine cannot be
/// shared); a replica can be sent, and loads the same rules wherever it goes.
#[derive(Clone, Debug)]
pub struct Replica {
    dir: PathBuf,
    options: load::LoadOptions,
    sources: Sources,
    interpreted: bool,
}

impl Replica {
    /// Loads the rules again from the texts kept, not from the files, which may have changed
    /// since: the same rules, with a script engine of the calling thread's own.
    pub fn load(&self) -> Result<Rules, Error> {
        let mut rules = load::load_from(&self.dir, &self.options, load::Files::Kept(&self.sources))?;
        if self.interpreted {
            rules.interpret_scripts();
        }
        Ok(rules)
    }
}
