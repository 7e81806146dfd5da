//! Helpers shared by the integration tests: building positions by hand, and a second,
//! deliberately naive move generator that follows the rules text path by path.
#![allow(dead_code)] // each test file uses its own part

use std::collections::{BTreeMap, BTreeSet};

use camelot::{Bitboard, Direction, Move, Piece, Position, Setup, Square, castle};
use game::Player;

/// A square by name.
pub fn sq(name: &str) -> Square {
    name.parse().unwrap_or_else(|e| panic!("{e}"))
}

/// A position from tokens like `"NC6 MD8 nC11 mE10"` (`N`/`M` White knight/man,
/// `n`/`m` Black), the side to move (`'w'`/`'b'`), castle moves used and the clock.
pub fn position_with(pieces: &str, side: char, castle_moves: [u8; 2], clock: u32) -> Position {
    let mut setup = Setup {
        white: Bitboard::EMPTY,
        black: Bitboard::EMPTY,
        knights: Bitboard::EMPTY,
        side_to_move: if side == 'w' {
            Player::First
        } else {
            Player::Second
        },
        castle_moves,
        clock,
    };
    for token in pieces.split_whitespace() {
        let (letter, name) = token.split_at(1);
        let square = sq(name);
        match letter {
            "N" | "M" => setup.white = setup.white.with(square),
            "n" | "m" => setup.black = setup.black.with(square),
            other => panic!("bad piece letter {other}"),
        }
        if letter.eq_ignore_ascii_case("n") {
            setup.knights = setup.knights.with(square);
        }
    }
    Position::from_setup(setup).unwrap_or_else(|e| panic!("{e}"))
}

/// [`position_with`] with no castle moves used and the clock at 0.
pub fn position(pieces: &str, side: char) -> Position {
    position_with(pieces, side, [0, 0], 0)
}

/// The canonical texts of all legal moves, sorted.
pub fn move_texts(pos: &Position) -> Vec<String> {
    let mut texts: Vec<String> = pos
        .legal_moves()
        .into_iter()
        .map(|mv| pos.format_move(mv))
        .collect();
    texts.sort();
    texts
}

/// The test position of S5 (Black to move).
pub fn s5_position() -> Position {
    position(
        "NC6 ND7 NI7 NJ6 MD8 MD5 ME7 MF7 MG7 MH7 MF6 MG6 MH6 MI6 \
         nC11 nD10 nI10 nJ11 mD11 mE11 mF11 mH11 mI11 mE10 mF10 mG10 mH10 mI9",
        'b',
    )
}

/// A comparable key for a move.
pub fn key(mv: &Move) -> (Square, Square, [u64; 4]) {
    (mv.from, mv.to, mv.captured.words())
}

// ---------------------------------------------------------------------------------------
// The naive reference generator.
//
// It reads the rules as literally as possible: it walks every path of leaps (canters
// without revisiting a landing square, then jumps), keeps the paths that may end where
// they end, and then applies the turn's obligations. It shares no code with the crate's
// generator (only squares and the board), so the property tests compare two independent
// readings of CAMELOT.md.
// ---------------------------------------------------------------------------------------

/// One step of a reference path: `'-'` or `'x'` and the square reached.
pub type RefPath = (Square, Vec<(char, Square)>);

/// The text of a reference path.
pub fn path_text(path: &RefPath) -> String {
    let mut text = path.0.to_string();
    for (sep, to) in &path.1 {
        text.push(*sep);
        text.push_str(&to.to_string());
    }
    text
}

#[derive(Clone)]
struct Board {
    cells: BTreeMap<Square, (Player, Piece)>,
}

impl Board {
    fn at(&self, s: Square) -> Option<(Player, Piece)> {
        self.cells.get(&s).copied()
    }
}

fn leap(from: Square, dir: Direction) -> Option<(Square, Square)> {
    let over = from.step(dir)?;
    let land = over.step(dir)?;
    Some((over, land))
}

/// Whether a piece of `me` on `at` could jump an enemy here.
fn could_jump(board: &Board, me: Player, at: Square) -> bool {
    Direction::ALL.into_iter().any(|dir| {
        leap(at, dir).is_some_and(|(over, land)| {
            matches!(board.at(over), Some((p, _)) if p != me) && board.at(land).is_none()
        })
    })
}

struct Walk<'a> {
    me: Player,
    kind: Piece,
    from: Square,
    own_castle: Bitboard,
    opp_castle: Bitboard,
    s5_every_step: bool,
    start_board: &'a Board,
    out: &'a mut Vec<(Move, RefPath)>,
    limit: usize,
}

