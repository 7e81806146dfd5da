//! Finishing a won tafl game (issue 22): with few defenders left, or none of them able
//! to reach a corner, the evaluation counts the room the defenders lack, so that the
//! attackers squeeze them instead of shuffling a winning position to the 400-ply
//! adjudication.

use std::collections::VecDeque;
use std::sync::atomic::AtomicBool;

use engine::games::tafl::{TERM_NAMES, TaflEval};
use engine::{DefaultEngine, Evaluator, Limits};
use game::{Game, Player};
use tafl::{Bitboard, Direction, Position, Rules, Square, Tafl};

/// Copenhagen, the end of a self-play game of the engine before these terms (opening
/// `d1-d3 e5-e2 g1-g3 f4-c4`, 100,000 nodes a move): adjudicated a draw at 400 plies
/// with the attackers +1390. The king is shut in on `f11` (attackers on `e11`, `g11` and
/// `f10`), one defender is left (`d3`), against 14 attackers. Attackers to move.
const SHUT_KING: &str = "/11/2t5t2/1t1T5t1/11/11/11/11/11/1t1t3t1t1/2t2tt1t2/4tKt4/";

fn term(name: &str) -> usize {
    TERM_NAMES.iter().position(|n| *n == name).unwrap()
}

fn shut_king() -> Tafl {
    let position = Position::from_opentafl(SHUT_KING, Player::First).unwrap();
    Tafl::from_position(Rules::COPENHAGEN, position)
}

/// The squares the defenders and the king reach through squares free of attackers,
/// counted square by square.
fn room(pos: &Position) -> i32 {
    let attackers = pos.attackers();
    let mut seen = pos.defenders() | Bitboard::from_square(pos.king());
    let mut queue: VecDeque<Square> = seen.squares().collect();
    while let Some(sq) = queue.pop_front() {
        for dir in Direction::ALL {
            if let Some(next) = sq.step(dir)
                && !attackers.contains(next)
                && !seen.contains(next)
            {
                seen |= Bitboard::from_square(next);
                queue.push_back(next);
            }
        }
    }
    seen.count() as i32
}

#[test]
fn the_endgame_terms_count_the_room_the_defenders_lack() {
    let eval = TaflEval::default();
    let (mobility, room_term) = (term("defender_mobility"), term("endgame_room"));

    // At the start neither counts: twelve defenders, every corner in reach.
    let start = Tafl::new(Rules::COPENHAGEN);
    let terms = eval.terms(start.position(), true, true);
    assert_eq!((terms[mobility], terms[room_term]), (0, 0));

    // The defenders to move, so that the rules list their moves.
    let position = Position::from_opentafl(SHUT_KING, Player::Second).unwrap();
    let game = Tafl::from_position(Rules::COPENHAGEN, position);
    let pos = game.position();
    let terms = eval.terms(pos, true, true);
    // The lone defender's moves, as the rules list them (up to 40 count).
    let mut reach = Bitboard::EMPTY;
    for sq in pos.defenders().squares() {
        reach |= pos.destinations(sq);
    }
    assert!(reach.count() > 0 && reach.count() < 40);
    assert_eq!(terms[mobility], reach.count() as i32 - 40);
    // Every square but those the attackers hold or wall off (here only their own 14:
    // the lone defender reaches every other square, the king's among them).
    let room = room(pos);
    assert!(room <= 121 - 14, "{room}");
    assert_eq!(terms[room_term], room - 121);
    // Both weigh for the attackers here.
    let weights = eval.weights;
    assert!(weights.defender_mobility > 0 && weights.endgame_room > 0);
}

/// The engine as it plays on both sides, `nodes` a move with a table of `hash_mb`,
/// until the game ends or reaches `max_plies`.
fn play_out(mut game: Tafl, nodes: u64, hash_mb: usize, max_plies: usize) -> Tafl {
    let mut engine = DefaultEngine::<Tafl>::default();
    engine.set_hash_mb(hash_mb);
    let limits = Limits {
        nodes: Some(nodes),
        ..Limits::default()
    };
    let stop = AtomicBool::new(false);
    while game.outcome().is_none() && game.ply() < max_plies {
        let result = engine.search(&game, &limits, &stop, |_| {});
        game.play(result.best_move.unwrap());
    }
    game
}

#[test]
fn the_attackers_finish_a_won_game() {
    // Both sides the engine as it plays, 20,000 nodes a move: the attackers take the
    // last defender at ply 30. With the endgame terms' weights set to 0 they took 88
    // plies (and in the self-play game this comes from, with its history, shuffled on
    // past ply 700).
    let game = play_out(shut_king(), 20_000, 8, 60);
    let outcome = game.outcome().expect("the game ends within 60 plies");
    assert_eq!(outcome.winner, Some(Player::First), "{outcome:?}");
}

/// Fetlar, the end of a game of the engine as attackers (40 ms a move) against OpenTafl
/// (4 s a move), adjudicated a draw at 400 plies: the attackers have taken every
/// defender and sealed the four corners, and the lone king (`f9`) roams. Attackers to
/// move.
const LONE_KING: &str = "/2t5t2/1t7t1/t4K3tt/11/t10/1t6t1t/2t8/3t6t/t3t1tt1t1/1t3t2t2/2t8/";

#[test]
fn the_learned_correction_leaves_the_endgame_to_the_endgame_terms() {
    let game = Tafl::from_position(
        Rules::FETLAR,
        Position::from_opentafl(LONE_KING, Player::First).unwrap(),
    );
    let with_net = TaflEval::default();
    assert!(with_net.net.is_some());
    let without = TaflEval {
        net: None,
        ..with_net
    };
    // No defender left: the network adds nothing.
    assert_eq!(with_net.evaluate(&game), without.evaluate(&game));
    // In the middle game it does.
    let start = Tafl::new(Rules::FETLAR);
    assert_ne!(with_net.evaluate(&start), without.evaluate(&start));
}

#[test]
fn the_attackers_finish_a_lone_king() {
    // The engine as it plays on both sides, 40,000 nodes a move: the king is shut in
    // (no legal move) at ply 81. With the network counting here too, the attackers
    // shuffled past ply 300.
    let game = Tafl::from_position(
        Rules::FETLAR,
        Position::from_opentafl(LONE_KING, Player::First).unwrap(),
    );
    let game = play_out(game, 40_000, 16, 160);
    let outcome = game.outcome().expect("the game ends within 160 plies");
    assert_eq!(outcome.winner, Some(Player::First), "{outcome:?}");
}
