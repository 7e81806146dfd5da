//! One or more tests per numbered point of CAMELOT.md (R1–R4, S1–S10, W1–W3, D1–D4),
//! on positions built by hand. S5's reference position is in `reference.rs`.

mod common;

use camelot::{Bitboard, Camelot, Direction, Illegal, Move, Position, Square};
use common::*;
use game::{EndReason, Game, Outcome, Player};

/// The reason a move text is illegal (panics if it is legal or malformed).
fn illegal(pos: &Position, text: &str) -> Illegal {
    match pos.parse_move(text) {
        Err(err) => err
            .reason()
            .cloned()
            .unwrap_or_else(|| panic!("{text}: not an illegal move but {err}")),
        Ok(mv) => panic!("{text} is legal here ({mv:?})"),
    }
}

fn moves_from(pos: &Position, from: &str) -> Vec<String> {
    let mut texts: Vec<String> = pos
        .legal_moves_from(sq(from))
        .into_iter()
        .map(|m| pos.format_move(m))
        .collect();
    texts.sort();
    texts
}

fn captured(names: &[&str]) -> Bitboard {
    names.iter().map(|n| sq(n)).collect()
}

// ---------------------------------------------------------------------------- R1–R4

#[test]
fn camelot_r1_plain_move_one_step_in_any_direction() {
    let pos = position("ME5 MA13 mL4 mL5", 'w');
    assert_eq!(
        moves_from(&pos, "E5"),
        [
            "E5-D4", "E5-D5", "E5-D6", "E5-E4", "E5-E6", "E5-F4", "E5-F5", "E5-F6"
        ]
    );
    // A knight moves the same way; nothing moves onto an occupied square.
    let pos = position("NE5 ME6 MA13 mL4 mL5", 'w');
    let plain: Vec<Move> = pos
        .legal_moves_from(sq("E5"))
        .into_iter()
        .filter(|m| m.from.line_to(m.to).is_some_and(|(_, d)| d == 1))
        .collect();
    assert_eq!(plain.len(), 7);
    assert!(!plain.iter().any(|m| m.to == sq("E6")));
    assert_eq!(
        illegal(&pos, "E5-E6"),
        Illegal::Occupied { square: sq("E6") }
    );
}

/// White man E5 with friends E6, F7, G6, F5: canters E5-E7-G7-G5(-E5) and back.
fn canter_ring() -> Position {
    position("ME5 ME6 MF7 MG6 MF5 mL12 mL13", 'w')
}

#[test]
fn camelot_r2_canter_chains_change_direction_and_may_stop() {
    let pos = canter_ring();
    let from_e5 = moves_from(&pos, "E5");
    for text in ["E5-E7", "E5-E7-G7", "E5-G5"] {
        let mv = pos.parse_move(text).unwrap_or_else(|e| panic!("{e}"));
        assert!(pos.legal_moves().contains(&mv), "{text}");
    }
    assert!(from_e5.contains(&"E5-E7".to_owned()));
    assert!(from_e5.contains(&"E5-E7-G7".to_owned()) || from_e5.contains(&"E5-G5-G7".to_owned()));
    // The cantered pieces stay.
    let after = pos.play(pos.parse_move("E5-E7-G7").unwrap()).unwrap();
    for name in ["E6", "F7", "G6", "F5"] {
        assert!(after.pieces(Player::First).contains(sq(name)), "{name}");
    }
    assert_eq!(after.pieces(Player::First).count(), 5);
    // Plain moves stay legal: cantering is never compulsory.
    assert!(from_e5.contains(&"E5-D5".to_owned()));
}

#[test]
fn camelot_r2_canter_may_not_end_where_it_began() {
    let pos = canter_ring();
    assert_eq!(illegal(&pos, "E5-E7-G7-G5-E5"), Illegal::CanterReturns);
    assert!(!pos.legal_moves().iter().any(|m| m.from == m.to));
    // Passing on after the ring is fine: G5 is reached.
    assert!(pos.parse_move("E5-E7-G7-G5").is_ok());
}

/// White man E5; Black men E6, E8, F6: E5xE7 must go on, to E9 or G5; E5xG7 stops.
fn jump_tree() -> Position {
    position("ME5 MA13 mE6 mE8 mF6", 'w')
}

