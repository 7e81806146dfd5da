//! Property tests over random playouts (ENGINEERING.md point 8): the legal-move list
//! agrees with `is_legal` and with the naive literal reading in `common`; the
//! incremental hash equals the recomputed one; undo restores the game exactly; every
//! move's canonical notation and every other valid path parse back to it, and random
//! leap paths parse exactly when the literal reading accepts them.

mod common;

use std::collections::{BTreeSet, HashSet};

use camelot::{Bitboard, Camelot, Direction, Move, Position, Square};
use common::*;
use game::Game;
use proptest::prelude::*;

/// Start positions for playouts: the game's start, the S5 position, and two sparse
/// positions where pieces are near both castles, so that castle entries, jumps into
/// one's own castle, castle moves and the endings come up often.
fn roots() -> Vec<Position> {
    vec![
        Position::start(),
        s5_position(),
        position("NF13 MG13 ME14 MF14 MH14 MA4 nF4 mG4 mE3 mF3 mH3 mL13", 'w'),
        position("NC6 MD6 ME7 NI9 MH8 MG5 nC11 mD11 mE9 nJ8 mH10 mG12", 'b'),
        position_with("MF16 NG14 MF2 MA4 nG1 mF3 mE13 mL12", 'w', [1, 0], 0),
        // White must leave its castle (S10), jumping out.
        position("MG1 MH3 NE4 MD5 MA4 mG2 mF4 mE3 nL12 mK13", 'w'),
        // Black jumps into White's castle.
        position("nF4 mG3 mE3 mH4 mL13 MF2 MG2 ME2 NH2 MA12", 'b'),
        // Castle moves for both sides.
        position("MF16 MA4 MB5 NC6 mG1 mL12 mK13 nJ11", 'w'),
    ]
}

fn pick<T: Copy>(items: &[T], seed: u32) -> T {
    items[seed as usize % items.len()]
}

/// Plays `seeds.len()` random legal moves from root `root`, calling `check` before each
/// move (and once at the end) with the game.
fn playout(root: usize, seeds: &[u32], mut check: impl FnMut(&Camelot, u32)) {
    let roots = roots();
    let mut game = Camelot::new(roots[root % roots.len()]);
    let mut moves = Vec::new();
    for &seed in seeds {
        check(&game, seed);
        moves.clear();
        game.legal_moves(&mut moves);
        if moves.is_empty() {
            return;
        }
        game.play(pick(&moves, seed));
    }
    check(&game, 0);
}

fn legal_set(game: &Camelot) -> Vec<Move> {
    let mut moves = Vec::new();
    game.legal_moves(&mut moves);
    moves
}

/// A random leap path from one of the mover's pieces that never lands twice on a square
/// while cantering (nor back on its start), as the literal reading enumerates them.
/// When `guided`, each leap goes over a piece onto an empty square with the separator
/// that fits (the obligations are left to chance); otherwise leaps are blind.
fn random_path(pos: &Position, seed: u32, guided: bool) -> Option<String> {
    let mine: Vec<Square> = pos.pieces(pos.side_to_move()).squares().collect();
    if mine.is_empty() {
        return None;
    }
    let mut rng = seed;
    let mut next = || {
        rng = rng.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        rng >> 8
    };
    let from = mine[next() as usize % mine.len()];
    let mut text = from.to_string();
    let mut at = from;
    let mut canter_landings = vec![from];
    let me = pos.side_to_move();
    let mut captured = Bitboard::EMPTY;
    let steps = 1 + next() % 6;
    for _ in 0..steps {
        let leaps: Vec<(Square, Square)> = Direction::ALL
            .into_iter()
            .filter_map(|dir| at.step(dir).and_then(|o| Some((o, o.step(dir)?))))
            .filter(|&(over, land)| {
                !guided
                    || (land == from || pos.piece_at(land).is_none() || captured.contains(land))
                        && over != from
                        && !captured.contains(over)
                        && pos.piece_at(over).is_some()
            })
            .collect();
        if leaps.is_empty() {
            break;
        }
        let (over, land) = leaps[next() as usize % leaps.len()];
        let jump = if guided {
            pos.piece_at(over).is_some_and(|(p, _)| p != me)
        } else {
            next() % 2 == 0
        };
        if jump {
            captured = captured.with(over);
        }
        if !jump {
            if canter_landings.contains(&land) {
                continue;
            }
            canter_landings.push(land);
        }
        text.push(if jump { 'x' } else { '-' });
        text.push_str(&land.to_string());
        at = land;
    }
    (at != from || text.contains('x')).then_some(text)
}

