//! Reading a ruleset folder: parse, merge variants, apply overrides, resolve, compile.
//!
//! Problems are collected, not returned at the first one, so `tabula check` can list them all.
//! Each is reported at the span of the offending value in the file it came from, which is why
//! entries keep the id of their file through the variant merge.

use std::path::{Path, PathBuf};
use std::rc::Rc;

use indexmap::IndexMap;
use rhai::{Dynamic, ImmutableString};

use super::raw::{self, IntOrParam, Located, Name, ParamValue, RawRuleset};
use super::*;
use crate::diag::{Diagnostic, Error, FileId, MAX_RULESET_FILE_BYTES, Sources};
use crate::script::Scripts;
use crate::value::MAX_PARAMS;

/// Variants and overrides to apply over a ruleset's `game.toml`.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// Names of files in `variants/`, applied in order.
    pub variants: Vec<String>,
    /// `name=value` parameter overrides, applied after the variants.
    pub overrides: Vec<(String, String)>,
}

/// Folders searched for a ruleset given by name: `$TABULA_RULESETS`, `./rulesets`, and the
/// `rulesets/` folder of the source tree this binary was built from.
pub fn ruleset_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(env) = std::env::var_os("TABULA_RULESETS") {
        dirs.extend(std::env::split_paths(&env));
    }
    dirs.push(PathBuf::from("rulesets"));
    dirs.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("rulesets"));
    dirs
}

/// Whether a variant is given as a path to an overlay file rather than by name.
fn variant_is_a_path(variant: &str) -> bool {
    variant.ends_with(".toml") || variant.contains(std::path::MAIN_SEPARATOR) || variant.contains('/')
}

/// A variant's overlay (`toml`) or script (`rhai`) file: `variants/<name>.<ext>` in the ruleset,
/// or the path given with its extension.
fn variant_file(dir: &Path, variant: &str, ext: &str) -> PathBuf {
    if variant_is_a_path(variant) {
        Path::new(variant).with_extension(ext)
    } else {
        dir.join("variants").join(format!("{variant}.{ext}"))
    }
}

/// The folder a ruleset name finds from any working folder: under `$TABULA_RULESETS` or the
/// source tree's `rulesets/`, not a path nor `./rulesets` (which depend on where one stands).
/// A log of a ruleset found so replays anywhere by its name alone.
pub fn find_ruleset_anywhere(name: &str) -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::env::var_os("TABULA_RULESETS")
        .map(|env| std::env::split_paths(&env).filter(|d| d.is_absolute()).collect())
        .unwrap_or_default();
    dirs.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("rulesets"));
    dirs.into_iter().map(|d| d.join(name)).find(|d| d.join("game.toml").is_file())
}

/// The ruleset's folder, absolute, when its name does not find it from any working folder (a
/// ruleset of one's own): what a log or a command line must name instead of the name.
pub fn folder_not_found_by_name(rules: &super::Rules) -> Option<std::path::PathBuf> {
    let by_name = find_ruleset_anywhere(&rules.id).and_then(|d| d.canonicalize().ok());
    let folder = rules.dir.canonicalize().ok()?;
    (by_name.as_ref() != Some(&folder)).then_some(folder)
}

/// Finds a ruleset folder: a path to a folder with `game.toml`, or a name under a ruleset dir.
pub fn find_ruleset(name_or_path: &str) -> Result<PathBuf, Error> {
    let direct = PathBuf::from(name_or_path);
    if direct.join("game.toml").is_file() {
        return Ok(direct);
    }
    if direct.file_name().is_some_and(|f| f == "game.toml") && direct.is_file() {
        return Ok(direct.parent().map(Path::to_path_buf).unwrap_or_default());
    }
    for dir in ruleset_dirs() {
        let candidate = dir.join(name_or_path);
        if candidate.join("game.toml").is_file() {
            return Ok(candidate);
        }
    }
    let known: Vec<String> = list_rulesets().into_iter().map(|(name, _)| name).collect();
    Err(Error::Input(format!(
        "no ruleset `{name_or_path}`{}: expected a ruleset name ({}) or a folder with a game.toml",
        crate::diag::did_you_mean(name_or_path, known.iter().map(String::as_str)),
        if known.is_empty() { "none found".to_string() } else { known.join(", ") }
    )))
}

/// Every ruleset found in the ruleset dirs, by name, with its folder (first found wins).
pub fn list_rulesets() -> Vec<(String, PathBuf)> {
    let mut found: Vec<(String, PathBuf)> = Vec::new();
    for dir in ruleset_dirs() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        let mut names: Vec<_> = entries.flatten().map(|e| e.path()).filter(|p| p.join("game.toml").is_file()).collect();
        names.sort();
        for path in names {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if !found.iter().any(|(n, _)| *n == name) {
                found.push((name, path));
            }
        }
    }
    found
}

/// The variant names a ruleset folder offers (`variants/*.toml`), sorted.
pub fn list_variants(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir.join("variants")) else { return Vec::new() };
    let mut names: Vec<String> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .collect();
    names.sort();
    names
}

/// Loads a ruleset by name or path with the given variants and overrides.
pub fn load(name_or_path: &str, options: &LoadOptions) -> Result<Rules, Error> {
    let dir = find_ruleset(name_or_path)?;
    load_dir(&dir, options)
}

/// What went wrong reading a file, without its path (the message names the file already).
fn io_reason(e: &Error) -> String {
    match e {
        Error::Io { source, .. } => source.to_string(),
        other => other.to_string(),
    }
}

/// FNV-1a, 64 bits: a fixed, portable hash for the rules fingerprint.
fn fnv1a(hash: &mut u64, bytes: &[u8]) {
    for b in bytes {
        *hash ^= u64::from(*b);
        *hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
}

fn parse_file(sources: &Sources, file: FileId) -> Result<RawRuleset, Box<Diagnostic>> {
    toml::from_str::<RawRuleset>(sources.text(file)).map_err(|e| {
        let span = e.span().unwrap_or(0..0);
        let message = e.message().trim().to_string();
        let first = message.lines().next().unwrap_or("invalid TOML");
        // serde says "unknown field `x`, expected one of ..."; keep the two halves apart.
        let (what, expected) = match first.split_once(", expected ") {
            Some((what, expected)) => (what.to_string(), Some(expected.trim_end_matches('.').to_string())),
            None => (first.to_string(), None),
        };
        // "missing field `each`" names what is missing, not what was found.
        let missing = what.strip_prefix("missing field ").map(|k| format!("a {k} key in this table"));
        let expected = expected.or(missing);
        let found =
            if what.starts_with("missing field") { None } else { what.split('`').nth(1).map(|k| format!("`{k}`")) };
        // "did you mean `capacity`?" when the unknown key is a likely typo of one of the keys.
        let hint = match (what.strip_prefix("unknown field ").and_then(|w| w.split('`').nth(1)), &expected) {
            (Some(key), Some(keys)) => {
                crate::diag::did_you_mean(key, keys.split(", ").map(|k| k.trim_matches('`')).filter(|k| !k.is_empty()))
            }
            _ => String::new(),
        };
        let mut d = Diagnostic::new(format!("{what}{hint}")).at(file, span);
        if let Some(expected) = expected {
            d = d.expected(expected);
        }
        if let Some(found) = found {
            d = d.found(found);
        }
        Box::new(d)
    })
}

/// Loads a ruleset from its folder.
pub fn load_dir(dir: &Path, options: &LoadOptions) -> Result<Rules, Error> {
    load_from(dir, options, Files::Disk)
}

/// Where a load reads its files: the disk, or the texts an earlier load of the same ruleset
/// read (`Rules::replica`), so that a copy made later is the same rules even if the files
/// changed since.
#[derive(Clone, Copy)]
pub(super) enum Files<'a> {
    /// The files as they are now.
    Disk,
    /// The texts kept by an earlier load; a file it did not read does not exist.
    Kept(&'a Sources),
}

impl Files<'_> {
    /// Reads a file into `sources` (see `Sources::read`).
    fn read(self, sources: &mut Sources, path: &Path) -> Result<FileId, Error> {
        match self {
            Files::Disk => sources.read(path, MAX_RULESET_FILE_BYTES),
            Files::Kept(kept) => match kept.find(path) {
                Some(id) => Ok(sources.add(path, kept.text(id).to_string())),
                None => Err(Error::Io { path: path.to_path_buf(), source: std::io::ErrorKind::NotFound.into() }),
            },
        }
    }

    /// Whether a path is a file.
    fn is_file(self, path: &Path) -> bool {
        match self {
            Files::Disk => path.is_file(),
            Files::Kept(kept) => kept.find(path).is_some(),
        }
    }

    /// Whether a path exists (a file, or something reading it will complain about).
    fn exists(self, path: &Path) -> bool {
        match self {
            Files::Disk => path.exists(),
            Files::Kept(kept) => kept.find(path).is_some(),
        }
    }
}

