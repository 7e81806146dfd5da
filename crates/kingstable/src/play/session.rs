//! [`Session`]: one game being played, apart from how it is shown. It holds the game,
//! the moves played with what they did, who plays each side, the clocks, the AI requests
//! in flight and a pending choice between moves. The full-screen game and the line mode
//! both drive it; it never blocks and never touches the terminal.
//!
//! Time is passed in (`now`) so tests control it. The AI is not called from here: the
//! session hands out [`AiRequest`]s and takes the worker's [`AiEvent`]s back, ignoring
//! the answers to requests it has since cancelled.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result};
use engine::{Level, Limits};
use game::{EndReason, GameKind, Outcome, Player};

use super::ai::{AiEvent, AiRequest, Purpose};
use games::MoveInfo;
use games::record::{self, TagKey};

use super::board::{PlayGame, Sq, load_record};
use super::clock::{Clocks, TimeControl};

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
    /// or [`DEFAULT_THINK`] without a clock.
    pub think: Option<Duration>,
    /// Clocks, if the game is timed.
    pub clock: Option<TimeControl>,
}

/// The AI's time per move in an untimed game unless told otherwise.
pub const DEFAULT_THINK: Duration = Duration::from_secs(3);

/// One move played, with what it did.
#[derive(Clone, Debug)]
pub struct Ply {
    /// In notation, with captures.
    pub text: String,
    /// Who played it.
    pub mover: Player,
    /// Whether the AI chose it.
    pub by_ai: bool,
    /// Where the piece started.
    pub from: Sq,
    /// Where it ended.
    pub to: Sq,
    /// The pieces it captured.
    pub captured: Vec<Sq>,
    /// Both clocks before it, to restore on undo (`None` for moves loaded from a record).
    clocks_before: Option<[Duration; 2]>,
}

/// Several legal moves match what was entered; the player picks one by number.
#[derive(Clone, Debug)]
pub struct Choice<M> {
    /// What is being chosen (`H9 to F5 can be played 2 ways`).
    pub prompt: String,
    /// The moves, each with its notation and the squares it captures.
    pub options: Vec<(M, String)>,
}

/// A search the session is waiting for.
#[derive(Clone, Debug)]
pub struct Thinking {
    id: u64,
    /// Why the AI is searching.
    pub purpose: Purpose,
    stop: Arc<AtomicBool>,
    /// When it started.
    pub since: Instant,
    /// The latest progress: depth, score and line.
    pub progress: Option<String>,
}

/// What became of a move entered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Submitted {
    /// It was played; its notation.
    Played(String),
    /// Several moves match: pick one ([`Session::choice`] lists them).
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

/// A game being played.
pub struct Session<G: PlayGame> {
    game: G,
    kind: GameKind,
    options: SessionOptions,
    history: Vec<Ply>,
    /// An end the rules know nothing of (time, resignation).
    ended: Option<Outcome>,
    clocks: Option<Clocks>,
    choice: Option<Choice<G::Move>>,
    thinking: Option<Thinking>,
    next_id: u64,
    hint: Option<(G::Move, String)>,
    /// Counts changes to the game, so a front end can tell whether it was saved since.
    revision: u64,
}

impl<G: PlayGame> Session<G> {
    /// A session from `game` (usually the start), clocks started for the side to move.
    #[must_use]
    pub fn new(game: G, options: SessionOptions, now: Instant) -> Session<G> {
        let clocks = options.clock.map(|control| {
            let mut clocks = Clocks::new(control);
            clocks.start(game.to_move(), now);
            clocks
        });
        Session {
            kind: game.kind(),
            game,
            options,
            history: Vec::new(),
            ended: None,
            clocks,
            choice: None,
            thinking: None,
            next_id: 1,
            hint: None,
            revision: 0,
        }
    }

    /// The game as it stands.
    #[must_use]
    pub fn game(&self) -> &G {
        &self.game
    }

