//! The OpenTafl Engine Protocol (OTEP), engine side, for Fetlar and Copenhagen: OpenTafl
//! (and its tournaments) run the engine as an external AI.
//!
//! OpenTafl keeps the game and tells the engine what happens: `rules`, `side`,
//! `opponent-move <moves> <position>`, `clock`, `play <side>` (answered `move a4-a1`),
//! `move <position>` (our move went through), `analyze <n> <seconds>` (answered
//! `analysis …`), `finish`, `goodbye`. Moves go out in OpenTafl's simple notation
//! (`from-to`); moves coming in may carry captures, a `K` prefix and the `+`/`-` marks of
//! full OpenTafl notation. Every position OpenTafl sends is checked against the engine's
//! own game, which keeps its history (for repetition) while they agree and is rebuilt
//! from OpenTafl's position when they do not. Lines the engine does not know are ignored.
//! See `docs/PROTOCOL.md`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use engine::{Clock, DefaultEngine, EngineGame, Event, Limits, Score};
use game::{Game, GameKind, Player};
use games::AnyGame;
use tafl::otg::OpenTaflRules;
use tafl::{ATTACKERS, Move, Position, Rules, Tafl};

use crate::output::Output;
use crate::search::{EngineCell, EngineSettings, Found, search_texts};
use crate::session::{Flow, LineProtocol};

/// How the OTEP engine plays when OpenTafl does not say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OtepSettings {
    /// Level, table size, threads.
    pub engine: EngineSettings,
    /// Time per move when OpenTafl sends no clock (untimed games).
    pub move_time: Duration,
}

impl Default for OtepSettings {
    fn default() -> Self {
        OtepSettings {
            engine: EngineSettings::default(),
            move_time: Duration::from_secs(5),
        }
    }
}

/// Kept back from every clock-derived time for the pipe and OpenTafl's own bookkeeping.
const OVERHEAD: Duration = Duration::from_millis(100);

/// OpenTafl's clock line: `clock <attacker-ms>[*] <defender-ms>[*] <overtime-s>
/// <attacker-overtimes> <defender-overtimes> ` (it ends with a space). A `*` marks a side
/// whose main time is spent: its number is then what is left of the current overtime
/// period. `-1` means no main time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OtepClock {
    /// Milliseconds left, attackers then defenders (negative: untimed).
    pub millis: [i64; 2],
    /// Whether each side is in overtime.
    pub in_overtime: [bool; 2],
    /// Length of one overtime period.
    pub period: Duration,
    /// Overtime periods left, attackers then defenders.
    pub periods: [u32; 2],
}

impl OtepClock {
    /// Reads the arguments of `clock`.
    ///
    /// ```
    /// use protocol::otep::OtepClock;
    /// let clock = OtepClock::parse("300000 12000* 30 3 2 ").unwrap();
    /// assert_eq!(clock.millis, [300_000, 12_000]);
    /// assert_eq!(clock.in_overtime, [false, true]);
    /// assert_eq!(clock.periods, [3, 2]);
    /// ```
    pub fn parse(text: &str) -> Result<OtepClock, String> {
        let words: Vec<&str> = text.split_whitespace().collect();
        if words.len() < 2 {
            return Err(format!(
                "clock {text:?}: expected <attacker-ms>[*] <defender-ms>[*] [overtime-seconds \
                 attacker-overtimes defender-overtimes]"
            ));
        }
        let mut millis = [0i64; 2];
        let mut in_overtime = [false; 2];
        for i in 0..2 {
            let word = words[i];
            let digits = word.strip_suffix('*');
            in_overtime[i] = digits.is_some();
            millis[i] = digits
                .unwrap_or(word)
                .parse()
                .map_err(|_| format!("clock: {word:?} is not a time in milliseconds"))?;
        }
        let number = |i: usize| -> Result<u64, String> {
            words.get(i).map_or(Ok(0), |w| {
                w.parse()
                    .map_err(|_| format!("clock: {w:?} is not a whole number"))
            })
        };
        Ok(OtepClock {
            millis,
            in_overtime,
            period: Duration::from_secs(number(2)?),
            periods: [
                u32::try_from(number(3)?).unwrap_or(u32::MAX),
                u32::try_from(number(4)?).unwrap_or(u32::MAX),
            ],
        })
    }