impl Walk<'_> {
    fn finish(&mut self, steps: &[(char, Square)], at: Square, captured: Bitboard) {
        if self.out.len() < self.limit {
            self.out.push((
                Move {
                    from: self.from,
                    to: at,
                    captured,
                },
                (self.from, steps.to_vec()),
            ));
        }
    }

    /// `board` is the board during the move (mover lifted, captures removed).
    fn walk(
        &mut self,
        board: &Board,
        at: Square,
        steps: &mut Vec<(char, Square)>,
        captured: Bitboard,
        canter_landings: &mut Vec<Square>,
    ) {
        if self.out.len() >= self.limit {
            return;
        }
        let jumping = steps.last().is_some_and(|(sep, _)| *sep == 'x');
        let cantering = steps.last().is_some_and(|(sep, _)| *sep == '-');
        let in_opp_castle = self.opp_castle.contains(at);
        if !steps.is_empty() {
            if in_opp_castle {
                // S7: the move ends here.
                self.end_here(steps, at, captured, canter_landings);
                return;
            }
            if jumping {
                if !could_jump(board, self.me, at) {
                    self.finish(steps, at, captured);
                    return;
                }
            } else {
                self.end_here(steps, at, captured, canter_landings);
            }
        }
        for dir in Direction::ALL {
            let Some((over, land)) = leap(at, dir) else {
                continue;
            };
            if board.at(land).is_some() {
                continue;
            }
            match board.at(over) {
                Some((p, _)) if p == self.me => {
                    // Canter: not after a jump; never into the own castle; the
                    // reference does not revisit a landing square (or the start).
                    if jumping
                        || self.own_castle.contains(land)
                        || land == self.from
                        || canter_landings.contains(&land)
                    {
                        continue;
                    }
                    canter_landings.push(land);
                    steps.push(('-', land));
                    self.walk(board, land, steps, captured, canter_landings);
                    steps.pop();
                    canter_landings.pop();
                }
                Some(_) => {
                    if cantering && self.kind == Piece::Man {
                        continue;
                    }
                    let mut next = board.clone();
                    next.cells.remove(&over);
                    steps.push(('x', land));
                    self.walk(&next, land, steps, captured.with(over), canter_landings);
                    steps.pop();
                }
                None => {}
            }
        }
    }

    fn end_here(
        &mut self,
        steps: &[(char, Square)],
        at: Square,
        captured: Bitboard,
        canter_landings: &[Square],
    ) {
        if captured.any() {
            self.finish(steps, at, captured);
            return;
        }
        // A canter that captures nothing: not back on its start (R2); a knight's may not
        // land where it could jump (S5; the castle it entered excepted).
        if at == self.from {
            return;
        }
        if self.kind == Piece::Knight {
            let mut lifted = self.start_board.clone();
            lifted.cells.remove(&self.from);
            let checked: Vec<Square> = if self.s5_every_step {
                canter_landings.to_vec()
            } else {
                vec![at]
            };
            if checked
                .iter()
                .any(|&l| !self.opp_castle.contains(l) && could_jump(&lifted, self.me, l))
            {
                return;
            }
        }
        self.finish(steps, at, captured);
    }
}

/// Every legal move with every path that makes it (up to `limit` paths in all), by the
/// literal reading. `s5_every_step = false` checks S5 on the final square only.
pub fn reference_paths(pos: &Position, s5_every_step: bool, limit: usize) -> Vec<(Move, RefPath)> {
    let me = pos.side_to_move();
    let opp = me.other();
    let own_castle = castle(me);
    let opp_castle = castle(opp);
    let count = |p: Player| pos.pieces(p).count();
    // The ends that need no moves: W1, W2, D1, D3.
    let holds = |p: Player| (pos.pieces(p) & castle(p.other())).count() == 2;
    if holds(me)
        || holds(opp)
        || (count(me) <= 1 && count(opp) <= 1)
        || count(me) == 0
        || count(opp) == 0
        || pos.clock() >= 100
    {
        return Vec::new();
    }
    let board = Board {
        cells: Square::ALL
            .into_iter()
            .filter_map(|s| pos.piece_at(s).map(|p| (s, p)))
            .collect(),
    };
    let mine: Vec<Square> = pos.pieces(me).squares().collect();
    let in_own_castle: Vec<Square> = mine
        .iter()
        .copied()
        .filter(|s| own_castle.contains(*s))
        .collect();
    let movers: Vec<Square> = if in_own_castle.is_empty() {
        mine.clone()
    } else {
        in_own_castle.clone()
    };
    // S4 (S10 for the piece leaving its castle): can a mover jump at once?
    let must = movers
        .iter()
        .any(|&s| !opp_castle.contains(s) && could_jump(&board, me, s));

    let mut all = Vec::new();
    for &from in &movers {
        let (_, kind) = board.at(from).expect("a piece");
        if opp_castle.contains(from) {
            // S8: castle moves only.
            let other = (opp_castle - Bitboard::from_square(from))
                .first()
                .expect("two squares");
            if board.at(other).is_none() && pos.castle_moves(me) < 2 && in_own_castle.is_empty() {
                all.push((Move::quiet(from, other), (from, vec![('-', other)])));
            }
            continue;
        }
        for dir in Direction::ALL {
            if let Some(to) = from.step(dir)
                && board.at(to).is_none()
                && !own_castle.contains(to)
            {
                all.push((Move::quiet(from, to), (from, vec![('-', to)])));
            }
        }
        let mut lifted = board.clone();
        lifted.cells.remove(&from);
        let mut walk = Walk {
            me,
            kind,
            from,
            own_castle,
            opp_castle,
            s5_every_step,
            start_board: &board,
            out: &mut all,
            limit,
        };
        walk.walk(
            &lifted,
            from,
            &mut Vec::new(),
            Bitboard::EMPTY,
            &mut Vec::new(),
        );
    }
    all.retain(|(mv, _)| !must || mv.is_capture());
    all.truncate(limit);
    all
}

/// The legal moves by the literal reading, as a set.
pub fn reference_moves(
    pos: &Position,
    s5_every_step: bool,
) -> BTreeSet<(Square, Square, [u64; 4])> {
    reference_paths(pos, s5_every_step, usize::MAX)
        .iter()
        .map(|(mv, _)| key(mv))
        .collect()
}
