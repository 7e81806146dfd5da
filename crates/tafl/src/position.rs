//! A checked tafl position: where the pieces stand and who moves. Move generation,
//! captures and the end-of-game tests of TAFL.md live here; history (repetition) lives
//! in [`crate::Tafl`].

use std::fmt;

use game::{EndReason, Outcome, Player};

use crate::bitboard::Bitboard;
use crate::rules::Rules;
use crate::square::{Direction, SIZE, Square};
use crate::zobrist;

/// The attackers move first.
pub const ATTACKERS: Player = Player::First;
/// The defenders (with the king) move second.
pub const DEFENDERS: Player = Player::Second;

/// A kind of piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Piece {
    /// An attacker (black in the seeds, `t` in OpenTafl strings).
    Attacker = 0,
    /// A defender other than the king (`T`).
    Defender = 1,
    /// The king (`K`).
    King = 2,
}

impl Piece {
    /// The side the piece plays for.
    #[must_use]
    pub const fn side(self) -> Player {
        match self {
            Piece::Attacker => ATTACKERS,
            Piece::Defender | Piece::King => DEFENDERS,
        }
    }
}

/// A move: a piece goes from one square to another along a rank or file. The captures
/// follow from the position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    /// Where the piece starts.
    pub from: Square,
    /// Where it stops.
    pub to: Square,
}

impl Move {
    /// The move from `from` to `to`.
    #[must_use]
    pub const fn new(from: Square, to: Square) -> Move {
        Move { from, to }
    }
}

impl fmt::Display for Move {
    /// `from-to`, without captures (see [`crate::notation`] for the full notation).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.from, self.to)
    }
}

/// Why a position string or piece placement is not a tafl position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// The string does not have 11 ranks.
    #[error("expected 11 ranks separated by '/', found {0}")]
    RankCount(usize),
    /// A rank does not describe 11 squares.
    #[error("rank {rank} ({text:?}) describes {squares} squares, expected 11")]
    RankLength {
        /// The rank (1..=11).
        rank: u8,
        /// Its text.
        text: String,
        /// How many squares it described.
        squares: usize,
    },
    /// A character that is neither a piece letter nor a digit.
    #[error(
        "rank {rank}: {found:?} is not a piece (t = attacker, T = defender, K = king, digits = empty squares)"
    )]
    UnknownPiece {
        /// The rank (1..=11).
        rank: u8,
        /// The character found.
        found: char,
    },
    /// Two pieces on one square.
    #[error("two pieces on {0}")]
    Overlap(Square),
    /// Not exactly one king.
    #[error("a position needs exactly one king, found {0}")]
    KingCount(usize),
    /// A piece other than the king on the throne or a corner.
    #[error("only the king may stand on {0} (throne or corner)")]
    Restricted(Square),
    /// Too many pieces for the variants played here.
    #[error("too many {side}: {count} (at most {max})")]
    TooMany {
        /// `attackers` or `defenders`.
        side: &'static str,
        /// How many were found.
        count: u32,
        /// The most allowed.
        max: u32,
    },
    /// The side to move is missing or not a side.
    #[error("side to move {0:?} is not attackers or defenders")]
    Side(String),
}

/// A legal tafl position: pieces and side to move, with its Zobrist hash kept up to date.
///
/// ```
/// use tafl::{Position, Square, ATTACKERS};
/// let start = Position::start();
/// assert_eq!(start.side_to_move(), ATTACKERS);
/// assert_eq!(start.legal_moves().len(), 116);
/// assert_eq!(start.king(), Square::THRONE);
/// assert_eq!(
///     start.to_opentafl(),
///     "/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/"
/// );
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    attackers: Bitboard,
    defenders: Bitboard,
    king: Square,
    side: Player,
    hash: u64,
}

/// The OpenTafl string of the start position (TAFL.md 1).
pub const START: &str = "/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/";

