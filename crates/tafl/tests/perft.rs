//! Perft from the start, stored as data (`tests/data/start.perft`). Depth 4 is 50 million
//! leaves: about half a second in the workspace's test profile (opt-level 1).

use game::Game;
use tafl::{Rules, Tafl, Variant};

fn cases() -> Vec<(Variant, u32, u64)> {
    include_str!("data/start.perft")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (
                f[0].parse().unwrap(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
            )
        })
        .collect()
}

fn check(max_depth: u32) {
    let mut checked = 0;
    for (variant, depth, expected) in cases() {
        if depth > max_depth {
            continue;
        }
        let mut game = Tafl::new(Rules::new(variant));
        assert_eq!(
            game::perft(&mut game, depth),
            expected,
            "{variant} perft({depth})"
        );
        checked += 1;
    }
    assert!(checked > 0);
}

#[test]
fn tafl_14_perft_1_to_3_from_the_start() {
    check(3);
}

#[test]
fn tafl_14_perft_4_from_the_start() {
    check(4);
}

#[test]
fn perft_divide_sums_to_perft_and_leaves_the_game_unchanged() {
    let mut game = Tafl::new(Rules::COPENHAGEN);
    let before = game.hash();
    let divide = game::perft_divide(&mut game, 2);
    assert_eq!(divide.len(), 116);
    assert_eq!(divide.iter().map(|(_, n)| n).sum::<u64>(), 6788);
    assert_eq!(game.hash(), before);
    assert_eq!(game.ply(), 0);
}

#[test]
fn perft_counts_a_game_ending_move_as_a_leaf() {
    // The king can escape to a1 or a11 at once, or move elsewhere; after an escape the
    // game is over, so depth 2 counts the escapes once each.
    let position =
        tafl::Position::from_string_with_side("/11/11/11/11/11/K10/11/11/11/11/4t6/ defenders")
            .unwrap();
    let mut game = Tafl::from_position(Rules::FETLAR, position);
    let mut moves = Vec::new();
    game.legal_moves(&mut moves);
    let mut expected = 0;
    for &mv in &moves {
        game.play(mv);
        expected += if game.outcome().is_some() {
            1
        } else {
            game.position().count_moves() as u64
        };
        game.undo();
    }
    assert_eq!(game::perft(&mut game, 2), expected);
    assert!(moves.iter().filter(|m| m.to.is_corner()).count() == 2);
}

#[test]
fn from_the_start_a_count_is_sure_to_fit_in_64_bits_to_depth_7() {
    use game::{MoveBound, Player, deepest_countable};
    // 480 attacker moves and 260 defender moves at most: 480^4 * 260^3 < 2^64 <
    // 480^4 * 260^4.
    let game = tafl::Tafl::new(tafl::Rules::COPENHAGEN);
    assert_eq!(game.move_bound(Player::First), Some(480));
    assert_eq!(game.move_bound(Player::Second), Some(260));
    assert_eq!(deepest_countable(&game), Some(7));
}

#[test]
fn fewer_pieces_can_be_counted_deeper() {
    let position =
        tafl::Position::from_string_with_side("/11/11/11/t10/Kt9/t10/11/11/11/11/11/ d").unwrap();
    let game = tafl::Tafl::from_position(tafl::Rules::FETLAR, position);
    // 3 attackers (60 moves) and the king (20): 1200 per two plies.
    assert_eq!(game::deepest_countable(&game), Some(12));
}
