//! The owner task of one live game: the only code that changes it.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use game::Player;
use games::BoardView;
use session::{Session, Status, Takebacks, Timestamp};
use tokio::sync::mpsc;

use super::conditional::{self, Conditional, Lines};
use super::feed::{Feed, Frame, Snapshot, to_text};
use super::lifecycle::{self, Presence, Retry};
use super::messages::{
    Action, Actions, ClientMessage, ClocksView, EventsView, GameStatusView, GameView, LegalMoves,
    LiveGame, PlayedList, PlayerInfo, Refusal, ServerMessage, SocketError,
};
use super::{Command, Ident, millis, session_json, session_with, start_board};
use crate::state::AppState;
use crate::store::{GameRecord, GameStatus, Seat, SeatRecord, StoreError, now_ms};

/// How long a finished game's owner stays (for a rematch, and sockets still open) once
/// nothing has happened.
const LINGER: Duration = Duration::from_secs(600);
/// Watcher counts go out at most this often: a crowd arriving costs a few messages, not
/// one per arrival to every socket.
const WATCHERS_EVERY: Duration = Duration::from_millis(500);

/// Each side's rating in this game's kind, for users: (rating, provisional).
pub(crate) type Ratings = [Option<(i64, bool)>; 2];

/// The ratings of the users in `record` (a user with no games yet has 1500,
/// provisional).
pub(crate) async fn ratings_of(state: &AppState, record: &GameRecord) -> Ratings {
    let mut ratings = [None, None];
    for player in Player::BOTH {
        let Some(user) = &record.seat(player).user_id else {
            continue;
        };
        let rating = match state.store.ratings_of(user).await {
            Ok(list) => list
                .into_iter()
                .find(|r| r.kind == record.kind)
                .map_or((1500, true), |r| {
                    (r.rating.rating.round() as i64, r.provisional)
                }),
            Err(error) => {
                tracing::warn!(%error, "reading ratings");
                (1500, true)
            }
        };
        ratings[player.index()] = Some(rating);
    }
    ratings
}

fn seat_name(seat: &SeatRecord) -> String {
    if let Some(name) = &seat.username {
        name.clone()
    } else if let Some(name) = &seat.guest_name {
        name.clone()
    } else if let Some(level) = seat.ai_level {
        format!("AI level {level}")
    } else {
        String::new()
    }
}

/// The players of `record` as clients show them.
pub(crate) fn players(record: &GameRecord, ratings: &Ratings) -> Vec<PlayerInfo> {
    Player::BOTH
        .into_iter()
        .map(|side| {
            let seat = record.seat(side);
            let rating = ratings[side.index()];
            PlayerInfo {
                side,
                name: seat_name(seat),
                user: seat.user_id.is_some(),
                ai: seat.ai_level,
                rating: rating.map(|r| r.0),
                provisional: rating.map(|r| r.1),
            }
        })
        .collect()
}

fn status_of(record: &GameRecord, session: Option<&Session>) -> GameStatusView {
    match session.map(Session::status) {
        _ if record.status == GameStatus::Waiting => GameStatusView::Waiting,
        Some(Status::Ongoing) => GameStatusView::Ongoing,
        Some(Status::Finished { .. }) => GameStatusView::Finished,
        Some(Status::Aborted { .. }) => GameStatusView::Aborted,
        None if record.status == GameStatus::Aborted => GameStatusView::Aborted,
        None if record.status == GameStatus::Finished => GameStatusView::Finished,
        None => GameStatusView::Ongoing,
    }
}

/// What each player of `record` may do now. `rematch` is who has asked for a rematch,
/// `None` when a rematch can no longer be made (the game has no owner).
///
/// The one place the server says what a player may do: the clients show these and
/// re-derive nothing (the session checks each action again when it comes).
pub(crate) fn actions_of(
    record: &GameRecord,
    session: Option<&Session>,
    rematch: Option<[bool; 2]>,
) -> Actions {
    let mut actions = Actions::default();
    for side in Player::BOTH {
        let seat = record.seat(side);
        if seat.is_open() || seat.ai_level.is_some() {
            continue;
        }
        let list = actions.of_mut(side);
        let Some(session) = session else {
            if record.status == GameStatus::Waiting {
                list.push(Action::Abort);
            }
            continue;
        };
        let has_moved = session.moves().iter().any(|m| m.player == side);
        match session.status() {
            Status::Ongoing => {
                list.push(Action::Resign);
                if session.can_abort() {
                    list.push(Action::Abort);
                }
                match session.draw_offer() {
                    None => list.push(Action::DrawOffer),
                    Some(by) if by != side => {
                        list.extend([Action::DrawAccept, Action::DrawDecline]);
                    }
                    Some(_) => {}
                }
                match (session.options().takebacks, session.takeback_request()) {
                    (Takebacks::Never, _) => {}
                    (Takebacks::Immediate, _) | (Takebacks::ByAgreement, None) if has_moved => {
                        list.push(Action::Takeback);
                    }
                    (Takebacks::ByAgreement, Some(by)) if by != side => {
                        list.extend([Action::TakebackAccept, Action::TakebackDecline]);
                    }
                    _ => {}
                }
                let opponent = record.seat(side.other());
                if session.clocks().control().is_timed()
                    && opponent.ai_level.is_none()
                    && !opponent.is_open()
                {
                    list.push(Action::GiveTime);
                }
            }
            Status::Finished { .. } => {
                if rematch.is_some_and(|asked| !asked[side.index()]) {
                    list.push(Action::Rematch);
                }
            }
            Status::Aborted { .. } => {}
        }
    }
    actions
}

/// What a game's owner already has at hand when it builds a view: the board of the
/// start position (the same all game long) and, right after a change, the board and the
/// legal moves it has just written out. Each one missing is worked out again.
#[derive(Default)]
pub(crate) struct Known<'a> {
    /// The start position's board.
    pub(crate) start_board: Option<&'a BoardView>,
    /// The session's board as it stands.
    pub(crate) board: Option<BoardView>,
    /// The legal moves of the side to move.
    pub(crate) legal: Option<LegalMoves>,
}

