//! `tabula serve`: a game played in browsers, one private link per human seat, agents on the
//! other seats.
//!
//! The game (`Game` holds `Rc`s) stays on the main thread, which plays it as `tabula play` does
//! (the simulator's `Scheduler` in turn-based games; in real time, the game clock follows the
//! wall clock and each seat acts when it likes). The HTTP server runs on a thread of its own
//! (`http.rs`) and talks to the game over channels: after every change the game thread publishes
//! each human seat's message (`tabula::seat_message`: its view, its story since its last
//! decision, its options) into a `watch` channel the seat's clients read; choices and requests
//! for a seat's page come back over one command channel. A client only ever gets what its
//! seat's channels hold, and only with the seat's token.
//!
//! The interface (documented in docs/serve.md) is, under `/seat/TOKEN/`: the page (`/`), its
//! data (`data.json`, the replay viewer's data for the seat), the seat's message (`state`, with
//! `?after=VERSION` a long poll), and its choices (`POST act` with `{"version":V,"option":I}`
//! or `{"version":V,"pass":true}`).

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{DefaultBodyLimit, Path as UrlPath, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use tokio::sync::{oneshot, watch};

use tabula::agent::Agent;
use tabula::diag::render;
use tabula::log::{parse, record, rules_for_in};
use tabula::rules::SeatId;
use tabula::seat_message::{AskedNow, SeatMessage, seat_message};
use tabula::sim::{Asked, Scheduler, decide, seated_agents};
use tabula::view::sight_fingerprint;
use tabula::viewer::{Part, page};
use tabula::{Action, Error, Game, Rules};

use crate::play::{LogFile, Seated};

/// `tabula serve`'s arguments.
#[derive(clap::Args, Clone)]
pub struct ServeArgs {
    #[command(flatten)]
    table: crate::play::TableArgs,
    /// Who plays a seat: `human` (the default: a link is printed for each), `random`, `search`
    /// (`search:playouts=400`), or one of the ruleset's agents, as in `--seat blue=random`.
    #[arg(long = "seat", value_name = "SEAT=human|random|search|AGENT", value_parser = crate::parse_set)]
    seats: Vec<(String, String)>,
    /// The address to listen on (default: this machine only). Anyone who can reach it and has a
    /// seat's link plays that seat.
    #[arg(long, default_value = "127.0.0.1")]
    bind: IpAddr,
    /// The port (0: any free port; the links printed say which).
    #[arg(long, default_value_t = 8018)]
    port: u16,
    /// Real-time games: how many times faster than the wall clock the game clock runs (for
    /// trying a game out quickly; 1 is table speed).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    speed: u32,
}

/// The most connections served at once (each seat's page keeps one waiting for news and one
/// or two for its drawing).
const MAX_CONNECTIONS: usize = 256;
/// The most bytes of a request's body (a choice is a few dozen).
const MAX_BODY: usize = 4 << 10;
/// How long a long poll for a seat's next message waits before answering with the current one.
const POLL_TIME: Duration = Duration::from_secs(20);
/// How long a request waits for the game thread (which answers between two agents' actions).
const GAME_TIME: Duration = Duration::from_secs(10);
/// In real time: the longest the game thread sleeps between looks at the clock.
const TICK: Duration = Duration::from_millis(50);

/// What a seat's clients are given: its latest message, as JSON, with its version.
#[derive(Clone, Debug)]
struct Published {
    version: u64,
    json: Arc<str>,
}

impl Default for Published {
    /// Before the game's first message: `null`, version 0.
    fn default() -> Self {
        Published { version: 0, json: Arc::from("null") }
    }
}

/// A choice a client sent.
#[derive(Debug, Deserialize)]
struct Choice {
    /// The version of the message whose options the client chose from.
    version: u64,
    /// The option's index in that message's `options`.
    #[serde(default)]
    option: Option<usize>,
    /// Let the game go on (out of turn only).
    #[serde(default)]
    pass: bool,
}

/// Why a choice was not taken: the status and what to tell the client.
type Refusal = (StatusCode, String);

/// What the HTTP side asks of the game thread.
enum Command {
    /// A seat's choice; the answer says whether it was taken.
    Act { seat: SeatId, choice: Choice, reply: oneshot::Sender<Result<(), Refusal>> },
    /// The replay viewer's data for a seat's page, as JSON.
    Page { seat: SeatId, reply: oneshot::Sender<Arc<str>> },
}

/// A human seat as the HTTP side knows it.
struct SeatLink {
    seat: SeatId,
    token: String,
    news: watch::Receiver<Published>,
    /// Set when a client first asked for the seat's message: a real-time game's clock starts
    /// once every seat has.
    joined: Arc<AtomicBool>,
}

/// What the handlers share.
struct Shared {
    seats: Vec<SeatLink>,
    commands: mpsc::Sender<Command>,
}

impl Shared {
    fn seat(&self, token: &str) -> Option<&SeatLink> {
        // Every token is compared in full: how long a refusal takes says nothing of a token.
        let mut found = None;
        for link in &self.seats {
            if constant_time_eq(link.token.as_bytes(), token.as_bytes()) {
                found = Some(link);
            }
        }
        found
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// An unguessable token: 128 bits from the operating system.
fn token() -> String {
    use std::io::Read;
    let mut bytes = [0u8; 16];
    let read = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes));
    if read.is_err() {
        // No /dev/urandom: the standard library's hash keys, which it draws from the OS.
        let (a, b) = (crate::play::fresh_seed(), crate::play::fresh_seed());
        bytes[..8].copy_from_slice(&a.to_le_bytes());
        bytes[8..].copy_from_slice(&b.to_le_bytes());
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Runs `tabula serve`.
pub fn run(args: &ServeArgs) -> Result<ExitCode, Error> {
    let Some(table) = args.table.open("serve")? else {
        return Ok(ExitCode::FAILURE);
    };
    let rules = table.rules();
    // The HTTP side is bound first, so that a port in use is an error before the log is begun.
    let address = SocketAddr::new(args.bind, args.port);
    let io = |source| Error::Io { path: PathBuf::from(address.to_string()), source };
    let runtime = crate::http::runtime().map_err(io)?;
    let listener = crate::http::bind(&runtime, address).map_err(io)?;
    let bound = listener.local_addr().map_err(io)?;
    let seated = table.seated(&args.seats, args.table.log())?;
    let humans: Vec<SeatId> =
        (0..seated.kinds.len() as SeatId).filter(|&s| seated.kinds[s as usize] == "human").collect();
    if humans.is_empty() {
        return Err(Error::Input("serve: no seat is a human's (`--seat SEAT=human`)".into()));
    }

    let (commands, inbox) = mpsc::channel();
    let mut links = Vec::new();
    let mut outboxes = Vec::new();
    let mut joined = Vec::new();
    for &seat in &humans {
        let (tx, rx) = watch::channel(Published::default());
        let flag = Arc::new(AtomicBool::new(false));
        links.push(SeatLink { seat, token: token(), news: rx, joined: flag.clone() });
        outboxes.push((seat, tx));
        joined.push(flag);
    }
    outln!("{}: serving on http://{bound}/ (Ctrl-C stops)", rules.name);
    for (s, kind) in seated.kinds.iter().enumerate() {
        let seat = &rules.seats[s].name;
        match links.iter().find(|l| l.seat as usize == s) {
            Some(link) => outln!("  {seat}: http://{bound}/seat/{}/", link.token),
            None => outln!("  {seat}: {kind}"),
        }
    }
    if rules.pace.is_some() {
        outln!("the clock starts when every seat has opened its link");
    }
    let shared = Arc::new(Shared { seats: links, commands });
    let router = router(shared);
    std::thread::Builder::new()
        .name("http".into())
        .spawn(move || runtime.block_on(crate::http::serve(listener, router, MAX_CONNECTIONS)))
        .map_err(io)?;

    let mut host = Host::new(seated, outboxes, inbox, args.speed, args.table.resumed())?;
    host.joined = joined;
    if let Err(e) = host.run() {
        eprint!("{}", render(&e, &rules.sources));
        return Ok(ExitCode::FAILURE);
    }
    let logged = host.log.as_ref().map(|l| format!(", log {}", l.path.display())).unwrap_or_default();
    outln!("game over: {}; seed {}{logged}", host.game.outcome().unwrap_or(""), host.seed);
    // The pages stay served (each seat's story of the end) until the server is stopped.
    host.serve_after_the_end();
    Ok(ExitCode::SUCCESS)
}

/// The HTTP interface.
fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/seat/{token}/", get(seat_page))
        .route("/seat/{token}/data.json", get(seat_data))
        .route("/seat/{token}/state", get(seat_state))
        .route("/seat/{token}/act", post(seat_act))
        .fallback(|| async { (StatusCode::NOT_FOUND, "not found: a seat's link is /seat/TOKEN/") })
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(shared)
}

fn not_found() -> Response {
    (StatusCode::NOT_FOUND, "not found").into_response()
}

fn json(body: Arc<str>) -> Response {
    ([(header::CONTENT_TYPE, "application/json"), (header::CACHE_CONTROL, "no-store")], body.to_string())
        .into_response()
}

/// Asks the game thread for a seat's page data.
async fn page_data(shared: &Shared, seat: SeatId) -> Option<Arc<str>> {
    let (reply, answer) = oneshot::channel();
    shared.commands.send(Command::Page { seat, reply }).ok()?;
    tokio::time::timeout(GAME_TIME, answer).await.ok()?.ok()
}

/// `GET /seat/TOKEN/`: the seat's page, the replay viewer's with the seat's data and the
/// panel to play from.
async fn seat_page(State(shared): State<Arc<Shared>>, UrlPath(token): UrlPath<String>) -> Response {
    let Some(link) = shared.seat(&token) else { return not_found() };
    let data = page_data(&shared, link.seat).await.unwrap_or_else(|| Arc::from("null"));
    let page = include_str!("viewer.html")
        .replace("/*TABULA_DATA*/null", &data)
        .replace("</body>", &format!("{}</body>", include_str!("serve.html")));
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8"), (header::CACHE_CONTROL, "no-store")], page).into_response()
}

/// `GET /seat/TOKEN/data.json`: the page's data (the viewer's, for the seat alone).
async fn seat_data(State(shared): State<Arc<Shared>>, UrlPath(token): UrlPath<String>) -> Response {
    let Some(link) = shared.seat(&token) else { return not_found() };
    match page_data(&shared, link.seat).await {
        Some(data) => json(data),
        None => (StatusCode::SERVICE_UNAVAILABLE, "the game is busy: ask again").into_response(),
    }
}

/// The query of `state`.
#[derive(Deserialize)]
struct After {
    after: Option<u64>,
}

/// `GET /seat/TOKEN/state[?after=V]`: the seat's message, once its version passes V (0 when not
/// given), or after [`POLL_TIME`] as it is.
async fn seat_state(
    State(shared): State<Arc<Shared>>,
    UrlPath(token): UrlPath<String>,
    Query(after): Query<After>,
) -> Response {
    let Some(link) = shared.seat(&token) else { return not_found() };
    link.joined.store(true, Ordering::SeqCst);
    let mut news = link.news.clone();
    // Without `after`, only the first message is waited for (a client quicker than the game).
    let after = after.after.unwrap_or(0);
    let newer = news.wait_for(|p| p.version > after);
    let _ = tokio::time::timeout(POLL_TIME, newer).await;
    let json_text = news.borrow().json.clone();
    json(json_text)
}

/// `POST /seat/TOKEN/act`: a choice among the options of the message of the version given.
async fn seat_act(
    State(shared): State<Arc<Shared>>,
    UrlPath(token): UrlPath<String>,
    body: axum::body::Bytes,
) -> Response {
    let Some(link) = shared.seat(&token) else { return not_found() };
    let choice: Choice = match serde_json::from_slice(&body) {
        Ok(choice) => choice,
        Err(e) => return refusal(StatusCode::BAD_REQUEST, format!("expected {{\"version\":V,\"option\":I}}: {e}")),
    };
    let (reply, answer) = oneshot::channel();
    if shared.commands.send(Command::Act { seat: link.seat, choice, reply }).is_err() {
        return refusal(StatusCode::SERVICE_UNAVAILABLE, "the game has stopped".into());
    }
    match tokio::time::timeout(GAME_TIME, answer).await {
        Ok(Ok(Ok(()))) => json(Arc::from("{\"ok\":true}")),
        Ok(Ok(Err((status, message)))) => refusal(status, message),
        _ => refusal(StatusCode::SERVICE_UNAVAILABLE, "the game did not answer: ask again".into()),
    }
}

fn refusal(status: StatusCode, message: String) -> Response {
    let body = serde_json::json!({ "error": message }).to_string();
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// A page to draw: the game so far as a log's text, for a seat, and the key of the game's
/// moment (its change count and clock).
struct PageJob {
    seat: SeatId,
    key: u64,
    log: String,
    reply: oneshot::Sender<Arc<str>>,
}

/// The drawing thread: makes each seat's page data (the viewer's, `viewer::page` for the seat
/// alone) from the game's log, under rules of its own loaded from the ruleset folder as the log
/// names them (rules are not `Send`), so that replaying a long game for a page holds up neither
/// the game nor the other clients. Requests that queued while it worked are answered together,
/// each seat's with the latest game.
fn draw_pages(jobs: &mpsc::Receiver<PageJob>, ruleset: &str, players: u8) {
    let mut rules: Option<Rc<Rules>> = None;
    let mut made: Vec<Option<(u64, Arc<str>)>> = vec![None; players as usize];
    while let Ok(first) = jobs.recv() {
        let mut batch = vec![first];
        batch.extend(jobs.try_iter());
        // The latest job of each seat is the one drawn.
        let mut latest: Vec<Option<usize>> = vec![None; players as usize];
        for (k, job) in batch.iter().enumerate() {
            if let Some(slot) = latest.get_mut(job.seat as usize) {
                *slot = Some(k);
            }
        }
        for (seat, k) in latest.iter().enumerate() {
            let Some(job) = k.map(|k| &batch[k]) else { continue };
            if made[seat].as_ref().is_some_and(|(key, _)| *key == job.key) {
                continue;
            }
            made[seat] = Some((job.key, draw(&job.log, &mut rules, ruleset, job.seat, players)));
        }
        for job in batch {
            let data = made.get(job.seat as usize).and_then(|m| m.as_ref()).map(|(_, d)| d.clone());
            let _ = job.reply.send(data.unwrap_or_else(|| Arc::from("null")));
        }
    }
}

/// A seat's page data for a game's log text, as JSON (`null` when there is none: a page past
/// the viewer's limits draws nothing, and its panel still plays).
fn draw(text: &str, rules: &mut Option<Rc<Rules>>, ruleset: &str, seat: SeatId, players: u8) -> Arc<str> {
    let Ok(log) = parse(text, 0) else { return Arc::from("null") };
    if rules.is_none() {
        *rules = rules_for_in(&log, Some(ruleset)).ok().map(Rc::new);
    }
    let Some(rules) = rules.clone() else { return Arc::from("null") };
    let name = format!("{} (live)", rules.id);
    match page(&log, rules, players, &[Some(seat)], Part::default(), &name) {
        Ok(page) => Arc::from(serde_json::to_string(&page).unwrap_or_else(|_| "null".into()).replace('<', "\\u003c")),
        Err(_) => Arc::from("null"),
    }
}

/// A human seat as the game thread keeps it.
struct Human {
    seat: SeatId,
    outbox: watch::Sender<Published>,
    /// The end of the event stream at the seat's last decision: its story starts there.
    told: usize,
    /// How the seat is asked now, and the options it was sent (a choice names one by index).
    asked: Option<AskedNow>,
    legal: Vec<Action>,
    /// The last message sent (version 0), to send a new one only when it differs.
    last: Option<SeatMessage>,
    version: u64,
}

/// The game thread: the game, its players, its log, and the channels to the HTTP side.
struct Host {
    game: Game,
    seed: u64,
    log: Option<LogFile>,
    agents: Vec<Box<dyn Agent>>,
    humans: Vec<Human>,
    inbox: mpsc::Receiver<Command>,
    /// The drawing thread's jobs.
    drawer: mpsc::Sender<PageJob>,
    speed: i64,
    /// Whether each human seat's client has come (see `SeatLink::joined`).
    joined: Vec<Arc<AtomicBool>>,
}

impl Host {
    fn new(
        seated: Seated,
        outboxes: Vec<(SeatId, watch::Sender<Published>)>,
        inbox: mpsc::Receiver<Command>,
        speed: u32,
        resumed: bool,
    ) -> Result<Host, Error> {
        let Seated { game, seed, kinds, log } = seated;
        // Human seats get an agent too, never asked: the list is indexed by seat. People wait
        // for a search seat: its playouts run on every core (the same choices, the log keeps
        // the name as given).
        let agent_kinds: Vec<String> = kinds
            .iter()
            .map(|k| if k == "human" { "random".to_string() } else { tabula::search::on_every_core(k) })
            .collect();
        let agents = seated_agents(game.rules(), &agent_kinds, seed)?;
        // A resumed game's story starts where it was resumed (the page shows what came before).
        let told = if resumed { game.events().len() } else { 0 };
        let humans = outboxes
            .into_iter()
            .map(|(seat, outbox)| Human { seat, outbox, told, asked: None, legal: Vec::new(), last: None, version: 0 })
            .collect();
        let (drawer, jobs) = mpsc::channel();
        let ruleset = game.rules().dir.to_string_lossy().into_owned();
        let players = game.players();
        // Without the drawing thread, pages draw nothing and the panels still play.
        let _ = std::thread::Builder::new().name("drawer".into()).spawn(move || draw_pages(&jobs, &ruleset, players));
        Ok(Host { game, seed, log, agents, humans, inbox, drawer, speed: i64::from(speed), joined: Vec::new() })
    }

    fn human(&self, seat: SeatId) -> Option<usize> {
        self.humans.iter().position(|h| h.seat == seat)
    }

    fn write_log(&mut self) -> Result<(), Error> {
        match self.log.as_mut() {
            Some(log) => log.write(&self.game),
            None => Ok(()),
        }
    }

    /// Sends each human seat its message, where it changed. In real time every seat with
    /// options is asked; in turn order, the seats the loop asks.
    fn publish(&mut self) {
        // A page told of a move the log does not hold yet would find the log short of it (and
        // a server stopped then would lose a move its players saw).
        debug_assert!(
            self.log.as_ref().is_none_or(|log| log.holds(&self.game)),
            "a seat would be told of a move its log does not hold yet"
        );
        let real_time = self.game.rules().pace.is_some();
        for h in &mut self.humans {
            if real_time {
                h.legal =
                    if self.game.is_over() { Vec::new() } else { self.game.legal_actions(h.seat).unwrap_or_default() };
                h.asked = (!h.legal.is_empty()).then_some(AskedNow::RealTime);
            }
            let message = seat_message(&self.game, h.seat, h.told, h.asked, &h.legal);
            if h.last.as_ref() == Some(&message) {
                continue;
            }
            h.version += 1;
            let mut sent = message.clone();
            sent.version = h.version;
            let json = serde_json::to_string(&sent).unwrap_or_else(|_| "null".into());
            h.outbox.send_replace(Published { version: h.version, json: Arc::from(json) });
            h.last = Some(message);
        }
    }

    /// Hands the making of `seat`'s page data to the drawing thread (`drawer`): the game so far
    /// as a log (no seed), with the game's change count and clock, by which the drawer knows
    /// whether it made it already.
    fn page_data(&mut self, seat: SeatId, reply: oneshot::Sender<Arc<str>>) {
        let key = self.game.state().changes() ^ (self.game.clock() as u64).rotate_left(32);
        let log = record(&self.game, None).to_string();
        if let Err(mpsc::SendError(job)) = self.drawer.send(PageJob { seat, key, log, reply }) {
            let _ = job.reply.send(Arc::from("null"));
        }
    }

    /// Answers a command that is not a choice the game waits for: page data, or a choice
    /// refused (`why`).
    fn answer_aside(&mut self, command: Command, why: &str) {
        match command {
            Command::Page { seat, reply } => self.page_data(seat, reply),
            Command::Act { reply, .. } => {
                let _ = reply.send(Err((StatusCode::CONFLICT, why.to_string())));
            }
        }
    }

    fn run(&mut self) -> Result<(), Error> {
        self.write_log()?;
        if self.game.rules().pace.is_some() { self.run_real_time() } else { self.run_in_turn() }
    }

    /// A turn-based game: the simulator's order of turns; the game waits for a human on turn.
    fn run_in_turn(&mut self) -> Result<(), Error> {
        let mut scheduler = Scheduler::new(&self.game, 10_000_000);
        let mut legal = Vec::new();
        loop {
            let changes = self.game.state().changes();
            let next = scheduler.next(&mut self.game)?;
            if self.game.state().changes() != changes {
                self.write_log()?;
            }
            self.publish();
            let Some(seat) = next else { return Ok(()) };
            let before = self.game.state().changes();
            let taken = match self.human(seat) {
                Some(h) => self.human_turn(h, scheduler.out_of_turn())?,
                None => {
                    let asked =
                        if scheduler.out_of_turn() { Asked::OutOfTurn } else { Asked::OnTurn { real_time: false } };
                    match decide(&mut *self.agents[seat as usize], &self.game, seat, asked, &mut legal)? {
                        Some(action) => {
                            self.game.apply_unchecked(&action)?;
                            Some(action.action)
                        }
                        None => None,
                    }
                }
            };
            self.write_log()?;
            scheduler.done(&self.game, seat, taken, before);
        }
    }

    /// Asks human seat `h` (the `h`th) and waits for its choice, answering other requests
    /// meanwhile; returns the action taken, if any.
    fn human_turn(&mut self, h: usize, out_of_turn: bool) -> Result<Option<u16>, Error> {
        let seat = self.humans[h].seat;
        let legal = self.game.legal_actions(seat)?;
        if legal.is_empty() {
            if out_of_turn {
                return Ok(None);
            }
            let name = &self.game.rules().seats[seat as usize].name;
            return Err(Error::Input(format!(
                "{name} must decide in phase `{}` but has no legal action",
                self.game.phase()
            )));
        }
        self.humans[h].legal = legal;
        self.humans[h].asked = Some(if out_of_turn { AskedNow::OutOfTurn } else { AskedNow::Turn });
        self.publish();
        loop {
            let Ok(command) = self.inbox.recv() else {
                return Err(Error::Input("the server stopped".into()));
            };
            let Command::Act { seat: from, choice, reply } = command else {
                self.answer_aside(command, "");
                continue;
            };
            let human = &self.humans[h];
            if from != seat {
                let _ = reply.send(Err((StatusCode::CONFLICT, "not your turn".into())));
                continue;
            }
            if choice.version != human.version {
                let message = format!("the options changed: version {} is current", human.version);
                let _ = reply.send(Err((StatusCode::CONFLICT, message)));
                continue;
            }
            let action = match (choice.option, choice.pass) {
                (Some(i), false) if i < human.legal.len() => Some(human.legal[i]),
                (None, true) if out_of_turn => None,
                _ => {
                    let n = human.legal.len();
                    let pass = if out_of_turn { ", or \"pass\": true" } else { "" };
                    let _ = reply
                        .send(Err((StatusCode::BAD_REQUEST, format!("choose an option from 0 to {}{pass}", n - 1))));
                    continue;
                }
            };
            if let Some(action) = &action {
                self.game.apply_unchecked(action)?;
            }
            // The log first: no page is told of a move the log does not hold yet (a page that
            // reads the log, or a server stopped, right after the news would find it short).
            self.write_log()?;
            let human = &mut self.humans[h];
            human.told = self.game.events().len();
            human.asked = None;
            human.legal.clear();
            // Told only once the seat's message no longer offers what it chose: a client that
            // asks for its message after the answer never finds the old options.
            self.publish();
            let _ = reply.send(Ok(()));
            return Ok(action.map(|a| a.action));
        }
    }

    /// A real-time game: once every human seat's client has come, the game clock follows the
    /// wall clock (`speed` times as fast); the
    /// timers fire when it reaches them, each agent acts when ready (its `pace` after its last
    /// action, waiting while it sees no change, as in simulation), and humans act whenever they
    /// choose one of their options.
    fn run_real_time(&mut self) -> Result<(), Error> {
        let pace = self.game.rules().pace.unwrap_or(1000);
        // The clock waits for the players: it starts once every seat's client has come.
        self.publish();
        while !self.joined.iter().all(|j| j.load(Ordering::SeqCst)) {
            match self.inbox.recv_timeout(TICK) {
                Ok(command) => self.answer_aside(command, "the clock starts when every seat has opened its link"),
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => return Err(Error::Input("the server stopped".into())),
            }
        }
        let players = self.game.players() as usize;
        let start = Instant::now();
        let clock_at_start = self.game.clock();
        let now =
            |speed: i64| clock_at_start.saturating_add((start.elapsed().as_millis() as i64).saturating_mul(speed));
        let mut ready = vec![clock_at_start; players];
        // For each waiting agent: the change count and its sight when it began to wait.
        let mut idle: Vec<Option<(u64, u64)>> = vec![None; players];
        let mut legal = Vec::new();
        self.publish();
        while !self.game.is_over() {
            let at = now(self.speed).max(self.game.clock());
            let changes = self.game.state().changes();
            if self.game.next_timer_at().is_some_and(|t| t <= at) {
                self.game.advance_clock(at)?;
            }
            for seat in 0..players as SeatId {
                if self.human(seat).is_some() || self.game.is_over() || ready[seat as usize] > at {
                    continue;
                }
                if !self.game.acting().any(|s| s == seat) {
                    continue;
                }
                if let Some((seen, sight)) = idle[seat as usize] {
                    let now_changes = self.game.state().changes();
                    if now_changes == seen || sight_fingerprint(&self.game, seat) == sight {
                        idle[seat as usize] = Some((now_changes, sight));
                        continue;
                    }
                    idle[seat as usize] = None;
                }
                self.game.advance_clock(at.max(self.game.clock()))?;
                let before = self.game.state().changes();
                let asked = Asked::OnTurn { real_time: true };
                let taken = decide(&mut *self.agents[seat as usize], &self.game, seat, asked, &mut legal)?;
                if let Some(action) = taken {
                    self.game.apply_unchecked(&action)?;
                    let took = self.game.rules().actions[action.action as usize].time.unwrap_or(pace);
                    ready[seat as usize] = at.saturating_add(took.max(1));
                }
                let after = self.game.state().changes();
                if taken.is_none() || after == before {
                    idle[seat as usize] = Some((after, sight_fingerprint(&self.game, seat)));
                }
            }
            if self.game.state().changes() != changes {
                self.write_log()?;
                self.publish();
            }
            if self.game.is_over() {
                break;
            }
            match self.inbox.recv_timeout(TICK) {
                Ok(Command::Act { seat, choice, reply }) => {
                    let result = self.real_time_choice(seat, &choice, now(self.speed));
                    self.write_log()?;
                    self.publish();
                    let taken = result.as_ref().map(|_| ()).map_err(|(s, m)| (*s, m.clone()));
                    let _ = reply.send(taken);
                    if let Err((StatusCode::INTERNAL_SERVER_ERROR, message)) = result {
                        return Err(Error::Input(message));
                    }
                }
                Ok(command) => self.answer_aside(command, ""),
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => return Err(Error::Input("the server stopped".into())),
            }
        }
        self.write_log()?;
        self.publish();
        Ok(())
    }

    /// A human's choice in real time, at game time `at`: taken if it names one of the options of
    /// the seat's current message and is still legal once the clock is moved to `at`.
    fn real_time_choice(&mut self, seat: SeatId, choice: &Choice, at: i64) -> Result<(), Refusal> {
        let Some(h) = self.human(seat) else { return Err((StatusCode::NOT_FOUND, "no such seat".into())) };
        let human = &self.humans[h];
        if choice.version != human.version {
            return Err((StatusCode::CONFLICT, format!("the options changed: version {} is current", human.version)));
        }
        let Some(&action) = choice.option.and_then(|i| human.legal.get(i)) else {
            let n = human.legal.len();
            return Err((StatusCode::BAD_REQUEST, format!("choose an option from 0 to {}", n.saturating_sub(1))));
        };
        let internal = |e: Error| (StatusCode::INTERNAL_SERVER_ERROR, e.to_string());
        self.game.advance_clock(at.max(self.game.clock())).map_err(internal)?;
        if self.game.is_over() {
            return Err((StatusCode::CONFLICT, "the game is over".into()));
        }
        // The clock may have fired a timer that changed what is legal: refused, nothing changes.
        self.game.apply(&action).map_err(|e| match e {
            Error::Illegal { .. } => (StatusCode::CONFLICT, format!("no longer possible: {e}")),
            other => internal(other),
        })?;
        self.humans[h].told = self.game.events().len();
        Ok(())
    }

    /// After the end: the pages and messages stay served until the process is stopped.
    fn serve_after_the_end(&mut self) {
        for h in &mut self.humans {
            h.asked = None;
            h.legal.clear();
        }
        self.publish();
        while let Ok(command) = self.inbox.recv() {
            self.answer_aside(command, "the game is over");
        }
    }
}
