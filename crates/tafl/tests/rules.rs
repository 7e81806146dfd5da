//! One test (at least) per numbered point of `docs/rules/TAFL.md`, named after it.
//! Positions are built square by square so each test shows exactly what it sets up.

use game::{EndReason, Game, Outcome};
use tafl::{
    ATTACKERS, Bitboard, DEFENDERS, IllegalReason, Move, Position, Rules, START, Square, Tafl,
};

fn sq(name: &str) -> Square {
    name.parse().unwrap()
}

fn set(squares: &str) -> Bitboard {
    squares.split_whitespace().map(sq).collect()
}

/// Attackers, defenders (without the king), the king, the side to move.
fn position(attackers: &str, defenders: &str, king: &str, side: game::Player) -> Position {
    Position::from_pieces(set(attackers), set(defenders), sq(king), side).unwrap()
}

fn game(rules: Rules, attackers: &str, defenders: &str, king: &str, side: game::Player) -> Tafl {
    Tafl::from_position(rules, position(attackers, defenders, king, side))
}

/// Plays `text` (which must be legal) and returns the captured squares as a sorted list.
fn play(game: &mut Tafl, text: &str) -> Vec<String> {
    let mv = game
        .parse_move(text)
        .unwrap_or_else(|e| panic!("{text}: {e}"));
    let result = game.play_move(mv).unwrap();
    result.captured.squares().map(|s| s.to_string()).collect()
}

fn illegal(game: &Tafl, text: &str) -> IllegalReason {
    match game.parse_move(text) {
        Err(tafl::MoveError::Illegal { reason, .. }) => reason,
        other => panic!("{text} should be illegal, got {other:?}"),
    }
}

const BOTH: [Rules; 2] = [Rules::FETLAR, Rules::COPENHAGEN];

// ---- 1. Board and pieces ----

#[test]
fn tafl_1_start_position() {
    let start = Position::start();
    assert_eq!(start.attackers().count(), 24);
    assert_eq!(start.defenders().count(), 12);
    assert_eq!(start.king(), Square::THRONE);
    assert_eq!(
        start.attackers(),
        set("d1 e1 f1 g1 h1 f2 a4 a5 a6 a7 a8 b6 k4 k5 k6 k7 k8 j6 d11 e11 f11 g11 h11 f10")
    );
    assert_eq!(
        start.defenders(),
        set("f4 e5 f5 g5 d6 e6 g6 h6 e7 f7 g7 f8")
    );
    assert_eq!(start.to_opentafl(), START);
}

#[test]
fn tafl_1_start_move_counts() {
    assert_eq!(Position::start().count_moves(), 116);
    let defenders_to_move = Position::from_opentafl(START, DEFENDERS).unwrap();
    assert_eq!(defenders_to_move.count_moves(), 60);
}

#[test]
fn tafl_1_position_strings_are_checked() {
    for (bad, why) in [
        ("/11/", "11 ranks"),
        (
            "/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3tttt3/",
            "rank 11",
        ),
        (
            "/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTTTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/",
            "one king",
        ),
        (
            "/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTx1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/",
            "'x'",
        ),
        (
            "/t2ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/",
            "a1",
        ),
        ("/99999999999999999999999t99999999999999999999/", "11 ranks"),
    ] {
        let err = Position::from_opentafl(bad, ATTACKERS).unwrap_err();
        assert!(err.to_string().contains(why), "{bad}: {err}");
    }
}

// ---- 2. Movement ----

#[test]
fn tafl_2a_pieces_move_like_rooks_without_jumping() {
    let g = game(Rules::FETLAR, "c3", "c5", "h8", ATTACKERS);
    assert_eq!(illegal(&g, "c3-c7"), IllegalReason::Blocked(sq("c5")));
    assert_eq!(illegal(&g, "c3-d4"), IllegalReason::NotStraight);
    assert!(g.parse_move("c3-c4").is_ok());
    assert!(g.parse_move("c3-k3").is_ok());
    // Every listed move is one to eleven squares along a line.
    for mv in g.position().legal_moves() {
        assert_ne!(mv.from, mv.to);
        assert!(mv.from.file() == mv.to.file() || mv.from.rank() == mv.to.rank());
    }
    assert_eq!(illegal(&g, "c3-c3"), IllegalReason::ZeroLength);
}