    /// The search limits for `me`'s move, or `None` if `me` plays untimed. In overtime
    /// the move must fit the current period (a move made within it keeps the period).
    /// In main time with periods left, the next period is time this move may use as
    /// well (main time runs out into it, and a move made within it keeps it) and comes
    /// back after every move: it counts both as time left and as an increment, so a
    /// nearly spent main time never leaves the engine with nothing to think with.
    #[must_use]
    pub fn limits(&self, me: Player) -> Option<Limits> {
        let i = me.index();
        if self.millis[i] < 0 {
            return None;
        }
        // Capped far beyond any real game, so the engine's time arithmetic cannot
        // overflow on an absurd clock line.
        let ms = |v: i64| Duration::from_millis(v.clamp(0, 1 << 40).unsigned_abs());
        if self.in_overtime[i] {
            let time = ms(self.millis[i]).mul_f64(0.8).saturating_sub(OVERHEAD);
            return Some(Limits::move_time(time.max(Duration::from_millis(10))));
        }
        let period = |side: usize| {
            if self.periods[side] > 0 && !self.in_overtime[side] {
                self.period.min(Duration::from_secs(1 << 30))
            } else {
                Duration::ZERO
            }
        };
        let remaining =
            |side: usize| (ms(self.millis[side]) + period(side)).saturating_sub(OVERHEAD);
        Some(Limits::clock(Clock {
            remaining: [remaining(0), remaining(1)],
            increment: [period(0), period(1)],
            moves_to_go: None,
        }))
    }
}

/// A line from OpenTafl.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Message {
    /// `hello` (OpenTafl answers ours).
    Hello,
    /// `rules <OpenTafl rules string>`.
    Rules(String),
    /// `start`: the game has begun.
    Start,
    /// `position <position record>`.
    Position(String),
    /// `side attackers|defenders`.
    Side(Player),
    /// `clock …`.
    Clock(OtepClock),
    /// `play attackers|defenders`: move now for that side.
    Play(Player),
    /// `move <position record>`: our move was made; the position after it.
    MoveMade(String),
    /// `opponent-move <move>[|<move>…] [<position record>]`.
    OpponentMove {
        /// The moves, oldest first.
        moves: Vec<String>,
        /// The position after them.
        position: Option<String>,
    },
    /// `analyze <count> <seconds>`.
    Analyze {
        /// How many candidate moves to report.
        count: usize,
        /// Time allowed.
        time: Duration,
    },
    /// `finish <code>`: 0 ended early, 1 draw, 2 attackers won, 3 defenders won.
    Finish(Option<i32>),
    /// `goodbye`: shut down.
    Goodbye,
    /// `error <code> [message]`: our move was refused (1, 2: wrong side, illegal).
    Error(i32),
}

fn parse_side(word: &str) -> Result<Player, String> {
    GameKind::Copenhagen
        .parse_side(word)
        .map_err(|_| format!("{word:?} is not attackers or defenders"))
}

