//! What a game's owner writes to the database, and nothing else does while it owns the
//! game: each change of the session (a move's row, a takeback, the state, the ending),
//! the seats, the conditional moves. Which write a change needs is decided by
//! [`write_for`], a function of the session; the writes are fenced by the process's
//! lease (a process that lost the game cannot write to it).

use std::sync::Arc;

use game::Player;
use session::{Session, Status};

use super::conditional::Conditionals;
use crate::live::conditional::{Conditional, Lines};
use crate::live::{session_json, stored};
use crate::metrics::Metrics;
use crate::store::{GameRecord, GameStatus, Seat, StoreError, StoredMove, now_ms};

/// The write a change of the session needs, besides its ending.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Write {
    /// One move added: its row (and the whole session when a snapshot is due).
    Move(StoredMove),
    /// Moves taken back: keep this many, and the session as it is now.
    TakeBack {
        /// The moves kept.
        keep: u32,
    },
    /// Something else changed in a game going on (an offer, time given): the session.
    State,
    /// Nothing before the ending (a resignation, a flag fall, an agreed draw: the
    /// ending's one transaction stores the session with the result).
    Nothing,
}

/// The write for `next`, the session after a change from one of `old_moves` moves.
pub(crate) fn write_for(next: &Session, old_moves: usize) -> Write {
    let new = next.moves().len();
    if new == old_moves + 1
        && let Some(row) = stored::last_move_row(next)
    {
        Write::Move(row)
    } else if new < old_moves {
        Write::TakeBack {
            keep: u32::try_from(new).unwrap_or(u32::MAX),
        }
    } else if next.is_ongoing() {
        Write::State
    } else {
        Write::Nothing
    }
}

/// The owner's writes for one game.
pub(crate) struct Persist {
    store: crate::store::Store,
    metrics: Arc<Metrics>,
    /// How many moves the stored snapshot of the session holds, as far as this owner
    /// knows: 0 until it writes one (the first move after a resume may then write one
    /// early, never late).
    snapshot_ply: u32,
}

impl Persist {
    /// The writes of one game.
    pub(crate) fn new(store: crate::store::Store, metrics: Arc<Metrics>) -> Persist {
        Persist {
            store,
            metrics,
            snapshot_ply: 0,
        }
    }

    /// Stores `next`, the session of `record` after a change from one of `old_moves`
    /// moves, and how the game ended if it did (`record` then says so). Returns whether
    /// ratings changed.
    pub(crate) async fn change(
        &mut self,
        record: &mut GameRecord,
        next: &Session,
        old_moves: usize,
    ) -> Result<bool, StoreError> {
        let now = now_ms();
        let id = &record.id;
        match write_for(next, old_moves) {
            Write::Move(row) => {
                let ply = row.ply;
                if self
                    .store
                    .append_move(id, &row, self.snapshot_ply, || session_json(next))
                    .await?
                {
                    self.snapshot_ply = ply;
                }
                self.metrics.move_played();
            }
            Write::TakeBack { keep } => {
                self.store
                    .take_back(id, keep, &session_json(next), now)
                    .await?;
                self.snapshot_ply = keep;
            }
            Write::State => {
                self.store
                    .save_session_state(id, &session_json(next), now)
                    .await?;
                self.snapshot_ply = u32::try_from(next.moves().len()).unwrap_or(u32::MAX);
            }
            Write::Nothing => {}
        }
        if next.is_ongoing() {
            Ok(false)
        } else {
            self.ending(record, next).await
        }
    }

    /// Stores how `session` ended (with the rating changes of a rated game); `record`
    /// then says so. Returns whether ratings changed.
    pub(crate) async fn ending(
        &self,
        record: &mut GameRecord,
        session: &Session,
    ) -> Result<bool, StoreError> {
        let now = now_ms();
        let data = session_json(session);
        match session.status() {
            Status::Finished { outcome } => {
                let by = session.ended_by();
                let finished = self
                    .store
                    .finish_game_by(&record.id, outcome, by, Some(&data), now)
                    .await?;
                record.status = GameStatus::Finished;
                record.outcome = Some(outcome);
                record.ended_by = by;
                Ok(finished.rating_changes.is_some())
            }
            Status::Aborted { .. } => {
                self.store.abort_game(&record.id, Some(&data), now).await?;
                record.status = GameStatus::Aborted;
                Ok(false)
            }
            Status::Ongoing => Ok(false),
        }
    }