/// The game as the player `you` (or a spectator) sees it.
pub(crate) fn view_of(
    record: &GameRecord,
    session: Option<&Session>,
    ratings: &Ratings,
    you: Option<Player>,
    watchers: usize,
    actions: Actions,
    moves: PlayedList,
) -> GameView {
    view_known(
        record,
        session,
        ratings,
        you,
        watchers,
        actions,
        moves,
        Known::default(),
    )
}

/// [`view_of`] with what is known already ([`Known::legal`] is not used).
#[allow(clippy::too_many_arguments)]
fn view_known(
    record: &GameRecord,
    session: Option<&Session>,
    ratings: &Ratings,
    you: Option<Player>,
    watchers: usize,
    actions: Actions,
    moves: PlayedList,
    known: Known<'_>,
) -> GameView {
    let now = Timestamp::now();
    let (board, start_board) = match (session, known.start_board) {
        (Some(s), Some(start)) => (
            known.board.unwrap_or_else(|| BoardView::of(s.game())),
            start.clone(),
        ),
        (Some(s), None) => (
            known.board.unwrap_or_else(|| BoardView::of(s.game())),
            start_board(record).1,
        ),
        (None, _) => {
            let (start, start_board) = start_board(record);
            (BoardView::of(&start), start_board)
        }
    };
    GameView {
        id: record.id.clone(),
        kind: record.kind,
        rev: session.map_or(0, Session::revision),
        status: status_of(record, session),
        result: session.and_then(Session::outcome).or(record.outcome),
        ended_by: crate::api::views::ended_by(
            session.and_then(Session::outcome).or(record.outcome),
            session.and_then(Session::ended_by).or(record.ended_by),
        ),
        played_at: record.created_at,
        players: players(record, ratings),
        you,
        time_control: record.time_control.clone(),
        correspondence: super::messages::is_correspondence(&record.time_control),
        rated: record.rated,
        board,
        start_board,
        start_position: record.start_position.clone(),
        moves,
        legal_moves: session.map_or_else(Vec::new, |s| legal_moves_for(s, you)),
        clocks: session.and_then(|s| ClocksView::of(s, now)),
        draw_offer: session.and_then(Session::draw_offer),
        takeback_request: session.and_then(Session::takeback_request),
        watchers,
        absent: Vec::new(),
        actions,
        chat: super::chat::rooms_for([&record.first, &record.second], you),
    }
}

/// The whole game for the sockets: a spectator's view, the mover's legal moves, the
/// seats and the clocks.
pub(crate) fn snapshot_of(
    record: &GameRecord,
    session: Option<&Session>,
    ratings: &Ratings,
    watchers: usize,
    rematch: Option<[bool; 2]>,
    moves: PlayedList,
    mut known: Known<'_>,
) -> Snapshot {
    let actions = actions_of(record, session, rematch);
    let legal = known.legal.take();
    let view = view_known(
        record, session, ratings, None, watchers, actions, moves, known,
    );
    let legal = legal.unwrap_or_else(|| session.map_or_else(LegalMoves::default, LegalMoves::of));
    let clocks = session
        .filter(|s| s.options().control.is_timed())
        .map(|s| *s.clocks());
    let seats = [record.first.clone(), record.second.clone()];
    Snapshot::new(view, legal, seats, clocks)
}

fn legal_moves_for(session: &Session, you: Option<Player>) -> Vec<games::MoveInfo> {
    if session.is_ongoing() && you == Some(session.to_move()) {
        session.legal_moves()
    } else {
        Vec::new()
    }
}

fn seat_of(record: &SeatRecord) -> Option<Seat> {
    if let Some(user) = &record.user_id {
        Some(Seat::User(user.clone()))
    } else if let Some(guest) = &record.guest_id {
        Some(Seat::Guest(guest.clone()))
    } else {
        record.ai_level.map(Seat::Ai)
    }
}

pub(crate) struct Owner {
    state: AppState,
    record: GameRecord,
    session: Option<Session>,
    /// The session's moves as clients get them, kept up to date move by move.
    played: PlayedList,
    /// Each player's conditional moves (correspondence games; indexed by
    /// [`Player::index`]), kept in the store too.
    conditional: [Option<Conditional>; 2],
    /// How many moves the stored snapshot of the session holds, as far as this owner
    /// knows: 0 until it writes one (the first move after a resume may then write one
    /// early, never late).
    snapshot_ply: u32,
    ratings: Ratings,
    commands: mpsc::Sender<Command>,
    feed: Arc<Feed>,
    /// Sockets open on the game by people who do not play in it (the watcher count).
    watchers: usize,
    /// Those sockets by person: one who takes a seat leaves the count, and their sockets
    /// count as a player's from then (bounded by the connection caps).
    spectators: HashMap<Ident, usize>,
    /// When the watcher count is next due out (`None`: it has not changed).
    watchers_due: Option<tokio::time::Instant>,
    /// When it last went out.
    watchers_sent: tokio::time::Instant,
    /// The revision the AI is thinking on.
    ai_pending: Option<u64>,
    /// The AI's evaluation, for itself, from its last search (it answers draw offers).
    ai_score: Option<engine::Score>,
    rematch: [bool; 2],
    rematch_id: Option<String>,
    /// Which players have a socket open (for claims against one who left).
    presence: Presence,
    /// The backed-off retry of a timer's write (flag fall, first-move abort) that failed.
    timer_retry: Retry,
    /// No timer fires before this (set after a failed write).
    timer_retry_at: Option<tokio::time::Instant>,
    /// The board of the start position (the record's, given first), drawn once.
    start_board: (String, BoardView),
    /// Another server process owns the game now (its lease passed on): this owner
    /// stops, and its sockets are closed so that their clients connect again.
    moved: bool,
}

