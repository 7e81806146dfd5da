//! The terminal game's view of one game: a [`session::Session`] (the game, the moves with
//! what they captured, the clocks, takebacks, resignation and the result) with what only
//! the terminal needs around it: who plays each side, the AI requests in flight and its
//! hints, a pending choice between moves that typed input or a square pair leaves open,
//! the record files, and the sentences. The full-screen game and the line mode both
//! drive it; it never blocks and never touches the terminal.
//!
//! Time is passed in (`now`) so tests control it. The AI is not called from here: the
//! session hands out [`AiRequest`]s and takes the worker's [`AiEvent`]s back, ignoring
//! the answers to requests it has since cancelled.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{Context, Result};
use engine::{Level, Limits};
use game::{EndReason, Game, GameKind, Outcome, Player};
use games::record::{self, ReplayOptions, TagKey};
use games::{AnyGame, AnyMove};
use session::{Clocks, Options, PlayedMove, Takeback, Takebacks, TimeControl, Timestamp};

use super::ai::{AiEvent, AiRequest, Purpose};
use super::board::Sq;

/// Who plays a side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Controller {
    /// A person at the keyboard.
    Human,
    /// The AI.
    Ai,
}

/// How a session is set up.
#[derive(Clone, Debug)]
pub struct SessionOptions {
    /// Who plays the first and the second player.
    pub players: [Controller; 2],
    /// The AI's strength.
    pub level: Level,
    /// How long the AI may think per move (and per hint); without it, the clock decides,
    /// or [`DEFAULT_THINK`] without a Fischer clock.
    pub think: Option<Duration>,
    /// The clocks ([`TimeControl::Untimed`]: none).
    pub clock: TimeControl,
}

/// The AI's time per move in an untimed game unless told otherwise.
pub const DEFAULT_THINK: Duration = Duration::from_secs(3);

/// Several legal moves match what was entered; the player picks one by number.
#[derive(Clone, Debug)]
pub struct Choice {
    /// What is being chosen (`H9 to F5 can be played 2 ways`).
    pub prompt: String,
    /// The moves, each with its notation and the squares it captures.
    pub options: Vec<(AnyMove, String)>,
}

/// A search the session is waiting for.
#[derive(Clone, Debug)]
pub struct Thinking {
    id: u64,
    /// Why the AI is searching.
    pub purpose: Purpose,
    stop: Arc<AtomicBool>,
    /// When it started.
    pub since: Timestamp,
    /// The latest progress: depth, score and line.
    pub progress: Option<String>,
}

/// What became of a move entered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Submitted {
    /// It was played; its notation.
    Played(String),
    /// Several moves match: pick one ([`TerminalGame::choice`] lists them).
    Choose,
}

/// What an event from the AI did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AiUpdate {
    /// The AI played this move.
    Played(String),
    /// The AI suggests this move.
    Hint(String),
    /// A search made progress.
    Progress,
    /// The event belonged to a search no longer wanted.
    Ignored,
}

/// A game being played at the terminal.
pub struct TerminalGame {
    /// The game as a table sees it.
    table: session::Session,
    options: SessionOptions,
    choice: Option<Choice>,
    thinking: Option<Thinking>,
    next_id: u64,
    hint: Option<(AnyMove, String)>,
    /// The revisions of the tables that loading a record replaced, so that
    /// [`TerminalGame::revision`] never goes back.
    earlier_revisions: u64,
}

impl TerminalGame {
    /// A session from `game` (usually the start), the clock of the side to move started.
    #[must_use]
    pub fn new(game: AnyGame, options: SessionOptions, now: Timestamp) -> TerminalGame {
        let table = session::Session::new(game, table_options(&options), now);
        TerminalGame {
            table,
            options,
            choice: None,
            thinking: None,
            next_id: 1,
            hint: None,
            earlier_revisions: 0,
        }
    }

    /// The game as it stands.
    #[must_use]
    pub fn game(&self) -> &AnyGame {
        self.table.game()
    }

    /// Which game.
    #[must_use]
    pub fn kind(&self) -> GameKind {
        self.table.kind()
    }

    /// The options the session was set up with.
    #[must_use]
    pub fn options(&self) -> &SessionOptions {
        &self.options
    }

    /// Who plays `player`.
    #[must_use]
    pub fn controller(&self, player: Player) -> Controller {
        self.options.players[player.index()]
    }

    /// The player to move (in a game that is over: who would be).
    #[must_use]
    pub fn to_move(&self) -> Player {
        self.table.to_move()
    }

    /// Whether the player to move is a person (and the game goes on).
    #[must_use]
    pub fn human_to_move(&self) -> bool {
        self.table.is_ongoing() && self.controller(self.table.to_move()) == Controller::Human
    }

    /// How the game ended, by the rules or on time or by resignation.
    #[must_use]
    pub fn outcome(&self) -> Option<Outcome> {
        self.table.outcome()
    }

    /// The moves played, with who played them and what they captured.
    #[must_use]
    pub fn moves(&self) -> &[PlayedMove] {
        self.table.moves()
    }

    /// Whether the AI played `ply` (moves loaded from a record count as the players').
    #[must_use]
    pub fn by_ai(&self, ply: &PlayedMove) -> bool {
        ply.at.is_some() && self.controller(ply.player) == Controller::Ai
    }