#[test]
fn camelot_r3_jumps_capture_and_must_continue() {
    let pos = jump_tree();
    assert_eq!(
        illegal(&pos, "E5xE7"),
        Illegal::MustGoOnJumping { at: sq("E7") }
    );
    let mv = pos.parse_move("E5xE7xE9").unwrap();
    assert_eq!(mv.captured, captured(&["E6", "E8"]));
    let after = pos.play(mv).unwrap();
    assert_eq!(after.pieces(Player::Second), captured(&["F6"]));
    assert_eq!(after.piece_at(sq("E9")).map(|p| p.0), Some(Player::First));
}

#[test]
fn camelot_r3_player_chooses_the_branch_and_need_not_capture_most() {
    let pos = jump_tree();
    assert_eq!(moves_from(&pos, "E5"), ["E5xE7xE9", "E5xE7xG5", "E5xG7"]);
    // E5xG7 takes one piece where the others take two: still legal.
    assert_eq!(pos.parse_move("e5xg7").unwrap().capture_count(), 1);
}

#[test]
fn camelot_r4_knight_charge_canters_then_jumps() {
    let pos = position("NE5 ME6 MA13 mE8 mL4", 'w');
    let charge = pos.parse_move("E5-E7xE9").unwrap();
    assert_eq!(charge.captured, captured(&["E8"]));
    assert!(pos.legal_moves().contains(&charge));
    // Never compulsory: no piece can jump at once, so quiet moves are legal too.
    assert!(pos.jumpers().is_empty());
    assert!(pos.parse_move("E5-D5").is_ok());
    assert!(pos.parse_move("E5-E7").is_err(), "E7 is next to E8: S5");
    // Jumps never come before canters.
    let pos = position("NE5 mE6 ME8 MA13 mL4", 'w');
    assert_eq!(illegal(&pos, "E5xE7-E9"), Illegal::CanterAfterJump);
}

#[test]
fn camelot_r4_once_jumping_has_begun_it_continues() {
    let pos = position("NE5 ME6 MA13 mE8 mE10 mL4", 'w');
    assert_eq!(
        illegal(&pos, "E5-E7xE9"),
        Illegal::MustGoOnJumping { at: sq("E9") }
    );
    let mv = pos.parse_move("E5-E7xE9xE11").unwrap();
    assert_eq!(mv.capture_count(), 2);
}

// ---------------------------------------------------------------------------- S1–S10

#[test]
fn camelot_s1_a_move_with_two_paths_is_listed_once() {
    let pos = canter_ring();
    let to_g7: Vec<Move> = pos
        .legal_moves()
        .into_iter()
        .filter(|m| m.from == sq("E5") && m.to == sq("G7"))
        .collect();
    assert_eq!(to_g7.len(), 1);
    let a = pos.parse_move("E5-E7-G7").unwrap();
    let b = pos.parse_move("E5-G5-G7").unwrap();
    assert_eq!(a, b);
    assert_eq!(a, to_g7[0]);
    // The canonical path takes the first direction clockwise from north.
    assert_eq!(pos.format_move(a), "E5-E7-G7");
}

/// White man E5 inside a ring of Black men D6, D8, F8, F6 around E7.
fn jump_ring() -> Position {
    position("ME5 MA13 mD6 mD8 mF8 mF6", 'w')
}

#[test]
fn camelot_s1_jumps_in_either_order_are_one_move() {
    let pos = jump_ring();
    let moves = pos.legal_moves_from(sq("E5"));
    assert_eq!(moves.len(), 1);
    let clockwise = pos.parse_move("E5xG7xE9xC7xE5").unwrap();
    let anticlockwise = pos.parse_move("E5xC7xE9xG7xE5").unwrap();
    assert_eq!(clockwise, anticlockwise);
    assert_eq!(clockwise, moves[0]);
    assert_eq!(pos.format_move(clockwise), "E5xG7xE9xC7xE5");
}

#[test]
fn camelot_s2_leaps_keep_parity_and_circular_jumps_are_allowed() {
    // A circular jump ends on its start square and is legal.
    let pos = jump_ring();
    let mv = pos.legal_moves_from(sq("E5"))[0];
    assert_eq!(
        (mv.from, mv.to, mv.capture_count()),
        (sq("E5"), sq("E5"), 4)
    );
    // Every leap keeps file and rank parity; a captured square never shares it.
    for pos in [
        Position::start(),
        s5_position(),
        canter_ring(),
        jump_tree(),
        jump_ring(),
    ] {
        for mv in pos.legal_moves() {
            let adjacent = mv.from.line_to(mv.to).is_some_and(|(_, d)| d == 1);
            if !adjacent {
                assert_eq!(mv.from.file() % 2, mv.to.file() % 2, "{mv:?}");
                assert_eq!(mv.from.rank() % 2, mv.to.rank() % 2, "{mv:?}");
            }
            for c in mv.captured {
                assert!(c.file() % 2 != mv.from.file() % 2 || c.rank() % 2 != mv.from.rank() % 2);
            }
        }
    }
}