#[test]
fn tafl_2b_only_the_king_stops_on_throne_or_corners() {
    let g = game(Rules::FETLAR, "a3 f3", "c1", "h8", ATTACKERS);
    assert_eq!(illegal(&g, "a3-a1"), IllegalReason::Restricted);
    assert_eq!(illegal(&g, "f3-f6"), IllegalReason::Restricted);
    // The king may enter the throne, leave it and return.
    let mut g = game(Rules::FETLAR, "j2", "f9", "f7", DEFENDERS);
    for text in ["f7-f6", "j2-j3", "f6-f7", "j3-j2", "f7-f6"] {
        play(&mut g, text);
    }
    assert_eq!(g.position().king(), Square::THRONE);
}

#[test]
fn tafl_2b_a_defender_cannot_stop_on_the_throne() {
    let g = game(Rules::FETLAR, "j2", "f4", "b9", DEFENDERS);
    assert_eq!(illegal(&g, "f4-f6"), IllegalReason::Restricted);
    assert!(g.parse_move("f4-f7").is_ok());
}

#[test]
fn tafl_2c_pieces_pass_through_the_empty_throne() {
    let g = game(Rules::FETLAR, "f3 c6", "j9", "b9", ATTACKERS);
    assert!(g.parse_move("f3-f9").is_ok());
    assert!(g.parse_move("c6-j6").is_ok());
    let listed = g.position().legal_moves();
    assert!(listed.contains(&Move::new(sq("f3"), sq("f11"))));
    // With the king on it, the throne blocks.
    let g = game(Rules::FETLAR, "f3", "j9", "f6", ATTACKERS);
    assert_eq!(illegal(&g, "f3-f9"), IllegalReason::Blocked(Square::THRONE));
}

#[test]
fn tafl_2c_corners_end_a_line() {
    // A piece on the edge next to a corner cannot go through it: the corner ends the line.
    let g = game(Rules::FETLAR, "b1", "j9", "e5", ATTACKERS);
    assert!(g.position().legal_moves().iter().all(|m| m.to != sq("a1")));
    // c1..j1 along the edge (k1 is a corner), b2..b11 up the file.
    assert_eq!(g.position().destinations(sq("b1")).count(), 8 + 10);
}

#[test]
fn tafl_2d_a_player_must_move() {
    // There is no null move: every listed move changes the board.
    let g = Tafl::new(Rules::COPENHAGEN);
    let mut moves = Vec::new();
    g.legal_moves(&mut moves);
    assert!(moves.iter().all(|m| m.from != m.to));
    // A side that cannot move does not pass: it loses (see 9a).
    let g = game(Rules::FETLAR, "e1 g1 f2", "", "f1", DEFENDERS);
    assert_eq!(
        g.outcome(),
        Some(Outcome::win(ATTACKERS, EndReason::NoLegalMoves))
    );
}

// ---- 3. Custodial capture ----

#[test]
fn tafl_3a_custodial_capture_takes_up_to_three() {
    for rules in BOTH {
        let mut g = game(rules, "e2 c5 g5 e7", "d5 f5 e6", "j9", ATTACKERS);
        assert_eq!(play(&mut g, "e2-e5"), ["d5", "f5", "e6"]);
    }
}

#[test]
fn tafl_3a_diagonals_never_capture() {
    let mut g = game(Rules::COPENHAGEN, "c2 e5", "d4", "j9", ATTACKERS);
    assert!(play(&mut g, "c2-c3").is_empty());
    assert!(g.position().defenders().contains(sq("d4")));
}

#[test]
fn tafl_3b_only_the_moved_piece_captures() {
    // A defender moves between two attackers: it survives.
    let mut g = game(Rules::FETLAR, "d5 f5", "e9", "j9", DEFENDERS);
    assert!(play(&mut g, "e9-e5").is_empty());
    assert!(g.position().defenders().contains(sq("e5")));
    // And a later attacker move elsewhere does not capture it either.
    assert!(play(&mut g, "d5-d4").is_empty());
}

#[test]
fn tafl_3c_the_king_captures_and_is_an_anvil() {
    // The king moves (through the empty throne) and captures e5 against d5.
    let mut g = game(Rules::FETLAR, "e5 b2", "d5", "f9", DEFENDERS);
    assert_eq!(play(&mut g, "f9-f5"), ["e5"]);
    // The king is the far piece for a defender.
    let mut g = game(Rules::FETLAR, "e5 b2", "d9", "f5", DEFENDERS);
    assert_eq!(play(&mut g, "d9-d5"), ["e5"]);
}

#[test]
fn tafl_3d_the_king_is_never_taken_custodially() {
    let mut g = game(Rules::FETLAR, "c5 e9", "j9", "d5", ATTACKERS);
    assert!(play(&mut g, "e9-e5").is_empty());
    assert_eq!(g.position().king(), sq("d5"));
    assert_eq!(g.outcome(), None);
}

