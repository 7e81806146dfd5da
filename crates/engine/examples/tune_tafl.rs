//! Fits the tafl evaluation's weights to game results ("Texel tuning").
//!
//! Every quiet position (no win in one, no threat to answer, past the sixth ply) of the
//! games read is turned into the evaluation's terms (`TaflEval::terms`: the evaluation
//! is the sum of weight × term) and labelled with the game's result for the defenders
//! (win 1, draw ½, loss 0). The weights are fitted by minimising the logistic loss
//! (cross-entropy) between `sigmoid(score / K)` and that result, by full-batch gradient
//! descent (Adam) on real-valued weights, then rounded. `K` is first fitted to the
//! starting weights and then held, so the weights keep their scale (an attacker is
//! worth `attacker`, which is not moved). One game in five is held out: the weights
//! kept are those with the lowest loss on the held-out games.
//!
//! ```sh
//! # The 900 archive games (Copenhagen, aagenielsen.dk) and the engine's own games
//! cargo run --release -p engine --example tune_tafl -- \
//!     --archive crates/tafl/tests/data/aagenielsen_archive_part1.csv \
//!     --records bench/runs/issue22-selfplay-copenhagen-100ms --out new.weights
//! ```
//!
//! Options: `--archive FILE` (aagenielsen.dk CSV: `index,moves,recorded_winner,…`,
//! repeatable; by default the tafl crate's archive test data unless `--no-archive`),
//! `--records DIR` (a directory of `.otg` records as `kingstable match --out` writes
//! them, Fetlar or Copenhagen, repeatable), `--from FILE` (starting weights; default
//! the embedded ones), `--steps N` (default 3000), `--rate R` (Adam step, default 0.5),
//! `--l2 L` (pull towards the starting weights, default 1e-6), `--out FILE` (write the
//! weights file the engine embeds, `src/games/tafl.weights`; default stdout).
//!
//! It is deterministic: the same games give the same weights. Keep a result in
//! `src/games/tafl.weights` only when a match shows it is not weaker (bench/RESULTS.md).

use std::path::{Path, PathBuf};

use engine::games::tafl::{EMBEDDED_WEIGHTS, TaflEval, TaflWeights};
use engine::train::archive_games;
use engine::tune::{FitOptions, Sample, fit, fit_scale, loss, positions_of_game};
use game::Player;
use game::record::parse_records;
use tafl::otg::OpenTaflRules;
use tafl::{Rules, Tafl};

struct Data {
    /// The evaluation whose terms are read (its edge-reach cap counts).
    eval: TaflEval,
    samples: Vec<Sample>,
    games: usize,
    skipped: usize,
}

impl Data {
    /// Adds the quiet positions of one game; one game in five is held out.
    fn add_game(&mut self, game: Tafl, moves: &[impl AsRef<str>], result: f64) {
        let validation = self.games.is_multiple_of(5);
        self.games += 1;
        positions_of_game(
            &self.eval,
            game,
            moves,
            result,
            validation,
            &mut self.samples,
        );
    }

    /// The aagenielsen.dk archive: Copenhagen games with a recorded winner (the
    /// archive calls the defenders White), repetition off as they were played then.
    fn read_archive(&mut self, path: &Path) -> Result<(), String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let (games, skipped) = archive_games(&text);
        self.skipped += skipped;
        for game in games {
            self.add_game(
                Tafl::new(Rules::COPENHAGEN.with_repetition(false)),
                &game.moves,
                f64::from(game.result),
            );
        }
        Ok(())
    }

    /// A directory of OpenTafl records with a result (`kingstable match --out`).
    fn read_records(&mut self, dir: &Path) -> Result<(), String> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|e| format!("{}: {e}", dir.display()))?
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "otg"))
            .collect();
        files.sort();
        for file in files {
            let text =
                std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
            let records = parse_records(&text).map_err(|e| format!("{}: {e}", file.display()))?;
            for record in records {
                let setup = record
                    .tag("rules")
                    .and_then(|tag| tag.parse::<OpenTaflRules>().ok());
                let (Some(setup), Some(stated)) = (setup, record.stated_result()) else {
                    self.skipped += 1;
                    continue;
                };
                // The second player is the defenders in tafl records.
                let result = match stated {
                    Some(Player::Second) => 1.0,
                    Some(Player::First) => 0.0,
                    None => 0.5,
                };
                let start = setup.start.unwrap_or_else(tafl::Position::start);
                let game = Tafl::from_position(setup.rules(), start);
                self.add_game(game, &record.moves, result);
            }
        }
        Ok(())
    }
}