#[test]
fn camelot_s3_a_captured_piece_leaves_at_once_and_is_jumped_once() {
    let pos = position("ME5 MA13 mE6 mL4", 'w');
    // Were E6 still there, the man could jump back over it to E5.
    assert_eq!(
        pos.legal_moves(),
        [Move {
            from: sq("E5"),
            to: sq("E7"),
            captured: captured(&["E6"])
        }]
    );
    assert_eq!(
        illegal(&pos, "E5xE7xE5"),
        Illegal::AlreadyCaptured { over: sq("E6") }
    );
    // Its square is empty at once: in the ring the man lands beyond each capture and
    // the circle closes on the start square.
    let ring = jump_ring();
    let after = ring.play(ring.legal_moves_from(sq("E5"))[0]).unwrap();
    assert!(after.pieces(Player::Second).is_empty());
}

#[test]
fn camelot_s4_capture_is_compulsory() {
    let pos = jump_tree();
    assert!(pos.legal_moves().iter().all(Move::is_capture));
    assert_eq!(
        illegal(&pos, "A13-A12"),
        Illegal::CaptureCompulsory { by: sq("E5") }
    );
    assert!(
        pos.parse_move("A13-A12")
            .unwrap_err()
            .to_string()
            .contains("capture is compulsory")
    );
}

#[test]
fn camelot_s4_player_chooses_which_piece_captures_and_may_charge_instead() {
    // Both E5 and H5 can jump; a knight on B4 can charge instead.
    let pos = position("ME5 MH5 NB4 MC5 mE6 mH6 mD7 mL12", 'w');
    let movers: std::collections::BTreeSet<_> = pos
        .legal_moves()
        .iter()
        .map(|m| m.from.to_string())
        .collect();
    assert!(movers.contains("E5") && movers.contains("H5"), "{movers:?}");
    // The knight's charges (over C5 to D6, then over E6 or D7) count as captures.
    for text in ["B4-D6xF6", "B4-D6xD8", "E5xE7xC7", "H5xH7"] {
        let mv = pos.parse_move(text).unwrap_or_else(|e| panic!("{e}"));
        assert!(pos.legal_moves().contains(&mv), "{text}");
    }
    assert!(pos.legal_moves().iter().all(Move::is_capture));
}

#[test]
fn camelot_s4_captures_only_by_charge_are_not_compulsory() {
    let pos = position("NE5 ME6 MA13 mE8 mL4", 'w');
    let moves = pos.legal_moves();
    assert!(moves.iter().any(Move::is_capture));
    assert!(moves.iter().any(|m| !m.is_capture()));
}

#[test]
fn camelot_s5_knight_canter_may_not_land_next_to_a_jump() {
    // Knight C5 canters over D6 to E7 (next to D8, which it could jump to C9), then over
    // F7 to G7.
    let pos = position("NC5 MD6 MF7 MA13 mD8 mL4", 'w');
    assert_eq!(
        illegal(&pos, "C5-E7-G7"),
        Illegal::KnightMustJump { at: sq("E7") }
    );
    assert_eq!(
        illegal(&pos, "C5-E7"),
        Illegal::KnightMustJump { at: sq("E7") }
    );
    assert!(pos.parse_move("C5-E7xC9").is_ok());
    // A man may canter past: S5 binds knights only.
    let pos = position("MC5 MD6 MF7 MA13 mD8 mL4", 'w');
    assert!(pos.parse_move("C5-E7-G7").is_ok());
    assert!(pos.parse_move("C5-E7").is_ok());
}

#[test]
fn camelot_s5_unless_it_captures_later_in_the_move() {
    // As above, with H8 to jump from G7: the charge passes E7 without jumping D8.
    let pos = position("NC5 MD6 MF7 MA13 mD8 mH8 mL4", 'w');
    let mv = pos.parse_move("C5-E7-G7xI9").unwrap();
    assert_eq!(mv.captured, captured(&["H8"]));
    assert!(pos.legal_moves().contains(&mv));
}