#[test]
fn tafl_3e_corners_are_hostile_to_everyone() {
    // A defender next to a corner is taken by one attacker.
    let mut g = game(Rules::FETLAR, "d1", "b1", "f9", ATTACKERS);
    assert_eq!(play(&mut g, "d1-c1"), ["b1"]);
    // An attacker next to a corner is taken by one defender.
    let mut g = game(Rules::FETLAR, "k2 c5", "k5", "f9", DEFENDERS);
    assert_eq!(play(&mut g, "k5-k3"), ["k2"]);
}

#[test]
fn tafl_3e_the_throne_is_always_hostile_to_attackers() {
    // Empty throne.
    let mut g = game(Rules::FETLAR, "f5 b2", "c4", "i9", DEFENDERS);
    assert_eq!(play(&mut g, "c4-f4"), ["f5"]);
    // The king on the throne is an anvil anyway.
    let mut g = game(Rules::FETLAR, "f5 b2", "c4", "f6", DEFENDERS);
    assert_eq!(play(&mut g, "c4-f4"), ["f5"]);
}

#[test]
fn tafl_3e_the_throne_is_hostile_to_defenders_only_while_empty() {
    let mut g = game(Rules::FETLAR, "c4", "f5", "i9", ATTACKERS);
    assert_eq!(play(&mut g, "c4-f4"), ["f5"]);
    // With the king on the throne, the defender beside it is safe.
    let mut g = game(Rules::FETLAR, "c4", "f5", "f6", ATTACKERS);
    assert!(play(&mut g, "c4-f4").is_empty());
}

#[test]
fn tafl_3e_the_edge_is_never_hostile() {
    let mut g = game(Rules::FETLAR, "c2", "e1", "i9", ATTACKERS);
    assert!(play(&mut g, "c2-e2").is_empty());
    let mut g = game(Rules::FETLAR, "b8", "a5", "i9", ATTACKERS);
    assert!(play(&mut g, "b8-b5").is_empty());
}

// ---- 4. Shieldwall (Copenhagen) ----

#[test]
fn tafl_4a_shieldwall_captures_a_faced_bracketed_row() {
    let setup = |rules| game(rules, "b5 f1 c2 d2 e2", "c1 d1 e1", "i9", ATTACKERS);
    let mut g = setup(Rules::COPENHAGEN);
    assert_eq!(play(&mut g, "b5-b1"), ["c1", "d1", "e1"]);
    // Fetlar has no shieldwall.
    let mut g = setup(Rules::FETLAR);
    assert!(play(&mut g, "b5-b1").is_empty());
}

#[test]
fn tafl_4a_every_member_must_be_faced() {
    let mut g = game(
        Rules::COPENHAGEN,
        "b5 f1 c2 e2",
        "c1 d1 e1",
        "i9",
        ATTACKERS,
    );
    assert!(play(&mut g, "b5-b1").is_empty());
}

#[test]
fn tafl_4a_defenders_shieldwall_attackers() {
    // The defender lands on k3 below the row k4-k6, bracketed by k7, faced by j4-j6.
    let mut g = game(
        Rules::COPENHAGEN,
        "k4 k5 k6 b2",
        "k7 j4 j5 j6 h3",
        "e5",
        DEFENDERS,
    );
    assert_eq!(play(&mut g, "h3-k3"), ["k4", "k5", "k6"]);
}

#[test]
fn tafl_4b_a_corner_brackets_a_row() {
    let mut g = game(Rules::COPENHAGEN, "d5 b2 c2", "b1 c1", "i9", ATTACKERS);
    assert_eq!(play(&mut g, "d5-d1"), ["b1", "c1"]);
}

#[test]
fn tafl_4c_the_row_ends_at_an_empty_square() {
    // c1 d1 then an empty e1 before the attacker on f1: no shieldwall.
    let mut g = game(Rules::COPENHAGEN, "b5 f1 c2 d2", "c1 d1", "i9", ATTACKERS);
    assert!(play(&mut g, "b5-b1").is_empty());
    // The row runs to the first friendly piece: c1 d1 bracketed by e1.
    let mut g = game(Rules::COPENHAGEN, "b5 e1 c2 d2", "c1 d1", "i9", ATTACKERS);
    assert_eq!(play(&mut g, "b5-b1"), ["c1", "d1"]);
}

#[test]
fn tafl_4d_closing_the_front_captures_nothing() {
    let mut g = game(Rules::COPENHAGEN, "b1 e1 c2 d5", "c1 d1", "i9", ATTACKERS);
    assert!(play(&mut g, "d5-d2").is_empty());
    assert_eq!(g.position().defenders(), set("c1 d1"));
}