/// `load_dir`, reading through `files`.
pub(super) fn load_from(dir: &Path, options: &LoadOptions, files: Files) -> Result<Rules, Error> {
    let mut sources = Sources::default();
    let mut fingerprint = 0xcbf2_9ce4_8422_2325u64;
    let base_file = files.read(&mut sources, &dir.join("game.toml"))?;
    fnv1a(&mut fingerprint, sources.text(base_file).as_bytes());
    let mut diags = Vec::new();
    let mut merged = Merged::default();
    let mut ranges = IndexMap::new();
    match parse_file(&sources, base_file) {
        Ok(mut raw) => {
            super::params::split_declarations(&mut raw.params, base_file, &mut ranges, &mut diags);
            merged.absorb(raw, base_file)
        }
        Err(d) => return Err(Error::Ruleset(vec![*d], Box::default()).with_sources(sources)),
    }
    // A variant is a name from the ruleset's `variants/`, or a path to an overlay file of one's
    // own (`./my-variant.toml`), kept absolute so that logs that name it replay from anywhere.
    let variants: Vec<String> = options
        .variants
        .iter()
        .map(|v| match (variant_is_a_path(v) && matches!(files, Files::Disk)).then(|| Path::new(v).canonicalize()) {
            Some(Ok(abs)) => abs.display().to_string(),
            _ => v.clone(),
        })
        .collect();
    // Errors name the ruleset as people call it (`my-game`), not by the folder's absolute path.
    let ruleset_name = dir.file_name().map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into_owned());
    for variant in &variants {
        let path = variant_file(dir, variant, "toml");
        if variant_is_a_path(variant) && !files.is_file(&path) {
            return Err(Error::NoVariant {
                variant: variant.clone(),
                ruleset: ruleset_name.clone(),
                reason: ": no such overlay file (a variant is a name from the ruleset's variants/ or a path to a .toml file)".into(),
            });
        }
        if !files.is_file(&path) {
            let known = list_variants(dir);
            return Err(Error::NoVariant {
                variant: variant.clone(),
                ruleset: ruleset_name.clone(),
                reason: format!(
                    "{}: expected one of {}",
                    crate::diag::did_you_mean(variant, known.iter().map(String::as_str)),
                    if known.is_empty() { "(this ruleset has no variants)".to_string() } else { known.join(", ") }
                ),
            });
        }
        let file = files.read(&mut sources, &path)?;
        fnv1a(&mut fingerprint, b"\0variant\0");
        fnv1a(&mut fingerprint, sources.text(file).as_bytes());
        match parse_file(&sources, file) {
            Ok(mut raw) => {
                super::params::split_declarations(&mut raw.params, file, &mut ranges, &mut diags);
                merged.absorb(raw, file)
            }
            Err(d) => diags.push(*d),
        }
    }
    if !diags.is_empty() {
        return Err(Error::Ruleset(diags, Box::default()).with_sources(sources));
    }
    for (name, value) in &options.overrides {
        fnv1a(&mut fingerprint, format!("\0set\0{name}={value}").as_bytes());
        let value = super::params::check_override(&merged.params, &ranges, name, value)?;
        if let Some(entry) = merged.params.get_mut(name) {
            entry.1.value = value;
        }
    }
    let resolved = super::params::resolve_ranges(&merged.params, &ranges, &mut diags);
    super::params::check_overridden_ranges(&merged.params, &resolved, &ranges, &options.overrides)?;
    super::params::check_ranges(&merged.params, &resolved, &ranges, &options.overrides, &mut diags);
    let param_info = merged
        .params
        .iter()
        .map(|(name, (file, located))| super::params::ParamInfo {
            name: name.clone(),
            value: located.value.clone(),
            range: resolved.get(name).copied(),
            comment: super::params::comment_at(&sources, *file, &located.span),
            file: *file,
            overridden: options.overrides.iter().any(|(n, _)| n == name),
        })
        .collect();

    let mut scripts_text = Vec::new();
    let script_names = merged.game.scripts.clone().unwrap_or_default();
    // The ruleset's own scripts come first; `base_scripts` counts them (variants' follow).
    let mut base_scripts = 0;
    for name in &script_names {
        match files.read(&mut sources, &dir.join(&name.value)) {
            Ok(file) => {
                fnv1a(&mut fingerprint, sources.text(file).as_bytes());
                scripts_text.push(file);
                base_scripts += 1;
            }
            Err(Error::NotText(d, _)) => diags.push(*d),
            Err(e) => diags.push(
                Diagnostic::new(format!("cannot read script `{}`: {}", name.value, io_reason(&e)))
                    .at(merged.game_file, name.span.clone())
                    .expected("a Rhai file relative to the ruleset folder"),
            ),
        }
    }
    // Variant scripts replace base functions of the same name: they are compiled after the base.
    for variant in &variants {
        let path = variant_file(dir, variant, "rhai");
        if !files.exists(&path) {
            continue;
        }
        match files.read(&mut sources, &path) {
            Ok(file) => {
                fnv1a(&mut fingerprint, sources.text(file).as_bytes());
                scripts_text.push(file);
            }
            Err(Error::NotText(d, _)) => diags.push(*d),
            Err(e) => diags.push(Diagnostic::new(format!("cannot read the script of variant `{variant}`: {e}"))),
        }
    }

    let mut loader = Loader {
        defs: Defs::default(),
        diags,
        merged: &merged,
        sources: &sources,
        pending_pieces: Vec::new(),
        unresolved: Vec::new(),
    };
    loader.defs.dir = dir.to_path_buf();
    loader.defs.id = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    loader.defs.variants = variants;
    loader.defs.overrides = options.overrides.clone();
    loader.defs.param_info = param_info;
    loader.defs.fingerprint = fingerprint;
    loader.resolve();
    let Loader { mut defs, diags, .. } = loader;
    if !diags.is_empty() {
        return Err(Error::Ruleset(diags, Box::default()).with_sources(sources));
    }
    defs.sources = sources;
    let defs = Rc::new(defs);
    let scripts = Scripts::compile(defs.clone(), &scripts_text, base_scripts)?;
    Ok(Rules { defs, scripts })
}

impl Error {
    /// Ruleset errors carry the file texts so that they can be rendered.
    fn with_sources(self, sources: Sources) -> Error {
        match self {
            Error::Ruleset(d, _) => Error::Ruleset(d, Box::new(sources)),
            other => other,
        }
    }
}

type Section<T> = IndexMap<String, (FileId, T)>;

/// The base file and its overlays merged: an overlay entry replaces the base entry of the same
/// name, `[game]` fields are replaced one by one, and edges are appended.
#[derive(Default)]
struct Merged {
    game: raw::RawGame,
    game_file: FileId,
    params: Section<Located<ParamValue>>,
    seats: Section<raw::RawSeat>,
    outcomes: Section<raw::RawOutcome>,
    components: Section<raw::RawComponent>,
    pieces: Section<raw::RawPiece>,
    zones: Section<raw::RawZone>,
    counters: Section<raw::RawCounter>,
    dice: Section<raw::RawDie>,
    edges: Vec<(FileId, raw::RawEdge)>,
    phases: Section<raw::RawPhase>,
    actions: Section<raw::RawAction>,
    timers: Section<raw::RawTimer>,
    agents: Section<raw::RawAgent>,
    layout: Option<(FileId, raw::RawLayout)>,
}

fn absorb_section<T>(into: &mut Section<T>, from: IndexMap<String, T>, file: FileId) {
    for (k, v) in from {
        into.insert(k, (file, v));
    }
}