    /// Which game.
    #[must_use]
    pub fn kind(&self) -> GameKind {
        self.kind
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

    /// Whether the player to move is a person (and the game goes on).
    #[must_use]
    pub fn human_to_move(&self) -> bool {
        self.outcome().is_none() && self.controller(self.game.to_move()) == Controller::Human
    }

    /// How the game ended, by the rules or by time or resignation.
    #[must_use]
    pub fn outcome(&self) -> Option<Outcome> {
        self.ended.or_else(|| self.game.outcome())
    }

    /// The moves played.
    #[must_use]
    pub fn history(&self) -> &[Ply] {
        &self.history
    }

    /// A number that changes whenever the game does (moves, undo, load, an ending), to
    /// tell whether it has changed since it was saved.
    #[must_use]
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// The clocks, if the game is timed.
    #[must_use]
    pub fn clocks(&self) -> Option<&Clocks> {
        self.clocks.as_ref()
    }

    /// The moves offered to choose from, if a choice is pending.
    #[must_use]
    pub fn choice(&self) -> Option<&Choice<G::Move>> {
        self.choice.as_ref()
    }

    /// The search in flight, if any.
    #[must_use]
    pub fn thinking(&self) -> Option<&Thinking> {
        self.thinking.as_ref()
    }

    /// The AI's latest suggestion for the position as it stands.
    #[must_use]
    pub fn hint(&self) -> Option<&(G::Move, String)> {
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
        format!("{} ({who})", self.kind.side_name(player))
    }

    /// How many of each player's pieces have been captured, indexed by
    /// [`Player::index`].
    #[must_use]
    pub fn pieces_lost(&self) -> [usize; 2] {
        let mut lost = [0; 2];
        for ply in &self.history {
            lost[ply.mover.other().index()] += ply.captured.len();
        }
        lost
    }

    // ---- Time ----

    /// Checks the clocks: if the running one has run out, the game ends on time (and any
    /// search stops). Returns the outcome when this call ended the game.
    pub fn tick(&mut self, now: Instant) -> Option<Outcome> {
        if self.outcome().is_some() {
            return None;
        }
        let clocks = self.clocks.as_mut()?;
        let loser = clocks.flagged(now)?;
        clocks.stop(now);
        let outcome = Outcome::loss(loser, EndReason::Timeout);
        self.ended = Some(outcome);
        self.revision += 1;
        self.cancel_thinking();
        self.choice = None;
        Some(outcome)
    }

    // ---- Moves entered by people ----

    /// Plays what a person typed: a full move, or a part that names exactly one legal
    /// move (a from-square and a to-square, a prefix of the move's notation). When
    /// several moves match, offers them as a [`Choice`].
    pub fn submit(&mut self, text: &str, now: Instant) -> Result<Submitted, String> {
        self.check_human_turn(now)?;
        let text = text.trim();
        if text.is_empty() {
            return Err("type a move, like d1-d3".to_owned());
        }
        let error = match self.game.parse_move(text) {
            Ok(mv) => return Ok(Submitted::Played(self.play_human(mv, now))),
            Err(error) => error.to_string(),
        };
        let (matches, prompt) = self.matching_moves(text);
        match matches.as_slice() {
            [] => {
                let squares = self.squares_in(text);
                Err(match squares.as_deref() {
                    Some([from]) => {
                        format!("no legal move starts on {}", self.game.square_name(*from))
                    }
                    _ => error,
                })
            }
            // A square alone lists its moves, even a single one (as the help says).
            [mv] if !matches!(self.squares_in(text).as_deref(), Some([_])) => {
                Ok(Submitted::Played(self.play_human(*mv, now)))
            }
            _ => {
                self.offer(matches, prompt);
                Ok(Submitted::Choose)
            }
        }
    }

    /// Plays the move from `from` to `to` chosen on the board, or offers a choice if
    /// several capture sets lead there.
    pub fn submit_squares(&mut self, from: Sq, to: Sq, now: Instant) -> Result<Submitted, String> {
        self.check_human_turn(now)?;
        let matches: Vec<G::Move> = self
            .legal_moves()
            .into_iter()
            .filter(|&mv| self.move_ends(mv) == (from, to))
            .collect();
        match matches.as_slice() {
            [] => Err(format!(
                "{} cannot go to {}",
                self.game.square_name(from),
                self.game.square_name(to)
            )),
            [mv] => Ok(Submitted::Played(self.play_human(*mv, now))),
            _ => {
                let prompt = format!(
                    "{} to {} can be played {} ways",
                    self.game.square_name(from),
                    self.game.square_name(to),
                    matches.len()
                );
                self.offer(matches, prompt);
                Ok(Submitted::Choose)
            }
        }
    }

    /// Plays the `n`-th (1-based) move of the pending choice.
    pub fn pick(&mut self, n: usize, now: Instant) -> Result<String, String> {
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
        Ok(self.play_human(mv, now))
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
            .legal_moves()
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
        if let Ok(mv) = self.game.parse_move(text) {
            return vec![self.game.format_move(mv)];
        }
        let (matches, _) = self.matching_moves(text);
        matches
            .into_iter()
            .map(|mv| self.game.format_move(mv))
            .collect()
    }

    /// The legal moves whose notation begins with `text` or whose squares `text` names
    /// (the first square as the start, the last as the end), with a prompt for choosing
    /// among them.
    fn matching_moves(&self, text: &str) -> (Vec<G::Move>, String) {
        let lower = text.to_ascii_lowercase();
        let squares = self.squares_in(text);
        let matches: Vec<G::Move> = self
            .legal_moves()
            .into_iter()
            .filter(|&mv| {
                let (from, to) = self.move_ends(mv);
                // Whole square names are matched as squares, so `d1` is not taken as
                // the start of `d11`.
                match squares.as_deref() {
                    Some([only]) => from == *only,
                    Some([first, .., last]) => from == *first && to == *last,
                    _ => self
                        .game
                        .format_move(mv)
                        .to_ascii_lowercase()
                        .starts_with(&lower),
                }
            })
            .collect();
        let prompt = match squares.as_deref() {
            Some([from]) => format!("moves of the piece on {}", self.game.square_name(*from)),
            Some([from, .., to]) => format!(
                "{} to {} can be played {} ways",
                self.game.square_name(*from),
                self.game.square_name(*to),
                matches.len()
            ),
            _ => format!("moves beginning {text}"),
        };
        (matches, prompt)
    }

    fn offer(&mut self, moves: Vec<G::Move>, prompt: String) {
        let options = moves
            .into_iter()
            .map(|mv| (mv, self.game.format_move(mv)))
            .collect();
        self.choice = Some(Choice { prompt, options });
    }

    fn check_human_turn(&mut self, now: Instant) -> Result<(), String> {
        self.tick(now);
        if let Some(outcome) = self.outcome() {
            return Err(format!(
                "the game is over: {}; undo takes moves back",
                describe_outcome(self.kind, outcome, self.game.to_move())
            ));
        }
        if self.controller(self.game.to_move()) == Controller::Ai {
            return Err("it is the AI's turn: wait, or stop to make it move now".to_owned());
        }
        Ok(())
    }

    fn play_human(&mut self, mv: G::Move, now: Instant) -> String {
        // A hint still being searched is for a position that is about to change.
        self.cancel_thinking();
        self.apply(mv, false, Some(now))
    }

    /// Where a move starts and ends.
    fn move_ends(&self, mv: G::Move) -> (Sq, Sq) {
        let info = self.game.move_info(mv);
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
            .map(|p| self.game.parse_square(p))
            .collect()
    }

    fn legal_moves(&self) -> Vec<G::Move> {
        let mut moves = Vec::new();
        if self.outcome().is_none() {
            self.game.legal_moves(&mut moves);
        }
        moves
    }

    /// Plays a legal move and records it; `now` is `None` for moves replayed from a
    /// record, which the clocks do not see.
    fn apply(&mut self, mv: G::Move, by_ai: bool, now: Option<Instant>) -> String {
        let mover = self.game.to_move();
        let text = self.game.format_move(mv);
        let MoveInfo {
            from,
            to,
            captures: captured,
            ..
        } = self.game.move_info(mv);
        let clocks_before = now.and_then(|now| Some(self.clocks.as_ref()?.both(now)));
        self.game.play(mv);
        if let (Some(clocks), Some(now)) = (self.clocks.as_mut(), now) {
            if self.game.outcome().is_some() {
                clocks.stop(now);
            } else {
                clocks.press(mover, now);
            }
        }
        self.revision += 1;
        self.history.push(Ply {
            text: text.clone(),
            mover,
            by_ai,
            from,
            to,
            captured,
            clocks_before,
        });
        self.choice = None;
        self.hint = None;
        text
    }

    // ---- Commands ----

    /// Takes moves back: against the AI, back to before your last move; between two
    /// people, one move. Returns how many plies were taken back.
    pub fn undo(&mut self, now: Instant) -> Result<usize, String> {
        let humans = self
            .options
            .players
            .iter()
            .filter(|&&c| c == Controller::Human)
            .count();
        if humans == 0 || !self.history.iter().any(|ply| !ply.by_ai) {
            return Err("nothing to undo".to_owned());
        }
        self.cancel_thinking();
        let mut count = 0;
        while let Some(ply) = self.history.pop() {
            self.game.undo();
            count += 1;
            if let Some(clocks) = self.clocks.as_mut() {
                match ply.clocks_before {
                    Some(before) => clocks.restore(before, Some(ply.mover), now),
                    None => clocks.start(ply.mover, now),
                }
            }
            if !ply.by_ai && self.controller(ply.mover) == Controller::Human {
                break;
            }
        }
        self.ended = None;
        self.choice = None;
        self.hint = None;
        self.revision += 1;
        Ok(count)
    }

    /// The side to move resigns (against the AI: the person's side, whoever is to move).
    pub fn resign(&mut self, now: Instant) -> Result<Outcome, String> {
        self.tick(now);
        if self.outcome().is_some() {
            return Err("the game is already over".to_owned());
        }
        let loser = if self.controller(self.game.to_move()) == Controller::Human {
            self.game.to_move()
        } else {
            self.game.to_move().other()
        };
        if self.controller(loser) == Controller::Ai {
            return Err("only a person can resign".to_owned());
        }
        let outcome = Outcome::loss(loser, EndReason::Resignation);
        self.ended = Some(outcome);
        self.revision += 1;
        self.cancel_thinking();
        if let Some(clocks) = self.clocks.as_mut() {
            clocks.stop(now);
        }
        Ok(outcome)
    }

    /// The game as a record (`.otg` for tafl, a WCF score for Camelot).
    #[must_use]
    pub fn record_text(&self) -> String {
        let names = Player::BOTH.map(|p| match self.controller(p) {
            Controller::Human => "human".to_owned(),
            Controller::Ai => format!("kingstable AI ({})", self.options.level),
        });
        let tag = |key| record::tag_name(self.kind, key).to_owned();
        let mut tags = vec![
            (tag(TagKey::Event), "kingstable play".to_owned()),
            (tag(TagKey::Date), date_tag(SystemTime::now())),
        ];
        for (player, name) in Player::BOTH.into_iter().zip(names) {
            tags.push((tag(TagKey::player(player)), name));
        }
        if let Some(control) = self.options.clock {
            tags.push((tag(TagKey::TimeControl), control.to_string()));
        }
        record::write(&self.game.to_any(), &tags, self.outcome())
    }

    /// Saves the record to `path`, or to a new file named after the game and the time.
    /// Returns the file written.
    pub fn save(&self, path: Option<&Path>) -> Result<PathBuf> {
        let path = match path {
            Some(p) => p.to_path_buf(),
            None => default_record_name(self.kind, record::extension(self.kind), SystemTime::now()),
        };
        std::fs::write(&path, self.record_text())
            .with_context(|| format!("cannot write {}", path.display()))?;
        Ok(path)
    }

    /// Loads a record and plays on from its end (clocks start afresh). Nothing changes
    /// if the record cannot be read or does not replay.
    pub fn load(&mut self, path: &Path, now: Instant) -> Result<usize> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let loaded =
            load_record::<G>(self.kind, &text).with_context(|| format!("{}", path.display()))?;
        self.cancel_thinking();
        self.game = loaded.start;
        self.history.clear();
        for mv in &loaded.moves {
            self.apply(*mv, false, None);
        }
        self.ended = loaded.outcome.filter(|_| self.game.outcome().is_none());
        self.clocks = self.options.clock.map(|control| {
            let mut clocks = Clocks::new(control);
            if self.outcome().is_none() {
                clocks.start(self.game.to_move(), now);
            }
            clocks
        });
        Ok(loaded.moves.len())
    }