impl Message {
    /// Reads a line: `Ok(None)` for lines OTEP engines ignore (unknown commands, our own
    /// `status`/`analysis` echoed back), `Err` for a known command that makes no sense.
    ///
    /// ```
    /// use protocol::otep::Message;
    /// use game::Player;
    /// assert_eq!(Message::parse("play defenders"), Ok(Some(Message::Play(Player::Second))));
    /// assert_eq!(Message::parse("simple-moves on"), Ok(None));
    /// assert!(Message::parse("play sideways").is_err());
    /// ```
    pub fn parse(line: &str) -> Result<Option<Message>, String> {
        let line = line.trim();
        let (word, rest) = line
            .split_once(char::is_whitespace)
            .map_or((line, ""), |(w, r)| (w, r.trim()));
        let need = |what: &str| {
            if rest.is_empty() {
                Err(format!("{word}: missing {what}"))
            } else {
                Ok(rest)
            }
        };
        Ok(Some(match word {
            "hello" => Message::Hello,
            "start" => Message::Start,
            "goodbye" => Message::Goodbye,
            "rules" => Message::Rules(need("rules string")?.to_owned()),
            "position" => Message::Position(need("position record")?.to_owned()),
            "side" => Message::Side(parse_side(need("side")?)?),
            "play" => Message::Play(parse_side(need("side")?)?),
            "clock" => Message::Clock(OtepClock::parse(rest)?),
            "move" => Message::MoveMade(need("position record")?.to_owned()),
            "opponent-move" => {
                let mut words = need("move")?.split_whitespace();
                let moves = words
                    .next()
                    .unwrap_or_default()
                    .split('|')
                    .filter(|m| !m.is_empty())
                    .map(str::to_owned)
                    .collect();
                Message::OpponentMove {
                    moves,
                    position: words.next().map(str::to_owned),
                }
            }
            "analyze" => {
                let mut words = rest.split_whitespace();
                let count = words
                    .next()
                    .and_then(|w| w.parse::<usize>().ok())
                    .ok_or_else(|| format!("analyze {rest:?}: expected <count> <seconds>"))?;
                let seconds = words
                    .next()
                    .and_then(|w| w.parse::<f64>().ok())
                    .filter(|s| s.is_finite() && *s >= 0.0)
                    .ok_or_else(|| format!("analyze {rest:?}: expected <count> <seconds>"))?;
                Message::Analyze {
                    count,
                    time: Duration::from_secs_f64(seconds.min(86_400.0)),
                }
            }
            "finish" => {
                Message::Finish(rest.split_whitespace().next().and_then(|w| w.parse().ok()))
            }
            "error" => Message::Error(
                rest.split_whitespace()
                    .next()
                    .and_then(|w| w.parse().ok())
                    .unwrap_or(0),
            ),
            _ => return Ok(None),
        }))
    }
}

/// What a search thread shares with the session: whether its result is still wanted,
/// and the move it sent.
#[derive(Default)]
struct JobShared {
    discard: bool,
    sent: Option<Move>,
}

/// A search running on the engine's worker.
struct Job {
    shared: Arc<Mutex<JobShared>>,
    /// An `analyze` (stopped at the end of input) rather than a `play` (let finish).
    analysis: bool,
}

/// An OTEP engine session. Say `hello` with [`LineProtocol::start`], then feed it OpenTafl's
/// lines.
///
/// ```
/// use protocol::{LineProtocol, Output, otep::{OtepSession, OtepSettings}};
/// let (out, lines) = Output::channel();
/// let mut session = OtepSession::new(out, OtepSettings::default());
/// session.start();
/// assert_eq!(lines.recv().unwrap(), "hello");
/// session.handle_line("rules dim:9 start:/3ttt3/9/9/9/9/9/9/9/9/");
/// assert!(lines.recv().unwrap().starts_with("error -1 unsupported rules: dim:9"));
/// ```
pub struct OtepSession {
    out: Output,
    settings: OtepSettings,
    rules: Option<Rules>,
    game: Option<Tafl>,
    engine: EngineCell<Tafl>,
    /// The side OpenTafl last named (`side` or `play`).
    side: Option<Player>,
    clock: Option<OtepClock>,
    job: Option<Job>,
    /// Our last move, sent but not yet confirmed by `move <position>`.
    pending: Option<Move>,
    /// The `finish` code, once OpenTafl has ended the game (until the next `rules` or
    /// `position`): no more moves are played in it.
    finished: Option<i32>,
}

impl std::fmt::Debug for OtepSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OtepSession")
            .field("rules", &self.rules)
            .field("position", &self.game.as_ref().map(Game::position_string))
            .field("side", &self.side)
            .field("clock", &self.clock)
            .field("searching", &self.job.is_some())
            .finish()
    }
}

impl OtepSession {
    /// A session that has not yet received rules.
    #[must_use]
    pub fn new(out: Output, settings: OtepSettings) -> OtepSession {
        OtepSession {
            out,
            settings,
            rules: None,
            game: None,
            engine: EngineCell::default(),
            side: None,
            clock: None,
            job: None,
            pending: None,
            finished: None,
        }
    }

    /// The engine's view of the game: the position and side to move, if rules were given.
    #[must_use]
    pub fn position_string(&self) -> Option<String> {
        self.game.as_ref().map(Game::position_string)
    }