impl Owner {
    pub(crate) fn new(
        state: AppState,
        record: GameRecord,
        session: Option<Session>,
        ratings: Ratings,
        commands: mpsc::Sender<Command>,
    ) -> Owner {
        let played = PlayedList::of(session.as_ref().map_or(&[], |s| s.moves()));
        let snapshot = snapshot_of(
            &record,
            session.as_ref(),
            &ratings,
            0,
            Some([false; 2]),
            played.clone(),
            Known::default(),
        );
        let start_board = (record.start_position.clone(), start_board(&record).1);
        Owner {
            state,
            record,
            session,
            played,
            snapshot_ply: 0,
            conditional: [None, None],
            ratings,
            commands,
            moved: false,
            feed: Arc::new(Feed::new(snapshot)),
            watchers: 0,
            spectators: HashMap::new(),
            watchers_due: None,
            watchers_sent: tokio::time::Instant::now(),
            ai_pending: None,
            ai_score: None,
            rematch: [false; 2],
            rematch_id: None,
            presence: Presence::new(Timestamp::now()),
            timer_retry: Retry::default(),
            timer_retry_at: None,
            start_board,
        }
    }

    /// The game's feed, for its handle.
    pub(crate) fn feed(&self) -> Arc<Feed> {
        Arc::clone(&self.feed)
    }

    fn is_over(&self) -> bool {
        !self.record.status.is_live() || self.session.as_ref().is_some_and(|s| !s.is_ongoing())
    }

    /// When the running clock falls, as a tokio instant.
    fn flag_deadline(&self) -> Option<tokio::time::Instant> {
        let session = self.session.as_ref().filter(|s| s.is_ongoing())?;
        self.timer_at(session.clocks().deadline()?)
    }

    /// When the game is aborted because the player to move has not made their first
    /// move: never for the AI (its first move may wait for a busy pool).
    fn first_move_deadline(&self) -> Option<tokio::time::Instant> {
        let session = self.session.as_ref()?;
        let (player, deadline) = session.first_move_deadline()?;
        if self.record.seat(player).ai_level.is_some() {
            return None;
        }
        self.timer_at(deadline)
    }

    /// `deadline` as a tokio instant, not before a failed write's retry is due.
    fn timer_at(&self, deadline: Timestamp) -> Option<tokio::time::Instant> {
        let now = millis(now_ms());
        let left = Duration::from_millis(deadline.as_millis().saturating_sub(now) + 1);
        let at = tokio::time::Instant::now() + left;
        Some(self.timer_retry_at.map_or(at, |retry| at.max(retry)))
    }

    /// The owner's loop, boxed as a `Send` future: a rematch starts a new owner from
    /// inside this one, and the named type ends that cycle.
    pub(crate) fn run(
        self,
        commands: mpsc::Receiver<Command>,
    ) -> std::pin::Pin<Box<dyn Future<Output = ()> + Send>> {
        Box::pin(self.serve(commands))
    }

    async fn serve(mut self, mut commands: mpsc::Receiver<Command>) {
        let id = self.record.id.clone();
        // A game the rules ended just before a crash, stored as a move but not as an
        // ending: store the ending now.
        if let Some(session) = &self.session
            && !session.is_ongoing()
            && self.record.status.is_live()
        {
            let session = session.clone();
            if let Err(error) = self.store_ending(&session).await {
                tracing::error!(game = %id, %error, "storing the ending of a resumed game");
            }
            self.feed.refresh(self.snapshot());
        }
        self.load_conditional().await;
        self.refresh_summary();
        self.tell_players();
        self.maybe_ai();
        loop {
            if self.moved {
                tracing::warn!(game = %id, "another server process owns this game now");
                self.feed.moved();
                break;
            }
            if self.is_over() {
                self.state.ai.game_over(&id);
            }
            let deadline = self.flag_deadline();
            let first_move = self.first_move_deadline();
            let lingering = self.is_over() && self.watchers == 0 && !self.presence.anyone_here();
            let watchers_due = self.watchers_due;
            tokio::select! {
                () = self.state.shutdown.cancelled() => break,
                command = commands.recv() => match command {
                    Some(command) => {
                        self.handle(command).await;
                        self.follow_conditional().await;
                    }
                    None => break,
                },
                () = sleep_until(deadline), if deadline.is_some() => {
                    self.flag().await;
                    self.follow_conditional().await;
                }
                () = sleep_until(first_move), if first_move.is_some() => self.first_move_timeout().await,
                () = sleep_until(watchers_due), if watchers_due.is_some() => self.publish_watchers(),
                () = tokio::time::sleep(LINGER), if lingering => break,
            }
        }
        self.state.ai.forget_game(&id);
        self.state.live.remove_owner(&id, &self.commands);
        let count = i64::try_from(self.state.live.count()).unwrap_or(i64::MAX);
        self.state.metrics.live_games.set(count);
        self.state.live.lobby().game_removed(&id);
    }

