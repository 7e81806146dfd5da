//! Glicko-2 ratings, one per player and game kind, computed by the `skillratings` crate.
//!
//! A new player starts at 1500 with deviation 350 and volatility 0.06 (Glickman's
//! defaults); each rated game updates both players as one rating period with one game
//! (τ = 0.5). A rating is **provisional** while its deviation is above
//! [`PROVISIONAL_DEVIATION`] (110, as lichess does): after roughly the first dozen games.

use game::Player;
use serde::Serialize;
use skillratings::Outcomes;
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, glicko2};

/// A rating is provisional while its deviation is above this.
pub const PROVISIONAL_DEVIATION: f64 = 110.0;

/// One player's Glicko-2 rating in one game.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Rating {
    /// The rating (1500 to start).
    pub rating: f64,
    /// How uncertain it is (350 to start; falls as games are played).
    pub deviation: f64,
    /// How erratic the player's results are (0.06 to start).
    pub volatility: f64,
}

impl Rating {
    /// Whether the rating is still provisional (deviation above
    /// [`PROVISIONAL_DEVIATION`]).
    #[must_use]
    pub fn is_provisional(&self) -> bool {
        self.deviation > PROVISIONAL_DEVIATION
    }
}

impl Default for Rating {
    /// A new player's rating: 1500 ± 350, volatility 0.06.
    fn default() -> Rating {
        Glicko2Rating::new().into()
    }
}

impl From<Glicko2Rating> for Rating {
    fn from(r: Glicko2Rating) -> Rating {
        Rating {
            rating: r.rating,
            deviation: r.deviation,
            volatility: r.volatility,
        }
    }
}

impl From<Rating> for Glicko2Rating {
    fn from(r: Rating) -> Glicko2Rating {
        Glicko2Rating {
            rating: r.rating,
            deviation: r.deviation,
            volatility: r.volatility,
        }
    }
}

/// Both players' ratings after a rated game between them: `winner` is `None` for a draw.
#[must_use]
pub fn rate(first: Rating, second: Rating, winner: Option<Player>) -> (Rating, Rating) {
    let outcome = match winner {
        Some(Player::First) => Outcomes::WIN,
        Some(Player::Second) => Outcomes::LOSS,
        None => Outcomes::DRAW,
    };
    let (first, second) = glicko2(
        &first.into(),
        &second.into(),
        &outcome,
        &Glicko2Config::new(),
    );
    (first.into(), second.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glicko2_winner_gains_loser_loses_symmetrically_from_equal_ratings() {
        let (first, second) = rate(Rating::default(), Rating::default(), Some(Player::First));
        assert!(first.rating > 1500.0 && second.rating < 1500.0);
        assert!((first.rating - 1500.0 - (1500.0 - second.rating)).abs() < 1e-9);
        assert!(first.deviation < 350.0 && second.deviation < 350.0);
        // Glickman's worked numbers for two new players: about ±162.
        assert!((first.rating - 1662.3).abs() < 0.5, "{first:?}");
    }

    #[test]
    fn glicko2_draw_between_equals_changes_no_rating() {
        let (first, second) = rate(Rating::default(), Rating::default(), None);
        assert!((first.rating - 1500.0).abs() < 1e-9);
        assert!((second.rating - 1500.0).abs() < 1e-9);
        assert!(first.deviation < 350.0);
    }

    #[test]
    fn glicko2_upset_moves_more_than_expected_result() {
        let strong = Rating {
            rating: 1900.0,
            deviation: 80.0,
            volatility: 0.06,
        };
        let weak = Rating {
            rating: 1500.0,
            deviation: 80.0,
            volatility: 0.06,
        };
        let (s_win, _) = rate(strong, weak, Some(Player::First));
        let (s_loss, _) = rate(strong, weak, Some(Player::Second));
        assert!(s_win.rating - strong.rating < strong.rating - s_loss.rating);
    }

    #[test]
    fn provisional_until_deviation_at_most_110() {
        assert!(Rating::default().is_provisional());
        let settled = Rating {
            rating: 1500.0,
            deviation: 110.0,
            volatility: 0.06,
        };
        assert!(!settled.is_provisional());
    }
}