    // ---- The AI ----

    /// The search to start now, if it is the AI's turn and it is not already thinking.
    pub fn next_ai_request(&mut self, now: Instant) -> Option<AiRequest<G>> {
        if self.thinking.is_some()
            || self.outcome().is_some()
            || self.controller(self.game.to_move()) != Controller::Ai
        {
            return None;
        }
        let mut limits = match &self.clocks {
            Some(clocks) => Limits::clock(engine::Clock {
                remaining: clocks.both(now),
                increment: [clocks.control().increment; 2],
                moves_to_go: None,
            }),
            None => Limits::move_time(self.options.think.unwrap_or(DEFAULT_THINK)),
        };
        if let (Some(_), Some(think)) = (&self.clocks, self.options.think) {
            limits = limits.with_move_time(think);
        }
        Some(self.request(Purpose::Move, limits, self.options.level, now))
    }

    /// A search for a hint for the person to move.
    pub fn request_hint(&mut self, now: Instant) -> Result<AiRequest<G>, String> {
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
        now: Instant,
    ) -> AiRequest<G> {
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
            game: self.game.clone(),
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
    pub fn on_ai_event(&mut self, event: AiEvent<G::Move>, now: Instant) -> AiUpdate {
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
                if self.outcome().is_some() {
                    return AiUpdate::Ignored;
                }
                let legal = self.legal_moves();
                // A search stopped before finishing its first iteration may have no
                // move; any legal move is better than none.
                let Some(mv) = best
                    .filter(|mv| legal.contains(mv))
                    .or(legal.first().copied())
                else {
                    return AiUpdate::Ignored;
                };
                match thinking.purpose {
                    Purpose::Move => AiUpdate::Played(self.apply(mv, true, Some(now))),
                    Purpose::Hint => {
                        let text = self.game.format_move(mv);
                        self.hint = Some((mv, text.clone()));
                        AiUpdate::Hint(text)
                    }
                }
            }
        }
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

/// `YYYY.MM.DD` (the form OpenTafl records use), in UTC.
fn date_tag(time: SystemTime) -> String {
    let (y, m, d, _) = civil(time);
    format!("{y:04}.{m:02}.{d:02}")
}

fn default_record_name(kind: GameKind, extension: &str, time: SystemTime) -> PathBuf {
    let (y, m, d, secs) = civil(time);
    let (h, min, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    PathBuf::from(format!(
        "kingstable-{kind}-{y:04}{m:02}{d:02}-{h:02}{min:02}{s:02}.{extension}"
    ))
}

/// Year, month, day and seconds into the day (UTC) of `time`.
fn civil(time: SystemTime) -> (i64, u32, u32, u64) {
    let secs = time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let days = (secs / 86_400) as i64;
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d, secs % 86_400)
}

#[cfg(test)]
mod tests {
    use super::*;
    use camelot::Camelot;
    #[allow(unused_imports)]
    use game::Game;
    use games::Board;
    use tafl::{Rules, Tafl};

