//! Ratings of several players from the matches they played against each other, on one
//! Elo scale fixed by an anchor: the maximum-likelihood fit of the logistic model
//! (`P(a beats b) = 1 / (1 + 10^((Rb − Ra) / 400))`, a draw half a win each), as
//! bayeselo and ordo fit engine lists.
//!
//! A player who won every game of its match would be infinitely stronger by that
//! likelihood alone, so each match also counts one drawn game of prior (bayeselo's
//! "virtual draws"): a 20–0 result reads as about +670, not infinity, and the ratings
//! stay finite and ordered. The 95% intervals come from the fit's curvature (the inverse
//! of the Fisher information with the anchor held fixed), so a player far from the
//! anchor along a chain of matches carries the uncertainty of every link.
//!
//! ```
//! use arena::ladder::{Match, fit};
//! use arena::Tally;
//!
//! // Player 1 scores 75% against player 0 (the anchor, rated 1000).
//! let matches = [Match { a: 1, b: 0, tally: Tally { wins: 15, draws: 0, losses: 5 } }];
//! let ratings = fit(2, &matches, 0, 1000.0).unwrap();
//! assert_eq!(ratings[0].rating, 1000.0);
//! assert!((ratings[1].rating - 1000.0 - 182.0).abs() < 5.0, "{:?}", ratings[1]);
//! # Ok::<(), arena::ladder::FitError>(())
//! ```

use std::f64::consts::LN_10;

use crate::stats::Tally;

/// One match: player `a` against player `b`, the tally from `a`'s point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Match {
    /// The first player's index.
    pub a: usize,
    /// The second player's index.
    pub b: usize,
    /// Wins, draws and losses of `a`.
    pub tally: Tally,
}

/// A player's fitted rating.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    /// The rating on the anchor's scale.
    pub rating: f64,
    /// Half the width of its 95% interval (0 for the anchor).
    pub margin: f64,
}

/// Why no ratings could be fitted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FitError {
    /// A match names a player past the list, or a player against itself.
    #[error("match {0} names a player that is not in the list, or the same player twice")]
    BadMatch(usize),
    /// The anchor is not one of the players.
    #[error("the anchor is not one of the players")]
    BadAnchor,
    /// Some player is not linked to the anchor by matches with games in them.
    #[error("player {0} is not linked to the anchor by any chain of matches")]
    Unlinked(usize),
}

/// Drawn games of prior added to every match.
pub const PRIOR_DRAWS: f64 = 1.0;

/// Elo per natural-log unit of odds.
const SCALE: f64 = 400.0 / LN_10;