impl Merged {
    fn absorb(&mut self, raw: RawRuleset, file: FileId) {
        if let Some(game) = raw.game {
            if self.game.name.is_none() && game.name.is_some() || game.start.is_some() || game.scripts.is_some() {
                self.game_file = file;
            }
            let g = &mut self.game;
            g.name = game.name.or(g.name.take());
            g.about = game.about.or(g.about.take());
            g.players = game.players.or(g.players.take());
            g.excluded_players = game.excluded_players.or(g.excluded_players.take());
            g.usual_players = game.usual_players.or(g.usual_players.take());
            g.scripts = game.scripts.or(g.scripts.take());
            g.start = game.start.or(g.start.take());
            g.pace = game.pace.or(g.pace.take());
            g.default_agent = game.default_agent.or(g.default_agent.take());
            g.evaluate = game.evaluate.or(g.evaluate.take());
            g.rounds = game.rounds.or(g.rounds.take());
        }
        absorb_section(&mut self.params, raw.params, file);
        absorb_section(&mut self.seats, raw.seats, file);
        absorb_section(&mut self.outcomes, raw.outcomes, file);
        absorb_section(&mut self.components, raw.components, file);
        absorb_section(&mut self.pieces, raw.pieces, file);
        absorb_section(&mut self.zones, raw.zones, file);
        absorb_section(&mut self.counters, raw.counters, file);
        absorb_section(&mut self.dice, raw.dice, file);
        self.edges.extend(raw.edges.into_iter().map(|e| (file, e)));
        absorb_section(&mut self.phases, raw.phases, file);
        absorb_section(&mut self.actions, raw.actions, file);
        absorb_section(&mut self.timers, raw.timers, file);
        absorb_section(&mut self.agents, raw.agents, file);
        if let Some(layout) = raw.layout {
            // An overlay's zones and kinds are drawn as it says, the others as the base says.
            let (_, base) = self.layout.get_or_insert_with(|| (file, raw::RawLayout::default()));
            base.zones.extend(layout.zones);
            base.pieces.extend(layout.pieces);
            base.grids.extend(layout.grids);
            base.counters = layout.counters.or(base.counters.take());
        }
    }
}

struct Loader<'m> {
    defs: Defs,
    diags: Vec<Diagnostic>,
    merged: &'m Merged,
    /// The files' texts, to find where a table is declared.
    sources: &'m Sources,
    /// Piece names written as property values, resolved once every piece exists.
    pending_pieces: Vec<(String, FileId, std::ops::Range<usize>)>,
    /// The same, with the pieces and property slot each applies to.
    #[allow(clippy::type_complexity)]
    unresolved: Vec<(std::ops::Range<usize>, usize, String, FileId, std::ops::Range<usize>)>,
}

/// Marks a piece-valued property whose piece name is not resolved yet.
const PENDING_PIECE: i64 = i64::MIN;

fn one_of(names: impl Iterator<Item = impl AsRef<str>>) -> String {
    let list: Vec<String> = names.map(|n| format!("`{}`", n.as_ref())).collect();
    if list.is_empty() { "nothing (none are declared)".to_string() } else { format!("one of {}", list.join(", ")) }
}