#[test]
fn camelot_s6_men_never_charge_and_plain_moves_stand_alone() {
    let pos = position("ME5 ME6 MA13 mE8 mL4", 'w');
    assert_eq!(illegal(&pos, "E5-E7xE9"), Illegal::ManCharge);
    assert!(pos.legal_moves().iter().all(|m| !m.is_capture()));
    assert_eq!(illegal(&pos, "E5-D5-D7"), Illegal::PlainNotAlone);
    assert_eq!(illegal(&pos, "E5-E7-E8"), Illegal::PlainNotAlone);
}

#[test]
fn camelot_s7_entering_the_opponents_castle_ends_a_canter() {
    let pos = position("MF14 MF15 ME15 MA4 mL4 mL5", 'w');
    assert!(pos.parse_move("F14-F16").is_ok());
    assert_eq!(
        illegal(&pos, "F14-F16-D14"),
        Illegal::EndedInCastle { at: sq("F16") }
    );
    assert!(
        !pos.legal_moves()
            .iter()
            .any(|m| m.from == sq("F14") && m.to == sq("D14"))
    );
}

#[test]
fn camelot_s7_entering_the_opponents_castle_ends_a_jump() {
    let pos = position("MF14 MA4 mF15 mE15 mL4", 'w');
    let mv = pos.parse_move("F14xF16").unwrap();
    assert_eq!(mv.captured, captured(&["F15"]));
    assert_eq!(
        illegal(&pos, "F14xF16xD14"),
        Illegal::EndedInCastle { at: sq("F16") }
    );
    assert_eq!(pos.legal_moves_from(sq("F14")), [mv]);
}

#[test]
fn camelot_s8_castle_moves_up_to_the_limit() {
    let mut game = Camelot::new(position("MF16 MA4 mL12 mK12", 'w'));
    let pos = *game.position();
    assert_eq!(moves_from(&pos, "F16"), ["F16-G16"]);
    assert_eq!(
        illegal(&pos, "F16-F15"),
        Illegal::LeavesCastle { square: sq("F16") }
    );
    for (i, text) in ["F16-G16", "L12-L11", "G16-F16", "L11-L12"]
        .iter()
        .enumerate()
    {
        game.play_text(text).unwrap_or_else(|e| panic!("{e}"));
        if i == 0 {
            assert_eq!(game.position().castle_moves(Player::First), 1);
            assert!(
                game.position_string().ends_with(" b 1 0 0"),
                "{}",
                game.position_string()
            );
        }
    }
    let pos = *game.position();
    assert_eq!(pos.castle_moves(Player::First), 2);
    assert!(moves_from(&pos, "F16").is_empty());
    assert_eq!(
        illegal(&pos, "F16-G16"),
        Illegal::CastleMovesUsed { side: "White" }
    );
    // The counts belong to the position: the same board with other counts hashes apart.
    let fresh = position("MF16 MA4 mL12 mK12", 'w');
    assert_eq!(pos.pieces(Player::First), fresh.pieces(Player::First));
    assert_ne!(pos.hash(), fresh.hash());
    assert!(!pos.same_position(&fresh));
}

#[test]
fn camelot_s8_a_piece_in_the_opponents_castle_never_leaves_it() {
    // F16 could jump E15 to D14 were it not in Black's castle.
    let pos = position("MF16 MA4 mE15 mL4", 'w');
    assert!(pos.jumpers().is_empty());
    assert_eq!(moves_from(&pos, "F16"), ["F16-G16"]);
    assert_eq!(
        illegal(&pos, "F16xD14"),
        Illegal::LeavesCastle { square: sq("F16") }
    );
}

#[test]
fn camelot_s8_pieces_on_castle_squares_cannot_be_jumped_or_cantered_over() {
    // Black pieces in White's castle, White men beside them: nothing lies beyond.
    let pos = position("MF2 MG2 MH2 MA4 mF1 mG1", 'b');
    assert_eq!(
        pos.outcome(),
        Some(Outcome::win(Player::Second, EndReason::Castle))
    );
    let pos = position("MF2 ME2 MA4 mF1 mL12", 'w');
    assert!(pos.jumpers().is_empty(), "F1 cannot be jumped");
    // Geometrically, nothing lies beyond a castle square in any direction from any of
    // its neighbours, so no leap of any kind passes over one.
    for c in [Square::F1, Square::G1, Square::F16, Square::G16] {
        for dir in Direction::ALL {
            if let Some(beside) = c.step(dir.opposite()) {
                assert_eq!(c.step(dir), None, "{beside} over {c}");
            }
        }
    }
    // A White man beside Black men on F16 and G16 has nothing to jump.
    let pos = position("MF15 MA4 mF16 mL12", 'w');
    assert!(pos.jumpers().is_empty());
}

