//! Invariants over random playouts (ENGINEERING.md 8): a move is legal exactly when it
//! is in the legal list; the incremental hash equals the recomputed one; undo restores
//! the game exactly; notation round-trips; position strings round-trip.

use game::Game;
use proptest::prelude::*;
use tafl::{Move, Position, Rules, Square, Tafl};

/// Plays up to `choices.len()` moves, each picked by index from the legal list; stops
/// when the game ends. Checks the invariants at every step.
fn walk(rules: Rules, choices: &[usize], probes: &[(u8, u8)]) {
    let mut game = Tafl::new(rules);
    let mut history: Vec<(Tafl, Move)> = Vec::new();
    let mut moves = Vec::new();
    for (step, &choice) in choices.iter().enumerate() {
        moves.clear();
        game.legal_moves(&mut moves);
        // Legal list vs. is_legal, on listed moves and on arbitrary square pairs.
        for &mv in &moves {
            assert!(game.is_legal(mv), "{mv} listed but not legal");
        }
        let (a, b) = probes[step % probes.len()];
        let probe = Move::new(
            Square::from_index(a % 121).unwrap(),
            Square::from_index(b % 121).unwrap(),
        );
        assert_eq!(game.is_legal(probe), moves.contains(&probe), "{probe}");
        // No duplicates in the list.
        let mut sorted = moves.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), moves.len());
        if game.outcome().is_none() {
            assert_eq!(moves.len() as u32, game.position().count_moves());
        }
        if moves.is_empty() {
            assert!(game.outcome().is_some());
            break;
        }
        let mv = moves[choice % moves.len()];
        // Notation round-trips, strictly (with its captures).
        let text = game.format_move(mv);
        assert_eq!(game.parse_recorded_move(&text).unwrap(), mv, "{text}");
        // The position string round-trips.
        let pos = game.position();
        assert_eq!(
            Position::from_string_with_side(&pos.to_string_with_side()).unwrap(),
            *pos
        );
        history.push((game.clone(), mv));
        game.play(mv);
        assert_eq!(game.hash(), game.position().compute_hash());
        // The other side to move: only the side and its hash key change.
        let other = game.position().with_side_to_move(game.to_move().other());
        assert_eq!(other.hash(), other.compute_hash());
        assert_eq!(other.side_to_move(), game.to_move().other());
        assert_eq!(other.occupied(), game.position().occupied());
        assert_eq!(other.with_side_to_move(game.to_move()), *game.position());
        if game.outcome().is_some() {
            break;
        }
    }
    // Undo restores every earlier state exactly.
    while let Some((before, mv)) = history.pop() {
        assert_eq!(game.undo(), Some(mv));
        assert_eq!(game.position(), before.position());
        assert_eq!(game.hash(), before.hash());
        assert_eq!(game.outcome(), before.outcome());
        assert_eq!(game.ply(), before.ply());
    }
    assert_eq!(game.undo(), None);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn copenhagen_invariants_hold_on_random_playouts(
        choices in prop::collection::vec(any::<usize>(), 1..160),
        probes in prop::collection::vec((any::<u8>(), any::<u8>()), 1..20),
    ) {
        walk(Rules::COPENHAGEN, &choices, &probes);
    }

    #[test]
    fn fetlar_invariants_hold_on_random_playouts(
        choices in prop::collection::vec(any::<usize>(), 1..160),
        probes in prop::collection::vec((any::<u8>(), any::<u8>()), 1..20),
    ) {
        walk(Rules::FETLAR, &choices, &probes);
    }

    #[test]
    fn move_texts_never_panic(text in "\\PC{0,16}") {
        let game = Tafl::new(Rules::COPENHAGEN);
        let _ = game.parse_move(&text);
    }

    #[test]
    fn position_strings_never_panic(text in "[/0-9tTKx ]{0,80}") {
        let _ = Position::from_opentafl(&text, tafl::ATTACKERS);
        let _ = Position::from_string_with_side(&text);
    }
}
