//! In-process self-play: two configurations of the engine play each other from varied
//! openings, each opening twice with the sides swapped. A sanity check for levels and
//! search changes until the full match runner (`kingstable match`) is there.
//!
//! ```sh
//! cargo run --release -p engine --example selfplay -- \
//!     --game copenhagen --a maximum --b casual --games 12 --time-ms 200
//! ```
//!
//! Options: `--game fetlar|copenhagen|camelot`, `--a LEVEL`, `--b LEVEL`, `--games N`
//! (even), `--time-ms MS` or `--nodes N` per move, `--threads-a N`, `--threads-b N`,
//! `--max-plies N` (a draw after that many plies), `--jobs N` (games at once),
//! `--weights-a FILE`, `--weights-b FILE` (tafl evaluation weights, `name value` lines,
//! as `--example tune_tafl` writes them), `--verbose` (every move with its score),
//! `--once` (each opening once, A playing the first side: self-play of one
//! configuration at a fixed node count, where both games of an opening would be alike),
//! `--skip N` (leave out the first N games: `--games 9 --skip 8` replays game 9),
//! `--openings FILE` (one opening a line, `#` comments, as `bench/openings/tafl.txt`),
//! `--net-a FILE`, `--net-b FILE` (a learned correction, as `--example train_net`
//! writes it; `embedded` for the one in the binary; `none` for the hand-set terms alone;
//! the default is what the engine plays with).

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use engine::bench::opening_lines;
use engine::games::camelot::CamelotEval;
use engine::games::camelot_net::CamelotNet;
use engine::games::tafl::{TaflEval, TaflWeights};
use engine::games::tafl_net::TaflNet;
use engine::{Engine, EngineGame, Evaluator, Level, Limits};
use game::{GameKind, Player};

/// Openings: the first plies of real games (tafl: aagenielsen.dk archive; Camelot:
/// first moves from the WCF's list of sound ones, with a reply).
const TAFL_OPENINGS: &[&str] = &[
    "h1-h3 f4-i4 g1-i1 g5-g3",
    "d1-d3 f8-i8 j6-j9 e7-e10",
    "d1-d3 e5-e2 g1-g3 f4-c4",
    "d1-d3 e5-e2 f2-i2 d6-d9",
    "e1-e2 d6-d3 b6-b3 f8-i8",
    "b6-b10 f4-c4 a4-b4 d6-d4",
    "d1-d3 h6-h3 k4-k3 g7-g9",
    "a8-e8 d6-d8xe8 d11-d9 e6-d6",
    "b6-b10 d6-b6 f2-b2 e5-b5",
    "h1-h3 d6-d3 a4-a3 e5-b5",
    "d1-d3 h6-h3 k8-i8 d6-d9",
    "h1-h3 f4-i4 k8-i8 g5-g3",
    "k7-i7 f8-h8",
    "f10-f9 e7-c7",
    "j6-j3 g5-g3",
    "d11-d9 e7-c7",
];

const CAMELOT_OPENINGS: &[&str] = &[
    "D6-F8 H11-F9",
    "H6-H8 E11-G9",
    "C6-C5 J11-K10",
    "F7-F8 F11-F9",
    "H7-J7 H11-H9",
    "I6-G8 D11-F9",
    "E6-E5 H10-H9",
    "G7-G8 E10-E9",
];

#[derive(Clone, Debug)]
struct Options {
    game: GameKind,
    levels: [Level; 2],
    threads: [usize; 2],
    games: usize,
    time: Option<Duration>,
    nodes: Option<u64>,
    max_plies: usize,
    jobs: usize,
    /// Tafl weight files (`name value` lines) for A and B.
    weights: [Option<String>; 2],
    /// Print every move with its score and depth.
    verbose: bool,
    /// Each opening once, A playing the first side: for self-play of one configuration,
    /// whose two games of an opening would be the same game at a fixed node count.
    once: bool,
    /// Games to leave out at the start (to replay one game of a run).
    skip: usize,
    /// A file of openings (one a line, `#` comments) instead of the built-in ones.
    openings: Option<String>,
    /// Learned corrections (network files, `embedded` or `none`) for A and B.
    nets: [Option<String>; 2],
}

