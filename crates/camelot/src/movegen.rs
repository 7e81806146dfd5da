//! Legal move generation with every obligation of the rules.
//!
//! For the side to move:
//!
//! - **Who may move.** A piece in its own castle must be moved out (S10) and is then the
//!   only piece that may move; otherwise every piece may, except that pieces in the
//!   opponent's castle may only make castle moves (S8).
//! - **Compulsory capture (S4).** If a piece that may move can jump at once, the move
//!   must capture: a jump sequence (R3) or a knight's charge (R4). Captures available
//!   only by a charge do not make capturing compulsory. In the S10 case only the piece in
//!   the castle counts ("whatever captures exist elsewhere").
//! - **Jumps (R3, S2, S3, S7).** Once a piece has jumped it goes on jumping while it can;
//!   captured pieces leave at once (their squares can be landed on, and each is taken
//!   once); a sequence may end on its start square; entering the opponent's castle ends
//!   it. Jumps may enter the own castle (S9) and must go on out of it if they can (S10).
//! - **Canters (R2, S5, S9).** Chains of leaps over friendly pieces, never into the own
//!   castle, ending on the opponent's castle if they enter it (S7), never back on the
//!   start square. A knight's canter may not land, at any step, on a square from which
//!   it could jump (S5), unless the move goes on to capture: that is a charge.
//! - **Charges (R4).** A knight's canter (at least one leap, ending elsewhere than its
//!   start) followed by a jump sequence.
//!
//! Moves are collected as (from, to, captured) once each (S1): canter destinations come
//! from a breadth-first search over landing squares, and capture sequences are
//! deduplicated per piece.
//!
//! Readings of points the rules leave open (each has a test):
//!
//! - A piece leaving its own castle must capture only if it can jump at once, as in S4;
//!   a charge it could make does not oblige it (`camelot_s10_leaving_by_charge_...`).
//! - A jump sequence out of the own castle may come back into it (it is a jump, which
//!   S9 allows); the piece must then leave again next turn. Forbidding it would leave a
//!   side that must jump with no legal move (`camelot_s10_a_jump_out_that_circles_...`).
//! - A knight's canter entering the opponent's castle is not checked for S5 on the
//!   castle square: the knight could not jump from there (S8).
//! - The canter part of a charge may not end on the knight's start square (R2), so a
//!   charge never repeats a plain jump sequence under another path.
//! - A canter may land on the same square twice; it adds no move, as moves are
//!   identified by their ends and captures (S1).

use game::{Outcome, Player};

use crate::bitboard::Bitboard;
use crate::moves::Move;
use crate::position::{Position, castle};
use crate::square::{Direction, Square};
use crate::tables::{ADJACENT, LEAPS, square};

/// What the side to move may move and must do here, read off the board.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Context {
    pub(crate) own: Bitboard,
    pub(crate) opp: Bitboard,
    pub(crate) knights: Bitboard,
    pub(crate) empty: Bitboard,
    pub(crate) own_castle: Bitboard,
    pub(crate) opp_castle: Bitboard,
    /// Pieces that may move this turn other than by a castle move.
    pub(crate) movers: Bitboard,
    /// Whether a piece stands in its own castle and must leave it (S10).
    pub(crate) duty: bool,
    /// Movers that can jump at once: when any, the move must capture (S4).
    pub(crate) jumpers: Bitboard,
    /// Whether the side to move has a castle move left (S8).
    pub(crate) castle_moves_left: bool,
    /// Squares from which a jump is possible with every piece where it stands.
    pub(crate) base_jumps: Bitboard,
    /// Squares from which a canter's leap is possible with every piece where it stands
    /// (a piece elsewhere cannot canter at all).
    canter_starts: Bitboard,
    /// Squares a canter's leap could land on: empty, outside the own castle, beside an
    /// own piece.
    canter_lands: Bitboard,
}

