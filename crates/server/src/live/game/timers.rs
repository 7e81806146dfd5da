//! The game's timers: the flag, the first move, and the maintenance job's expiry of
//! unjoined and abandoned games. Each check is a function of the record and the session
//! at a moment, returning the session after it (to be stored) or nothing to do; a write
//! that fails is tried again after a growing wait ([`Timers`]).

use std::time::Duration;

use session::{Session, Timestamp};
use tokio::time::Instant;

use crate::live::lifecycle::{self, Retry};
use crate::live::millis;
use crate::store::{GameRecord, GameStatus, now_ms};

/// When the running clock falls.
pub(crate) fn flag_deadline(session: &Session) -> Option<Timestamp> {
    session.is_ongoing().then(|| session.clocks().deadline())?
}

/// When the game is aborted because the player to move has not made their first move:
/// never for the AI (its first move may wait for a busy pool).
pub(crate) fn first_move_deadline(record: &GameRecord, session: &Session) -> Option<Timestamp> {
    let (player, deadline) = session.first_move_deadline()?;
    record.seat(player).ai_level.is_none().then_some(deadline)
}

/// The session after its flag fell at `now`; `None` if it has not.
pub(crate) fn flag(session: &Session, now: Timestamp) -> Option<Session> {
    let mut next = session.clone();
    next.check_flag(now).map(|_| next)
}

/// The session aborted at `now` for want of a first move; `None` if not due.
pub(crate) fn first_move(session: &Session, now: Timestamp) -> Option<Session> {
    let mut next = session.clone();
    next.check_first_move(now).map(|_| next)
}

/// What the maintenance job's look at a game comes to.
#[derive(Debug)]
pub(crate) enum Expiry {
    /// Still waiting for its second player a day after it was made: call it off.
    Unjoined,
    /// Left untimed for too long: the session ended so.
    Abandoned(Box<Session>),
    /// Nothing (a player joined or moved since the job looked).
    Nothing,
}

/// Whether `record` has expired at `now` (checked here again: the job's list is older).
pub(crate) fn expiry(record: &GameRecord, session: Option<&Session>, now: Timestamp) -> Expiry {
    if record.status == GameStatus::Waiting {
        let made = Timestamp::from_millis(millis(record.created_at));
        return if now >= made + lifecycle::UNJOINED_EXPIRE_AFTER {
            Expiry::Unjoined
        } else {
            Expiry::Nothing
        };
    }
    let Some(session) = session else {
        return Expiry::Nothing;
    };
    let mut next = session.clone();
    if next.check_abandoned(now) {
        Expiry::Abandoned(Box::new(next))
    } else {
        Expiry::Nothing
    }
}

/// The timers' writes that failed, and when the next try is due.
#[derive(Default)]
pub(crate) struct Timers {
    retry: Retry,
    retry_at: Option<Instant>,
}

impl Timers {
    /// `deadline` as a tokio instant, not before a failed write's retry is due.
    pub(crate) fn at(&self, deadline: Timestamp) -> Instant {
        let now = millis(now_ms());
        let left = Duration::from_millis(deadline.as_millis().saturating_sub(now) + 1);
        let at = Instant::now() + left;
        self.retry_at.map_or(at, |retry| at.max(retry))
    }

    /// A timer's write succeeded (`true`) or failed: after a failure the next try waits
    /// (the deadline has passed, so without it the loop would try again at once,
    /// forever). Returns that wait.
    pub(crate) fn written(&mut self, ok: bool) -> Option<Duration> {
        if ok {
            self.retry.succeeded();
            self.retry_at = None;
            None
        } else {
            let wait = self.retry.failed();
            self.retry_at = Some(Instant::now() + wait);
            Some(wait)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture::{ai, game, session_of, user};
    use super::*;
    use game::{GameKind, Player};
    use session::Status;

    fn play_first_moves(session: &mut Session, n: usize) {
        for _ in 0..n {
            let text = session.legal_moves()[0].text.clone();
            let player = session.to_move();
            session.play(player, &text, Timestamp::now()).unwrap();
        }
    }

    #[test]
    fn the_flag_falls_only_once_the_time_is_out() {
        let record = game(GameKind::Copenhagen, user("a"), user("b"), "1+0");
        let mut session = session_of(&record);
        play_first_moves(&mut session, 2);
        let deadline = flag_deadline(&session).expect("a running clock");
        assert!(flag(&session, Timestamp::now()).is_none());
        let fallen = flag(&session, deadline + Duration::from_millis(1)).unwrap();
        assert!(matches!(fallen.status(), Status::Finished { .. }));
        assert!(session.is_ongoing(), "the session itself is untouched");
    }

    #[test]
    fn no_first_move_deadline_for_the_ai() {
        let people = game(GameKind::Fetlar, user("a"), user("b"), "5+3");
        let session = session_of(&people);
        let deadline = first_move_deadline(&people, &session).expect("a person to move");
        let aborted = first_move(&session, deadline + Duration::from_millis(1)).unwrap();
        assert!(matches!(aborted.status(), Status::Aborted { .. }));
        let machine = game(GameKind::Fetlar, ai(2), user("b"), "5+3");
        assert_eq!(session_of(&machine).to_move(), Player::First);
        assert!(first_move_deadline(&machine, &session_of(&machine)).is_none());
    }

    #[test]
    fn an_unjoined_game_expires_after_a_day() {
        let mut record = game(
            GameKind::Camelot,
            user("a"),
            crate::store::SeatRecord::default(),
            "untimed",
        );
        let made = Timestamp::from_millis(millis(record.created_at));
        assert!(matches!(expiry(&record, None, made), Expiry::Nothing));
        let later = made + lifecycle::UNJOINED_EXPIRE_AFTER;
        assert!(matches!(expiry(&record, None, later), Expiry::Unjoined));
        record.status = GameStatus::Playing;
        assert!(matches!(expiry(&record, None, later), Expiry::Nothing));
    }

    #[test]
    fn a_failed_write_waits_longer_each_time() {
        let mut timers = Timers::default();
        let first = timers.written(false).unwrap();
        let second = timers.written(false).unwrap();
        assert!(second > first);
        let now = Timestamp::from_millis(millis(now_ms()));
        assert!(timers.at(now) >= Instant::now() + first);
        assert_eq!(timers.written(true), None);
        assert!(timers.at(now) <= Instant::now() + Duration::from_millis(50));
    }
}
