//! `tabula view`: a game log as one self-contained HTML page that steps through the game in a
//! browser, for everyone or for one seat; `--serve` serves it on this machine and follows a log
//! that is still being written.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

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

/// How long a client has to send its request (its line and headers), after which it is closed:
/// a client that connects and says nothing does not keep its place for long.
const REQUEST_TIME: Duration = Duration::from_secs(10);
/// How long writing an answer may wait for the client to read.
const WRITE_TIME: Duration = Duration::from_secs(30);
/// The most bytes of a request's line and headers read; a longer request is answered 431.
const MAX_REQUEST_HEAD: usize = 8 << 10;
/// The most clients answered at once; one more is answered 503 at once.
const MAX_CLIENTS: usize = 16;

/// Serves the page and its data on 127.0.0.1, making them anew whenever the log file changed.
/// Each client is answered on its own thread, so that a slow one holds up no other.
fn serve(args: &ViewArgs) -> Result<ExitCode, Error> {
    let address = format!("127.0.0.1:{}", args.port);
    let io = |source| Error::Io { path: PathBuf::from(&address), source };
    let listener = TcpListener::bind(&address).map_err(io)?;
    let bound = listener.local_addr().map_err(io)?;
    eprintln!("serving {} on http://{bound}/ (Ctrl-C stops)", args.log.display());
    let mut files = crate::watch::Watch::new(None, &[&args.log]);
    let mut page = Arc::new(make_page(args));
    let clients = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming().flatten() {
        if files.changed().is_some() {
            page = Arc::new(make_page(args));
        }
        if clients.load(Ordering::SeqCst) >= MAX_CLIENTS {
            let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
            // Answered here, without waiting on the client: the serving loop must not stall.
            respond(&stream, "503 Service Unavailable", "text/plain", "busy: too many clients at once");
            continue;
        }
        clients.fetch_add(1, Ordering::SeqCst);
        let (page, done) = (page.clone(), clients.clone());
        let answered = std::thread::Builder::new().name("view-client".into()).spawn(move || {
            answer(&stream, &page);
            done.fetch_sub(1, Ordering::SeqCst);
        });
        if answered.is_err() {
            // No thread to answer on: the client is dropped (its stream went with the closure).
            clients.fetch_sub(1, Ordering::SeqCst);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// What came of reading a request's head.
enum Head {
    /// The request line (headers are read, not kept).
    Line(String),
    /// The head passed [`MAX_REQUEST_HEAD`].
    TooLong,
    /// The client went away or took too long.
    Gone,
}

/// Reads a request's line and headers, up to the blank line that ends them: no more than
/// [`MAX_REQUEST_HEAD`] bytes, within [`REQUEST_TIME`] in all.
fn read_head(mut stream: &TcpStream) -> Head {
    let deadline = Instant::now() + REQUEST_TIME;
    let mut head = Vec::new();
    let mut chunk = [0u8; 1024];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || stream.set_read_timeout(Some(left)).is_err() {
            return Head::Gone;
        }
        let n = match stream.read(&mut chunk) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return Head::Gone,
        };
        head.extend_from_slice(&chunk[..n]);
        let end = head.windows(4).position(|w| w == b"\r\n\r\n").or_else(|| head.windows(2).position(|w| w == b"\n\n"));
        if end.is_some_and(|e| e <= MAX_REQUEST_HEAD) || (n == 0 && head.contains(&b'\n')) {
            let line = head.split(|&b| b == b'\n').next().unwrap_or_default();
            return Head::Line(String::from_utf8_lossy(line).into_owned());
        }
        if head.len() > MAX_REQUEST_HEAD {
            return Head::TooLong;
        }
        if n == 0 {
            return Head::Gone;
        }
    }
}

/// Answers one client: `/` is the page, `/data.json` its data; a log that does not replay is
/// shown as text.
fn answer(stream: &TcpStream, page: &Result<String, String>) {
    let _ = stream.set_write_timeout(Some(WRITE_TIME));
    let request = match read_head(stream) {
        Head::Line(line) => line,
        Head::TooLong => {
            let message = format!("the request's line and headers pass {} KB", MAX_REQUEST_HEAD >> 10);
            respond(stream, "431 Request Header Fields Too Large", "text/plain", &message);
            close_gently(stream);
            return;
        }
        Head::Gone => return,
    };
    let path = request.split_whitespace().nth(1).unwrap_or("/");
    let (status, kind, body) = match (path, page) {
        ("/data.json", Ok(page)) => ("200 OK", "application/json", data_of(page)),
        ("/" | "/index.html", Ok(page)) => ("200 OK", "text/html; charset=utf-8", page.as_str()),
        (_, Err(message)) => ("500 Internal Server Error", "text/plain; charset=utf-8", message.as_str()),
        _ => ("404 Not Found", "text/plain", "not found"),
    };
    respond(stream, status, kind, body);
    close_gently(stream);
}

/// Writes a whole answer (the connection closes when the stream is dropped).
fn respond(mut stream: &TcpStream, status: &str, kind: &str, body: &str) {
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes()).and_then(|_| stream.write_all(body.as_bytes()));
}

/// Ends the answer, then reads what the client still sends, a little and briefly, before the
/// stream is closed: closing with unread bytes resets the connection, which can lose the answer
/// on its way to the client.
fn close_gently(mut stream: &TcpStream) {
    let _ = stream.shutdown(Shutdown::Write);
    let _ = stream.set_read_timeout(Some(Duration::from_millis(200)));
    let mut rest = [0u8; 4096];
    let mut drained = 0;
    while drained < 64 << 10 {
        match stream.read(&mut rest) {
            Ok(0) | Err(_) => break,
            Ok(n) => drained += n,
        }
    }
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
