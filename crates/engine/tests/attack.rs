//! Positions from the engine's own games (issue 22) in which the attackers lost to a
//! king walk beyond the search's horizon, and what the search now sees there.

use std::sync::atomic::AtomicBool;

use engine::games::tafl::{TaflEval, TaflWeights};
use engine::{DefaultEngine, Engine, Evaluator, Limits, Score, Threats};
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
    // The search is what is tested, so it runs on the hand-set terms: which moves a
    // shallow search reduces depends on the evaluation, and the learned correction is
    // retrained from time to time (the second network finds the walk at depth 5).
    let game = after(GAME_12_CAPTURE);
    let mut engine = Engine::new(TaflEval::with_weights(TaflWeights::default()));
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

/// Copenhagen, the engine with the network (attackers) against the engine before issue
/// 22 (defenders), 100 ms a move, ply 140 (bench/RESULTS.md, "Exit forts"): 19
/// attackers hold every corner's diagonal, and the king stands on the edge with a
/// defender on each side of him. The defenders built an exit fort there 88 plies
/// later; the attackers had judged themselves over 500 points ahead all along.
/// Attackers to move.
const FORT_IN_THE_MAKING: &str =
    "/3t3t3/2t1T3t2/tt6ttt/5TT4/8T2/10T/2T7K/t1T3T3T/t1TT5tt/1tt5t2/2t4tt2/";

#[test]
fn in_copenhagen_sealed_corners_count_no_room_while_the_king_can_reach_the_edge() {
    use engine::games::tafl::TERM_NAMES;
    use game::Player;
    use tafl::Position;

    let term = |name: &str| TERM_NAMES.iter().position(|n| *n == name).unwrap();
    let pos = Position::from_opentafl(FORT_IN_THE_MAKING, Player::First).unwrap();
    let eval = TaflEval::default();
    let copenhagen = eval.terms(&pos, true, true);
    let fetlar = eval.terms(&pos, false, true);
    // No corner is in the defenders' reach, and many edge squares are.
    assert_eq!(copenhagen[term("corner_closed")], -4);
    assert!(copenhagen[term("edge_reach")] > 0);
    // In Fetlar, where the edge wins nothing, the room they lack counts for the
    // attackers; in Copenhagen it does not, and the fort in the making does.
    assert!(
        fetlar[term("endgame_room")] < 0,
        "{}",
        fetlar[term("endgame_room")]
    );
    assert_eq!(copenhagen[term("endgame_room")], 0);
    assert_eq!(copenhagen[term("fort")], 1);
    assert_eq!(fetlar[term("fort")], 0);
    assert!(eval.weights.fort > eval.weights.corner_sealed * 4);
}