/// Fits the ratings of `players` players from `matches`, with player `anchor` held at
/// `anchor_rating`.
///
/// # Errors
/// [`FitError`] when a match names an unknown player, or a player is not linked to the
/// anchor.
pub fn fit(
    players: usize,
    matches: &[Match],
    anchor: usize,
    anchor_rating: f64,
) -> Result<Vec<Rating>, FitError> {
    if anchor >= players {
        return Err(FitError::BadAnchor);
    }
    // Points and games of every pair, the prior included.
    let mut pairs: Vec<(usize, usize, f64, f64)> = Vec::new();
    for (i, m) in matches.iter().enumerate() {
        if m.a >= players || m.b >= players || m.a == m.b {
            return Err(FitError::BadMatch(i));
        }
        if m.tally.games() == 0 {
            continue;
        }
        let games = f64::from(m.tally.games()) + PRIOR_DRAWS;
        let points = m.tally.points() + PRIOR_DRAWS / 2.0;
        pairs.push((m.a, m.b, points, games));
    }
    linked(players, &pairs, anchor)?;
    // Newton's method on the log-likelihood, the anchor fixed at 0.
    let mut r = vec![0.0_f64; players];
    for _ in 0..200 {
        let (gradient, information) = derivatives(players, &pairs, &r);
        let free: Vec<usize> = (0..players).filter(|&i| i != anchor).collect();
        let h: Vec<Vec<f64>> = free
            .iter()
            .map(|&i| free.iter().map(|&j| information[i][j]).collect())
            .collect();
        let g: Vec<f64> = free.iter().map(|&i| gradient[i]).collect();
        let Some(step) = solve(h, g) else { break };
        let mut largest = 0.0_f64;
        for (k, &i) in free.iter().enumerate() {
            // Steps are bounded so that a far start cannot overshoot.
            let s = step[k].clamp(-2.0, 2.0);
            r[i] += s;
            largest = largest.max(s.abs());
        }
        if largest < 1e-10 {
            break;
        }
    }
    let (_, information) = derivatives(players, &pairs, &r);
    let free: Vec<usize> = (0..players).filter(|&i| i != anchor).collect();
    let mut margins = vec![0.0; players];
    for (k, &i) in free.iter().enumerate() {
        let mut unit = vec![0.0; free.len()];
        unit[k] = 1.0;
        let h: Vec<Vec<f64>> = free
            .iter()
            .map(|&a| free.iter().map(|&b| information[a][b]).collect())
            .collect();
        if let Some(column) = solve(h, unit) {
            margins[i] = 1.959_964 * column[k].max(0.0).sqrt() * SCALE;
        }
    }
    Ok((0..players)
        .map(|i| Rating {
            rating: anchor_rating + r[i] * SCALE,
            margin: margins[i],
        })
        .collect())
}

/// Every player reaches the anchor through pairs with games.
fn linked(
    players: usize,
    pairs: &[(usize, usize, f64, f64)],
    anchor: usize,
) -> Result<(), FitError> {
    let mut reached = vec![false; players];
    reached[anchor] = true;
    let mut grew = true;
    while grew {
        grew = false;
        for &(a, b, _, _) in pairs {
            if reached[a] != reached[b] {
                reached[a] = true;
                reached[b] = true;
                grew = true;
            }
        }
    }
    match reached.iter().position(|&r| !r) {
        Some(i) => Err(FitError::Unlinked(i)),
        None => Ok(()),
    }
}

/// The log-likelihood's gradient and its negated Hessian (the information), with
/// ratings in natural-log units.
fn derivatives(
    players: usize,
    pairs: &[(usize, usize, f64, f64)],
    r: &[f64],
) -> (Vec<f64>, Vec<Vec<f64>>) {
    let mut gradient = vec![0.0; players];
    let mut information = vec![vec![0.0; players]; players];
    for &(a, b, points, games) in pairs {
        let expected = 1.0 / (1.0 + (r[b] - r[a]).exp());
        let residual = points - games * expected;
        gradient[a] += residual;
        gradient[b] -= residual;
        let w = games * expected * (1.0 - expected);
        information[a][a] += w;
        information[b][b] += w;
        information[a][b] -= w;
        information[b][a] -= w;
    }
    (gradient, information)
}

