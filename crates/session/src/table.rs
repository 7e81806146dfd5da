//! [`Session`]: the state machine of one game as a table sees it.
//!
//! Who acts is a [`Player`] passed in (a server maps its users to players; the session
//! knows no users), and the time is passed in as `now`. Every action first checks the
//! running clock, so a move that arrives after the flag fell finds the game over.
//!
//! Every change increments the [`revision`](Session::revision) and is logged as an
//! [`Event`] carrying that revision, so a front end that has seen revision `r` can be
//! sent exactly what it missed ([`Session::events_since`]).

use std::time::Duration;

use game::{EndReason, Game, GameKind, Outcome, Player};
use games::{AnyGame, AnyMove, MoveError, MoveInfo, PositionError, Variations};
use serde::{Deserialize, Serialize};

use crate::clock::{Clocks, TimeControl, Timestamp, millis};

/// When a player may take a move back.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Takebacks {
    /// Never.
    Never,
    /// When the opponent accepts the request, while the game goes on.
    #[default]
    ByAgreement,
    /// At once, also after the end of the game (which then goes on): the terminal
    /// game, and games against the AI.
    Immediate,
}

/// When the players' clocks start to count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClockStart {
    /// From the first turn: the referee of an engine match, the terminal game.
    #[default]
    AtOnce,
    /// Each player's clock with their own first move, as on lichess: a player's first
    /// turn costs no time, and instead a first move not made within the control's
    /// [`TimeControl::first_move_limit`] lets the game be aborted
    /// ([`Session::check_first_move`]). Games on the server.
    FirstMove,
}

/// How a table is set up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Options {
    /// The clocks.
    pub control: TimeControl,
    /// When moves may be taken back.
    #[serde(default)]
    pub takebacks: Takebacks,
    /// When the clocks start to count.
    #[serde(default)]
    pub clock_start: ClockStart,
}

/// How long an untimed game may go without a move before it is abandoned: it is then
/// aborted ([`Session::check_abandoned`]), as nobody can lose it on time.
pub const ABANDONED_AFTER: Duration = Duration::from_secs(14 * 86_400);

/// Why a game was called off.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AbortReason {
    /// The player `by` asked for it (possible until both sides have moved).
    #[default]
    Asked,
    /// `by` did not make their first move in time.
    NoFirstMove,
    /// Nobody moved for [`ABANDONED_AFTER`] in an untimed game; `by` was to move.
    Abandoned,
}

/// Where the game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Status {
    /// Being played.
    Ongoing,
    /// Over, with this result (by the rules, on time, by resignation or agreement).
    Finished {
        /// The result and its reason.
        outcome: Outcome,
    },
    /// Called off: no result.
    Aborted {
        /// Who called it off (or, by `reason`, failed to move).
        by: Player,
        /// Why.
        #[serde(default)]
        reason: AbortReason,
    },
}

/// An ending the rules know nothing of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Ending {
    /// On time, by resignation, by agreement, or as a record states it.
    Outcome {
        /// The result and its reason.
        outcome: Outcome,
        /// Who brought it about: the player who resigned, whose flag fell, or who left
        /// and was claimed against (`None` for an agreement, a ruling, or a record).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<Player>,
    },
    /// Called off.
    Aborted {
        /// Who called it off (or, by `reason`, failed to move).
        by: Player,
        /// Why.
        #[serde(default)]
        reason: AbortReason,
    },
}

/// One move played, with what it did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayedMove {
    /// Its notation, squares, path and captures.
    pub info: MoveInfo,
    /// Who played it.
    pub player: Player,
    /// When it was played (`None` for moves the session started with, from a record).
    pub at: Option<Timestamp>,
    /// Both clocks' time left just before it, in milliseconds, restored when it is taken
    /// back (`None` for moves the session started with, or when untimed).
    pub remaining_before_ms: Option<[u64; 2]>,
}

/// A mark of a session, to put it back as it was: [`Session::checkpoint`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checkpoint {
    moves: usize,
    events: usize,
    revision: u64,
    clocks: Clocks,
    draw_offer: Option<Player>,
    takeback_request: Option<Player>,
    ending: Option<Ending>,
}

/// A change to the session; the log of them lets a front end catch up.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    /// The session's revision after this change (the first change is revision 1).
    pub revision: u64,
    /// When it happened.
    pub at: Timestamp,
    /// What happened.
    #[serde(flatten)]
    pub kind: EventKind,
}