    /// A number that changes whenever the game does (moves, undo, load, an ending), to
    /// tell whether it has changed since it was saved.
    #[must_use]
    pub fn revision(&self) -> u64 {
        self.earlier_revisions + self.table.revision()
    }

    /// The clocks, if the game is timed.
    #[must_use]
    pub fn clocks(&self) -> Option<&Clocks> {
        let clocks = self.table.clocks();
        clocks.control().is_timed().then_some(clocks)
    }

    /// The moves offered to choose from, if a choice is pending.
    #[must_use]
    pub fn choice(&self) -> Option<&Choice> {
        self.choice.as_ref()
    }

    /// The search in flight, if any.
    #[must_use]
    pub fn thinking(&self) -> Option<&Thinking> {
        self.thinking.as_ref()
    }

    /// The AI's latest suggestion for the position as it stands.
    #[must_use]
    pub fn hint(&self) -> Option<&(AnyMove, String)> {
        self.hint.as_ref()
    }

    /// The name of `player`'s side with who plays it: `attackers (you)`,
    /// `defenders (AI)`.
    #[must_use]
    pub fn side_label(&self, player: Player) -> String {
        let who = match (self.controller(player), self.options.players) {
            (Controller::Ai, _) => "AI",
            (Controller::Human, [Controller::Human, Controller::Human]) => "human",
            (Controller::Human, _) => "you",
        };
        format!("{} ({who})", self.kind().side_name(player))
    }

    /// How many of each player's pieces have been captured, indexed by
    /// [`Player::index`].
    #[must_use]
    pub fn pieces_lost(&self) -> [usize; 2] {
        self.table.pieces_lost()
    }

    // ---- Time ----

    /// Checks the clocks: if the running one has run out, the game ends on time (and any
    /// search stops). Returns the outcome when this call ended the game.
    pub fn tick(&mut self, now: Timestamp) -> Option<Outcome> {
        let outcome = self.table.check_flag(now)?;
        self.cancel_thinking();
        self.choice = None;
        Some(outcome)
    }

    // ---- Moves entered by people ----

    /// Plays what a person typed: a full move, or a part that names exactly one legal
    /// move (a from-square and a to-square, a prefix of the move's notation). When
    /// several moves match, offers them as a [`Choice`].
    pub fn submit(&mut self, text: &str, now: Timestamp) -> Result<Submitted, String> {
        self.check_human_turn(now)?;
        let text = text.trim();
        if text.is_empty() {
            return Err("type a move, like d1-d3".to_owned());
        }
        let error = match self.game().parse_move(text) {
            Ok(mv) => return self.play_human(mv, now).map(Submitted::Played),
            Err(error) => error.to_string(),
        };
        let (matches, prompt) = self.matching_moves(text);
        match matches.as_slice() {
            [] => {
                let squares = self.squares_in(text);
                Err(match squares.as_deref() {
                    Some([from]) => {
                        format!("no legal move starts on {}", self.game().square_name(*from))
                    }
                    _ => error,
                })
            }
            // A square alone lists its moves, even a single one (as the help says).
            [mv] if !matches!(self.squares_in(text).as_deref(), Some([_])) => {
                self.play_human(*mv, now).map(Submitted::Played)
            }
            _ => {
                self.offer(matches, prompt);
                Ok(Submitted::Choose)
            }
        }
    }

    /// Plays the move from `from` to `to` chosen on the board, or offers a choice if
    /// several capture sets lead there.
    pub fn submit_squares(
        &mut self,
        from: Sq,
        to: Sq,
        now: Timestamp,
    ) -> Result<Submitted, String> {
        self.check_human_turn(now)?;
        let matches: Vec<AnyMove> = self
            .table
            .legal_any_moves()
            .into_iter()
            .filter(|&mv| self.move_ends(mv) == (from, to))
            .collect();
        let game = self.game();
        match matches.as_slice() {
            [] => Err(format!(
                "{} cannot go to {}",
                game.square_name(from),
                game.square_name(to)
            )),
            [mv] => self.play_human(*mv, now).map(Submitted::Played),
            _ => {
                let prompt = format!(
                    "{} to {} can be played {} ways",
                    game.square_name(from),
                    game.square_name(to),
                    matches.len()
                );
                self.offer(matches, prompt);
                Ok(Submitted::Choose)
            }
        }
    }

    /// Plays the `n`-th (1-based) move of the pending choice.
    pub fn pick(&mut self, n: usize, now: Timestamp) -> Result<String, String> {
        let Some(choice) = &self.choice else {
            return Err(format!("{n}: there is no choice to make"));
        };
        let Some(&(mv, _)) = n.checked_sub(1).and_then(|i| choice.options.get(i)) else {
            return Err(format!(
                "{n}: choose a number from 1 to {}",
                choice.options.len()
            ));
        };
        self.check_human_turn(now)?;
        self.play_human(mv, now)
    }

    /// Drops the pending choice.
    pub fn cancel_choice(&mut self) {
        self.choice = None;
    }

