//! A player's act on the board: what it does to the session, or why it is refused. A
//! function of the game: the owner hands it a copy of the session and stores what comes
//! back (or puts the copy back with [`Backup`] when the store refuses it).

use game::Player;
use session::{Session, Timestamp};

use crate::live::lifecycle::{self, Presence};
use crate::live::messages::{Act, Refusal, SocketError};
use crate::store::GameRecord;

/// Applies `act` of `player` to `next` at `now`. A refused act may still have changed
/// the session (the clock is checked first, and may have ended the game on time): the
/// caller stores any change of revision, refused or not.
///
/// # Errors
/// The refusal, in the session's words or the server's (a stale move, a claim too
/// early, a takeback after the end).
pub(crate) fn apply(
    next: &mut Session,
    record: &GameRecord,
    presence: &Presence,
    player: Player,
    act: Act,
    now: Timestamp,
) -> Result<(), Refusal> {
    let before = next.revision();
    match act {
        Act::Move { rev, .. } if rev.is_some_and(|rev| rev != before) => Err(Refusal::new(
            SocketError::Stale,
            "the game has changed since that move was chosen",
        )),
        Act::Move { text, .. } => next
            .play(player, &text, now)
            .map(drop)
            .map_err(Refusal::from),
        Act::Resign => next.resign(player, now).map(drop).map_err(Refusal::from),
        Act::DrawOffer => next
            .offer_draw(player, now)
            .map(drop)
            .map_err(Refusal::from),
        Act::DrawAccept => next
            .accept_draw(player, now)
            .map(drop)
            .map_err(Refusal::from),
        Act::DrawDecline => next.decline_draw(player, now).map_err(Refusal::from),
        // A finished game is stored as finished (the session would let a move be taken
        // back from the AI after the end): over is over.
        Act::Takeback if !next.is_ongoing() => {
            Err(Refusal::new(SocketError::GameOver, "the game is over"))
        }
        Act::Takeback => next
            .request_takeback(player, now)
            .map(drop)
            .map_err(Refusal::from),
        Act::TakebackAccept => next
            .accept_takeback(player, now)
            .map(drop)
            .map_err(Refusal::from),
        Act::TakebackDecline => next.decline_takeback(player, now).map_err(Refusal::from),
        Act::GiveTime => next.give_time(player, now).map(drop).map_err(Refusal::from),
        Act::Abort => next.abort(player, now).map_err(Refusal::from),
        Act::ClaimVictory => claim(record, presence, player, false, next, now),
        Act::ClaimDraw => claim(record, presence, player, true, next, now),
        // Not an act on the board: the seats' business (see `seats`).
        Act::Rematch => Err(Refusal::new(
            SocketError::BadMessage,
            "not a move on the board",
        )),
    }
}

