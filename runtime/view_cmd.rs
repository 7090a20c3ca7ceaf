//! `tabula view`: a game log as one self-contained HTML page that steps through the game in a
//! browser, for everyone or for one seat; `--serve` serves it on this machine and follows a log
//! that is still being written.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use tokio::sync::watch;

use tabula::diag::{MAX_LOG_BYTES, Sources, render, render_diagnostics};
use tabula::log::{ReplayError, parse, rules_for_in};
use tabula::viewer::{MAX_DATA_BYTES, MAX_STEPS, Part, html, page};
use tabula::{Error, Rules};

/// `tabula view`'s arguments.
#[derive(clap::Args, Clone)]
#[command(after_help = format!(
    "A page holds at most {MAX_STEPS} steps (the setup, actions and clock lines) and {} MB of data: \
     view a longer game a part at a time with --from and --until.",
    MAX_DATA_BYTES >> 20
))]
pub struct ViewArgs {
    /// The log file.
    log: PathBuf,
    /// Where to write the page (default: the log's name with `.html`, or `.<seat>.html`). Never
    /// the log itself.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Make the page for this seat alone: it holds that seat's view and copy of the log, and
    /// nothing the seat may not see. Without it, the page offers everyone and every seat.
    #[arg(long, value_name = "SEAT")]
    seat: Option<String>,
    /// Replay under these rules (a name or a folder) instead of the ones the log names.
    #[arg(long, value_name = "RULESET")]
    ruleset: Option<String>,
    /// Show the game from the step at or before this line of the log (the game before it is
    /// replayed, not shown).
    #[arg(long, value_name = "LINE")]
    from: Option<usize>,
    /// Show the game up to the step at or before this line of the log.
    #[arg(long, value_name = "LINE")]
    until: Option<usize>,
    /// Serve the page on 127.0.0.1 instead of writing it, and follow the log as it grows (watch a
    /// game being played with `tabula play --log`). Stop with Ctrl-C.
    #[arg(long)]
    serve: bool,
    /// The port to serve on (0: any free port, printed when serving starts).
    #[arg(long, default_value_t = 8017, requires = "serve")]
    port: u16,
}

/// The page for a log, or the diagnostic that says why there is none.
fn make_page(args: &ViewArgs) -> Result<String, String> {
    let mut sources = Sources::default();
    let file = sources.read(&args.log, MAX_LOG_BYTES).map_err(|e| e.to_string())?;
    let log = parse(sources.text(file), file).map_err(|d| render_diagnostics(&[*d], &sources))?;
    let rules: Rc<Rules> = Rc::new(
        rules_for_in(&log, args.ruleset.as_deref()).map_err(|e| render(&e.into_error(&sources, file), &sources))?,
    );
    let players = log.int_tag("players").map_or(rules.players.0, |p| p.min(255) as u8);
    let observers: Vec<Option<u8>> = match &args.seat {
        Some(name) => {
            let seat = rules.seat(name).filter(|&s| s < players).ok_or_else(|| {
                let names: Vec<&str> = rules.seats.iter().take(players as usize).map(|s| s.name.as_str()).collect();
                format!("no seat `{name}` in this game: expected one of {}", names.join(", "))
            })?;
            vec![Some(seat)]
        }
        None => std::iter::once(None).chain((0..players).map(Some)).collect(),
    };
    let name = args.log.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let part = Part { from: args.from, until: args.until };
    let page = page(&log, rules, players, &observers, part, &name)
        .map_err(|e: ReplayError| render_diagnostics(&[e.diagnostic(&sources, file)], &sources))?;
    Ok(html(&page))
}

/// Runs `tabula view`.
pub fn run(args: &ViewArgs) -> Result<ExitCode, Error> {
    if args.serve {
        return serve(args);
    }
    let out = args.out.clone().unwrap_or_else(|| default_out(&args.log, args.seat.as_deref()));
    let made = if same_file(&out, &args.log) {
        Err(format!("the page would overwrite the log {}: name the page with --out FILE", args.log.display()))
    } else {
        make_page(args)
    };
    let page = match made {
        Ok(page) => page,
        Err(message) => {
            eprint!("{message}");
            if !message.ends_with('\n') {
                eprintln!();
            }
            return Ok(ExitCode::FAILURE);
        }
    };
    crate::sim_cmd::write_file(&out, &page)?;
    eprintln!("wrote {} (open it in a browser)", out.display());
    Ok(ExitCode::SUCCESS)
}

