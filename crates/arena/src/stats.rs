//! Match statistics: score, Elo difference and its 95% interval (as cutechess-cli
//! reports them).

use std::fmt;

/// Wins, draws and losses from the first engine's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Games the first engine won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games the first engine lost.
    pub losses: u32,
}

impl Tally {
    /// Games counted.
    #[must_use]
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Counts one game that gave the first engine `points` (1, ½ or 0).
    pub fn count(&mut self, points: f64) {
        if points > 0.75 {
            self.wins += 1;
        } else if points < 0.25 {
            self.losses += 1;
        } else {
            self.draws += 1;
        }
    }

    /// Points for the first engine (a draw is half a point).
    #[must_use]
    pub fn points(&self) -> f64 {
        f64::from(self.wins) + f64::from(self.draws) / 2.0
    }

    /// The first engine's score, 0..=1 (`None` before any game).
    #[must_use]
    pub fn score(&self) -> Option<f64> {
        (self.games() > 0).then(|| self.points() / f64::from(self.games()))
    }

    /// The Elo difference the score implies and its 95% confidence interval
    /// `(elo, low, high)`, from the per-game score variance. Infinite at a 0% or 100%
    /// score.
    #[must_use]
    pub fn elo(&self) -> Option<(f64, f64, f64)> {
        let n = f64::from(self.games());
        let s = self.score()?;
        let variance = (f64::from(self.wins) * (1.0 - s).powi(2)
            + f64::from(self.draws) * (0.5 - s).powi(2)
            + f64::from(self.losses) * s.powi(2))
            / n;
        let margin = 1.959_964 * (variance / n).sqrt();
        Some((elo_of(s), elo_of(s - margin), elo_of(s + margin)))
    }
}

/// The Elo difference for an expected score `s`.
#[must_use]
pub fn elo_of(s: f64) -> f64 {
    if s <= 0.0 {
        f64::NEG_INFINITY
    } else if s >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / s - 1.0).log10()
    }
}

fn elo_text(e: f64) -> String {
    if e.is_infinite() {
        if e > 0.0 {
            "+inf".into()
        } else {
            "-inf".into()
        }
    } else {
        format!("{e:+.0}")
    }
}

impl fmt::Display for Tally {
    /// `W - L - D  [score]  N games, Elo +X (95%: lo..hi)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} - {} - {}", self.wins, self.losses, self.draws)?;
        if let (Some(score), Some((elo, low, high))) = (self.score(), self.elo()) {
            write!(
                f,
                "  [{:.1}%]  {} games, Elo {} (95%: {} .. {})",
                score * 100.0,
                self.games(),
                elo_text(elo),
                elo_text(low),
                elo_text(high)
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_files_a_game_by_its_points() {
        let mut t = Tally::default();
        for points in [1.0, 0.5, 0.0, 1.0] {
            t.count(points);
        }
        assert_eq!(
            t,
            Tally {
                wins: 2,
                draws: 1,
                losses: 1
            }
        );
    }

    #[test]
    fn an_even_score_is_zero_elo() {
        let t = Tally {
            wins: 10,
            draws: 0,
            losses: 10,
        };
        let (elo, low, high) = t.elo().unwrap();
        assert!(elo.abs() < 1e-9);
        assert!(low < 0.0 && high > 0.0);
        assert!((low + high).abs() < 1e-6, "symmetric");
    }

    #[test]
    fn three_quarters_is_about_191_elo() {
        let t = Tally {
            wins: 30,
            draws: 0,
            losses: 10,
        };
        let (elo, low, high) = t.elo().unwrap();
        assert!((elo - 190.85).abs() < 0.1, "{elo}");
        assert!(low < elo && elo < high);
    }

    #[test]
    fn a_perfect_score_is_infinite_but_printable() {
        let t = Tally {
            wins: 5,
            draws: 0,
            losses: 0,
        };
        assert!(t.elo().unwrap().0.is_infinite());
        assert!(t.to_string().contains("+inf"));
        assert!(Tally::default().elo().is_none());
    }

    #[test]
    fn more_games_narrow_the_interval() {
        let small = Tally {
            wins: 6,
            draws: 2,
            losses: 2,
        };
        let large = Tally {
            wins: 60,
            draws: 20,
            losses: 20,
        };
        let (_, l1, h1) = small.elo().unwrap();
        let (_, l2, h2) = large.elo().unwrap();
        assert!(h2 - l2 < h1 - l1);
    }
}