/// `player` claims the game (a win, or `draw`) against an opponent who left: only once
/// the opponent has been gone for the claim's wait.
fn claim(
    record: &GameRecord,
    presence: &Presence,
    player: Player,
    draw: bool,
    next: &mut Session,
    now: Timestamp,
) -> Result<(), Refusal> {
    let gone = player.other();
    match lifecycle::claim_at(presence, record, next, gone) {
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

/// What puts a session back when a change to it cannot be stored.
pub(crate) enum Backup {
    /// A mark: the change only adds to the game.
    Mark(session::Checkpoint),
    /// A copy: the change may take moves back.
    Copy(Box<Session>),
}

impl Backup {
    /// What puts `session` back after `act`: a mark (a few numbers) for the acts that
    /// add to the game, a copy for those that take moves back.
    pub(crate) fn before(act: &Act, session: &Session) -> Backup {
        match act {
            Act::Takeback | Act::TakebackAccept => Backup::Copy(Box::new(session.clone())),
            _ => Backup::Mark(session.checkpoint()),
        }
    }

    /// The session as it was before the change made to `changed`.
    pub(crate) fn restore(self, mut changed: Session) -> Session {
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

#[cfg(test)]
mod tests {
    use super::super::fixture::{ai, game, guest, session_of, user};
    use super::*;
    use game::GameKind;

    fn play(
        session: &mut Session,
        record: &GameRecord,
        player: Player,
        act: Act,
    ) -> Result<(), Refusal> {
        let presence = Presence::new(Timestamp::now());
        apply(session, record, &presence, player, act, Timestamp::now())
    }

    fn first_move(session: &Session) -> String {
        session.legal_moves()[0].text.clone()
    }

    /// The first player plays their first legal move.
    fn move_first(session: &mut Session, record: &GameRecord) {
        let text = first_move(session);
        let act = Act::Move { rev: None, text };
        play(session, record, Player::First, act).unwrap();
    }

    #[test]
    fn a_move_is_played_and_a_stale_one_refused() {
        let record = game(GameKind::Copenhagen, user("a"), user("b"), "5+3");
        let mut session = session_of(&record);
        let rev = session.revision();
        let text = first_move(&session);
        let stale = Act::Move {
            rev: Some(rev + 5),
            text: text.clone(),
        };
        let refused = play(&mut session, &record, Player::First, stale).unwrap_err();
        assert_eq!(refused.code, SocketError::Stale);
        assert_eq!(session.revision(), rev, "a refused move changes nothing");
        let played = Act::Move {
            rev: Some(rev),
            text,
        };
        play(&mut session, &record, Player::First, played).unwrap();
        assert_eq!(session.moves().len(), 1);
        let again = Act::Move {
            rev: None,
            text: first_move(&session),
        };
        let refused = play(&mut session, &record, Player::First, again).unwrap_err();
        assert_eq!(refused.code, SocketError::NotYourTurn);
    }

    #[test]
    fn a_takeback_between_people_is_asked_then_accepted() {
        let record = game(GameKind::Copenhagen, user("a"), guest("g"), "untimed");
        let mut session = session_of(&record);
        move_first(&mut session, &record);
        // Only the one who moved may ask; the other accepts.
        play(&mut session, &record, Player::First, Act::Takeback).unwrap();
        assert_eq!(session.takeback_request(), Some(Player::First));
        assert_eq!(session.moves().len(), 1, "asked, not taken");
        let refused = play(&mut session, &record, Player::First, Act::TakebackAccept);
        assert!(
            refused.is_err(),
            "the asker cannot accept their own request"
        );
        play(&mut session, &record, Player::Second, Act::TakebackAccept).unwrap();
        assert!(session.moves().is_empty());
    }

    #[test]
    fn a_takeback_against_the_ai_is_at_once_but_never_after_the_end() {
        let record = game(GameKind::Fetlar, user("a"), ai(3), "untimed");
        let mut session = session_of(&record);
        move_first(&mut session, &record);
        play(&mut session, &record, Player::First, Act::Takeback).unwrap();
        assert!(session.moves().is_empty(), "taken back at once");
        move_first(&mut session, &record);
        play(&mut session, &record, Player::First, Act::Resign).unwrap();
        let refused = play(&mut session, &record, Player::First, Act::Takeback).unwrap_err();
        assert_eq!(refused.code, SocketError::GameOver);
    }

    #[test]
    fn a_claim_against_a_present_opponent_is_refused() {
        let record = game(GameKind::Copenhagen, user("a"), user("b"), "5+3");
        let mut session = session_of(&record);
        for player in [Player::First, Player::Second, Player::First, Player::Second] {
            let text = first_move(&session);
            play(&mut session, &record, player, Act::Move { rev: None, text }).unwrap();
        }
        let mut presence = Presence::new(Timestamp::now());
        let mut claim = |presence: &Presence| {
            let now = Timestamp::now();
            apply(
                &mut session,
                &record,
                presence,
                Player::First,
                Act::ClaimVictory,
                now,
            )
            .unwrap_err()
            .reason
        };
        presence.change(Player::Second, 1, Timestamp::now());
        assert_eq!(claim(&presence), Some("opponent_present"));
        // Gone, but not for long enough yet.
        presence.change(Player::Second, -1, Timestamp::now());
        assert_eq!(claim(&presence), Some("opponent_may_return"));
        assert!(session.is_ongoing());
    }

    #[test]
    fn a_rematch_is_not_an_act_on_the_board() {
        let record = game(GameKind::Camelot, user("a"), user("b"), "untimed");
        let mut session = session_of(&record);
        let refused = play(&mut session, &record, Player::First, Act::Rematch).unwrap_err();
        assert_eq!(refused.code, SocketError::BadMessage);
    }

    #[test]
    fn a_backup_puts_the_session_back() {
        let record = game(GameKind::Copenhagen, user("a"), ai(2), "untimed");
        let mut session = session_of(&record);
        let rev = session.revision();
        let text = first_move(&session);
        let act = Act::Move { rev: None, text };
        let backup = Backup::before(&act, &session);
        play(&mut session, &record, Player::First, act).unwrap();
        let session = backup.restore(session);
        assert_eq!(session.revision(), rev);
        assert!(session.moves().is_empty());
        // A takeback is undone from a copy.
        let mut session = session;
        move_first(&mut session, &record);
        let moved = session.revision();
        let backup = Backup::before(&Act::Takeback, &session);
        play(&mut session, &record, Player::First, Act::Takeback).unwrap();
        assert_eq!(backup.restore(session).revision(), moved);
    }
}