struct Options {
    archives: Vec<PathBuf>,
    records: Vec<PathBuf>,
    from: Option<PathBuf>,
    steps: usize,
    rate: f64,
    l2: f64,
    out: Option<PathBuf>,
}

fn parse_options() -> Result<Options, String> {
    let mut options = Options {
        archives: Vec::new(),
        records: Vec::new(),
        from: None,
        steps: 3000,
        rate: 0.5,
        l2: 1e-6,
        out: None,
    };
    let mut default_archive = true;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--archive" => options.archives.push(value()?.into()),
            "--no-archive" => default_archive = false,
            "--records" => options.records.push(value()?.into()),
            "--from" => options.from = Some(value()?.into()),
            "--out" => options.out = Some(value()?.into()),
            "--steps" => options.steps = value()?.parse().map_err(|e| format!("--steps: {e}"))?,
            "--rate" => options.rate = value()?.parse().map_err(|e| format!("--rate: {e}"))?,
            "--l2" => options.l2 = value()?.parse().map_err(|e| format!("--l2: {e}"))?,
            other => return Err(format!("unknown option {other}")),
        }
    }
    if options.archives.is_empty() && default_archive {
        options.archives.push(
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../tafl/tests/data/aagenielsen_archive_part1.csv"
            )
            .into(),
        );
    }
    Ok(options)
}

fn run() -> Result<(), String> {
    let options = parse_options()?;
    let start = match &options.from {
        Some(path) => {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            TaflWeights::default().read(&text)?
        }
        None => TaflWeights::HAND_SET
            .read(EMBEDDED_WEIGHTS)
            .map_err(|e| format!("embedded weights: {e}"))?,
    };
    let mut data = Data {
        eval: TaflEval::with_weights(start),
        samples: Vec::new(),
        games: 0,
        skipped: 0,
    };
    for path in &options.archives {
        data.read_archive(path)?;
    }
    for dir in &options.records {
        data.read_records(dir)?;
    }
    let samples = &data.samples;
    let training = samples.iter().filter(|s| !s.validation).count();
    eprintln!(
        "{} games ({} skipped: no result), {} positions ({training} training, {} held out)",
        data.games,
        data.skipped,
        samples.len(),
        samples.len() - training
    );
    if training == 0 || training == samples.len() {
        return Err("too few games to fit and to hold some out".into());
    }
    let k = fit_scale(samples, &start);
    let fitted = fit(
        samples,
        &start,
        k,
        FitOptions {
            steps: options.steps,
            rate: options.rate,
            l2: options.l2,
        },
    );
    let (initial_held, held) = (fitted.start_loss, fitted.loss);
    eprintln!(
        "K = {k}: held-out loss {initial_held:.6} -> {held:.6}, training {:.6} -> {:.6}",
        loss(samples, &start.linear().map(f64::from), k, false),
        loss(samples, &fitted.weights.linear().map(f64::from), k, false)
    );
    let weights = fitted.weights;
    let mut text = format!(
        "# The tafl evaluation's weights (Fetlar and Copenhagen), from the defenders' side, in\n\
         # units of one attacker. Embedded in the engine (TaflWeights::default).\n\
         # Fitted by `--example tune_tafl` to {} games ({} positions), K = {k}:\n\
         # held-out logistic loss {initial_held:.6} -> {held:.6}.\n",
        data.games,
        samples.len()
    );
    text.push_str(&weights.write());
    match &options.out {
        Some(path) => {
            std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        None => print!("{text}"),
    }
    Ok(())
}

fn main() {
    if let Err(e) = run() {
        eprintln!("tune_tafl: {e}");
        std::process::exit(2);
    }
}
