//! `cargo run --release --manifest-path bench/peer-perft/Cargo.toml -- [DEPTH]`
//!
//! Perft from the Copenhagen start position, depths 1..=DEPTH (default 4), first with
//! Kingstable's `tafl` crate, then with the MIT-licensed `hnefatafl` crate 0.0.2, one core
//! each, in the same process, and prints the times and the ratio. Both count a
//! game-ending move as a leaf.

use std::time::Instant;

use hnefatafl::aliases::MediumBasicGame;
use hnefatafl::board::state::BoardState;
use hnefatafl::game::GameStatus;
use hnefatafl::play::Play;
use hnefatafl::preset::{boards, rules};

fn peer_perft(game: &mut MediumBasicGame, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let side = game.state.side_to_play;
    let tiles: Vec<_> = game
        .state
        .board
        .occupied_by_side(side)
        .into_iter()
        .collect();
    let mut total = 0;
    for tile in tiles {
        let plays: Vec<Play> = match game.iter_plays(tile) {
            Ok(iter) => iter.map(|valid| valid.play).collect(),
            Err(_) => continue,
        };
        for play in plays {
            if depth == 1 {
                total += 1;
                continue;
            }
            let status = game.do_play(play).expect("a listed play is valid");
            total += match status {
                GameStatus::Over(_) => 1,
                GameStatus::Ongoing => peer_perft(game, depth - 1),
            };
            game.undo_last_play();
        }
    }
    total
}

fn main() {
    let depth: u32 = std::env::args()
        .nth(1)
        .map(|d| d.parse().expect("DEPTH must be a number"))
        .unwrap_or(4);
    println!("perft from the Copenhagen start, one core each");
    println!(
        "{:>5} {:>12} {:>10} {:>10} {:>8}",
        "depth", "leaves", "ours s", "peer s", "ratio"
    );
    for d in 1..=depth {
        let mut ours = tafl::Tafl::new(tafl::Rules::COPENHAGEN);
        let started = Instant::now();
        let ours_count = game::perft(&mut ours, d);
        let ours_time = started.elapsed().as_secs_f64();

        let mut peer: MediumBasicGame =
            MediumBasicGame::new(rules::COPENHAGEN, boards::COPENHAGEN).expect("preset");
        let started = Instant::now();
        let peer_count = peer_perft(&mut peer, d);
        let peer_time = started.elapsed().as_secs_f64();

        let agree = if ours_count == peer_count {
            String::new()
        } else {
            format!("  (peer counts {peer_count})")
        };
        println!(
            "{d:>5} {ours_count:>12} {ours_time:>10.3} {peer_time:>10.3} {:>7.0}x{agree}",
            peer_time / ours_time.max(1e-9)
        );
    }
}
