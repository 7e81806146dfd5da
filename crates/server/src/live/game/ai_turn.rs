//! The AI's turn: when the AI is to move, what its search is asked for, and its answer
//! to a draw offered to it. Functions of the game: the owner sends the request to the
//! AI pool and stores the answer.

use std::time::Duration;

use session::{Session, Timestamp};

use crate::live::ai;
use crate::store::GameRecord;

/// What the AI's search is asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Turn {
    /// The AI's level (1-6).
    pub(crate) level: u8,
    /// The revision it thinks on.
    pub(crate) rev: u64,
    /// Both players' time left and the increment, for Fischer games.
    pub(crate) clock: Option<([Duration; 2], Duration)>,
}

/// The AI's turn in `session`, if it is the AI's move and its search for this revision
/// (`pending`) has not been asked for yet.
pub(crate) fn turn(record: &GameRecord, session: &Session, pending: Option<u64>) -> Option<Turn> {
    if !session.is_ongoing() {
        return None;
    }
    let level = record.seat(session.to_move()).ai_level?;
    let rev = session.revision();
    if pending == Some(rev) {
        return None;
    }
    let control = session.options().control;
    let clock = matches!(control, session::TimeControl::Fischer { .. })
        .then(|| session.clocks().both(Timestamp::now()))
        .flatten()
        .map(|both| (both, control.increment()));
    Some(Turn { level, rev, clock })
}

/// The session after the AI answers the draw offered to it at `now` (by
/// [`ai::accepts_draw`], with `score` its evaluation from its last search); `None` when
/// no draw is offered to the AI.
pub(crate) fn answer_draw(
    record: &GameRecord,
    session: &Session,
    score: Option<engine::Score>,
    now: Timestamp,
) -> Option<Session> {
    let ai = session.draw_offer().map(game::Player::other)?;
    record.seat(ai).ai_level?;
    let mut next = session.clone();
    let answered = if ai::accepts_draw(session.game(), ai, score) {
        next.accept_draw(ai, now).map(drop)
    } else {
        next.decline_draw(ai, now)
    };
    answered.ok().map(|()| next)
}

#[cfg(test)]
mod tests {
    use super::super::fixture::{ai, game, session_of, user};
    use super::*;
    use game::{GameKind, Player};
    use session::Status;

    #[test]
    fn the_ai_is_asked_once_per_revision_and_only_on_its_move() {
        let record = game(GameKind::Copenhagen, ai(3), user("a"), "5+3");
        let mut session = session_of(&record);
        let turn = turn(&record, &session, None).expect("the AI moves first");
        assert_eq!(turn.level, 3);
        assert!(turn.clock.is_some(), "a Fischer game's clocks go with it");
        assert!(super::turn(&record, &session, Some(turn.rev)).is_none());
        let text = session.legal_moves()[0].text.clone();
        session
            .play(Player::First, &text, Timestamp::now())
            .unwrap();
        assert!(super::turn(&record, &session, Some(turn.rev)).is_none());
        let untimed = game(GameKind::Camelot, user("a"), ai(1), "untimed");
        let mut session = session_of(&untimed);
        let text = session.legal_moves()[0].text.clone();
        session
            .play(Player::First, &text, Timestamp::now())
            .unwrap();
        assert_eq!(super::turn(&untimed, &session, None).unwrap().clock, None);
    }

    #[test]
    fn the_ai_declines_a_draw_it_can_still_win_and_only_its_own() {
        let record = game(GameKind::Copenhagen, user("a"), ai(6), "untimed");
        let mut session = session_of(&record);
        let now = Timestamp::now();
        assert!(
            answer_draw(&record, &session, None, now).is_none(),
            "none offered"
        );
        let text = session.legal_moves()[0].text.clone();
        session.play(Player::First, &text, now).unwrap();
        session.offer_draw(Player::First, now).unwrap();
        let answered = answer_draw(&record, &session, None, now).expect("an answer");
        assert_eq!(answered.draw_offer(), None, "declined");
        assert!(matches!(answered.status(), Status::Ongoing));
        let people = game(GameKind::Copenhagen, user("a"), user("b"), "untimed");
        assert!(answer_draw(&people, &session, None, now).is_none());
    }
}