#[test]
fn tafl_4e_the_king_takes_part_for_the_defenders() {
    // The king is the moving bracket.
    let mut g = game(Rules::COPENHAGEN, "c1 d1 a9", "b1 c2 d2", "e5", DEFENDERS);
    assert_eq!(play(&mut g, "e5-e1"), ["c1", "d1"]);
    // The king is a front piece.
    let mut g = game(Rules::COPENHAGEN, "c1 d1 a9", "b1 c2 e5", "d2", DEFENDERS);
    assert_eq!(play(&mut g, "e5-e1"), ["c1", "d1"]);
}

#[test]
fn tafl_4f_the_king_in_the_row_stays_but_his_defenders_go() {
    let mut g = game(Rules::COPENHAGEN, "b5 e1 c2 d2", "c1", "d1", ATTACKERS);
    assert_eq!(play(&mut g, "b5-b1"), ["c1"]);
    assert_eq!(g.position().king(), sq("d1"));
    // The king needs an attacker in front of him too.
    let mut g = game(Rules::COPENHAGEN, "b5 e1 c2", "c1", "d1", ATTACKERS);
    assert!(play(&mut g, "b5-b1").is_empty());
}

#[test]
fn tafl_4g_one_move_closes_walls_both_ways() {
    let mut g = game(
        Rules::COPENHAGEN,
        "b1 h1 c2 d2 f2 g2 e4",
        "c1 d1 f1 g1",
        "i9",
        ATTACKERS,
    );
    assert_eq!(play(&mut g, "e4-e1"), ["c1", "d1", "f1", "g1"]);
}

#[test]
fn tafl_4g_a_single_edge_piece_is_taken_only_custodially() {
    // No front piece is needed for a single piece: 3a takes it.
    let mut g = game(Rules::COPENHAGEN, "b1 d5", "c1", "i9", ATTACKERS);
    assert_eq!(play(&mut g, "d5-d1"), ["c1"]);
}

// ---- 5. Escape ----

#[test]
fn tafl_5a_king_on_a_corner_wins() {
    for rules in BOTH {
        let mut g = game(rules, "c5 d9", "e5", "a3", DEFENDERS);
        play(&mut g, "a3-a1");
        assert_eq!(
            g.outcome(),
            Some(Outcome::win(DEFENDERS, EndReason::CornerEscape))
        );
        let mut after = Vec::new();
        g.legal_moves(&mut after);
        assert!(after.is_empty());
    }
}

// ---- 6. Capturing the king ----

#[test]
fn tafl_6a_four_attackers_capture_the_king() {
    for rules in BOTH {
        let mut g = game(rules, "c4 e4 d5 d1", "j9", "d4", ATTACKERS);
        play(&mut g, "d1-d3");
        assert_eq!(
            g.outcome(),
            Some(Outcome::win(ATTACKERS, EndReason::KingCaptured))
        );
    }
}

#[test]
fn tafl_6b_three_attackers_suffice_beside_the_empty_throne() {
    let mut g = game(Rules::FETLAR, "e5 g5 f1", "j9", "f5", ATTACKERS);
    play(&mut g, "f1-f4");
    assert_eq!(
        g.outcome(),
        Some(Outcome::win(ATTACKERS, EndReason::KingCaptured))
    );
}

#[test]
fn tafl_6b_on_the_throne_four_are_needed() {
    let mut g = game(Rules::COPENHAGEN, "e6 g6 f1", "j9", "f6", ATTACKERS);
    play(&mut g, "f1-f5");
    assert_eq!(g.outcome(), None);
    let mut g = game(Rules::COPENHAGEN, "e6 g6 f7 f1", "j9", "f6", ATTACKERS);
    play(&mut g, "f1-f5");
    assert_eq!(
        g.outcome(),
        Some(Outcome::win(ATTACKERS, EndReason::KingCaptured))
    );
}

#[test]
fn tafl_6c_the_king_stepping_into_a_trap_is_not_captured() {
    let mut g = game(Rules::FETLAR, "c4 e4 d3 j2", "j9", "d8", DEFENDERS);
    play(&mut g, "d8-d4");
    assert_eq!(g.outcome(), None);
}

#[test]
fn tafl_6c_an_attacker_move_elsewhere_does_not_capture() {
    // Surrounded on four sides (set up by hand), but the attacker that moves is not one
    // of the four.
    let mut g = game(Rules::FETLAR, "c4 e4 d3 d5 j2", "j9", "d4", ATTACKERS);
    play(&mut g, "j2-j3");
    assert_eq!(g.outcome(), None);
}

