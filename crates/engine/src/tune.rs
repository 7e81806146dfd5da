//! Texel tuning of the tafl evaluation: positions labelled with their game's result,
//! and a fit of the weights that minimises the logistic loss. `--example tune_tafl`
//! reads the games (the archive, match records) and writes the weights file; this
//! module is the part that is tested.
//!
//! ```
//! use engine::games::tafl::{TaflEval, TaflWeights};
//! use engine::tune::{FitOptions, Sample, fit, positions_of_game};
//! use tafl::{Rules, Tafl};
//!
//! let eval = TaflEval::default();
//! let moves: Vec<String> = "d1-d3 f8-i8 j6-j9 e7-e10 j9-e9xe10 d6-d9 f10-f9 g7-g10"
//!     .split(' ').map(str::to_owned).collect();
//! let mut samples = Vec::new();
//! positions_of_game(&eval, Tafl::new(Rules::COPENHAGEN), &moves, 1.0, false, &mut samples);
//! assert_eq!(samples.len(), 2, "quiet positions after the sixth ply");
//! ```

use game::Game;
use tafl::Tafl;

use crate::eval::Evaluator;
use crate::games::tafl::{TERM_NAMES, TERMS, TaflEval, TaflWeights};

/// Terms the fit does not move: the unit (`attacker`), a corner open now (never in a
/// quiet position), the king with no attacker beside him (the zero point of the pressure
/// scale) and the tempo (results say nothing about it).
pub const FIXED: [&str; 4] = ["attacker", "open_corner", "king_pressure[0]", "tempo"];

/// One position: its evaluation terms and its game's result for the defenders.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// [`TaflEval::terms`], escape routes counted.
    pub terms: [f64; TERMS],
    /// 1 the defenders won, ½ a draw, 0 the attackers won.
    pub result: f64,
    /// Held out of the fit, to choose the weights kept.
    pub validation: bool,
}

/// Appends the quiet positions of one game (past the sixth ply, no win in one for the
/// side to move, no threat it must answer), played from `game` by the recorded `moves`
/// (reading stops at the first move that is not legal or once the game is over).
pub fn positions_of_game(
    eval: &TaflEval,
    mut game: Tafl,
    moves: &[impl AsRef<str>],
    result: f64,
    validation: bool,
    out: &mut Vec<Sample>,
) {
    let copenhagen = game.rules().is_copenhagen();
    for (ply, text) in moves.iter().enumerate() {
        if game.outcome().is_some() {
            break;
        }
        let Ok(mv) = game.parse_recorded_move(text.as_ref()) else {
            break;
        };
        game.play(mv);
        if ply >= 6
            && game.outcome().is_none()
            && eval.winning_move(&game).is_none()
            && !eval.in_danger(&game)
        {
            let terms = eval.terms(game.position(), copenhagen, true);
            out.push(Sample {
                terms: terms.map(f64::from),
                result,
                validation,
            });
        }
    }
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

fn score(weights: &[f64; TERMS], sample: &Sample) -> f64 {
    weights.iter().zip(&sample.terms).map(|(w, t)| w * t).sum()
}

/// The mean logistic loss (cross-entropy) of `sigmoid(score / k)` against the results,
/// over the training samples or the held-out ones.
#[must_use]
pub fn loss(samples: &[Sample], weights: &[f64; TERMS], k: f64, validation: bool) -> f64 {
    let mut total = 0.0;
    let mut n = 0usize;
    for s in samples.iter().filter(|s| s.validation == validation) {
        let p = sigmoid(score(weights, s) / k).clamp(1e-12, 1.0 - 1e-12);
        total -= s.result * p.ln() + (1.0 - s.result) * (1.0 - p).ln();
        n += 1;
    }
    total / n.max(1) as f64
}

/// The scale (20, 30, … 2000) at which `weights` best fit the training samples.
#[must_use]
pub fn fit_scale(samples: &[Sample], weights: &TaflWeights) -> f64 {
    let w = weights.linear().map(f64::from);
    let mut best = (f64::INFINITY, 100.0);
    for k in (20..=2000).step_by(10) {
        let e = loss(samples, &w, f64::from(k), false);
        if e < best.0 {
            best = (e, f64::from(k));
        }
    }
    best.1
}

/// How the fit runs.
#[derive(Clone, Copy, Debug)]
pub struct FitOptions {
    /// Gradient steps (full batch).
    pub steps: usize,
    /// Adam's step size, in weight units.
    pub rate: f64,
    /// Pull towards the starting weights (L2, per unit squared).
    pub l2: f64,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            steps: 3000,
            rate: 0.5,
            l2: 1e-6,
        }
    }
}

