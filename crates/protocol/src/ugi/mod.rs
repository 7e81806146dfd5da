//! The Universal Game Interface, engine side: UCI generalised to any two-player game
//! (`ugi`/`ugiok`, `p1time`/`p2time`, rules queries), speaking Fetlar, Copenhagen and
//! Camelot. `docs/PROTOCOL.md` is the reference; [`UgiSession`] the state machine.

mod command;

pub use command::{Command, Go, ParseCommandError, Query};

use camelot::Camelot;
use engine::{EngineGame, Event, Job, Level, Limits, Score};
use game::{Game, GameKind, Player};
use games::AnyGame;
use tafl::Tafl;

use crate::output::Output;
use crate::search::{
    EngineCell, EngineSettings, InfoText, MAX_HASH_MB, MAX_THREADS, info_text, note,
};
use crate::session::{Flow, LineProtocol};

/// The name the engine gives in `id name`.
pub const ENGINE_NAME: &str = concat!("Kingstable ", env!("CARGO_PKG_VERSION"));
/// The author the engine gives in `id author`.
pub const ENGINE_AUTHOR: &str = "the Kingstable developers";
/// The game played until `setoption name Variant` says otherwise.
pub const DEFAULT_VARIANT: GameKind = GameKind::Copenhagen;

/// A UGI engine session: fed input lines, it writes answers to its [`Output`] and runs
/// searches on a worker thread (whose `info` and `bestmove` lines go to the same output).
///
/// ```
/// use protocol::{LineProtocol, Output, ugi::UgiSession};
/// let (out, lines) = Output::channel();
/// let mut session = UgiSession::new(out);
/// session.handle_line("setoption name Variant value fetlar");
/// session.handle_line("position startpos moves d1-d3");
/// session.handle_line("query p1turn");
/// assert_eq!(lines.recv().unwrap(), "response false");
/// session.handle_line("position startpos moves d1-d9");
/// assert!(lines.recv().unwrap().starts_with("info string error: position: move 1 (d1-d9)"));
/// ```
pub struct UgiSession {
    out: Output,
    variant: GameKind,
    game: AnyGame,
    settings: EngineSettings,
    tafl: EngineCell<Tafl>,
    camelot: EngineCell<Camelot>,
    /// The search started last runs until stopped (`go infinite`, or `go` with no limit):
    /// the end of input stops it.
    unbounded: bool,
}

impl std::fmt::Debug for UgiSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UgiSession")
            .field("variant", &self.variant)
            .field("position", &self.game.position_string())
            .field("settings", &self.settings)
            .field(
                "searching",
                &(self.tafl.is_searching() || self.camelot.is_searching()),
            )
            .finish()
    }
}

impl UgiSession {
    /// A session with the default settings, playing [`DEFAULT_VARIANT`] from its start.
    #[must_use]
    pub fn new(out: Output) -> UgiSession {
        UgiSession::with_settings(out, EngineSettings::default())
    }

    /// A session whose engine starts with `settings` (command-line flags); options may
    /// still change them.
    #[must_use]
    pub fn with_settings(out: Output, settings: EngineSettings) -> UgiSession {
        UgiSession {
            out,
            variant: DEFAULT_VARIANT,
            game: AnyGame::start(DEFAULT_VARIANT),
            settings,
            tafl: EngineCell::default(),
            camelot: EngineCell::default(),
            unbounded: false,
        }
    }

    /// The game being played.
    #[must_use]
    pub fn variant(&self) -> GameKind {
        self.variant
    }

    /// The current position string.
    #[must_use]
    pub fn position_string(&self) -> String {
        self.game.position_string()
    }

    /// The engine settings in force.
    #[must_use]
    pub fn settings(&self) -> EngineSettings {
        self.settings
    }

    /// Whether a search is running.
    pub fn is_searching(&mut self) -> bool {
        !self.reap()
    }

    /// Waits until a running search has ended by itself (a search with a limit reports
    /// its move; one that would run until `stop` is stopped, and reports its move).
    pub fn wait_for_search(&mut self) {
        if self.unbounded {
            self.tafl.stop();
            self.camelot.stop();
        }
        self.tafl.wait();
        self.camelot.wait();
    }

    /// Waits for a search that has answered; whether none is left.
    fn reap(&mut self) -> bool {
        // Both, always: only one of them can have a search.
        self.tafl.reap() & self.camelot.reap()
    }

    fn error(&self, message: impl std::fmt::Display) {
        self.out.line(format!("info string error: {message}"));
    }

    /// True (after reporting an error) when a search is running and `what` must wait.
    fn busy(&mut self, what: &str) -> bool {
        if self.is_searching() {
            self.error(format!(
                "{what}: a search is running; send stop and wait for bestmove first"
            ));
            true
        } else {
            false
        }
    }

    fn stop_search(&mut self) {
        self.tafl.stop();
        self.camelot.stop();
        self.tafl.wait();
        self.camelot.wait();
    }