/// `game.log` -> `game.html`, or `game.red.html` for the seat `red`.
fn default_out(log: &Path, seat: Option<&str>) -> PathBuf {
    match seat {
        Some(seat) => log.with_extension(format!("{seat}.html")),
        None => log.with_extension("html"),
    }
}

/// Whether two paths name one existing file (through `.`, `..`, links, or, on Unix, hard links).
fn same_file(a: &Path, b: &Path) -> bool {
    let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) else { return false };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if (ma.dev(), ma.ino()) == (mb.dev(), mb.ino()) {
            return true;
        }
    }
    let _ = (ma, mb);
    matches!((a.canonicalize(), b.canonicalize()), (Ok(ca), Ok(cb)) if ca == cb)
}

/// The most clients answered at once; one more is answered 503 at once.
const MAX_CLIENTS: usize = 16;
/// How often the log file is looked at for changes.
const LOOK_EVERY: Duration = Duration::from_millis(250);

/// Serves the page and its data (`/`, `/data.json`) on 127.0.0.1 (`http.rs`), making them anew
/// on a thread of their own whenever the log file changed, so that no client waits on that.
fn serve(args: &ViewArgs) -> Result<ExitCode, Error> {
    let address = SocketAddr::from(([127, 0, 0, 1], args.port));
    let io = |source| Error::Io { path: PathBuf::from(address.to_string()), source };
    let runtime = crate::http::runtime().map_err(io)?;
    let listener = crate::http::bind(&runtime, address).map_err(io)?;
    let bound = listener.local_addr().map_err(io)?;
    let (pages, page) = watch::channel(Arc::new(make_page(args)));
    let follow = args.clone();
    std::thread::Builder::new()
        .name("view-follow".into())
        .spawn(move || {
            let mut files = crate::watch::Watch::new(None, &[&follow.log]);
            // Ends when the server is gone.
            while !pages.is_closed() {
                std::thread::sleep(LOOK_EVERY);
                if files.changed().is_some() {
                    pages.send_replace(Arc::new(make_page(&follow)));
                }
            }
        })
        .map_err(io)?;
    eprintln!("serving {} on http://{bound}/ (Ctrl-C stops)", args.log.display());
    let router = Router::new()
        .route("/", get(page_answer))
        .route("/index.html", get(page_answer))
        .route("/data.json", get(data_answer))
        .fallback(|| async { (StatusCode::NOT_FOUND, "not found") })
        .with_state(page);
    runtime.block_on(crate::http::serve(listener, router, MAX_CLIENTS));
    Ok(ExitCode::SUCCESS)
}

/// The page, or the text saying why the log makes none.
type Made = watch::Receiver<Arc<Result<String, String>>>;

/// `/`: the page.
async fn page_answer(State(page): State<Made>) -> Response {
    let page = page.borrow().clone();
    match &*page {
        Ok(page) => answer(StatusCode::OK, "text/html; charset=utf-8", page.clone()),
        Err(message) => answer(StatusCode::INTERNAL_SERVER_ERROR, "text/plain; charset=utf-8", message.clone()),
    }
}

/// `/data.json`: the data the page holds (what its script element contains).
async fn data_answer(State(page): State<Made>) -> Response {
    let page = page.borrow().clone();
    match &*page {
        Ok(page) => answer(StatusCode::OK, "application/json", data_of(page).to_string()),
        Err(message) => answer(StatusCode::INTERNAL_SERVER_ERROR, "text/plain; charset=utf-8", message.clone()),
    }
}

fn answer(status: StatusCode, kind: &'static str, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, kind), (header::CACHE_CONTROL, "no-store")], body).into_response()
}

/// The data the page holds (what its script element contains).
fn data_of(page: &str) -> &str {
    let start = page.find("type=\"application/json\">").map(|i| i + "type=\"application/json\">".len());
    let end = page.rfind("</script>\n<script>").or_else(|| page.find("</script>\n<script>"));
    match (start, end) {
        (Some(s), Some(e)) if s < e => &page[s..e],
        _ => "null",
    }
}