impl Position {
    /// The start position, attackers to move.
    #[must_use]
    pub fn start() -> Position {
        Position::from_opentafl(START, ATTACKERS).expect("the start position is valid")
    }

    /// Builds a position from piece sets, checking it: one king, nothing but the king on
    /// the throne or a corner, no square used twice, at most 24 attackers and 12
    /// defenders besides the king.
    pub fn from_pieces(
        attackers: Bitboard,
        defenders: Bitboard,
        king: Square,
        side: Player,
    ) -> Result<Position, PositionError> {
        if let Some(sq) = (attackers & defenders).first() {
            return Err(PositionError::Overlap(sq));
        }
        if (attackers | defenders).contains(king) {
            return Err(PositionError::Overlap(king));
        }
        if let Some(sq) = ((attackers | defenders) & Bitboard::RESTRICTED).first() {
            return Err(PositionError::Restricted(sq));
        }
        for (side_name, set, max) in [("attackers", attackers, 24), ("defenders", defenders, 12)] {
            if set.count() > max {
                return Err(PositionError::TooMany {
                    side: side_name,
                    count: set.count(),
                    max,
                });
            }
        }
        let mut pos = Position {
            attackers,
            defenders,
            king,
            side,
            hash: 0,
        };
        pos.hash = pos.compute_hash();
        Ok(pos)
    }

    /// Reads an OpenTafl position string (rank 1 first, `t` attacker, `T` defender, `K`
    /// king, digits for runs of empty squares), with the side to move given apart.
    pub fn from_opentafl(text: &str, side: Player) -> Result<Position, PositionError> {
        let ranks: Vec<&str> = text.trim().split('/').filter(|r| !r.is_empty()).collect();
        if ranks.len() != SIZE as usize {
            return Err(PositionError::RankCount(ranks.len()));
        }
        let mut attackers = Bitboard::EMPTY;
        let mut defenders = Bitboard::EMPTY;
        let mut kings = Vec::new();
        for (r, row) in ranks.iter().enumerate() {
            let rank = r as u8;
            let mut file = 0usize;
            let mut digits = String::new();
            let flush = |digits: &mut String, file: &mut usize| {
                if !digits.is_empty() {
                    let run = digits.parse::<usize>().unwrap_or(usize::MAX);
                    *file = file.saturating_add(run);
                    digits.clear();
                }
            };
            for c in row.chars() {
                if c.is_ascii_digit() {
                    digits.push(c);
                    continue;
                }
                flush(&mut digits, &mut file);
                if file >= SIZE as usize {
                    file = file.saturating_add(1);
                    continue;
                }
                let sq = Square::new(file as u8, rank);
                match c {
                    't' => attackers = attackers.with(sq),
                    'T' => defenders = defenders.with(sq),
                    'K' => kings.push(sq),
                    other => {
                        return Err(PositionError::UnknownPiece {
                            rank: rank + 1,
                            found: other,
                        });
                    }
                }
                file += 1;
            }
            flush(&mut digits, &mut file);
            if file != SIZE as usize {
                return Err(PositionError::RankLength {
                    rank: rank + 1,
                    text: (*row).to_owned(),
                    squares: file,
                });
            }
        }
        match kings.as_slice() {
            [king] => Position::from_pieces(attackers, defenders, *king, side),
            _ => Err(PositionError::KingCount(kings.len())),
        }
    }

    /// Reads `<OpenTafl string> <side>`, the side being `attackers`/`defenders` (or
    /// `a`/`d`, `p1`/`p2`): the form [`Position::to_string_with_side`] writes.
    pub fn from_string_with_side(text: &str) -> Result<Position, PositionError> {
        let mut parts = text.split_whitespace();
        let board = parts.next().unwrap_or("");
        let side_text = parts.next().unwrap_or("");
        if parts.next().is_some() {
            return Err(PositionError::Side(text.to_owned()));
        }
        let side = parse_side(side_text).ok_or_else(|| PositionError::Side(side_text.into()))?;
        Position::from_opentafl(board, side)
    }