    fn identify(&self, uci: bool) {
        let s = &self.settings;
        let lines = [
            format!("id name {ENGINE_NAME}"),
            format!("id author {ENGINE_AUTHOR}"),
            format!(
                "option name Variant type combo default {} var fetlar var copenhagen var camelot",
                self.variant
            ),
            format!(
                "option name Level type spin default {} min 1 max 6",
                s.level.number()
            ),
            format!(
                "option name Hash type spin default {} min 1 max {MAX_HASH_MB}",
                s.hash_mb
            ),
            format!(
                "option name Threads type spin default {} min 1 max {MAX_THREADS}",
                s.threads
            ),
            format!(
                "option name Seed type spin default {} min 0 max {}",
                s.seed,
                u32::MAX
            ),
            if uci { "uciok" } else { "ugiok" }.to_owned(),
        ];
        for line in lines {
            self.out.line(line);
        }
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) {
        let Some(value) = value else {
            self.error(format!("setoption {name}: missing value"));
            return;
        };
        let number = |min: u64, max: u64| -> Result<u64, String> {
            value
                .parse::<u64>()
                .ok()
                .filter(|n| (min..=max).contains(n))
                .ok_or_else(|| format!("setoption {name}: {value:?} is not a number {min}-{max}"))
        };
        let result = match name.to_ascii_lowercase().as_str() {
            "variant" => value
                .parse::<GameKind>()
                .map(|kind| self.set_variant(kind))
                .map_err(|e| format!("setoption Variant: {e}")),
            "level" => value
                .parse::<Level>()
                .map(|level| self.settings.level = level)
                .map_err(|e| format!("setoption Level: {e}")),
            "hash" => number(1, MAX_HASH_MB as u64).and_then(|n| self.set_hash(n as usize)),
            "threads" => number(1, MAX_THREADS as u64).map(|n| self.settings.threads = n as usize),
            "seed" => number(0, u64::MAX).map(|n| self.settings.seed = n),
            _ => Err(format!(
                "setoption: unknown option {name:?} (Variant, Level, Hash, Threads, Seed)"
            )),
        };
        if let Err(message) = result {
            self.error(message);
        }
    }

    /// Allocates the table of `megabytes` MB now, so a size the machine cannot give is
    /// refused at once and the table in use is kept.
    fn set_hash(&mut self, megabytes: usize) -> Result<(), String> {
        let wanted = EngineSettings {
            hash_mb: megabytes,
            ..self.settings
        };
        let made = match &self.game {
            AnyGame::Tafl(_) => self.tafl.prepare(&wanted),
            AnyGame::Camelot(_) => self.camelot.prepare(&wanted),
        };
        match made {
            Ok(()) => {
                self.settings.hash_mb = megabytes;
                Ok(())
            }
            Err(err) => Err(format!(
                "setoption Hash: {err}; keeping the {} MB table",
                self.settings.hash_mb
            )),
        }
    }

    /// Makes the engine of the current game if need be, with the settings in force
    /// (reporting a table that cannot be had, and falling back to a smaller one).
    fn prepare_engine(&mut self) {
        let error = match &self.game {
            AnyGame::Tafl(_) => self.tafl.ensure(&mut self.settings),
            AnyGame::Camelot(_) => self.camelot.ensure(&mut self.settings),
        };
        if let Some(err) = error {
            self.error(format!("{err}; using a {} MB table", self.settings.hash_mb));
        }
    }

    fn set_variant(&mut self, kind: GameKind) {
        if kind.is_tafl() {
            self.camelot.release();
        } else {
            self.tafl.release();
        }
        self.variant = kind;
        self.new_game();
    }

    fn new_game(&mut self) {
        self.game = AnyGame::start(self.variant);
        self.tafl.new_game();
        self.camelot.new_game();
    }

    fn set_position(&mut self, fen: Option<&str>, moves: &[String]) {
        let base = match fen {
            None => Ok(AnyGame::start(self.variant)),
            Some(text) => AnyGame::from_position(self.variant, text)
                .map_err(|e| format!("bad {} position {text:?}: {e}", self.variant)),
        };
        let played = base.and_then(|mut game| match game.play_texts(moves) {
            Ok(_) => Ok(game),
            Err(err) => Err(err.to_string()),
        });
        match played {
            Ok(game) => self.game = game,
            Err(message) => self.error(format!("position: {message}")),
        }
    }

    fn ready(&mut self) {
        if !self.is_searching() {
            // The first isready is where UGI allows the big allocation.
            self.prepare_engine();
        }
        self.out.line("readyok");
    }

    fn go(&mut self, go: &Go) {
        if let Some(outcome) = self.game.outcome() {
            self.out.line(format!(
                "info string the game is over: {} ({})",
                self.variant.status_name(Some(outcome)),
                outcome.reason
            ));
            self.out.line("bestmove none");
            return;
        }
        let limits = go.limits(self.game.to_move());
        self.prepare_engine();
        let out = self.out.clone();
        let spawned = match &self.game {
            AnyGame::Tafl(g) => start_search(&mut self.tafl, g.clone(), limits, out),
            AnyGame::Camelot(g) => start_search(&mut self.camelot, g.clone(), limits, out),
        };
        match spawned {
            Ok(()) => {
                self.unbounded = limits.infinite
                    || (limits.depth, limits.nodes) == (None, None)
                        && limits.move_time.is_none()
                        && limits.clock.is_none();
            }
            Err(err) => {
                self.error(format!("go: cannot start a search thread: {err}"));
                self.out.line("bestmove none");
            }
        }
    }