/// Solves `m x = v` by Gaussian elimination with partial pivoting (`None` if singular).
fn solve(mut m: Vec<Vec<f64>>, mut v: Vec<f64>) -> Option<Vec<f64>> {
    let n = v.len();
    for col in 0..n {
        let pivot = (col..n).max_by(|&x, &y| m[x][col].abs().total_cmp(&m[y][col].abs()))?;
        if m[pivot][col].abs() < 1e-12 {
            return None;
        }
        m.swap(col, pivot);
        v.swap(col, pivot);
        for row in col + 1..n {
            let factor = m[row][col] / m[col][col];
            let (above, below) = m.split_at_mut(row);
            for (x, p) in below[0][col..].iter_mut().zip(&above[col][col..]) {
                *x -= factor * p;
            }
            v[row] -= factor * v[col];
        }
    }
    let mut x = vec![0.0; n];
    for row in (0..n).rev() {
        let sum: f64 = (row + 1..n).map(|k| m[row][k] * x[k]).sum();
        x[row] = (v[row] - sum) / m[row][row];
    }
    Some(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally(wins: u32, draws: u32, losses: u32) -> Tally {
        Tally {
            wins,
            draws,
            losses,
        }
    }

    #[test]
    fn one_match_gives_the_score_s_elo_with_the_prior_draw() {
        // 15-5 with one virtual draw: 15.5 of 21 points.
        let m = [Match {
            a: 1,
            b: 0,
            tally: tally(15, 0, 5),
        }];
        let r = fit(2, &m, 0, 1000.0).unwrap();
        let expected = crate::stats::elo_of(15.5 / 21.0);
        assert!((r[1].rating - 1000.0 - expected).abs() < 1e-6, "{r:?}");
        assert_eq!(r[0].margin, 0.0);
        // The interval is the usual one for 21 games at that score.
        let s: f64 = 15.5 / 21.0;
        let se = (s * (1.0 - s) / 21.0).sqrt();
        let slope = SCALE / (s * (1.0 - s));
        assert!((r[1].margin - 1.959_964 * se * slope).abs() < 0.5, "{r:?}");
    }

    #[test]
    fn a_chain_adds_up_and_its_uncertainty_grows() {
        let m = [
            Match {
                a: 1,
                b: 0,
                tally: tally(14, 2, 4),
            },
            Match {
                a: 2,
                b: 1,
                tally: tally(14, 2, 4),
            },
            Match {
                a: 3,
                b: 2,
                tally: tally(20, 0, 0),
            },
        ];
        let r = fit(4, &m, 0, 0.0).unwrap();
        let step = crate::stats::elo_of(15.5 / 21.0);
        assert!((r[1].rating - step).abs() < 1e-6);
        assert!((r[2].rating - 2.0 * step).abs() < 1e-6);
        // A perfect score is finite and large.
        let perfect = r[3].rating - r[2].rating;
        assert!(perfect.is_finite() && perfect > 500.0, "{r:?}");
        assert!(r[1].margin < r[2].margin && r[2].margin < r[3].margin);
    }

    #[test]
    fn the_anchor_may_be_anywhere_and_any_match_order_gives_the_same_fit() {
        let m = [
            Match {
                a: 0,
                b: 1,
                tally: tally(3, 4, 13),
            },
            Match {
                a: 2,
                b: 1,
                tally: tally(12, 3, 5),
            },
            Match {
                a: 0,
                b: 2,
                tally: tally(1, 1, 18),
            },
        ];
        let by_zero = fit(3, &m, 0, 1000.0).unwrap();
        let reversed: Vec<Match> = m.iter().rev().copied().collect();
        let by_one = fit(3, &reversed, 1, by_zero[1].rating).unwrap();
        for (x, y) in by_zero.iter().zip(&by_one) {
            assert!((x.rating - y.rating).abs() < 1e-6, "{by_zero:?} {by_one:?}");
        }
        assert!(by_zero[0].rating < by_zero[1].rating && by_zero[1].rating < by_zero[2].rating);
    }

    #[test]
    fn bad_input_is_refused() {
        let good = Match {
            a: 1,
            b: 0,
            tally: tally(1, 0, 0),
        };
        assert_eq!(fit(2, &[good], 2, 0.0), Err(FitError::BadAnchor));
        let same = Match { a: 1, b: 1, ..good };
        assert_eq!(fit(2, &[same], 0, 0.0), Err(FitError::BadMatch(0)));
        let far = Match { a: 5, ..good };
        assert_eq!(fit(2, &[far], 0, 0.0), Err(FitError::BadMatch(0)));
        assert_eq!(fit(3, &[good], 0, 0.0), Err(FitError::Unlinked(2)));
        let empty = Match {
            tally: Tally::default(),
            ..good
        };
        assert_eq!(fit(2, &[empty], 0, 0.0), Err(FitError::Unlinked(1)));
    }
}