    /// The OpenTafl position string (no side to move).
    #[must_use]
    pub fn to_opentafl(&self) -> String {
        let mut out = String::from("/");
        for rank in 0..SIZE {
            let mut empty = 0;
            for file in 0..SIZE {
                let c = match self.piece_at(Square::new(file, rank)) {
                    None => {
                        empty += 1;
                        continue;
                    }
                    Some(Piece::Attacker) => 't',
                    Some(Piece::Defender) => 'T',
                    Some(Piece::King) => 'K',
                };
                if empty > 0 {
                    out.push_str(&empty.to_string());
                    empty = 0;
                }
                out.push(c);
            }
            if empty > 0 {
                out.push_str(&empty.to_string());
            }
            out.push('/');
        }
        out
    }

    /// `<OpenTafl string> attackers|defenders`.
    #[must_use]
    pub fn to_string_with_side(&self) -> String {
        let side = if self.side == ATTACKERS {
            "attackers"
        } else {
            "defenders"
        };
        format!("{} {side}", self.to_opentafl())
    }

    /// The attackers.
    #[must_use]
    #[inline]
    pub const fn attackers(&self) -> Bitboard {
        self.attackers
    }

    /// The defenders, not counting the king.
    #[must_use]
    #[inline]
    pub const fn defenders(&self) -> Bitboard {
        self.defenders
    }

    /// The king's square.
    #[must_use]
    #[inline]
    pub const fn king(&self) -> Square {
        self.king
    }

