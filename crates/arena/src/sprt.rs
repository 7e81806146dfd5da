//! The sequential probability ratio test that stops a match once it has decided, as
//! fishtest and cutechess-cli run it: `--sprt elo0=0,elo1=10,alpha=0.05,beta=0.05`.
//!
//! **The model.** The test is the generalised SPRT (GSPRT) of M. Van den Bergh
//! ("A GSPRT approximation", the method behind fishtest's `LLR_logistic`): the results
//! are an empirical distribution over a few outcomes with scores `a_i` in 0..=1; for a
//! hypothesis "the expected score is `s`" the maximum-likelihood distribution is
//! `p_i(s) = p_i / (1 + x (a_i - s))`, with `x` the root of `Σ p_i (a_i - s) / (1 + x
//! (a_i - s)) = 0`, and the log-likelihood ratio is `LLR = N Σ p_i ln(p_i(s1) / p_i(s0))`.
//! `s0` and `s1` are the expected scores of `elo0` and `elo1` on the logistic Elo scale
//! (`s = 1 / (1 + 10^(-elo/400))`, the scale of [`crate::stats::elo_of`]).
//!
//! - [`Model::Pentanomial`] (the default, as fishtest): the outcomes are game *pairs*,
//!   the same opening played once from each side (games `2k` and `2k+1` of a match),
//!   scored 0, ¼, ½, ¾ or 1 for A's 0..=2 points; `N` counts pairs. Pairs cancel most of
//!   the advantage of a side or an opening, so this model needs fewer games. A pair
//!   counts once both of its games are scored.
//! - [`Model::Trinomial`]: each game on its own (loss, draw, win: 0, ½, 1); `N` counts
//!   games.
//!
//! Outcomes never seen count as 10⁻³ of one (fishtest's regularisation), so the test
//! is defined from the first result. The test accepts H1 (A is `elo1` better) once the
//! LLR reaches `ln((1 - β) / α)` and H0 (A is `elo0`) once it falls to `ln(β / (1 - α))`.
//!
//! ```
//! use arena::sprt::{Decision, Model, Sprt};
//!
//! let sprt: Sprt = "elo0=0,elo1=10,alpha=0.05,beta=0.05".parse()?;
//! assert_eq!(sprt.model, Model::Pentanomial);
//! let (lower, upper) = sprt.bounds();
//! assert!((upper - 2.944).abs() < 1e-3 && (lower + 2.944).abs() < 1e-3);
//! // 100 pairs: 10 lost both, 20 ½, 30 1, 25 1½, 15 won both.
//! let llr = sprt.llr(&[10, 20, 30, 25, 15]);
//! assert!(llr > 0.0);
//! assert_eq!(sprt.decide(llr), Decision::Continue);
//! # Ok::<(), arena::sprt::ParseSprtError>(())
//! ```

use std::fmt;
use std::str::FromStr;

use crate::stats::elo_of;

/// How results are counted for the test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Model {
    /// Each game: loss, draw, win.
    Trinomial,
    /// Each pair of games with one opening, one from each side: 0, ½, 1, 1½ or 2 points.
    Pentanomial,
}

impl Model {
    /// The model's name, as `model=` reads it.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Model::Trinomial => "trinomial",
            Model::Pentanomial => "pentanomial",
        }
    }

    /// The score (0..=1) of each outcome, in the order counts are given.
    #[must_use]
    pub fn scores(self) -> &'static [f64] {
        match self {
            Model::Trinomial => &[0.0, 0.5, 1.0],
            Model::Pentanomial => &[0.0, 0.25, 0.5, 0.75, 1.0],
        }
    }
}

/// What the test says so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Neither bound reached: play on.
    Continue,
    /// The upper bound was reached: A is better by `elo1` (the change is accepted).
    AcceptH1,
    /// The lower bound was reached: A is no better than `elo0` (the change is rejected).
    AcceptH0,
}