    async fn handle(&mut self, command: Command) {
        match command {
            Command::Act {
                ident,
                message,
                reply,
            } => {
                let answer = match ident.side_in(&self.record) {
                    None => Err(Refusal::new(
                        SocketError::NotAPlayer,
                        "only the game's players can do that",
                    )),
                    Some(player) => self.act(player, message).await,
                };
                let _ = reply.send(answer);
            }
            Command::Conditional {
                ident,
                lines,
                reply,
            } => {
                let answer = match ident.side_in(&self.record) {
                    None => Err(Refusal::new(
                        SocketError::NotAPlayer,
                        "only the game's players have conditional moves",
                    )),
                    Some(player) => self.set_conditional(player, lines).await,
                };
                let _ = reply.send(answer);
            }
            Command::Join { ident, seat, reply } => {
                let _ = reply.send(self.join(&ident, seat).await);
            }
            Command::Watch {
                change,
                ident,
                counted,
            } => {
                let side = ident.side_in(&self.record);
                let watching = self.spectators.get(&ident).copied().unwrap_or(0);
                let spectator = match side {
                    // A player's socket: they are here or gone, not watching.
                    Some(side) if change > 0 || watching == 0 => {
                        self.presence_changed(side, change);
                        false
                    }
                    // A spectator's, or one opened before its person took a seat.
                    _ if change > 0 => {
                        self.spectators.insert(ident, watching + 1);
                        self.watchers_changed(self.watchers + 1);
                        true
                    }
                    _ if watching > 1 => {
                        self.spectators.insert(ident, watching - 1);
                        self.watchers_changed(self.watchers.saturating_sub(1));
                        true
                    }
                    _ => {
                        if self.spectators.remove(&ident).is_some() {
                            self.watchers_changed(self.watchers.saturating_sub(1));
                        }
                        true
                    }
                };
                if let Some(counted) = counted {
                    // A player is never in the count; a spectator from the next one on.
                    let _ = counted.send(if spectator {
                        self.feed.watchers().version
                    } else {
                        u64::MAX
                    });
                }
            }
            Command::Expire { now } => self.expire(now).await,
            Command::Chat { room, text } => self.feed.chat_here(room, text),
            Command::LeaseLost => {
                // Only the database can say: a game made since the keeper's renewal
                // is this process's though it was not renewed.
                if let Ok(true) = self.state.store.owned_elsewhere(&self.record.id).await {
                    self.moved = true;
                }
            }
            Command::AiMove { rev, text, score } => {
                self.ai_pending = None;
                self.ai_score = Some(score);
                let Some(session) = &self.session else { return };
                if session.revision() != rev || !session.is_ongoing() {
                    self.maybe_ai();
                    return;
                }
                let player = session.to_move();
                let message = ClientMessage::Move {
                    rev: Some(rev),
                    text: text.clone(),
                };
                if let Err(refusal) = self.act(player, message).await {
                    tracing::error!(game = %self.record.id, %text, message = %refusal.message, "the AI's move was refused");
                }
            }
        }
    }

    /// Sends the watcher count (coalesced: at most one every [`WATCHERS_EVERY`]).
    /// The number of spectators' sockets (the sum over [`Owner::spectators`]) is now
    /// `count`: published within
    /// [`WATCHERS_EVERY`] (at most a few counts a second, however many come and go).
    fn watchers_changed(&mut self, count: usize) {
        self.watchers = count;
        if self.watchers_due.is_none() {
            self.watchers_due = Some(self.watchers_sent + WATCHERS_EVERY);
        }
    }

    fn publish_watchers(&mut self) {
        self.watchers_due = None;
        self.watchers_sent = tokio::time::Instant::now();
        self.feed.set_watchers(self.watchers);
        self.refresh_summary();
    }

    /// What the owner may still do about a rematch (`None` once it is made).
    fn rematch_state(&self) -> Option<[bool; 2]> {
        self.rematch_id.is_none().then_some(self.rematch)
    }

    /// What each player may do now.
    fn actions(&self) -> Actions {
        actions_of(&self.record, self.session.as_ref(), self.rematch_state())
    }

    /// The whole game now, for sockets that connect or fall behind.
    fn snapshot(&self) -> Snapshot {
        self.snapshot_with(None, None)
    }

    /// [`Owner::snapshot`], given the legal moves of the side to move when they are at
    /// hand.
    fn snapshot_with(&self, legal: Option<LegalMoves>, board: Option<BoardView>) -> Snapshot {
        let (position, start_board) = &self.start_board;
        let known = Known {
            start_board: (*position == self.record.start_position).then_some(start_board),
            board,
            legal,
        };
        let mut snapshot = snapshot_of(
            &self.record,
            self.session.as_ref(),
            &self.ratings,
            self.watchers,
            self.rematch_state(),
            self.played.clone(),
            known,
        );
        snapshot.view.absent = self.absent(Timestamp::now());
        snapshot
    }

    /// The players gone from this game, as clients see it at `now`.
    fn absent(&self, now: Timestamp) -> Vec<super::AbsenceView> {
        lifecycle::absent(&self.presence, &self.record, self.session.as_ref(), now)
    }

    /// A socket of `side` opened or closed: when they arrived or left, everyone is told
    /// (the opponent's countdown to a claim starts or stops).
    fn presence_changed(&mut self, side: Player, change: isize) {
        if self.presence.change(side, change, Timestamp::now()) {
            let absent = self.absent(Timestamp::now());
            self.feed.refresh(self.snapshot());
            self.feed
                .set_absent(to_text(&ServerMessage::Absent { absent }));
        }
    }

    /// `player` claims the game (a win, or `draw`) against an opponent who left: only
    /// once the opponent has been gone for the claim's wait.
    fn claim(
        &self,
        player: Player,
        draw: bool,
        next: &mut Session,
        now: Timestamp,
    ) -> Result<(), Refusal> {
        let gone = player.other();
        match lifecycle::claim_at(&self.presence, &self.record, next, gone) {
            Some(at) if now < at => {
                let secs = at.saturating_duration_since(now).as_secs_f64().ceil();
                return Err(Refusal::not_allowed(
                    "opponent_may_return",
                    format!("your opponent may still come back: you can claim in {secs} s"),
                ));
            }
            Some(_) => {}
            // The session's own refusals first (over, or nobody has moved twice yet).
            None if !next.is_ongoing() => {
                return Err(Refusal::new(SocketError::GameOver, "the game is over"));
            }
            None if next.can_abort() => return Err(session::Error::NothingToClaim.into()),
            None if lifecycle::claim_wait(next.options().control).is_none() => {
                return Err(Refusal::not_allowed(
                    "claims_live_only",
                    "claims are for live games only",
                ));
            }
            None => {
                return Err(Refusal::not_allowed(
                    "opponent_present",
                    "your opponent is here: nothing to claim",
                ));
            }
        }
        let claimed = if draw {
            next.claim_draw(player, now)
        } else {
            next.claim_victory(player, now)
        };
        claimed.map(drop).map_err(Refusal::from)
    }

