//! `kingstable perft`: count the leaves of the game tree, the move generator's contract.

use std::io::IsTerminal;
use std::time::Instant;

use anyhow::Result;
use game::Game;

/// Prints `move: count` lines with `divide`, then the total alone on the last line.
/// Timing and (for deep runs on a terminal) progress go to stderr.
pub fn run<G: Game>(mut game: G, depth: u32, divide: bool) -> Result<()> {
    let started = Instant::now();
    let show_progress = !divide && depth >= 5 && std::io::stderr().is_terminal();
    let total = if divide || show_progress {
        let mut moves = Vec::new();
        game.legal_moves(&mut moves);
        let mut total = 0;
        for (i, &mv) in moves.iter().enumerate() {
            let text = game.format_move(mv);
            game.play(mv);
            let n = if depth <= 1 || game.outcome().is_some() {
                1
            } else {
                game::perft(&mut game, depth - 1)
            };
            game.undo();
            total += n;
            if divide {
                println!("{text}: {n}");
            } else {
                eprint!("\r[{}/{}] {total} leaves so far", i + 1, moves.len());
            }
        }
        if show_progress {
            eprintln!();
        }
        if depth == 0 { 1 } else { total }
    } else {
        game::perft(&mut game, depth)
    };
    let seconds = started.elapsed().as_secs_f64();
    eprintln!(
        "perft({depth}) in {seconds:.3} s ({:.1} M leaves/s)",
        total as f64 / seconds.max(1e-9) / 1e6
    );
    println!("{total}");
    Ok(())
}