    /// The moves of the engine's game since it was last (re)built, with captures.
    #[must_use]
    pub fn move_texts(&self) -> Vec<String> {
        self.game.as_ref().map(Tafl::move_texts).unwrap_or_default()
    }

    /// Whether a search (for `play` or `analyze`) is running.
    pub fn is_searching(&mut self) -> bool {
        self.collect(false);
        self.job.is_some()
    }

    fn error(&self, message: impl std::fmt::Display) {
        self.out.line(format!("error 0 {message}"));
    }

    fn status(&self, message: impl std::fmt::Display) {
        self.out.line(format!("status {message}"));
    }

    /// Takes in a finished search (or, with `wait`, waits for the running one): the move
    /// it sent becomes pending.
    fn collect(&mut self, wait: bool) {
        let done = self.job.is_some() && (wait || !self.engine.is_searching());
        if done && let Some(job) = self.job.take() {
            self.engine.wait();
            let sent = lock(&job.shared).sent.take();
            if sent.is_some() {
                self.pending = sent;
            }
        }
    }

    /// Stops a running search without letting it answer (unless it already has).
    fn cancel(&mut self) {
        if let Some(job) = &self.job {
            lock(&job.shared).discard = true;
            self.engine.stop();
        }
        self.collect(true);
    }

    /// Takes OpenTafl's rules string: the variant, the start and the repetition rule
    /// (`tfr`) the host referees by. Anything else is refused as a critical error and
    /// leaves no game.
    fn set_rules(&mut self, text: &str) {
        self.rules = None;
        self.game = None;
        self.side = None;
        self.clock = None;
        self.pending = None;
        self.finished = None;
        let parsed = text
            .parse::<OpenTaflRules>()
            .map_err(|e| e.to_string().replace("unsupported rules: ", ""));
        match parsed {
            Ok(described) => {
                let rules = described.rules();
                let start = described.start.unwrap_or_else(Position::start);
                self.rules = Some(rules);
                self.game = Some(Tafl::from_position(rules, start));
                self.engine.new_game();
                self.status(format!("playing {}", described.variant));
            }
            Err(reason) => self
                .out
                .line(format!("error -1 unsupported rules: {reason}")),
        }
    }

    /// The game, or an error saying rules must come first.
    fn require_game(&self, what: &str) -> Option<&Tafl> {
        let game = self.game.as_ref();
        if game.is_none() {
            self.error(format!("{what} before rules; ignored"));
        }
        game
    }

    /// Makes `side` the side to move, keeping the board (and the history if it already
    /// is).
    fn set_side_to_move(&mut self, side: Player) {
        if let (Some(game), Some(rules)) = (&self.game, self.rules)
            && game.to_move() != side
            && let Ok(position) = Position::from_opentafl(&game.position().to_opentafl(), side)
        {
            self.game = Some(Tafl::from_position(rules, position));
        }
    }

    /// Adopts OpenTafl's position `board` with `side` to move, unless the engine's game
    /// already has it (then its history is kept).
    fn sync(&mut self, board: &str, side: Player) {
        let (Some(game), Some(rules)) = (&self.game, self.rules) else {
            return;
        };
        let position = match Position::from_opentafl(board, side) {
            Ok(position) => position,
            Err(err) => {
                self.error(format!("cannot read position {board:?}: {err}"));
                return;
            }
        };
        if *game.position() != position {
            self.game = Some(Tafl::from_position(rules, position));
        }
    }

    fn position(&mut self, text: &str) {
        let Some(game) = self.require_game("position") else {
            return;
        };
        let mut words = text.split_whitespace();
        let board = words.next().unwrap_or_default().to_owned();
        let side = words
            .next()
            .and_then(|w| parse_side(w).ok())
            .unwrap_or(game.to_move());
        self.pending = None;
        self.finished = None;
        self.sync(&board, side);
    }

    fn move_made(&mut self, board: &str) {
        self.collect(true);
        let Some(game) = self.game.as_mut() else {
            return;
        };
        if let Some(mv) = self.pending.take()
            && game.is_legal(mv)
        {
            game.play(mv);
        }
        let side = self.side.map_or(game.to_move(), Player::other);
        self.sync(board, side);
    }

