//! How a review judges a move: what it lost, from the mover's side, in the engine's
//! units.

use engine::Score;
use game::Player;

/// A move that loses this much (in the engine's units, from the mover's side) is a
/// mistake; three times as much, a blunder.
const MISTAKE: i32 = 100;
const BLUNDER: i32 = 300;

/// A score as a number for comparing moves (decisive scores as large ones).
fn units(score: Score) -> i32 {
    match score.plies_to_end() {
        Some(plies) if score.0 > 0 => 10_000 - plies,
        Some(plies) => -10_000 + plies,
        None => score.0,
    }
}

/// `mistake` or `blunder` for a move from a position worth `before` to its mover, after
/// which the position is worth `after` to the side then to move (the opponent); `None`
/// for a move that lost less than a mistake.
#[must_use]
pub(super) fn classify(before: Score, after: Score) -> Option<&'static str> {
    let lost = units(before) - units(after.flip());
    if lost >= BLUNDER {
        Some("blunder")
    } else if lost >= MISTAKE {
        Some("mistake")
    } else {
        None
    }
}

/// A score for the side to move (`to_move`) as the first player's.
#[must_use]
pub(super) fn for_first(score: Score, to_move: Player) -> Score {
    if to_move == Player::First {
        score
    } else {
        score.flip()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_is_judged_by_what_it_lost() {
        // Worth +50 before; the opponent stands at -40 after: nothing lost to speak of.
        assert_eq!(classify(Score(50), Score(-40)), None);
        // +50 before, the opponent at +80 after: 130 lost.
        assert_eq!(classify(Score(50), Score(80)), Some("mistake"));
        assert_eq!(classify(Score(50), Score(400)), Some("blunder"));
        // Missing a forced win is a blunder; walking into a forced loss too.
        assert_eq!(classify(Score::win_in(3), Score(0)), Some("blunder"));
        assert_eq!(classify(Score(0), Score::win_in(2)), Some("blunder"));
        // A slower win is not a mistake.
        assert_eq!(classify(Score::win_in(3), Score::loss_in(4)), None);
    }

    #[test]
    fn scores_are_shown_for_the_first_player() {
        assert_eq!(for_first(Score(30), Player::First), Score(30));
        assert_eq!(for_first(Score(30), Player::Second), Score(-30));
    }
}