/// The squares of each colour class of leaps, by (file parity, rank parity): a leap
/// moves two files and two ranks or none, so a canter stays in its start's class.
const PARITY: [Bitboard; 4] = {
    let mut out = [Bitboard::EMPTY; 4];
    let mut i = 0;
    while i < 160 {
        let sq = Square::ALL[i];
        let class = parity_class(sq.index());
        out[class] = out[class].with(sq);
        i += 1;
    }
    out
};

const fn parity_class(index: usize) -> usize {
    (index & 1) | ((index >> 4) & 1) << 1
}

/// A set of squares as its sixteen ranks of sixteen bits (a rank's bits as in a
/// [`Bitboard`], files 12 to 15 empty), with two empty ranks beyond each end: the
/// squares around one square are a few shifts of five rows, without bounds checks.
#[derive(Clone, Copy)]
struct Ranks([u16; 20]);

impl Ranks {
    #[inline(always)]
    fn new(set: Bitboard) -> Ranks {
        let words = set.words();
        let mut rows = [0u16; 20];
        for (rank, row) in rows[2..18].iter_mut().enumerate() {
            *row = (words[rank / 4] >> (16 * (rank % 4))) as u16;
        }
        Ranks(rows)
    }

    #[inline(always)]
    fn to_bitboard(self) -> Bitboard {
        let mut words = [0u64; 4];
        for (rank, &row) in self.0[2..18].iter().enumerate() {
            words[rank / 4] |= u64::from(row) << (16 * (rank % 4));
        }
        Bitboard::from_words(words)
    }

    /// Three rows as the 16-bit lanes of a word: rows `first`, `first + step` and
    /// `first + 2 * step` of the padded array (ranks `first - 2` and on).
    #[inline(always)]
    fn lanes(&self, first: usize, step: usize) -> u64 {
        let rows = &self.0;
        u64::from(rows[first])
            | u64::from(rows[first + step]) << 16
            | u64::from(rows[first + 2 * step]) << 32
    }

    /// Takes out frame index `index`, a square.
    #[inline(always)]
    fn remove(&mut self, index: u32) {
        self.0[index as usize / 16 + 2] &= !(1 << (index % 16));
    }
}

/// In each 16-bit lane, bits 1, 2 and 3 of `over` moved to bits 0, 2 and 4: the
/// friends one file west, on and east of a square, read from five files around it, to
/// the landing squares of a leap over each, two files west, on and two east.
#[inline(always)]
fn spread(over: u64) -> u64 {
    const EACH: u64 = 0x0001_0001_0001;
    ((over & (EACH << 1)) >> 1) | (over & (EACH << 2)) | ((over & (EACH << 3)) << 1)
}

/// The lanes of [`Ranks::lanes`] that hold the squares beside one (in files `file - 2`
/// to `file + 2`): three on the rank below, two on its own, three above.
const BESIDE: u64 = 0b01110 | 0b01010 << 16 | 0b01110 << 32;

/// Which of a position's legal moves to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Wanted {
    /// Every legal move.
    All,
    /// Only the moves that capture or enter the opponent's castle from outside it.
    Forcing,
    /// The others: the moves that neither capture nor enter the opponent's castle from
    /// outside it.
    Quiet,
}

/// The frame index one step beyond `over` from `at` (a neighbour of it), if it lies in
/// the frame; it is a square of the board exactly when the two-step leap exists, as the
/// guard band catches a leap off the east or west edge.
#[inline(always)]
fn beyond(at: usize, over: usize) -> Option<u8> {
    let land = 2 * over as isize - at as isize;
    u8::try_from(land).ok()
}

/// The squares from which a piece could jump one of `enemies` onto
/// one of `landing`.
#[inline]
fn jump_squares(enemies: Bitboard, landing: Bitboard) -> Bitboard {
    // An enemy one step in `dir` with a landing square beyond: shifted back, both sets
    // meet on the squares a jump starts from.
    let mut out = Bitboard::EMPTY;
    crate::each_direction!(dir => {
        let back = dir.opposite();
        out |= enemies.shift(back) & landing.shift2(back);
    });
    out
}