impl Decision {
    /// `continue`, `H1 accepted` or `H0 accepted (rejected)` style words.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Continue => "continue",
            Decision::AcceptH1 => "H1 accepted",
            Decision::AcceptH0 => "H0 accepted",
        }
    }
}

/// The test's settings. Parse it from `elo0=0,elo1=10,alpha=0.05,beta=0.05` with an
/// optional `model=trinomial|pentanomial`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// The Elo difference of the null hypothesis.
    pub elo0: f64,
    /// The Elo difference of the alternative (greater than `elo0`).
    pub elo1: f64,
    /// The chance of accepting H1 when H0 holds.
    pub alpha: f64,
    /// The chance of accepting H0 when H1 holds.
    pub beta: f64,
    /// How results are counted.
    pub model: Model,
}

/// Why an `--sprt` setting cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "--sprt {text:?}: {reason} (expected elo0=0,elo1=10,alpha=0.05,beta=0.05[,model=pentanomial|trinomial])"
)]
pub struct ParseSprtError {
    /// The setting as given.
    pub text: String,
    /// What is wrong with it.
    pub reason: String,
}

impl FromStr for Sprt {
    type Err = ParseSprtError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let fail = |reason: String| ParseSprtError {
            text: text.to_owned(),
            reason,
        };
        let mut values: [Option<f64>; 4] = [None; 4];
        let mut model = None;
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (key, value) = part
                .split_once('=')
                .ok_or_else(|| fail(format!("{part:?} is not key=value")))?;
            let (key, value) = (key.trim(), value.trim());
            if key == "model" {
                model = Some(match value {
                    "pentanomial" => Model::Pentanomial,
                    "trinomial" => Model::Trinomial,
                    _ => return Err(fail(format!("unknown model {value:?}"))),
                });
                continue;
            }
            let slot = match key {
                "elo0" => 0,
                "elo1" => 1,
                "alpha" => 2,
                "beta" => 3,
                _ => return Err(fail(format!("unknown key {key:?}"))),
            };
            if values[slot].is_some() {
                return Err(fail(format!("{key} given twice")));
            }
            let number: f64 = value
                .parse()
                .ok()
                .filter(|v: &f64| v.is_finite())
                .ok_or_else(|| fail(format!("{key}={value:?} is not a number")))?;
            values[slot] = Some(number);
        }
        let names = ["elo0", "elo1", "alpha", "beta"];
        let mut got = [0.0; 4];
        for ((value, name), out) in values.iter().zip(names).zip(&mut got) {
            *out = value.ok_or_else(|| fail(format!("{name} is missing")))?;
        }
        let [elo0, elo1, alpha, beta] = got;
        if elo0 >= elo1 {
            return Err(fail("elo0 must be below elo1".into()));
        }
        if elo0.abs() >= 1000.0 || elo1.abs() >= 1000.0 {
            return Err(fail("elo0 and elo1 must lie within ±1000".into()));
        }
        for (name, p) in [("alpha", alpha), ("beta", beta)] {
            if !(p > 0.0 && p < 0.5) {
                return Err(fail(format!("{name} must lie between 0 and 0.5")));
            }
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
            model: model.unwrap_or(Model::Pentanomial),
        })
    }
}

impl fmt::Display for Sprt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "elo0={},elo1={},alpha={},beta={},model={}",
            self.elo0,
            self.elo1,
            self.alpha,
            self.beta,
            self.model.as_str()
        )
    }
}