fn parse_options() -> Result<Options, String> {
    let mut options = Options {
        game: GameKind::Copenhagen,
        levels: [Level::Maximum, Level::Maximum],
        threads: [1, 1],
        games: 12,
        time: None,
        nodes: None,
        max_plies: 300,
        jobs: 1,
        weights: [None, None],
        verbose: false,
        once: false,
        skip: 0,
        openings: None,
        nets: [None, None],
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        if args[i] == "--verbose" {
            options.verbose = true;
            i += 1;
            continue;
        }
        if args[i] == "--once" {
            options.once = true;
            i += 1;
            continue;
        }
        let value = args
            .get(i + 1)
            .ok_or(format!("{} needs a value", args[i]))?;
        match args[i].as_str() {
            "--game" => options.game = value.parse().map_err(|e| format!("{e}"))?,
            "--a" => options.levels[0] = value.parse().map_err(|e| format!("{e}"))?,
            "--b" => options.levels[1] = value.parse().map_err(|e| format!("{e}"))?,
            "--threads-a" => options.threads[0] = value.parse().map_err(|_| "bad --threads-a")?,
            "--threads-b" => options.threads[1] = value.parse().map_err(|_| "bad --threads-b")?,
            "--games" => options.games = value.parse().map_err(|_| "bad --games")?,
            "--time-ms" => {
                options.time = Some(Duration::from_millis(
                    value.parse().map_err(|_| "bad --time-ms")?,
                ));
            }
            "--nodes" => options.nodes = Some(value.parse().map_err(|_| "bad --nodes")?),
            "--max-plies" => options.max_plies = value.parse().map_err(|_| "bad --max-plies")?,
            "--openings" => options.openings = Some(value.clone()),
            "--skip" => options.skip = value.parse().map_err(|_| "bad --skip")?,
            "--jobs" => options.jobs = value.parse().map_err(|_| "bad --jobs")?,
            "--weights-a" => options.weights[0] = Some(value.clone()),
            "--weights-b" => options.weights[1] = Some(value.clone()),
            "--net-a" => options.nets[0] = Some(value.clone()),
            "--net-b" => options.nets[1] = Some(value.clone()),
            other => return Err(format!("unknown option {other}")),
        }
        i += 2;
    }
    if options.time.is_none() && options.nodes.is_none() {
        options.time = Some(Duration::from_millis(200));
    }
    Ok(options)
}

/// The result of one game for engine A: 1, ½ or 0, and how it ended.
struct GameResult {
    score_a: f64,
    plies: usize,
    how: String,
}

fn play_game<G: EngineGame, E: Evaluator<G> + Clone>(
    start: &G,
    opening: &str,
    a_plays: Player,
    seed: u64,
    options: &Options,
    evals: &[E; 2],
) -> GameResult {
    let mut game = start.clone();
    for text in opening.split_whitespace() {
        let mv = game.parse_move(text).expect("the openings are legal");
        game.play(mv);
    }
    let mut engines: Vec<Engine<G, E>> = (0..2)
        .map(|i| {
            let mut engine = Engine::new(evals[i].clone());
            engine.set_level(options.levels[i]);
            engine.set_threads(options.threads[i]);
            engine.set_hash_mb(32);
            engine.set_seed(seed.wrapping_mul(31).wrapping_add(i as u64));
            engine
        })
        .collect();
    let limits = Limits {
        move_time: options.time,
        nodes: options.nodes,
        ..Limits::default()
    };
    let stop = AtomicBool::new(false);
    // The last search's score, from the first side's point of view.
    let mut last = engine::Score(0);
    while game.outcome().is_none() && game.ply() < options.max_plies {
        let engine = if game.to_move() == a_plays {
            &mut engines[0]
        } else {
            &mut engines[1]
        };
        let result = engine.search(&game, &limits, &stop, |_| {});
        let Some(mv) = result.best_move else { break };
        last = if game.to_move() == Player::First {
            result.score
        } else {
            engine::Score(-result.score.0)
        };
        if options.verbose {
            println!(
                "  {:>3}. {:<10} {:>10} depth {:>2} {:>8} nodes  {}",
                game.ply() + 1,
                game.format_move(mv),
                result.score.to_string(),
                result.depth,
                result.nodes,
                game.kind().side_name(game.to_move())
            );
        }
        game.play(mv);
    }
    match game.outcome() {
        Some(outcome) => GameResult {
            score_a: match outcome.winner {
                Some(w) if w == a_plays => 1.0,
                Some(_) => 0.0,
                None => 0.5,
            },
            plies: game.ply(),
            how: format!(
                "{} ({})",
                game.kind().status_name(Some(outcome)),
                outcome.reason
            ),
        },
        None => GameResult {
            score_a: 0.5,
            plies: game.ply(),
            how: format!(
                "draw (adjudicated, too long; {last} for {})",
                game.kind().side_name(Player::First)
            ),
        },
    }
}