impl Context {
    pub(crate) fn new(pos: &Position) -> Context {
        let side = pos.side_to_move();
        let own = pos.pieces(side);
        let opp = pos.pieces(side.other());
        let empty = Bitboard::ALL - own - opp;
        let own_castle = castle(side);
        let opp_castle = castle(side.other());
        let in_own_castle = own & own_castle;
        let duty = in_own_castle.any();
        let movers = if duty {
            in_own_castle
        } else {
            own - opp_castle
        };
        let base_jumps = jump_squares(opp, empty);
        let jumpers = movers & base_jumps;
        let open = empty - own_castle;
        let mut canter_starts = Bitboard::EMPTY;
        crate::each_direction!(dir => {
            // A friend one step in `dir`, an open square beyond.
            let back = dir.opposite();
            canter_starts |= (own & open.shift(back)).shift(back);
        });
        Context {
            own,
            opp,
            knights: pos.knights(),
            empty,
            own_castle,
            opp_castle,
            movers,
            duty,
            jumpers,
            castle_moves_left: pos.castle_moves(side) < 2,
            base_jumps,
            canter_starts,
            canter_lands: own.neighbours_in(open),
        }
    }

    /// Whether the move must capture (S4, or S10 for a piece leaving its castle).
    pub(crate) fn must_capture(&self) -> bool {
        self.jumpers.any()
    }

    /// Squares from which a knight that started on `from` could jump during its move
    /// (S5): the start square is empty then. Jumps are never made from the opponent's
    /// castle (S8), so its squares are left out.
    pub(crate) fn knight_jump_squares(&self, base: Bitboard, from: Square) -> Bitboard {
        let mut out = base;
        for over in ADJACENT[from.index()] & self.opp {
            // From the square beyond `over` the knight could jump it back onto `from`.
            if let Some(land) = beyond(from.index(), over.index())
                && Bitboard::ALL.contains_index(land)
            {
                out = out.with_index(land);
            }
        }
        out - self.opp_castle
    }

    /// Every square the piece on `from` can reach by a chain of canter leaps, start
    /// included, landing only on squares outside `forbidden` (R2, S7, S9).
    pub(crate) fn canter_reach(&self, from: Square, forbidden: Bitboard) -> Bitboard {
        if !self.canter_starts.contains(from) {
            return Bitboard::from_square(from); // No first leap.
        }
        let friends = Ranks::new(self.own.without(from));
        // Squares not yet reached that a leap may land on (the start is reached).
        let landing = (self.empty - self.own_castle) - forbidden;
        let mut open = Ranks::new(landing);
        let mut queue = [0u8; 160];
        queue[0] = from.index() as u8;
        let (mut head, mut tail) = (0, 1);
        while head < tail {
            let at = queue[head];
            head += 1;
            if self.opp_castle.contains_index(at) {
                continue; // S7: the move ends there.
            }
            let (rank, file) = (usize::from(at / 16), u32::from(at % 16));
            // Three 16-bit lanes, bits 0 to 4 of each the files `file - 2` to `file + 2`:
            // the friends beside (ranks below, level and above; bits 1 to 3), and the
            // open squares a leap over each lands on (two ranks below, level, two
            // above; bits 0, 2 and 4).
            let beside = (friends.lanes(rank + 1, 1) << 2 >> file) & BESIDE;
            let mut lands = spread(beside) & (open.lanes(rank, 2) << 2 >> file);
            while lands != 0 {
                let bit = lands.trailing_zeros();
                lands &= lands - 1;
                // Rank `rank + 2 * lane - 2`, file `file + bit % 16 - 2`: a square.
                let land = (rank as u32 + 2 * (bit / 16)) * 16 + file + bit % 16 - 34;
                open.remove(land);
                queue[tail] = land as u8;
                tail += 1;
            }
        }
        (landing - open.to_bitboard()).with(from)
    }

    /// Whether a piece on `at` could jump one of `enemies` onto `empty`.
    pub(crate) fn can_jump(at: u8, enemies: Bitboard, empty: Bitboard) -> bool {
        LEAPS[at as usize]
            .iter()
            .any(|leap| enemies.contains_index(leap.over) && empty.contains_index(leap.land))
    }

