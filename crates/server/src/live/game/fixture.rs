//! Games built in memory for the concern modules' tests: no database, no socket.

use game::GameKind;
use session::{Session, Timestamp};

use super::setup;
use crate::store::{GameRecord, GameStatus, SeatRecord};

/// A user's seat (named after their id).
pub(crate) fn user(id: &str) -> SeatRecord {
    SeatRecord {
        user_id: Some(id.to_owned()),
        username: Some(format!("{id}-name")),
        ..SeatRecord::default()
    }
}

/// A guest's seat.
pub(crate) fn guest(id: &str) -> SeatRecord {
    SeatRecord {
        guest_id: Some(id.to_owned()),
        guest_name: Some(format!("Guest {id}")),
        ..SeatRecord::default()
    }
}

/// The AI's seat at `level`.
pub(crate) fn ai(level: u8) -> SeatRecord {
    SeatRecord {
        ai_level: Some(level),
        ..SeatRecord::default()
    }
}

/// A game of `kind` between `first` and `second` under `control` (`5+3`, `3d`,
/// `untimed`): waiting when a seat is open, else being played.
pub(crate) fn game(
    kind: GameKind,
    first: SeatRecord,
    second: SeatRecord,
    control: &str,
) -> GameRecord {
    let open = first.is_open() || second.is_open();
    GameRecord {
        id: "g1".to_owned(),
        kind,
        first,
        second,
        time_control: control.to_owned(),
        rated: false,
        status: if open {
            GameStatus::Waiting
        } else {
            GameStatus::Playing
        },
        outcome: None,
        start_position: games::AnyGame::start(kind).start_position_string(),
        plies: 0,
        created_at: 1_000,
        updated_at: 1_000,
        finished_at: None,
        ended_by: None,
    }
}

/// The session of `record`, starting now.
pub(crate) fn session_of(record: &GameRecord) -> Session {
    setup::new_session(record, Timestamp::now()).expect("a game built here starts")
}