    fn options(players: [Controller; 2], clock: Option<&str>) -> SessionOptions {
        SessionOptions {
            players,
            level: Level::Beginner,
            think: None,
            clock: clock.map(|c| c.parse().unwrap()),
        }
    }

    const HUMANS: [Controller; 2] = [Controller::Human, Controller::Human];
    const HUMAN_VS_AI: [Controller; 2] = [Controller::Human, Controller::Ai];
    const AI_VS_HUMAN: [Controller; 2] = [Controller::Ai, Controller::Human];

    fn tafl_session(players: [Controller; 2]) -> Session<Tafl> {
        Session::new(
            Tafl::new(Rules::COPENHAGEN),
            options(players, None),
            Instant::now(),
        )
    }

    /// Answers the session's AI request with `text` as the AI's move.
    fn ai_answers<G: PlayGame>(session: &mut Session<G>, text: &str, now: Instant) -> AiUpdate {
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
        let now = Instant::now();
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
        let last = s.history().last().unwrap();
        assert_eq!(last.captured, [s.game().parse_square("e2").unwrap()]);
        assert_eq!(s.pieces_lost(), [0, 1]);
    }

    #[test]
    fn illegal_moves_say_why_and_change_nothing() {
        let mut s = tafl_session(HUMANS);
        let now = Instant::now();
        let before = s.game().position_string();
        let err = s.submit("d1-d9", now).unwrap_err();
        assert!(err.contains("blocked"), "{err}");
        let err = s.submit("z9-z1", now).unwrap_err();
        assert!(err.contains("not a square"), "{err}");
        let err = s.submit("f6", now).unwrap_err();
        assert_eq!(err, "no legal move starts on f6");
        assert_eq!(s.game().position_string(), before);
        assert!(s.history().is_empty());
    }