/// What happened.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventKind {
    /// A move was played. Any draw offer to `player` and any takeback request lapse.
    Moved {
        /// Who played it.
        player: Player,
        /// The move.
        #[serde(rename = "move")]
        info: MoveInfo,
        /// The clocks after it.
        clocks: Clocks,
        /// The result, if the move ended the game by the rules.
        outcome: Option<Outcome>,
    },
    /// `by` asks to take their last move back.
    TakebackRequested {
        /// Who asks.
        by: Player,
    },
    /// `by` refused the takeback asked of them.
    TakebackDeclined {
        /// Who refused.
        by: Player,
    },
    /// Moves were taken back, on `by`'s behalf. Pending offers lapse; an ending is undone.
    TakenBack {
        /// Whose moves were taken back (back to before their last move).
        by: Player,
        /// How many plies.
        plies: usize,
        /// The clocks after it.
        clocks: Clocks,
    },
    /// `by` offers a draw.
    DrawOffered {
        /// Who offers.
        by: Player,
    },
    /// `by` refused the draw offered to them.
    DrawDeclined {
        /// Who refused.
        by: Player,
    },
    /// The game ended outside the rules: on time, by resignation or by agreement.
    Ended {
        /// The result.
        outcome: Outcome,
        /// The player who resigned, whose flag fell, or who left and was claimed against
        /// (absent for an agreement or a ruling).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<Player>,
        /// The clocks, stopped.
        clocks: Clocks,
    },
    /// The game was called off.
    Aborted {
        /// Who called it off (or, by `reason`, failed to move).
        by: Player,
        /// Why.
        #[serde(default)]
        reason: AbortReason,
    },
    /// `by` gave the opponent time ([`TimeControl::gift`]).
    TimeGiven {
        /// Who gave it.
        by: Player,
        /// How much, in milliseconds.
        ms: u64,
        /// The clocks after it.
        clocks: Clocks,
    },
    /// The game was suspended (the server was down) and goes on: the time it was
    /// suspended was given back to the running clock, charged to nobody.
    Resumed {
        /// How long it was suspended, in milliseconds.
        paused_ms: u64,
        /// The clocks after it.
        clocks: Clocks,
    },
}

/// Why an action is refused. A refused action changes nothing (but the clock check that
/// comes first may have ended the game on time).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The game is over (`outcome` `None`: aborted).
    #[error("the game is over")]
    GameOver {
        /// How it ended, if it was not aborted.
        outcome: Option<Outcome>,
    },
    /// The other player is to move.
    #[error("not your turn")]
    NotYourTurn,
    /// The move text is not a legal move here.
    #[error(transparent)]
    IllegalMove(#[from] MoveError),
    /// The move given is not one of the legal moves here.
    #[error("not a legal move")]
    NotLegal,
    /// The player has no move to take back.
    #[error("nothing to take back")]
    NothingToTakeBack,
    /// The table does not allow takebacks.
    #[error("takebacks are not allowed")]
    TakebacksNotAllowed,
    /// A takeback is already asked for.
    #[error("a takeback is already asked for")]
    TakebackPending,
    /// There is no takeback request from the opponent to answer.
    #[error("no takeback request")]
    NoTakebackRequest,
    /// The player has already offered a draw.
    #[error("a draw is already offered")]
    DrawPending,
    /// There is no draw offer from the opponent to answer.
    #[error("no draw offer")]
    NoDrawOffer,
    /// Both sides have moved: the game can no longer be aborted.
    #[error("the game can no longer be aborted")]
    CannotAbort,
    /// Time given in a game without a clock.
    #[error("the game has no clock")]
    Untimed,
    /// A claim before both sides have moved: the game can be aborted instead.
    #[error("nothing to claim before both sides have moved: abort the game instead")]
    NothingToClaim,
}

/// What a takeback request came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Takeback {
    /// Taken back at once: this many plies.
    Done(usize),
    /// Asked of the opponent, who may accept or decline.
    Requested,
}

/// One game as a table sees it: the game, the moves with what they did, the clocks,
/// pending draw offers and takeback requests, and how it ended.
///
/// Serialises (serde) as [`SessionData`]: the game's kind, start position string,
/// variations and move texts (the game is rebuilt by replaying them when loaded), the
/// clocks, pending offers, ending, revision and event log. Loading what was stored gives
/// the same session exactly.
#[derive(Clone, Debug)]
pub struct Session {
    game: AnyGame,
    start: String,
    options: Options,
    moves: Vec<PlayedMove>,
    clocks: Clocks,
    draw_offer: Option<Player>,
    takeback_request: Option<Player>,
    ending: Option<Ending>,
    revision: u64,
    events: Vec<Event>,
}