/// What [`fit`] found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fit {
    /// The weights kept: those, rounded, with the lowest held-out loss seen.
    pub weights: TaflWeights,
    /// The held-out loss of the starting weights.
    pub start_loss: f64,
    /// The held-out loss of the weights kept.
    pub loss: f64,
}

/// Fits the weights not in [`FIXED`] to the training samples by Adam on the logistic
/// loss at scale `k`, from `start`; every 100 steps the rounded weights are scored on
/// the held-out samples and the best kept (`start` if none beats it). Deterministic.
#[must_use]
pub fn fit(samples: &[Sample], start: &TaflWeights, k: f64, options: FitOptions) -> Fit {
    let initial = start.linear().map(f64::from);
    let free: [bool; TERMS] = std::array::from_fn(|i| !FIXED.contains(&TERM_NAMES[i]));
    let training = samples.iter().filter(|s| !s.validation).count().max(1) as f64;
    let start_loss = loss(samples, &initial, k, true);
    let mut kept = (start_loss, initial);
    let mut w = initial;
    let (mut m, mut v) = ([0.0; TERMS], [0.0; TERMS]);
    let (beta1, beta2, eps) = (0.9f64, 0.999f64, 1e-8);
    for step in 1..=options.steps {
        let mut grad = [0.0; TERMS];
        for s in samples.iter().filter(|s| !s.validation) {
            let d = (sigmoid(score(&w, s) / k) - s.result) / k;
            for (g, t) in grad.iter_mut().zip(&s.terms) {
                *g += d * t;
            }
        }
        let t = i32::try_from(step).unwrap_or(i32::MAX);
        for i in (0..TERMS).filter(|&i| free[i]) {
            let g = grad[i] / training + 2.0 * options.l2 * (w[i] - initial[i]);
            m[i] = beta1 * m[i] + (1.0 - beta1) * g;
            v[i] = beta2 * v[i] + (1.0 - beta2) * g * g;
            let m_hat = m[i] / (1.0 - beta1.powi(t));
            let v_hat = v[i] / (1.0 - beta2.powi(t));
            w[i] -= options.rate * m_hat / (v_hat.sqrt() + eps);
        }
        if step % 100 == 0 || step == options.steps {
            let rounded = w.map(f64::round);
            let held = loss(samples, &rounded, k, true);
            if held < kept.0 {
                kept = (held, rounded);
            }
        }
    }
    let mut weights = *start;
    weights.set_linear(kept.1.map(|x| x as i32));
    Fit {
        weights,
        start_loss,
        loss: kept.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tafl::Rules;

    /// Samples whose results follow known weights, from the positions of real games.
    fn synthetic(truth: &TaflWeights, k: f64) -> Vec<Sample> {
        let games = [
            "d1-d3 f8-i8 j6-j9 e7-e10 j9-e9xe10 d6-d9 f10-f9 g7-g10 e9-e10 h6-h9 k8-j8 g6-g9 k6-i6 f6-h6 a8-h8xi8 f7-h7xh8 f9-f8 h9-j9 k7-i7 h7-h9 i7-i10 h6-h7 i6-i7 e6-j6 i10-j10xj9 j6-j7xi7 d3-i3 h7-i7 h11-i11 h9-k9 i11-i9 i7-h7 g11-i11 h7-h2 k4-k2 h2-j2 h1-j1 g5-g2 i3-g3xg2 j7-j3 k5-k3",
            "a8-e8 d6-d8xe8 d11-d9 e6-d6 a7-d7xd8 f8-d8xd7 a6-a7 e7-b7 e11-b11 e5-b5xb6 d1-b1 d6-a6 h11-h7 g5-g3 f2-f3",
            "h1-h3 f4-i4 g1-i1 g5-g3 h3-i3 f5-i5 d1-d3 g3-g2 f2-c2 g2-i2xi3 j6-j2 f6-f3 k4-k3 g6-g1 b6-b3 h6-j6 k8-i8 f3-h3 h11-h9 h3-h8",
        ];
        let eval = TaflEval::default();
        let mut samples = Vec::new();
        for (i, moves) in games.iter().enumerate() {
            let moves: Vec<String> = moves.split(' ').map(str::to_owned).collect();
            for rules in [Rules::COPENHAGEN, Rules::FETLAR] {
                let game = Tafl::new(rules.with_repetition(false));
                positions_of_game(&eval, game, &moves, 0.0, i == 1, &mut samples);
            }
        }
        let w = truth.linear().map(f64::from);
        for s in &mut samples {
            // The expected result as a soft label: what the true weights predict.
            s.result = sigmoid(score(&w, s) / k);
        }
        samples
    }

    #[test]
    fn quiet_positions_are_taken_after_the_sixth_ply_with_their_terms() {
        let eval = TaflEval::default();
        let moves: Vec<String> = "d1-d3 f8-i8 j6-j9 e7-e10 j9-e9xe10 d6-d9 f10-f9 g7-g10 zz"
            .split(' ')
            .map(str::to_owned)
            .collect();
        let mut out = Vec::new();
        positions_of_game(
            &eval,
            Tafl::new(Rules::COPENHAGEN),
            &moves,
            0.5,
            true,
            &mut out,
        );
        // Plies 7 and 8; the unreadable move ends the game's reading.
        assert_eq!(out.len(), 2);
        assert!(out.iter().all(|s| s.result == 0.5 && s.validation));
        let mut game = Tafl::new(Rules::COPENHAGEN);
        for text in &moves[..7] {
            let mv = game.parse_move(text).unwrap();
            game.play(mv);
        }
        let terms = eval.terms(game.position(), true, true).map(f64::from);
        assert_eq!(out[0].terms, terms);
    }

    #[test]
    fn the_fit_recovers_weights_that_explain_the_results() {
        let truth = TaflWeights {
            defender: 260,
            escape_threat: 90,
            corner_guard: 40,
            ..TaflWeights::HAND_SET
        };
        let k = 200.0;
        let samples = synthetic(&truth, k);
        let start = TaflWeights::HAND_SET;
        let options = FitOptions {
            steps: 2000,
            rate: 1.0,
            l2: 0.0,
        };
        let found = fit(&samples, &start, k, options);
        assert!(found.loss < found.start_loss, "{found:?}");
        let truth_loss = loss(&samples, &truth.linear().map(f64::from), k, true);
        assert!(
            found.loss - truth_loss < 0.5 * (found.start_loss - truth_loss),
            "most of the gap closed: {found:?}, truth {truth_loss}"
        );
        // Fixed terms stay; the same data give the same weights.
        assert_eq!(found.weights.attacker, start.attacker);
        assert_eq!(found.weights.tempo, start.tempo);
        assert_eq!(fit(&samples, &start, k, options), found);
    }

    #[test]
    fn the_scale_fits_the_spread_of_the_results() {
        let k = 300.0;
        let samples = synthetic(&TaflWeights::HAND_SET, k);
        assert!((fit_scale(&samples, &TaflWeights::HAND_SET) - k).abs() <= 10.0);
    }
}