    /// Adds every completed jump sequence of the piece from `from`, now on `at`, having
    /// captured `captured`; `enemies` are the enemy pieces left and `empty` the squares
    /// it may land on. Moves already in `out[start..]` are not added again (S1).
    #[allow(clippy::too_many_arguments)]
    fn jump_sequences(
        &self,
        from: Square,
        at: u8,
        captured: Bitboard,
        enemies: Bitboard,
        empty: Bitboard,
        out: &mut Vec<Move>,
        start: usize,
    ) {
        let mut jumped = false;
        // Most squares a sequence reaches have no enemy beside them: one set operation
        // tells, before the eight leaps are looked at (in their order, which is the
        // order of the moves).
        let beside = ADJACENT[at as usize] & enemies;
        if beside.any() && !self.opp_castle.contains_index(at) {
            for leap in &LEAPS[at as usize] {
                if beside.contains_index(leap.over) && empty.contains_index(leap.land) {
                    jumped = true;
                    let over = Bitboard::from_index(leap.over);
                    self.jump_sequences(
                        from,
                        leap.land,
                        captured | over,
                        enemies - over,
                        empty | over,
                        out,
                        start,
                    );
                }
            }
        }
        if !jumped && captured.any() {
            let mv = Move {
                from,
                to: square(at),
                captured,
            };
            if !out[start..].contains(&mv) {
                out.push(mv);
            }
        }
    }

    /// Adds the `wanted` legal moves of the piece on `from` (which must be in `movers`).
    /// Forcing moves come in the order of all the moves, as a filter of them would give.
    fn piece_moves(&self, from: Square, wanted: Wanted, out: &mut Vec<Move>) {
        let must = self.must_capture();
        if must && wanted == Wanted::Quiet {
            return; // S4: every move captures.
        }
        // Where the moves that capture nothing may end: anywhere, only in the opponent's
        // castle (forcing), or anywhere else (quiet).
        let quiet_to = match wanted {
            Wanted::All => Bitboard::ALL,
            Wanted::Forcing => self.opp_castle,
            Wanted::Quiet => Bitboard::ALL - self.opp_castle,
        };
        let captures = wanted != Wanted::Quiet;
        let start = out.len();
        let lifted = self.empty.with(from);
        if captures && self.jumpers.contains(from) {
            self.jump_sequences(
                from,
                from.index() as u8,
                Bitboard::EMPTY,
                self.opp,
                lifted,
                out,
                start,
            );
        }
        if !must {
            for to in ADJACENT[from.index()] & (self.empty - self.own_castle) & quiet_to {
                out.push(Move::quiet(from, to));
            }
        }
        if self.knights.contains(from) {
            let jump_from = self.knight_jump_squares(self.base_jumps, from);
            if wanted == Wanted::Forcing
                && (self.canter_lands & PARITY[parity_class(from.index())] & (jump_from | quiet_to))
                    .is_empty()
            {
                // No canter can end where a charge starts or in the opponent's castle.
                return;
            }
            let reach = self.canter_reach(from, Bitboard::EMPTY);
            let charge_starts = (reach & jump_from).without(from);
            if captures {
                for at in charge_starts {
                    self.jump_sequences(
                        from,
                        at.index() as u8,
                        Bitboard::EMPTY,
                        self.opp,
                        lifted,
                        out,
                        start,
                    );
                }
            }
            if !must && (reach & quiet_to).without(from).any() {
                // S5: a canter that captures nothing may not land where it could jump.
                let canters = if charge_starts.any() {
                    self.canter_reach(from, jump_from)
                } else {
                    reach
                };
                for to in (canters & quiet_to).without(from) {
                    out.push(Move::quiet(from, to));
                }
            }
        } else if !must {
            for to in (self.canter_reach(from, Bitboard::EMPTY) & quiet_to).without(from) {
                out.push(Move::quiet(from, to));
            }
        }
    }

