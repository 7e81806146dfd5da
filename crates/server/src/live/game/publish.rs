//! The one place a game's changes go out: a change of the session is stored, then
//! published to the game's feed (its sockets here and on other processes), the players'
//! own channels, the lobby's list and the AI; the snapshots sockets catch up from.

use games::BoardView;
use session::{Session, Timestamp};

use super::owner::Owner;
use super::view::{self, Known};
use crate::live::feed::{Snapshot, to_text};
use crate::live::messages::{LegalMoves, LiveGame, ServerMessage};
use crate::store::StoreError;

impl Owner {
    /// Stores `next` (the session after a change from revision `before`, from one of
    /// `old_moves` moves), then makes it the game's session and publishes it: to the
    /// feed, the players' channels, the lobby and the AI. The one place a change of the
    /// session goes out. On a failure nothing is published and `next` comes back.
    pub(super) async fn commit(
        &mut self,
        next: Session,
        before: u64,
        old_moves: usize,
    ) -> Result<(), (StoreError, Session)> {
        match self
            .persist
            .change(&mut self.record, &next, old_moves)
            .await
        {
            Ok(rated) => {
                if rated {
                    self.ratings = view::ratings_of(&self.deps.store, &self.record).await;
                }
            }
            Err(error) => {
                if matches!(error, StoreError::Fenced(_)) {
                    self.moved = true;
                }
                return Err((error, next));
            }
        }
        self.played.sync(next.moves());
        self.session = Some(next);
        self.publish_change(before);
        self.published();
        Ok(())
    }

    /// [`Owner::commit`] for a change made on a copy of the session (the session itself
    /// is left as it was when the change cannot be stored).
    pub(super) async fn commit_copy(&mut self, next: Session, what: &str) -> bool {
        let Some(session) = &self.session else {
            return false;
        };
        let (before, old_moves) = (session.revision(), session.moves().len());
        match self.commit(next, before, old_moves).await {
            Ok(()) => true,
            Err((error, _)) => {
                tracing::error!(game = %self.record.id, %error, "{what}");
                false
            }
        }
    }

    /// After the game was published (a change, a seat, an abort): the players' own
    /// channels, the lobby's list and the AI.
    pub(super) fn published(&mut self) {
        self.deps.live.people().game_changed(&self.feed.snapshot());
        self.refresh_summary();
        self.maybe_ai();
    }

    /// Publishes the change from revision `before` to the session now.
    pub(super) fn publish_change(&self, before: u64) {
        let Some(session) = &self.session else { return };
        let actions = view::actions_of(&self.record, Some(session), self.rematch.open());
        match view::change_frame(&self.record, session, before, actions) {
            // The snapshot takes the board the message was written from.
            Some((frame, legal, board)) => self
                .feed
                .change(frame, self.snapshot_with(Some(legal), Some(board))),
            None => self.feed.reset(self.snapshot()),
        }
    }

    /// The whole game now, for sockets that connect or fall behind.
    pub(super) fn snapshot(&self) -> Snapshot {
        self.snapshot_with(None, None)
    }

    /// [`Owner::snapshot`], given the legal moves of the side to move and the board
    /// when they are at hand.
    pub(super) fn snapshot_with(
        &self,
        legal: Option<LegalMoves>,
        board: Option<BoardView>,
    ) -> Snapshot {
        let (position, start_board) = &self.start_board;
        let known = Known {
            start_board: (*position == self.record.start_position).then_some(start_board),
            board,
            legal,
        };
        let mut snapshot = view::snapshot_of(
            &self.record,
            self.session.as_ref(),
            &self.ratings,
            self.audience.watchers(),
            self.rematch.open(),
            self.played.clone(),
            known,
        );
        snapshot.view.absent = self.absent();
        snapshot
    }

    /// The players gone from this game, as clients see it now.
    pub(super) fn absent(&self) -> Vec<crate::live::AbsenceView> {
        crate::live::lifecycle::absent(
            self.audience.presence(),
            &self.record,
            self.session.as_ref(),
            Timestamp::now(),
        )
    }

    /// A player arrived or left: everyone is told (the opponent's countdown to a claim
    /// starts or stops).
    pub(super) fn publish_presence(&self) {
        let absent = self.absent();
        self.feed.refresh(self.snapshot());
        self.feed
            .set_absent(to_text(&ServerMessage::Absent { absent }));
    }

    pub(super) fn publish_watchers(&mut self) {
        let count = self.audience.send_watchers();
        self.feed.set_watchers(count);
        self.refresh_summary();
    }

    /// What the live list shows of this game (nothing until both seats are taken or
    /// once it is over); the lobby passes it on, coalesced.
    pub(super) fn refresh_summary(&self) {
        let lobby = self.deps.live.lobby();
        match &self.session {
            Some(session) if session.is_ongoing() => lobby.game_changed(LiveGame {
                id: self.record.id.clone(),
                kind: self.record.kind,
                players: view::players(&self.record, &self.ratings),
                board: BoardView::of(session.game()),
                time_control: self.record.time_control.clone(),
                rated: self.record.rated,
                watchers: self.audience.watchers(),
                created_at: self.record.created_at,
            }),
            _ => lobby.game_removed(&self.record.id),
        }
    }
}