    /// The squares the piece on `from` can move to, if a person is to move.
    #[must_use]
    pub fn destinations(&self, from: Sq) -> Vec<Sq> {
        if !self.human_to_move() {
            return Vec::new();
        }
        let mut out: Vec<Sq> = self
            .table
            .legal_any_moves()
            .into_iter()
            .map(|mv| self.move_ends(mv))
            .filter(|&(f, _)| f == from)
            .map(|(_, to)| to)
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// The moves `text` could mean as typed so far (for a preview while typing): the
    /// move it names, or every move it could still become.
    #[must_use]
    pub fn candidates(&self, text: &str) -> Vec<String> {
        if !self.human_to_move() {
            return Vec::new();
        }
        if let Ok(mv) = self.game().parse_move(text) {
            return vec![self.game().format_move(mv)];
        }
        let (matches, _) = self.matching_moves(text);
        matches
            .into_iter()
            .map(|mv| self.game().format_move(mv))
            .collect()
    }

    /// The legal moves whose notation begins with `text` or whose squares `text` names
    /// (the first square as the start, the last as the end), with a prompt for choosing
    /// among them.
    fn matching_moves(&self, text: &str) -> (Vec<AnyMove>, String) {
        let game = self.game();
        let lower = text.to_ascii_lowercase();
        let squares = self.squares_in(text);
        let matches: Vec<AnyMove> = self
            .table
            .legal_any_moves()
            .into_iter()
            .filter(|&mv| {
                let (from, to) = self.move_ends(mv);
                // Whole square names are matched as squares, so `d1` is not taken as
                // the start of `d11`.
                match squares.as_deref() {
                    Some([only]) => from == *only,
                    Some([first, .., last]) => from == *first && to == *last,
                    _ => game
                        .format_move(mv)
                        .to_ascii_lowercase()
                        .starts_with(&lower),
                }
            })
            .collect();
        let prompt = match squares.as_deref() {
            Some([from]) => format!("moves of the piece on {}", game.square_name(*from)),
            Some([from, .., to]) => format!(
                "{} to {} can be played {} ways",
                game.square_name(*from),
                game.square_name(*to),
                matches.len()
            ),
            _ => format!("moves beginning {text}"),
        };
        (matches, prompt)
    }

    fn offer(&mut self, moves: Vec<AnyMove>, prompt: String) {
        let options = moves
            .into_iter()
            .map(|mv| (mv, self.game().format_move(mv)))
            .collect();
        self.choice = Some(Choice { prompt, options });
    }

    fn check_human_turn(&mut self, now: Timestamp) -> Result<(), String> {
        self.tick(now);
        if let Some(outcome) = self.outcome() {
            return Err(self.game_over(outcome));
        }
        if self.controller(self.table.to_move()) == Controller::Ai {
            return Err("it is the AI's turn: wait, or stop to make it move now".to_owned());
        }
        Ok(())
    }

    fn game_over(&self, outcome: Outcome) -> String {
        format!(
            "the game is over: {}; undo takes moves back",
            describe_outcome(self.kind(), outcome, self.table.to_move())
        )
    }

    /// What a refusal from the table means to the player.
    fn why(&self, error: &session::Error) -> String {
        match error {
            session::Error::GameOver {
                outcome: Some(outcome),
            } => self.game_over(*outcome),
            session::Error::NothingToTakeBack => "nothing to undo".to_owned(),
            other => other.to_string(),
        }
    }

    fn play_human(&mut self, mv: AnyMove, now: Timestamp) -> Result<String, String> {
        // A hint still being searched is for a position that is about to change.
        self.cancel_thinking();
        self.apply(mv, now)
    }

    /// Where a move starts and ends.
    fn move_ends(&self, mv: AnyMove) -> (Sq, Sq) {
        let info = self.game().move_info(mv);
        (info.from, info.to)
    }

    /// The squares `text` names, if it is nothing but square names joined by `-`, `x`
    /// or `/` (`d1`, `h9-f5`, `C6-E8-G8`).
    fn squares_in(&self, text: &str) -> Option<Vec<Sq>> {
        let lower = text.trim().to_ascii_lowercase();
        let parts: Vec<&str> = lower
            .split(['-', 'x', '/'])
            .filter(|p| !p.is_empty())
            .collect();
        if parts.is_empty() {
            return None;
        }
        parts
            .into_iter()
            .map(|p| self.game().parse_square(p))
            .collect()
    }

    /// Plays a legal move for the side to move.
    fn apply(&mut self, mv: AnyMove, now: Timestamp) -> Result<String, String> {
        let info = self
            .table
            .play_move(self.table.to_move(), mv, now)
            .map_err(|e| self.why(&e))?;
        self.choice = None;
        self.hint = None;
        Ok(info.text)
    }

    // ---- Commands ----

    /// Takes moves back: against the AI, back to before your last move; between two
    /// people, one move. Returns how many plies were taken back.
    pub fn undo(&mut self, now: Timestamp) -> Result<usize, String> {
        let player = match self.options.players {
            [Controller::Ai, Controller::Ai] => None,
            [Controller::Human, Controller::Human] => self.table.last_move().map(|m| m.player),
            [Controller::Human, _] => Some(Player::First),
            [_, Controller::Human] => Some(Player::Second),
        };
        let player = player.ok_or_else(|| "nothing to undo".to_owned())?;
        match self.table.request_takeback(player, now) {
            Ok(Takeback::Done(plies)) => {
                self.cancel_thinking();
                self.choice = None;
                self.hint = None;
                Ok(plies)
            }
            Ok(Takeback::Requested) => Err("the takeback waits for the opponent".to_owned()),
            Err(error) => Err(self.why(&error)),
        }
    }

    /// The side to move resigns (against the AI: the person's side, whoever is to move).
    pub fn resign(&mut self, now: Timestamp) -> Result<Outcome, String> {
        self.tick(now);
        if self.outcome().is_some() {
            return Err("the game is already over".to_owned());
        }
        let to_move = self.table.to_move();
        let loser = if self.controller(to_move) == Controller::Human {
            to_move
        } else {
            to_move.other()
        };
        if self.controller(loser) == Controller::Ai {
            return Err("only a person can resign".to_owned());
        }
        let outcome = self.table.resign(loser, now).map_err(|e| self.why(&e))?;
        self.cancel_thinking();
        Ok(outcome)
    }

    /// The game as a record (`.otg` for tafl, a WCF score for Camelot), dated `now`.
    #[must_use]
    pub fn record_text(&self, now: Timestamp) -> String {
        let kind = self.kind();
        let names = Player::BOTH.map(|p| match self.controller(p) {
            Controller::Human => "human".to_owned(),
            Controller::Ai => format!("kingstable AI ({})", self.options.level),
        });
        let tag = |key| record::tag_name(kind, key).to_owned();
        let mut tags = vec![
            (tag(TagKey::Event), "kingstable play".to_owned()),
            (tag(TagKey::Date), date_tag(now)),
        ];
        for (player, name) in Player::BOTH.into_iter().zip(names) {
            tags.push((tag(TagKey::player(player)), name));
        }
        if self.options.clock.is_timed() {
            tags.push((tag(TagKey::TimeControl), self.options.clock.to_string()));
        }
        record::write(self.game(), &tags, self.outcome())
    }

    /// Saves the record to `path`, or to a new file named after the game and the time.
    /// Returns the file written.
    pub fn save(&self, path: Option<&Path>, now: Timestamp) -> Result<PathBuf> {
        let path = match path {
            Some(p) => p.to_path_buf(),
            None => default_record_name(self.kind(), now),
        };
        std::fs::write(&path, self.record_text(now))
            .with_context(|| format!("cannot write {}", path.display()))?;
        Ok(path)
    }

    /// Loads a record (`.otg`, WCF score or move list; captures may be left out, as when
    /// typed by hand) and plays on from its end, with the clocks afresh. Nothing changes
    /// if the record cannot be read or does not replay.
    pub fn load(&mut self, path: &Path, now: Timestamp) -> Result<usize> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let options = ReplayOptions {
            lenient_captures: true,
            ..ReplayOptions::default()
        };
        let loaded = record::load(self.kind(), &text, options)
            .with_context(|| format!("{}", path.display()))?;
        self.cancel_thinking();
        self.choice = None;
        self.hint = None;
        self.earlier_revisions = self.revision() + 1;
        self.table = session::Session::with_ending(
            loaded.game,
            loaded.outcome,
            table_options(&self.options),
            now,
        );
        Ok(self.table.moves().len())
    }