    fn opponent_move(&mut self, moves: &[String], board: Option<&str>) {
        let pending = self.pending.take();
        let Some(game) = self.require_game("opponent-move") else {
            return;
        };
        let texts: Vec<&str> = moves.iter().map(|m| strip_marks(m)).collect();
        let mut bases = Vec::new();
        if let Some(mv) = pending
            && game.is_legal(mv)
        {
            let mut base = game.clone();
            base.play(mv);
            bases.push(base);
        }
        bases.push(game.clone());
        let agrees = |candidate: &Tafl| match board {
            None => true,
            Some(board) => Position::from_opentafl(board, candidate.to_move())
                .is_ok_and(|p| p == *candidate.position()),
        };
        if let Some(next) = bases
            .iter()
            .filter_map(|base| {
                let mut game = AnyGame::from(base.clone());
                game.play_texts(&texts).ok()?;
                game.as_tafl().cloned()
            })
            .find(agrees)
        {
            self.game = Some(next);
            return;
        }
        let Some(board) = board else {
            self.error(format!(
                "opponent-move {}: not legal in the engine's game and no position given",
                moves.join("|")
            ));
            return;
        };
        // Out of step: OpenTafl's position wins. The side to move is the one that did not
        // make the last move (whose piece now stands on its target square).
        let mover = texts
            .last()
            .and_then(|t| t.parse::<tafl::notation::MoveText>().ok())
            .and_then(|t| {
                Position::from_opentafl(board, ATTACKERS)
                    .ok()?
                    .piece_at(t.mv.to)
            })
            .map(|piece| piece.side());
        let side = mover
            .map(Player::other)
            .or(self.side)
            .unwrap_or(game.to_move().other());
        self.sync(board, side);
        self.status("re-synchronised from OpenTafl's position");
    }

    fn play(&mut self, side: Player) {
        if self.require_game("play").is_none() {
            return;
        }
        if let Some(code) = self.finished {
            self.error(format!(
                "the game is finished (finish {code}); send rules or position for another"
            ));
            return;
        }
        self.side = Some(side);
        self.pending = None;
        self.set_side_to_move(side);
        let Some(game) = self.game.clone() else {
            return;
        };
        if let Some(outcome) = game.outcome() {
            self.error(format!(
                "the game is over: {} ({})",
                game.kind().status_name(Some(outcome)),
                outcome.reason
            ));
            return;
        }
        let limits = self
            .clock
            .and_then(|c| c.limits(side))
            .unwrap_or_else(|| Limits::move_time(self.settings.move_time));
        let shared = Arc::new(Mutex::new(JobShared::default()));
        let job_shared = Arc::clone(&shared);
        let out = self.out.clone();
        let Some(worker) = self.worker() else {
            return;
        };
        let job = engine::Job::new(game, limits);
        let spawned = worker.start(job, move |game, event| {
            let Event::Done(answer) = event else {
                return;
            };
            let found = Found::new(game, &answer);
            let mut shared = lock(&job_shared);
            if shared.discard {
                return;
            }
            let Some(best) = found.best else {
                out.line("error 0 no legal move");
                return;
            };
            shared.sent = game.parse_move(&best).ok();
            let pv: Vec<&str> = found.pv.iter().map(|m| simple(m)).collect();
            out.line(format!(
                "status depth {} eval {} nodes {} pv {}",
                found.depth,
                opentafl_eval(found.score, game.to_move()),
                found.nodes,
                pv.join(" ")
            ));
            out.line(format!("move {}", simple(&best)));
        });
        match spawned {
            Ok(()) => {
                self.job = Some(Job {
                    shared,
                    analysis: false,
                });
            }
            Err(err) => self.error(format!("cannot start a search thread: {err}")),
        }
    }

