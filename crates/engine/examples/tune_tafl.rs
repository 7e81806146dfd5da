//! Fits the tafl evaluation's weights to real games ("Texel tuning"): every quiet
//! position of the aagenielsen.dk archive games that have a result is scored by the
//! evaluation, and the weights are moved, one at a time, while the mean squared error
//! between `sigmoid(score / K)` and the game's result (defenders' win 1, draw ½, loss 0)
//! falls. One game in five is held out to show that the fit generalises.
//!
//! ```sh
//! cargo run --release -p engine --example tune_tafl
//! cargo run --release -p engine --example tune_tafl -- crates/tafl/tests/data/aagenielsen_archive_part1.csv
//! ```
//!
//! The file defaults to the 900 archive games of the tafl crate's test data.
//!
//! It prints the weights as `name value` lines (the form `TaflWeights::read` takes and
//! `--example selfplay -- --weights-a FILE` plays with). Keep a change in
//! `TaflWeights::default()` only when self-play confirms it.

use engine::Evaluator;
use engine::games::tafl::{TaflEval, TaflWeights};
use game::Game;
use tafl::{Position, Rules, Tafl};

struct Sample {
    position: Position,
    result: f64,
    validation: bool,
}

fn load(path: &str) -> Result<Vec<Sample>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let eval = TaflEval::default();
    let mut samples = Vec::new();
    for line in text.lines().skip(1) {
        let fields: Vec<&str> = line.split(',').collect();
        let [index, moves, winner, ..] = fields.as_slice() else {
            continue;
        };
        // The archive calls the defenders White and the attackers Black.
        let result = match *winner {
            "White" => 1.0,
            "Black" => 0.0,
            "Draw" => 0.5,
            _ => continue,
        };
        let index: usize = index.parse().map_err(|_| format!("bad index {index}"))?;
        // Historical records: repetition switched off (TAFL.md 10e).
        let mut game = Tafl::new(Rules::COPENHAGEN.with_repetition(false));
        for (ply, text) in moves.split_whitespace().enumerate() {
            if game.outcome().is_some() {
                break;
            }
            let Ok(mv) = game.parse_move(text) else {
                break;
            };
            game.play(mv);
            if ply >= 6
                && game.outcome().is_none()
                && eval.winning_move(&game).is_none()
                && !eval.in_danger(&game)
            {
                samples.push(Sample {
                    position: *game.position(),
                    result,
                    validation: index.is_multiple_of(5),
                });
            }
        }
    }
    Ok(samples)
}

fn sigmoid(score: f64, k: f64) -> f64 {
    1.0 / (1.0 + (-score / k).exp())
}

fn error(samples: &[Sample], eval: &TaflEval, k: f64, validation: bool) -> f64 {
    let mut total = 0.0;
    let mut n = 0usize;
    for s in samples.iter().filter(|s| s.validation == validation) {
        let score = f64::from(eval.defenders_score(&s.position, true));
        let d = sigmoid(score, k) - s.result;
        total += d * d;
        n += 1;
    }
    total / n.max(1) as f64
}

/// The weights the fit moves: all but the zero point of king pressure, the tempo (the
/// archive positions say nothing about it) and the open corner (never seen in quiet
/// positions).
fn params(w: &mut TaflWeights) -> Vec<(&'static str, &mut i32)> {
    w.named()
        .into_iter()
        .filter(|(name, _)| !matches!(*name, "king_pressure[0]" | "tempo" | "open_corner"))
        .collect()
}

fn main() {
    let path = std::env::args().nth(1).unwrap_or_else(|| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tafl/tests/data/aagenielsen_archive_part1.csv"
        )
        .to_owned()
    });
    let samples = match load(&path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("tune_tafl: {e}");
            std::process::exit(2);
        }
    };
    let training = samples.iter().filter(|s| !s.validation).count();
    eprintln!(
        "{} positions ({training} training, {} validation)",
        samples.len(),
        samples.len() - training
    );
    let mut eval = TaflEval::default();
    // The scale K that best fits the current weights.
    let mut k = 100.0;
    let mut best_k = error(&samples, &eval, k, false);
    for candidate in (20..=1000).step_by(10) {
        let e = error(&samples, &eval, f64::from(candidate), false);
        if e < best_k {
            best_k = e;
            k = f64::from(candidate);
        }
    }
    eprintln!(
        "K = {k}: training error {best_k:.6}, validation {:.6}",
        error(&samples, &eval, k, true)
    );
    let count = params(&mut eval.weights).len();
    let mut best = best_k;
    // Early stopping: keep the weights that did best on the held-out games.
    let mut kept = eval;
    let mut kept_validation = error(&samples, &eval, k, true);
    for round in 1..=30 {
        let mut improved = false;
        for i in 0..count {
            for step in [8, 2, 1] {
                for sign in [1, -1] {
                    let mut trial = eval;
                    *params(&mut trial.weights)[i].1 += sign * step;
                    let e = error(&samples, &trial, k, false);
                    if e < best {
                        best = e;
                        eval = trial;
                        improved = true;
                    }
                }
            }
        }
        let validation = error(&samples, &eval, k, true);
        eprintln!("round {round}: training {best:.6}, validation {validation:.6}");
        if validation < kept_validation {
            kept_validation = validation;
            kept = eval;
        }
        if !improved {
            break;
        }
    }
    eprintln!("kept: validation {kept_validation:.6}");
    print!("{}", kept.weights.write());
}
