//! Self-play data for a learned evaluation (`engine::train`): games of the engine
//! against itself at a fixed node count, from the match openings and a few random plies,
//! written one labelled position a line.
//!
//! ```sh
//! cargo run --release -p engine --example gen_net_data -- \
//!     --game copenhagen --games 898 --nodes 20000 --random-plies 3 --net none --out data.txt
//! ```
//!
//! Options: `--game fetlar|copenhagen|camelot`, `--games N`, `--first N` (the number of
//! the first game: runs with other numbers make other games), `--nodes N` a move,
//! `--random-plies N` (after the opening; default 6), `--max-plies N` (default 300),
//! `--openings FILE` (default `bench/openings/tafl.txt`, or `camelot.txt` beside it),
//! `--jobs N` (games at once), `--out FILE` (appended to), `--net embedded|none|FILE`
//! (the learned correction the engine plays with: by default what it plays with; the
//! first tafl network was trained on data made with `none`, the embedded one, the
//! second, on data made with the first). A given set of options
//! always writes the same games.

use std::io::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use engine::bench::opening_lines;
use engine::nnue::Network;
use engine::train::{GenOptions, NetGame, self_play};
use engine::{Engine, Level};
use game::GameKind;

struct Options {
    game: GameKind,
    play: GenOptions,
    games: u64,
    first: u64,
    jobs: usize,
    openings: Option<String>,
    out: String,
    net: Option<String>,
}

fn parse_options() -> Result<Options, String> {
    let mut options = Options {
        game: GameKind::Copenhagen,
        play: GenOptions {
            nodes: 5000,
            random_plies: 6,
            max_plies: 300,
        },
        games: 100,
        first: 0,
        jobs: 1,
        openings: None,
        out: String::new(),
        net: None,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        let [name, value] = pair else {
            return Err(format!("{} needs a value", pair[0]));
        };
        let number = |what: &str| value.parse::<u64>().map_err(|_| format!("bad {what}"));
        match name.as_str() {
            "--game" => options.game = value.parse().map_err(|e| format!("--game: {e}"))?,
            "--games" => options.games = number("--games")?,
            "--first" => options.first = number("--first")?,
            "--nodes" => options.play.nodes = number("--nodes")?.max(1),
            "--random-plies" => options.play.random_plies = number("--random-plies")? as usize,
            "--max-plies" => options.play.max_plies = number("--max-plies")? as usize,
            "--jobs" => options.jobs = (number("--jobs")? as usize).max(1),
            "--openings" => options.openings = Some(value.clone()),
            "--out" => options.out = value.clone(),
            "--net" => options.net = Some(value.clone()),
            other => return Err(format!("unknown option {other}")),
        }
    }
    if options.out.is_empty() {
        return Err("--out FILE is needed".into());
    }
    Ok(options)
}

fn run<G: NetGame>(start: G, options: &Options) -> Result<(), String> {
    let mut eval = G::Evaluator::default();
    if let Some(name) = &options.net {
        eval = G::with_net(&eval, Network::<G::Shape>::by_name(name)?);
    }
    let file = options.openings.clone().unwrap_or_else(|| {
        match options.game {
            GameKind::Camelot => "bench/openings/camelot.txt",
            _ => "bench/openings/tafl.txt",
        }
        .into()
    });
    let text = std::fs::read_to_string(&file).map_err(|e| format!("{file}: {e}"))?;
    let openings: Vec<&str> = opening_lines(&text).map(|(_, line)| line).collect();
    if openings.is_empty() {
        return Err(format!("{file}: no openings"));
    }
    let out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&options.out)
        .map_err(|e| format!("{}: {e}", options.out))?;
    let out = Mutex::new(std::io::BufWriter::new(out));
    let next = AtomicU64::new(0);
    let written = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    let failure = Mutex::new(None::<String>);
    let started = Instant::now();
    let fail = |e: String| *failure.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
    std::thread::scope(|scope| {
        for _ in 0..options.jobs {
            scope.spawn(|| {
                let mut engine = Engine::new(eval.clone());
                engine.set_level(Level::Maximum);
                engine.set_threads(1);
                engine.set_hash_mb(16);
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= options.games {
                        break;
                    }
                    let number = options.first + i;
                    let opening = openings[(number % openings.len() as u64) as usize];
                    match self_play(&mut engine, &start, opening, number, &options.play) {
                        Ok(records) => {
                            let mut out = out.lock().unwrap_or_else(|e| e.into_inner());
                            for record in &records {
                                if let Err(e) = writeln!(out, "{record}") {
                                    fail(e.to_string());
                                }
                            }
                            // Whole games in the file, should the run be stopped.
                            if let Err(e) = out.flush() {
                                fail(e.to_string());
                            }
                            let games = done.fetch_add(1, Ordering::SeqCst) + 1;
                            let total = written.fetch_add(records.len() as u64, Ordering::SeqCst)
                                + records.len() as u64;
                            eprintln!(
                                "game {number}: {} positions, result {} for the {}; {} games, {total} positions in {:.0?}",
                                records.len(),
                                records.first().map_or(0.5, |r| r.result),
                                options.game.side_name(G::LABELLED),
                                games,
                                started.elapsed()
                            );
                        }
                        Err(e) => fail(e),
                    }
                }
            });
        }
    });
    out.into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .flush()
        .map_err(|e| format!("{}: {e}", options.out))?;
    match failure.into_inner().unwrap_or_else(|e| e.into_inner()) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

fn main() {
    let result = parse_options().and_then(|options| match options.game {
        GameKind::Copenhagen => run(tafl::Tafl::new(tafl::Rules::COPENHAGEN), &options),
        GameKind::Fetlar => run(tafl::Tafl::new(tafl::Rules::FETLAR), &options),
        GameKind::Camelot => run(camelot::Camelot::start(), &options),
    });
    if let Err(e) = result {
        eprintln!("gen_net_data: {e}");
        std::process::exit(2);
    }
}