    fn analyze(&mut self, count: usize, time: Duration) {
        if self.require_game("analyze").is_none() {
            return;
        }
        if let Some(side) = self.side {
            self.set_side_to_move(side);
        }
        let Some(game) = self.game.clone() else {
            return;
        };
        let shared = Arc::new(Mutex::new(JobShared::default()));
        let job_shared = Arc::clone(&shared);
        let out = self.out.clone();
        let count = count.clamp(1, 64);
        let Some(worker) = self.worker() else {
            return;
        };
        let stop = Arc::new(AtomicBool::new(false));
        let analysed = move |engine: &DefaultEngine<Tafl>, stop: &AtomicBool| {
            (analyse(&game, engine, count, time, stop), game)
        };
        let spawned = worker.start_work(stop, analysed, move |(lines, game)| {
            let shared = lock(&job_shared);
            if shared.discard {
                return;
            }
            let mut line = format!("analysis {}", lines.len());
            for (pv, score) in &lines {
                let moves: Vec<&str> = pv.iter().map(|m| simple(m)).collect();
                line.push_str(&format!(
                    " {} {}",
                    moves.join("|"),
                    opentafl_eval(*score, game.to_move())
                ));
            }
            out.line(line);
        });
        match spawned {
            Ok(()) => {
                self.job = Some(Job {
                    shared,
                    analysis: true,
                });
            }
            Err(err) => self.error(format!("cannot start a search thread: {err}")),
        }
    }

    /// The engine's worker with the settings in force (a table that cannot be had is
    /// reported and a smaller one used).
    fn worker(&mut self) -> Option<&mut engine::DefaultWorker<Tafl>> {
        if let Some(err) = self.engine.ensure(&mut self.settings.engine) {
            self.error(format!(
                "{err}; using a {} MB table",
                self.settings.engine.hash_mb
            ));
        }
        self.engine.worker()
    }
}

fn lock(shared: &Mutex<JobShared>) -> std::sync::MutexGuard<'_, JobShared> {
    shared.lock().unwrap_or_else(PoisonError::into_inner)
}

impl LineProtocol for OtepSession {
    fn start(&mut self) {
        self.out.line("hello");
    }

    fn handle_line(&mut self, line: &str) -> Flow {
        self.collect(false);
        let message = match Message::parse(line) {
            Ok(Some(message)) => message,
            Ok(None) => return Flow::Continue,
            Err(err) => {
                self.error(err);
                return Flow::Continue;
            }
        };
        match message {
            // OpenTafl answers our hello with its own: answering again would never end.
            Message::Hello | Message::Start => {}
            Message::Rules(text) => {
                self.cancel();
                self.set_rules(&text);
            }
            Message::Position(text) => {
                self.cancel();
                self.position(&text);
            }
            Message::Side(side) => {
                self.side = Some(side);
                // After `rules` or `position` (no move played since), the side to move:
                // how OpenTafl sets up a position for analysis or a game's opening.
                if self.game.as_ref().is_some_and(|g| g.ply() == 0) {
                    self.set_side_to_move(side);
                }
            }
            Message::Clock(clock) => self.clock = Some(clock),
            Message::Play(side) => {
                self.cancel();
                self.play(side);
            }
            Message::MoveMade(board) => self.move_made(&board),
            Message::OpponentMove { moves, position } => {
                self.cancel();
                self.opponent_move(&moves, position.as_deref());
            }
            Message::Analyze { count, time } => {
                self.cancel();
                self.analyze(count, time);
            }
            Message::Finish(code) => {
                self.cancel();
                self.pending = None;
                self.clock = None;
                self.finished = Some(code.unwrap_or(0));
            }
            Message::Goodbye => {
                self.cancel();
                return Flow::Quit;
            }
            Message::Error(_) => self.pending = None,
        }
        Flow::Continue
    }

    fn end_of_input(&mut self) {
        // A move under way is still sent (the host may only have closed its writing
        // end); an analysis, which may have been given hours, is stopped and answers
        // with what it has found.
        if self.job.as_ref().is_some_and(|job| job.analysis) {
            self.engine.stop();
        }
        self.collect(true);
    }
}

impl Drop for OtepSession {
    fn drop(&mut self) {
        self.cancel();
    }
}

/// A move in OpenTafl's simple notation: `from-to`, captures left off.
fn simple(text: &str) -> &str {
    text.split(['x', 'X']).next().unwrap_or(text)
}