impl Sprt {
    /// The LLR bounds `(lower, upper)`: `ln(β / (1 - α))` and `ln((1 - β) / α)`.
    #[must_use]
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The log-likelihood ratio of `counts` (one per outcome of the model, in the order
    /// of [`Model::scores`]; 0 with no results).
    ///
    /// # Panics
    /// If `counts` does not have one count per outcome of the model.
    #[must_use]
    pub fn llr(&self, counts: &[u32]) -> f64 {
        assert_eq!(
            counts.len(),
            self.model.scores().len(),
            "one count per outcome"
        );
        llr_logistic(self.elo0, self.elo1, counts, self.model.scores())
    }

    /// What the test says at `llr`.
    #[must_use]
    pub fn decide(&self, llr: f64) -> Decision {
        let (lower, upper) = self.bounds();
        if llr >= upper {
            Decision::AcceptH1
        } else if llr <= lower {
            Decision::AcceptH0
        } else {
            Decision::Continue
        }
    }
}

/// The expected score at a logistic Elo difference.
#[must_use]
pub fn score_of_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Counts as an empirical distribution: `(N, p_i)`, zero counts regularised to 10⁻³.
fn distribution(counts: &[u32]) -> (f64, Vec<f64>) {
    let regular: Vec<f64> = counts
        .iter()
        .map(|&c| if c == 0 { 1e-3 } else { f64::from(c) })
        .collect();
    let n: f64 = regular.iter().sum();
    (n, regular.iter().map(|c| c / n).collect())
}

/// The GSPRT log-likelihood ratio of `elo1` against `elo0` for results `counts` over
/// outcomes scored `scores` (0..=1, ascending); 0 with no results.
#[must_use]
pub fn llr_logistic(elo0: f64, elo1: f64, counts: &[u32], scores: &[f64]) -> f64 {
    if counts.iter().all(|&c| c == 0) {
        return 0.0;
    }
    let (n, p) = distribution(counts);
    let s0 = score_of_elo(elo0);
    let s1 = score_of_elo(elo1);
    let x0 = lagrange(&p, scores, s0);
    let x1 = lagrange(&p, scores, s1);
    // ln(p_i(s1) / p_i(s0)) = ln(1 + x0 (a_i - s0)) - ln(1 + x1 (a_i - s1)).
    let per_sample: f64 = p
        .iter()
        .zip(scores)
        .map(|(pi, a)| pi * ((1.0 + x0 * (a - s0)).ln() - (1.0 + x1 * (a - s1)).ln()))
        .sum();
    n * per_sample
}

/// The multiplier `x` of the maximum-likelihood distribution with mean `s`: the root of
/// `f(x) = Σ p_i (a_i - s) / (1 + x (a_i - s))`, which falls strictly on the interval
/// where every `1 + x (a_i - s)` stays positive. Bisection: f is decreasing there.
fn lagrange(p: &[f64], scores: &[f64], s: f64) -> f64 {
    let lowest = scores.iter().copied().fold(f64::INFINITY, f64::min);
    let highest = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    // 1 + x (a - s) > 0 for all a: x in (-1 / (highest - s), 1 / (s - lowest)).
    let mut lo = -1.0 / (highest - s);
    let mut hi = 1.0 / (s - lowest);
    let f = |x: f64| -> f64 {
        p.iter()
            .zip(scores)
            .map(|(pi, a)| pi * (a - s) / (1.0 + x * (a - s)))
            .sum()
    };
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// The Elo difference the results imply and its 95% interval `(elo, low, high)`, from
/// the mean score and its standard error under the model (per pair for pentanomial
/// counts): `None` with no results. Infinite where the score is 0% or 100%.
#[must_use]
pub fn elo_estimate(counts: &[u32], scores: &[f64]) -> Option<(f64, f64, f64)> {
    let (n, mean, variance) = moments(counts, scores)?;
    let margin = 1.959_964 * (variance / n).sqrt();
    Some((elo_of(mean), elo_of(mean - margin), elo_of(mean + margin)))
}

/// How many results `counts` holds, and the mean score and its variance per result
/// under `scores` (the score of each count's outcome): `None` with no results.
fn moments(counts: &[u32], scores: &[f64]) -> Option<(f64, f64, f64)> {
    let n: f64 = counts.iter().map(|&c| f64::from(c)).sum();
    if n == 0.0 {
        return None;
    }
    let weighted = |f: &dyn Fn(f64) -> f64| -> f64 {
        counts
            .iter()
            .zip(scores)
            .map(|(&c, &a)| f64::from(c) * f(a))
            .sum::<f64>()
            / n
    };
    let mean = weighted(&|a| a);
    let variance = weighted(&|a| (a - mean).powi(2));
    Some((n, mean, variance))
}

/// Where a running test stands.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Status {
    /// The log-likelihood ratio.
    pub llr: f64,
    /// The lower bound (H0 accepted at or below it).
    pub lower: f64,
    /// The upper bound (H1 accepted at or above it).
    pub upper: f64,
    /// What the test says.
    pub decision: Decision,
    /// The samples counted: pairs (pentanomial) or games (trinomial).
    pub samples: u32,
    /// The Elo estimate with its 95% interval under the model.
    pub elo: Option<(f64, f64, f64)>,
}

impl Sprt {
    /// The test's status for `counts`.
    #[must_use]
    pub fn status(&self, counts: &[u32]) -> Status {
        let llr = self.llr(counts);
        let (lower, upper) = self.bounds();
        Status {
            llr,
            lower,
            upper,
            decision: self.decide(llr),
            samples: counts.iter().sum(),
            elo: elo_estimate(counts, self.model.scores()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sprt(elo0: f64, elo1: f64, model: Model) -> Sprt {
        Sprt {
            elo0,
            elo1,
            alpha: 0.05,
            beta: 0.05,
            model,
        }
    }

    #[test]
    fn bounds_are_the_wald_bounds() {
        let (lower, upper) = sprt(0.0, 10.0, Model::Trinomial).bounds();
        assert!((lower - (0.05f64 / 0.95).ln()).abs() < 1e-12);
        assert!((upper - (0.95f64 / 0.05).ln()).abs() < 1e-12);
        assert!((upper - 2.944_438_979).abs() < 1e-9);
    }

    #[test]
    fn without_draws_the_trinomial_llr_is_the_binomial_one() {
        // With no draws the constrained maximum-likelihood win rate is s itself, so
        // LLR = W ln(s1/s0) + L ln((1-s1)/(1-s0)); the regularised draws (10⁻³) move it
        // by less than 10⁻³.
        for (w, l, elo0, elo1) in [
            (30, 10, 0.0, 10.0),
            (10, 30, 0.0, 10.0),
            (55, 45, -5.0, 5.0),
            (7, 3, 0.0, 50.0),
        ] {
            let s0 = score_of_elo(elo0);
            let s1 = score_of_elo(elo1);
            let exact =
                f64::from(w) * (s1 / s0).ln() + f64::from(l) * ((1.0 - s1) / (1.0 - s0)).ln();
            let llr = sprt(elo0, elo1, Model::Trinomial).llr(&[l, 0, w]);
            assert!((llr - exact).abs() < 1e-3, "W{w} L{l}: {llr} vs {exact}");
        }
    }

    #[test]
    fn llr_matches_fishtest_values() {
        // Reference values of fishtest's LLR_logistic (regularised results), computed
        // apart from this code: each profile log-likelihood maximised directly, in its
        // dual form max_x Σ p_i ln(1 + x (a_i - s)), by golden-section search in Python.
        let cases: [(f64, f64, &[u32], f64); 5] = [
            (0.0, 10.0, &[1000, 1500, 1200], 7.108_996_7),
            (0.0, 10.0, &[120, 900, 1000], 44.577_300_7),
            (0.0, 5.0, &[50, 400, 1000, 420, 60], 0.539_384_4),
            (-3.0, 1.0, &[500, 2000, 3000, 2100, 520], 4.266_058_9),
            (0.0, 10.0, &[10, 20, 30, 25, 15], 0.482_286_2),
        ];
        for (elo0, elo1, counts, want) in cases {
            let model = if counts.len() == 3 {
                Model::Trinomial
            } else {
                Model::Pentanomial
            };
            let llr = sprt(elo0, elo1, model).llr(counts);
            assert!((llr - want).abs() < 1e-5, "{counts:?}: {llr} vs {want}");
        }
    }

    #[test]
    fn llr_is_close_to_the_normal_approximation_for_small_elo_spans() {
        // Fishtest's LLR_alt2: (s1 - s0)(2 mean - s0 - s1) / (2 var), times N.
        let counts = [300u32, 1200, 2000, 1300, 350];
        let scores = Model::Pentanomial.scores();
        let (n, mean, var) = moments(&counts, scores).unwrap();
        let (s0, s1) = (score_of_elo(0.0), score_of_elo(5.0));
        let approx = n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var);
        let llr = sprt(0.0, 5.0, Model::Pentanomial).llr(&counts);
        assert!(
            (llr - approx).abs() < 0.02 * approx.abs().max(1.0),
            "{llr} vs {approx}"
        );
    }

    #[test]
    fn strong_results_accept_h1_and_weak_ones_h0() {
        let test = sprt(0.0, 10.0, Model::Pentanomial);
        assert_eq!(test.decide(test.llr(&[0, 0, 0, 0, 0])), Decision::Continue);
        assert_eq!(test.llr(&[0, 0, 0, 0, 0]), 0.0);
        assert_eq!(
            test.decide(test.llr(&[5, 20, 60, 60, 40])),
            Decision::AcceptH1
        );
        assert_eq!(
            test.decide(test.llr(&[40, 60, 60, 20, 5])),
            Decision::AcceptH0
        );
        // Even results lean to H0 (0 Elo) but slowly.
        let even = test.llr(&[10, 20, 40, 20, 10]);
        assert!(
            even < 0.0 && test.decide(even) == Decision::Continue,
            "{even}"
        );
    }

    #[test]
    fn elo_estimate_is_symmetric_around_an_even_score() {
        let (elo, low, high) =
            elo_estimate(&[10, 20, 40, 20, 10], Model::Pentanomial.scores()).unwrap();
        assert!(elo.abs() < 1e-9);
        assert!((low + high).abs() < 1e-9 && high > 0.0);
        let (elo, low, high) = elo_estimate(&[10, 0, 30], Model::Trinomial.scores()).unwrap();
        assert!((elo - 190.85).abs() < 0.1, "{elo}");
        assert!(low < elo && elo < high);
        assert!(elo_estimate(&[0, 0, 0], Model::Trinomial.scores()).is_none());
    }

    #[test]
    fn settings_parse_and_bad_ones_say_why() {
        let s: Sprt = " elo0=-2.5, elo1=2.5 ,alpha=0.05,beta=0.1,model=trinomial"
            .parse()
            .unwrap();
        assert_eq!(
            s,
            Sprt {
                elo0: -2.5,
                elo1: 2.5,
                alpha: 0.05,
                beta: 0.1,
                model: Model::Trinomial
            }
        );
        assert_eq!(s.to_string().parse::<Sprt>().unwrap(), s);
        for (bad, why) in [
            ("elo0=0,elo1=10,alpha=0.05", "beta is missing"),
            ("elo0=10,elo1=0,alpha=0.05,beta=0.05", "below elo1"),
            ("elo0=0,elo1=10,alpha=0.5,beta=0.05", "alpha must"),
            ("elo0=0,elo1=10,alpha=0,beta=0.05", "alpha must"),
            ("elo0=0,elo1=x,alpha=0.05,beta=0.05", "not a number"),
            ("elo0=0,elo1=inf,alpha=0.05,beta=0.05", "not a number"),
            ("elo0=0,elo1=10,alpha=0.05,beta=0.05,gamma=1", "unknown key"),
            ("elo0=0,elo0=1,elo1=10,alpha=0.05,beta=0.05", "twice"),
            (
                "elo0=0,elo1=10,alpha=0.05,beta=0.05,model=binomial",
                "unknown model",
            ),
            ("elo0", "not key=value"),
            ("elo0=0,elo1=5000,alpha=0.05,beta=0.05", "±1000"),
        ] {
            let err = bad.parse::<Sprt>().unwrap_err();
            assert!(err.reason.contains(why), "{bad}: {err}");
        }
    }
}
