//! The game's owner: its state, its loop, and the dispatch of each command to the
//! concern module it is about ([`super`] lists them).

use std::sync::Arc;
use std::time::Duration;

use game::Player;
use games::BoardView;
use session::{Session, Timestamp};
use tokio::sync::mpsc;

use super::command::{Command, Reply, Request};
use super::conditional::Conditionals;
use super::persist::Persist;
use super::play::Backup;
use super::presence::Audience;
use super::seats::{Rematch, Step};
use super::timers::{Expiry, Timers};
use super::view::{Known, Ratings};
use super::{Deps, Pending, ai_turn, conditional, play, seats, setup, timers, view};
use crate::live::Ident;
use crate::live::conditional::{Lines, MAX_PLIES};
use crate::live::feed::Feed;
use crate::live::messages::{Act, PlayedList, Refusal, SocketError};
use crate::store::{GameRecord, Seat};

/// How long a finished game's owner stays (for a rematch, and sockets still open) once
/// nothing has happened.
const LINGER: Duration = Duration::from_secs(600);

/// The owner of one live game.
pub(crate) struct Owner {
    pub(super) deps: Deps,
    pub(super) record: GameRecord,
    pub(super) session: Option<Session>,
    /// The session's moves as clients get them, kept up to date move by move.
    pub(super) played: PlayedList,
    /// Each player's conditional moves (correspondence games), kept in the store too.
    pub(super) conditional: Conditionals,
    pub(super) persist: Persist,
    pub(super) ratings: Ratings,
    pub(super) commands: mpsc::Sender<Command>,
    pub(super) feed: Arc<Feed>,
    pub(super) audience: Audience,
    /// The revision the AI is thinking on.
    pub(super) ai_pending: Option<u64>,
    /// The AI's evaluation, for itself, from its last search (it answers draw offers).
    pub(super) ai_score: Option<engine::Score>,
    pub(super) rematch: Rematch,
    pub(super) timers: Timers,
    /// The board of the start position (the record's, given first), drawn once.
    pub(super) start_board: (String, BoardView),
    /// Another server process owns the game now (its lease passed on): this owner
    /// stops, and its sockets are closed so that their clients connect again.
    pub(super) moved: bool,
}

impl Owner {
    pub(crate) fn new(
        deps: Deps,
        record: GameRecord,
        session: Option<Session>,
        ratings: Ratings,
        commands: mpsc::Sender<Command>,
    ) -> Owner {
        let played = PlayedList::of(session.as_ref().map_or(&[], |s| s.moves()));
        let snapshot = view::snapshot_of(
            &record,
            session.as_ref(),
            &ratings,
            0,
            Some([false; 2]),
            played.clone(),
            Known::default(),
        );
        let start_board = (record.start_position.clone(), setup::start_board(&record).1);
        Owner {
            persist: Persist::new(deps.store.clone(), Arc::clone(&deps.metrics)),
            deps,
            record,
            session,
            played,
            conditional: Conditionals::default(),
            ratings,
            commands,
            feed: Arc::new(Feed::new(snapshot)),
            audience: Audience::new(Timestamp::now()),
            ai_pending: None,
            ai_score: None,
            rematch: Rematch::default(),
            timers: Timers::default(),
            start_board,
            moved: false,
        }
    }

    /// The game's feed, for its handle.
    pub(crate) fn feed(&self) -> Arc<Feed> {
        Arc::clone(&self.feed)
    }

    fn is_over(&self) -> bool {
        !self.record.status.is_live() || self.session.as_ref().is_some_and(|s| !s.is_ongoing())
    }

