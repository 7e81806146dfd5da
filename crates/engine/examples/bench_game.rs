//! The benchmark positions of one game only (`kingstable bench` searches every game's):
//! for profiling a game's search (`perf record`, `valgrind --tool=callgrind`) without
//! the others' samples.
//!
//! ```sh
//! cargo build --release -p engine --example bench_game
//! target/release/examples/bench_game camelot          # its default depth
//! target/release/examples/bench_game camelot 7 3      # depth 7, three times over
//! valgrind --tool=callgrind target/release/examples/bench_game camelot
//! ```
//!
//! Prints each position's nodes, time and best move, then the game's total nodes and
//! nodes per second (the node count is the game's part of the bench signature).

use std::time::Duration;

use engine::bench::{POSITIONS, camelot_game, default_depth, search_position, tafl_game};
use game::{Game, GameKind};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: bench_game fetlar|copenhagen|camelot [DEPTH] [REPEAT]";
    let Some(kind) = args.first().and_then(|g| g.parse::<GameKind>().ok()) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let number = |i: usize, default: u32| -> u32 {
        args.get(i)
            .map_or(Some(default), |a| a.parse().ok())
            .unwrap_or_else(|| {
                eprintln!("{usage}");
                std::process::exit(2);
            })
    };
    let depth = number(1, default_depth(kind)).max(1);
    let repeat = number(2, 1).max(1);
    let mut nodes = 0u64;
    let mut time = Duration::ZERO;
    for _ in 0..repeat {
        for position in POSITIONS.iter().filter(|p| p.game == kind) {
            let (n, t, best) = match kind {
                GameKind::Camelot => {
                    let game = camelot_game(position).expect("a bench position");
                    let (n, t, best, _) = search_position(&game, depth, 1);
                    (n, t, best.map(|m| game.format_move(m)))
                }
                _ => {
                    let game = tafl_game(position).expect("a bench position");
                    let (n, t, best, _) = search_position(&game, depth, 1);
                    (n, t, best.map(|m| game.format_move(m)))
                }
            };
            println!(
                "{:<45} {n:>10} {:>8.3}s {:>9.0}/s  {}",
                position.name,
                t.as_secs_f64(),
                n as f64 / t.as_secs_f64().max(1e-9),
                best.unwrap_or_default()
            );
            nodes += n;
            time += t;
        }
    }
    println!(
        "{kind}: {nodes} nodes in {:.3}s, {:.0} nodes/s",
        time.as_secs_f64(),
        nodes as f64 / time.as_secs_f64().max(1e-9)
    );
}