#[test]
fn camelot_s9_own_castle_only_by_jumping() {
    let pos = position("MF2 MA4 mL12 mL13", 'w');
    // E1 does not exist and F1, G1 are White's castle: five plain moves are left.
    assert_eq!(
        moves_from(&pos, "F2"),
        ["F2-E2", "F2-E3", "F2-F3", "F2-G2", "F2-G3"]
    );
    assert_eq!(illegal(&pos, "F2-F1"), Illegal::OwnCastlePlain);
    assert_eq!(illegal(&pos, "F2-G1"), Illegal::OwnCastlePlain);
    let pos = position("MF3 MF2 MA4 mL12 mL13", 'w');
    assert_eq!(
        illegal(&pos, "F3-F1"),
        Illegal::OwnCastleCanter { square: sq("F1") }
    );
    let pos = position("MF3 MA4 mF2 mL13", 'w');
    let mv = pos.parse_move("F3xF1").unwrap();
    assert_eq!(mv.captured, captured(&["F2"]));
    // The jumping part of a charge may enter too.
    let pos = position("NF5 MF4 MA4 mF2 mL13", 'w');
    assert!(pos.jumpers().is_empty());
    assert!(
        pos.legal_moves()
            .contains(&pos.parse_move("F5-F3xF1").unwrap())
    );
}

#[test]
fn camelot_s10_jump_into_own_castle_and_out_again() {
    let pos = position("MF3 MA4 mF2 mG2 mL13", 'w');
    assert_eq!(
        illegal(&pos, "F3xF1"),
        Illegal::MustGoOnJumping { at: sq("F1") }
    );
    let mv = pos.parse_move("F3xF1xH3").unwrap();
    assert_eq!(mv.captured, captured(&["F2", "G2"]));
    assert_eq!(pos.legal_moves(), [mv]);
}

#[test]
fn camelot_s10_piece_in_own_castle_must_leave_whatever_captures_exist() {
    // E4 stops Black's E6 from jumping E5.
    let mut game = Camelot::new(position("MF3 ME5 ME4 MA4 mF2 mL12 mK12 mE6", 'w'));
    // E5 could take E6, but F3 may take F2 instead and land in its castle.
    game.play_text("F3xF1").unwrap();
    game.play_text("L12-L11").unwrap();
    let pos = *game.position();
    assert_eq!(pos.must_leave_castle(), Some(sq("F1")));
    assert!(pos.jumpers().is_empty(), "only the castle piece counts");
    let moves = moves_from(&pos, "F1");
    assert!(!moves.is_empty());
    assert_eq!(pos.legal_moves().len(), moves.len());
    assert!(moves.iter().all(|t| !t.contains("G1")), "{moves:?}");
    assert_eq!(
        illegal(&pos, "E5xE7"),
        Illegal::MustLeaveCastle {
            side: "White",
            square: sq("F1")
        }
    );
}

#[test]
fn camelot_s10_leaving_the_castle_it_must_jump_if_it_can() {
    let pos = position("MF1 MA4 mF2 mL12", 'w');
    assert_eq!(moves_from(&pos, "F1"), ["F1xF3"]);
    assert_eq!(
        illegal(&pos, "F1-E2"),
        Illegal::MustJumpOutOfCastle { square: sq("F1") }
    );
}

#[test]
fn camelot_s10_leaving_by_charge_is_not_compulsory() {
    // The knight on F1 can charge over F2 and jump F4, but cannot jump at once.
    let pos = position("NF1 MF2 MA4 mF4 mL12", 'w');
    assert!(pos.jumpers().is_empty());
    assert_eq!(moves_from(&pos, "F1"), ["F1-E2", "F1-F3xF5", "F1-G2"]);
    assert_eq!(pos.legal_moves().len(), 3, "only the castle piece moves");
}