#[test]
fn tafl_6c_the_moved_attacker_closes_the_trap() {
    let mut g = game(Rules::FETLAR, "c4 e4 d3 d9", "j9", "d4", ATTACKERS);
    play(&mut g, "d9-d5");
    assert_eq!(
        g.outcome(),
        Some(Outcome::win(ATTACKERS, EndReason::KingCaptured))
    );
}

#[test]
fn tafl_6d_the_king_cannot_be_captured_on_the_edge() {
    let mut g = game(Rules::FETLAR, "c1 e1 d5 a9", "j9", "d1", ATTACKERS);
    play(&mut g, "d5-d2");
    assert_eq!(g.outcome(), None);
}

#[test]
fn tafl_6e_a_captured_king_ends_the_game() {
    let mut g = game(Rules::COPENHAGEN, "c4 e4 d5 d1", "j9", "d4", ATTACKERS);
    play(&mut g, "d1-d3");
    let mut moves = Vec::new();
    g.legal_moves(&mut moves);
    assert!(moves.is_empty());
    assert!(matches!(
        g.parse_move("j9-j8"),
        Err(tafl::MoveError::GameOver { .. })
    ));
}

// ---- 7. Exit fort (Copenhagen) ----

/// King on f1 in a fort: e1 g1 e2 g2 e3 f3, with f2 the king's room.
const FORT_DEFENDERS: &str = "e1 g1 e2 g2 e3";

#[test]
fn tafl_7a_to_7e_a_closed_edge_fort_wins() {
    let mut g = game(
        Rules::COPENHAGEN,
        "a5 k9 b9",
        &format!("{FORT_DEFENDERS} f5"),
        "f1",
        DEFENDERS,
    );
    assert_eq!(g.outcome(), None);
    play(&mut g, "f5-f3");
    assert_eq!(
        g.outcome(),
        Some(Outcome::win(DEFENDERS, EndReason::ExitFort))
    );
}

#[test]
fn tafl_7_fetlar_has_no_exit_fort() {
    let mut g = game(
        Rules::FETLAR,
        "a5 k9 b9",
        &format!("{FORT_DEFENDERS} f5"),
        "f1",
        DEFENDERS,
    );
    play(&mut g, "f5-f3");
    assert_eq!(g.outcome(), None);
}

#[test]
fn tafl_7a_the_king_must_be_on_the_edge_and_able_to_move() {
    // The same shape one rank up: the king is not on the edge.
    let p = position("a5 k9", "e2 g2 e3 g3 e4 f4 f1", "f2", DEFENDERS);
    assert!(!p.is_exit_fort());
    // On the edge but boxed in by his own defenders: no fort.
    let p = position("a5 k9", "e1 g1 f2", "f1", DEFENDERS);
    assert!(!p.is_exit_fort());
}

#[test]
fn tafl_7b_no_attacker_may_touch_the_kings_region() {
    let p = position("a5 f3", "e1 g1 e2 g2 e3", "f1", DEFENDERS);
    assert!(!p.is_exit_fort());
}

#[test]
fn tafl_7c_every_wall_piece_must_be_unbreakable() {
    // Without e3, the wall piece f3 has no friend, room or edge beside it on its rank:
    // it could be captured, so there is no fort.
    let p = position("a5 k9", "e1 g1 e2 g2 f3", "f1", DEFENDERS);
    assert!(!p.is_exit_fort());
    let p = position("a5 k9", "e1 g1 e2 g2 e3 f3", "f1", DEFENDERS);
    assert!(p.is_exit_fort());
}

#[test]
fn tafl_7d_an_edge_run_of_the_wall_protected_from_inside() {
    // The king's room is f1 f2 g2 h2; the wall's edge run g1-h1 has its inward squares
    // g2 and h2 in the room, so no shieldwall can form against it: a fort.
    let p = position("a5 k9", "e1 g1 h1 i1 e2 i2 f3 g3 h3", "f1", DEFENDERS);
    assert!(p.is_exit_fort(), "{p}");
    let p = position("a5 i3", "e1 g1 h1 i1 e2 i2 f3 g3 h3", "f1", DEFENDERS);
    assert!(p.is_exit_fort(), "i3 touches only wall pieces");
    let p = position("a5", "e1 g1 h1 e2 i2 f3 g3 h3", "f1", DEFENDERS);
    assert!(!p.is_exit_fort(), "without i1, i2 can be captured");
}

