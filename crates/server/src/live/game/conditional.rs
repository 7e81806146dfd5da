//! Each player's conditional moves in a correspondence game: entering them (checked
//! against the game), and following them after each change — the answer a line gives to
//! the reply just played, and the lines a change made stale. Functions of the session:
//! the owner stores the lines they return and plays the answers.

use game::Player;
use session::Session;

use crate::live::conditional::{self, Conditional, Lines};
use crate::live::messages::{Refusal, SocketError};

/// Both players' kept lines (indexed by [`Player::index`]).
#[derive(Clone, Debug, Default)]
pub(crate) struct Conditionals([Option<Conditional>; 2]);

/// One player's lines after a change: what to keep (`None`: none), and the move their
/// line answers with, if the reply it expected was played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Followed {
    /// Whose lines.
    pub(crate) player: Player,
    /// What is kept of them.
    pub(crate) kept: Option<Conditional>,
    /// The move to play for them.
    pub(crate) answer: Option<String>,
}

/// Whether `session` is a correspondence game.
pub(crate) fn is_correspondence(session: &Session) -> bool {
    matches!(
        session.clocks().control(),
        session::TimeControl::Correspondence { .. }
    )
}

impl Conditionals {
    /// `player`'s lines, as the game writes them.
    pub(crate) fn lines(&self, player: Player) -> Lines {
        self.0[player.index()]
            .as_ref()
            .map(|c| c.lines.clone())
            .unwrap_or_default()
    }

    /// Keeps `kept` as `player`'s lines (stored already).
    pub(crate) fn set(&mut self, player: Player, kept: Option<Conditional>) {
        self.0[player.index()] = kept;
    }

    /// What `player` may keep of `lines` in `session`: the lines as the game writes
    /// them, at the present ply (`None`: no lines).
    ///
    /// # Errors
    /// The game is not a correspondence game going on with the opponent to move, or a
    /// line does not play.
    pub(crate) fn check(
        session: Option<&Session>,
        player: Player,
        lines: Lines,
    ) -> Result<Option<Conditional>, Refusal> {
        let Some(session) = session.filter(|s| s.is_ongoing()) else {
            return Err(Refusal::new(
                SocketError::GameOver,
                "the game is not going on",
            ));
        };
        if !is_correspondence(session) {
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
        Ok((!lines.is_empty()).then_some(Conditional { ply, lines }))
    }

    /// After a change to `session`: for each player whose lines the change touched,
    /// what to keep and the answer to play (a reply their line expected was played), or
    /// nothing kept (another reply, a takeback to before the lines, the end).
    pub(crate) fn follow(&self, session: &Session) -> Vec<Followed> {
        let moves = session.moves().len();
        let over = !session.is_ongoing();
        let mut changed = Vec::new();
        for player in Player::BOTH {
            let Some(kept) = &self.0[player.index()] else {
                continue;
            };
            let entered = kept.ply as usize;
            let next = if over || moves < entered {
                None
            } else if moves == entered {
                continue;
            } else if moves == entered + 1 && session.moves()[entered].player == player.other() {
                conditional::after_reply(&kept.lines, &session.moves()[entered].info.text)
            } else {
                None
            };
            let (answer, kept) = match next {
                Some((text, rest)) => (
                    Some(text),
                    (!rest.is_empty()).then(|| Conditional {
                        ply: u32::try_from(moves + 1).unwrap_or(u32::MAX),
                        lines: rest,
                    }),
                ),
                None => (None, None),
            };
            changed.push(Followed {
                player,
                kept,
                answer,
            });
        }
        changed
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture::{game, session_of, user};
    use super::*;
    use game::GameKind;
    use session::Timestamp;

    fn line(moves: &[&str]) -> Lines {
        serde_json::from_value(serde_json::json!([moves])).unwrap()
    }

    fn two_legal(session: &Session) -> (String, String) {
        let legal = session.legal_moves();
        (legal[0].text.clone(), legal[1].text.clone())
    }

    #[test]
    fn lines_are_for_correspondence_and_the_waiting_player() {
        let live = game(GameKind::Copenhagen, user("a"), user("b"), "5+3");
        let session = session_of(&live);
        let refused = Conditionals::check(Some(&session), Player::Second, Lines::default());
        assert_eq!(
            refused.unwrap_err().reason,
            Some("conditional_correspondence_only")
        );
        let mail = game(GameKind::Copenhagen, user("a"), user("b"), "3d");
        let session = session_of(&mail);
        let mine = Conditionals::check(Some(&session), Player::First, Lines::default());
        assert_eq!(mine.unwrap_err().reason, Some("conditional_on_your_move"));
        let nonsense = Conditionals::check(Some(&session), Player::Second, line(&["z9-z1"]));
        assert_eq!(nonsense.unwrap_err().code, SocketError::BadMessage);
        assert_eq!(
            Conditionals::check(None, Player::Second, Lines::default())
                .unwrap_err()
                .code,
            SocketError::GameOver
        );
    }

    #[test]
    fn a_line_answers_the_reply_it_expected_and_goes_on_another() {
        let mail = game(GameKind::Copenhagen, user("a"), user("b"), "3d");
        let mut session = session_of(&mail);
        let (expected, other) = two_legal(&session);
        // The second player's line: if the first plays `expected`, answer with the
        // second player's first legal move after it.
        let mut after = session.clone();
        after
            .play(Player::First, &expected, Timestamp::now())
            .unwrap();
        let answer = after.legal_moves()[0].text.clone();
        let kept = Conditionals::check(
            Some(&session),
            Player::Second,
            line(&[expected.as_str(), answer.as_str()]),
        )
        .unwrap()
        .expect("a line kept");
        let mut lines = Conditionals::default();
        lines.set(Player::Second, Some(kept));
        assert!(lines.follow(&session).is_empty(), "nothing played yet");
        let mut elsewhere = session.clone();
        elsewhere
            .play(Player::First, &other, Timestamp::now())
            .unwrap();
        assert_eq!(
            lines.follow(&elsewhere),
            vec![Followed {
                player: Player::Second,
                kept: None,
                answer: None
            }],
            "another reply: the lines go"
        );
        session
            .play(Player::First, &expected, Timestamp::now())
            .unwrap();
        assert_eq!(
            lines.follow(&session),
            vec![Followed {
                player: Player::Second,
                kept: None,
                answer: Some(answer)
            }]
        );
    }
}