    // ---- The AI ----

    /// The search to start now, if it is the AI's turn and it is not already thinking.
    pub fn next_ai_request(&mut self, now: Timestamp) -> Option<AiRequest> {
        if self.thinking.is_some()
            || !self.table.is_ongoing()
            || self.controller(self.table.to_move()) != Controller::Ai
        {
            return None;
        }
        let think = self.options.think;
        let limits = match self.options.clock {
            // Days per move are no time to search: the AI thinks as without a clock.
            TimeControl::Fischer { .. } => {
                let clock = arena::engine_clock(self.table.clocks(), now)?;
                let limits = Limits::clock(clock);
                match think {
                    Some(think) => limits.with_move_time(think),
                    None => limits,
                }
            }
            _ => Limits::move_time(think.unwrap_or(DEFAULT_THINK)),
        };
        Some(self.request(Purpose::Move, limits, self.options.level, now))
    }

    /// A search for a hint for the person to move.
    pub fn request_hint(&mut self, now: Timestamp) -> Result<AiRequest, String> {
        self.check_human_turn(now)?;
        if let Some(thinking) = &self.thinking {
            return Err(match thinking.purpose {
                Purpose::Hint => "already looking for a hint".to_owned(),
                Purpose::Move => "the AI is thinking".to_owned(),
            });
        }
        let time = self.options.think.unwrap_or(HINT_TIME).min(HINT_TIME);
        Ok(self.request(Purpose::Hint, Limits::move_time(time), Level::Maximum, now))
    }

    fn request(
        &mut self,
        purpose: Purpose,
        limits: Limits,
        level: Level,
        now: Timestamp,
    ) -> AiRequest {
        let id = self.next_id;
        self.next_id += 1;
        let stop = Arc::new(AtomicBool::new(false));
        self.thinking = Some(Thinking {
            id,
            purpose,
            stop: stop.clone(),
            since: now,
            progress: None,
        });
        AiRequest {
            id,
            game: self.game().clone(),
            limits,
            level,
            stop,
        }
    }

    /// Asks the search in flight to finish now; the AI then plays (or suggests) the best
    /// move it has found. Returns whether anything was searching.
    pub fn stop_thinking(&mut self) -> bool {
        match &self.thinking {
            Some(thinking) => {
                thinking.stop.store(true, Ordering::Relaxed);
                true
            }
            None => false,
        }
    }

