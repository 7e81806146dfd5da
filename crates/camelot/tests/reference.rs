//! The reference figures of CAMELOT.md section 6 and the S5 test position, and a
//! cross-check of the generator against the naive literal reading in `common`.

mod common;

use std::collections::BTreeSet;

use camelot::{Camelot, Illegal, Position};
use common::*;
use game::Game;

fn perft_cases() -> Vec<(String, u32, u64)> {
    include_str!("data/start.perft")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|line| {
            let fields: Vec<&str> = line.split(';').map(str::trim).collect();
            assert_eq!(fields.len(), 3, "bad perft line {line:?}");
            (
                fields[0].to_owned(),
                fields[1].parse().expect("depth"),
                fields[2].parse().expect("count"),
            )
        })
        .collect()
}

#[test]
fn camelot_perft_reference_figures() {
    let cases = perft_cases();
    assert!(cases.len() >= 4);
    for (fen, depth, expected) in cases {
        let mut game = Camelot::from_position_string(&fen).expect("valid position string");
        assert_eq!(
            game::perft(&mut game, depth),
            expected,
            "{fen} depth {depth}"
        );
        assert_eq!(
            game.position_string(),
            fen,
            "perft leaves the game as found"
        );
    }
}

#[test]
fn camelot_perft_divide_sums_to_perft() {
    let mut game = Camelot::start();
    let divide = game::perft_divide(&mut game, 2);
    assert_eq!(divide.len(), 100);
    assert_eq!(divide.iter().map(|(_, n)| n).sum::<u64>(), 10_026);
}

#[test]
fn camelot_s5_test_position_has_108_moves() {
    let pos = s5_position();
    let from_file: Position = perft_cases()
        .iter()
        .find(|(_, _, n)| *n == 108)
        .map(|(fen, _, _)| fen.parse().unwrap())
        .unwrap();
    assert_eq!(pos, from_file, "the data file holds the S5 position");
    assert!(pos.jumpers().is_empty(), "no piece has a jump");
    assert_eq!(pos.legal_moves().len(), 108);
}

#[test]
fn camelot_s5_knight_canter_past_jump() {
    let pos = s5_position();
    for text in ["C11-E9-G11", "C11-E9-G11-G9"] {
        let err = pos.parse_move(text).unwrap_err();
        assert_eq!(
            err.reason(),
            Some(&Illegal::KnightMustJump { at: sq("E9") }),
            "{text}: {err}"
        );
        assert!(
            err.to_string().contains("knight must jump from E9"),
            "{err}"
        );
    }
    // Neither destination is reachable by a canter that stays clear of jumps.
    let quiet_to: BTreeSet<_> = pos
        .legal_moves()
        .into_iter()
        .filter(|m| m.from == sq("C11") && !m.is_capture())
        .map(|m| m.to)
        .collect();
    assert!(!quiet_to.contains(&sq("G11")));
    assert!(!quiet_to.contains(&sq("G9")));
    // The charge that jumps D8 must go on over C6 and D5.
    let mv = pos.parse_move("C11-E9xC7xC5xE5").unwrap();
    assert_eq!(mv.capture_count(), 3);
    assert_eq!(pos.format_move(mv), "C11-E9xC7xC5xE5");
    let err = pos.parse_move("C11-E9xC7").unwrap_err();
    assert_eq!(
        err.reason(),
        Some(&Illegal::MustGoOnJumping { at: sq("C7") })
    );
}

#[test]
fn camelot_s5_final_square_reading_would_give_110() {
    let pos = s5_position();
    let literal = reference_moves(&pos, true);
    let final_only = reference_moves(&pos, false);
    assert_eq!(literal.len(), 108);
    assert_eq!(final_only.len(), 110);
    let extra: Vec<String> = final_only
        .difference(&literal)
        .map(|(from, to, _)| format!("{from}>{to}"))
        .collect();
    assert_eq!(extra, ["C11>G9", "C11>G11"]);
}

#[test]
fn camelot_first_moves_that_lose_material_at_once() {
    let start = Position::start();
    let immediate = [
        "D6-D8", "I6-I8", "F6-D8", "G6-I8", "D7-D8", "I7-I8", "E7-D8", "H7-I8", "E7-E8", "H7-H8",
        "F7-G8", "G7-F8",
    ];
    for text in immediate {
        let mv = start.parse_move(text).unwrap_or_else(|e| panic!("{e}"));
        let after = start.play(mv).unwrap();
        // "Can capture": by a jump or by a knight's charge (which is never compulsory).
        let captures: Vec<String> = after
            .legal_moves()
            .into_iter()
            .filter(|m| m.is_capture())
            .map(|m| after.format_move(m))
            .collect();
        assert!(!captures.is_empty(), "after {text} Black can capture");
    }
    for text in ["C6-B7", "J6-K7"] {
        let after = start.play(start.parse_move(text).unwrap()).unwrap();
        assert!(
            after.jumpers().is_empty(),
            "after {text} Black has no capture yet"
        );
        assert!(after.legal_moves().iter().all(|m| !m.is_capture()));
    }
    // The other 86 first moves give Black no capture either.
    let losing: Vec<_> = immediate
        .iter()
        .chain(&["C6-B7", "J6-K7"])
        .map(|t| start.parse_move(t).unwrap())
        .collect();
    for mv in start.legal_moves() {
        let after = start.play(mv).unwrap();
        let can_capture = after.legal_moves().iter().any(|m| m.is_capture());
        assert_eq!(
            can_capture,
            losing[..12].contains(&mv),
            "{}",
            start.format_move(mv)
        );
    }
}

#[test]
fn camelot_start_has_50_moves_and_their_mirror_images() {
    let start = Position::start();
    let mirror = |s: camelot::Square| camelot::Square::new(11 - s.file(), s.rank()).unwrap();
    let moves: BTreeSet<_> = start.legal_moves().iter().map(|m| (m.from, m.to)).collect();
    assert_eq!(moves.len(), 100);
    for &(from, to) in &moves {
        assert!(moves.contains(&(mirror(from), mirror(to))));
        assert_ne!(
            (from, to),
            (mirror(from), mirror(to)),
            "no move is its own mirror"
        );
    }
}

#[test]
fn camelot_generator_agrees_with_literal_reading_at_depth_two() {
    // Every position one move from the start and from the S5 position.
    for root in [Position::start(), s5_position()] {
        for mv in root.legal_moves() {
            let pos = root.play(mv).unwrap();
            let fast: BTreeSet<_> = pos.legal_moves().iter().map(key).collect();
            assert_eq!(
                fast,
                reference_moves(&pos, true),
                "after {}",
                root.format_move(mv)
            );
        }
    }
}

#[test]
fn camelot_has_no_static_move_bound_so_perft_checks_as_it_counts() {
    let game = camelot::Camelot::start();
    assert_eq!(
        game::MoveBound::move_bound(&game, game::Player::First),
        None
    );
    assert_eq!(game::deepest_countable(&game), None);
}