    /// Adds the castle moves (S8) of pieces in `pieces`.
    fn castle_moves(&self, pieces: Bitboard, out: &mut Vec<Move>) {
        if self.must_capture() || self.duty || !self.castle_moves_left {
            return;
        }
        for from in pieces & self.own & self.opp_castle {
            for to in self.opp_castle.without(from) & self.empty {
                out.push(Move::quiet(from, to));
            }
        }
    }

    /// Adds the legal moves of the pieces in `pieces`.
    pub(crate) fn generate(&self, pieces: Bitboard, out: &mut Vec<Move>) {
        self.generate_wanted(pieces, Wanted::All, out);
    }

    /// Adds the `wanted` legal moves of the pieces in `pieces`.
    pub(crate) fn generate_wanted(&self, pieces: Bitboard, wanted: Wanted, out: &mut Vec<Move>) {
        for from in pieces & self.movers {
            self.piece_moves(from, wanted, out);
        }
        if wanted != Wanted::Forcing {
            // Castle moves never enter the castle from outside.
            self.castle_moves(pieces, out);
        }
    }

    /// Whether any move is legal, answered without generating in the common cases.
    pub(crate) fn has_move(&self) -> bool {
        if !self.duty {
            if self.must_capture() {
                return true;
            }
            if self
                .movers
                .neighbours_in(self.empty - self.own_castle)
                .any()
            {
                return true;
            }
        }
        let mut moves = Vec::new();
        self.generate(Bitboard::ALL, &mut moves);
        !moves.is_empty()
    }
}

impl Position {
    /// The end of the game that needs no move generation: two pieces in the opponent's
    /// castle (W1), all pieces captured (W2), one piece or fewer each (D1), and the
    /// fifty-move count (D3).
    pub(crate) fn static_outcome(&self) -> Option<Outcome> {
        crate::outcome::static_outcome(self)
    }

    /// Appends every legal move here to `out`: nothing when the game is over by the board
    /// (see [`Position::outcome`]). Repetition (D2) needs the game's history and is
    /// applied by [`Camelot`](crate::Camelot).
    pub fn legal_moves_into(&self, out: &mut Vec<Move>) {
        if self.static_outcome().is_none() {
            Context::new(self).generate(Bitboard::ALL, out);
        }
    }

    /// Appends the legal moves here that capture or enter the opponent's castle from
    /// outside it (a search's forcing moves), in the order [`Position::legal_moves_into`]
    /// gives them. When no capture is compulsory and no piece of the side to move stands
    /// next to the opponent's castle (a canter's last leap goes over one), only a
    /// knight's charge can be such a move, so only the knights' moves are generated.
    pub fn forcing_moves_into(&self, out: &mut Vec<Move>) {
        if self.static_outcome().is_some() {
            return;
        }
        let context = Context::new(self);
        let target = context.opp_castle;
        let pieces = if context.must_capture()
            || context.duty
            || (context.own & target.neighbours()).any()
        {
            Bitboard::ALL
        } else {
            context.knights
        };
        context.generate_wanted(pieces, Wanted::Forcing, out);
    }

    /// Appends the legal moves here that [`Position::forcing_moves_into`] leaves out, in
    /// the order [`Position::legal_moves_into`] gives them.
    pub fn quiet_moves_into(&self, out: &mut Vec<Move>) {
        if self.static_outcome().is_none() {
            Context::new(self).generate_wanted(Bitboard::ALL, Wanted::Quiet, out);
        }
    }

    /// The legal move from `from` to `to` that captures nothing and does not enter the
    /// opponent's castle from outside (one of [`Position::quiet_moves_into`]), if
    /// there is one: only that piece's moves are generated.
    #[must_use]
    pub fn quiet_move_from(&self, from: Square, to: Square) -> Option<Move> {
        if !self.pieces(self.side_to_move()).contains(from) || self.static_outcome().is_some() {
            return None;
        }
        let mut moves = Vec::new();
        Context::new(self).generate_wanted(Bitboard::from_square(from), Wanted::Quiet, &mut moves);
        moves.into_iter().find(|mv| mv.to == to)
    }