    /// Stops the search in flight and forgets it: its answer will be ignored.
    pub fn cancel_thinking(&mut self) {
        if let Some(thinking) = self.thinking.take() {
            thinking.stop.store(true, Ordering::Relaxed);
        }
    }

    /// Takes an event from the AI worker.
    pub fn on_ai_event(&mut self, event: AiEvent, now: Timestamp) -> AiUpdate {
        match event {
            AiEvent::Progress {
                id,
                depth,
                score,
                pv,
            } => match self.thinking.as_mut() {
                Some(thinking) if thinking.id == id => {
                    thinking.progress = Some(format!("depth {depth}, {score}: {pv}"));
                    AiUpdate::Progress
                }
                _ => AiUpdate::Ignored,
            },
            AiEvent::Done { id, best, .. } => {
                if self.thinking.as_ref().is_none_or(|t| t.id != id) {
                    return AiUpdate::Ignored;
                }
                let Some(thinking) = self.thinking.take() else {
                    return AiUpdate::Ignored;
                };
                self.tick(now);
                let legal = self.table.legal_any_moves();
                // A search stopped before finishing its first iteration may have no
                // move; any legal move is better than none.
                let Some(mv) = best
                    .filter(|mv| legal.contains(mv))
                    .or(legal.first().copied())
                else {
                    return AiUpdate::Ignored;
                };
                match thinking.purpose {
                    Purpose::Move => match self.apply(mv, now) {
                        Ok(text) => AiUpdate::Played(text),
                        Err(_) => AiUpdate::Ignored,
                    },
                    Purpose::Hint => {
                        let text = self.game().format_move(mv);
                        self.hint = Some((mv, text.clone()));
                        AiUpdate::Hint(text)
                    }
                }
            }
        }
    }
}

/// The table's setup: the clocks asked for; moves are taken back at once (the terminal
/// game has nobody to ask).
fn table_options(options: &SessionOptions) -> Options {
    Options {
        control: options.clock,
        takebacks: Takebacks::Immediate,
        ..Options::default()
    }
}

/// The longest a hint search takes.
pub const HINT_TIME: Duration = Duration::from_secs(2);

/// The result as protocols write it: `defenders_win (corner_escape)`, `draw (repetition)`.
#[must_use]
pub fn result_text(kind: GameKind, outcome: Outcome) -> String {
    format!("{} ({})", kind.status_name(Some(outcome)), outcome.reason)
}

/// How the game ended, in words: `defenders win: the king escaped to a corner`.
/// `to_move` is the side to move in the final position (who had no move, or whose
/// clock ran out).
#[must_use]
pub fn describe_outcome(kind: GameKind, outcome: Outcome, to_move: Player) -> String {
    let loser = outcome.winner.map_or(to_move, Player::other);
    let how = match outcome.reason {
        EndReason::CornerEscape => "the king escaped to a corner".to_owned(),
        EndReason::KingCaptured => "the king was captured".to_owned(),
        EndReason::ExitFort => "the king stands in an exit fort that cannot be broken".to_owned(),
        EndReason::Encirclement => "the attackers encircled all the defenders".to_owned(),
        EndReason::NoLegalMoves => format!("{} had no legal move", side_phrase(kind, loser)),
        EndReason::Repetition => "the same position occurred a third time".to_owned(),
        EndReason::Timeout => format!("{} ran out of time", side_phrase(kind, loser)),
        EndReason::Resignation => format!("{} resigned", side_phrase(kind, loser)),
        EndReason::Castle => format!(
            "{} has two pieces in the opponent's castle",
            side_phrase(kind, loser.other())
        ),
        EndReason::Elimination => "every piece of the other side was captured".to_owned(),
        EndReason::Material => "both sides have one piece or fewer".to_owned(),
        EndReason::FiftyMoves => "fifty moves each without a capture or a castle entry".to_owned(),
        EndReason::Agreement => "the players agreed".to_owned(),
        EndReason::Adjudication => "adjudicated".to_owned(),
        EndReason::Abandonment => format!("{} left the game", side_phrase(kind, loser)),
    };
    match outcome.winner {
        Some(winner) if kind.is_tafl() => format!("{} win: {how}", kind.side_name(winner)),
        Some(winner) => format!("{} wins: {how}", side_phrase(kind, winner)),
        None => format!("draw: {how}"),
    }
}

/// `the defenders`, `White`: a side as the subject of a sentence.
fn side_phrase(kind: GameKind, player: Player) -> String {
    let name = kind.side_name(player);
    if kind.is_tafl() {
        format!("the {name}")
    } else {
        let mut chars = name.chars();
        chars
            .next()
            .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
            .unwrap_or_default()
    }
}

/// `time`'s view of `now` (UTC).
fn utc(now: Timestamp) -> time::OffsetDateTime {
    let millis = i128::from(now.as_millis());
    time::OffsetDateTime::from_unix_timestamp_nanos(millis * 1_000_000)
        .unwrap_or(time::OffsetDateTime::UNIX_EPOCH)
}

/// `YYYY.MM.DD` (the form OpenTafl records use), in UTC.
fn date_tag(now: Timestamp) -> String {
    let t = utc(now);
    format!("{:04}.{:02}.{:02}", t.year(), u8::from(t.month()), t.day())
}

