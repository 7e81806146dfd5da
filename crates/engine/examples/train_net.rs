//! Trains a learned evaluation (`engine::games::tafl_net`, `engine::games::camelot_net`)
//! on the positions `--example gen_net_data` wrote, and writes the network file the
//! engine embeds (`crates/engine/src/games/tafl.net`; no Camelot network is embedded yet).
//!
//! ```sh
//! cargo run --release -p engine --example train_net -- \
//!     --data copenhagen.txt --data fetlar.txt --epochs 20 --out tafl.net
//! ```
//!
//! Options: `--data FILE` (repeatable; Copenhagen and Fetlar records train the tafl
//! network, Camelot ones the Camelot network, and the two do not mix), `--epochs N`, `--batch N`, `--rate X` (Adam's
//! step), `--lambda X` (the result's share of the target; the rest is the search's
//! score), `--seed N`, `--scale POINTS` (points per logistic unit; fitted to the
//! results by default), `--center yes` (take the mean correction off, so that the
//! network moves positions against each other and not against a draw), `--center
//! start` (shift it so that the starts of the games in the data are even on average),
//! `--out FILE`. Every tenth game is held out; the network with the lowest held-out
//! loss is written. The same data and options give the same file,
//! whatever the order in which the games were written (the records are taken in the
//! order of their game numbers).

use std::time::Instant;

use camelot::Camelot;
use engine::nnue::OUTPUT_POINTS;
use engine::train::{
    NetGame, Record, Sample, TrainOptions, center_on_starts, fit_scale, loss, start_values, train,
};
use game::GameKind;
use tafl::Tafl;

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut data = Vec::new();
    let mut out = None;
    let mut options = TrainOptions::default();
    let mut fixed_scale = false;
    let mut center = Center::No;
    for pair in args.chunks(2) {
        let [name, value] = pair else {
            return Err(format!("{} needs a value", pair[0]));
        };
        let bad = || format!("bad {name} {value:?}");
        match name.as_str() {
            "--data" => data.push(value.clone()),
            "--out" => out = Some(value.clone()),
            "--epochs" => options.epochs = value.parse().map_err(|_| bad())?,
            "--batch" => options.batch = value.parse().map_err(|_| bad())?,
            "--rate" => options.rate = value.parse().map_err(|_| bad())?,
            "--lambda" => options.lambda = value.parse().map_err(|_| bad())?,
            "--seed" => options.seed = value.parse().map_err(|_| bad())?,
            "--scale" => {
                options.scale = value.parse().map_err(|_| bad())?;
                fixed_scale = true;
            }
            "--center" => {
                center = match value.as_str() {
                    "yes" => Center::Mean,
                    "start" => Center::Start,
                    "no" => Center::No,
                    other => {
                        return Err(format!("--center takes yes, start or no, not {other:?}"));
                    }
                }
            }
            other => return Err(format!("unknown option {other}")),
        }
    }
    let out = out.ok_or("--out FILE is needed")?;
    if data.is_empty() {
        return Err("--data FILE is needed".into());
    }
    let started = Instant::now();
    let mut records = Vec::new();
    for file in &data {
        let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
        for (n, line) in text.lines().enumerate() {
            let record: Record = line.parse().map_err(|e| format!("{file}:{}: {e}", n + 1))?;
            records.push(record);
        }
    }
    // In the order of the games (stable within one): `gen_net_data --jobs N` writes
    // games as they finish, and the fit's shuffle follows the order it reads.
    records.sort_by_key(|record| record.game);
    let Some(first) = records.first() else {
        return Err("no records".into());
    };
    let setup = Setup {
        options,
        fixed_scale,
        center,
        out,
        started,
    };
    if first.kind == GameKind::Camelot {
        fit::<Camelot>(&records, setup)
    } else {
        fit::<Tafl>(&records, setup)
    }
}

/// What the output's bias is shifted by once the network is fitted.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Center {
    No,
    /// The mean correction on the held-out positions is taken off.
    Mean,
    /// The start of each game in the data is evaluated even (their mean).
    Start,
}

struct Setup {
    options: TrainOptions,
    fixed_scale: bool,
    center: Center,
    out: String,
    started: Instant,
}

fn fit<G: NetGame>(records: &[Record], setup: Setup) -> Result<(), String> {
    let Setup {
        mut options,
        fixed_scale,
        center,
        out,
        started,
    } = setup;
    let eval = G::Evaluator::default();
    let samples = records
        .iter()
        .map(|record| Sample::of::<G>(record, &eval))
        .collect::<Result<Vec<Sample>, String>>()?;
    let held = samples.iter().filter(|s| s.validation).count();
    eprintln!(
        "{} positions ({} training, {held} held out) read in {:.1?}",
        samples.len(),
        samples.len() - held,
        started.elapsed()
    );
    if !fixed_scale {
        let (scale, shift) = fit_scale(&samples, &options);
        eprintln!(
            "fitted to the results: scale {scale} points, the hand-set evaluation {shift:+} points off"
        );
        options.scale = scale;
    }
    let before = loss::<G::Shape>(&samples, None, &options, true);
    eprintln!(
        "scale {} points; held-out loss of the hand-set evaluation alone {before:.6}",
        options.scale
    );
    let net = train::<G::Shape>(&samples, &options, |report| {
        eprintln!(
            "epoch {:>3}: training {:.6}, held out {:.6} ({:.1?})",
            report.epoch,
            report.train,
            report.validation,
            started.elapsed()
        );
    });
    let after = loss(&samples, Some(&net), &options, true);
    eprintln!("held-out loss {before:.6} -> {after:.6}");
    let corrections: Vec<f64> = samples
        .iter()
        .filter(|s| s.validation)
        .map(|s| f64::from(net.output(&s.features, 0) * OUTPUT_POINTS as f32))
        .collect();
    let n = corrections.len().max(1) as f64;
    let mean = corrections.iter().sum::<f64>() / n;
    let sd = (corrections.iter().map(|c| (c - mean).powi(2)).sum::<f64>() / n).sqrt();
    eprintln!("the correction on the held-out positions: mean {mean:+.0} points, sd {sd:.0}");
    let mut kinds: Vec<GameKind> = records.iter().map(|r| r.kind).collect();
    kinds.sort_by_key(|kind| kind.to_string());
    kinds.dedup();
    let mut net = net;
    let shift = match center {
        Center::No => 0.0,
        Center::Mean => {
            net.b2 -= (mean / OUTPUT_POINTS as f64) as f32;
            mean
        }
        Center::Start => center_on_starts::<G>(&mut net, &eval, &kinds)?,
    };
    if center != Center::No {
        eprintln!("centred: {shift:+.0} points taken off the output's bias");
    }
    for (kind, value) in start_values::<G>(&net, &eval, &kinds)? {
        eprintln!("the start of {kind}: {value:+.0} points for the labelled side");
    }
    std::fs::write(&out, net.quantize().to_bytes()).map_err(|e| format!("{out}: {e}"))?;
    eprintln!("wrote {out} in {:.1?}", started.elapsed());
    Ok(())
}

fn main() {
    if let Err(e) = run() {
        eprintln!("train_net: {e}");
        std::process::exit(2);
    }
}