fn random_triple(pos: &Position, seed: u32, legal: &[Move]) -> Move {
    let a = Square::ALL[seed as usize % 160];
    let b = Square::ALL[(seed as usize / 160) % 160];
    let enemies: Vec<Square> = pos.pieces(pos.side_to_move().other()).squares().collect();
    match seed % 4 {
        // A near miss: a legal move with one square changed or one capture toggled.
        0 | 1 if !legal.is_empty() => {
            let mut mv = pick(legal, seed / 4);
            if seed.is_multiple_of(4) {
                mv.to = b;
            } else if let Some(&e) = enemies.get((seed as usize / 7) % enemies.len().max(1)) {
                mv.captured ^= Bitboard::from_square(e);
            }
            mv
        }
        2 => Move::quiet(a, b),
        _ => Move {
            from: a,
            to: b,
            captured: enemies
                .iter()
                .enumerate()
                .filter(|(i, _)| (seed >> (i % 16)) & 1 == 1)
                .map(|(_, s)| *s)
                .collect(),
        },
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn camelot_prop_legal_list_is_exact(root in 0usize..8, seeds in prop::collection::vec(any::<u32>(), 0..70)) {
        playout(root, &seeds, |game, seed| {
            let pos = game.position();
            let moves = legal_set(game);
            let unique: HashSet<Move> = moves.iter().copied().collect();
            assert_eq!(unique.len(), moves.len(), "each move once (S1): {}", pos.fen());
            for &mv in &moves {
                assert!(game.is_legal(mv));
            }
            // The naive literal reading finds the same set (no repetition in it: D2 is
            // checked separately).
            if game.repetitions() < 3 {
                let fast: BTreeSet<_> = moves.iter().map(key).collect();
                assert_eq!(fast, reference_moves(pos, true), "{}", pos.fen());
            }
            // Random and near-miss (from, to, captured) triples.
            for k in 0..8u32 {
                let mv = random_triple(pos, seed.wrapping_mul(31).wrapping_add(k), &moves);
                assert_eq!(game.is_legal(mv), unique.contains(&mv), "{mv:?} in {}", pos.fen());
                assert_eq!(pos.play(mv).is_ok(), pos.is_legal(mv));
                if game.repetitions() < 3 {
                    assert_eq!(pos.is_legal(mv), unique.contains(&mv));
                }
            }
            // No moves exactly when the game is over.
            assert_eq!(moves.is_empty(), game.outcome().is_some(), "{}", pos.fen());
        });
    }

    #[test]
    fn camelot_prop_forcing_and_quiet_moves_split_the_legal_list(root in 0usize..8, seeds in prop::collection::vec(any::<u32>(), 0..70)) {
        // The staged generators (forcing moves, then the others) give exactly the legal
        // moves that capture or enter the opponent's castle from outside, and the rest,
        // each in the order of the legal list.
        playout(root, &seeds, |game, _| {
            let pos = game.position();
            let legal = pos.legal_moves();
            let target = camelot::castle(pos.side_to_move().other());
            let forcing_ones = |mv: &Move| {
                mv.is_capture() || (target.contains(mv.to) && !target.contains(mv.from))
            };
            let mut forcing = Vec::new();
            pos.forcing_moves_into(&mut forcing);
            let mut quiet = Vec::new();
            pos.quiet_moves_into(&mut quiet);
            let want: Vec<Move> = legal.iter().copied().filter(forcing_ones).collect();
            assert_eq!(forcing, want, "{}", pos.fen());
            let want: Vec<Move> = legal.iter().copied().filter(|mv| !forcing_ones(mv)).collect();
            assert_eq!(quiet, want, "{}", pos.fen());
        });
    }

    #[test]
    fn camelot_prop_hash_undo_and_position_string(root in 0usize..8, seeds in prop::collection::vec(any::<u32>(), 0..90)) {
        playout(root, &seeds, |game, seed| {
            let pos = game.position();
            assert_eq!(pos.hash(), pos.compute_hash());
            assert_eq!(game.hash(), pos.hash());
            let reread: Position = game.position_string().parse().unwrap();
            assert_eq!(&reread, pos);
            let again = Camelot::from_position_string(&game.position_string()).unwrap();
            assert_eq!(again.position(), pos);
            let moves = legal_set(game);
            if moves.is_empty() {
                return;
            }
            let mv = pick(&moves, seed);
            let mut copy = game.clone();
            copy.play(mv);
            assert_eq!(copy.position().hash(), copy.position().compute_hash());
            assert_eq!(copy.ply(), game.ply() + 1);
            assert_eq!(copy.undo(), Some(mv));
            assert_eq!(&copy, game);
            assert_eq!(copy.hash(), game.hash());
        });
    }

    #[test]
    fn camelot_prop_notation_round_trips_every_path(root in 0usize..8, seeds in prop::collection::vec(any::<u32>(), 0..50)) {
        playout(root, &seeds, |game, seed| {
            let pos = game.position();
            if game.repetitions() >= 3 {
                return;
            }
            for mv in legal_set(game) {
                let text = game.format_move(mv);
                assert_eq!(game.parse_move(&text).unwrap(), mv, "{text}");
                assert_eq!(game.parse_move(&text.to_lowercase()).unwrap(), mv);
            }
            // Every path of every move (up to a cap) parses to that move.
            let paths = reference_paths(pos, true, 400);
            for (mv, path) in &paths {
                let text = path_text(path);
                assert_eq!(pos.parse_move(&text).ok(), Some(*mv), "{text} in {}", pos.fen());
            }
            // Random leap paths parse exactly when the literal reading lists them.
            let all: HashSet<String> = reference_paths(pos, true, usize::MAX)
                .iter()
                .map(|(_, p)| path_text(p))
                .collect();
            for k in 0..16u32 {
                if let Some(text) = random_path(pos, seed.wrapping_add(k.wrapping_mul(7919)), k % 4 != 0) {
                    let parsed = pos.parse_move(&text);
                    assert_eq!(parsed.is_ok(), all.contains(&text), "{text} in {}: {parsed:?}", pos.fen());
                }
            }
        });
    }
}
