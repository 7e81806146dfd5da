//! Positions from the engine's own games (issue 22) in which the attackers lost to a
//! king walk beyond the search's horizon, and what the search now sees there.

use std::sync::atomic::AtomicBool;

use engine::games::tafl::TaflEval;
use engine::{DefaultEngine, Evaluator, Limits, Score, Threats};
use game::Game;
use tafl::{Rules, Tafl};

mod common;

fn after(moves: &str) -> Tafl {
    common::after(Rules::COPENHAGEN, moves)
}

/// Copenhagen self-play at 100 ms a move (bench/RESULTS.md, issue 22), game 12: the
/// attackers took a defender with `j3-j2xi2`, and the king walked `i3-k3`, `k3-j3`, then
/// to `j11` beside the corner `k11`, where no attacker can stop him.
const GAME_12_CAPTURE: &str = "a4-c4 d6-d3 b6-b3 e6-c6 f2-c2 f6-d6 d11-d9 d3-i3 j6-j3 i3-i4 \
    e1-e2 i4-i2 a5-b5 d6-d3 k5-i5 g7-i7 e2-h2 d3-i3 j3-j2xi2";

#[test]
fn the_king_walk_to_a_square_beside_a_corner_is_found_a_ply_sooner() {
    // Before the extension and the unstoppable-threat squares the search needed depth 4.
    let game = after(GAME_12_CAPTURE);
    let mut engine = DefaultEngine::<Tafl>::default();
    engine.set_hash_mb(8);
    let result = engine.search(&game, &Limits::depth(3), &AtomicBool::new(false), |_| {});
    assert_eq!(
        result.score,
        Score::win_in(7),
        "pv {:?}",
        engine::line_texts(&game, &result.pv)
    );
    assert_eq!(game.format_move(result.best_move.unwrap()), "i3-k3");
}

#[test]
fn a_king_that_can_reach_a_square_beside_a_corner_is_a_looming_threat() {
    // Self-play at 50 ms (bench/runs/issue22-selfplay-copenhagen-50ms, game 8): the king on
    // j9, the attackers to move; `j9-j1` puts him beside `k1`, and nothing can then stop
    // `j1-k1`.
    let eval = TaflEval::default();
    let looming = after(
        "j6-j10 f8-i8 f10-c10 f7-f10 b6-b9 f6-f9 j10-j9 f9-i9 h11-i11 i8-g8 k7-i7 i9-i10 \
         j9-j10 f10-f9 e11-e9 i10-i9 g11-g9xf9 i9-k9 j10-k10 k9-j9",
    );
    assert_eq!(eval.threats(&looming), Threats::Looming);
    // No attacker can reach a square of the j-file between the king and j1: every move
    // loses, and a one-ply search sees it.
    let mut engine = DefaultEngine::<Tafl>::default();
    engine.set_hash_mb(8);
    let result = engine.search(&looming, &Limits::depth(1), &AtomicBool::new(false), |_| {});
    assert_eq!(result.score, Score::loss_in(4));
    // At the start nothing looms.
    assert_eq!(eval.threats(&Tafl::new(Rules::COPENHAGEN)), Threats::None);
}
