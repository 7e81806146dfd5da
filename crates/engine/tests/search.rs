//! The search's contract: limits and the stop flag end it, threads agree on legal moves,
//! levels stay sensible, progress is reported per depth.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use engine::{Clock, DefaultEngine, Level, Limits, Score};
use game::{Game, Player};
use tafl::{Position, Rules, Tafl};

mod common;

fn middlegame() -> Tafl {
    common::after(
        Rules::COPENHAGEN,
        "d1-d3 h6-h3 k8-i8 d6-d9 a5-c5 g7-j7 f10-j10 g5-j5xj6 f2-j2 g6-i6",
    )
}

fn engine() -> DefaultEngine<Tafl> {
    let mut engine = DefaultEngine::<Tafl>::default();
    engine.set_hash_mb(8);
    engine
}

#[test]
fn an_infinite_search_ends_when_the_stop_flag_is_set() {
    let game = middlegame();
    let engine = engine();
    let stop = Arc::new(AtomicBool::new(false));
    let setter = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            stop.store(true, Ordering::Relaxed);
        })
    };
    let started = Instant::now();
    let result = engine.search(&game, &Limits::infinite(), &stop, |_| {});
    setter.join().unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "stopped promptly"
    );
    assert!(game.is_legal(result.best_move.unwrap()));
}

#[test]
fn a_move_time_is_kept() {
    let game = middlegame();
    let engine = engine();
    let started = Instant::now();
    let result = engine.search(
        &game,
        &Limits::move_time(Duration::from_millis(150)),
        &AtomicBool::new(false),
        |_| {},
    );
    let spent = started.elapsed();
    assert!(
        spent >= Duration::from_millis(140),
        "used its time: {spent:?}"
    );
    assert!(
        spent < Duration::from_millis(1500),
        "kept to its time: {spent:?}"
    );
    assert!(result.depth >= 1);
}

#[test]
fn a_clock_with_little_time_gives_a_quick_move() {
    let game = middlegame();
    let engine = engine();
    let clock = Clock {
        remaining: [Duration::from_millis(300); 2],
        increment: [Duration::ZERO; 2],
        moves_to_go: None,
    };
    let started = Instant::now();
    let result = engine.search(
        &game,
        &Limits::clock(clock),
        &AtomicBool::new(false),
        |_| {},
    );
    assert!(started.elapsed() < Duration::from_millis(1000));
    assert!(result.best_move.is_some());
}

#[test]
fn a_node_limit_is_kept_and_deterministic() {
    let game = middlegame();
    let run = || {
        engine().search(
            &game,
            &Limits::nodes(20_000),
            &AtomicBool::new(false),
            |_| {},
        )
    };
    let (a, b) = (run(), run());
    assert!(a.nodes < 20_000 + 5_000, "{} nodes", a.nodes);
    assert_eq!(
        (a.nodes, a.best_move, a.score),
        (b.nodes, b.best_move, b.score)
    );
}

#[test]
fn progress_is_reported_once_per_depth_with_growing_node_counts() {
    let game = middlegame();
    let mut infos = Vec::new();
    let result = engine().search(&game, &Limits::depth(4), &AtomicBool::new(false), |info| {
        infos.push(info.clone());
    });
    let depths: Vec<u32> = infos.iter().map(|i| i.depth).collect();
    assert_eq!(depths, [1, 2, 3, 4]);
    assert!(infos.windows(2).all(|w| w[0].nodes <= w[1].nodes));
    let last = infos.last().unwrap();
    assert_eq!(last.pv, result.pv);
    // The principal variation is a sequence of legal moves.
    let mut line = game.clone();
    for &mv in &result.pv {
        assert!(line.is_legal(mv), "{mv} in the pv is legal");
        line.play(mv);
    }
}

#[test]
fn two_threads_find_a_legal_move_and_search_more_nodes_together() {
    let game = middlegame();
    let mut engine = engine();
    engine.set_threads(2);
    let result = engine.search(
        &game,
        &Limits::move_time(Duration::from_millis(300)),
        &AtomicBool::new(false),
        |_| {},
    );
    assert!(game.is_legal(result.best_move.unwrap()));
    assert!(result.nodes > 0);
}

#[test]
fn a_finished_game_has_no_move() {
    let pos = Position::from_string_with_side("/2K5t2/11/11/11/11/4T6/11/11/11/3t7/11/ defenders")
        .unwrap();
    let mut game = Tafl::from_position(Rules::FETLAR, pos);
    let escape = game.parse_move("c1-a1").unwrap();
    game.play(escape);
    assert!(game.outcome().is_some());
    let result = engine().search(&game, &Limits::depth(3), &AtomicBool::new(false), |_| {});
    assert_eq!(result.best_move, None);
    assert_eq!(result.score, Score::loss_in(0));
}

#[test]
fn every_level_takes_a_win_in_one_and_plays_legal_moves() {
    let pos = Position::from_string_with_side("/2K5t2/11/11/11/11/4T6/11/11/11/3t7/11/ defenders")
        .unwrap();
    let won = Tafl::from_position(Rules::FETLAR, pos);
    let game = middlegame();
    for level in Level::ALL {
        let mut engine = engine();
        engine.set_level(level);
        engine.set_seed(7);
        let limits = Limits::move_time(Duration::from_millis(200));
        let result = engine.search(&won, &limits, &AtomicBool::new(false), |_| {});
        assert_eq!(
            won.format_move(result.best_move.unwrap()),
            "c1-a1",
            "{level}"
        );
        let result = engine.search(&game, &limits, &AtomicBool::new(false), |_| {});
        assert!(game.is_legal(result.best_move.unwrap()), "{level}");
    }
}

#[test]
fn a_level_replays_the_same_game_with_the_same_seed_and_varies_with_others() {
    let start = Tafl::new(Rules::FETLAR);
    let play = |seed: u64| {
        let mut engine = engine();
        engine.set_level(Level::Beginner);
        engine.set_seed(seed);
        let mut game = start.clone();
        let mut moves = Vec::new();
        for _ in 0..6 {
            let result = engine.search(&game, &Limits::default(), &AtomicBool::new(false), |_| {});
            let mv = result.best_move.unwrap();
            moves.push(game.format_move(mv));
            game.play(mv);
        }
        moves
    };
    assert_eq!(play(1), play(1));
    let distinct: std::collections::BTreeSet<Vec<String>> = (0..6).map(play).collect();
    assert!(distinct.len() > 1, "different seeds, different games");
}

#[test]
fn beginner_avoids_a_loss_in_one() {
    // Attackers to move; the king on h1 threatens to slide to a1 and only e5-e1 blocks.
    let pos = Position::from_string_with_side(
        "/7Kt2/1TTT1TTt3/11/11/4t6/11/11/2t5t2/11/11/11/ attackers",
    )
    .unwrap();
    let game = Tafl::from_position(Rules::FETLAR, pos);
    for seed in 0..5 {
        let mut engine = engine();
        engine.set_level(Level::Beginner);
        engine.set_seed(seed);
        let result = engine.search(&game, &Limits::default(), &AtomicBool::new(false), |_| {});
        assert_eq!(game.format_move(result.best_move.unwrap()), "e5-e1");
    }
    assert_eq!(Player::First, game.to_move());
}