#[test]
fn tafl_7e_the_fort_is_checked_after_attacker_moves_too() {
    // The attackers' move opens nothing: the fort stands and is declared after it.
    let mut g = Tafl::from_position(
        Rules::COPENHAGEN,
        position("a5 k9 b9", "e1 g1 e2 g2 e3 f3", "f1", ATTACKERS),
    );
    play(&mut g, "b9-b8");
    assert_eq!(
        g.outcome(),
        Some(Outcome::win(DEFENDERS, EndReason::ExitFort))
    );
}

// ---- 8. Encirclement ----

/// Attackers ringing e5..g7 orthogonally, with one gap at g8 (the attacker on g10 closes
/// it).
const RING: &str = "d5 d6 d7 h5 h6 h7 e4 f4 g4 e8 f8 g10";

#[test]
fn tafl_8a_closing_the_ring_wins() {
    for rules in BOTH {
        let mut g = game(rules, RING, "f5", "f6", ATTACKERS);
        play(&mut g, "g10-g8");
        assert_eq!(
            g.outcome(),
            Some(Outcome::win(ATTACKERS, EndReason::Encirclement))
        );
    }
}

#[test]
fn tafl_8a_a_defender_on_the_edge_is_never_encircled() {
    let mut g = game(Rules::COPENHAGEN, RING, "f5 a2", "f6", ATTACKERS);
    play(&mut g, "g10-g8");
    assert_eq!(g.outcome(), None);
}

#[test]
fn tafl_8a_a_defender_outside_the_ring_keeps_it_open() {
    let mut g = game(Rules::COPENHAGEN, RING, "f5 c9", "f6", ATTACKERS);
    play(&mut g, "g10-g8");
    assert_eq!(g.outcome(), None);
}

#[test]
fn tafl_8a_several_pockets_and_diagonal_gaps() {
    // Two separate pockets; the diagonal gaps (d4, h4, d8, h8 around the ring, a8, c8,
    // a10, c10 around b9) do not open them.
    let mut g = game(
        Rules::COPENHAGEN,
        &format!("{RING} a9 c9 b8 b10"),
        "f5 b9",
        "f6",
        ATTACKERS,
    );
    play(&mut g, "g10-g8");
    assert_eq!(
        g.outcome(),
        Some(Outcome::win(ATTACKERS, EndReason::Encirclement))
    );
}

#[test]
fn tafl_8b_encirclement_is_checked_after_defender_moves() {
    // Set up already encircled by hand (no move made it yet): the defenders' move
    // inside the ring is followed by the test.
    let mut g = Tafl::from_position(
        Rules::FETLAR,
        position("d5 d6 d7 h5 h6 h7 e4 f4 g4 e8 f8 g8", "f5", "f6", DEFENDERS),
    );
    assert_eq!(g.outcome(), None);
    play(&mut g, "f5-e5");
    assert_eq!(
        g.outcome(),
        Some(Outcome::win(ATTACKERS, EndReason::Encirclement))
    );
}

// ---- 9. No legal move ----

#[test]
fn tafl_9a_the_lone_king_boxed_in_on_the_edge_loses() {
    for rules in BOTH {
        let mut g = game(rules, "e1 g1 f5", "", "f1", ATTACKERS);
        play(&mut g, "f5-f2");
        assert_eq!(
            g.outcome(),
            Some(Outcome::win(ATTACKERS, EndReason::NoLegalMoves))
        );
    }
}

#[test]
fn tafl_9a_a_side_with_no_pieces_loses() {
    let mut g = game(Rules::COPENHAGEN, "e5", "e4", "e8", DEFENDERS);
    assert_eq!(play(&mut g, "e8-e6"), ["e5"]);
    assert_eq!(
        g.outcome(),
        Some(Outcome::win(DEFENDERS, EndReason::NoLegalMoves))
    );
}

#[test]
fn tafl_9a_attackers_without_a_move_lose_too() {
    // The attacker on b1 is boxed in by c1, b2 and the corner (set up by hand).
    let mut g = game(Rules::FETLAR, "b1", "c1 b2 d8", "f8", DEFENDERS);
    assert_eq!(g.outcome(), None);
    play(&mut g, "d8-d7");
    assert_eq!(
        g.outcome(),
        Some(Outcome::win(DEFENDERS, EndReason::NoLegalMoves))
    );
}

// ---- 10. Repetition ----

fn shuffle(g: &mut Tafl, times: usize) {
    for _ in 0..times {
        for text in ["a4-a3", "e5-e4", "a3-a4", "e4-e5"] {
            if g.outcome().is_some() {
                return;
            }
            play(g, text);
        }
    }
}