    /// Publishes the change from revision `before` to the session now: one `events`
    /// message for everyone, and a copy with the legal moves for the side to move.
    fn publish_change(&self, before: u64) {
        let Some(session) = &self.session else { return };
        let Some(events) = session.events_since(before) else {
            self.feed.reset(self.snapshot());
            return;
        };
        let legal = LegalMoves::of(session);
        let board = BoardView::of(session.game());
        let message = ServerMessage::Events(Box::new(EventsView {
            from_rev: before,
            rev: session.revision(),
            events: events.to_vec(),
            status: status_of(&self.record, Some(session)),
            result: session.outcome().or(self.record.outcome),
            pieces: board.pieces(),
            to_move: board.to_move,
            legal: LegalMoves::default(),
            clocks: ClocksView::of(session, Timestamp::now()),
            draw_offer: session.draw_offer(),
            takeback_request: session.takeback_request(),
            actions: self.actions(),
        }));
        let public = to_text(&message);
        let mover = if legal.is_empty() {
            None
        } else {
            // The public text with the moves put in (the same as serialising the
            // message with them, without writing the board out again).
            let text = match EventsView::with_legal_moves(&public, &legal) {
                Some(text) => Arc::from(text),
                None => {
                    let mut message = message.clone();
                    if let ServerMessage::Events(view) = &mut message {
                        view.legal = legal.clone();
                    }
                    to_text(&message)
                }
            };
            Some((session.to_move(), text))
        };
        let frame = Frame {
            from: before,
            to: session.revision(),
            public,
            mover,
        };
        // The snapshot takes the board the message was written from.
        self.feed
            .change(frame, self.snapshot_with(Some(legal), Some(board)));
    }

    /// Reads the players' conditional moves from the store (a resumed game).
    async fn load_conditional(&mut self) {
        if !self.is_correspondence() || self.is_over() {
            return;
        }
        match self.state.store.conditional_lines(&self.record.id).await {
            Ok(stored) => {
                for kept in stored {
                    match serde_json::from_str::<Lines>(&kept.lines) {
                        Ok(lines) => {
                            self.conditional[kept.side.index()] = Some(Conditional {
                                ply: kept.ply,
                                lines,
                            });
                        }
                        Err(error) => {
                            tracing::error!(game = %self.record.id, %error, "unreadable conditional moves");
                        }
                    }
                }
                // Lines that a change while no owner ran made stale go now.
                self.follow_conditional().await;
            }
            Err(error) => {
                tracing::error!(game = %self.record.id, %error, "reading conditional moves");
            }
        }
    }

    fn is_correspondence(&self) -> bool {
        self.session.as_ref().is_some_and(|s| {
            matches!(
                s.clocks().control(),
                session::TimeControl::Correspondence { .. }
            )
        })
    }

    /// `player` reads (`lines` `None`) or replaces their conditional moves; answers with
    /// the lines kept, as the game writes them.
    async fn set_conditional(
        &mut self,
        player: Player,
        lines: Option<Lines>,
    ) -> Result<Lines, Refusal> {
        let Some(lines) = lines else {
            return Ok(self.conditional[player.index()]
                .as_ref()
                .map(|c| c.lines.clone())
                .unwrap_or_default());
        };
        let Some(session) = self.session.as_ref().filter(|s| s.is_ongoing()) else {
            return Err(Refusal::new(
                SocketError::GameOver,
                "the game is not going on",
            ));
        };
        if !self.is_correspondence() {
            return Err(Refusal::not_allowed(
                "conditional_correspondence_only",
                "conditional moves are for correspondence games",
            ));
        }
        if session.to_move() == player {
            return Err(Refusal::not_allowed(
                "conditional_on_your_move",
                "it is your move: conditional moves are entered while the opponent is to move",
            ));
        }
        let lines = conditional::check(session.game(), lines)
            .map_err(|why| Refusal::new(SocketError::BadMessage, why))?;
        let ply = u32::try_from(session.moves().len()).unwrap_or(u32::MAX);
        let kept = (!lines.is_empty()).then(|| Conditional {
            ply,
            lines: lines.clone(),
        });
        self.store_conditional(player, kept.as_ref())
            .await
            .map_err(|_| {
                Refusal::new(
                    SocketError::Internal,
                    "the server could not store that; nothing changed",
                )
            })?;
        self.conditional[player.index()] = kept;
        Ok(lines)
    }

    async fn store_conditional(
        &self,
        player: Player,
        kept: Option<&Conditional>,
    ) -> Result<(), StoreError> {
        let json = kept.map(|c| (c.ply, serde_json::to_string(&c.lines).unwrap_or_default()));
        self.state
            .store
            .set_conditional_lines(
                &self.record.id,
                player,
                json.as_ref().map(|(ply, text)| (*ply, text.as_str())),
                now_ms(),
            )
            .await
            .inspect_err(|error| {
                tracing::error!(game = %self.record.id, %error, "storing conditional moves");
            })
    }

