//! The game as its players, its spectators and the lists see it: a function of the
//! record, the session and what the owner counts (ratings, watchers, a rematch asked).
//! The one place the server says what a player may do now ([`actions_of`]) and who
//! ended a game ([`ended_by`]).

use std::sync::Arc;

use game::{EndReason, Outcome, Player};
use games::BoardView;
use session::{Session, Status, Takebacks, Timestamp};

use crate::live::feed::{Frame, Snapshot, to_text};
use crate::live::messages::{
    Action, Actions, ClocksView, EventsView, GameStatusView, GameView, LegalMoves, PlayedList,
    PlayerInfo, ServerMessage,
};
use crate::live::start_board;
use crate::store::{GameRecord, GameStatus, Store};

/// Who ended a game outside the rules: as stored, else, for a game won by resignation,
/// on time or by a claim (an imported record, a game finished before the server kept
/// it), the loser — who else could have resigned, run out of time or left. A draw on
/// time or by a claim names someone only as stored.
#[must_use]
pub fn ended_by(outcome: Option<Outcome>, stored: Option<Player>) -> Option<Player> {
    let outcome = outcome?;
    stored.or(match outcome.reason {
        EndReason::Resignation | EndReason::Timeout | EndReason::Abandonment => {
            outcome.winner.map(Player::other)
        }
        _ => None,
    })
}

/// Each side's rating in this game's kind, for users: (rating, provisional).
pub(crate) type Ratings = [Option<(i64, bool)>; 2];

/// The ratings of the users in `record` (a user with no games yet has 1500,
/// provisional).
pub(crate) async fn ratings_of(store: &Store, record: &GameRecord) -> Ratings {
    let mut ratings = [None, None];
    for player in Player::BOTH {
        let Some(user) = &record.seat(player).user_id else {
            continue;
        };
        let rating = match store.ratings_of(user).await {
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

/// The players of `record` as clients show them.
pub(crate) fn players(record: &GameRecord, ratings: &Ratings) -> Vec<PlayerInfo> {
    Player::BOTH
        .into_iter()
        .map(|side| PlayerInfo::of(side, record.seat(side), ratings[side.index()]))
        .collect()
}

pub(crate) fn status_of(record: &GameRecord, session: Option<&Session>) -> GameStatusView {
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

/// The game as the player `you` (or a spectator) sees it, with what the owner knows
/// already ([`Known::default`]: nothing; [`Known::legal`] is not used).
#[allow(clippy::too_many_arguments)]
pub(crate) fn view_of(
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
        ended_by: ended_by(
            session.and_then(Session::outcome).or(record.outcome),
            session.and_then(Session::ended_by).or(record.ended_by),
        ),
        played_at: record.created_at,
        players: players(record, ratings),
        you,
        time_control: record.time_control.clone(),
        correspondence: crate::live::messages::is_correspondence(&record.time_control),
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
        chat: crate::live::chat::rooms_for([&record.first, &record.second], you),
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
    let view = view_of(
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

/// The change from revision `before` to `session` as it is published: one `events`
/// message for everyone, and a copy with the legal moves for the side to move; with the
/// legal moves and the board it was written from (the snapshot takes them). `None` when
/// the session no longer has the events since `before` (the whole state goes out).
pub(crate) fn change_frame(
    record: &GameRecord,
    session: &Session,
    before: u64,
    actions: Actions,
) -> Option<(Frame, LegalMoves, BoardView)> {
    let events = session.events_since(before)?;
    let legal = LegalMoves::of(session);
    let board = BoardView::of(session.game());
    let message = ServerMessage::Events(Box::new(EventsView {
        from_rev: before,
        rev: session.revision(),
        events: events.to_vec(),
        status: status_of(record, Some(session)),
        result: session.outcome().or(record.outcome),
        pieces: board.pieces(),
        to_move: board.to_move,
        legal: LegalMoves::default(),
        clocks: ClocksView::of(session, Timestamp::now()),
        draw_offer: session.draw_offer(),
        takeback_request: session.takeback_request(),
        actions,
    }));
    let public = to_text(&message);
    let mover = if legal.is_empty() {
        None
    } else {
        // The public text with the moves put in (the same as serialising the message
        // with them, without writing the board out again).
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
    Some((frame, legal, board))
}