    #[test]
    fn a_from_square_alone_offers_its_moves_and_a_number_picks_one() {
        let mut s = tafl_session(HUMANS);
        let now = Instant::now();
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
        let now = Instant::now();
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
        assert_eq!(s.history().len(), 2);
        assert_eq!(s.pick(1, now), Ok("e11-e10".to_owned()));
    }

    #[test]
    fn unambiguous_prefixes_are_completed() {
        let mut s = tafl_session(HUMANS);
        let now = Instant::now();
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
        let game = Camelot::from_position_string(fen).unwrap();
        let mut s = Session::new(game, options(HUMANS, None), Instant::now());
        let now = Instant::now();
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
        assert_eq!(s.history()[0].captured.len(), 4);
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
        let now = Instant::now();
        assert!(s.next_ai_request(now).is_none(), "the human moves first");
        s.submit("d1-d3", now).unwrap();
        let err = s.submit("h1-h3", now).unwrap_err();
        assert!(err.contains("AI's turn"), "{err}");
        assert_eq!(
            ai_answers(&mut s, "e5-e2", now),
            AiUpdate::Played("e5-e2".into())
        );
        assert!(s.history()[1].by_ai);
        let revision = s.revision();
        assert_eq!(s.undo(now), Ok(2));
        assert!(s.history().is_empty());
        assert!(s.revision() > revision, "undo is a change to save");
        let revision = s.revision();
        assert_eq!(s.undo(now), Err("nothing to undo".into()));
        assert_eq!(s.revision(), revision);
    }

