//! Move generation, play/undo and perft: `cargo bench -p tafl`.
//!
//! Positions: the start, and the positions after 20 and 40 plies of the first archive
//! games long enough (`tests/data/`, from aagenielsen.dk), both sides to move.

#![allow(
    missing_docs,
    reason = "criterion_group! writes the public function `benches` without a doc comment"
)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use game::Game;
use tafl::{Rules, Tafl};

fn archive_positions() -> Vec<Tafl> {
    let text = include_str!("../tests/data/aagenielsen_archive_part1.csv");
    let mut positions = vec![Tafl::new(Rules::COPENHAGEN)];
    for line in text.lines().skip(1) {
        let moves: Vec<&str> = line.split(',').nth(1).unwrap().split_whitespace().collect();
        if moves.len() < 60 {
            continue;
        }
        let mut game = Tafl::new(Rules::COPENHAGEN.with_repetition(false));
        for (ply, text) in moves.iter().take(41).enumerate() {
            if ply == 20 || ply == 21 || ply == 40 {
                positions.push(game.clone());
            }
            let mv = game.parse_move(text).unwrap();
            game.play(mv);
        }
        if positions.len() >= 13 {
            break;
        }
    }
    positions
}

fn bench(c: &mut Criterion) {
    let positions = archive_positions();
    c.bench_function("legal_moves (13 positions)", |b| {
        let mut moves = Vec::with_capacity(256);
        b.iter(|| {
            let mut n = 0;
            for game in &positions {
                moves.clear();
                game.legal_moves(&mut moves);
                n += moves.len();
            }
            black_box(n)
        })
    });
    c.bench_function("count_moves (13 positions)", |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|g| g.position().count_moves())
                .sum::<u32>()
        })
    });
    c.bench_function("play+undo every move (13 positions)", |b| {
        let mut games = positions.clone();
        let mut moves = Vec::with_capacity(256);
        b.iter(|| {
            for game in games.iter_mut() {
                moves.clear();
                game.legal_moves(&mut moves);
                for &mv in &moves {
                    game.play(mv);
                    black_box(game.outcome());
                    game.undo();
                }
            }
        })
    });
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    group.bench_function("perft(3) from the start", |b| {
        let mut game = Tafl::new(Rules::COPENHAGEN);
        b.iter(|| game::perft(&mut game, 3))
    });
    group.bench_function("perft(4) from the start", |b| {
        let mut game = Tafl::new(Rules::COPENHAGEN);
        b.iter(|| game::perft(&mut game, 4))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