    /// Every legal move here (see [`Position::legal_moves_into`]).
    #[must_use]
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut moves = Vec::with_capacity(128);
        self.legal_moves_into(&mut moves);
        moves
    }

    /// The legal moves of the piece on `from` (for a user interface).
    #[must_use]
    pub fn legal_moves_from(&self, from: Square) -> Vec<Move> {
        let mut moves = Vec::new();
        if self.static_outcome().is_none() {
            Context::new(self).generate(Bitboard::from_square(from), &mut moves);
        }
        moves
    }

    /// Whether `mv` is legal here; agrees with [`Position::legal_moves`].
    #[must_use]
    pub fn is_legal(&self, mv: Move) -> bool {
        self.pieces(self.side_to_move()).contains(mv.from)
            && self.legal_moves_from(mv.from).contains(&mv)
    }

    /// Whether the side to move has a legal move, ignoring whether the game is over.
    #[must_use]
    pub fn has_legal_move(&self) -> bool {
        // The common case first, without the jump squares `Context::new` computes: a
        // piece free to move with an empty square beside it has a plain move, or, if
        // capture is compulsory, a capture.
        let side = self.side_to_move();
        let own = self.pieces(side);
        let own_castle = castle(side);
        if (own & own_castle).is_empty() {
            let movers = own - castle(side.other());
            let open = Bitboard::ALL - self.occupied() - own_castle;
            // East and west first: two shifts that nearly always find one.
            if movers.shift_and(Direction::East, open).any()
                || movers.shift_and(Direction::West, open).any()
                || movers.neighbours_in(open).any()
            {
                return true;
            }
        }
        Context::new(self).has_move()
    }

    /// The pieces of the side to move that can jump at once and so make capturing
    /// compulsory (S4; under S10 only the piece leaving its castle counts).
    #[must_use]
    pub fn jumpers(&self) -> Bitboard {
        Context::new(self).jumpers
    }
}

/// Whether `player` has a piece on both squares of the opponent's castle (W1).
pub(crate) fn holds_castle(pos: &Position, player: Player) -> bool {
    (castle(player.other()) - pos.pieces(player)).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`Context::canter_reach`] as a plain breadth-first search over the leaps.
    fn canter_reach_reference(context: &Context, from: Square, forbidden: Bitboard) -> Bitboard {
        let friends = context.own.without(from);
        let open = (context.empty - context.own_castle) - forbidden;
        let mut reach = Bitboard::from_square(from);
        let mut queue = vec![from.index() as u8];
        while let Some(at) = queue.pop() {
            if context.opp_castle.contains_index(at) {
                continue;
            }
            for leap in &LEAPS[at as usize] {
                if friends.contains_index(leap.over)
                    && open.contains_index(leap.land)
                    && !reach.contains_index(leap.land)
                {
                    reach = reach.with_index(leap.land);
                    queue.push(leap.land);
                }
            }
        }
        reach
    }

    #[test]
    fn canter_reach_is_the_plain_search() {
        // Along deterministic random games: every piece's canters, with and without the
        // squares a knight could jump from left out, from both sides' points of view.
        let mut leaps = 0;
        for seed in 0..24u64 {
            let mut pos = Position::start();
            let mut state = seed;
            for _ in 0..160 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let context = Context::new(&pos);
                for from in context.own {
                    let jump_from = context.knight_jump_squares(context.base_jumps, from);
                    for forbidden in [Bitboard::EMPTY, jump_from] {
                        let reach = context.canter_reach(from, forbidden);
                        assert_eq!(
                            reach,
                            canter_reach_reference(&context, from, forbidden),
                            "{from} in {pos:?}"
                        );
                        leaps += reach.count() - 1;
                    }
                }
                let (next, pick) = game::splitmix64(state);
                state = next;
                pos.play_unchecked(moves[(pick % moves.len() as u64) as usize]);
            }
        }
        assert!(leaps > 1000, "canters were seen: {leaps}");
    }
}
