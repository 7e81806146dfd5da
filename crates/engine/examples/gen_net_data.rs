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
//! `--first-nodes N` (nodes a move for the side that moves first, tafl's attackers:
//! games with odds), `--random-plies N` (after the opening; default 6), `--max-plies N` (default 300),
//! `--openings FILE` (default `bench/openings/tafl.txt`, or `camelot.txt` beside it),
//! `--jobs N` (games at once), `--out FILE` (appended to), `--net embedded|none|FILE`
//! (the learned correction the engine plays with: by default what it plays with; the
//! first tafl network was trained on data made with `none`, the embedded one, the
//! second, on data made with the first). A given set of options
//! always writes the same games.
//!
//! `--archive FILE` labels games played by people instead of playing its own: an
//! aagenielsen.dk CSV (`index,moves,recorded_winner,…`, as in
//! `crates/tafl/tests/data/aagenielsen_archive_part1.csv`), Copenhagen, replayed with
//! repetition off as they were played. Each game with a recorded winner or a draw is
//! written with that result and each quiet position with the search's score at
//! `--nodes`; its number is `--first` plus the archive's index, and `--games` (if
//! given) takes only the first N games.
//!
//! ```sh
//! cargo run --release -p engine --example gen_net_data -- --game copenhagen \
//!     --archive crates/tafl/tests/data/aagenielsen_archive_part1.csv \
//!     --first 5000000 --nodes 20000 --jobs 2 --out archive.txt
//! ```

use std::io::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use engine::bench::opening_lines;
use engine::games::tafl::TaflEval;
use engine::nnue::Network;
use engine::train::{GenOptions, NetGame, Record, archive_games, label_recorded_game, self_play};
use engine::{Engine, Level};
use game::GameKind;
use tafl::{Rules, Tafl};

struct Options {
    game: GameKind,
    play: GenOptions,
    games: u64,
    first: u64,
    jobs: usize,
    openings: Option<String>,
    out: String,
    net: Option<String>,
    archive: Option<String>,
    /// `--games` was given.
    games_given: bool,
}

fn parse_options() -> Result<Options, String> {
    let mut options = Options {
        game: GameKind::Copenhagen,
        play: GenOptions {
            nodes: 5000,
            first_nodes: None,
            random_plies: 6,
            max_plies: 300,
        },
        games: 100,
        first: 0,
        jobs: 1,
        openings: None,
        out: String::new(),
        net: None,
        archive: None,
        games_given: false,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        let [name, value] = pair else {
            return Err(format!("{} needs a value", pair[0]));
        };
        let number = |what: &str| value.parse::<u64>().map_err(|_| format!("bad {what}"));
        match name.as_str() {
            "--game" => options.game = value.parse().map_err(|e| format!("--game: {e}"))?,
            "--games" => {
                options.games = number("--games")?;
                options.games_given = true;
            }
            "--first" => options.first = number("--first")?,
            "--nodes" => options.play.nodes = number("--nodes")?.max(1),
            "--first-nodes" => options.play.first_nodes = Some(number("--first-nodes")?.max(1)),
            "--random-plies" => options.play.random_plies = number("--random-plies")? as usize,
            "--max-plies" => options.play.max_plies = number("--max-plies")? as usize,
            "--jobs" => options.jobs = (number("--jobs")? as usize).max(1),
            "--openings" => options.openings = Some(value.clone()),
            "--out" => options.out = value.clone(),
            "--net" => options.net = Some(value.clone()),
            "--archive" => options.archive = Some(value.clone()),
            other => return Err(format!("unknown option {other}")),
        }
    }
    if options.out.is_empty() {
        return Err("--out FILE is needed".into());
    }
    if options.archive.is_some() && options.game != GameKind::Copenhagen {
        return Err("--archive reads Copenhagen games: give --game copenhagen".into());
    }
    if options.archive.is_some() && options.play.first_nodes.is_some() {
        return Err(
            "--first-nodes is for self-play: --archive searches every position to --nodes".into(),
        );
    }
    Ok(options)
}

/// The evaluation the engine plays with: `--net`, or its default.
fn evaluator<G: NetGame>(options: &Options) -> Result<G::Evaluator, String> {
    let eval = G::Evaluator::default();
    Ok(match &options.net {
        Some(name) => G::with_net(&eval, Network::<G::Shape>::by_name(name)?),
        None => eval,
    })
}

fn run<G: NetGame>(start: G, options: &Options) -> Result<(), String> {
    let eval = evaluator::<G>(options)?;
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
    write_games(
        options,
        &eval,
        options.games,
        |engine: &mut Engine<G, G::Evaluator>, i| {
            let number = options.first + i;
            let opening = openings[(number % openings.len() as u64) as usize];
            self_play(engine, &start, opening, number, &options.play)
        },
    )
}

fn run_archive(file: &str, options: &Options) -> Result<(), String> {
    let eval = evaluator::<Tafl>(options)?;
    let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
    let (mut games, skipped) = archive_games(&text);
    if games.is_empty() {
        return Err(format!("{file}: no games with a result"));
    }
    eprintln!(
        "{file}: {} games with a result; {skipped} lines left out (no result, or not index,moves,winner)",
        games.len()
    );
    if options.games_given {
        games.truncate(options.games as usize);
    }
    let count = games.len() as u64;
    write_games(
        options,
        &eval,
        count,
        |engine: &mut Engine<Tafl, TaflEval>, i| {
            let game = &games[i as usize];
            let start = Tafl::new(Rules::COPENHAGEN.with_repetition(false));
            Ok(label_recorded_game(
                engine,
                start,
                &game.moves,
                options.first + game.index,
                options.play.nodes,
                game.result,
            ))
        },
    )
}

/// Plays or labels `count` games on `--jobs` threads, each with its own engine, and
/// appends their records to `--out` a whole game at a time, with progress.
fn write_games<G: NetGame>(
    options: &Options,
    eval: &G::Evaluator,
    count: u64,
    game: impl Fn(&mut Engine<G, G::Evaluator>, u64) -> Result<Vec<Record>, String> + Sync,
) -> Result<(), String> {
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
                    if i >= count {
                        break;
                    }
                    match game(&mut engine, i) {
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
                            let number = records.first().map_or(0, |r| r.game);
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
    let result = parse_options().and_then(|options| match (&options.archive, options.game) {
        (Some(file), _) => run_archive(file, &options),
        (None, game) => match game {
            GameKind::Copenhagen => run(Tafl::new(Rules::COPENHAGEN), &options),
            GameKind::Fetlar => run(Tafl::new(Rules::FETLAR), &options),
            GameKind::Camelot => run(camelot::Camelot::start(), &options),
        },
    });
    if let Err(e) = result {
        eprintln!("gen_net_data: {e}");
        std::process::exit(2);
    }
}