/// A move without OpenTafl's trailing `+`/`-`/`++`/`--` marks (king threatened,
/// king free, game won).
fn strip_marks(text: &str) -> &str {
    let trimmed = text.trim_end_matches(['+', '-']);
    if trimmed.contains('-') { trimmed } else { text }
}

/// A score for `to_move` as OpenTafl reads evaluations: positive favours the attackers;
/// forced wins are ±(5050 − plies to the end), OpenTafl's own win value less the
/// distance; ordinary scores (an attacker ≈ 100) are kept within ±4000.
#[must_use]
pub fn opentafl_eval(score: Score, to_move: Player) -> i32 {
    let own = match score.plies_to_end() {
        Some(plies) if plies >= 0 => 5050 - plies.min(1000),
        Some(plies) => -(5050 - (-plies).min(1000)),
        None => score.0.clamp(-4000, 4000),
    };
    if to_move == ATTACKERS { own } else { -own }
}

/// A child's score seen from its parent: negated, and a decisive score one ply further.
fn parent_score(child: Score) -> Score {
    let flipped = child.flip();
    match flipped.plies_to_end() {
        Some(plies) if plies >= 0 => Score::win_in(plies.unsigned_abs() + 1),
        Some(plies) => Score::loss_in(plies.unsigned_abs() + 1),
        None => flipped,
    }
}

/// Up to `count` candidate moves with their lines and scores (for the side to move), best
/// first, within `time`. The engine searches one line at a time, so the best move gets
/// half the time and the others, chosen by a one-ply look at every move, share the rest.
fn analyse<G: EngineGame>(
    game: &G,
    engine: &DefaultEngine<G>,
    count: usize,
    time: Duration,
    stop: &AtomicBool,
) -> Vec<(Vec<String>, Score)> {
    let started = Instant::now();
    let first_share = if count > 1 { time / 2 } else { time };
    let found = search_texts(game, engine, &Limits::move_time(first_share), stop, |_| {});
    let Some(best_text) = found.best.clone() else {
        return Vec::new();
    };
    let pv = if found.pv.first() == Some(&best_text) {
        found.pv.clone()
    } else {
        vec![best_text.clone()]
    };
    let mut lines = vec![(pv, found.score)];
    if count == 1 || stop.load(Ordering::Relaxed) {
        return lines;
    }
    let best = game.parse_move(&best_text).ok();
    let mut moves = Vec::new();
    game.legal_moves(&mut moves);
    let mut quick: Vec<(G::Move, Score)> = moves
        .into_iter()
        .filter(|&mv| Some(mv) != best)
        .map(|mv| {
            let mut child = game.clone();
            child.play(mv);
            let reply = search_texts(&child, engine, &Limits::depth(1), stop, |_| {});
            (mv, child_score(&child, reply.score))
        })
        .collect();
    quick.sort_by_key(|&(_, score)| std::cmp::Reverse(score));
    quick.truncate(count - 1);
    let left = time.saturating_sub(started.elapsed());
    let share = left / u32::try_from(quick.len().max(1)).unwrap_or(1);
    for (mv, quick_score) in quick {
        let mut child = game.clone();
        child.play(mv);
        let mut line = vec![game.format_move(mv)];
        let score = if stop.load(Ordering::Relaxed) || child.outcome().is_some() {
            quick_score
        } else {
            let reply = search_texts(&child, engine, &Limits::move_time(share), stop, |_| {});
            line.extend(reply.pv);
            child_score(&child, reply.score)
        };
        lines.push((line, score));
    }
    lines.sort_by_key(|(_, score)| std::cmp::Reverse(*score));
    lines
}