impl PartialEq for Session {
    /// Sessions are equal when their stored forms are: the game follows from them.
    fn eq(&self, other: &Session) -> bool {
        self.data() == other.data()
    }
}

impl Session {
    /// A session on `game`, which may have moves played already (from a record): they
    /// become the first moves of the history. The clock of the side to move starts at
    /// `now` unless the game is over.
    #[must_use]
    pub fn new(game: AnyGame, options: Options, now: Timestamp) -> Session {
        Session::with_ending(game, None, options, now)
    }

    /// Like [`Session::new`], for a game a record says ended outside the rules (on time,
    /// by resignation): `ending` is its result unless the rules ended the game.
    #[must_use]
    pub fn with_ending(
        game: AnyGame,
        ending: Option<Outcome>,
        options: Options,
        now: Timestamp,
    ) -> Session {
        let played = game.moves();
        let mut start = game.clone();
        for _ in &played {
            start.undo();
        }
        let start_string = start.start_position_string();
        let mut moves = Vec::with_capacity(played.len());
        for mv in played {
            moves.push(PlayedMove {
                info: start.move_info(mv),
                player: start.to_move(),
                at: None,
                remaining_before_ms: None,
            });
            start.play(mv);
        }
        let mut clocks = match options.clock_start {
            ClockStart::AtOnce => Clocks::new(options.control),
            ClockStart::FirstMove => {
                let mut clocks = Clocks::waiting_for_first_moves(options.control);
                clocks.set_started(Player::BOTH.map(|p| moves.iter().any(|m| m.player == p)));
                clocks
            }
        };
        let ending = ending
            .filter(|_| game.outcome().is_none())
            .map(|outcome| Ending::Outcome { outcome, by: None });
        if game.outcome().is_none() && ending.is_none() {
            clocks.start(game.to_move(), now);
        }
        Session {
            game,
            start: start_string,
            options,
            moves,
            clocks,
            draw_offer: None,
            takeback_request: None,
            ending,
            revision: 0,
            events: Vec::new(),
        }
    }

    // ---- What the table shows ----

    /// The game as it stands.
    #[must_use]
    pub fn game(&self) -> &AnyGame {
        &self.game
    }

    /// Which game.
    #[must_use]
    pub fn kind(&self) -> GameKind {
        self.game.kind()
    }

    /// How the table is set up.
    #[must_use]
    pub fn options(&self) -> Options {
        self.options
    }

    /// The player to move (in a game that is over: who would be).
    #[must_use]
    pub fn to_move(&self) -> Player {
        self.game.to_move()
    }

    /// Where the game stands. It does not look at the clock: call
    /// [`Session::check_flag`] for that.
    #[must_use]
    pub fn status(&self) -> Status {
        match self.ending {
            Some(Ending::Aborted { by, reason }) => Status::Aborted { by, reason },
            Some(Ending::Outcome { outcome, .. }) => Status::Finished { outcome },
            None => match self.game.outcome() {
                Some(outcome) => Status::Finished { outcome },
                None => Status::Ongoing,
            },
        }
    }

    /// The result, if the game is finished (not if it was aborted).
    #[must_use]
    pub fn outcome(&self) -> Option<Outcome> {
        match self.status() {
            Status::Finished { outcome } => Some(outcome),
            _ => None,
        }
    }

    /// Who ended the game outside the rules: the player who resigned, whose flag fell,
    /// or who left and was claimed against; `None` otherwise (the rules ended it, an
    /// agreement, a ruling, a game still going).
    #[must_use]
    pub fn ended_by(&self) -> Option<Player> {
        match self.ending {
            Some(Ending::Outcome { by, .. }) => by,
            _ => None,
        }
    }

    /// Whether the game goes on.
    #[must_use]
    pub fn is_ongoing(&self) -> bool {
        self.status() == Status::Ongoing
    }

    /// The moves played, in order.
    #[must_use]
    pub fn moves(&self) -> &[PlayedMove] {
        &self.moves
    }

    /// The last move played.
    #[must_use]
    pub fn last_move(&self) -> Option<&PlayedMove> {
        self.moves.last()
    }

    /// The legal moves for the player to move (none when the game is over, whatever the
    /// reason).
    #[must_use]
    pub fn legal_moves(&self) -> Vec<MoveInfo> {
        if self.is_ongoing() {
            self.game.legal_moves_info()
        } else {
            Vec::new()
        }
    }

    /// The legal moves for the player to move as a JSON array in the compact wire form
    /// ([`games::MoveInfo::wire`]; `[]` when the game is over), written straight from
    /// the rules' move list.
    #[must_use]
    pub fn legal_moves_wire(&self) -> String {
        if self.is_ongoing() {
            games::Board::legal_moves_wire(&self.game)
        } else {
            "[]".to_owned()
        }
    }