#[test]
fn camelot_s10_a_jump_out_that_circles_back_into_the_castle_is_allowed() {
    // From F1 every jump sequence takes F2, G3 and G2 and ends on F1 again. Reading S10
    // as forbidding it would leave White without a legal move although it must jump, so
    // the move is allowed, and White must leave its castle again next turn.
    let pos = position("MF1 MA4 MB5 mF2 mG2 mG3 mL12 mL13", 'w');
    let mv = pos.parse_move("F1xF3xH3xF1").unwrap();
    assert_eq!(pos.parse_move("F1xH3xF3xF1").unwrap(), mv);
    assert_eq!(pos.legal_moves(), [mv]);
    let after = pos.play(mv).unwrap();
    assert_eq!(after.pieces(Player::Second).count(), 2);
}

#[test]
fn camelot_s10_stuck_in_own_castle_means_no_legal_move() {
    // F1 is walled in by Black men that cannot be jumped; A4 could move but may not.
    let pos = position("MF1 MA4 mE2 mF2 mG2 mD3 mF3 mH3", 'w');
    assert!(pos.legal_moves().is_empty());
    assert_eq!(
        illegal(&pos, "A4-A5"),
        Illegal::MustLeaveCastle {
            side: "White",
            square: sq("F1")
        }
    );
    assert_eq!(
        pos.outcome(),
        Some(Outcome::win(Player::Second, EndReason::NoLegalMoves))
    );
}

// ---------------------------------------------------------------------------- W1–W3

#[test]
fn camelot_w1_two_pieces_in_castle_win() {
    let mut game = Camelot::new(position("MF16 MG14 MA4 mL4 mL5", 'w'));
    game.play_text("G14-G15").unwrap();
    assert_eq!(
        game.outcome(),
        None,
        "one piece in the castle is not enough"
    );
    game.play_text("L5-L6").unwrap();
    game.play_text("G15-G16").unwrap();
    assert_eq!(
        game.outcome(),
        Some(Outcome::win(Player::First, EndReason::Castle))
    );
    let mut moves = Vec::new();
    game.legal_moves(&mut moves);
    assert!(moves.is_empty());
}

#[test]
fn camelot_w2_capturing_every_piece_while_keeping_two_wins() {
    let mut game = Camelot::new(position("ME5 MA4 mE6", 'w'));
    game.play_text("E5xE7").unwrap();
    assert_eq!(
        game.outcome(),
        Some(Outcome::win(Player::First, EndReason::Elimination))
    );
    // With one piece left the capture of the last enemy piece is only a draw (D1).
    let mut game = Camelot::new(position("ME5 mE6 mL4", 'w'));
    game.play_text("E5xE7").unwrap();
    assert_eq!(game.outcome(), Some(Outcome::draw(EndReason::Material)));
}

#[test]
fn camelot_w2_capturing_all_but_one_does_not_win() {
    let mut game = Camelot::new(position("ME5 MA4 mE6 mL12", 'w'));
    game.play_text("E5xE7").unwrap();
    assert_eq!(game.outcome(), None);
}

#[test]
fn camelot_w3_no_legal_move_loses_against_two_pieces() {
    // Black's only piece sits in White's castle with its castle moves used up.
    let pos = position_with("MA4 MB4 mF1", 'b', [0, 2], 0);
    assert!(pos.legal_moves().is_empty());
    assert_eq!(
        pos.outcome(),
        Some(Outcome::win(Player::First, EndReason::NoLegalMoves))
    );
    assert_eq!(Camelot::new(pos).outcome(), pos.outcome());
}

/// Black's piece in its own castle G16 is walled in by its own men; only it may move.
const WALLED: &str = "mG16 mF15 mG15 mH15 mE14 mG14 mI14";

#[test]
fn camelot_w3_stalemate_against_one_piece_is_a_draw() {
    let pos = position(&format!("{WALLED} MA4"), 'b');
    assert!(pos.legal_moves().is_empty());
    assert_eq!(pos.outcome(), Some(Outcome::draw(EndReason::NoLegalMoves)));
    let pos = position(&format!("{WALLED} MA4 MB4"), 'b');
    assert_eq!(
        pos.outcome(),
        Some(Outcome::win(Player::First, EndReason::NoLegalMoves))
    );
}

// ---------------------------------------------------------------------------- D1–D4

#[test]
fn camelot_d1_one_piece_each_is_a_draw() {
    let game = Camelot::new(position("ME5 mL12", 'w'));
    assert_eq!(game.outcome(), Some(Outcome::draw(EndReason::Material)));
    let mut moves = Vec::new();
    game.legal_moves(&mut moves);
    assert!(moves.is_empty());
}

