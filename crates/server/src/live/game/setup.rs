//! How a game starts: its options, its first session, its owner. Creating a game (a new
//! one, one accepted from the lobby, a rematch) stores it and starts its owner here.

use game::GameKind;
use games::{AnyGame, BoardView};
use session::{ClockStart, Options, Session, Takebacks, TimeControl, Timestamp};
use tokio::sync::mpsc;

use super::command::Handle;
use super::{Deps, Owner, view};
use crate::live::{SetupError, millis, session_json};
use crate::store::{GameRecord, NewGame, Seat, now_ms};

/// How many commands may wait for one game's owner.
pub(crate) const QUEUE: usize = 256;

/// The options of a server game: takebacks at once against the AI, by agreement
/// between people.
pub(crate) fn options_for(vs_ai: bool, control: TimeControl) -> Options {
    Options {
        control,
        takebacks: if vs_ai {
            Takebacks::Immediate
        } else {
            Takebacks::ByAgreement
        },
        // Each side's clock starts with its own first move (docs/API.md, "How games
        // start and end").
        clock_start: ClockStart::FirstMove,
    }
}

/// Whether the AI plays a side of `record`.
pub(crate) fn vs_ai(record: &GameRecord) -> bool {
    record.first.ai_level.is_some() || record.second.ai_level.is_some()
}

/// A new session for `record` starting at `now`.
pub(crate) fn new_session(record: &GameRecord, now: Timestamp) -> Result<Session, SetupError> {
    session_with(record, vs_ai(record), now)
}

/// A new session for `record` starting at `now`, the AI playing a side when `vs_ai`
/// (`record`'s seats may not say so yet: a seat being taken).
pub(crate) fn session_with(
    record: &GameRecord,
    vs_ai: bool,
    now: Timestamp,
) -> Result<Session, SetupError> {
    let corrupt = |why: String| SetupError::Corrupt {
        id: record.id.clone(),
        why,
    };
    let control: TimeControl = record
        .time_control
        .parse()
        .map_err(|e: session::ParseTimeControlError| corrupt(e.to_string()))?;
    let game = AnyGame::from_position(record.kind, &record.start_position)
        .map_err(|e| corrupt(e.to_string()))?;
    Ok(Session::new(game, options_for(vs_ai, control), now))
}

/// A board with no moves, for games not started.
pub(crate) fn start_board(record: &GameRecord) -> (AnyGame, BoardView) {
    let game = AnyGame::from_position(record.kind, &record.start_position)
        .unwrap_or_else(|_| AnyGame::start(record.kind));
    let board = BoardView::of(&game);
    (game, board)
}

/// Stores a new game and starts its owner; the game starts at once when both seats are
/// taken. Returns its record.
///
/// # Errors
/// On a database failure.
pub(crate) async fn create_game(
    deps: &Deps,
    kind: GameKind,
    first: Seat,
    second: Seat,
    control: TimeControl,
    rated: bool,
) -> Result<GameRecord, SetupError> {
    let start = AnyGame::start(kind);
    let now = now_ms();
    // Both seats taken: the game starts now, stored with its session in one go.
    let session = (first != Seat::Open && second != Seat::Open).then(|| {
        let vs_ai = matches!(first, Seat::Ai(_)) || matches!(second, Seat::Ai(_));
        Session::new(
            start.clone(),
            options_for(vs_ai, control),
            Timestamp::from_millis(millis(now)),
        )
    });
    let new = NewGame {
        kind,
        first,
        second,
        time_control: control.to_string(),
        rated,
        start_position: start.start_position_string(),
        session_state: session.as_ref().map(session_json),
    };
    let record = deps.store.create_game(&new, now).await?;
    spawn(deps, record.clone(), session).await;
    Ok(record)
}

/// Starts the owner of a game accepted from the lobby (already stored).
///
/// # Errors
/// On a database failure.
pub(crate) async fn start_stored(deps: &Deps, record: GameRecord) -> Result<(), SetupError> {
    let now = now_ms();
    let session = new_session(&record, Timestamp::from_millis(millis(now)))?;
    deps.store
        .save_session_state(&record.id, &session_json(&session), now)
        .await?;
    spawn(deps, record, Some(session)).await;
    Ok(())
}

/// Starts the owner of `record` (with its session, once both seats are taken) and
/// registers it as this process's.
pub(crate) async fn spawn(deps: &Deps, record: GameRecord, session: Option<Session>) {
    let (commands, receiver) = mpsc::channel(QUEUE);
    let id = record.id.clone();
    let ratings = view::ratings_of(&deps.store, &record).await;
    let owner = Owner::new(deps.clone(), record, session, ratings, commands.clone());
    let handle = Handle {
        commands,
        feed: owner.feed(),
    };
    deps.live.insert(id, handle);
    deps.metrics
        .live_games
        .set(i64::try_from(deps.live.count()).unwrap_or(i64::MAX));
    deps.tasks.spawn(owner.run(receiver));
}

#[cfg(test)]
mod tests {
    use super::super::fixture::{ai, game, user};
    use super::*;

    #[test]
    fn takebacks_are_at_once_against_the_ai_and_asked_between_people() {
        let people = game(GameKind::Copenhagen, user("a"), user("b"), "5+3");
        let session = new_session(&people, Timestamp::now()).unwrap();
        assert_eq!(session.options().takebacks, Takebacks::ByAgreement);
        assert_eq!(session.options().clock_start, ClockStart::FirstMove);
        let machine = game(GameKind::Camelot, ai(4), user("b"), "untimed");
        let session = new_session(&machine, Timestamp::now()).unwrap();
        assert_eq!(session.options().takebacks, Takebacks::Immediate);
    }

    #[test]
    fn a_record_that_cannot_be_read_is_refused_by_name() {
        let mut record = game(GameKind::Fetlar, user("a"), user("b"), "5+3");
        record.time_control = "five minutes".into();
        let error = new_session(&record, Timestamp::now()).unwrap_err();
        assert!(matches!(error, SetupError::Corrupt { ref id, .. } if id == "g1"));
        let mut record = game(GameKind::Fetlar, user("a"), user("b"), "5+3");
        record.start_position = "not a position".into();
        assert!(new_session(&record, Timestamp::now()).is_err());
        // The board of a game not started falls back to the start position.
        let (_, board) = start_board(&record);
        assert_eq!(board, BoardView::of(&AnyGame::start(GameKind::Fetlar)));
    }
}