    /// After a change: plays the answer of a player whose line expected the move just
    /// made (and so on, while answers meet expected replies), and drops the lines that a
    /// change made stale (another reply, a takeback, the end).
    async fn follow_conditional(&mut self) {
        // Each answer plays a move: at most as many as the lines hold.
        for _ in 0..=conditional::MAX_PLIES {
            let Some(session) = &self.session else { return };
            let moves = session.moves().len();
            let over = !session.is_ongoing();
            let mut answer = None;
            for player in Player::BOTH {
                let Some(kept) = &self.conditional[player.index()] else {
                    continue;
                };
                let entered = kept.ply as usize;
                let next = if over || moves < entered {
                    // The end, or a takeback to before the lines.
                    None
                } else if moves == entered {
                    continue;
                } else if moves == entered + 1 && session.moves()[entered].player == player.other()
                {
                    conditional::after_reply(&kept.lines, &session.moves()[entered].info.text)
                } else {
                    None
                };
                let kept = next.as_ref().and_then(|(_, rest)| {
                    (!rest.is_empty()).then(|| Conditional {
                        ply: u32::try_from(moves + 1).unwrap_or(u32::MAX),
                        lines: rest.clone(),
                    })
                });
                if self.store_conditional(player, kept.as_ref()).await.is_err() {
                    // Kept in memory as it was: tried again at the next change.
                    continue;
                }
                self.conditional[player.index()] = kept;
                if let Some((text, _)) = next {
                    answer = Some((player, text));
                }
            }
            let Some((player, text)) = answer else { return };
            let rev = self.session.as_ref().map(Session::revision);
            if let Err(refusal) = self
                .act(
                    player,
                    ClientMessage::Move {
                        rev,
                        text: text.clone(),
                    },
                )
                .await
            {
                tracing::warn!(game = %self.record.id, %text, message = %refusal.message, "a conditional move was refused");
                return;
            }
        }
    }

    async fn act(
        &mut self,
        player: Player,
        message: ClientMessage,
    ) -> Result<Option<String>, Refusal> {
        if message == ClientMessage::Rematch {
            return self.ask_rematch(player).await;
        }
        let Some(mut next) = self.session.take() else {
            if message == ClientMessage::Abort {
                return self.abort_waiting().await.map(|()| None);
            }
            return Err(Refusal::not_allowed(
                "seat_open",
                "the game has not started: a seat is still open",
            ));
        };
        let before = next.revision();
        let old_moves = next.moves().len();
        // What to put back if the change cannot be stored: a mark (a few numbers) for
        // the changes that add to the game, a copy for those that take moves back.
        let backup = match message {
            ClientMessage::Takeback | ClientMessage::TakebackAccept => {
                Backup::Copy(Box::new(next.clone()))
            }
            _ => Backup::Mark(next.checkpoint()),
        };
        let now = Timestamp::now();
        let offers_draw = message == ClientMessage::DrawOffer;
        let done = match message {
            ClientMessage::Move { rev, text } => {
                if rev.is_some_and(|rev| rev != before) {
                    Err(Refusal::new(
                        SocketError::Stale,
                        "the game has changed since that move was chosen",
                    ))
                } else {
                    next.play(player, &text, now)
                        .map(drop)
                        .map_err(Refusal::from)
                }
            }
            ClientMessage::Resign => next.resign(player, now).map(drop).map_err(Refusal::from),
            ClientMessage::DrawOffer => next
                .offer_draw(player, now)
                .map(drop)
                .map_err(Refusal::from),
            ClientMessage::DrawAccept => next
                .accept_draw(player, now)
                .map(drop)
                .map_err(Refusal::from),
            ClientMessage::DrawDecline => next.decline_draw(player, now).map_err(Refusal::from),
            // A finished game is stored as finished (the session would let a move be
            // taken back from the AI after the end): over is over.
            ClientMessage::Takeback if !next.is_ongoing() => {
                Err(Refusal::new(SocketError::GameOver, "the game is over"))
            }
            ClientMessage::Takeback => next
                .request_takeback(player, now)
                .map(drop)
                .map_err(Refusal::from),
            ClientMessage::TakebackAccept => next
                .accept_takeback(player, now)
                .map(drop)
                .map_err(Refusal::from),
            ClientMessage::TakebackDecline => {
                next.decline_takeback(player, now).map_err(Refusal::from)
            }
            ClientMessage::GiveTime => next.give_time(player, now).map(drop).map_err(Refusal::from),
            ClientMessage::Abort => next.abort(player, now).map_err(Refusal::from),
            ClientMessage::ClaimVictory => self.claim(player, false, &mut next, now),
            ClientMessage::ClaimDraw => self.claim(player, true, &mut next, now),
            ClientMessage::Hello { .. }
            | ClientMessage::Ping
            | ClientMessage::Rematch
            | ClientMessage::Chat { .. } => {
                Err(Refusal::new(SocketError::BadMessage, "not an action"))
            }
        };
        // A refused action may still have ended the game on time (the clock is checked
        // first): that change is stored and sent like any other.
        if next.revision() == before {
            self.session = Some(next);
        } else if let Err(error) = self.store_change(&next, old_moves).await {
            tracing::error!(game = %self.record.id, %error, "storing a change");
            self.session = Some(backup.restore(next));
            return Err(Refusal::new(
                SocketError::Internal,
                "the server could not store that; nothing changed",
            ));
        } else {
            self.adopt(next, before);
        }
        if offers_draw && done.is_ok() {
            self.ai_answers_draw().await;
        }
        done.map(|()| None)
    }

    /// The AI answers a draw offered to it at once, by [`super::ai::accepts_draw`].
    async fn ai_answers_draw(&mut self) {
        let Some(session) = &self.session else { return };
        let Some(ai) = session.draw_offer().map(Player::other) else {
            return;
        };
        if self.record.seat(ai).ai_level.is_none() {
            return;
        }
        let before = session.revision();
        let mut next = session.clone();
        let now = Timestamp::now();
        let answered = if super::ai::accepts_draw(session.game(), ai, self.ai_score) {
            next.accept_draw(ai, now).map(drop)
        } else {
            next.decline_draw(ai, now)
        };
        if answered.is_ok()
            && let Err(error) = self.commit(next, before).await
        {
            tracing::error!(game = %self.record.id, %error, "storing the AI's answer to a draw offer");
        }
    }