fn run<G: EngineGame, E: Evaluator<G> + Clone>(
    start: G,
    openings: &[&str],
    options: &Options,
    evals: [E; 2],
) {
    let from_file;
    let openings: Vec<&str> = match &options.openings {
        Some(file) => match std::fs::read_to_string(file) {
            Ok(text) => {
                from_file = text;
                opening_lines(&from_file).map(|(_, line)| line).collect()
            }
            Err(e) => {
                eprintln!("selfplay: {file}: {e}");
                std::process::exit(2);
            }
        },
        None => openings.to_vec(),
    };
    if openings.is_empty() {
        eprintln!("selfplay: no openings");
        std::process::exit(2);
    }
    for opening in &openings {
        let mut game = start.clone();
        for text in opening.split_whitespace() {
            match game.parse_move(text) {
                Ok(mv) => game.play(mv),
                Err(e) => {
                    eprintln!("selfplay: opening {opening:?}: {e}");
                    std::process::exit(2);
                }
            }
        }
    }
    let total = options.games;
    let next = AtomicUsize::new(options.skip);
    let results: Mutex<Vec<(usize, GameResult, Player)>> = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..options.jobs.max(1) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= total {
                        break;
                    }
                    let opening = if options.once {
                        openings[i % openings.len()]
                    } else {
                        openings[(i / 2) % openings.len()]
                    };
                    let a_plays = if options.once || i.is_multiple_of(2) {
                        Player::First
                    } else {
                        Player::Second
                    };
                    let result = play_game(&start, opening, a_plays, i as u64 / 2, options, &evals);
                    let side = start.kind().side_name(a_plays);
                    println!(
                        "game {:>3}: A as {side:<9} {:>3} plies  {:<40} A scores {}   [{opening}]",
                        i + 1,
                        result.plies,
                        result.how,
                        result.score_a
                    );
                    results.lock().expect("results").push((i, result, a_plays));
                }
            });
        }
    });
    let results = results.into_inner().expect("results");
    let n = results.len() as f64;
    let score: f64 = results.iter().map(|(_, r, _)| r.score_a).sum();
    let wins = results.iter().filter(|(_, r, _)| r.score_a == 1.0).count();
    let losses = results.iter().filter(|(_, r, _)| r.score_a == 0.0).count();
    let by_side = |p: Player| {
        let games: Vec<_> = results.iter().filter(|(_, _, s)| *s == p).collect();
        let s: f64 = games.iter().map(|(_, r, _)| r.score_a).sum();
        (s, games.len())
    };
    let (first, nf) = by_side(Player::First);
    let (second, ns) = by_side(Player::Second);
    let fraction = score / n;
    let to_elo = |f: f64| {
        if f <= 0.0 || f >= 1.0 {
            f64::NAN
        } else {
            -400.0 * (1.0 / f - 1.0).log10()
        }
    };
    let elo = to_elo(fraction);
    // The 95% interval of the score (normal approximation over single games), as Elo.
    let variance = results
        .iter()
        .map(|(_, r, _)| (r.score_a - fraction).powi(2))
        .sum::<f64>()
        / n;
    let margin = 1.96 * (variance / n).sqrt();
    let (low, high) = (to_elo(fraction - margin), to_elo(fraction + margin));
    println!(
        "A ({}) vs B ({}): {score}/{n} = {:.1}% (+{wins} ={} -{losses}); A as {}: {first}/{nf}, as {}: {second}/{ns}; Elo diff {elo:+.0} (95%: {low:+.0} .. {high:+.0})",
        options.levels[0],
        options.levels[1],
        100.0 * fraction,
        results.len() - wins - losses,
        start.kind().side_name(Player::First),
        start.kind().side_name(Player::Second),
    );
}

fn main() {
    let options = match parse_options() {
        Ok(options) => options,
        Err(e) => {
            eprintln!("selfplay: {e}");
            std::process::exit(2);
        }
    };
    let tafl_evals = || -> Result<[TaflEval; 2], String> {
        let mut evals = [TaflEval::default(); 2];
        for (eval, file) in evals.iter_mut().zip(&options.weights) {
            if let Some(file) = file {
                let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
                eval.weights = TaflWeights::default()
                    .read(&text)
                    .map_err(|e| format!("{file}: {e}"))?;
            }
        }
        for (eval, file) in evals.iter_mut().zip(&options.nets) {
            eval.net = TaflNet::by_name(file.as_deref().unwrap_or("embedded"))?;
        }
        Ok(evals)
    };
    let result = match options.game {
        GameKind::Fetlar => tafl_evals().map(|evals| {
            run(
                tafl::Tafl::new(tafl::Rules::FETLAR),
                TAFL_OPENINGS,
                &options,
                evals,
            );
        }),
        GameKind::Copenhagen => tafl_evals().map(|evals| {
            run(
                tafl::Tafl::new(tafl::Rules::COPENHAGEN),
                TAFL_OPENINGS,
                &options,
                evals,
            );
        }),
        GameKind::Camelot => (|| -> Result<(), String> {
            let mut evals = [CamelotEval::default(); 2];
            for (eval, file) in evals.iter_mut().zip(&options.nets) {
                if let Some(file) = file {
                    eval.net = CamelotNet::by_name(file)?;
                }
            }
            run(camelot::Camelot::start(), CAMELOT_OPENINGS, &options, evals);
            Ok(())
        })(),
    };
    if let Err(e) = result {
        eprintln!("selfplay: {e}");
        std::process::exit(2);
    }
}