    /// Every occupied square.
    #[must_use]
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.attackers | self.defenders | Bitboard::from_square(self.king)
    }

    /// The side to move.
    #[must_use]
    #[inline]
    pub const fn side_to_move(&self) -> Player {
        self.side
    }

    /// The same pieces with `side` to move (a null move when `side` is the other side):
    /// for looking at what a side could do if it were its turn.
    #[must_use]
    #[inline]
    pub fn with_side_to_move(&self, side: Player) -> Position {
        let mut copy = *self;
        if side != self.side {
            copy.side = side;
            copy.hash ^= zobrist::DEFENDERS_TO_MOVE;
        }
        copy
    }

    /// The Zobrist hash (pieces and side to move).
    #[must_use]
    #[inline]
    pub const fn hash(&self) -> u64 {
        self.hash
    }

    /// The piece on `sq`, if any.
    #[must_use]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        if self.king == sq {
            Some(Piece::King)
        } else if self.attackers.contains(sq) {
            Some(Piece::Attacker)
        } else if self.defenders.contains(sq) {
            Some(Piece::Defender)
        } else {
            None
        }
    }

    /// The hash computed from scratch (equals [`Position::hash`]; used by tests).
    #[must_use]
    pub fn compute_hash(&self) -> u64 {
        let mut hash = zobrist::piece_key(Piece::King, self.king);
        for sq in self.attackers {
            hash ^= zobrist::piece_key(Piece::Attacker, sq);
        }
        for sq in self.defenders {
            hash ^= zobrist::piece_key(Piece::Defender, sq);
        }
        if self.side == DEFENDERS {
            hash ^= zobrist::DEFENDERS_TO_MOVE;
        }
        hash
    }

    // ---- Move generation (TAFL.md 2) ----

    /// Calls `f` for every legal move, by direction, then distance, then square.
    #[inline]
    fn for_each_move(&self, mut f: impl FnMut(Move)) {
        let empty = !self.occupied();
        let (pawns, king) = if self.side == ATTACKERS {
            (self.attackers, Bitboard::EMPTY)
        } else {
            (self.defenders, Bitboard::from_square(self.king))
        };
        for dir in Direction::ALL {
            let step = step_of(dir);
            // 2a/2c: slide through empty squares (the empty throne included); 2b: only
            // the king stops on a restricted square.
            let mut frontier = pawns;
            let mut king_frontier = king;
            let mut distance = 0i32;
            loop {
                frontier = frontier.shift(dir) & empty;
                king_frontier = king_frontier.shift(dir) & empty;
                if frontier.is_empty() && king_frontier.is_empty() {
                    break;
                }
                distance += 1;
                for to in (frontier - Bitboard::RESTRICTED) | king_frontier {
                    let from = (to.index() as i32 - distance * step) as u8;
                    f(Move::new(Square::from_index_unchecked(from), to));
                }
            }
        }
    }

    /// Every legal move. Empty when the side to move cannot move (it has then lost,
    /// TAFL.md 9). Whether the game is already over is not this type's concern: see
    /// [`crate::Tafl`].
    #[must_use]
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut moves = Vec::with_capacity(160);
        self.legal_moves_into(&mut moves);
        moves
    }

    /// Appends every legal move to `out`.
    #[inline]
    pub fn legal_moves_into(&self, out: &mut Vec<Move>) {
        self.for_each_move(|mv| out.push(mv));
    }

    /// The number of legal moves, without listing them.
    #[must_use]
    pub fn count_moves(&self) -> u32 {
        let empty = !self.occupied();
        let (pawns, king) = if self.side == ATTACKERS {
            (self.attackers, Bitboard::EMPTY)
        } else {
            (self.defenders, Bitboard::from_square(self.king))
        };
        let mut total = 0;
        for dir in Direction::ALL {
            let mut frontier = pawns;
            let mut king_frontier = king;
            loop {
                frontier = frontier.shift(dir) & empty;
                king_frontier = king_frontier.shift(dir) & empty;
                if frontier.is_empty() && king_frontier.is_empty() {
                    break;
                }
                total += (frontier - Bitboard::RESTRICTED).count() + king_frontier.count();
            }
        }
        total
    }

    /// Whether the side to move has any legal move (TAFL.md 9).
    #[must_use]
    pub fn has_legal_move(&self) -> bool {
        let empty = !self.occupied();
        let (pawns, king) = if self.side == ATTACKERS {
            (self.attackers, Bitboard::EMPTY)
        } else {
            (self.defenders, Bitboard::from_square(self.king))
        };
        if (pawns.neighbours() & empty & !Bitboard::RESTRICTED).any()
            || (king.neighbours() & empty).any()
        {
            return true;
        }
        // Only a piece next to the empty throne might still move, through it.
        self.count_moves() > 0
    }

    /// The squares the piece on `from` can move to (empty if there is none, or it is not
    /// the side to move's piece). For user interfaces.
    #[must_use]
    pub fn destinations(&self, from: Square) -> Bitboard {
        let mut set = Bitboard::EMPTY;
        self.for_each_move(|mv| {
            if mv.from == from {
                set = set.with(mv.to);
            }
        });
        set
    }

    /// Why `mv` is not legal here, or `Ok(())` if it is.
    pub fn check_move(&self, mv: Move) -> Result<(), IllegalReason> {
        let piece = self.piece_at(mv.from).ok_or(IllegalReason::NoPiece)?;
        if piece.side() != self.side {
            return Err(IllegalReason::NotYourPiece);
        }
        if mv.from == mv.to {
            return Err(IllegalReason::ZeroLength);
        }
        if mv.from.file() != mv.to.file() && mv.from.rank() != mv.to.rank() {
            return Err(IllegalReason::NotStraight);
        }
        if mv.to.is_restricted() && piece != Piece::King {
            return Err(IllegalReason::Restricted);
        }
        let dir = direction_between(mv.from, mv.to);
        let mut sq = mv.from;
        while sq != mv.to {
            sq = sq.step(dir).expect("the target lies on this line");
            if self.piece_at(sq).is_some() {
                return Err(IllegalReason::Blocked(sq));
            }
        }
        Ok(())
    }

    /// Whether `mv` is legal here.
    #[must_use]
    pub fn is_legal(&self, mv: Move) -> bool {
        self.check_move(mv).is_ok()
    }

    // ---- Playing a move (TAFL.md 3, 4) ----

    /// Plays a legal move and returns the pieces it captured (custodial and shieldwall).
    /// The move must be legal ([`Position::is_legal`]); the king is never removed.
    pub fn play_unchecked(&mut self, mv: Move, rules: Rules) -> Bitboard {
        let from = Bitboard::from_square(mv.from);
        let to = Bitboard::from_square(mv.to);
        let mover = if self.side == ATTACKERS {
            self.attackers ^= from | to;
            Piece::Attacker
        } else if self.king == mv.from {
            self.king = mv.to;
            Piece::King
        } else {
            self.defenders ^= from | to;
            Piece::Defender
        };
        self.hash ^= zobrist::piece_key(mover, mv.from) ^ zobrist::piece_key(mover, mv.to);

        let mut captured = self.custodial_captures(mv.to);
        self.remove(captured);
        if rules.is_copenhagen() && mv.to.is_edge() {
            let walls = self.shieldwall_captures(mv.to);
            self.remove(walls);
            captured |= walls;
        }
        self.side = self.side.other();
        self.hash ^= zobrist::DEFENDERS_TO_MOVE;
        captured
    }

    /// The captures `mv` would make, without playing it. The move must be legal.
    #[must_use]
    pub fn captures_of(&self, mv: Move, rules: Rules) -> Bitboard {
        let mut copy = *self;
        copy.play_unchecked(mv, rules)
    }

    fn remove(&mut self, captured: Bitboard) {
        if captured.is_empty() {
            return;
        }
        let (set, piece) = if self.side == ATTACKERS {
            (&mut self.defenders, Piece::Defender)
        } else {
            (&mut self.attackers, Piece::Attacker)
        };
        *set -= captured;
        for sq in captured {
            self.hash ^= zobrist::piece_key(piece, sq);
        }
    }

    /// 3a–3e: enemies next to `to` with the mover's piece or a hostile square beyond.
    #[inline]
    fn custodial_captures(&self, to: Square) -> Bitboard {
        let (victims, anvils) = if self.side == ATTACKERS {
            // 3e: the throne is hostile to defenders only while it is empty.
            let throne = if self.king == Square::THRONE {
                Bitboard::EMPTY
            } else {
                Bitboard::THRONE
            };
            (self.defenders, self.attackers | Bitboard::CORNERS | throne)
        } else {
            // 3c: the king is an anvil; 3e: the throne is always hostile to attackers.
            (
                self.attackers,
                self.defenders
                    | Bitboard::from_square(self.king)
                    | Bitboard::CORNERS
                    | Bitboard::THRONE,
            )
        };
        let origin = Bitboard::from_square(to);
        let mut captured = Bitboard::EMPTY;
        for dir in Direction::ALL {
            let next = origin.shift(dir) & victims;
            if (next.shift(dir) & anvils).any() {
                captured |= next;
            }
        }
        captured
    }

    /// TAFL.md 4: rows of two or more enemies along the edge, bracketed by the moved
    /// piece and a friendly piece or corner, every member faced by a friendly piece.
    fn shieldwall_captures(&self, to: Square) -> Bitboard {
        let king = Bitboard::from_square(self.king);
        let (row_pieces, friends) = if self.side == ATTACKERS {
            (self.defenders | king, self.attackers)
        } else {
            (self.attackers, self.defenders | king)
        };
        let mut captured = Bitboard::EMPTY;
        for (along, inward) in edge_lines(to) {
            for dir in along {
                let mut row = Bitboard::EMPTY;
                let mut sq = to.step(dir);
                let bracketed = loop {
                    match sq {
                        None => break false,
                        Some(s) if s.is_corner() => break true,
                        Some(s) if row_pieces.contains(s) => row = row.with(s),
                        Some(s) => break friends.contains(s),
                    }
                    sq = sq.and_then(|s| s.step(dir));
                };
                if bracketed
                    && row.count() >= 2
                    && row
                        .into_iter()
                        .all(|m| m.step(inward).is_some_and(|front| friends.contains(front)))
                {
                    // 4f: the king takes part but is never removed.
                    captured |= row - king;
                }
            }
        }
        captured
    }

    // ---- End of game (TAFL.md 5–9) ----

    /// The outcome decided by this position right after `mv` was played (custodial and
    /// shieldwall captures already made), in the order of TAFL.md 12, except repetition
    /// (which needs the history) and the side to move having no move (9, see
    /// [`Position::has_legal_move`]).
    #[must_use]
    pub fn outcome_after(&self, mv: Move, rules: Rules) -> Option<Outcome> {
        if self.king.is_corner() {
            return Some(Outcome::win(DEFENDERS, EndReason::CornerEscape));
        }
        // The side to move has already flipped: the attackers just moved.
        if self.side == DEFENDERS && self.king_captured_by(mv.to) {
            return Some(Outcome::win(ATTACKERS, EndReason::KingCaptured));
        }
        if rules.is_copenhagen() && self.king.is_edge() && self.is_exit_fort() {
            return Some(Outcome::win(DEFENDERS, EndReason::ExitFort));
        }
        if self.is_encircled() {
            return Some(Outcome::win(ATTACKERS, EndReason::Encirclement));
        }
        None
    }

    /// 6a–6d: the attacker that moved to `moved_to` closed a trap around the king.
    #[must_use]
    pub fn king_captured_by(&self, moved_to: Square) -> bool {
        let king = Bitboard::from_square(self.king);
        let around = king.neighbours();
        // 6d: never on the edge; 6c: the moved attacker must be one of the captors; 6b:
        // the empty throne stands in for an attacker beside it.
        !self.king.is_edge()
            && around.contains(moved_to)
            && (around - self.attackers - Bitboard::THRONE).is_empty()
    }

    /// 8a: no defender and not the king can reach the board edge.
    #[must_use]
    pub fn is_encircled(&self) -> bool {
        let defenders = self.defenders | Bitboard::from_square(self.king);
        if (defenders & Bitboard::EDGE).any() {
            return false;
        }
        let through = !self.attackers;
        let mut filled = defenders;
        loop {
            let next = (filled | filled.neighbours()) & through;
            if (next & Bitboard::EDGE).any() {
                return false;
            }
            if next == filled {
                return true;
            }
            filled = next;
        }
    }

    /// TAFL.md 7: the king stands in an exit fort the attackers can never break.
    #[must_use]
    pub fn is_exit_fort(&self) -> bool {
        let king = Bitboard::from_square(self.king);
        // 7a: on an edge, not a corner, and able to move.
        if !self.king.is_edge() || self.king.is_corner() {
            return false;
        }
        let empty = !self.occupied();
        if (king.neighbours() & empty).is_empty() {
            return false;
        }
        // 7b: the king's region, and no attacker touching it.
        let region = king.flood(empty);
        if (region.neighbours() & self.attackers).any() {
            return false;
        }
        // 7c: the wall, and the stable defenders.
        let wall = region.neighbours() & self.defenders;
        let mut stable = self.defenders;
        loop {
            let ok = region | stable;
            let horizontal = Bitboard::FILE_A | Bitboard::FILE_K | ok.east() | ok.west();
            let vertical = Bitboard::RANK_1 | Bitboard::RANK_11 | ok.north() | ok.south();
            let next = stable & horizontal & vertical;
            if next == stable {
                break;
            }
            stable = next;
        }
        if !(wall - stable).is_empty() {
            return false;
        }
        // 7d: no edge run of two or more wall pieces open to a shieldwall.
        let safe_front = region | stable;
        for (line, inward) in EDGES {
            let mut run = Bitboard::EMPTY;
            let mut protected = false;
            for i in 0..=SIZE {
                let sq = (i < SIZE).then(|| line(i));
                match sq {
                    Some(s) if wall.contains(s) => {
                        run = run.with(s);
                        protected |= s.step(inward).is_some_and(|f| safe_front.contains(f));
                    }
                    _ => {
                        if run.count() >= 2 && !protected {
                            return false;
                        }
                        run = Bitboard::EMPTY;
                        protected = false;
                    }
                }
            }
        }
        true
    }
}