    /// The legal moves as the game's own moves (none when the game is over).
    #[must_use]
    pub fn legal_any_moves(&self) -> Vec<AnyMove> {
        let mut moves = Vec::new();
        if self.is_ongoing() {
            self.game.legal_moves(&mut moves);
        }
        moves
    }

    /// The clocks.
    #[must_use]
    pub fn clocks(&self) -> &Clocks {
        &self.clocks
    }

    /// Who has offered a draw that is still open.
    #[must_use]
    pub fn draw_offer(&self) -> Option<Player> {
        self.draw_offer
    }

    /// Who has asked for a takeback that is still open.
    #[must_use]
    pub fn takeback_request(&self) -> Option<Player> {
        self.takeback_request
    }

    /// How many of each player's pieces have been captured since the session's start,
    /// indexed by [`Player::index`].
    #[must_use]
    pub fn pieces_lost(&self) -> [usize; 2] {
        let mut lost = [0; 2];
        for mv in &self.moves {
            lost[mv.player.other().index()] += mv.info.captures.len();
        }
        lost
    }

    /// A number that grows by one with every change.
    #[must_use]
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// A mark of the session as it is now, to [`restore`](Session::restore) it to if a
    /// change cannot be kept (its storage failed): a few numbers, not a copy, so that a
    /// move costs the same however long the game is.
    #[must_use]
    pub fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            moves: self.moves.len(),
            events: self.events.len(),
            revision: self.revision,
            clocks: self.clocks,
            draw_offer: self.draw_offer,
            takeback_request: self.takeback_request,
            ending: self.ending,
        }
    }

    /// Puts the session back as it was at `checkpoint`, undoing the moves played since.
    /// Only for changes that added to the game (moves, offers, endings): a change that
    /// took moves back cannot be restored from a mark (keep a clone for those): false
    /// then, and nothing is changed.
    #[must_use]
    pub fn restore(&mut self, checkpoint: &Checkpoint) -> bool {
        if self.moves.len() < checkpoint.moves
            || self.events.len() < checkpoint.events
            || self.revision < checkpoint.revision
        {
            return false;
        }
        while self.moves.len() > checkpoint.moves {
            self.moves.pop();
            self.game.undo();
        }
        self.events.truncate(checkpoint.events);
        self.revision = checkpoint.revision;
        self.clocks = checkpoint.clocks;
        self.draw_offer = checkpoint.draw_offer;
        self.takeback_request = checkpoint.takeback_request;
        self.ending = checkpoint.ending;
        true
    }

    /// Every change, in order.
    #[must_use]
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// The changes after `revision`, for a front end that has seen it; `None` if the log
    /// cannot tell (a revision this session never had): send the whole state instead.
    #[must_use]
    pub fn events_since(&self, revision: u64) -> Option<&[Event]> {
        if revision > self.revision {
            return None;
        }
        let first = self.events.partition_point(|e| e.revision <= revision);
        let missed = &self.events[first..];
        let complete = missed.len() as u64 == self.revision - revision;
        complete.then_some(missed)
    }

    /// Whether `player` may abort now (the game goes on and not both sides have moved).
    #[must_use]
    pub fn can_abort(&self) -> bool {
        self.is_ongoing() && !Player::BOTH.iter().all(|&p| self.has_moved(p))
    }

    fn has_moved(&self, player: Player) -> bool {
        self.moves.iter().any(|m| m.player == player)
    }

    // ---- Time ----

    /// Checks the running clock at `now`: if it has run out, the game ends on time and
    /// the result is returned: the player out of time loses, unless the opponent could
    /// not have won on the board ([`Game::can_win`]): then it is a draw.
    pub fn check_flag(&mut self, now: Timestamp) -> Option<Outcome> {
        if !self.is_ongoing() {
            return None;
        }
        let loser = self.clocks.flagged(now)?;
        let outcome = timeout_outcome(&self.game, loser);
        self.end(outcome, Some(loser), now);
        Some(outcome)
    }

    /// The player to move, if they have not made their first move yet and the clocks
    /// start with it ([`ClockStart::FirstMove`]), and when the game is aborted if they
    /// have not moved by then ([`TimeControl::first_move_limit`]). A server wakes up
    /// then to call [`Session::check_first_move`].
    #[must_use]
    pub fn first_move_deadline(&self) -> Option<(Player, Timestamp)> {
        if self.options.clock_start != ClockStart::FirstMove || !self.is_ongoing() {
            return None;
        }
        let limit = self.options.control.first_move_limit()?;
        let running = self.clocks.running()?;
        let player = running.player;
        (!self.has_moved(player)).then(|| (player, running.since + limit))
    }

    /// Aborts the game at `now` if the player to move has not made their first move in
    /// time ([`Session::first_move_deadline`]); returns that player.
    pub fn check_first_move(&mut self, now: Timestamp) -> Option<Player> {
        let (player, deadline) = self.first_move_deadline()?;
        if now < deadline {
            return None;
        }
        self.call_off(player, AbortReason::NoFirstMove, now);
        Some(player)
    }

    /// When an untimed game going on is abandoned if nobody moves: [`ABANDONED_AFTER`]
    /// from the start of the turn.
    #[must_use]
    pub fn abandoned_at(&self) -> Option<Timestamp> {
        if self.options.control.is_timed() || !self.is_ongoing() {
            return None;
        }
        Some(self.clocks.running()?.since + ABANDONED_AFTER)
    }

    /// Aborts an untimed game in which nobody has moved for [`ABANDONED_AFTER`] at
    /// `now`; returns whether it did.
    pub fn check_abandoned(&mut self, now: Timestamp) -> bool {
        match self.abandoned_at() {
            Some(at) if now >= at => {
                self.call_off(self.to_move(), AbortReason::Abandoned, now);
                true
            }
            _ => false,
        }
    }

    /// The game was suspended from `from` until `now` (a server down, restarting): the
    /// running clock gets that time back ([`Clocks::give_back`]), so it is charged to
    /// nobody; returns how long that was, if anything was given back.
    pub fn resume(&mut self, from: Timestamp, now: Timestamp) -> Option<Duration> {
        if !self.is_ongoing() {
            return None;
        }
        let since = self.clocks.running()?.since;
        let paused = now.saturating_duration_since(from.max(since));
        if paused.is_zero() {
            return None;
        }
        self.clocks.give_back(from, now);
        let clocks = self.clocks;
        self.log(
            now,
            EventKind::Resumed {
                paused_ms: millis(paused),
                clocks,
            },
        );
        Some(paused)
    }

    /// Ends the game with `outcome`, brought about by `by` (see [`Session::ended_by`]).
    fn end(&mut self, outcome: Outcome, by: Option<Player>, now: Timestamp) {
        self.clocks.stop(now);
        self.ending = Some(Ending::Outcome { outcome, by });
        self.draw_offer = None;
        self.takeback_request = None;
        let clocks = self.clocks;
        self.log(
            now,
            EventKind::Ended {
                outcome,
                by,
                clocks,
            },
        );
    }

    fn log(&mut self, at: Timestamp, kind: EventKind) {
        self.revision += 1;
        self.events.push(Event {
            revision: self.revision,
            at,
            kind,
        });
    }

    /// Checks the flag, then that the game goes on.
    fn check_ongoing(&mut self, now: Timestamp) -> Result<(), Error> {
        self.check_flag(now);
        match self.status() {
            Status::Ongoing => Ok(()),
            Status::Finished { outcome } => Err(Error::GameOver {
                outcome: Some(outcome),
            }),
            Status::Aborted { .. } => Err(Error::GameOver { outcome: None }),
        }
    }

    // ---- Moves ----

    /// `player` plays the move written `text` (the game's notation; the captures may be
    /// left out where they follow from the move).
    pub fn play(&mut self, player: Player, text: &str, now: Timestamp) -> Result<MoveInfo, Error> {
        self.check_turn(player, now)?;
        let mv = self.game.parse_move(text)?;
        Ok(self.apply(mv, now))
    }

    /// `player` plays `mv`, one of the game's legal moves.
    pub fn play_move(
        &mut self,
        player: Player,
        mv: AnyMove,
        now: Timestamp,
    ) -> Result<MoveInfo, Error> {
        self.check_turn(player, now)?;
        if !self.game.is_legal(mv) {
            return Err(Error::NotLegal);
        }
        Ok(self.apply(mv, now))
    }

    fn check_turn(&mut self, player: Player, now: Timestamp) -> Result<(), Error> {
        self.check_ongoing(now)?;
        if player != self.game.to_move() {
            return Err(Error::NotYourTurn);
        }
        Ok(())
    }

    fn apply(&mut self, mv: AnyMove, now: Timestamp) -> MoveInfo {
        let player = self.game.to_move();
        let info = self.game.move_info(mv);
        let remaining_before_ms = self.clocks.both(now).map(|both| both.map(millis));
        self.game.play(mv);
        let outcome = self.game.outcome();
        if outcome.is_some() {
            self.clocks.stop(now);
        } else {
            self.clocks.press(player, now);
        }
        self.moves.push(PlayedMove {
            info: info.clone(),
            player,
            at: Some(now),
            remaining_before_ms,
        });
        if self.draw_offer == Some(player.other()) || outcome.is_some() {
            self.draw_offer = None;
        }
        self.takeback_request = None;
        let clocks = self.clocks;
        self.log(
            now,
            EventKind::Moved {
                player,
                info: info.clone(),
                clocks,
                outcome,
            },
        );
        info
    }

    // ---- Time ----

    /// `by` gives the opponent more time: [`TimeControl::gift`] added to the opponent's
    /// clock, running or not. Returns how much.
    ///
    /// # Errors
    /// [`Error::GameOver`] when the game is over (a flag that has fallen first ends it),
    /// [`Error::Untimed`] when it has no clock.
    pub fn give_time(&mut self, by: Player, now: Timestamp) -> Result<Duration, Error> {
        self.check_ongoing(now)?;
        let gift = self.clocks.control().gift().ok_or(Error::Untimed)?;
        self.clocks.add(by.other(), gift);
        let clocks = self.clocks;
        self.log(
            now,
            EventKind::TimeGiven {
                by,
                ms: millis(gift),
                clocks,
            },
        );
        Ok(gift)
    }

    // ---- Takebacks ----

    /// `player` asks to take back their last move (and the opponent's reply, if any).
    /// Under [`Takebacks::Immediate`] it is done at once; under
    /// [`Takebacks::ByAgreement`] it waits for the opponent ([`Session::accept_takeback`]);
    /// if the opponent had asked for a takeback themselves, asking back accepts it.
    pub fn request_takeback(&mut self, player: Player, now: Timestamp) -> Result<Takeback, Error> {
        match self.options.takebacks {
            Takebacks::Never => Err(Error::TakebacksNotAllowed),
            Takebacks::Immediate => {
                self.check_flag(now);
                if let Status::Aborted { .. } = self.status() {
                    return Err(Error::GameOver { outcome: None });
                }
                self.plies_to_take_back(player)?;
                Ok(Takeback::Done(self.take_back(player, now)))
            }
            Takebacks::ByAgreement => {
                self.check_ongoing(now)?;
                match self.takeback_request {
                    Some(p) if p == player => Err(Error::TakebackPending),
                    Some(other) => Ok(Takeback::Done(self.take_back(other, now))),
                    None => {
                        self.plies_to_take_back(player)?;
                        self.takeback_request = Some(player);
                        self.log(now, EventKind::TakebackRequested { by: player });
                        Ok(Takeback::Requested)
                    }
                }
            }
        }
    }

    /// `player` accepts the opponent's takeback request; returns the plies taken back.
    pub fn accept_takeback(&mut self, player: Player, now: Timestamp) -> Result<usize, Error> {
        self.check_ongoing(now)?;
        if self.takeback_request != Some(player.other()) {
            return Err(Error::NoTakebackRequest);
        }
        Ok(self.take_back(player.other(), now))
    }

    /// `player` refuses the opponent's takeback request.
    pub fn decline_takeback(&mut self, player: Player, now: Timestamp) -> Result<(), Error> {
        self.check_ongoing(now)?;
        if self.takeback_request != Some(player.other()) {
            return Err(Error::NoTakebackRequest);
        }
        self.takeback_request = None;
        self.log(now, EventKind::TakebackDeclined { by: player });
        Ok(())
    }

    /// How many plies taking back `player`'s last move takes back.
    fn plies_to_take_back(&self, player: Player) -> Result<usize, Error> {
        let last = self
            .moves
            .iter()
            .rposition(|m| m.player == player)
            .ok_or(Error::NothingToTakeBack)?;
        Ok(self.moves.len() - last)
    }

    /// Takes back `player`'s last move and what followed it; the clocks go back to what
    /// they were before it, with `player`'s running from `now`.
    fn take_back(&mut self, player: Player, now: Timestamp) -> usize {
        let Ok(plies) = self.plies_to_take_back(player) else {
            return 0;
        };
        let mut first = None;
        for _ in 0..plies {
            self.game.undo();
            first = self.moves.pop();
        }
        if let Some(first) = first {
            match first.remaining_before_ms {
                Some(before) => {
                    self.clocks
                        .restore(before.map(Duration::from_millis), Some(first.player), now)
                }
                None => self.clocks.start(first.player, now),
            }
        }
        if self.options.clock_start == ClockStart::FirstMove {
            // A player whose first move was taken back waits for it again.
            let started = Player::BOTH.map(|p| self.has_moved(p));
            self.clocks.set_started(started);
        }
        self.ending = None;
        self.draw_offer = None;
        self.takeback_request = None;
        let clocks = self.clocks;
        self.log(
            now,
            EventKind::TakenBack {
                by: player,
                plies,
                clocks,
            },
        );
        plies
    }

    // ---- Endings ----

    /// `player` resigns: the opponent wins.
    pub fn resign(&mut self, player: Player, now: Timestamp) -> Result<Outcome, Error> {
        self.check_ongoing(now)?;
        let outcome = Outcome::loss(player, EndReason::Resignation);
        self.end(outcome, Some(player), now);
        Ok(outcome)
    }

    /// An arbiter ends the game with `outcome`, whoever is to move: a match's draw after
    /// so many plies, a tournament director's ruling, a player forfeited for breaking
    /// the rules of play (an illegal move from an engine, a program that failed).
    pub fn adjudicate(&mut self, outcome: Outcome, now: Timestamp) -> Result<Outcome, Error> {
        self.check_ongoing(now)?;
        self.end(outcome, None, now);
        Ok(outcome)
    }

    /// `player` offers a draw (on either turn). If the opponent had offered one, this
    /// accepts it and returns the result. An offer lapses when the opponent moves.
    pub fn offer_draw(&mut self, player: Player, now: Timestamp) -> Result<Option<Outcome>, Error> {
        self.check_ongoing(now)?;
        match self.draw_offer {
            Some(p) if p == player => Err(Error::DrawPending),
            Some(_) => self.accept_draw(player, now).map(Some),
            None => {
                self.draw_offer = Some(player);
                self.log(now, EventKind::DrawOffered { by: player });
                Ok(None)
            }
        }
    }

    /// `player` accepts the opponent's draw offer: the game is drawn by agreement.
    pub fn accept_draw(&mut self, player: Player, now: Timestamp) -> Result<Outcome, Error> {
        self.check_ongoing(now)?;
        if self.draw_offer != Some(player.other()) {
            return Err(Error::NoDrawOffer);
        }
        let outcome = Outcome::draw(EndReason::Agreement);
        self.end(outcome, None, now);
        Ok(outcome)
    }

    /// `player` refuses the opponent's draw offer.
    pub fn decline_draw(&mut self, player: Player, now: Timestamp) -> Result<(), Error> {
        self.check_ongoing(now)?;
        if self.draw_offer != Some(player.other()) {
            return Err(Error::NoDrawOffer);
        }
        self.draw_offer = None;
        self.log(now, EventKind::DrawDeclined { by: player });
        Ok(())
    }

    /// `player` calls the game off: possible until both sides have moved; no result.
    pub fn abort(&mut self, player: Player, now: Timestamp) -> Result<(), Error> {
        self.check_ongoing(now)?;
        if !self.can_abort() {
            return Err(Error::CannotAbort);
        }
        self.call_off(player, AbortReason::Asked, now);
        Ok(())
    }

    fn call_off(&mut self, by: Player, reason: AbortReason, now: Timestamp) {
        self.clocks.stop(now);
        self.ending = Some(Ending::Aborted { by, reason });
        self.draw_offer = None;
        self.takeback_request = None;
        self.log(now, EventKind::Aborted { by, reason });
    }

    /// `player` claims the game because the opponent has left it (whether they have is
    /// the front end's to judge: the session knows no connections). Possible once both
    /// sides have moved; the claimer wins, or draws if they could not have won on the
    /// board ([`Game::can_win`]). [`EndReason::Abandonment`].
    pub fn claim_victory(&mut self, player: Player, now: Timestamp) -> Result<Outcome, Error> {
        let outcome = if self.game.can_win(player) {
            Outcome::win(player, EndReason::Abandonment)
        } else {
            Outcome::draw(EndReason::Abandonment)
        };
        self.claim(outcome, player.other(), now)
    }

    /// `player` claims a draw because the opponent has left (as [`Session::claim_victory`]).
    pub fn claim_draw(&mut self, player: Player, now: Timestamp) -> Result<Outcome, Error> {
        self.claim(Outcome::draw(EndReason::Abandonment), player.other(), now)
    }

    /// Ends the game with `outcome` against `gone`, who left it.
    fn claim(&mut self, outcome: Outcome, gone: Player, now: Timestamp) -> Result<Outcome, Error> {
        self.check_ongoing(now)?;
        if self.can_abort() {
            return Err(Error::NothingToClaim);
        }
        self.end(outcome, Some(gone), now);
        Ok(outcome)
    }

    // ---- Storing ----

    /// The session as plain data (what it serialises as).
    #[must_use]
    pub fn data(&self) -> SessionData {
        SessionData {
            kind: self.kind(),
            start: self.start.clone(),
            variations: self.game.variations(),
            options: self.options,
            moves: self
                .moves
                .iter()
                .map(|m| StoredMove {
                    text: m.info.text.clone(),
                    at: m.at,
                    remaining_before_ms: m.remaining_before_ms,
                })
                .collect(),
            clocks: self.clocks,
            draw_offer: self.draw_offer,
            takeback_request: self.takeback_request,
            ending: self.ending,
            revision: self.revision,
            events: self.events.clone(),
        }
    }

    /// Rebuilds a session from its stored form, replaying the moves; refuses data that
    /// does not hold together.
    pub fn from_data(data: SessionData) -> Result<Session, LoadError> {
        let mut game = AnyGame::from_position_with(data.kind, &data.start, data.variations)?;
        let start = game.start_position_string();
        let mut moves = Vec::with_capacity(data.moves.len());
        for (index, stored) in data.moves.into_iter().enumerate() {
            let player = game.to_move();
            let info = game
                .try_play(&stored.text)
                .map_err(|error| LoadError::Move { index, error })?;
            moves.push(PlayedMove {
                info,
                player,
                at: stored.at,
                remaining_before_ms: stored.remaining_before_ms,
            });
        }
        if data.clocks.control() != data.options.control {
            return Err(LoadError::Inconsistent("clocks"));
        }
        let ongoing = data.ending.is_none() && game.outcome().is_none();
        let offers = [data.draw_offer, data.takeback_request];
        if !ongoing && offers.iter().any(Option::is_some) {
            return Err(LoadError::Inconsistent("offer"));
        }
        let ordered = data
            .events
            .windows(2)
            .all(|w| w[0].revision < w[1].revision);
        if !ordered
            || data
                .events
                .last()
                .is_some_and(|e| e.revision > data.revision)
        {
            return Err(LoadError::Inconsistent("events"));
        }
        Ok(Session {
            game,
            start,
            options: data.options,
            moves,
            clocks: data.clocks,
            draw_offer: data.draw_offer,
            takeback_request: data.takeback_request,
            ending: data.ending,
            revision: data.revision,
            events: data.events,
        })
    }
}

