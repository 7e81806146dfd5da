//! A live game's session as the database holds it: an occasional snapshot and the moves
//! appended after it ([`StoredSession`]). A move is stored as its row alone; loading
//! replays the rows after the snapshot at their stored times, which gives back the
//! session exactly as it was: the same moves, clocks, revision and events.

use session::{Session, SessionData, Timestamp};

use super::messages::ClocksView;
use super::millis;
use crate::store::{Store, StoreError, StoredMove, StoredSession};

/// Why a stored session cannot be loaded.
#[derive(Debug, thiserror::Error)]
pub enum RestoreError {
    /// The snapshot does not read back as a session.
    #[error("the snapshot does not load: {0}")]
    Snapshot(String),
    /// The stored moves do not follow the snapshot.
    #[error("stored move {ply} ({text}) does not follow: {why}")]
    Move {
        /// Its ply.
        ply: u32,
        /// Its text.
        text: String,
        /// Why.
        why: String,
    },
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The row to store for the last move of `session` (its ply, text, both clocks just
/// after it, and the time it was played, which replaying it needs); `None` when the
/// session has no move.
#[must_use]
pub fn last_move_row(session: &Session) -> Option<StoredMove> {
    let last = session.moves().last()?;
    let at = last.at.unwrap_or_else(Timestamp::now);
    let clocks = ClocksView::of(session, at);
    let ms = |value: u64| i64::try_from(value).unwrap_or(i64::MAX);
    Some(StoredMove {
        ply: u32::try_from(session.moves().len()).unwrap_or(u32::MAX),
        text: last.info.text.clone(),
        first_clock_ms: clocks.map(|c| ms(c.first_ms)),
        second_clock_ms: clocks.map(|c| ms(c.second_ms)),
        played_at: i64::try_from(at.as_millis()).unwrap_or(i64::MAX),
    })
}

/// Rebuilds the session from its snapshot and the moves after it, each played by the
/// side to move at its stored time.
///
/// # Errors
/// When the snapshot does not load or a move does not follow it.
pub fn restore(stored: StoredSession) -> Result<Session, RestoreError> {
    let data: SessionData = serde_json::from_str(&stored.snapshot)
        .map_err(|e| RestoreError::Snapshot(e.to_string()))?;
    let mut session =
        Session::from_data(data).map_err(|e| RestoreError::Snapshot(e.to_string()))?;
    if session.moves().len() != stored.snapshot_ply as usize {
        return Err(RestoreError::Snapshot(format!(
            "it holds {} moves, the game says {}",
            session.moves().len(),
            stored.snapshot_ply
        )));
    }
    for mv in stored.moves_after {
        let refuse = |why: String| RestoreError::Move {
            ply: mv.ply,
            text: mv.text.clone(),
            why,
        };
        if mv.ply as usize != session.moves().len() + 1 {
            return Err(refuse(format!(
                "expected ply {}",
                session.moves().len() + 1
            )));
        }
        let at = Timestamp::from_millis(millis(mv.played_at));
        session
            .play(session.to_move(), &mv.text, at)
            .map_err(|e| refuse(e.to_string()))?;
    }
    Ok(session)
}

/// The stored session of game `id`, rebuilt; `Ok(None)` when it has none.
///
/// # Errors
/// On a database failure, or when what is stored does not load.
pub async fn load(store: &Store, id: &str) -> Result<Option<Session>, RestoreError> {
    match store.stored_session(id).await? {
        Some(stored) => restore(stored).map(Some),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use game::{GameKind, Player};
    use session::{AnyGame, ClockStart, Options, Takebacks};

    use super::*;
    use crate::live::session_json;
    use crate::store::snapshot_due;

    /// Plays `plies` moves (a fixed pick among the legal ones) at uneven times, with a
    /// draw offer and its refusal on the way, storing what the server stores: the move
    /// rows, and snapshots when due or after a change that is not a move. Returns the
    /// session and what is stored of it.
    fn played(kind: GameKind, plies: usize) -> (Session, StoredSession) {
        let options = Options {
            control: "3+2".parse().unwrap(),
            takebacks: Takebacks::Never,
            clock_start: ClockStart::FirstMove,
        };
        let mut now = Timestamp::from_millis(1_700_000_000_000);
        let mut session = Session::new(AnyGame::start(kind), options, now);
        let mut stored = StoredSession {
            snapshot: session_json(&session),
            snapshot_ply: 0,
            moves_after: Vec::new(),
        };
        let snapshot = |session: &Session, stored: &mut StoredSession| {
            stored.snapshot = session_json(session);
            stored.snapshot_ply = u32::try_from(session.moves().len()).unwrap();
            stored.moves_after.clear();
        };
        for ply in 1..=plies {
            if !session.is_ongoing() {
                break;
            }
            now = Timestamp::from_millis(now.as_millis() + 97 + (ply as u64 * 7919) % 4000);
            if ply == 40 {
                session.offer_draw(Player::Second, now).unwrap();
                snapshot(&session, &mut stored);
                session.decline_draw(Player::First, now).unwrap();
                snapshot(&session, &mut stored);
            }
            let legal = session.legal_moves();
            let text = legal[(ply * 31) % legal.len()].text.clone();
            session.play(session.to_move(), &text, now).unwrap();
            let row = last_move_row(&session).unwrap();
            assert_eq!(row.ply as usize, ply);
            if snapshot_due(row.ply, stored.snapshot_ply) {
                snapshot(&session, &mut stored);
            } else {
                stored.moves_after.push(row);
            }
        }
        (session, stored)
    }

    #[test]
    fn a_session_rebuilt_from_snapshot_and_moves_equals_the_one_that_played() {
        for kind in [GameKind::Fetlar, GameKind::Copenhagen, GameKind::Camelot] {
            for plies in [1, 10, 31, 32, 33, 45, 64, 100, 150] {
                let (session, stored) = played(kind, plies);
                let replayed = stored.moves_after.len();
                let rebuilt = restore(stored).unwrap();
                assert_eq!(rebuilt, session, "{kind:?} after {plies} plies");
                // Equal as data means the same clocks, revision and event log; the
                // running clock's deadline follows from them.
                assert_eq!(rebuilt.clocks(), session.clocks());
                assert_eq!(rebuilt.revision(), session.revision());
                assert_eq!(rebuilt.clocks().deadline(), session.clocks().deadline());
                assert!(replayed < 32 || replayed <= plies / 2, "{kind:?} {plies}");
            }
        }
    }

    #[test]
    fn a_move_that_does_not_follow_is_refused() {
        let (_, mut stored) = played(GameKind::Copenhagen, 20);
        stored.moves_after[3].text = "a1-a2".into();
        assert!(matches!(
            restore(stored),
            Err(RestoreError::Move { ply: 4, .. })
        ));
        let (_, mut stored) = played(GameKind::Camelot, 20);
        stored.moves_after.remove(2);
        assert!(matches!(restore(stored), Err(RestoreError::Move { .. })));
        let (_, mut stored) = played(GameKind::Fetlar, 5);
        stored.snapshot_ply = 3;
        assert!(matches!(restore(stored), Err(RestoreError::Snapshot(_))));
    }

    #[test]
    fn snapshots_come_after_32_moves_then_as_many_as_they_hold() {
        let mut at = 0;
        let mut taken = Vec::new();
        for ply in 1..=600 {
            if snapshot_due(ply, at) {
                taken.push(ply);
                at = ply;
            }
        }
        assert_eq!(taken, [32, 64, 128, 256, 512]);
    }
}