    /// Stores `next` (the session after a change from revision `before`), then makes it
    /// the game's session and tells the sockets.
    async fn commit(&mut self, next: Session, before: u64) -> Result<(), StoreError> {
        let old_moves = self.session.as_ref().map_or(0, |s| s.moves().len());
        self.store_change(&next, old_moves).await?;
        self.adopt(next, before);
        Ok(())
    }

    /// Stores `next`, the session after a change from one of `old_moves` moves: the
    /// move's row when the change is one move, else the whole session; and how the game
    /// ended if it did.
    async fn store_change(&mut self, next: &Session, old_moves: usize) -> Result<(), StoreError> {
        let stored = self.store_change_here(next, old_moves).await;
        if matches!(stored, Err(StoreError::Fenced(_))) {
            self.moved = true;
        }
        stored
    }

    async fn store_change_here(
        &mut self,
        next: &Session,
        old_moves: usize,
    ) -> Result<(), StoreError> {
        let now = now_ms();
        let new = next.moves().len();
        let store = &self.state.store;
        let id = &self.record.id;
        if new == old_moves + 1
            && let Some(row) = super::stored::last_move_row(next)
        {
            // The move's row; the whole session only when a snapshot is due.
            let ply = row.ply;
            if store
                .append_move(id, &row, self.snapshot_ply, || session_json(next))
                .await?
            {
                self.snapshot_ply = ply;
            }
            self.state.metrics.move_played();
        } else if new < old_moves {
            let keep = u32::try_from(new).unwrap_or(u32::MAX);
            store.take_back(id, keep, &session_json(next), now).await?;
            self.snapshot_ply = keep;
        } else if next.is_ongoing() {
            store
                .save_session_state(id, &session_json(next), now)
                .await?;
            self.snapshot_ply = u32::try_from(new).unwrap_or(u32::MAX);
        }
        // A resignation, a flag fall, an agreed draw: the ending's one transaction stores
        // the session with the result (nothing was written above).
        if !next.is_ongoing() {
            self.store_ending(next).await?;
        }
        Ok(())
    }

    /// Makes `next` (stored) the game's session and tells the sockets, the lobby and
    /// the AI.
    fn adopt(&mut self, next: Session, before: u64) {
        self.played.sync(next.moves());
        self.session = Some(next);
        self.publish_change(before);
        self.tell_players();
        self.refresh_summary();
        self.maybe_ai();
    }

    /// Stores how `session` ended (with the rating changes of a rated game).
    async fn store_ending(&mut self, session: &Session) -> Result<(), StoreError> {
        let now = now_ms();
        let data = session_json(session);
        let id = self.record.id.clone();
        match session.status() {
            Status::Finished { outcome } => {
                let by = session.ended_by();
                let finished = self
                    .state
                    .store
                    .finish_game_by(&id, outcome, by, Some(&data), now)
                    .await?;
                self.record.status = GameStatus::Finished;
                self.record.outcome = Some(outcome);
                self.record.ended_by = by;
                if finished.rating_changes.is_some() {
                    self.ratings = ratings_of(&self.state, &self.record).await;
                }
            }
            Status::Aborted { .. } => {
                self.state.store.abort_game(&id, Some(&data), now).await?;
                self.record.status = GameStatus::Aborted;
            }
            Status::Ongoing => {}
        }
        Ok(())
    }

    /// The creator calls off a game whose second seat is still open.
    async fn abort_waiting(&mut self) -> Result<(), Refusal> {
        self.state
            .store
            .abort_game(&self.record.id, None, now_ms())
            .await
            .map_err(|error| {
                tracing::error!(game = %self.record.id, %error, "aborting a waiting game");
                Refusal::new(SocketError::Internal, "the server could not store that")
            })?;
        self.record.status = GameStatus::Aborted;
        self.feed.reset(self.snapshot());
        self.tell_players();
        self.refresh_summary();
        Ok(())
    }

    /// The flag fell: the game ends on time.
    async fn flag(&mut self) {
        let Some(session) = &self.session else { return };
        let before = session.revision();
        let mut next = session.clone();
        if next.check_flag(Timestamp::now()).is_some() {
            let stored = self.commit(next, before).await;
            self.timer_written(stored, "storing a flag fall");
        }
    }

    /// The player to move did not make their first move in time: the game is aborted.
    async fn first_move_timeout(&mut self) {
        let Some(session) = &self.session else { return };
        let before = session.revision();
        let mut next = session.clone();
        if next.check_first_move(Timestamp::now()).is_some() {
            let stored = self.commit(next, before).await;
            self.timer_written(stored, "storing a first-move abort");
        }
    }

    /// After a timer's write: a failure is tried again after a growing wait (the
    /// deadline has passed, so without it the loop would try again at once, forever).
    fn timer_written(&mut self, stored: Result<(), StoreError>, what: &str) {
        match stored {
            Ok(()) => {
                self.timer_retry.succeeded();
                self.timer_retry_at = None;
            }
            Err(error) => {
                let wait = self.timer_retry.failed();
                tracing::error!(game = %self.record.id, %error, retry_in_ms = wait.as_millis(), "{what}");
                self.timer_retry_at = Some(tokio::time::Instant::now() + wait);
            }
        }
    }

    /// The maintenance job says this game may have expired: a game still waiting for its
    /// second player a day after it was made, or an untimed game left for two weeks, is
    /// aborted (checked here again at `now`: a player may have joined or moved since).
    async fn expire(&mut self, now: Timestamp) {
        if self.record.status == GameStatus::Waiting {
            let made = Timestamp::from_millis(millis(self.record.created_at));
            if now >= made + lifecycle::UNJOINED_EXPIRE_AFTER
                && let Err(refusal) = self.abort_waiting().await
            {
                tracing::error!(game = %self.record.id, message = %refusal.message, "expiring an unjoined game");
            }
            return;
        }
        let Some(session) = &self.session else { return };
        let before = session.revision();
        let mut next = session.clone();
        if next.check_abandoned(now)
            && let Err(error) = self.commit(next, before).await
        {
            tracing::error!(game = %self.record.id, %error, "expiring an abandoned game");
        }
    }