    #[test]
    fn undo_while_the_ai_thinks_cancels_the_search() {
        let mut s = tafl_session(HUMAN_VS_AI);
        let now = Instant::now();
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
        assert!(s.history().is_empty());
    }

    #[test]
    fn an_ai_opening_is_not_undone_alone() {
        let mut s = tafl_session(AI_VS_HUMAN);
        let now = Instant::now();
        ai_answers(&mut s, "d1-d3", now);
        assert_eq!(s.undo(now), Err("nothing to undo".into()));
        s.submit("e5-e2", now).unwrap();
        ai_answers(&mut s, "h1-h3", now);
        assert_eq!(s.undo(now), Ok(2));
        assert_eq!(s.history().len(), 1);
    }

    #[test]
    fn stopped_searches_without_a_move_still_play_a_legal_one() {
        let mut s = tafl_session(AI_VS_HUMAN);
        let now = Instant::now();
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
        assert_eq!(s.history().len(), 1);
    }

    #[test]
    fn hints_are_for_the_human_and_forgotten_after_a_move() {
        let mut s = tafl_session(HUMAN_VS_AI);
        let now = Instant::now();
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
        let t0 = Instant::now();
        let mut s = Session::new(Tafl::new(Rules::FETLAR), options(HUMANS, Some("1+5")), t0);
        s.submit("d1-d3", t0 + Duration::from_secs(10)).unwrap();
        let clocks = s.clocks().unwrap();
        assert_eq!(
            clocks.both(t0 + Duration::from_secs(20)),
            [Duration::from_secs(55), Duration::from_secs(50)]
        );
        assert_eq!(s.tick(t0 + Duration::from_secs(69)), None);
        let late = t0 + Duration::from_secs(71);
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
            Duration::from_secs(50)
        );
    }