/// The result when `loser`'s time runs out in `game`: they lose, unless the opponent
/// could not win on the board any more ([`Game::can_win`]: a Camelot side with one
/// piece): then it is a draw. Both are [`EndReason::Timeout`].
#[must_use]
pub fn timeout_outcome(game: &AnyGame, loser: Player) -> Outcome {
    if game.can_win(loser.other()) {
        Outcome::loss(loser, EndReason::Timeout)
    } else {
        Outcome::draw(EndReason::Timeout)
    }
}

/// A move as stored: its text and its times.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredMove {
    /// In the game's notation.
    pub text: String,
    /// When it was played.
    #[serde(default)]
    pub at: Option<Timestamp>,
    /// Both clocks' time left before it (milliseconds).
    #[serde(default)]
    pub remaining_before_ms: Option<[u64; 2]>,
}

/// A session as stored: what [`Session`] serialises as.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionData {
    /// Which game.
    pub kind: GameKind,
    /// The start position string.
    pub start: String,
    /// Options beyond the standard rules.
    #[serde(default)]
    pub variations: Variations,
    /// The table's setup.
    pub options: Options,
    /// The moves from the start.
    pub moves: Vec<StoredMove>,
    /// The clocks.
    pub clocks: Clocks,
    /// An open draw offer, by whom.
    #[serde(default)]
    pub draw_offer: Option<Player>,
    /// An open takeback request, by whom.
    #[serde(default)]
    pub takeback_request: Option<Player>,
    /// An ending outside the rules.
    #[serde(default)]
    pub ending: Option<Ending>,
    /// The revision.
    pub revision: u64,
    /// The event log (may be left empty: front ends then get the whole state).
    #[serde(default)]
    pub events: Vec<Event>,
}

/// Why stored data does not load.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    /// The start position is refused.
    #[error("start position: {0}")]
    Position(#[from] PositionError),
    /// A move does not replay.
    #[error("move {}: {error}", index + 1)]
    Move {
        /// 0-based index of the move.
        index: usize,
        /// Why.
        error: MoveError,
    },
    /// Parts of the data contradict each other.
    #[error("inconsistent {0}")]
    Inconsistent(&'static str),
}

impl Serialize for Session {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.data().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Session {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let data = SessionData::deserialize(deserializer)?;
        Session::from_data(data).map_err(serde::de::Error::custom)
    }
}
