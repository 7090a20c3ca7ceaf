//! The compact form of a view, for a person at a terminal: what fits a screen.
//!
//! The full form (`View::render`) lists every piece with every property. The compact form
//! reads the same view and leaves out what a person can tell without it:
//!
//! - a property at `0` or `none`, or whose value is already a word of the piece's name
//!   (`unit=patrol` on `patrol_3`), is not written;
//! - pieces that look alike and lie together fold into one item (`coin ×6`);
//! - counters at 0 are not written, and a seat's own counters (`money.red`) are written with
//!   its zones, under the seat;
//! - zones whose pieces the seat cannot identify (piles seen as counts) share one line;
//! - a zone whose pieces stand at distinct cells (integer `x` and `y` properties) is drawn as
//!   a map, with the pieces whose piece-valued property names a cell's piece written in that
//!   cell (and pieces pointing at those, one step further);
//! - the seat's own zones come last, next to its decision, those of the other seats before.
//!
//! When all that is still longer than the lines given, the least needed parts shrink first (the
//! other seats' zones, then the public zones) to one line each, ending in how many items were
//! left out; `--verbose` shows everything.

use std::collections::{BTreeMap, HashMap};

use super::{GridSides, PieceView, View, ZoneView, format_clock};

/// The properties of a piece the compact form writes: not those in `skip`, those at `0` or
/// `none`, or those whose value is a word of the piece's name (`unit=patrol` on `patrol_3`,
/// `seat=red` on `pawn_red`).
fn compact_props<'a>(piece: &'a PieceView, skip: &[&str]) -> Vec<(&'a str, &'a str)> {
    let zero = |v: &str| v.is_empty() || v == "0" || v == "none";
    piece
        .props
        .iter()
        .filter(|(k, v)| !skip.contains(&k.as_str()) && !zero(v))
        .filter(|(_, v)| v.parse::<i64>().is_ok() || !piece.name.split('_').any(|w| w == *v))
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect()
}

/// A piece in the compact form, and the same without its name (what two pieces must share to
/// be folded together).
fn compact_text(piece: &PieceView, skip: &[&str]) -> (String, String) {
    let props: Vec<String> = compact_props(piece, skip).iter().map(|(k, v)| format!("{k}={v}")).collect();
    let face = if piece.face_up { "" } else { " (face down)" };
    let looks = if props.is_empty() { face.to_string() } else { format!("[{}]{face}", props.join(" ")) };
    (format!("{}{looks}", piece.name), looks)
}

/// Items folded: runs of look-alikes (same base name and looks) become one item, `coin ×6`.
fn fold(items: &[(String, String, String)]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < items.len() {
        let (name, text, looks) = &items[i];
        let base = super::base_name(name);
        let run = items[i..].iter().take_while(|(n, _, l)| super::base_name(n) == base && l == looks).count();
        out.push(if run > 1 { format!("{base}{looks} \u{d7}{run}") } else { text.clone() });
        i += run.max(1);
    }
    out
}

/// A part of the compact view: its lines, and the one line it shrinks to when the screen is
/// short (`None`: it does not shrink).
struct Block {
    lines: Vec<String>,
    short: Option<Vec<String>>,
    /// Blocks of lower rank shrink first.
    rank: u8,
}

/// Ranks: what shrinks first when the screen is short.
const OTHERS: u8 = 0;
const PUBLIC: u8 = 1;
const MINE: u8 = 2;
const MAP: u8 = 3;
const FIXED: u8 = 4;

/// The cells of a grid zone: the name of the piece at each.
type Cells = BTreeMap<(i64, i64), String>;

/// Where a piece drawn on a map stands: the grid's index, the cell, and the property naming
/// the cell's piece (`None` when it stands there through another piece).
type Placed = (usize, (i64, i64), Option<String>);