/// The square at index `i` along an edge.
type EdgeSquare = fn(u8) -> Square;

/// The four edges, each as (the square at index i along it, the inward direction).
const EDGES: [(EdgeSquare, Direction); 4] = [
    (|i| Square::new(i, 0), Direction::North),
    (|i| Square::new(i, SIZE - 1), Direction::South),
    (|i| Square::new(0, i), Direction::East),
    (|i| Square::new(SIZE - 1, i), Direction::West),
];

/// For each edge `sq` lies on: the two directions along it and the inward direction.
fn edge_lines(sq: Square) -> impl Iterator<Item = ([Direction; 2], Direction)> {
    let horizontal = [Direction::East, Direction::West];
    let vertical = [Direction::North, Direction::South];
    [
        (sq.rank() == 0).then_some((horizontal, Direction::North)),
        (sq.rank() == SIZE - 1).then_some((horizontal, Direction::South)),
        (sq.file() == 0).then_some((vertical, Direction::East)),
        (sq.file() == SIZE - 1).then_some((vertical, Direction::West)),
    ]
    .into_iter()
    .flatten()
}

const fn step_of(dir: Direction) -> i32 {
    match dir {
        Direction::North => SIZE as i32,
        Direction::South => -(SIZE as i32),
        Direction::East => 1,
        Direction::West => -1,
    }
}

