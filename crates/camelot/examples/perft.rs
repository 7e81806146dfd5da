//! Prints perft counts and timings: `cargo run --release -p camelot --example perft --
//! [max depth] [position string]`.

use std::time::Instant;

use camelot::Camelot;

fn main() {
    let mut args = std::env::args().skip(1);
    let max_depth: u32 = args.next().and_then(|d| d.parse().ok()).unwrap_or(4);
    let fen: Vec<String> = args.collect();
    let mut game = if fen.is_empty() {
        Camelot::start()
    } else {
        match Camelot::from_position_string(&fen.join(" ")) {
            Ok(game) => game,
            Err(err) => {
                eprintln!("bad position string: {err}");
                std::process::exit(2);
            }
        }
    };
    for depth in 1..=max_depth {
        let start = Instant::now();
        let nodes = game::perft(&mut game, depth);
        let secs = start.elapsed().as_secs_f64();
        println!(
            "perft({depth}) = {nodes:>13}  {secs:>8.3} s  {:>6.1} Mnodes/s",
            nodes as f64 / secs / 1e6
        );
    }
}
