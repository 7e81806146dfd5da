//! `cargo run --release -p tafl --example perft -- <depth>`: perft from the start,
//! timed, for quick measurements without the CLI.
use std::time::Instant;

use tafl::{Rules, Tafl};

fn main() {
    let depth = std::env::args()
        .nth(1)
        .and_then(|d| d.parse().ok())
        .unwrap_or(4);
    let mut game = Tafl::new(Rules::COPENHAGEN);
    for d in 1..=depth {
        let start = Instant::now();
        let n = game::perft(&mut game, d);
        println!("perft({d}) = {n} in {:.3} s", start.elapsed().as_secs_f64());
    }
}