/// `kingstable-fetlar-20231114-221320.otg`: a new record's name, after the game and the
/// time (UTC).
fn default_record_name(kind: GameKind, now: Timestamp) -> PathBuf {
    let t = utc(now);
    PathBuf::from(format!(
        "kingstable-{kind}-{:04}{:02}{:02}-{:02}{:02}{:02}.{}",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        record::extension(kind)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(players: [Controller; 2], clock: &str) -> SessionOptions {
        SessionOptions {
            players,
            level: Level::Beginner,
            think: None,
            clock: clock.parse().unwrap(),
        }
    }

    /// An instant, `secs` seconds into the test.
    fn at(secs: u64) -> Timestamp {
        Timestamp::from_millis(1_700_000_000_000 + secs * 1000)
    }

    const HUMANS: [Controller; 2] = [Controller::Human, Controller::Human];
    const HUMAN_VS_AI: [Controller; 2] = [Controller::Human, Controller::Ai];
    const AI_VS_HUMAN: [Controller; 2] = [Controller::Ai, Controller::Human];

    fn tafl_session(players: [Controller; 2]) -> TerminalGame {
        TerminalGame::new(
            AnyGame::start(GameKind::Copenhagen),
            options(players, "untimed"),
            at(0),
        )
    }

    /// Answers the session's AI request with `text` as the AI's move.
    fn ai_answers(session: &mut TerminalGame, text: &str, now: Timestamp) -> AiUpdate {
        let request = session.next_ai_request(now).expect("the AI is to move");
        let mv = request.game.parse_move(text).unwrap();
        session.on_ai_event(
            AiEvent::Done {
                id: request.id,
                best: Some(mv),
                score: engine::Score(0),
                depth: 1,
            },
            now,
        )
    }

    #[test]
    fn typed_moves_are_played_with_their_captures() {
        let mut s = tafl_session(HUMANS);
        let now = at(1);
        for text in ["d1-d3", "e5-e2", "g1-g3", "f4-c4"] {
            assert!(
                matches!(s.submit(text, now), Ok(Submitted::Played(_))),
                "{text}"
            );
        }
        assert_eq!(
            s.submit("g3-e3", now),
            Ok(Submitted::Played("g3-e3xe2".into()))
        );
        let last = s.moves().last().unwrap();
        assert_eq!(last.info.captures, [s.game().parse_square("e2").unwrap()]);
        assert_eq!(s.pieces_lost(), [0, 1]);
    }

    #[test]
    fn illegal_moves_say_why_and_change_nothing() {
        let mut s = tafl_session(HUMANS);
        let now = at(1);
        let before = s.game().position_string();
        let err = s.submit("d1-d9", now).unwrap_err();
        assert!(err.contains("blocked"), "{err}");
        let err = s.submit("z9-z1", now).unwrap_err();
        assert!(err.contains("not a square"), "{err}");
        let err = s.submit("f6", now).unwrap_err();
        assert_eq!(err, "no legal move starts on f6");
        assert_eq!(s.game().position_string(), before);
        assert!(s.moves().is_empty());
    }

    #[test]
    fn a_from_square_alone_offers_its_moves_and_a_number_picks_one() {
        let mut s = tafl_session(HUMANS);
        let now = at(1);
        assert_eq!(s.submit("d1", now), Ok(Submitted::Choose));
        let choice = s.choice().unwrap();
        assert!(choice.prompt.contains("d1"));
        let texts: Vec<&str> = choice.options.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(
            texts,
            ["d1-d2", "d1-d3", "d1-d4", "d1-d5", "d1-c1", "d1-b1"]
        );
        assert!(s.pick(7, now).unwrap_err().contains("1 to 6"));
        assert_eq!(s.pick(2, now), Ok("d1-d3".to_owned()));
        assert!(s.choice().is_none());
        assert!(s.pick(1, now).is_err());
    }

    #[test]
    fn a_square_alone_lists_even_a_single_move() {
        let mut s = tafl_session(HUMANS);
        let now = at(1);
        s.submit("d1-d2", now).unwrap();
        s.submit("e7-e9", now).unwrap();
        // The attacker on e11 can only go to e10: it is offered, not played.
        assert_eq!(s.submit("e11", now), Ok(Submitted::Choose));
        let texts: Vec<&str> = s
            .choice()
            .unwrap()
            .options
            .iter()
            .map(|(_, t)| t.as_str())
            .collect();
        assert_eq!(texts, ["e11-e10"]);
        assert_eq!(s.moves().len(), 2);
        assert_eq!(s.pick(1, now), Ok("e11-e10".to_owned()));
    }

    #[test]
    fn unambiguous_prefixes_are_completed() {
        let mut s = tafl_session(HUMANS);
        let now = at(1);
        // The only move of the piece on d1 towards file c.
        assert_eq!(s.submit("d1-c", now), Ok(Submitted::Played("d1-c1".into())));
        // A prefix shared by several moves offers them.
        assert_eq!(s.submit("e5-e", now), Ok(Submitted::Choose));
        assert_eq!(s.choice().unwrap().options.len(), 3);
    }

    #[test]
    fn camelot_destinations_reached_by_different_captures_ask_which() {
        let fen =
            "2/8/10/12/7m1n2/3m2mm2n1/3nmmmmn3/7m4/8M3/3NMM6/2N1MMMMMN2/3M6M1/12/10/8/2 b 0 0 3";
        let game = AnyGame::from_position(GameKind::Camelot, fen).unwrap();
        let mut s = TerminalGame::new(game, options(HUMANS, "untimed"), at(0));
        let now = at(1);
        assert_eq!(s.submit("h9-f5", now), Ok(Submitted::Choose));
        let choice = s.choice().unwrap();
        assert!(choice.prompt.contains("H9 to F5"), "{}", choice.prompt);
        let texts: Vec<String> = choice.options.iter().map(|(_, t)| t.clone()).collect();
        assert_eq!(texts.len(), 2);
        assert!(texts.contains(&"H9xJ7xH5xH7xF5".to_owned()), "{texts:?}");
        let from = s.game().parse_square("H9").unwrap();
        let to = s.game().parse_square("F5").unwrap();
        assert!(s.destinations(from).contains(&to));
        s.cancel_choice();
        assert_eq!(s.submit_squares(from, to, now), Ok(Submitted::Choose));
        let second = s.choice().unwrap().options[1].1.clone();
        assert_eq!(s.pick(2, now), Ok(second.clone()));
        assert_eq!(s.moves()[0].info.captures.len(), 4);
        // The full path names one move.
        s.undo(now).unwrap();
        assert_eq!(
            s.submit(&second, now),
            Ok(Submitted::Played(second.clone()))
        );
    }

    #[test]
    fn the_ai_moves_when_it_is_its_turn_and_undo_goes_back_to_the_human() {
        let mut s = tafl_session(HUMAN_VS_AI);
        let now = at(1);
        assert!(s.next_ai_request(now).is_none(), "the human moves first");
        s.submit("d1-d3", now).unwrap();
        let err = s.submit("h1-h3", now).unwrap_err();
        assert!(err.contains("AI's turn"), "{err}");
        assert_eq!(
            ai_answers(&mut s, "e5-e2", now),
            AiUpdate::Played("e5-e2".into())
        );
        assert!(s.by_ai(&s.moves()[1]));
        assert!(!s.by_ai(&s.moves()[0]));
        let revision = s.revision();
        assert_eq!(s.undo(now), Ok(2));
        assert!(s.moves().is_empty());
        assert!(s.revision() > revision, "undo is a change to save");
        let revision = s.revision();
        assert_eq!(s.undo(now), Err("nothing to undo".into()));
        assert_eq!(s.revision(), revision);
    }

    #[test]
    fn undo_while_the_ai_thinks_cancels_the_search() {
        let mut s = tafl_session(HUMAN_VS_AI);
        let now = at(1);
        s.submit("d1-d3", now).unwrap();
        let request = s.next_ai_request(now).unwrap();
        assert!(s.next_ai_request(now).is_none(), "one search at a time");
        assert_eq!(s.undo(now), Ok(1));
        assert!(request.stop.load(Ordering::Relaxed));
        let late = AiEvent::Done {
            id: request.id,
            best: Some(request.game.parse_move("e5-e2").unwrap()),
            score: engine::Score(0),
            depth: 1,
        };
        assert_eq!(s.on_ai_event(late, now), AiUpdate::Ignored);
        assert!(s.moves().is_empty());
    }

    #[test]
    fn an_ai_opening_is_not_undone_alone() {
        let mut s = tafl_session(AI_VS_HUMAN);
        let now = at(1);
        ai_answers(&mut s, "d1-d3", now);
        assert_eq!(s.undo(now), Err("nothing to undo".into()));
        s.submit("e5-e2", now).unwrap();
        ai_answers(&mut s, "h1-h3", now);
        assert_eq!(s.undo(now), Ok(2));
        assert_eq!(s.moves().len(), 1);
    }

    #[test]
    fn stopped_searches_without_a_move_still_play_a_legal_one() {
        let mut s = tafl_session(AI_VS_HUMAN);
        let now = at(1);
        let request = s.next_ai_request(now).unwrap();
        assert!(s.stop_thinking());
        assert!(request.stop.load(Ordering::Relaxed));
        let done = AiEvent::Done {
            id: request.id,
            best: None,
            score: engine::Score(0),
            depth: 0,
        };
        assert!(matches!(s.on_ai_event(done, now), AiUpdate::Played(_)));
        assert_eq!(s.moves().len(), 1);
    }

    #[test]
    fn hints_are_for_the_human_and_forgotten_after_a_move() {
        let mut s = tafl_session(HUMAN_VS_AI);
        let now = at(1);
        let request = s.request_hint(now).unwrap();
        assert_eq!(request.level, Level::Maximum);
        assert!(s.request_hint(now).unwrap_err().contains("already"));
        let mv = request.game.parse_move("h1-h3").unwrap();
        let done = AiEvent::Done {
            id: request.id,
            best: Some(mv),
            score: engine::Score(0),
            depth: 3,
        };
        assert_eq!(s.on_ai_event(done, now), AiUpdate::Hint("h1-h3".into()));
        assert_eq!(s.hint().unwrap().1, "h1-h3");
        s.submit("d1-d3", now).unwrap();
        assert!(s.hint().is_none());
        assert!(s.request_hint(now).unwrap_err().contains("AI's turn"));
    }

    #[test]
    fn clocks_run_for_the_side_to_move_and_a_flag_fall_ends_the_game() {
        let t0 = at(0);
        let fetlar = AnyGame::start(GameKind::Fetlar);
        let mut s = TerminalGame::new(fetlar, options(HUMANS, "1+5"), t0);
        s.submit("d1-d3", at(10)).unwrap();
        let clocks = s.clocks().unwrap();
        assert_eq!(
            clocks.both(at(20)),
            Some([Duration::from_secs(55), Duration::from_secs(50)])
        );
        assert_eq!(s.tick(at(69)), None);
        let late = at(71);
        let outcome = s.tick(late).unwrap();
        assert_eq!(outcome, Outcome::loss(Player::Second, EndReason::Timeout));
        assert_eq!(result_text(s.kind(), outcome), "attackers_win (timeout)");
        assert!(
            s.submit("e5-e2", late)
                .unwrap_err()
                .contains("ran out of time")
        );
        // Taking the move back restores the clocks as they were before it.
        assert_eq!(s.undo(late), Ok(1));
        assert_eq!(s.outcome(), None);
        assert_eq!(
            s.clocks().unwrap().remaining(Player::First, late),
            Some(Duration::from_secs(50))
        );
    }

    #[test]
    fn the_ai_searches_on_the_clock() {
        let t0 = at(0);
        let fetlar = AnyGame::start(GameKind::Fetlar);
        let mut s = TerminalGame::new(fetlar, options(AI_VS_HUMAN, "2+1"), t0);
        let request = s.next_ai_request(t0).unwrap();
        let clock = request.limits.clock.unwrap();
        assert_eq!(clock.remaining, [Duration::from_secs(120); 2]);
        assert_eq!(clock.increment, [Duration::from_secs(1); 2]);
        assert_eq!(request.limits.move_time, None);
    }

    #[test]
    fn resigning_ends_the_game_for_the_human() {
        let mut s = tafl_session(AI_VS_HUMAN);
        let now = at(1);
        let outcome = s.resign(now).unwrap();
        assert_eq!(
            outcome,
            Outcome::loss(Player::Second, EndReason::Resignation)
        );
        assert_eq!(s.next_ai_request(now).map(|r| r.id), None);
        assert!(s.resign(now).is_err());
        assert_eq!(
            describe_outcome(s.kind(), outcome, s.to_move()),
            "attackers win: the defenders resigned"
        );
    }

    #[test]
    fn records_save_and_load_back_with_the_same_moves() {
        let dir = std::env::temp_dir().join(format!("kingstable-session-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("game.otg");
        let mut s = tafl_session(HUMANS);
        let now = at(1);
        for text in ["d1-d3", "e5-e2", "g1-g3", "f4-c4", "g3-e3"] {
            s.submit(text, now).unwrap();
        }
        assert_eq!(s.save(Some(&path), now).unwrap(), path);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("2023.11.14"), "{text}");
        assert!(text.contains("[attackers:human]"), "{text}");
        assert!(text.contains("3. g3-e3xe2"), "{text}");
        let mut other = tafl_session(HUMANS);
        assert_eq!(other.load(&path, now).unwrap(), 5);
        assert_eq!(other.game().position_string(), s.game().position_string());
        assert_eq!(other.moves()[4].info.captures.len(), 1);
        // A file that does not replay changes nothing.
        std::fs::write(&path, "d1-d3 d3-d1\n").unwrap();
        let err = other.load(&path, now).unwrap_err();
        assert!(format!("{err:#}").contains("d3-d1"), "{err:#}");
        assert_eq!(other.moves().len(), 5);
        // A record's ending outside the rules comes with it, and undo takes it back.
        std::fs::write(&path, "d1-d3 e5-e2 timeout\n").unwrap();
        assert_eq!(other.load(&path, now).unwrap(), 2);
        assert_eq!(
            other.outcome(),
            Some(Outcome::loss(Player::First, EndReason::Timeout))
        );
        assert_eq!(other.undo(now), Ok(1));
        assert_eq!(other.outcome(), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn outcomes_read_as_results_and_words() {
        let escape = Outcome::win(Player::Second, EndReason::CornerEscape);
        assert_eq!(
            result_text(GameKind::Fetlar, escape),
            "defenders_win (corner_escape)"
        );
        assert_eq!(
            describe_outcome(GameKind::Fetlar, escape, Player::First),
            "defenders win: the king escaped to a corner"
        );
        let castle = Outcome::win(Player::First, EndReason::Castle);
        assert_eq!(
            describe_outcome(GameKind::Camelot, castle, Player::Second),
            "White wins: White has two pieces in the opponent's castle"
        );
    }

    #[test]
    fn dates_are_civil_utc() {
        let t = at(0);
        assert_eq!(date_tag(t), "2023.11.14");
        assert_eq!(
            default_record_name(GameKind::Camelot, t),
            PathBuf::from("kingstable-camelot-20231114-221320.txt")
        );
        assert_eq!(
            default_record_name(GameKind::Fetlar, Timestamp::from_millis(951_782_400_999)),
            PathBuf::from("kingstable-fetlar-20000229-000000.otg")
        );
        assert_eq!(date_tag(Timestamp::from_millis(0)), "1970.01.01");
    }
}