    fn query(&self, query: Query) {
        let outcome = self.game.outcome();
        let answer = match query {
            Query::GameOver => outcome.is_some().to_string(),
            Query::P1Turn => (self.game.to_move() == Player::First).to_string(),
            Query::Result => match outcome.map(|o| o.winner) {
                None => "none".into(),
                Some(None) => "draw".into(),
                Some(Some(Player::First)) => "p1win".into(),
                Some(Some(Player::Second)) => "p2win".into(),
            },
            Query::Moves => self
                .game
                .legal_moves_info()
                .into_iter()
                .map(|info| info.text)
                .collect::<Vec<_>>()
                .join(" "),
            Query::Position => self.game.position_string(),
            Query::Reason => outcome.map_or("none", |o| o.reason.as_str()).into(),
        };
        if answer.is_empty() {
            self.out.line("response");
        } else {
            self.out.line(format!("response {answer}"));
        }
    }
}

impl LineProtocol for UgiSession {
    fn handle_line(&mut self, line: &str) -> Flow {
        if line.trim().is_empty() {
            return Flow::Continue;
        }
        self.reap();
        let command: Command = match line.parse() {
            Ok(command) => command,
            Err(err) => {
                self.error(err);
                return Flow::Continue;
            }
        };
        match command {
            Command::Ugi { uci } => self.identify(uci),
            Command::IsReady => self.ready(),
            Command::NewGame => {
                if !self.busy("uginewgame") {
                    self.new_game();
                }
            }
            Command::SetOption { name, value } => {
                if !self.busy("setoption") {
                    self.set_option(&name, value.as_deref());
                }
            }
            Command::Position { fen, moves } => {
                if !self.busy("position") {
                    self.set_position(fen.as_deref(), &moves);
                }
            }
            Command::Go(go) => {
                if !self.busy("go") {
                    self.go(&go);
                }
            }
            Command::Stop => self.stop_search(),
            Command::Quit => {
                self.stop_search();
                return Flow::Quit;
            }
            Command::Query(query) => self.query(query),
        }
        Flow::Continue
    }

    fn end_of_input(&mut self) {
        self.wait_for_search();
    }
}

impl Drop for UgiSession {
    fn drop(&mut self) {
        self.stop_search();
    }
}

/// Starts searching `game` on `cell`'s worker (made by [`UgiSession::prepare_engine`]):
/// `info` lines as it goes, then the `bestmove` (an infinite search waits for `stop`).
fn start_search<G: EngineGame>(
    cell: &mut EngineCell<G>,
    game: G,
    limits: Limits,
    out: Output,
) -> std::io::Result<()> {
    let worker = cell
        .worker()
        .ok_or_else(|| std::io::Error::other("no engine"))?;
    worker.start(Job::new(game, limits), move |game, event| match event {
        Event::Progress(info) => out.line(info_line(&info_text(game, &info))),
        Event::Done(answer) => {
            if let Some(note) = note(&answer) {
                out.line(format!("info string {note}"));
            }
            let best = answer.result.best_move.map(|mv| game.format_move(mv));
            out.line(format!("bestmove {}", best.as_deref().unwrap_or("none")));
        }
    })
}

/// A score as UGI (like UCI) writes it, for the side to move: `cp <n>` for an ordinary
/// evaluation (an attacker or a Camelot man is worth about 100), `mate <n>` for a forced
/// win in `n` of the engine's own moves, `mate -<n>` for a forced loss with `n` moves left.
///
/// ```
/// use engine::Score;
/// use protocol::ugi::score_text;
/// assert_eq!(score_text(Score(-37)), "cp -37");
/// assert_eq!(score_text(Score::win_in(1)), "mate 1");
/// assert_eq!(score_text(Score::win_in(3)), "mate 2");
/// assert_eq!(score_text(Score::loss_in(2)), "mate -1");
/// assert_eq!(score_text(Score::loss_in(4)), "mate -2");
/// ```
#[must_use]
pub fn score_text(score: Score) -> String {
    match score.plies_to_end() {
        Some(plies) if plies >= 0 => format!("mate {}", (plies + 1) / 2),
        Some(plies) => format!("mate -{}", (1 - plies) / 2),
        None => format!("cp {}", score.0),
    }
}

/// The `info` line for a search's progress.
#[must_use]
pub fn info_line(info: &InfoText) -> String {
    let mut line = format!(
        "info depth {} seldepth {} score {} nodes {} nps {} time {} hashfull {}",
        info.depth,
        info.seldepth,
        score_text(info.score),
        info.nodes,
        info.nps,
        info.time.as_millis(),
        info.hashfull
    );
    if !info.pv.is_empty() {
        line.push_str(" pv ");
        line.push_str(&info.pv.join(" "));
    }
    line
}