    async fn join(&mut self, ident: &Ident, seat: Seat) -> Result<Player, Refusal> {
        if self.record.status != GameStatus::Waiting {
            return Err(Refusal::not_allowed(
                "seats_taken",
                "both seats are already taken",
            ));
        }
        if ident.side_in(&self.record).is_some() {
            return Err(Refusal::not_allowed(
                "already_playing",
                "you already play in this game",
            ));
        }
        let side = Player::BOTH
            .into_iter()
            .find(|&p| self.record.seat(p).is_open())
            .ok_or_else(|| Refusal::not_allowed("seats_taken", "no seat is open"))?;
        let internal = |error: &dyn std::fmt::Display| {
            tracing::error!(%error, "taking a seat");
            Refusal::new(SocketError::Internal, "the server could not store that")
        };
        let now = now_ms();
        // The game starts now: its session is stored with the seat, in one transaction.
        let vs_ai = super::vs_ai(&self.record) || matches!(seat, Seat::Ai(_));
        let session = session_with(&self.record, vs_ai, Timestamp::from_millis(millis(now)))
            .map_err(|e| internal(&e))?;
        let record = self
            .state
            .store
            .take_seat(
                &self.record.id,
                side,
                &seat,
                Some(&session_json(&session)),
                now,
            )
            .await
            .map_err(|e| internal(&e))?;
        self.ratings = ratings_of(&self.state, &record).await;
        self.record = record;
        // The sockets they had open as a spectator are a player's from now on.
        if let Some(sockets) = self.spectators.remove(ident) {
            self.watchers_changed(self.watchers.saturating_sub(sockets));
            self.presence_changed(side, isize::try_from(sockets).unwrap_or(isize::MAX));
        }
        self.played = PlayedList::of(session.moves());
        self.session = Some(session);
        self.feed.reset(self.snapshot());
        self.tell_players();
        self.refresh_summary();
        self.maybe_ai();
        Ok(side)
    }

    async fn ask_rematch(&mut self, player: Player) -> Result<Option<String>, Refusal> {
        if !self.is_over() {
            return Err(Refusal::not_allowed(
                "rematch_after_end",
                "a rematch can be asked for once the game is over",
            ));
        }
        if let Some(id) = &self.rematch_id {
            return Ok(Some(id.clone()));
        }
        self.rematch[player.index()] = true;
        let opponent = player.other();
        let opponent_agrees =
            self.rematch[opponent.index()] || self.record.seat(opponent).ai_level.is_some();
        if !opponent_agrees {
            // The asker's button goes; the opponent's stays (and says it was asked).
            self.feed.refresh(self.snapshot());
            return Ok(None);
        }
        let (Some(first), Some(second)) = (
            seat_of(self.record.seat(Player::Second)),
            seat_of(self.record.seat(Player::First)),
        ) else {
            return Err(Refusal::not_allowed("seat_empty", "a seat is empty"));
        };
        // A rematch is a new game: it counts against the creation limits.
        let slot = super::ai::rematch_slot(&self.state, &self.record).await?;
        let control = self
            .record
            .time_control
            .parse()
            .unwrap_or(session::TimeControl::Untimed);
        let record = super::create_game(
            &self.state,
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
        self.rematch_id = Some(record.id.clone());
        self.feed.set_rematch(&record.id);
        self.feed.refresh(self.snapshot());
        Ok(Some(record.id))
    }

    /// Starts the AI's search when it is the AI's turn.
    fn maybe_ai(&mut self) {
        let Some(session) = &self.session else { return };
        if !session.is_ongoing() {
            return;
        }
        let to_move = session.to_move();
        let Some(level) = self.record.seat(to_move).ai_level else {
            return;
        };
        let rev = session.revision();
        if self.ai_pending == Some(rev) {
            return;
        }
        self.ai_pending = Some(rev);
        let remaining = session.clocks().both(Timestamp::now()).filter(|_| {
            matches!(
                session.options().control,
                session::TimeControl::Fischer { .. }
            )
        });
        self.state.ai.request(
            &self.record,
            session.game().clone(),
            level,
            remaining.map(|both| (both, session.options().control.increment())),
            rev,
            self.commands.clone(),
        );
    }

    /// The players' own sockets get the game as just published (live/people.rs).
    fn tell_players(&self) {
        super::people::game_changed(&self.state, &self.feed.snapshot());
    }

    /// What the live list shows of this game (nothing until both seats are taken or
    /// once it is over); the lobby passes it on, coalesced.
    fn refresh_summary(&self) {
        let lobby = self.state.live.lobby();
        match &self.session {
            Some(session) if session.is_ongoing() => lobby.game_changed(LiveGame {
                id: self.record.id.clone(),
                kind: self.record.kind,
                players: players(&self.record, &self.ratings),
                board: BoardView::of(session.game()),
                time_control: self.record.time_control.clone(),
                rated: self.record.rated,
                watchers: self.watchers,
                created_at: self.record.created_at,
            }),
            _ => lobby.game_removed(&self.record.id),
        }
    }
}

/// What puts a session back when a change to it cannot be stored.
enum Backup {
    /// A mark: the change only added to the game.
    Mark(session::Checkpoint),
    /// A copy: the change may take moves back.
    Copy(Box<Session>),
}

impl Backup {
    /// The session as it was before the change made to `changed`.
    fn restore(self, mut changed: Session) -> Session {
        match self {
            Backup::Mark(mark) if changed.restore(&mark) => changed,
            // A mark cannot undo a takeback, and only copies are kept for those: not
            // reached. Should it be, the changed session stays and says so in the log.
            Backup::Mark(_) => {
                tracing::error!("a change that took moves back was kept by a mark");
                changed
            }
            Backup::Copy(copy) => *copy,
        }
    }
}

async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