fn direction_between(from: Square, to: Square) -> Direction {
    if from.file() == to.file() {
        if to.rank() > from.rank() {
            Direction::North
        } else {
            Direction::South
        }
    } else if to.file() > from.file() {
        Direction::East
    } else {
        Direction::West
    }
}

pub(crate) fn parse_side(text: &str) -> Option<Player> {
    match text.trim().to_ascii_lowercase().as_str() {
        "attackers" | "attacker" | "a" | "p1" | "black" | "b" => Some(ATTACKERS),
        "defenders" | "defender" | "d" | "p2" | "white" | "w" => Some(DEFENDERS),
        _ => None,
    }
}

/// Why a move is illegal in a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IllegalReason {
    /// The start square is empty.
    #[error("there is no piece on the start square")]
    NoPiece,
    /// The piece belongs to the side not to move.
    #[error("that piece belongs to the side not to move")]
    NotYourPiece,
    /// From and to are the same square.
    #[error("a move must go at least one square (2a)")]
    ZeroLength,
    /// Not along a rank or file.
    #[error("pieces move along a rank or file, like a rook (2a)")]
    NotStraight,
    /// A piece other than the king would stop on the throne or a corner.
    #[error("only the king may stop on the throne or a corner (2b)")]
    Restricted,
    /// Something stands in the way.
    #[error("the way is blocked at {0} (pieces never jump, 2a)")]
    Blocked(Square),
}

impl fmt::Display for Position {
    /// The board, rank 11 at the top: `X` attacker, `O` defender, `K` king, `+` an empty
    /// throne or corner, `.` an empty square; then the side to move.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rank in (0..SIZE).rev() {
            write!(f, "{:>2} ", rank + 1)?;
            for file in 0..SIZE {
                let sq = Square::new(file, rank);
                let c = match self.piece_at(sq) {
                    Some(Piece::Attacker) => 'X',
                    Some(Piece::Defender) => 'O',
                    Some(Piece::King) => 'K',
                    None if sq.is_restricted() => '+',
                    None => '.',
                };
                write!(f, " {c}")?;
            }
            writeln!(f)?;
        }
        writeln!(f, "    a b c d e f g h i j k")?;
        let side = if self.side == ATTACKERS {
            "attackers"
        } else {
            "defenders"
        };
        write!(f, "{side} to move")
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", self.to_string_with_side())
    }
}
