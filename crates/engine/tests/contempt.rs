//! A draw's score for the side the search plays: levels 5 and 6 count a draw a little
//! worse than an even position, so they play on rather than repeat (issue 22).

use std::sync::atomic::AtomicBool;

use engine::games::tafl::{TaflEval, TaflWeights};
use engine::{DefaultEngine, Level, Limits, Score};
use game::Game;
use tafl::{Rules, Tafl};

/// Fetlar, level 5 (attackers) against level 6 at 3 s a move, game 8 of
/// `bench/runs/issue22-levels-fetlar-3s/level6`: the king, on the open third rank,
/// threatens a corner from either end; an attacker on the second rank follows him. The
/// defenders to move: the king can shuttle on until the position comes a third time (a
/// draw in Fetlar), which level 6 did.
const SHUTTLE: &str = "j6-j10 f8-i8 f10-c10 f7-f10 a8-f8 f10-h10 a7-d7 e5-d5 k8-j8 h10-h9 \
    a4-e4 g5-g4 a5-c5 f5-e5 k5-g5 g4-i4 f8-h8xi8 f4-g4xg5 f11-f7xe7 f6-f3 k7-h7xg7 f3-a3 \
    f2-a2 a3-b3 a2-b2";

mod common;

fn after(moves: &str) -> Tafl {
    common::after(Rules::FETLAR, moves)
}

/// With the hand-set evaluation alone, under which level 6 played the game (the learned
/// correction sees the defenders better off here, and finds more than a draw at once).
fn search(game: &Tafl, contempt: Option<i32>) -> (Score, Vec<String>) {
    let mut engine = DefaultEngine::<Tafl>::new(TaflEval::with_weights(TaflWeights::default()));
    engine.set_hash_mb(8);
    engine.set_contempt(contempt);
    let result = engine.search(game, &Limits::depth(8), &AtomicBool::new(false), |_| {});
    (result.score, engine::line_texts(game, &result.pv))
}

#[test]
fn level_6_plays_on_where_an_even_search_repeats_to_a_draw() {
    let game = after(SHUTTLE);
    // Without contempt the king's shuttle is the best he sees: a draw, scored even.
    let (even, line) = search(&game, Some(0));
    assert_eq!(even, Score::DRAW, "{line:?}");
    assert_eq!(line[..4], ["b3-k3", "b2-k2", "k3-b3", "k2-b2"]);
    // Level 6 (the default) counts that draw 100 worse for the defenders it plays, and
    // plays on: a line it judges better than the draw (a capture on the way), though
    // below even.
    let contempt = Level::Maximum.contempt(game.kind());
    assert_eq!(contempt, 100);
    let (played_on, line) = search(&game, None);
    assert!(
        played_on.0 > Score::DRAW.0 - contempt && played_on.0 < Score::DRAW.0,
        "{played_on:?} {line:?}"
    );
    assert!(line.iter().any(|mv| mv.contains('x')), "{line:?}");
    // The same search with the contempt given outright.
    assert_eq!(search(&game, Some(contempt)).0, played_on);
}

#[test]
fn only_levels_5_and_6_in_fetlar_count_a_draw_below_even() {
    use game::GameKind;
    for level in Level::ALL {
        for kind in GameKind::ALL {
            let expected = if kind == GameKind::Fetlar && level.number() >= 5 {
                100
            } else {
                0
            };
            assert_eq!(level.contempt(kind), expected, "{level} {kind}");
            assert_eq!(level.settings().contempt, 0);
        }
    }
}