    #[test]
    fn the_ai_searches_on_the_clock() {
        let t0 = Instant::now();
        let mut s = Session::new(
            Tafl::new(Rules::FETLAR),
            options(AI_VS_HUMAN, Some("2+1")),
            t0,
        );
        let request = s.next_ai_request(t0).unwrap();
        let clock = request.limits.clock.unwrap();
        assert_eq!(clock.remaining, [Duration::from_secs(120); 2]);
        assert_eq!(clock.increment, [Duration::from_secs(1); 2]);
        assert_eq!(request.limits.move_time, None);
    }

    #[test]
    fn resigning_ends_the_game_for_the_human() {
        let mut s = tafl_session(AI_VS_HUMAN);
        let now = Instant::now();
        let outcome = s.resign(now).unwrap();
        assert_eq!(
            outcome,
            Outcome::loss(Player::Second, EndReason::Resignation)
        );
        assert_eq!(s.next_ai_request(now).map(|r| r.id), None);
        assert!(s.resign(now).is_err());
        assert_eq!(
            describe_outcome(s.kind(), outcome, s.game().to_move()),
            "attackers win: the defenders resigned"
        );
    }

    #[test]
    fn records_save_and_load_back_with_the_same_moves() {
        let dir = std::env::temp_dir().join(format!("kingstable-session-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("game.otg");
        let mut s = tafl_session(HUMANS);
        let now = Instant::now();
        for text in ["d1-d3", "e5-e2", "g1-g3", "f4-c4", "g3-e3"] {
            s.submit(text, now).unwrap();
        }
        assert_eq!(s.save(Some(&path)).unwrap(), path);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("[attackers:human]"), "{text}");
        assert!(text.contains("3. g3-e3xe2"), "{text}");
        let mut other = tafl_session(HUMANS);
        assert_eq!(other.load(&path, now).unwrap(), 5);
        assert_eq!(other.game().position_string(), s.game().position_string());
        assert_eq!(other.history()[4].captured.len(), 1);
        // A file that does not replay changes nothing.
        std::fs::write(&path, "d1-d3 d3-d1\n").unwrap();
        let err = other.load(&path, now).unwrap_err();
        assert!(format!("{err:#}").contains("d3-d1"), "{err:#}");
        assert_eq!(other.history().len(), 5);
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
        let t = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        assert_eq!(date_tag(t), "2023.11.14");
        assert_eq!(
            default_record_name(GameKind::Camelot, "txt", t),
            PathBuf::from("kingstable-camelot-20231114-221320.txt")
        );
    }
}