    /// Calls off `record`, whose second seat is still open.
    pub(crate) async fn abort_waiting(&self, record: &mut GameRecord) -> Result<(), StoreError> {
        self.store.abort_game(&record.id, None, now_ms()).await?;
        record.status = GameStatus::Aborted;
        Ok(())
    }

    /// `seat` takes `side` of `record`, whose game starts with `session`: one
    /// transaction. Returns the record after it.
    pub(crate) async fn take_seat(
        &self,
        record: &GameRecord,
        side: Player,
        seat: &Seat,
        session: &Session,
    ) -> Result<GameRecord, StoreError> {
        self.store
            .take_seat(
                &record.id,
                side,
                seat,
                Some(&session_json(session)),
                now_ms(),
            )
            .await
    }

    /// Stores `player`'s conditional moves in game `id` (`None`: none).
    pub(crate) async fn conditional(
        &self,
        id: &str,
        player: Player,
        kept: Option<&Conditional>,
    ) -> Result<(), StoreError> {
        let json = kept.map(|c| (c.ply, serde_json::to_string(&c.lines).unwrap_or_default()));
        self.store
            .set_conditional_lines(
                id,
                player,
                json.as_ref().map(|(ply, text)| (*ply, text.as_str())),
                now_ms(),
            )
            .await
            .inspect_err(|error| {
                tracing::error!(game = %id, %error, "storing conditional moves");
            })
    }

    /// The players' conditional moves in game `id`, as stored (a resumed game); lines
    /// that cannot be read are left out (and logged).
    pub(crate) async fn load_conditional(&self, id: &str) -> Result<Conditionals, StoreError> {
        let mut kept = Conditionals::default();
        for stored in self.store.conditional_lines(id).await? {
            match serde_json::from_str::<Lines>(&stored.lines) {
                Ok(lines) => kept.set(
                    stored.side,
                    Some(Conditional {
                        ply: stored.ply,
                        lines,
                    }),
                ),
                Err(error) => {
                    tracing::error!(game = %id, %error, "unreadable conditional moves");
                }
            }
        }
        Ok(kept)
    }

    /// Whether another process owns game `id` now (only the database can say).
    pub(crate) async fn owned_elsewhere(&self, id: &str) -> bool {
        matches!(self.store.owned_elsewhere(id).await, Ok(true))
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture::{game, session_of, user};
    use super::*;
    use game::GameKind;
    use session::Timestamp;

    #[test]
    fn each_change_is_written_as_little_as_it_needs() {
        let record = game(GameKind::Copenhagen, user("a"), user("b"), "untimed");
        let mut session = session_of(&record);
        let now = Timestamp::now();
        let text = session.legal_moves()[0].text.clone();
        session.play(Player::First, &text, now).unwrap();
        match write_for(&session, 0) {
            Write::Move(row) => {
                assert_eq!(row.ply, 1);
                assert_eq!(row.text, text);
            }
            other => panic!("a move is its row: {other:?}"),
        }
        session.offer_draw(Player::First, now).unwrap();
        assert_eq!(write_for(&session, 1), Write::State);
        let mut taken = session.clone();
        taken.decline_draw(Player::Second, now).unwrap();
        taken.request_takeback(Player::First, now).unwrap();
        taken.accept_takeback(Player::Second, now).unwrap();
        assert_eq!(write_for(&taken, 1), Write::TakeBack { keep: 0 });
        session.resign(Player::Second, now).unwrap();
        assert_eq!(
            write_for(&session, 1),
            Write::Nothing,
            "the ending stores it"
        );
    }
}
