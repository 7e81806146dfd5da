//! Perft from the start position and from a middlegame position (move generation,
//! make and undo through the `game::Game` trait, as search uses them).

#![allow(
    missing_docs,
    reason = "criterion_group! writes the public function `benches` without a doc comment"
)]

use std::hint::black_box;

use camelot::Camelot;
use criterion::{Criterion, criterion_group, criterion_main};

/// After `1. D6-F8 H11-F9 2. C6-E8-G8 J11-H11 3. H6-H8 E11-G9` (2009 WC game 1).
const MIDDLEGAME: &[&str] = &["D6-F8", "H11-F9", "C6-E8-G8", "J11-H11", "H6-H8", "E11-G9"];

fn middlegame() -> Camelot {
    let mut game = Camelot::start();
    for text in MIDDLEGAME {
        game.play_text(text).expect("the opening replays");
    }
    game
}

fn bench_perft(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    for depth in [2, 3] {
        group.bench_function(format!("start depth {depth}"), |b| {
            let mut game = Camelot::start();
            b.iter(|| game::perft(&mut game, black_box(depth)));
        });
    }
    group.bench_function("middlegame depth 3", |b| {
        let mut game = middlegame();
        b.iter(|| game::perft(&mut game, black_box(3)));
    });
    group.finish();
}

criterion_group!(benches, bench_perft);
criterion_main!(benches);