/// A seat's zones in the compact form: base name, items, and how many were drawn on a map.
type SeatZones<'a> = BTreeMap<&'a str, Vec<(&'a str, Vec<String>, usize)>>;

/// The cells drawn as maps: for each grid zone, its pieces' cells; and, for every piece drawn
/// in a cell as standing there, the cell and the property that says so.
struct Maps {
    /// Zone name → (piece name → cell).
    grids: Vec<(String, Cells)>,
    /// Piece name → (grid index, cell, property naming the cell's piece or `None` when it
    /// stands there through another piece).
    placed: HashMap<String, Placed>,
}

/// Whether a zone is drawn as a map: at least two pieces seen, every one at its own cell.
fn grid_of(zone: &ZoneView) -> Option<Cells> {
    if zone.pieces.len() < 2 {
        return None;
    }
    let mut cells = BTreeMap::new();
    for p in &zone.pieces {
        let x = p.props.get("x")?.parse::<i64>().ok()?;
        let y = p.props.get("y")?.parse::<i64>().ok()?;
        if cells.insert((x, y), p.name.clone()).is_some() {
            return None;
        }
    }
    Some(cells)
}

fn find_maps(view: &View) -> Maps {
    let mut grids = Vec::new();
    let mut cell_of: HashMap<String, (usize, (i64, i64))> = HashMap::new();
    for (name, zone) in &view.zones {
        if let Some(cells) = grid_of(zone) {
            for (&at, piece) in &cells {
                cell_of.insert(piece.clone(), (grids.len(), at));
            }
            grids.push((name.clone(), cells));
        }
    }
    let mut placed: HashMap<String, Placed> = HashMap::new();
    // A seat's own pieces (its hand, its board) are not on the map, wherever they point.
    let pieces = || {
        (view.zones.iter())
            .filter(|(name, _)| owner_of(name, &view.seats).is_none())
            .flat_map(|(_, z)| &z.pieces)
            .filter(|p| !cell_of.contains_key(&p.name))
    };
    // Pieces naming a cell's piece, then pieces naming one of those.
    for p in pieces() {
        if let Some((k, &(g, at))) = p.props.iter().find_map(|(k, v)| cell_of.get(v).map(|c| (k, c))) {
            placed.insert(p.name.clone(), (g, at, Some(k.clone())));
        }
    }
    for p in pieces() {
        if placed.contains_key(&p.name) {
            continue;
        }
        let via =
            p.props.values().find_map(|v| placed.get(v).filter(|(_, _, k)| k.is_some()).map(|&(g, at, _)| (g, at)));
        if let Some((g, at)) = via {
            placed.insert(p.name.clone(), (g, at, None));
        }
    }
    Maps { grids, placed }
}

/// Cuts `text` to `width` characters, ending in `…` when cut.
pub(crate) fn cut(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut out: String = text.chars().take(width.saturating_sub(1)).collect();
    out.push('\u{2026}');
    out
}

/// Words joined by spaces into lines of at most `width` characters, at most `max` lines (the
/// last cut when more would follow).
fn fill(words: &[String], width: usize, max: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for (i, word) in words.iter().enumerate() {
        if line.is_empty() {
            line = word.clone();
        } else if line.chars().count() + 1 + word.chars().count() <= width {
            line.push(' ');
            line.push_str(word);
        } else {
            lines.push(std::mem::take(&mut line));
            if lines.len() == max {
                let left = words.len() - i;
                let last = lines.pop().unwrap_or_default();
                lines.push(cut(&format!("{last} +{left}"), width));
                return lines;
            }
            line = word.clone();
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines.into_iter().map(|l| cut(&l, width)).collect()
}

/// Whether the piece at a cell is open towards a side (0 north, then clockwise), by the
/// properties the ruleset's `[layout] grids` names for the zone's sides as printed (a number
/// other than 0, or a piece or word other than `none`, is open), turned by its rotation
/// property's quarter turns clockwise. `None` when the zone's pieces have no sides.
fn open(piece: &PieceView, side: usize, spec: Option<&GridSides>) -> Option<bool> {
    let spec = spec?;
    let rot =
        spec.rotation.as_ref().and_then(|r| piece.props.get(r)).and_then(|r| r.parse::<usize>().ok()).unwrap_or(0);
    let printed = &spec.sides[(side + 4 - rot % 4) % 4];
    piece.props.get(printed).map(|v| v != "0" && v != "none" && !v.is_empty())
}

/// The map of one grid zone, in lines at most `width` wide (`None` when it does not fit).
fn draw_map(view: &View, maps: &Maps, g: usize, width: usize, names: usize) -> Option<Vec<String>> {
    let (zone, cells) = &maps.grids[g];
    let pieces: HashMap<&str, &PieceView> = view.zones.get(zone)?.pieces.iter().map(|p| (p.name.as_str(), p)).collect();
    let xs = cells.keys().map(|&(x, _)| x);
    let (min_x, max_x) = (xs.clone().min()?, xs.max()?);
    let ys = cells.keys().map(|&(_, y)| y);
    let (min_y, max_y) = (ys.clone().min()?, ys.max()?);
    // The free cells around the pieces, where more can go, are a narrow column (or a line) on
    // each side: room for their coordinate.
    const AXIS: usize = 5;
    const EDGE: usize = 5;
    let used = (max_x - min_x + 1) as usize;
    let cell_w = (width.saturating_sub(AXIS + 2 * EDGE + 1) / used).min(24);
    if cell_w < 8 {
        return None;
    }
    let inner = cell_w - 1;
    let (x0, x1, y0, y1) = (min_x - 1, max_x + 1, min_y - 1, max_y + 1);
    let col_w = |x: i64| if x == x0 || x == x1 { EDGE } else { cell_w };
    // Who stands at each cell, zones with fewer such pieces first (a seat's figure before
    // the many tokens of the board), in the view's order.
    let mut standing: HashMap<(i64, i64), Vec<String>> = HashMap::new();
    let here = |p: &PieceView| maps.placed.get(&p.name).filter(|(pg, _, _)| *pg == g).map(|&(_, at, _)| at);
    let mut zones: Vec<&ZoneView> =
        view.zones.values().filter(|z| z.pieces.iter().any(|p| here(p).is_some())).collect();
    zones.sort_by_key(|z| z.pieces.iter().filter(|p| here(p).is_some()).count());
    for p in zones.into_iter().flat_map(|z| &z.pieces) {
        if let Some(at) = here(p) {
            standing.entry(at).or_default().push(p.name.clone());
        }
    }
    let spec = view.grid_sides.get(zone.as_str());
    let sided = cells.values().any(|p| pieces.get(p.as_str()).and_then(|p| open(p, 0, spec)).is_some());
    // What a cell says: its piece's name and properties (word values cut to their first three
    // letters, part by part, when they do not fit a line), then who stands there by name (by
    // kind, `patrol×2`, when the names do not fit three lines).
    let mut skip = vec!["x", "y"];
    if let Some(spec) = spec.filter(|_| sided) {
        skip.extend(spec.sides.iter().map(String::as_str));
        skip.extend(spec.rotation.as_deref());
    }
    // Without passages to draw, the cell's name and properties go on its top wall.
    let room = if sided { inner } else { inner - 1 };
    let words = |name: &String, short: bool| -> Vec<String> {
        let mut words = vec![name.clone()];
        if let Some(p) = pieces.get(name.as_str()) {
            words.extend(compact_props(p, &skip).into_iter().map(|(k, v)| match v.parse::<i64>() {
                Ok(1) => k.to_string(),
                Ok(_) => format!("{k}={v}"),
                Err(_) if short => {
                    v.split('_').map(|w| w.chars().take(3).collect::<String>()).collect::<Vec<_>>().join("_")
                }
                Err(_) => v.to_string(),
            }));
        }
        words
    };
    // Word values are cut on every cell when one cell needs it.
    let short = cells.values().any(|name| words(name, false).join(" ").chars().count() > room);
    let text_of = |at: (i64, i64)| -> Vec<String> {
        let Some(name) = cells.get(&at) else { return Vec::new() };
        let words = |short: bool| words(name, short);
        let mut lines = match (short, sided) {
            (false, _) => vec![words(false).join(" ")],
            (true, true) => fill(&words(true), room, 2),
            (true, false) => vec![cut(&words(true).join(" "), room)],
        };
        if let Some(here) = standing.get(&at) {
            let all = fill(here, inner, usize::MAX);
            lines.extend(if all.len() <= names { all } else { fill(&fold_names(here), inner, names) });
        }
        lines
    };
    let labels: HashMap<(i64, i64), String> =
        cells.keys().filter_map(|&at| text_of(at).into_iter().next().map(|l| (at, l))).collect();
    let occupied = |x: i64, y: i64| cells.contains_key(&(x, y));
    let piece_at = |x: i64, y: i64| cells.get(&(x, y)).and_then(|n| pieces.get(n.as_str()).copied());
    // Whether the wall between two neighbouring cells is open (both pieces open to each other).
    let passage = |a: Option<&PieceView>, side: usize, b: Option<&PieceView>| match (a, b) {
        (Some(a), Some(b)) => open(a, side, spec) == Some(true) && open(b, (side + 2) % 4, spec) == Some(true),
        _ => false,
    };
    let mut out = vec![format!("  {zone} (x across, y up):")];
    let mut head = " ".repeat(AXIS);
    for x in x0..=x1 {
        head.push_str(&format!("{:^w$}", x, w = col_w(x)));
    }
    out.push(head.trim_end().to_string());
    // The line between rows `y + 1` and `y`: walls where a cell is on either side, with a gap
    // where a passage goes through.
    let rule = |y: i64| -> String {
        let mut line = " ".repeat(AXIS);
        for x in x0..=x1 {
            let near = |x: i64| occupied(x, y + 1) || occupied(x, y);
            line.push(if near(x) || near(x - 1) { '+' } else { ' ' });
            let open = passage(piece_at(x, y + 1), 2, piece_at(x, y));
            let w = col_w(x) - 1;
            let label = if sided { None } else { labels.get(&(x, y)) };
            match label {
                Some(label) => {
                    let label = format!("-{label}");
                    let n = label.chars().count();
                    line.push_str(&label);
                    line.extend((n..w).map(|_| '-'));
                }
                None => line.extend(
                    (0..w).map(|i| if !near(x) || (open && (i == w / 2 || i + 1 == w / 2)) { ' ' } else { '-' }),
                ),
            }
        }
        line.trim_end().to_string()
    };
    for y in (y0..=y1).rev() {
        if y < y1 {
            out.push(rule(y));
        }
        let texts: Vec<Vec<String>> =
            (x0..=x1).map(|x| text_of((x, y)).into_iter().skip(usize::from(!sided)).collect()).collect();
        let height = texts.iter().map(Vec::len).max().unwrap_or(0).max(1);
        for row in 0..height {
            let mut line = if row == 0 { format!("{y:>4} ") } else { " ".repeat(AXIS) };
            for (i, x) in (x0..=x1).enumerate() {
                let wall = occupied(x, y) || occupied(x - 1, y);
                let open = passage(piece_at(x - 1, y), 1, piece_at(x, y)) && row == height / 2;
                line.push(if wall && !open { '|' } else { ' ' });
                let text = texts[i].get(row).map(String::as_str).unwrap_or("");
                line.push_str(&format!("{text:<w$}", w = col_w(x) - 1));
            }
            out.push(line.trim_end().to_string());
        }
    }
    Some(out)
}

/// Names folded by base name, in the order met: `patrol×2` for `patrol_1` and `patrol_5`.
fn fold_names(names: &[String]) -> Vec<String> {
    let mut groups: Vec<(&str, Vec<&String>)> = Vec::new();
    for name in names {
        let base = super::base_name(name);
        match groups.iter_mut().find(|(b, _)| *b == base) {
            Some((_, all)) => all.push(name),
            None => groups.push((base, vec![name])),
        }
    }
    groups
        .into_iter()
        .map(|(base, all)| if all.len() > 1 { format!("{base}\u{d7}{}", all.len()) } else { base.to_string() })
        .collect()
}

/// A zone's items in the compact form, with the pieces drawn on a map left out (or written
/// without the property that puts them there); and how many were drawn.
fn zone_items(zone: &ZoneView, maps: &Maps) -> (Vec<String>, usize) {
    let mut items = Vec::new();
    let mut drawn = 0;
    let in_grid = maps.grids.iter().any(|(_, cells)| cells.values().any(|n| zone.pieces.iter().any(|p| &p.name == n)));
    for p in &zone.pieces {
        let skip: Vec<&str> = match maps.placed.get(&p.name) {
            Some((_, _, Some(k))) => vec![k.as_str()],
            _ => Vec::new(),
        };
        if in_grid || (!skip.is_empty() && compact_props(p, &skip).is_empty() && p.face_up) {
            drawn += 1;
            continue;
        }
        let (text, looks) = compact_text(p, &skip);
        items.push((p.name.clone(), text, looks));
    }
    let mut folded = fold(&items);
    if zone.hidden > 0 {
        folded.push(format!("{} hidden", zone.hidden));
    }
    (folded, drawn)
}

/// Lines of `head` and items wrapped to `width` (see `wrap_items`).
fn wrapped(head: &str, items: &[String], width: usize) -> Vec<String> {
    let mut out = String::new();
    super::wrap_items(&mut out, head, items, width);
    out.lines().map(str::to_string).collect()
}

/// One line of `head` and as many items as fit, then how many were left out.
fn one_line(head: &str, items: &[String], width: usize) -> String {
    let mut line = head.to_string();
    for (i, item) in items.iter().enumerate() {
        let left = items.len() - i - 1;
        let more = if left > 0 { format!(", +{left} more") } else { String::new() };
        let sep = if i == 0 { "" } else { ", " };
        if line.chars().count() + sep.len() + item.chars().count() + more.chars().count() > width {
            let left = items.len() - i;
            line.push_str(&format!("{}+{left} more", if i == 0 { "" } else { ", " }));
            return cut(&line, width);
        }
        line.push_str(sep);
        line.push_str(item);
    }
    line
}

/// The seat a zone or counter belongs to, by its name (`hand.red` belongs to `red`), among
/// the seats of the view.
fn owner_of<'a>(name: &'a str, seats: &[String]) -> Option<(&'a str, &'a str)> {
    let (base, seat) = name.rsplit_once('.')?;
    seats.iter().any(|s| s == seat).then_some((base, seat))
}

impl View {
    /// The compact view in at most `lines` lines of `width` columns (see the module's text).
    pub fn render_fitted(&self, width: usize, lines: usize) -> String {
        let mut blocks: Vec<Block> = Vec::new();
        let fixed = |lines: Vec<String>| Block { lines, short: None, rank: FIXED };
        let who = self.seat.as_deref().unwrap_or("everyone (omniscient)");
        let mut head = format!("view of {who}: phase {}", self.phase);
        if self.clock_ms != 0 {
            head.push_str(&format!(", clock {}", format_clock(self.clock_ms)));
        }
        blocks.push(fixed(vec![head]));
        if let Some(o) = &self.outcome {
            blocks.push(fixed(vec![format!("game over: {o}")]));
        }
        // Counters: the table's, then each seat's with its zones.
        let mut seat_counters: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        let mut table = Vec::new();
        for (name, value) in &self.counters {
            if *value == 0 {
                continue;
            }
            match owner_of(name, &self.seats) {
                Some((base, seat)) => seat_counters.entry(seat).or_default().push(format!("{base} {value}")),
                None => table.push(format!("{name} {value}")),
            }
        }
        if !table.is_empty() {
            blocks.push(fixed(wrapped("counters: ", &table, width)));
        }
        let maps = find_maps(self);
        for g in 0..maps.grids.len() {
            if let Some(map) = draw_map(self, &maps, g, width, 3) {
                let short = draw_map(self, &maps, g, width, 2);
                blocks.push(Block { lines: map, short, rank: MAP });
            }
        }
        let mut piles = Vec::new();
        let mut seat_zones: SeatZones = BTreeMap::new();
        for (name, zone) in &self.zones {
            if zone.count == Some(0) || (zone.count.is_none() && zone.pieces.is_empty()) {
                continue;
            }
            let owner = owner_of(name, &self.seats);
            if zone.pieces.is_empty() && owner.is_none() {
                piles.push(format!("{name} {}", zone.hidden));
                continue;
            }
            let (items, drawn) = zone_items(zone, &maps);
            match owner {
                Some((base, seat)) => seat_zones.entry(seat).or_default().push((base, items, drawn)),
                None if items.is_empty() => {}
                None => {
                    let mut items = items;
                    if drawn > 0 {
                        items.push(format!("{drawn} more on the map"));
                    }
                    let head = format!("  {name}: ");
                    blocks.push(Block {
                        lines: wrapped(&head, &items, width),
                        short: Some(vec![one_line(&head, &items, width)]),
                        rank: PUBLIC,
                    });
                }
            }
        }
        if !piles.is_empty() {
            blocks.push(Block {
                lines: wrapped("  piles: ", &piles, width),
                short: Some(vec![one_line("  piles: ", &piles, width)]),
                rank: PUBLIC,
            });
        }
        // Each seat: its counters on its line, then its zones; this seat's last.
        let me = self.seat.as_deref();
        let mut order: Vec<&str> = self.seats.iter().map(String::as_str).filter(|s| Some(*s) != me).collect();
        order.extend(me.filter(|m| self.seats.iter().any(|s| s == m)));
        for seat in order {
            let counters = seat_counters.remove(seat).unwrap_or_default();
            let zones = seat_zones.remove(seat).unwrap_or_default();
            if counters.is_empty() && zones.iter().all(|(_, items, _)| items.is_empty()) {
                continue;
            }
            let mine = Some(seat) == me;
            let title = if mine { format!("{seat} (you): ") } else { format!("{seat}: ") };
            let mut block = if counters.is_empty() {
                vec![title.trim_end().to_string()]
            } else {
                wrapped(&title, &counters, width)
            };
            let mut summary: Vec<String> = counters.clone();
            // The seat's own zones shrink to a line each; another seat's to a line of counts.
            let mut own = block.clone();
            for (base, items, _) in &zones {
                if items.is_empty() {
                    continue;
                }
                let head = format!("  {base}: ");
                block.extend(wrapped(&head, items, width));
                own.push(one_line(&head, items, width));
                summary.push(format!("{base} {}", items.len()));
            }
            let short = if mine { own } else { vec![one_line(&title, &summary, width)] };
            blocks.push(Block { lines: block, short: Some(short), rank: if mine { MINE } else { OTHERS } });
        }
        let ending = match (&self.decision, self.to_act.is_empty()) {
            (Some(d), _) => Some(format!("decide: {d}")),
            (None, false) => Some(format!("waiting for: {}", self.to_act.join(", "))),
            _ => None,
        };
        blocks.extend(ending.map(|e| fixed(vec![e])));
        fit(&mut blocks, lines, width);
        let mut out = String::new();
        for b in &blocks {
            for l in &b.lines {
                out.push_str(l);
                out.push('\n');
            }
        }
        out
    }
}

/// Shrinks blocks, least needed first, until they fit in `lines`; as a last resort cuts the
/// longest blocks' lines, saying so.
fn fit(blocks: &mut [Block], lines: usize, width: usize) {
    let total = |blocks: &[Block]| blocks.iter().map(|b| b.lines.len()).sum::<usize>();
    for rank in [OTHERS, PUBLIC] {
        // The longest blocks of a rank shrink first.
        loop {
            if total(blocks) <= lines {
                return;
            }
            let longest = (blocks.iter_mut())
                .filter(|b| b.rank == rank && b.short.is_some() && b.lines.len() > 1)
                .max_by_key(|b| b.lines.len());
            match longest {
                Some(b) => b.lines = b.short.clone().unwrap_or_default(),
                None => break,
            }
        }
    }
    // Still too long: the least needed blocks give way, the last first, to one line saying
    // what was left out.
    let mut dropped: Vec<String> = Vec::new();
    let mut first = None;
    for rank in [OTHERS, PUBLIC] {
        for i in (0..blocks.len()).rev() {
            if total(blocks) < lines {
                break;
            }
            if blocks[i].rank == rank && !blocks[i].lines.is_empty() {
                let head = blocks[i].lines[0].trim_start();
                dropped.push(head.split([':', ' ']).next().unwrap_or_default().to_string());
                blocks[i].lines.clear();
                first = Some(first.map_or(i, |f: usize| f.min(i)));
            }
        }
    }
    if let Some(i) = first {
        dropped.reverse();
        blocks[i].lines = vec![cut(&format!("  not shown (--verbose shows all): {}", dropped.join(", ")), width)];
    }
    // A map taller than the screen: the tallest blocks lose their last lines, the seat's own
    // last (they first shrink to a line).
    while total(blocks) > lines {
        let tallest = |blocks: &mut [Block], mine: bool| -> Option<usize> {
            (0..blocks.len())
                .filter(|&i| blocks[i].lines.len() > 1 && (mine || blocks[i].rank != MINE))
                .max_by_key(|&i| blocks[i].lines.len())
        };
        // The seat's own zones shrink to a line each, then the maps name fewer pieces a cell.
        let shrinking = (blocks.iter_mut())
            .filter(|b| b.rank == MINE || b.rank == MAP)
            .filter(|b| b.short.as_ref().is_some_and(|s| s.len() < b.lines.len()))
            .min_by_key(|b| b.rank);
        if let Some(b) = shrinking {
            b.lines = b.short.take().unwrap_or_default();
            continue;
        }
        let i = match tallest(blocks, false).filter(|&i| blocks[i].lines.len() > 3) {
            Some(i) => i,
            None => match tallest(blocks, true) {
                Some(i) => i,
                None => return,
            },
        };
        let b = &mut blocks[i];
        b.lines.pop();
        if let Some(last) = b.lines.last_mut() {
            *last = "    \u{2026} (--verbose shows all)".to_string();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use indexmap::IndexMap;

    fn piece(name: &str, props: &[(&str, &str)], face_up: bool) -> PieceView {
        let props = props.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        PieceView { name: name.into(), face_up, props }
    }

    fn zone(pieces: Vec<PieceView>) -> ZoneView {
        ZoneView { count: Some(pieces.len() as u32), pieces, hidden: 0 }
    }

    fn view(seat: &str, zones: Vec<(&str, ZoneView)>) -> View {
        View {
            seat: Some(seat.into()),
            phase: "play".into(),
            clock_ms: 0,
            outcome: None,
            counters: IndexMap::new(),
            zones: zones.into_iter().map(|(n, z)| (n.to_string(), z)).collect(),
            to_act: vec![seat.into()],
            decision: Some("lay <x> <y>".into()),
            seats: vec!["red".into(), "blue".into()],
            grid_sides: BTreeMap::new(),
        }
    }

    #[test]
    fn look_alike_pieces_lying_together_fold_into_one_item() {
        let pieces = [
            piece("coin_1", &[], true),
            piece("coin_2", &[], true),
            piece("coin_3", &[], false),
            piece("die_1", &[("face", "3")], true),
            piece("die_2", &[("face", "3")], true),
            piece("die_3", &[("face", "5")], true),
            piece("pawn", &[], true),
        ];
        let items: Vec<(String, String, String)> = pieces
            .iter()
            .map(|p| {
                let (text, looks) = compact_text(p, &[]);
                (p.name.clone(), text, looks)
            })
            .collect();
        assert_eq!(fold(&items), ["coin ×2", "coin_3 (face down)", "die[face=3] ×2", "die_3[face=5]", "pawn"]);
    }

    #[test]
    fn properties_at_zero_or_none_or_said_by_the_name_are_left_out() {
        let officer = piece("patrol_3", &[("unit", "patrol"), ("cubes", "0"), ("key", "none"), ("ready", "1")], true);
        assert_eq!(compact_text(&officer, &[]).0, "patrol_3[ready=1]");
    }

    #[test]
    fn pieces_at_distinct_cells_are_drawn_as_a_map_with_who_stands_there() {
        let tile =
            |name: &str, x: &str, y: &str, ground: &str| piece(name, &[("ground", ground), ("x", x), ("y", y)], true);
        let v = view(
            "red",
            vec![
                (
                    "city",
                    zone(vec![
                        tile("tile_1", "0", "0", "hills"),
                        tile("tile_2", "1", "0", "lake"),
                        tile("tile_3", "0", "-1", "hills"),
                    ]),
                ),
                ("streets", zone(vec![piece("scout_1", &[("at", "tile_2")], true)])),
                ("hand.red", zone(vec![piece("card_1", &[("at", "tile_1")], true)])),
            ],
        );
        let text = v.render_fitted(80, 40);
        assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
        // Coordinates on both axes, one free column and row around; each cell's name and
        // properties on its top wall; the piece pointing at a cell drawn in it, not listed.
        let expected = "
  city (x across, y up):
      -1             0                       1              2
   1
          +-tile_1 hills----------+-tile_2 lake-----------+
   0      |                       |scout_1                |
          +-tile_3 hills----------+-----------------------+
  -1      |                       |
          +-----------------------+
  -2
";
        assert!(text.contains(expected), "{text}");
        assert!(!text.contains("streets"), "a piece drawn on the map is listed again:\n{text}");
        // A seat's own pieces stay in its hand, wherever they point.
        assert!(text.contains("  hand: card_1[at=tile_1]"), "{text}");
    }

    /// Passages are drawn from the sides the ruleset's `[layout] grids` names (here `n`, `e`,
    /// `s`, `w`, turned by `turn`): the wall between two cells open to each other has a gap.
    #[test]
    fn the_sides_a_layout_names_open_the_walls_between_cells() {
        let room = |name: &str, x: &str, e: &str, w: &str, turn: &str| {
            piece(name, &[("x", x), ("y", "0"), ("n", "0"), ("e", e), ("s", "0"), ("w", w), ("turn", turn)], true)
        };
        let map = |east_of_first: &str, turn: &str| {
            let mut v = view(
                "red",
                vec![("rooms", zone(vec![room("a", "0", east_of_first, "0", "0"), room("b", "1", "0", "1", turn)]))],
            );
            let sides = ["n", "e", "s", "w"].map(String::from);
            v.grid_sides.insert("rooms".into(), GridSides { sides, rotation: Some("turn".into()) });
            v.render_fitted(80, 40)
        };
        let wall = |text: &str| text.lines().find(|l| l.starts_with("   0")).map(str::to_string).unwrap_or_default();
        // Open to each other: no wall between them on their row; closed on one side: a wall.
        let (open, closed) = (wall(&map("1", "0")), wall(&map("0", "0")));
        assert_eq!(open.matches('|').count() + 1, closed.matches('|').count(), "open:\n{open}\nclosed:\n{closed}");
        // Turned by two quarters, b's printed west side faces east: the wall closes.
        assert_eq!(wall(&map("1", "2")), closed);
        // Without the layout's sides, nothing says where the passages are: the cells' walls are
        // closed and their properties are written on them (`e` at 1).
        let plain =
            view("red", vec![("rooms", zone(vec![room("a", "0", "1", "0", "0"), room("b", "1", "0", "1", "0")]))]);
        let text = plain.render_fitted(80, 40);
        assert!(text.contains("+-a e-") && text.contains("+-b w-"), "{text}");
        assert_eq!(wall(&text).matches('|').count(), closed.matches('|').count(), "{text}");
    }

    #[test]
    fn a_view_too_long_for_the_screen_shrinks_the_other_seats_first() {
        let many = |n: usize, base: &str| {
            zone((1..=n).map(|i| piece(&format!("{base}_{i}"), &[("v", &i.to_string())], true)).collect())
        };
        let v = view(
            "red",
            vec![("market", many(60, "card")), ("hand.blue", many(60, "bead")), ("hand.red", many(30, "coin"))],
        );
        let text = v.render_fitted(100, 12);
        assert!(text.lines().count() <= 12, "{text}");
        // The seat's own hand is whole; the other seat's is one line of counts.
        assert!(text.contains("coin_30[v=30]"), "{text}");
        assert!(text.contains("blue: hand 60"), "{text}");
        assert!(text.contains("decide: lay <x> <y>"), "{text}");
    }
}
