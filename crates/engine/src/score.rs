//! Search scores: centipawn-like numbers from the side to move's point of view, and won
//! or lost games counted in plies ("win in 3": the side to move wins with its own third
//! ply from now, that is its second move).

use std::fmt;

use game::{Outcome, Player};

/// A score from the point of view of the side to move at the node it belongs to.
///
/// Ordinary scores are small (an attacker in tafl is worth about 100); scores near
/// [`Score::WIN`] are forced wins, `WIN - n` meaning a win `n` plies from the root of the
/// search.
///
/// ```
/// use engine::Score;
/// assert_eq!(Score::win_in(3).to_string(), "win in 3");
/// assert_eq!(Score::loss_in(2).to_string(), "loss in 2");
/// assert_eq!(Score(-42).to_string(), "-42");
/// assert_eq!(Score::win_in(3).plies_to_end(), Some(3));
/// assert!(Score::win_in(1) > Score::win_in(3));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Score(pub i32);

/// The largest search depth in plies (root to leaf, extensions and quiescence included).
pub const MAX_PLY: usize = 128;

impl Score {
    /// A win right now (the game is over and the side to move won).
    pub const WIN: i32 = 30_000;
    /// Scores at or beyond this (in absolute value) are forced wins or losses.
    pub const WIN_BOUND: i32 = Score::WIN - 2 * MAX_PLY as i32;
    /// Above every score: the initial window bound.
    pub const INFINITE: i32 = Score::WIN + 1;
    /// A draw.
    pub const DRAW: Score = Score(0);

    /// A win for the side to move `plies` plies from now.
    #[must_use]
    pub const fn win_in(plies: u32) -> Score {
        Score(Score::WIN - plies as i32)
    }

    /// A loss for the side to move `plies` plies from now.
    #[must_use]
    pub const fn loss_in(plies: u32) -> Score {
        Score(-Score::WIN + plies as i32)
    }

    /// Whether this is a forced win or loss.
    #[must_use]
    pub const fn is_decisive(self) -> bool {
        self.0 >= Score::WIN_BOUND || self.0 <= -Score::WIN_BOUND
    }

    /// For a decisive score, the number of plies to the end of the game: positive when
    /// the side to move wins, negative when it loses.
    #[must_use]
    pub const fn plies_to_end(self) -> Option<i32> {
        if self.0 >= Score::WIN_BOUND {
            Some(Score::WIN - self.0)
        } else if self.0 <= -Score::WIN_BOUND {
            Some(-(Score::WIN + self.0))
        } else {
            None
        }
    }

    /// The score of a finished game for `to_move`, found `ply` plies from the root.
    #[must_use]
    pub fn of_outcome(outcome: Outcome, to_move: Player, ply: usize) -> Score {
        match outcome.winner {
            None => Score::DRAW,
            Some(winner) if winner == to_move => Score(Score::WIN - ply as i32),
            Some(_) => Score(-Score::WIN + ply as i32),
        }
    }

    /// The same score seen from the other side.
    #[must_use]
    pub const fn flip(self) -> Score {
        Score(-self.0)
    }
}

impl fmt::Display for Score {
    /// `win in N` / `loss in N` (plies) for decisive scores, otherwise the signed number.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.plies_to_end() {
            Some(n) if n >= 0 => write!(f, "win in {n}"),
            Some(n) => write!(f, "loss in {}", -n),
            None => write!(f, "{}", self.0),
        }
    }
}

/// Converts a score relative to the root into one relative to a node `ply` plies deep,
/// for storing in the transposition table (a win in 5 from the root found at ply 2 is a
/// win in 3 from that node).
#[must_use]
pub(crate) const fn to_tt(score: i32, ply: usize) -> i32 {
    if score >= Score::WIN_BOUND {
        score + ply as i32
    } else if score <= -Score::WIN_BOUND {
        score - ply as i32
    } else {
        score
    }
}

/// The inverse of [`to_tt`]: a stored node-relative score seen from the root.
#[must_use]
pub(crate) const fn from_tt(score: i32, ply: usize) -> i32 {
    if score >= Score::WIN_BOUND {
        score - ply as i32
    } else if score <= -Score::WIN_BOUND {
        score + ply as i32
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use game::EndReason;

    #[test]
    fn decisive_scores_round_trip_through_the_table_at_any_ply() {
        for ply in [0usize, 1, 7, 40] {
            for score in [
                Score::win_in(ply as u32 + 3).0,
                Score::loss_in(ply as u32 + 2).0,
                123,
                -77,
                0,
            ] {
                assert_eq!(from_tt(to_tt(score, ply), ply), score, "ply {ply}");
            }
        }
    }

    #[test]
    fn stored_win_is_relative_to_the_node() {
        // Found at ply 2 as "win in 5 from the root": from that node it is a win in 3.
        let stored = to_tt(Score::win_in(5).0, 2);
        assert_eq!(Score(stored), Score::win_in(3));
        // Read back at ply 4 (a transposition deeper in the tree): win in 7 from the root.
        assert_eq!(Score(from_tt(stored, 4)), Score::win_in(7));
        let lost = to_tt(Score::loss_in(6).0, 2);
        assert_eq!(Score(lost), Score::loss_in(4));
        assert_eq!(Score(from_tt(lost, 1)), Score::loss_in(5));
    }

    #[test]
    fn outcome_scores_favour_the_winner() {
        let win = Outcome::win(Player::Second, EndReason::CornerEscape);
        assert_eq!(Score::of_outcome(win, Player::Second, 3), Score::win_in(3));
        assert_eq!(Score::of_outcome(win, Player::First, 3), Score::loss_in(3));
        let draw = Outcome::draw(EndReason::Repetition);
        assert_eq!(Score::of_outcome(draw, Player::First, 9), Score::DRAW);
    }

    #[test]
    fn ordinary_scores_are_not_decisive() {
        assert!(!Score(Score::WIN_BOUND - 1).is_decisive());
        assert!(Score(Score::WIN_BOUND).is_decisive());
        assert_eq!(Score(250).plies_to_end(), None);
        assert_eq!(Score::loss_in(4).plies_to_end(), Some(-4));
    }
}