/// The parent's score for a child position searched with result `score`.
fn child_score<G: Game>(child: &G, score: Score) -> Score {
    match child.outcome() {
        Some(outcome) => parent_score(Score::of_outcome(outcome, child.to_move(), 0)),
        None => parent_score(score),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overtime_moves_fit_the_period() {
        let clock = OtepClock::parse("0* 60000 30 2 3 ").unwrap();
        let limits = clock.limits(Player::First).unwrap();
        assert_eq!(limits.clock, None);
        // Nothing left of the period: the shortest think there is.
        assert_eq!(limits.move_time, Some(Duration::from_millis(10)));
        let clock = OtepClock::parse("20000* 60000 30 2 3").unwrap();
        let time = clock.limits(Player::First).unwrap().move_time.unwrap();
        assert!(time > Duration::from_secs(10) && time < Duration::from_secs(20));
    }

    #[test]
    fn main_time_counts_the_next_period_as_time_and_increment() {
        let clock = OtepClock::parse("60000 30000 10 1 0").unwrap();
        let attackers = clock.limits(Player::First).unwrap().clock.unwrap();
        assert_eq!(
            attackers.increment,
            [Duration::from_secs(10), Duration::ZERO]
        );
        assert_eq!(attackers.remaining[0], Duration::from_millis(69_900));
        assert_eq!(attackers.remaining[1], Duration::from_millis(29_900));
    }

    #[test]
    fn a_spent_main_time_with_periods_left_still_thinks() {
        // The recorded line: 54 ms of main time, three periods of 5 s.
        let clock = OtepClock::parse("54 1213* 5 3 3 ").unwrap();
        let budget = clock.limits(Player::First).unwrap().budget(Player::First);
        let (soft, hard) = (budget.soft.unwrap(), budget.hard.unwrap());
        assert!(soft >= Duration::from_secs(1), "{budget:?}");
        assert!(
            hard < Duration::from_secs(5),
            "within the period: {budget:?}"
        );
        // With no period left, the last milliseconds are all there is.
        let clock = OtepClock::parse("54 1213* 5 0 3 ").unwrap();
        let budget = clock.limits(Player::First).unwrap().budget(Player::First);
        assert!(
            budget.hard.unwrap() < Duration::from_millis(60),
            "{budget:?}"
        );
        // In overtime, most of the period.
        let clock = OtepClock::parse("60000 5000* 5 3 3 ").unwrap();
        let limits = clock.limits(Player::Second).unwrap();
        assert_eq!(limits.move_time, Some(Duration::from_millis(3_900)));
    }

    #[test]
    fn absurd_clocks_give_a_budget_without_overflow() {
        let huge = format!("{max} {max}* {umax} 9 9", max = i64::MAX, umax = u64::MAX);
        let clock = OtepClock::parse(&huge).unwrap();
        for player in Player::BOTH {
            let budget = clock.limits(player).unwrap().budget(player);
            assert!(budget.hard.is_some());
        }
    }

    #[test]
    fn untimed_sides_have_no_clock() {
        let clock = OtepClock::parse("-1 -1 0 0 0").unwrap();
        assert_eq!(clock.limits(Player::Second), None);
    }

    #[test]
    fn bad_clocks_are_refused() {
        for bad in ["", "100", "abc 100", "100 100 x", "100 1*0"] {
            assert!(OtepClock::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn evaluations_favour_the_attackers_and_count_down_to_wins() {
        assert_eq!(opentafl_eval(Score(120), Player::First), 120);
        assert_eq!(opentafl_eval(Score(120), Player::Second), -120);
        assert_eq!(opentafl_eval(Score::win_in(3), Player::Second), -5047);
        assert_eq!(opentafl_eval(Score::loss_in(2), Player::Second), 5048);
        assert_eq!(opentafl_eval(Score(9_000), Player::First), 4000);
        assert_eq!(opentafl_eval(Score(9_000), Player::Second), -4000);
    }

    #[test]
    fn child_scores_are_one_ply_further_from_the_parent() {
        assert_eq!(parent_score(Score::loss_in(0)), Score::win_in(1));
        assert_eq!(parent_score(Score::win_in(2)), Score::loss_in(3));
        assert_eq!(parent_score(Score(-40)), Score(40));
    }

    #[test]
    fn marks_and_captures_come_off() {
        assert_eq!(strip_marks("e1-a1--"), "e1-a1");
        assert_eq!(strip_marks("a3-e3+"), "a3-e3");
        assert_eq!(strip_marks("Ke5-e1-"), "Ke5-e1");
        assert_eq!(strip_marks("d1-d3"), "d1-d3");
        assert_eq!(simple("g3-e3xe2"), "g3-e3");
        assert_eq!(simple("f4-k4xk3/k2"), "f4-k4");
    }
}