#[test]
fn camelot_d1_two_against_one_plays_on() {
    let game = Camelot::new(position("ME5 MA4 mL12", 'w'));
    assert_eq!(game.outcome(), None);
    let mut moves = Vec::new();
    game.legal_moves(&mut moves);
    assert!(!moves.is_empty());
}

#[test]
fn camelot_d2_third_occurrence_is_a_draw() {
    let mut game = Camelot::new(position("ME5 MA4 mL12 mK12", 'w'));
    let shuffle = ["E5-E6", "L12-L11", "E6-E5", "L11-L12"];
    for text in shuffle {
        game.play_text(text).unwrap();
    }
    assert_eq!(game.repetitions(), 2);
    assert_eq!(game.outcome(), None);
    for text in shuffle {
        assert_eq!(game.outcome(), None);
        game.play_text(text).unwrap();
    }
    assert_eq!(game.repetitions(), 3);
    assert_eq!(game.outcome(), Some(Outcome::draw(EndReason::Repetition)));
    assert!(game.parse_move("E5-E6").is_err());
    game.undo();
    assert_eq!(game.outcome(), None);
}

#[test]
fn camelot_d2_castle_move_counts_are_part_of_the_position() {
    let mut game = Camelot::new(position("MF16 MA4 mL12 mK12", 'w'));
    for text in ["F16-G16", "L12-L11", "G16-F16", "L11-L12"] {
        game.play_text(text).unwrap();
    }
    // Same board as at the start, but two castle moves used: a new position.
    assert_eq!(
        game.position().pieces(Player::First),
        game.start_position().pieces(Player::First)
    );
    assert_eq!(game.repetitions(), 1);
}

#[test]
fn camelot_d3_hundred_plies_without_capture_or_castle_entry() {
    let mut game = Camelot::new(position_with("ME5 MA4 mL12 mK12", 'w', [0, 0], 98));
    game.play_text("E5-E6").unwrap();
    assert_eq!(game.outcome(), None);
    game.play_text("L12-L11").unwrap();
    assert_eq!(game.position().clock(), 100);
    assert_eq!(game.outcome(), Some(Outcome::draw(EndReason::FiftyMoves)));
    // Entering the opponent's castle resets the count, as a capture does.
    let mut game = Camelot::new(position_with("MG15 MA4 mL12 mK12", 'w', [0, 0], 99));
    game.play_text("G15-G16").unwrap();
    assert_eq!(game.position().clock(), 0);
    assert_eq!(game.outcome(), None);
    let mut game = Camelot::new(position_with("ME5 MA4 mE6 mK12", 'w', [0, 0], 99));
    game.play_text("E5xE7").unwrap();
    assert_eq!(game.position().clock(), 0);
}

#[test]
fn camelot_d4_draw_by_agreement_is_recorded_not_decided_by_the_rules() {
    let mut game = Camelot::start();
    game.play_text("D6-F8").unwrap();
    game.play_text("H11-F9").unwrap();
    assert_eq!(
        game.outcome(),
        None,
        "the rules never declare an agreed draw"
    );
    let text = camelot::record::write_score_with_result(&game, &[], Some("1/2-1/2"));
    assert_eq!(text, "1. D6-F8 H11-F9 1/2-1/2\n");
    let records = game::record::parse_records(&text).unwrap();
    assert_eq!(records[0].result.as_deref(), Some("1/2-1/2"));
    let replayed = camelot::record::replay(&records[0]).unwrap();
    assert_eq!(replayed.position(), game.position());
}

#[test]
fn can_win_needs_two_pieces_as_every_way_to_win_does() {
    // W1 (two in the castle), W2 (elimination, by a side of two or more) and W3 (a
    // blocked opponent loses only to two or more pieces) all need two pieces.
    let g = Camelot::new(position("MC5 MD5 mF10", 'w'));
    assert!(g.can_win(Player::First));
    assert!(!g.can_win(Player::Second));
    let g = Camelot::new(position("NC5 mF10 mG10 nH10", 'b'));
    assert!(!g.can_win(Player::First));
    assert!(g.can_win(Player::Second));
    let start = Camelot::new(Position::start());
    assert!(start.can_win(Player::First) && start.can_win(Player::Second));
}