#[test]
fn tafl_10a_a_position_includes_the_side_to_move() {
    let a = position("a4", "e5", "j9", ATTACKERS);
    let b = position("a4", "e5", "j9", DEFENDERS);
    assert_ne!(a.hash(), b.hash());
}

#[test]
fn tafl_10b_copenhagen_third_repetition_wins_for_the_attackers() {
    let mut g = game(Rules::COPENHAGEN, "a4 k9", "e5", "j2", ATTACKERS);
    shuffle(&mut g, 1);
    assert_eq!(g.outcome(), None, "second occurrence");
    shuffle(&mut g, 1);
    assert_eq!(
        g.outcome(),
        Some(Outcome::win(ATTACKERS, EndReason::Repetition))
    );
    assert_eq!(g.ply(), 8);
}

#[test]
fn tafl_10c_fetlar_third_repetition_is_a_draw() {
    let mut g = game(Rules::FETLAR, "a4 k9", "e5", "j2", ATTACKERS);
    shuffle(&mut g, 2);
    assert_eq!(g.outcome(), Some(Outcome::draw(EndReason::Repetition)));
}

#[test]
fn tafl_10b_the_start_counts_as_the_first_occurrence() {
    let mut g = Tafl::new(Rules::COPENHAGEN);
    for _ in 0..2 {
        for text in ["d1-d2", "e5-e2", "d2-d1", "e2-e5"] {
            play(&mut g, text);
        }
    }
    assert_eq!(
        g.outcome(),
        Some(Outcome::win(ATTACKERS, EndReason::Repetition))
    );
}

#[test]
fn tafl_10d_repetition_counts_correctly_after_a_capture() {
    let mut g = game(Rules::COPENHAGEN, "a4 k8 c8", "e5 d8", "j2", ATTACKERS);
    shuffle(&mut g, 1);
    assert_eq!(play(&mut g, "k8-e8"), ["d8"]);
    for text in ["e5-e4", "e8-k8", "e4-e5"] {
        play(&mut g, text);
    }
    // The position after e8-k8 (ply 7, defenders to move, e4 occupied) recurs at plies
    // 11 and 15: the third occurrence ends the game at ply 15, the history before the
    // capture playing no part.
    shuffle(&mut g, 1);
    assert_eq!(g.outcome(), None);
    shuffle(&mut g, 1);
    assert_eq!(
        g.outcome(),
        Some(Outcome::win(ATTACKERS, EndReason::Repetition))
    );
    assert_eq!(g.ply(), 15);
}

#[test]
fn tafl_10e_repetition_can_be_switched_off() {
    let mut g = game(
        Rules::COPENHAGEN.with_repetition(false),
        "a4 k9",
        "e5",
        "j2",
        ATTACKERS,
    );
    shuffle(&mut g, 5);
    assert_eq!(g.outcome(), None);
    assert_eq!(g.ply(), 20);
    assert!(
        Rules::new(tafl::Variant::Copenhagen).repetition_ends_game(),
        "on by default"
    );
}

/// The other repetition rules an OpenTafl host may ask for (its `tfr` key): the third
/// occurrence is made by the attackers' a3-a4 at ply 8.
#[test]
fn repetition_rules_for_opentafl_hosts() {
    use tafl::Repetition;
    let outcome = |repetition: Repetition| {
        let mut g = game(
            Rules::COPENHAGEN.with_repetition_rule(repetition),
            "a4 k9",
            "e5",
            "j2",
            DEFENDERS,
        );
        for _ in 0..2 {
            for text in ["e5-e4", "a4-a3", "e4-e5", "a3-a4"] {
                play(&mut g, text);
            }
        }
        assert_eq!(g.ply(), 8);
        g.outcome()
    };
    let ended = |winner| Some(Outcome::win(winner, EndReason::Repetition));
    assert_eq!(outcome(Repetition::AttackersWin), ended(ATTACKERS));
    assert_eq!(
        outcome(Repetition::MoverLoses),
        ended(DEFENDERS),
        "tfr:w: the side to move wins"
    );
    assert_eq!(outcome(Repetition::MoverWins), ended(ATTACKERS));
    assert_eq!(
        outcome(Repetition::Draw),
        Some(Outcome::draw(EndReason::Repetition))
    );
    assert_eq!(outcome(Repetition::Ignored), None);
    assert_eq!(Rules::COPENHAGEN.repetition, Repetition::AttackersWin);
    assert_eq!(Rules::FETLAR.repetition, Repetition::Draw);
    for key in ["w", "l", "d", "i"] {
        let rule = Repetition::from_opentafl_key(key).unwrap();
        assert_eq!(rule.opentafl_key(), Some(key));
    }
    assert_eq!(Repetition::AttackersWin.opentafl_key(), None);
    assert_eq!(Repetition::from_opentafl_key("x"), None);
}