impl Loader<'_> {
    /// Where the key `name` of a `[layout]` table is written: its first mention after
    /// `[layout` (layout keys carry no span).
    fn layout_span(&self, file: FileId, name: &str) -> std::ops::Range<usize> {
        let text = self.sources.text(file);
        let after = text.find("[layout").unwrap_or(0);
        let at = text[after..].find(name).map_or(after, |i| after + i);
        at..at + name.len()
    }

    /// Whether `name` is a zone, or the base name of per-seat zones.
    fn is_zone_name(&self, name: &str) -> bool {
        self.defs.zone(name).is_some() || self.defs.zones.iter().any(|z| z.name.split('.').next() == Some(name))
    }

    /// An unknown name in `[layout]`: a diagnostic at `span` listing the names it may be.
    fn layout_unknown(
        &mut self,
        file: FileId,
        span: std::ops::Range<usize>,
        what: &str,
        name: &str,
        names: Vec<String>,
    ) {
        let (what, of) = what.split_once(' ').unwrap_or((what, ""));
        let of = if of.is_empty() { String::new() } else { format!(" {of}") };
        let d = Diagnostic::new(format!("[layout] names no {what} `{name}`{of}"))
            .at(file, span)
            .expected(format!("a {what}{of}: {}", names.join(", ")));
        self.push(d);
    }

    /// `[layout]` checked and resolved: every zone, kind, property and counter it names exists.
    fn resolve_layout(&mut self, file: FileId, layout: &raw::RawLayout) {
        let zone_names = |defs: &Defs| -> Vec<String> {
            let mut names: Vec<String> = Vec::new();
            for z in &defs.zones {
                let base = z.name.split('.').next().unwrap_or(&z.name).to_string();
                if !names.contains(&base) {
                    names.push(base);
                }
            }
            names
        };
        for (zone, how) in &layout.zones {
            if !self.is_zone_name(zone) {
                let span = self.layout_span(file, zone);
                self.layout_unknown(file, span, "zone", zone, zone_names(&self.defs));
            }
            self.defs.layout.zones.insert(zone.clone(), how.clone());
        }
        for (kind, how) in &layout.pieces {
            let Some(k) = self.defs.kinds.iter().position(|k| k.name == *kind) else {
                let span = self.layout_span(file, kind);
                let names = self.defs.kinds.iter().map(|k| k.name.clone()).collect();
                self.layout_unknown(file, span, "kind", kind, names);
                continue;
            };
            let mut prop = |name: &Option<Name>| -> Option<String> {
                let name = name.as_ref()?;
                let def = &self.defs.kinds[k];
                if def.prop(&name.value).is_none() {
                    let names = def.props.iter().map(|p| p.name.clone()).collect();
                    let what = format!("property of `{kind}`");
                    self.layout_unknown(file, name.span.clone(), &what, &name.value, names);
                }
                Some(name.value.clone())
            };
            let resolved = PieceLayout {
                shape: how.shape,
                label: prop(&how.label),
                colour: how.colour.clone(),
                colour_from: prop(&how.colour_from),
                colours: how.colours.clone(),
                on: prop(&how.on),
            };
            self.defs.layout.pieces.insert(kind.clone(), resolved);
        }
        for (zone, how) in &layout.grids {
            if !self.is_zone_name(zone) {
                let span = self.layout_span(file, zone);
                self.layout_unknown(file, span, "zone", zone, zone_names(&self.defs));
            }
            // A side or the rotation is a property of some kind of piece (a grid holds pieces
            // of the kinds its zone accepts, which may be any).
            let mut prop = |name: &Name| -> String {
                if !self.defs.kinds.iter().any(|k| k.prop(&name.value).is_some()) {
                    let mut names: Vec<String> = Vec::new();
                    for p in self.defs.kinds.iter().flat_map(|k| &k.props) {
                        if !names.contains(&p.name) {
                            names.push(p.name.clone());
                        }
                    }
                    self.layout_unknown(file, name.span.clone(), "property", &name.value, names);
                }
                name.value.clone()
            };
            let sides = how.sides.as_ref().map(|s| [prop(&s.north), prop(&s.east), prop(&s.south), prop(&s.west)]);
            let rotation = how.rotation.as_ref().map(&mut prop);
            self.defs.layout.grids.insert(zone.clone(), GridLayout { sides, rotation, y_up: how.y_up });
        }
        if let Some(counters) = &layout.counters {
            let mut shown = Vec::new();
            for c in counters {
                let known = self.defs.counter(&c.value).is_some()
                    || self.defs.counters.iter().any(|d| d.name.split('.').next() == Some(c.value.as_str()));
                if !known {
                    let mut names: Vec<String> = Vec::new();
                    for d in &self.defs.counters {
                        let base = d.name.split('.').next().unwrap_or(&d.name).to_string();
                        if !names.contains(&base) {
                            names.push(base);
                        }
                    }
                    self.layout_unknown(file, c.span.clone(), "counter", &c.value, names);
                }
                shown.push(c.value.clone());
            }
            self.defs.layout.counters = Some(shown);
        }
    }

    fn err(&mut self, file: FileId, span: std::ops::Range<usize>, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(message).at(file, span)
    }

    fn push(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    /// Where the entry `name` of a section is declared in a file: its `[section.name]` table,
    /// or a line `name = ...` or `name.key = ...` (the start of the file if neither is found).
    /// Tables are keyed by name in the TOML structures, which keep no span for keys.
    /// A name that is no bare TOML key is found quoted (`[seats."red team"]`).
    fn table_span(&self, file: FileId, section: &str, name: &str) -> std::ops::Range<usize> {
        let text = self.sources.text(file);
        let keys = [name.to_string(), format!("\"{name}\""), format!("'{name}'")];
        for key in &keys {
            let header = format!("[{section}.{key}]");
            if let Some(at) = text.find(&header) {
                return at..at + header.len();
            }
        }
        let mut offset = 0;
        for line in text.split_inclusive('\n') {
            let body = line.trim_start();
            for key in keys.iter().filter(|k| !k.is_empty()) {
                if let Some(rest) = body.strip_prefix(key.as_str())
                    && (rest.trim_start().starts_with('=') || rest.starts_with('.'))
                {
                    let at = offset + (line.len() - body.len());
                    return at..at + key.len();
                }
            }
            offset += line.len();
        }
        0..0
    }

    fn intern(&mut self, word: &str) -> SymId {
        if let Some(&id) = self.defs.symbol_index.get(word) {
            return id;
        }
        let id = self.defs.symbols.len() as SymId;
        self.defs.symbols.push(ImmutableString::from(word));
        self.defs.symbol_index.insert(word.to_string(), id);
        id
    }

    /// The id a name resolved to, or a diagnostic listing the names that exist (built only
    /// then: most names resolve).
    fn known<T>(
        &mut self,
        what: &str,
        found: Option<T>,
        name: &Name,
        file: FileId,
        names: impl Fn(&Defs) -> Vec<String>,
    ) -> Option<T> {
        if found.is_none() {
            let d = self
                .err(file, name.span.clone(), format!("unknown {what} `{}`", name.value))
                .expected(format!("a {what} name: {}", one_of(names(&self.defs).iter())))
                .found(format!("`{}`", name.value));
            self.push(d);
        }
        found
    }

    fn zone_ref(&mut self, name: &Name, file: FileId) -> Option<ZoneId> {
        let found = self.defs.zone(&name.value);
        self.known("zone", found, name, file, |d| d.zones.iter().map(|z| z.name.clone()).collect())
    }

    /// A zone a parameter's domain names: a zone, or a per-seat zone's family name for the
    /// acting seat's own.
    fn param_zone_ref(&mut self, name: &Name, file: FileId) -> Option<ZoneRef> {
        if let Some(&first) = self.defs.zone_families.get(&name.value) {
            return Some(ZoneRef::Own(first));
        }
        let found = self.defs.zone(&name.value);
        self.known("zone", found, name, file, |d| {
            let mut names: Vec<String> = d.zone_families.keys().cloned().collect();
            names.sort();
            names.extend(d.zones.iter().map(|z| z.name.clone()));
            names
        })
        .map(ZoneRef::Fixed)
    }

    fn seat_ref(&mut self, name: &Name, file: FileId) -> Option<SeatId> {
        let found = self.defs.seat(&name.value);
        self.known("seat", found, name, file, |d| d.seats.iter().map(|s| s.name.clone()).collect())
    }

    fn kind_ref(&mut self, name: &Name, file: FileId) -> Option<KindId> {
        let found = self.defs.kinds.iter().position(|k| k.name == name.value).map(|i| i as KindId);
        self.known("component kind", found, name, file, |d| d.kinds.iter().map(|k| k.name.clone()).collect())
    }

    fn action_ref(&mut self, name: &Name, file: FileId) -> Option<ActionId> {
        let found = self.defs.action(&name.value);
        self.known("action", found, name, file, |d| d.actions.iter().map(|a| a.name.clone()).collect())
    }

    fn phase_ref(&mut self, name: &Name, file: FileId) -> Option<PhaseId> {
        let found = self.defs.phase(&name.value);
        let names: Vec<String> = self.merged.phases.keys().cloned().collect();
        self.known("phase", found, name, file, move |_| names.clone())
    }

    fn hook(&mut self, name: &Name, file: FileId, arity: usize) -> HookId {
        if let Some(i) = self.defs.hooks.iter().position(|h| h.name == name.value && h.arity == arity) {
            return i as HookId;
        }
        self.defs.hooks.push(HookDef { name: name.value.clone(), arity, file, span: name.span.clone() });
        (self.defs.hooks.len() - 1) as HookId
    }

    /// An integer written in place or through a parameter.
    fn int(&mut self, v: &IntOrParam, file: FileId, span: &std::ops::Range<usize>) -> Option<i64> {
        match v {
            IntOrParam::Int(i) => Some(*i),
            IntOrParam::Param(p) => match self.merged.params.get(p) {
                Some((_, Located { value: ParamValue::Int(i), .. })) => Some(*i),
                Some(_) => {
                    let d = self
                        .err(file, span.clone(), format!("parameter `{p}` is not an integer"))
                        .expected("an integer parameter");
                    self.push(d);
                    None
                }
                None => {
                    let names = self.merged.params.keys();
                    let d = self
                        .err(file, span.clone(), format!("unknown parameter `{p}`"))
                        .expected(format!("an integer or a parameter name: {}", one_of(names)))
                        .found(format!("`{p}`"));
                    self.push(d);
                    None
                }
            },
        }
    }

    fn resolve(&mut self) {
        let m = self.merged;
        let gf = m.game_file;
        self.defs.name = m.game.name.clone().unwrap_or_default();
        self.defs.about = m.game.about.clone().unwrap_or_default();
        if m.game.name.is_none() {
            let d = Diagnostic::new("`[game]` needs a `name`").at(gf, 0..0).expected("name = \"...\" in [game]");
            self.push(d);
        }

        // Parameters first: other sections may name them.
        for (name, (_, value)) in &m.params {
            self.defs.params.insert(name.clone(), value.value.clone());
            let dynamic = self.param_dynamic(&value.value);
            self.defs.param_values.insert(name.clone(), dynamic);
        }

        let mut rules_seat_seen: Option<&str> = None;
        for (i, (name, (file, seat))) in m.seats.iter().enumerate() {
            let by_rules = match &seat.played_by {
                None => false,
                Some(p) if p.value == "players" => false,
                Some(p) if p.value == "rules" => true,
                Some(p) => {
                    let d = self
                        .err(*file, p.span.clone(), format!("seat `{name}`: unknown `played_by = \"{}\"`", p.value))
                        .expected("`\"players\"` (a person or an agent) or `\"rules\"` (the rules move it)");
                    self.push(d);
                    false
                }
            };
            // The first `players` seats are the players': a seat the rules move comes after them.
            match (by_rules, rules_seat_seen) {
                (true, _) => rules_seat_seen = Some(name),
                (false, Some(before)) => {
                    let span = self.table_span(*file, "seats", name);
                    let d = self
                        .err(
                            *file,
                            span,
                            format!("seat `{name}` is declared after `{before}`, a seat played by the rules"),
                        )
                        .expected("the seats played by the rules declared last, after every player's seat");
                    self.push(d);
                }
                (false, None) => {}
            }
            if let (Some(p), false) = (&seat.players, by_rules) {
                let d = self
                    .err(*file, p.span.clone(), format!("seat `{name}`: `players` is for seats played by the rules"))
                    .expected("`played_by = \"rules\"` beside it, or no `players` (a player's seat is in play when its place in the order is within the player count)");
                self.push(d);
            }
            let joins = seat.players.as_ref().map(|p| p.value.clone()).unwrap_or_default();
            self.defs.seats.push(SeatDef { name: name.clone(), team: seat.team.clone(), by_rules, joins });
            self.defs.seat_index.insert(name.clone(), i as SeatId);
            self.defs.seat_names.push(name.as_str().into());
        }
        if m.seats.is_empty() {
            let d = Diagnostic::new("the ruleset declares no seats")
                .at(gf, 0..0)
                .expected("at least one [seats.<role>] table");
            self.push(d);
        }
        if m.seats.len() > 32 {
            let d = Diagnostic::new("at most 32 seats are supported").at(gf, 0..0);
            self.push(d);
        }
        // Player counts count the players' seats; the seats the rules move join on their own.
        let seat_count = self.defs.seats.iter().filter(|s| !s.by_rules).count() as u8;
        self.defs.players = match &m.game.players {
            Some(Located { value: raw::Players::Exactly(n), .. }) => (*n, *n),
            Some(Located { value: raw::Players::Range([a, b]), .. }) => (*a, *b),
            None => (seat_count, seat_count),
        };
        if let Some(p) = &m.game.players
            && (self.defs.players.0 == 0
                || self.defs.players.0 > self.defs.players.1
                || self.defs.players.1 > seat_count)
        {
            let d = self
                .err(gf, p.span.clone(), "player count out of range")
                .expected(format!("between 1 and the {seat_count} declared seats"));
            self.push(d);
        }
        for (name, (file, seat)) in &m.seats {
            let (lo, hi) = self.defs.players;
            if let Some(p) = &seat.players
                && p.value.iter().any(|&n| n < lo || n > hi)
            {
                let d = self
                    .err(*file, p.span.clone(), format!("seat `{name}` joins a player count the game does not have"))
                    .expected(format!("player counts from {lo} to {hi}"));
                self.push(d);
            }
        }

        if let Some(excluded) = &m.game.excluded_players {
            let (lo, hi) = self.defs.players;
            if excluded.value.iter().any(|&n| n < lo || n > hi) || (lo..=hi).all(|n| excluded.value.contains(&n)) {
                let d = self
                    .err(gf, excluded.span.clone(), "excluded player counts must lie within `players` and leave one")
                    .expected(format!("counts from {lo} to {hi}, not all of them"));
                self.push(d);
            }
            self.defs.excluded_players = excluded.value.clone();
        }
        let (lo, hi) = self.defs.players;
        let allowed: Vec<u8> = (lo..=hi).filter(|n| !self.defs.excluded_players.contains(n)).collect();
        self.defs.usual_players = allowed.first().copied().unwrap_or(lo);
        if let Some(usual) = &m.game.usual_players {
            if allowed.contains(&usual.value) {
                self.defs.usual_players = usual.value;
            } else {
                let counts: Vec<String> = allowed.iter().map(|n| n.to_string()).collect();
                let d = self
                    .err(gf, usual.span.clone(), "the usual player count is not one the game allows")
                    .expected(format!("one of {}", counts.join(", ")))
                    .found(usual.value.to_string());
                self.push(d);
            }
        }

        for (i, (name, (file, o))) in m.outcomes.iter().enumerate() {
            let winners: Vec<SeatId> = o.winners.iter().filter_map(|w| self.seat_ref(w, *file)).collect();
            let kind = match o.kind.as_ref().map(|k| k.value.as_str()) {
                None if winners.is_empty() => OutcomeKind::Draw,
                None | Some("win") => OutcomeKind::Win,
                Some("draw") => OutcomeKind::Draw,
                Some("loss") => OutcomeKind::Loss,
                Some("bound") => OutcomeKind::Bound,
                Some(other) => {
                    let span = o.kind.as_ref().map(|k| k.span.clone()).unwrap_or_default();
                    let d = self
                        .err(*file, span, format!("unknown kind of outcome `{other}`"))
                        .expected("one of `win`, `draw`, `loss`, `bound`")
                        .found(format!("`{other}`"));
                    self.push(d);
                    OutcomeKind::Draw
                }
            };
            self.defs.outcomes.push(OutcomeDef {
                name: name.clone(),
                winners,
                description: o.description.clone().unwrap_or_default(),
                kind,
            });
            self.defs.outcome_index.insert(name.clone(), i as u16);
        }

        for (name, (file, die)) in &m.dice {
            let mut faces = Vec::new();
            let all_int = die.faces.value.iter().all(|f| matches!(f, ParamValue::Int(_)));
            for f in &die.faces.value {
                match f {
                    ParamValue::Int(i) if all_int => faces.push(*i),
                    ParamValue::Text(t) if !all_int => faces.push(i64::from(self.intern(t))),
                    _ => {
                        let d = self
                            .err(*file, die.faces.span.clone(), format!("die `{name}` mixes numbers and words"))
                            .expected("faces that are all numbers or all words");
                        self.push(d);
                    }
                }
            }
            if faces.is_empty() {
                let d = self.err(*file, die.faces.span.clone(), format!("die `{name}` has no faces"));
                self.push(d);
            }
            self.defs.dice.push(DieDef { name: name.clone(), faces });
        }

        self.resolve_kinds();
        self.resolve_zones();
        self.resolve_pieces();
        self.resolve_counters();
        if let Some((file, layout)) = &m.layout {
            self.resolve_layout(*file, layout);
        }
        if let Some(rounds) = &m.game.rounds {
            let found = self.defs.counter(&rounds.value);
            self.defs.rounds =
                self.known("counter", found, rounds, gf, |d| d.counters.iter().map(|c| c.name.clone()).collect());
        }
        for (file, e) in &m.edges {
            let (from, to) = (self.zone_ref(&e.from, *file), self.zone_ref(&e.to, *file));
            if let (Some(from), Some(to)) = (from, to) {
                self.defs.edges.push(EdgeDef { from, to, one_way: e.one_way, kind: e.kind.as_deref().map(Into::into) });
            }
        }
        self.defs.index_edges();
        for (i, name) in m.phases.keys().enumerate() {
            self.defs.phase_index.insert(name.clone(), i as PhaseId);
            self.defs.phase_names.push(name.as_str().into());
        }
        self.resolve_actions();
        self.resolve_phases();
        for (name, (file, t)) in &m.timers {
            let at = self.int(&t.at.value, *file, &t.at.span).unwrap_or(0);
            let hook = self.hook(&t.hook, *file, 1);
            self.defs.timers.push(TimerDef { name: name.clone(), at, hook });
        }
        self.defs.timers.sort_by_key(|t| t.at);
        self.defs.pace = m.game.pace.as_ref().and_then(|p| self.int(&p.value, gf, &p.span));
        if let (Some(p), Some(pace)) = (&m.game.pace, self.defs.pace)
            && pace <= 0
        {
            let d = self
                .err(gf, p.span.clone(), "the pace must be positive")
                .expected("game time in milliseconds, above 0");
            self.push(d);
        }
        for (name, (file, a)) in &m.agents {
            let decides = match (&a.choose, &a.act) {
                (Some(choose), None) => AgentHook::Choose(self.hook(choose, *file, 2)),
                (None, Some(act)) => AgentHook::Act(self.hook(act, *file, 1)),
                (Some(_), Some(act)) => {
                    let d = self
                        .err(*file, act.span.clone(), format!("agent `{name}` has both `choose` and `act`"))
                        .expected("one of them: `choose` picks from the listed options, `act` returns an action");
                    self.push(d);
                    continue;
                }
                (None, None) => {
                    let d = Diagnostic::new(format!("agent `{name}` needs `choose` or `act`"))
                        .at(*file, self.table_span(*file, "agents", name))
                        .expected("`choose = \"fn\"` (picks from the options) or `act = \"fn\"` (returns an action)");
                    self.push(d);
                    continue;
                }
            };
            self.defs.agents.push(AgentDef { name: name.clone(), decides });
        }
        self.defs.evaluate = m.game.evaluate.as_ref().map(|f| self.hook(f, gf, 1));
        self.defs.default_agent = "random".into();
        if let Some(agent) = &m.game.default_agent {
            if agent.value == "random" || m.agents.contains_key(&agent.value) {
                self.defs.default_agent = agent.value.clone();
            } else {
                let names = std::iter::once("random".to_string()).chain(m.agents.keys().cloned());
                let d = self
                    .err(gf, agent.span.clone(), format!("unknown agent `{}`", agent.value))
                    .expected(format!("an agent: {}", one_of(names)));
                self.push(d);
            }
        }
        match &m.game.start {
            Some(start) => self.defs.start = self.phase_ref(start, gf).unwrap_or(0),
            None => {
                let d = Diagnostic::new("`[game]` needs a `start` phase")
                    .at(gf, 0..0)
                    .expected("start = \"<phase>\" in [game]");
                self.push(d);
            }
        }
        if m.phases.is_empty() {
            let d = Diagnostic::new("the ruleset declares no phases")
                .at(gf, 0..0)
                .expected("at least one [phases.<name>] table");
            self.push(d);
        }
        self.check_log_words();
    }

    /// Refuses names that a log could not write back as one word: a game with a seat `my seat`
    /// or a word `[x]` would play, then write logs that replay refuses.
    fn check_log_words(&mut self) {
        let m = self.merged;
        fn entries<T>(section: &'static str, s: &Section<T>) -> impl Iterator<Item = (&'static str, String, FileId)> {
            s.iter().map(move |(name, (file, _))| (section, name.clone(), *file))
        }
        let names: Vec<(&str, String, FileId)> = entries("seats", &m.seats)
            .chain(entries("actions", &m.actions))
            .chain(entries("pieces", &m.pieces))
            .chain(entries("zones", &m.zones))
            .chain(entries("outcomes", &m.outcomes))
            .collect();
        for (section, name, file) in names {
            if !crate::event::is_log_word(&name) {
                let span = self.table_span(file, section, &name);
                let d = self
                    .err(file, span, format!("the name `{name}` in [{section}] cannot be written in a log"))
                    .expected("a name of letters, digits, `_`, `-` or `.` (`my_seat` rather than `my seat`)")
                    .found(format!("`{name}`"));
                self.push(d);
            }
        }
        // Words (of properties, parameters and dice) keep no span: the diagnostic points at the
        // first quoted mention in the ruleset's files.
        let words: Vec<String> =
            self.defs.symbols.iter().filter(|w| !crate::event::is_log_word(w)).map(|w| w.to_string()).collect();
        for word in words {
            let quoted = format!("\"{word}\"");
            let (file, at) = self
                .sources
                .ids()
                .find_map(|f| self.sources.text(f).find(&quoted).map(|at| (f, at)))
                .unwrap_or((m.game_file, 0));
            let d = self
                .err(file, at..at + quoted.len(), format!("the word `{word}` cannot be written in a log"))
                .expected("a word of letters, digits, `_`, `-` or `.` (`dark_red` rather than `dark red`)")
                .found(quoted);
            self.push(d);
        }
    }

    fn param_dynamic(&mut self, v: &ParamValue) -> Dynamic {
        match v {
            ParamValue::Int(i) => Dynamic::from_int(*i),
            ParamValue::Text(t) => Dynamic::from(ImmutableString::from(t.as_str())),
            ParamValue::List(items) => Dynamic::from_array(items.iter().map(|i| self.param_dynamic(i)).collect()),
            ParamValue::Table(t) => {
                let mut map = rhai::Map::new();
                for (k, v) in t {
                    map.insert(k.as_str().into(), self.param_dynamic(v));
                }
                Dynamic::from_map(map)
            }
        }
    }

    fn resolve_kinds(&mut self) {
        let m = self.merged;
        for (name, _) in m.components.iter() {
            self.defs.kinds.push(KindDef::new(name.clone(), Vec::new(), None));
            self.defs.kind_names.push(name.as_str().into());
        }
        for (k, (name, (file, c))) in m.components.iter().enumerate() {
            let mut props = Vec::new();
            for (pname, prop) in &c.props {
                let p = &prop.value;
                let given = [p.one_of.is_some(), p.range.is_some(), p.piece.is_some()].iter().filter(|b| **b).count();
                if given != 1 {
                    let d = self
                        .err(
                            *file,
                            prop.span.clone(),
                            format!("property `{pname}` of `{name}` needs exactly one domain"),
                        )
                        .expected("one of `one_of = [...]`, `range = [min, max]` or `piece = \"<kind>\"`");
                    self.push(d);
                    continue;
                }
                let kind = if let Some(words) = &p.one_of {
                    PropKind::Word(words.iter().map(|w| self.intern(w)).collect())
                } else if let Some([lo, hi]) = &p.range {
                    let lo = self.int(lo, *file, &prop.span).unwrap_or(0);
                    let hi = self.int(hi, *file, &prop.span).unwrap_or(0);
                    if lo > hi {
                        let d = self
                            .err(
                                *file,
                                prop.span.clone(),
                                format!("property `{pname}` of `{name}` has min {lo} above max {hi}"),
                            )
                            .expected("[min, max] with min <= max");
                        self.push(d);
                    }
                    PropKind::Int(lo, hi.max(lo))
                } else {
                    let piece_kind = p.piece.clone().unwrap_or_default();
                    let kname = Located { value: piece_kind, span: prop.span.clone() };
                    PropKind::Piece(self.kind_ref(&kname, *file).unwrap_or(0))
                };
                let initial = match &p.initial {
                    None => match &kind {
                        PropKind::Word(w) => w.first().map(|&s| i64::from(s)).unwrap_or(0),
                        PropKind::Int(lo, _) => *lo,
                        PropKind::Piece(_) => -1,
                    },
                    Some(v) => self.prop_value(&kind, v, *file, &prop.span, pname),
                };
                props.push(PropDef { name: pname.clone(), kind, initial, shown: p.shown.unwrap_or(true) });
            }
            if let Some(die) = &c.die {
                match self.defs.dice.iter().position(|d| d.name == die.value) {
                    Some(i) => {
                        let faces = &self.defs.dice[i].faces;
                        let is_word = !m.dice[i].1.faces.value.iter().all(|f| matches!(f, ParamValue::Int(_)));
                        let kind = if is_word {
                            let mut words: Vec<SymId> = faces.iter().map(|&f| f as SymId).collect();
                            words.dedup();
                            PropKind::Word(words)
                        } else {
                            PropKind::Int(
                                faces.iter().copied().min().unwrap_or(0),
                                faces.iter().copied().max().unwrap_or(0),
                            )
                        };
                        let initial = faces.first().copied().unwrap_or(0);
                        props.push(PropDef { name: "face".into(), kind, initial, shown: true });
                        self.defs.kinds[k].die = Some(i);
                    }
                    None => {
                        let names: Vec<String> = self.defs.dice.iter().map(|d| d.name.clone()).collect();
                        let d = self
                            .err(*file, die.span.clone(), format!("unknown die `{}`", die.value))
                            .expected(format!("a die name: {}", one_of(names.iter())));
                        self.push(d);
                    }
                }
            }
            self.defs.kinds[k].set_props(props);
        }
    }

    /// Encodes a written property value for a property of the given domain.
    fn prop_value(
        &mut self,
        kind: &PropKind,
        v: &ParamValue,
        file: FileId,
        span: &std::ops::Range<usize>,
        prop: &str,
    ) -> i64 {
        let ok = match (kind, v) {
            (PropKind::Word(words), ParamValue::Text(t)) => {
                self.defs.symbol_index.get(t).filter(|s| words.contains(s)).map(|&s| i64::from(s))
            }
            (PropKind::Int(lo, hi), ParamValue::Int(i)) if (lo..=hi).contains(&i) => Some(*i),
            (PropKind::Piece(_), ParamValue::Text(t)) => {
                // Pieces may name pieces declared later: the name is resolved once all exist.
                self.pending_pieces.push((t.clone(), file, span.clone()));
                Some(PENDING_PIECE)
            }
            _ => None,
        };
        match ok {
            Some(v) => v,
            None => {
                let expected = match kind {
                    PropKind::Word(words) => one_of(words.iter().map(|w| self.defs.symbols[*w as usize].to_string())),
                    PropKind::Int(lo, hi) => format!("an integer from {lo} to {hi}"),
                    PropKind::Piece(_) => "the name of a piece".to_string(),
                };
                let d = self
                    .err(file, span.clone(), format!("bad value for property `{prop}`"))
                    .expected(expected)
                    .found(super::params::show_value(v));
                self.push(d);
                0
            }
        }
    }

    fn resolve_zones(&mut self) {
        let m = self.merged;
        // Names first (per-seat zones expand to one per seat), so zones can refer to each other.
        let mut expanded: Vec<(String, Option<SeatId>, usize)> = Vec::new();
        for (i, (name, (_, z))) in m.zones.iter().enumerate() {
            if z.per_seat {
                for (s, seat) in self.defs.seats.iter().enumerate() {
                    expanded.push((format!("{name}.{}", seat.name), Some(s as SeatId), i));
                }
            } else {
                expanded.push((name.clone(), None, i));
            }
        }
        for (id, (name, seat, i)) in expanded.iter().enumerate() {
            self.defs.zone_index.insert(name.clone(), id as ZoneId);
            self.defs.zone_names.push(name.as_str().into());
            if *seat == Some(0) {
                let (family, _) = m.zones.get_index(*i).expect("index from enumerate");
                self.defs.zone_families.insert(family.clone(), id as ZoneId);
            }
        }
        for (name, seat, i) in &expanded {
            let (_, (file, z)) = m.zones.get_index(*i).expect("index from enumerate");
            let owner = match (seat, &z.owner) {
                (Some(s), _) => Some(*s),
                (None, Some(o)) => self.seat_ref(o, *file),
                (None, None) => None,
            };
            let capacity =
                z.capacity.as_ref().and_then(|c| self.int(&c.value, *file, &c.span)).and_then(
                    |c| match u32::try_from(c) {
                        Ok(c) => Some(c),
                        Err(_) => {
                            let d = self
                                .err(
                                    *file,
                                    z.capacity.as_ref().map(|c| c.span.clone()).unwrap_or_default(),
                                    format!("capacity {c} is out of range"),
                                )
                                .expected(format!("a number of pieces from 0 to {}", u32::MAX))
                                .found(c.to_string());
                            self.push(d);
                            None
                        }
                    },
                );
            let accepts = z.accepts.as_ref().map(|list| list.iter().filter_map(|k| self.kind_ref(k, *file)).collect());
            let enter_from =
                z.enter_from.as_ref().map(|list| list.iter().filter_map(|n| self.zone_ref(n, *file)).collect());
            self.defs.zones.push(ZoneDef {
                name: name.clone(),
                owner,
                ordered: z.ordered,
                capacity,
                accepts,
                enter_from,
                face: z.face,
                owner_sees: z.owner_sees,
                others_see: z.others_see,
                shown: z.shown.unwrap_or(true),
            });
        }
        if self.defs.zones.len() > usize::from(u16::MAX) {
            let d = Diagnostic::new("too many zones").at(m.game_file, 0..0);
            self.push(d);
        }
    }

    fn resolve_pieces(&mut self) {
        let m = self.merged;
        let mut prop_base = 0usize;
        for (name, (file, p)) in &m.pieces {
            let Some(kind_name) = &p.kind else {
                let d = Diagnostic::new(format!("piece `{name}` needs a `type`"))
                    .at(*file, self.table_span(*file, "pieces", name))
                    .expected("type = \"<component kind>\"");
                self.push(d);
                continue;
            };
            let Some(zone_name) = &p.zone else {
                let d = self
                    .err(*file, kind_name.span.clone(), format!("piece `{name}` needs a starting `zone`"))
                    .expected("zone = \"<zone>\"");
                self.push(d);
                continue;
            };
            let (Some(kind), Some(zone)) = (self.kind_ref(kind_name, *file), self.zone_ref(zone_name, *file)) else {
                continue;
            };
            let count = match &p.count {
                Some(c) => {
                    let n = self.int(&c.value, *file, &c.span).unwrap_or(1);
                    if !(0..=MAX_PIECE_COUNT).contains(&n) {
                        let d = self
                            .err(*file, c.span.clone(), format!("piece `{name}` has a count out of range"))
                            .expected(format!("a count from 0 to {MAX_PIECE_COUNT}"))
                            .found(n.to_string());
                        self.push(d);
                    }
                    n.clamp(0, MAX_PIECE_COUNT)
                }
                None => 1,
            };
            let kind_def = self.defs.kinds[kind as usize].clone();
            let mut props: Vec<i64> = kind_def.props.iter().map(|p| p.initial).collect();
            for (pname, value) in &p.props {
                match kind_def.prop(pname) {
                    Some(slot) => {
                        props[slot] =
                            self.prop_value(&kind_def.props[slot].kind, &value.value, *file, &value.span, pname)
                    }
                    None => {
                        let d = self
                            .err(*file, value.span.clone(), format!("`{}` has no property `{pname}`", kind_def.name))
                            .expected(format!(
                                "a property of `{}`: {}",
                                kind_def.name,
                                one_of(kind_def.props.iter().map(|p| &p.name))
                            ));
                        self.push(d);
                    }
                }
            }
            let face_up = p.face_up.unwrap_or(self.defs.zones[zone as usize].face != Facing::Down);
            let first = self.defs.pieces.len();
            let written: Vec<_> = std::mem::take(&mut self.pending_pieces);
            let pending_slots = props.iter().enumerate().filter(|(_, v)| **v == PENDING_PIECE).map(|(i, _)| i);
            for (slot, (pname, pfile, pspan)) in pending_slots.zip(written) {
                self.unresolved.push((first..first + count as usize, slot, pname, pfile, pspan));
            }
            for n in 0..count {
                let piece_name = if p.count.is_some() { format!("{name}_{}", n + 1) } else { name.clone() };
                let id = self.defs.pieces.len();
                if id >= usize::from(u16::MAX) {
                    let d = Diagnostic::new("too many pieces").at(*file, 0..0);
                    self.push(d);
                    return;
                }
                self.defs.piece_index.insert(piece_name.clone(), id as PieceId);
                self.defs.piece_names.push(piece_name.as_str().into());
                self.defs.pieces.push(PieceDef {
                    name: piece_name,
                    kind,
                    zone,
                    props: props.clone(),
                    prop_base,
                    face_up,
                });
                prop_base += props.len();
            }
        }
        self.defs.prop_slots = prop_base;
        // Piece-valued properties were written as names; now every piece has an id.
        for (pieces, slot, name, file, span) in std::mem::take(&mut self.unresolved) {
            let id = match self.defs.piece_index.get(&name) {
                Some(&id) => i64::from(id),
                None => {
                    let names: Vec<String> = self.defs.pieces.iter().map(|p| p.name.clone()).collect();
                    let d = self
                        .err(file, span, format!("unknown piece `{name}`"))
                        .expected(format!("a piece name: {}", one_of(names.iter())));
                    self.push(d);
                    -1
                }
            };
            for p in pieces {
                self.defs.pieces[p].props[slot] = id;
            }
        }
    }

    fn resolve_counters(&mut self) {
        let m = self.merged;
        for (name, (file, c)) in &m.counters {
            let lo = self.int(&c.range.value[0], *file, &c.range.span).unwrap_or(0);
            let hi = self.int(&c.range.value[1], *file, &c.range.span).unwrap_or(0);
            if lo > hi {
                let d = self.err(*file, c.range.span.clone(), format!("counter `{name}` has min {lo} above max {hi}"));
                self.push(d);
            }
            let initial = match &c.initial {
                Some(i) => {
                    let v = self.int(&i.value, *file, &i.span).unwrap_or(lo);
                    if !(lo..=hi).contains(&v) {
                        let d = self
                            .err(*file, i.span.clone(), format!("counter `{name}` starts outside its range"))
                            .expected(format!("a value from {lo} to {hi}"))
                            .found(v.to_string());
                        self.push(d);
                    }
                    v
                }
                None => lo,
            };
            let owners: Vec<(String, Option<SeatId>)> = if c.per_seat {
                self.defs
                    .seats
                    .iter()
                    .enumerate()
                    .map(|(s, seat)| (format!("{name}.{}", seat.name), Some(s as SeatId)))
                    .collect()
            } else {
                vec![(name.clone(), None)]
            };
            for (cname, owner) in owners {
                self.defs.counter_index.insert(cname.clone(), self.defs.counters.len() as CounterId);
                self.defs.counters.push(CounterDef {
                    name: cname,
                    min: lo,
                    max: hi,
                    initial,
                    owner,
                    visible: c.visible,
                    shown: c.shown.unwrap_or(true),
                });
            }
        }
    }

    fn resolve_actions(&mut self) {
        let m = self.merged;
        for (i, name) in m.actions.keys().enumerate() {
            self.defs.action_index.insert(name.clone(), i as ActionId);
        }
        for (name, (file, a)) in &m.actions {
            let file = *file;
            let mut params = Vec::new();
            for p in &a.params {
                let given = [
                    p.piece.is_some() || p.pieces.is_some(),
                    p.zone.is_some(),
                    p.one_of.is_some(),
                    p.range.is_some(),
                    p.seat,
                ]
                .iter()
                .filter(|b| **b)
                .count();
                if given != 1 {
                    let d = self
                        .err(
                            file,
                            p.name.span.clone(),
                            format!("parameter `{}` of action `{name}` needs exactly one domain", p.name.value),
                        )
                        .expected("one of `piece` (or `pieces`), `zone`, `one_of`, `range` or `seat = true`");
                    self.push(d);
                    continue;
                }
                if (p.set || p.size.is_some()) && p.piece.is_none() && p.pieces.is_none() {
                    let d = self
                        .err(
                            file,
                            p.name.span.clone(),
                            format!("parameter `{}` of action `{name}`: only pieces make a set", p.name.value),
                        )
                        .expected("`set = true` (and `size`) beside `piece` or `pieces`");
                    self.push(d);
                    continue;
                }
                let domain = if p.piece.is_some() || p.pieces.is_some() {
                    let within =
                        p.within.as_ref().map(|zs| zs.iter().filter_map(|z| self.param_zone_ref(z, file)).collect());
                    let names: Vec<Name> = p.piece.iter().chain(p.pieces.iter().flatten()).cloned().collect();
                    let kinds: Vec<KindId> = names.iter().filter_map(|k| self.kind_ref(k, file)).collect();
                    if p.set || p.size.is_some() {
                        Domain::Set(self.set_domain(p, kinds, within, name, file))
                    } else {
                        Domain::Piece(kinds, within)
                    }
                } else if let Some(zones) = &p.zone {
                    Domain::Zone(zones.iter().filter_map(|z| self.param_zone_ref(z, file)).collect())
                } else if let Some(words) = &p.one_of {
                    Domain::Word(words.iter().map(|w| self.intern(w)).collect())
                } else if let Some([lo, hi]) = &p.range {
                    let span = p.name.span.clone();
                    let (lo, hi) = (self.int(lo, file, &span).unwrap_or(0), self.int(hi, file, &span).unwrap_or(0));
                    // Legal actions list every value: the range must be short enough to list.
                    if !hi.checked_sub(lo).is_some_and(|width| (0..MAX_INT_DOMAIN).contains(&width)) {
                        let d = self
                            .err(
                                file,
                                span.clone(),
                                format!("parameter `{}` of action `{name}` has an unusable range", p.name.value),
                            )
                            .expected(format!("[min, max] with min <= max, at most {MAX_INT_DOMAIN} values"))
                            .found(format!("[{lo}, {hi}]"));
                        self.push(d);
                    }
                    Domain::Int(lo, hi)
                } else {
                    Domain::Seat
                };
                let pieces = match &domain {
                    Domain::Piece(kinds, _) => self.pieces_of_kinds(kinds),
                    _ => Vec::new(),
                };
                params.push(ParamDef { name: p.name.value.clone(), domain, pieces });
            }
            // A set is written as its pieces, as many as it holds: only the last word of a line
            // can run on like that.
            if let Some(p) = a.params.iter().rev().skip(1).find(|p| p.set || p.size.is_some()) {
                let d = self
                    .err(
                        file,
                        p.name.span.clone(),
                        format!("set parameter `{}` of action `{name}` is not the last", p.name.value),
                    )
                    .expected(
                        "the set parameter last, since a log writes its pieces one word each at the end of the line",
                    );
                self.push(d);
            }
            if let Some(extra) = a.params.get(MAX_PARAMS) {
                let d = Diagnostic::new(format!("action `{name}` has more than {MAX_PARAMS} parameters"))
                    .at(file, extra.name.span.clone())
                    .expected(format!("at most {MAX_PARAMS} parameters"));
                self.push(d);
            }
            let param_index = |n: &Name| params.iter().position(|p| p.name == n.value);
            let mut effect = Effect::default();
            if let Some(e) = &a.effect {
                match (&e.move_piece, &e.to) {
                    (Some(piece), Some(to)) => match (param_index(piece), param_index(to)) {
                        (Some(pi), Some(zi))
                            if matches!(params[pi].domain, Domain::Piece(..))
                                && matches!(params[zi].domain, Domain::Zone(_)) =>
                        {
                            effect.moves = Some((pi, zi))
                        }
                        _ => {
                            let d = self
                                .err(
                                    file,
                                    piece.span.start..to.span.end,
                                    format!("effect of `{name}` must move a piece parameter to a zone parameter"),
                                )
                                .expected(format!(
                                    "parameter names of `{name}`: {}",
                                    one_of(params.iter().map(|p| &p.name))
                                ));
                            self.push(d);
                        }
                    },
                    (None, None) => {}
                    (Some(n), None) | (None, Some(n)) => {
                        let d = self
                            .err(file, n.span.clone(), "`move` and `to` go together")
                            .expected("move = \"<piece param>\", to = \"<zone param>\"");
                        self.push(d);
                    }
                }
                if let Some([piece, prop, value]) = &e.set {
                    match (param_index(piece), param_index(value)) {
                        (Some(pi), Some(vi))
                            if matches!(params[pi].domain, Domain::Piece(..))
                                && !matches!(params[vi].domain, Domain::Set(_)) =>
                        {
                            effect.sets = Some((pi, prop.value.clone(), vi))
                        }
                        _ => {
                            let d = self
                                .err(
                                    file,
                                    piece.span.start..value.span.end,
                                    format!(
                                        "effect of `{name}` must set a property of a piece parameter from a parameter"
                                    ),
                                )
                                .expected(format!(
                                    "parameter names of `{name}`: {}",
                                    one_of(params.iter().map(|p| &p.name))
                                ));
                            self.push(d);
                        }
                    }
                }
            }
            let legal = a.legal.as_ref().map(|h| self.hook(h, file, 2));
            let options = a.options.as_ref().map(|h| self.hook(h, file, 2));
            let apply = a.apply.as_ref().map(|h| self.hook(h, file, 2));
            let time = a.time.as_ref().and_then(|t| self.int(&t.value, file, &t.span)).map(|t| t.max(0));
            self.defs.actions.push(ActionDef {
                name: name.clone(),
                params,
                effect,
                legal,
                options,
                apply,
                secret: a.secret,
                time,
                description: a.description.clone().unwrap_or_default(),
            });
        }
    }

    /// What an `ask` opens prompts for: each piece of its `each` zones, bound to the action's
    /// first piece parameter, or, without `each`, a single prompt (`None`). `Err` once reported.
    fn ask_each(&mut self, a: &raw::RawAsk, action: ActionId, file: FileId) -> Result<Option<EachPiece>, ()> {
        let Some(zones) = &a.each else { return Ok(None) };
        let zones: Vec<ZoneId> = zones.iter().filter_map(|z| self.zone_ref(z, file)).collect();
        let params = &self.defs.actions[action as usize].params;
        if let Some(param) = params.iter().position(|p| matches!(p.domain, Domain::Piece(..))) {
            return Ok(Some(EachPiece { param, zones }));
        }
        let d = self
            .err(
                file,
                a.action.span.clone(),
                format!("`ask` with `each` needs action `{}` to take a piece parameter", a.action.value),
            )
            .expected("an action with a piece parameter, or an `ask` without `each` (a single prompt)");
        self.push(d);
        Err(())
    }

    /// Every piece of `kinds`, in id order: a piece parameter's candidates, a set's universe.
    fn pieces_of_kinds(&self, kinds: &[KindId]) -> Vec<PieceId> {
        (0..self.defs.pieces.len() as PieceId).filter(|&p| kinds.contains(&self.defs.pieces[p as usize].kind)).collect()
    }

    /// The domain of a set parameter: its universe (every piece of its kinds) and sizes.
    fn set_domain(
        &mut self,
        p: &raw::RawParam,
        kinds: Vec<KindId>,
        within: Option<Vec<ZoneRef>>,
        action: &str,
        file: FileId,
    ) -> SetDomain {
        let universe = self.pieces_of_kinds(&kinds);
        if universe.len() > MAX_SET_UNIVERSE {
            let d = self
                .err(
                    file,
                    p.name.span.clone(),
                    format!(
                        "set parameter `{}` of action `{action}` chooses among {} pieces",
                        p.name.value,
                        universe.len()
                    ),
                )
                .expected(format!("kinds with at most {MAX_SET_UNIVERSE} pieces in all"));
            self.push(d);
        }
        let [min, max] = p.size.unwrap_or([0, u32::MAX]);
        if min > max {
            let d = self
                .err(
                    file,
                    p.name.span.clone(),
                    format!("set parameter `{}` of action `{action}`: size [{min}, {max}]", p.name.value),
                )
                .expected("size = [fewest, most] with fewest <= most");
            self.push(d);
        }
        SetDomain { kinds, within, universe, min, max }
    }

    fn resolve_phases(&mut self) {
        let m = self.merged;
        for (name, (file, p)) in &m.phases {
            let file = *file;
            let on_enter = p.on_enter.as_ref().map(|h| self.hook(h, file, 1));
            let resume = p.resume.as_ref().map(|h| self.hook(h, file, 1));
            let on_exit = p.on_exit.as_ref().map(|h| self.hook(h, file, 1));
            let mut ask = Vec::new();
            for a in &p.ask {
                let (Some(seat), Some(action)) = (self.seat_ref(&a.seat, file), self.action_ref(&a.action, file))
                else {
                    continue;
                };
                let Ok(each) = self.ask_each(a, action, file) else { continue };
                let while_hook = a.while_hook.as_ref().map(|h| self.hook(h, file, 1));
                ask.push(AskDef { seat, action, each, while_hook });
            }
            let actions = p.actions.iter().filter_map(|a| self.action_ref(a, file)).collect();
            let active = match &p.active {
                Some(list) => list.iter().filter_map(|s| self.seat_ref(s, file)).collect(),
                None => (0..self.defs.seats.len() as SeatId).collect(),
            };
            let next = p.next.as_ref().and_then(|n| self.phase_ref(n, file));
            let options = p.options.as_ref().map(|h| self.hook(h, file, 2));
            let span = self.table_span(file, "phases", name);
            let out_of_turn = p.out_of_turn.iter().filter_map(|a| self.action_ref(a, file)).collect();
            if let (Some(first), true) = (p.out_of_turn.first(), m.game.pace.is_some()) {
                let d = self
                    .err(file, first.span.clone(), format!("phase `{name}` lists `out_of_turn` actions in a real-time game"))
                    .note("in real time every seat of `active` may take the phase's standing `actions` at any moment: list them there");
                self.push(d);
            }
            self.defs.phases.push(PhaseDef {
                name: name.clone(),
                on_enter,
                ask,
                resume,
                on_exit,
                actions,
                active,
                options,
                out_of_turn,
                next,
                file,
                span,
            });
        }
    }
}