    /// The owner's loop, boxed as a `Send` future: a rematch starts a new owner from
    /// inside this one, and the named type ends that cycle.
    pub(crate) fn run(self, commands: mpsc::Receiver<Command>) -> Pending<'static, ()> {
        Box::pin(self.serve(commands))
    }

    async fn serve(mut self, mut commands: mpsc::Receiver<Command>) {
        let id = self.record.id.clone();
        self.resume().await;
        loop {
            if self.moved {
                tracing::warn!(game = %id, "another server process owns this game now");
                self.feed.moved();
                break;
            }
            if self.is_over() {
                self.deps.ai.game_over(&id);
            }
            let session = self.session.as_ref();
            let flag = session
                .and_then(timers::flag_deadline)
                .map(|at| self.timers.at(at));
            let first_move = session
                .and_then(|s| timers::first_move_deadline(&self.record, s))
                .map(|at| self.timers.at(at));
            let lingering = self.is_over() && self.audience.is_empty();
            let watchers_due = self.audience.due();
            tokio::select! {
                () = self.deps.shutdown.cancelled() => break,
                command = commands.recv() => match command {
                    Some(command) => self.dispatch(command).await,
                    None => break,
                },
                () = sleep_until(flag), if flag.is_some() => {
                    self.timer(timers::flag, "storing a flag fall").await;
                }
                () = sleep_until(first_move), if first_move.is_some() => {
                    self.timer(timers::first_move, "storing a first-move abort").await;
                }
                () = sleep_until(watchers_due), if watchers_due.is_some() => self.publish_watchers(),
                () = tokio::time::sleep(LINGER), if lingering => break,
            }
        }
        self.deps.ai.forget_game(&id);
        self.deps.live.remove_owner(&id, &self.commands);
        let count = i64::try_from(self.deps.live.count()).unwrap_or(i64::MAX);
        self.deps.metrics.live_games.set(count);
        self.deps.live.lobby().game_removed(&id);
    }

    /// What a resumed game does first: store an ending the rules reached just before a
    /// crash, read the conditional moves back, tell everyone, and let the AI move.
    async fn resume(&mut self) {
        if let Some(session) = &self.session
            && !session.is_ongoing()
            && self.record.status.is_live()
        {
            let session = session.clone();
            match self.persist.ending(&mut self.record, &session).await {
                Ok(true) => self.ratings = view::ratings_of(&self.deps.store, &self.record).await,
                Ok(false) => {}
                Err(error) => {
                    tracing::error!(game = %self.record.id, %error, "storing the ending of a resumed game");
                }
            }
            self.feed.refresh(self.snapshot());
        }
        if self
            .session
            .as_ref()
            .is_some_and(|s| s.is_ongoing() && conditional::is_correspondence(s))
        {
            match self.persist.load_conditional(&self.record.id).await {
                Ok(kept) => self.conditional = kept,
                Err(error) => {
                    tracing::error!(game = %self.record.id, %error, "reading conditional moves");
                }
            }
        }
        // Lines that a change while no owner ran made stale go now.
        self.follow_conditional().await;
        self.published();
    }

    /// Hands a command to the concern it is about.
    async fn dispatch(&mut self, command: Command) {
        match command {
            Command::Ask { request, reply } => {
                let answer = self.answer(request).await;
                if let Some(reply) = reply {
                    let _ = reply.send(answer);
                }
            }
            Command::Expire { now } => self.expire(now).await,
            Command::LeaseLost => {
                // Only the database can say: a game made since the keeper's renewal
                // is this process's though it was not renewed.
                if self.persist.owned_elsewhere(&self.record.id).await {
                    self.moved = true;
                }
            }
            Command::AiMove { rev, text, score } => self.ai_moved(rev, text, score).await,
        }
        self.follow_conditional().await;
    }

    async fn answer(&mut self, request: Request) -> Reply {
        match request {
            Request::Act { ident, act } => Reply::Acted(match ident.side_in(&self.record) {
                None => Err(Refusal::new(
                    SocketError::NotAPlayer,
                    "only the game's players can do that",
                )),
                Some(player) => self.act(player, act).await,
            }),
            Request::Join { ident, seat } => Reply::Joined(self.join(&ident, seat).await),
            Request::Watch { ident, change } => Reply::Counted(self.watch(ident, change)),
            Request::Conditional { ident, lines } => {
                Reply::Lines(match ident.side_in(&self.record) {
                    None => Err(Refusal::new(
                        SocketError::NotAPlayer,
                        "only the game's players have conditional moves",
                    )),
                    Some(player) => self.set_conditional(player, lines).await,
                })
            }
            Request::Chat { room, text } => {
                self.feed.chat_here(room, Arc::from(text));
                Reply::Done
            }
        }
    }

    /// A socket of `ident` opened (+1) or closed (-1): the version of the watcher count
    /// it is counted after (`u64::MAX` for a player's socket, never counted).
    fn watch(&mut self, ident: Ident, change: isize) -> u64 {
        let side = ident.side_in(&self.record);
        let arrival = self.audience.socket(ident, side, change, Timestamp::now());
        if arrival.presence_changed {
            self.publish_presence();
        }
        if arrival.spectator {
            self.feed.watchers().version
        } else {
            u64::MAX
        }
    }

    /// `player` acts: a rematch is the seats' business, the rest the board's.
    async fn act(&mut self, player: Player, act: Act) -> Result<Option<String>, Refusal> {
        if act == Act::Rematch {
            return self.ask_rematch(player).await;
        }
        let Some(mut next) = self.session.take() else {
            if act == Act::Abort {
                return self.abort_waiting().await.map(|()| None);
            }
            return Err(Refusal::not_allowed(
                "seat_open",
                "the game has not started: a seat is still open",
            ));
        };
        let before = next.revision();
        let old_moves = next.moves().len();
        let backup = Backup::before(&act, &next);
        let offers_draw = act == Act::DrawOffer;
        let done = play::apply(
            &mut next,
            &self.record,
            self.audience.presence(),
            player,
            act,
            Timestamp::now(),
        );
        // A refused act may still have ended the game on time (the clock is checked
        // first): that change is stored and sent like any other.
        if next.revision() == before {
            self.session = Some(next);
        } else if let Err((error, next)) = self.commit(next, before, old_moves).await {
            tracing::error!(game = %self.record.id, %error, "storing a change");
            self.session = Some(backup.restore(next));
            return Err(Refusal::new(
                SocketError::Internal,
                "the server could not store that; nothing changed",
            ));
        }
        if offers_draw && done.is_ok() {
            self.ai_answers_draw().await;
        }
        done.map(|()| None)
    }

    /// `player` reads (`lines` `None`) or replaces their conditional moves; answers with
    /// the lines kept.
    async fn set_conditional(
        &mut self,
        player: Player,
        lines: Option<Lines>,
    ) -> Result<Lines, Refusal> {
        let Some(lines) = lines else {
            return Ok(self.conditional.lines(player));
        };
        let kept = Conditionals::check(self.session.as_ref(), player, lines)?;
        self.persist
            .conditional(&self.record.id, player, kept.as_ref())
            .await
            .map_err(|_| {
                Refusal::new(
                    SocketError::Internal,
                    "the server could not store that; nothing changed",
                )
            })?;
        self.conditional.set(player, kept);
        Ok(self.conditional.lines(player))
    }

    /// After a change: plays the answer of a player whose line expected the move just
    /// made (and so on, while answers meet expected replies), and drops the lines that
    /// a change made stale.
    async fn follow_conditional(&mut self) {
        // Each answer plays a move: at most as many as the lines hold.
        for _ in 0..=MAX_PLIES {
            let Some(session) = &self.session else { return };
            let mut answer = None;
            for followed in self.conditional.follow(session) {
                let stored = self
                    .persist
                    .conditional(&self.record.id, followed.player, followed.kept.as_ref())
                    .await;
                if stored.is_err() {
                    // Kept in memory as it was: tried again at the next change.
                    continue;
                }
                self.conditional.set(followed.player, followed.kept);
                if let Some(text) = followed.answer {
                    answer = Some((followed.player, text));
                }
            }
            let Some((player, text)) = answer else { return };
            let rev = self.session.as_ref().map(Session::revision);
            let act = Act::Move {
                rev,
                text: text.clone(),
            };
            if let Err(refusal) = self.act(player, act).await {
                tracing::warn!(game = %self.record.id, %text, message = %refusal.message, "a conditional move was refused");
                return;
            }
        }
    }

    /// The creator calls off a game whose second seat is still open.
    async fn abort_waiting(&mut self) -> Result<(), Refusal> {
        self.persist
            .abort_waiting(&mut self.record)
            .await
            .map_err(|error| {
                tracing::error!(game = %self.record.id, %error, "aborting a waiting game");
                Refusal::new(SocketError::Internal, "the server could not store that")
            })?;
        self.feed.reset(self.snapshot());
        self.published();
        Ok(())
    }

    /// A timer fell due: the session after `check` (if it changed) is stored; a failed
    /// write is tried again after a growing wait.
    async fn timer(&mut self, check: fn(&Session, Timestamp) -> Option<Session>, what: &str) {
        let Some(next) = self
            .session
            .as_ref()
            .and_then(|s| check(s, Timestamp::now()))
        else {
            return;
        };
        let ok = self.commit_copy(next, what).await;
        if let Some(wait) = self.timers.written(ok) {
            tracing::warn!(game = %self.record.id, retry_in_ms = wait.as_millis(), "{what}: trying again");
        }
        self.follow_conditional().await;
    }

    /// The maintenance job says this game may have expired (checked again at `now`).
    async fn expire(&mut self, now: Timestamp) {
        match timers::expiry(&self.record, self.session.as_ref(), now) {
            Expiry::Unjoined => {
                if let Err(refusal) = self.abort_waiting().await {
                    tracing::error!(game = %self.record.id, message = %refusal.message, "expiring an unjoined game");
                }
            }
            Expiry::Abandoned(next) => {
                self.commit_copy(*next, "expiring an abandoned game").await;
            }
            Expiry::Nothing => {}
        }
    }

    async fn join(&mut self, ident: &Ident, seat: Seat) -> Result<Player, Refusal> {
        let side = seats::open_side(&self.record, ident)?;
        let internal = |error: &dyn std::fmt::Display| {
            tracing::error!(%error, "taking a seat");
            Refusal::new(SocketError::Internal, "the server could not store that")
        };
        // The game starts now: its session is stored with the seat, in one transaction.
        let vs_ai = setup::vs_ai(&self.record) || matches!(seat, Seat::Ai(_));
        let now = Timestamp::from_millis(crate::live::millis(crate::store::now_ms()));
        let session = setup::session_with(&self.record, vs_ai, now).map_err(|e| internal(&e))?;
        let record = self
            .persist
            .take_seat(&self.record, side, &seat, &session)
            .await
            .map_err(|e| internal(&e))?;
        self.ratings = view::ratings_of(&self.deps.store, &record).await;
        self.record = record;
        self.played = PlayedList::of(session.moves());
        self.session = Some(session);
        let arrived = self.audience.seated(ident, side, Timestamp::now());
        self.feed.reset(self.snapshot());
        if arrived {
            self.publish_presence();
        }
        self.published();
        Ok(side)
    }

    async fn ask_rematch(&mut self, player: Player) -> Result<Option<String>, Refusal> {
        let over = self.is_over();
        let (first, second) = match self.rematch.ask(&self.record, over, player)? {
            Step::Made(id) => return Ok(Some(id)),
            Step::Asked => {
                // The asker's button goes; the opponent's stays (and says it was asked).
                self.feed.refresh(self.snapshot());
                return Ok(None);
            }
            Step::Agreed { first, second } => (first, second),
        };
        // A rematch is a new game: it counts against the creation limits.
        let slot = self.deps.new_games.rematch_slot(&self.record).await?;
        let control = self
            .record
            .time_control
            .parse()
            .unwrap_or(session::TimeControl::Untimed);
        let record = setup::create_game(
            &self.deps,
            self.record.kind,
            first,
            second,
            control,
            self.record.rated,
        )
        .await
        .map_err(|error| {
            tracing::error!(%error, "creating a rematch");
            Refusal::new(
                SocketError::Internal,
                "the server could not make the rematch",
            )
        })?;
        if let Some(slot) = slot {
            slot.bind(&record.id);
        }
        self.rematch.made(&record.id);
        self.feed.set_rematch(&record.id);
        self.feed.refresh(self.snapshot());
        Ok(Some(record.id))
    }

    /// Starts the AI's search when it is the AI's turn.
    pub(super) fn maybe_ai(&mut self) {
        let Some(session) = &self.session else { return };
        let Some(turn) = ai_turn::turn(&self.record, session, self.ai_pending) else {
            return;
        };
        self.ai_pending = Some(turn.rev);
        self.deps.ai.request(
            &self.record,
            session.game().clone(),
            turn.level,
            turn.clock,
            turn.rev,
            self.commands.clone(),
        );
    }

    /// The AI's move for revision `rev` came.
    async fn ai_moved(&mut self, rev: u64, text: String, score: engine::Score) {
        self.ai_pending = None;
        self.ai_score = Some(score);
        let Some(session) = &self.session else { return };
        if session.revision() != rev || !session.is_ongoing() {
            self.maybe_ai();
            return;
        }
        let player = session.to_move();
        let act = Act::Move {
            rev: Some(rev),
            text: text.clone(),
        };
        if let Err(refusal) = self.act(player, act).await {
            tracing::error!(game = %self.record.id, %text, message = %refusal.message, "the AI's move was refused");
        }
    }

    /// The AI answers a draw offered to it at once.
    async fn ai_answers_draw(&mut self) {
        let Some(session) = &self.session else { return };
        let Some(next) =
            ai_turn::answer_draw(&self.record, session, self.ai_score, Timestamp::now())
        else {
            return;
        };
        self.commit_copy(next, "storing the AI's answer to a draw offer")
            .await;
    }
}

async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