// ---- 11. Draws ----

#[test]
fn tafl_11a_no_mechanical_draw_for_few_pieces() {
    // A lone king against a single attacker plays on.
    let mut g = game(Rules::FETLAR, "b2", "", "f6", DEFENDERS);
    play(&mut g, "f6-f7");
    assert_eq!(g.outcome(), None);
}

#[test]
fn tafl_11b_no_draw_by_move_count_between_people() {
    let mut g = game(
        Rules::FETLAR.with_repetition(false),
        "a4 k9",
        "e5",
        "j2",
        ATTACKERS,
    );
    shuffle(&mut g, 60);
    assert_eq!(g.ply(), 240);
    assert_eq!(g.outcome(), None);
}

// ---- 12. Order of resolution ----

#[test]
fn tafl_12_king_capture_comes_before_encirclement() {
    // The lone king captured in mid-board is also encircled: capture is reported.
    let mut g = game(Rules::COPENHAGEN, "c4 e4 d5 d1", "", "d4", ATTACKERS);
    play(&mut g, "d1-d3");
    assert_eq!(
        g.outcome(),
        Some(Outcome::win(ATTACKERS, EndReason::KingCaptured))
    );
}

#[test]
fn tafl_12_captures_come_before_the_end_tests() {
    // The ring is closed; the last defender outside it is captured by the move, and the
    // encirclement test sees the board after the capture.
    let mut g = game(
        Rules::COPENHAGEN,
        "d5 d6 d7 h5 h6 h7 e4 f4 g4 e8 f8 g8 b2 d1",
        "f5 c2",
        "f6",
        ATTACKERS,
    );
    assert_eq!(play(&mut g, "d1-d2"), ["c2"]);
    assert_eq!(
        g.outcome(),
        Some(Outcome::win(ATTACKERS, EndReason::Encirclement))
    );
}

// ---- 13. Notation ----

#[test]
fn tafl_13_moves_print_with_their_captures() {
    let mut g = Tafl::new(Rules::COPENHAGEN);
    for text in ["d1-d3", "e5-e2", "g1-g3", "f4-c4"] {
        play(&mut g, text);
    }
    let mv = g.parse_move("g3-e3").unwrap();
    assert_eq!(g.format_move(mv), "g3-e3xe2");
    // The record's capture set is checked, in either notation, case-insensitively.
    assert!(g.parse_move("G3-E3XE2").is_ok());
    assert!(g.parse_move("g3-e3xe2xe2").is_ok());
    assert!(matches!(
        g.parse_move("g3-e3xe4"),
        Err(tafl::MoveError::CaptureMismatch { .. })
    ));
    // A record listing no capture claims none; casual input may leave them out.
    assert!(g.parse_recorded_move("g3-e3").is_err());
    assert!(g.parse_move("g3-e3").is_ok());
}

#[test]
fn tafl_13_king_prefix_and_slash_captures() {
    let g = game(Rules::FETLAR, "d2 j9", "d1", "d5", DEFENDERS);
    let mv = g.parse_move("Kd5-d3").unwrap();
    assert_eq!(g.format_move(mv), "d5-d3xd2");
    let g = game(
        Rules::COPENHAGEN,
        "b5 f1 c2 d2 e2",
        "c1 d1 e1",
        "i9",
        ATTACKERS,
    );
    let mv = g.parse_move("b5-b1xc1/d1/e1").unwrap();
    assert_eq!(g.format_move(mv), "b5-b1xc1xd1xe1");
    assert!(matches!(
        g.parse_move("b5-b1xc1/d1"),
        Err(tafl::MoveError::CaptureMismatch { .. })
    ));
}

#[test]
fn can_win_rule_9a_lets_even_a_lone_attacker_win() {
    for rules in BOTH {
        // One attacker may still win by shutting the defenders in (9a); the king may
        // still escape.
        let g = game(rules, "c3", "c5", "h8", ATTACKERS);
        assert!(g.can_win(ATTACKERS));
        assert!(g.can_win(DEFENDERS));
        // No attacker left: the attackers cannot win.
        let g = game(rules, "", "c5", "h8", DEFENDERS);
        assert!(!g.can_win(ATTACKERS));
        assert!(g.can_win(DEFENDERS));
    }
}
