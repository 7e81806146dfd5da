//! The tafl evaluation (Fetlar and Copenhagen) and tafl's forcing moves.
//!
//! Everything is bit operations on the position's `u128` boards. The terms, from the
//! defenders' side:
//!
//! - material: defenders and attackers on the board;
//! - the king's escape: the corners he reaches now, the squares he reaches from which a
//!   corner would be open along the edge (escape threats), those that open two corners
//!   at once (double threats, a win unless answered at once), and the squares opening a
//!   corner that he reaches in two moves (routes in the making);
//! - the king's mobility, and attackers next to him (capture danger; never on the edge,
//!   where he cannot be captured);
//! - corner guards: attackers on the squares that seal a corner off diagonally (`b3`,
//!   `c2` for `a1`), and attackers exposed on the squares beside a corner;
//! - encirclement pressure: how much of the board edge the defenders can still reach
//!   through squares not held by attackers;
//! - attacker walls: attackers linked diagonally (pieces move orthogonally, so a
//!   diagonal chain is a wall);
//! - Copenhagen: the king on the edge with defenders beside him and no attacker touching
//!   him (a fort in the making).

use game::Game;
use tafl::{ATTACKERS, Bitboard, DEFENDERS, Direction, Move, Position, Square, Tafl};

use crate::eval::{Evaluator, Threats};
use crate::games::tafl_net::{TaflMemo, TaflNet};

/// The weights of the tafl evaluation, from the defenders' side (a positive weight helps
/// the defenders). Units: an attacker is worth [`TaflWeights::attacker`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaflWeights {
    /// Each attacker on the board.
    pub attacker: i32,
    /// Each defender (besides the king) on the board.
    pub defender: i32,
    /// Each square the king can move to.
    pub king_mobility: i32,
    /// Each corner the king could reach right now (only seen when the attackers are to
    /// move and must block it).
    pub open_corner: i32,
    /// Each square the king can move to that opens a line to a corner (an escape threat).
    pub escape_threat: i32,
    /// Each square the king can move to that opens lines to two corners. (A square
    /// beside a corner is as unstoppable, and the search treats it so, but counts here
    /// as an escape threat: weighting it as a double threat lost games, bench/RESULTS.md.)
    pub double_threat: i32,
    /// Each square the king reaches in two moves (not one) that opens a line to a corner:
    /// escape routes in the making.
    pub escape_route: i32,
    /// Attackers next to the king off the edge (the empty throne counting as one), by
    /// number: 0, 1, 2, 3 (4 means captured).
    pub king_pressure: [i32; 4],
    /// Each attacker on a corner guard square (`b3`, `c2` and their mirrors).
    pub corner_guard: i32,
    /// Each corner with both of its guard squares held.
    pub corner_sealed: i32,
    /// Each corner the king cannot reach through squares free of attackers (defenders
    /// may move aside, attackers are a wall): a corner the attackers have closed, by
    /// whatever shape.
    pub corner_closed: i32,
    /// Each attacker on a square beside a corner (`a2`, `b1`…), where one defender
    /// captures it against the corner.
    pub corner_neighbour: i32,
    /// Each edge square the defenders can reach through squares free of attackers, up to
    /// [`TaflWeights::edge_reach_cap`].
    pub edge_reach: i32,
    /// Edge reach beyond this counts no more.
    pub edge_reach_cap: i32,
    /// The endgame terms (`defender_mobility`, `endgame_room`) count with this many
    /// defenders left (besides the king) or fewer.
    pub endgame_defenders: i32,
    /// Each diagonal link between two attackers.
    pub attacker_link: i32,
    /// Copenhagen: the king on the edge with two or more defenders beside him and no
    /// attacker touching him.
    pub fort: i32,
    /// With [`TaflWeights::endgame_defenders`] defenders or fewer left (besides the
    /// king), each square short of 40 that some defender can move to: the room the
    /// attackers take away to finish a won game (a side that cannot move loses). 0 while
    /// the defenders have their fill, so that a capture never turns it on in their
    /// favour.
    pub defender_mobility: i32,
    /// With [`TaflWeights::endgame_defenders`] defenders or fewer left, or with no
    /// corner left that they could reach (in Copenhagen: and no edge square either,
    /// where the king would build an exit fort), each square of the board outside the
    /// defenders' room (the squares they and the king reach through squares free of
    /// attackers, as for `edge_reach`, but all of them): the ring the attackers tighten.
    pub endgame_room: i32,
    /// For the side to move.
    pub tempo: i32,
}

/// The weights the engine plays with: `src/games/tafl.weights`, embedded in the binary
/// (`name value` lines over [`TaflWeights::HAND_SET`]; `--example tune_tafl --out` writes
/// such a file).
pub const EMBEDDED_WEIGHTS: &str = include_str!("tafl.weights");

static EMBEDDED: std::sync::LazyLock<TaflWeights> = std::sync::LazyLock::new(|| {
    TaflWeights::HAND_SET
        .read(EMBEDDED_WEIGHTS)
        // A test reads the file; a file that does not read fails it.
        .unwrap_or(TaflWeights::HAND_SET)
});

impl Default for TaflWeights {
    /// The embedded weights ([`EMBEDDED_WEIGHTS`]).
    fn default() -> Self {
        *EMBEDDED
    }
}

impl TaflWeights {
    /// The weights as set by hand before any tuning. The fit to the archive alone
    /// predicted human results better but lost to these in self-play (9.5/32 at 100k
    /// nodes a move); see the crate README for the command that compares weight files.
    pub const HAND_SET: TaflWeights = TaflWeights {
        attacker: 100,
        defender: 200,
        king_mobility: 4,
        open_corner: 400,
        escape_threat: 60,
        double_threat: 250,
        escape_route: 0,
        king_pressure: [0, 5, 30, 90],
        corner_guard: 18,
        corner_sealed: 30,
        corner_closed: 0,
        corner_neighbour: 12,
        edge_reach: 6,
        edge_reach_cap: 20,
        endgame_defenders: 4,
        attacker_link: 6,
        fort: 60,
        defender_mobility: 0,
        endgame_room: 0,
        tempo: 10,
    };
}

impl TaflWeights {
    /// Every weight by name (`king_pressure[2]`…), for tuning tools and weight files.
    pub fn named(&mut self) -> Vec<(&'static str, &mut i32)> {
        let [p0, p1, p2, p3] = &mut self.king_pressure;
        vec![
            ("attacker", &mut self.attacker),
            ("defender", &mut self.defender),
            ("king_mobility", &mut self.king_mobility),
            ("open_corner", &mut self.open_corner),
            ("escape_threat", &mut self.escape_threat),
            ("double_threat", &mut self.double_threat),
            ("escape_route", &mut self.escape_route),
            ("king_pressure[0]", p0),
            ("king_pressure[1]", p1),
            ("king_pressure[2]", p2),
            ("king_pressure[3]", p3),
            ("corner_guard", &mut self.corner_guard),
            ("corner_sealed", &mut self.corner_sealed),
            ("corner_closed", &mut self.corner_closed),
            ("corner_neighbour", &mut self.corner_neighbour),
            ("edge_reach", &mut self.edge_reach),
            ("edge_reach_cap", &mut self.edge_reach_cap),
            ("endgame_defenders", &mut self.endgame_defenders),
            ("attacker_link", &mut self.attacker_link),
            ("fort", &mut self.fort),
            ("defender_mobility", &mut self.defender_mobility),
            ("endgame_room", &mut self.endgame_room),
            ("tempo", &mut self.tempo),
        ]
    }

    /// Reads `name value` lines (`#` comments) over these weights; names not given keep
    /// their value.
    pub fn read(mut self, text: &str) -> Result<TaflWeights, String> {
        for (i, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let mut parts = line.split_whitespace();
            let (Some(name), Some(value), None) = (parts.next(), parts.next(), parts.next()) else {
                return Err(format!("line {}: expected `name value`: {line}", i + 1));
            };
            let value: i32 = value
                .parse()
                .map_err(|_| format!("line {}: {value:?} is not a whole number", i + 1))?;
            let mut named = self.named();
            let slot = named
                .iter_mut()
                .find(|(n, _)| *n == name)
                .ok_or_else(|| format!("line {}: unknown weight {name:?}", i + 1))?;
            *slot.1 = value;
        }
        Ok(self)
    }

    /// The weights as `name value` lines, readable by [`TaflWeights::read`].
    #[must_use]
    pub fn write(mut self) -> String {
        self.named()
            .into_iter()
            .map(|(name, value)| format!("{name} {value}\n"))
            .collect()
    }
}

/// The tafl evaluation: hand-set terms with the weights it uses, and a learned
/// correction on top.
///
/// ```
/// use engine::Evaluator;
/// use engine::games::tafl::{TaflEval, TaflWeights};
/// use tafl::{Rules, Tafl};
///
/// let game = Tafl::new(Rules::COPENHAGEN);
/// let hand = TaflEval::with_weights(TaflWeights::default());
/// assert!(hand.evaluate(&game).abs() < 300, "by the terms, the start is roughly balanced");
/// assert_eq!(hand.winning_move(&game), None);
/// // The learned correction is centred: it moves positions against each other, and
/// // leaves the start about even.
/// let eval = TaflEval::default();
/// assert!(eval.net.is_some());
/// assert!(eval.evaluate(&game).abs() < 300);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaflEval {
    /// The weights.
    pub weights: TaflWeights,
    /// A learned correction added to the hand-set terms ([`super::tafl_net`]), if any.
    pub net: Option<&'static TaflNet>,
}

impl Default for TaflEval {
    /// The embedded weights and the embedded learned correction: what the engine plays
    /// with.
    fn default() -> Self {
        TaflEval {
            weights: TaflWeights::default(),
            net: Some(TaflNet::embedded()),
        }
    }
}

impl TaflEval {
    /// The hand-set terms with these weights, and no learned correction.
    #[must_use]
    pub const fn with_weights(weights: TaflWeights) -> TaflEval {
        TaflEval { weights, net: None }
    }
}

const fn bb(squares: &[(u8, u8)]) -> Bitboard {
    let mut bits = 0u128;
    let mut i = 0;
    while i < squares.len() {
        let (file, rank) = squares[i];
        bits |= 1u128 << (rank as u32 * 11 + file as u32);
        i += 1;
    }
    Bitboard(bits)
}

/// Corners a line along the bottom/top edge leads east from (`a1`, `a11`), west from
/// (`k1`, `k11`), and along the side edges north from (`a1`, `k1`) and south from (`a11`,
/// `k11`).
const FROM_WEST: Bitboard = bb(&[(0, 0), (0, 10)]);
const FROM_EAST: Bitboard = bb(&[(10, 0), (10, 10)]);
const FROM_SOUTH: Bitboard = bb(&[(0, 0), (10, 0)]);
const FROM_NORTH: Bitboard = bb(&[(0, 10), (10, 10)]);

/// Per corner, the two squares that seal it off diagonally.
const GUARDS: [Bitboard; 4] = [
    bb(&[(1, 2), (2, 1)]),
    bb(&[(9, 2), (8, 1)]),
    bb(&[(1, 8), (2, 9)]),
    bb(&[(9, 8), (8, 9)]),
];
const ALL_GUARDS: Bitboard = Bitboard(GUARDS[0].0 | GUARDS[1].0 | GUARDS[2].0 | GUARDS[3].0);
const CORNER_NEIGHBOURS: Bitboard = bb(&[
    (1, 0),
    (0, 1),
    (9, 0),
    (10, 1),
    (0, 9),
    (1, 10),
    (10, 9),
    (9, 10),
]);

/// The squares a piece on `from` can move to through `empty` (restricted squares
/// included: only the king may stop there, the caller filters).
#[inline]
fn reach(from: Bitboard, empty: Bitboard) -> Bitboard {
    let mut all = Bitboard::EMPTY;
    for dir in Direction::ALL {
        let mut ray = from.shift(dir) & empty;
        while ray.any() {
            all |= ray;
            ray = ray.shift(dir) & empty;
        }
    }
    all
}

#[inline]
fn fill(from: Bitboard, dir: Direction, through: Bitboard) -> Bitboard {
    let mut filled = from;
    loop {
        let next = filled | (filled.shift(dir) & through);
        if next == filled {
            return filled;
        }
        filled = next;
    }
}

/// The king's escape geometry in a position.
#[derive(Clone, Copy, Debug)]
struct Escape {
    /// The squares the king can move to.
    reach: Bitboard,
    /// Squares (not corners) with an open edge line to a corner if the king stood there,
    /// per corner-direction family.
    lines: [Bitboard; 4],
}

impl Escape {
    #[inline]
    fn of(pos: &Position) -> Escape {
        let king = Bitboard::from_square(pos.king());
        let occupied = pos.attackers() | pos.defenders() | king;
        let empty = Bitboard::ALL - occupied;
        // The king's own square counts as empty: he is the piece that would move.
        let edge = (empty | king) & Bitboard::EDGE;
        Escape {
            reach: reach(king, empty),
            lines: [
                fill(FROM_WEST, Direction::East, edge) - Bitboard::CORNERS,
                fill(FROM_EAST, Direction::West, edge) - Bitboard::CORNERS,
                fill(FROM_SOUTH, Direction::North, edge) - Bitboard::CORNERS,
                fill(FROM_NORTH, Direction::South, edge) - Bitboard::CORNERS,
            ],
        }
    }

    #[inline]
    fn open_corners(&self) -> Bitboard {
        self.reach & Bitboard::CORNERS
    }

    #[inline]
    fn any_line(&self) -> Bitboard {
        self.lines[0] | self.lines[1] | self.lines[2] | self.lines[3]
    }

    /// Squares open to two corners.
    #[inline]
    fn double_lines(&self) -> Bitboard {
        let [a, b, c, d] = self.lines;
        (a & b) | (a & c) | (a & d) | (b & c) | (b & d) | (c & d)
    }

    /// King moves that threaten an escape the attackers cannot block: to a square open
    /// to two corners, or to a square beside a corner (nothing lies between him and it,
    /// and on the edge he cannot be captured). Only a square between the king and that
    /// square, or a line closed before he moves, stops it.
    #[inline]
    fn unstoppable(&self) -> Bitboard {
        self.reach & (self.double_lines() | CORNER_NEIGHBOURS)
    }

    /// King moves that threaten to escape next move.
    #[inline]
    fn threats(&self) -> Bitboard {
        self.reach & self.any_line()
    }
}

/// The squares between the king and every corner he can reach now.
fn escape_blocks(pos: &Position) -> Bitboard {
    let king = Bitboard::from_square(pos.king());
    let empty = Bitboard::ALL - pos.occupied();
    let mut blocks = Bitboard::EMPTY;
    for dir in Direction::ALL {
        let mut line = Bitboard::EMPTY;
        let mut ray = king.shift(dir) & empty;
        while ray.any() {
            line |= ray;
            ray = ray.shift(dir) & empty;
        }
        if (line & Bitboard::CORNERS).any() {
            blocks |= line - Bitboard::CORNERS;
        }
    }
    blocks
}

/// Whether the squares reachable from `seed` through `through` touch no square of
/// `foes`. Stops at the first foe it touches, so an open region costs a step or two.
#[inline]
fn sealed_from(seed: Bitboard, through: Bitboard, foes: Bitboard) -> bool {
    let mut filled = seed;
    loop {
        let around = filled.neighbours();
        if (around & foes).any() {
            return false;
        }
        let next = filled | (around & through);
        if next == filled {
            return true;
        }
        filled = next;
    }
}

/// A Copenhagen move of the defenders (who must be to move in `pos`) that builds an exit
/// fort at once (TAFL.md 7), if there is one. It looks where a fort can close in one
/// move and checks each candidate with the rules' own test:
/// - the king stepping onto an edge square whose region no attacker touches;
/// - with the king on the edge: a defender put on a square near him that cuts his
///   region off from every attacker, a capture (of an attacker touching it), or, where
///   no attacker touches his region already, any move (one that steadies the wall).
///
/// A move that both cuts the region and captures is missed, as is a cut more than
/// three steps from the king: the search still sees those forts one move later.
fn fort_in_one(pos: &Position, reach: Bitboard) -> Option<Move> {
    let king_sq = pos.king();
    let king = Bitboard::from_square(king_sq);
    let attackers = pos.attackers();
    let empty = Bitboard::ALL - pos.occupied();
    let closes = |mv: Move| {
        let mut after = *pos;
        after.play_unchecked(mv, tafl::Rules::COPENHAGEN);
        after.king().is_edge() && after.is_exit_fort()
    };
    for to in reach & (Bitboard::EDGE - Bitboard::CORNERS) {
        if sealed_from(Bitboard::from_square(to), empty | king, attackers) {
            let mv = Move::new(king_sq, to);
            if closes(mv) {
                return Some(mv);
            }
        }
    }
    if !king_sq.is_edge() {
        return None;
    }
    let mut moves = Vec::new();
    if sealed_from(king, empty, attackers) {
        pos.legal_moves_into(&mut moves);
        return moves
            .into_iter()
            .find(|&mv| mv.from != king_sq && closes(mv));
    }
    let mut near = king;
    for _ in 0..3 {
        near |= near.neighbours();
    }
    for to in near & (empty - Bitboard::RESTRICTED) {
        if sealed_from(king, empty.without(to), attackers) {
            moves_to(pos, to, false, &mut moves);
        }
    }
    for to in capture_targets(pos) & near.neighbours() {
        moves_to(pos, to, false, &mut moves);
    }
    moves
        .into_iter()
        .find(|&mv| mv.from != king_sq && closes(mv))
}

/// The defenders' win in one (they are to move in `pos`): the king to an open corner, or
/// in Copenhagen a move that closes a fort.
fn defenders_win_in_one(pos: &Position, escape: &Escape, copenhagen: bool) -> Option<Move> {
    escape
        .open_corners()
        .first()
        .map(|corner| Move::new(pos.king(), corner))
        .or_else(|| copenhagen.then(|| fort_in_one(pos, escape.reach)).flatten())
}

/// Whether the attackers (to move in `pos`) must answer a win in one of the defenders:
/// an open corner, or in Copenhagen a fort in one.
fn attackers_in_danger(pos: &Position, escape: &Escape, copenhagen: bool) -> bool {
    escape.open_corners().any()
        || copenhagen && fort_in_one(&pos.with_side_to_move(DEFENDERS), escape.reach).is_some()
}

/// The first piece from `from` in `dir` (exclusive), through empty squares.
#[inline]
fn first_piece(from: Square, dir: Direction, occupied: Bitboard) -> Option<Square> {
    let mut sq = from.step(dir)?;
    loop {
        if occupied.contains(sq) {
            return Some(sq);
        }
        sq = sq.step(dir)?;
    }
}

/// The attacker move that captures the king at once, if there is one (TAFL.md 6).
fn king_capture(pos: &Position) -> Option<Move> {
    let king = pos.king();
    if king.is_edge() {
        return None;
    }
    let around = Bitboard::from_square(king).neighbours();
    let missing = around - pos.attackers() - Bitboard::THRONE;
    if missing.count() != 1 {
        return None;
    }
    let target = missing.first()?;
    let occupied = pos.occupied();
    if occupied.contains(target) {
        return None;
    }
    Direction::ALL.into_iter().find_map(|dir| {
        first_piece(target, dir, occupied)
            .filter(|&from| pos.attackers().contains(from))
            .map(|from| Move::new(from, target))
    })
}

/// Squares a piece of the side to move can go to to make a custodial capture (TAFL.md
/// 3; the shieldwall is not included).
#[inline]
fn capture_targets(pos: &Position) -> Bitboard {
    let king = Bitboard::from_square(pos.king());
    let (victims, anvils) = if pos.side_to_move() == ATTACKERS {
        let throne = if pos.king() == Square::THRONE {
            Bitboard::EMPTY
        } else {
            Bitboard::THRONE
        };
        (
            pos.defenders(),
            pos.attackers() | Bitboard::CORNERS | throne,
        )
    } else {
        (
            pos.attackers(),
            pos.defenders() | king | Bitboard::CORNERS | Bitboard::THRONE,
        )
    };
    let empty = Bitboard::ALL - pos.occupied();
    let mut targets = Bitboard::EMPTY;
    for dir in Direction::ALL {
        let back = dir.opposite();
        targets |= (victims & anvils.shift(back)).shift(back);
    }
    targets & empty
}

/// Appends the moves of the side to move that end on `to`, in direction order.
#[inline]
fn moves_to(pos: &Position, to: Square, king_only: bool, out: &mut Vec<Move>) {
    let occupied = pos.occupied();
    let own = if pos.side_to_move() == ATTACKERS {
        pos.attackers()
    } else {
        pos.defenders() | Bitboard::from_square(pos.king())
    };
    for dir in Direction::ALL {
        if let Some(from) = first_piece(to, dir, occupied) {
            let is_king = from == pos.king();
            if own.contains(from) && (is_king || (!king_only && !to.is_restricted())) {
                out.push(Move::new(from, to));
            }
        }
    }
}

fn diagonal_links(set: Bitboard) -> u32 {
    (set & set.north().east()).count() + (set & set.north().west()).count()
}

/// The defenders' mobility in an endgame counts up to this many squares: the term is
/// the room they lack (0 when they have this much), so that it never rewards them for
/// being fewer.
const MOBILITY_FULL: i32 = 40;

/// The number of evaluation terms that are linear in a weight: every weight but
/// `edge_reach_cap` and `endgame_defenders`.
pub const TERMS: usize = 21;

/// The weight of each term of [`TaflEval::terms`], by its name in
/// [`TaflWeights::named`].
pub const TERM_NAMES: [&str; TERMS] = [
    "attacker",
    "defender",
    "king_mobility",
    "open_corner",
    "escape_threat",
    "double_threat",
    "escape_route",
    "king_pressure[0]",
    "king_pressure[1]",
    "king_pressure[2]",
    "king_pressure[3]",
    "corner_guard",
    "corner_sealed",
    "corner_closed",
    "corner_neighbour",
    "edge_reach",
    "attacker_link",
    "fort",
    "defender_mobility",
    "endgame_room",
    "tempo",
];

impl TaflWeights {
    /// The weights of [`TERM_NAMES`], in that order.
    #[must_use]
    pub fn linear(&self) -> [i32; TERMS] {
        let w = self;
        let [p0, p1, p2, p3] = w.king_pressure;
        [
            w.attacker,
            w.defender,
            w.king_mobility,
            w.open_corner,
            w.escape_threat,
            w.double_threat,
            w.escape_route,
            p0,
            p1,
            p2,
            p3,
            w.corner_guard,
            w.corner_sealed,
            w.corner_closed,
            w.corner_neighbour,
            w.edge_reach,
            w.attacker_link,
            w.fort,
            w.defender_mobility,
            w.endgame_room,
            w.tempo,
        ]
    }

    /// Sets the weights of [`TERM_NAMES`] from `values`, in that order (`edge_reach_cap`
    /// and `endgame_defenders` are kept).
    pub fn set_linear(&mut self, values: [i32; TERMS]) {
        let [
            attacker,
            defender,
            king_mobility,
            open_corner,
            escape_threat,
            double_threat,
            escape_route,
            p0,
            p1,
            p2,
            p3,
            corner_guard,
            corner_sealed,
            corner_closed,
            corner_neighbour,
            edge_reach,
            attacker_link,
            fort,
            defender_mobility,
            endgame_room,
            tempo,
        ] = values;
        *self = TaflWeights {
            attacker,
            defender,
            king_mobility,
            open_corner,
            escape_threat,
            double_threat,
            escape_route,
            king_pressure: [p0, p1, p2, p3],
            corner_guard,
            corner_sealed,
            corner_closed,
            corner_neighbour,
            edge_reach,
            edge_reach_cap: self.edge_reach_cap,
            endgame_defenders: self.endgame_defenders,
            attacker_link,
            fort,
            defender_mobility,
            endgame_room,
            tempo,
        };
    }
}

impl TaflEval {
    /// The evaluation from the defenders' side, without the tempo.
    #[must_use]
    pub fn defenders_score(&self, pos: &Position, copenhagen: bool) -> i32 {
        let w = self.weights.linear();
        let terms = self.terms(pos, copenhagen, w[6] != 0);
        // The tempo term (last) is the side to move's, added by `evaluate`.
        w.iter()
            .zip(&terms)
            .take(TERMS - 1)
            .map(|(weight, count)| weight * count)
            .sum()
    }

    /// How many times each weight of [`TERM_NAMES`] counts in the evaluation from the
    /// defenders' side (the tempo: 1 with the defenders to move, -1 with the attackers),
    /// so that the evaluation is the sum of weight × count (the tuner's features).
    /// Edge reach is counted up to these weights' cap. `route` counts the escape
    /// routes, which cost a second flood of the king's moves, and the closed corners,
    /// whatever their weights; without it, each of the two counts 0 where its weight
    /// is 0.
    #[must_use]
    pub fn terms(&self, pos: &Position, copenhagen: bool, route: bool) -> [i32; TERMS] {
        let mut t = [0i32; TERMS];
        let attackers = pos.attackers();
        let defenders = pos.defenders();
        let king_sq = pos.king();
        let king = Bitboard::from_square(king_sq);

        t[0] = -(attackers.count() as i32);
        t[1] = defenders.count() as i32;

        let escape = Escape::of(pos);
        t[2] = escape.reach.count() as i32;
        t[3] = escape.open_corners().count() as i32;
        t[4] = escape.threats().count() as i32;
        t[5] = (escape.reach & escape.double_lines()).count() as i32;
        if route {
            let empty = Bitboard::ALL - pos.occupied();
            let two_moves = reach(escape.reach, empty | king) - escape.reach - king;
            t[6] = (two_moves & escape.any_line()).count().min(12) as i32;
        }

        let around = king.neighbours();
        if !king_sq.is_edge() {
            let pressing = (around & (attackers | Bitboard::THRONE)).count().min(3);
            t[7 + pressing as usize] = -1;
        }

        let mut sealed = 0;
        for guards in GUARDS {
            sealed += i32::from((attackers & guards) == guards);
        }
        t[11] = -((attackers & ALL_GUARDS).count() as i32);
        t[12] = -sealed;
        let free = Bitboard::ALL - attackers;
        if route || self.weights.corner_closed != 0 {
            t[13] = (king.flood(free) & Bitboard::CORNERS).count() as i32 - 4;
        }
        t[14] = (attackers & CORNER_NEIGHBOURS).count() as i32;

        let region = (defenders | king).flood(free);
        let edge = (region & (Bitboard::EDGE - Bitboard::CORNERS)).count() as i32;
        t[15] = edge.min(self.weights.edge_reach_cap);

        t[16] = -(diagonal_links(attackers) as i32);

        t[17] = i32::from(
            copenhagen
                && king_sq.is_edge()
                && (around & attackers).is_empty()
                && (around & defenders).count() >= 2,
        );
        let endgame = defenders.count() as i32 <= self.weights.endgame_defenders;
        if endgame {
            let empty = Bitboard::ALL - pos.occupied();
            let room = (reach(defenders, empty) - Bitboard::RESTRICTED).count() as i32;
            t[18] = room.min(MOBILITY_FULL) - MOBILITY_FULL;
        }
        // Shut off from every corner, the defenders can only be squeezed: their room
        // counts then too, whatever their number. Not in Copenhagen while they reach the
        // edge: there the king and his defenders build an exit fort on it (TAFL.md 7),
        // sealed corners or not, and a room counted for the attackers made them seal
        // corners and let the fort be built.
        let shut = (region & Bitboard::CORNERS).is_empty() && !(copenhagen && edge > 0);
        if endgame || shut {
            t[19] = region.count() as i32 - 121;
        }
        t[20] = if pos.side_to_move() == DEFENDERS {
            1
        } else {
            -1
        };
        t
    }
}

impl Evaluator<Tafl> for TaflEval {
    type Memo = TaflMemo;

    fn evaluate(&self, game: &Tafl) -> i32 {
        // An empty memo: the network's accumulator is summed afresh.
        self.evaluate_with(game, &mut TaflMemo::default())
    }

    fn evaluate_with(&self, game: &Tafl, memo: &mut TaflMemo) -> i32 {
        let pos = game.position();
        let copenhagen = game.rules().is_copenhagen();
        let mut score = self.defenders_score(pos, copenhagen);
        // The network learned from the middle game; the endgame terms count where few
        // defenders are left (with it there, the attackers did not finish a lone king).
        if let Some(net) = self.net
            && pos.defenders().count() as i32 > self.weights.endgame_defenders
        {
            score += net.defenders_correction_with(pos, copenhagen, memo);
        }
        if pos.side_to_move() == DEFENDERS {
            score + self.weights.tempo
        } else {
            self.weights.tempo - score
        }
    }

    fn winning_move(&self, game: &Tafl) -> Option<Move> {
        if game.outcome().is_some() {
            return None;
        }
        let pos = game.position();
        if pos.side_to_move() == DEFENDERS {
            defenders_win_in_one(pos, &Escape::of(pos), game.rules().is_copenhagen())
        } else {
            king_capture(pos)
        }
    }

    fn threats(&self, game: &Tafl) -> Threats<Move> {
        if game.outcome().is_some() {
            return Threats::None;
        }
        let pos = game.position();
        let copenhagen = game.rules().is_copenhagen();
        // One look at the king serves both questions.
        let escape = Escape::of(pos);
        if pos.side_to_move() == DEFENDERS {
            if let Some(mv) = defenders_win_in_one(pos, &escape, copenhagen) {
                return Threats::Win(mv);
            }
            if king_capture(pos).is_some() {
                return Threats::Danger;
            }
        } else {
            if let Some(mv) = king_capture(pos) {
                return Threats::Win(mv);
            }
            if attackers_in_danger(pos, &escape, copenhagen) {
                return Threats::Danger;
            }
            if escape.unstoppable().any() {
                return Threats::Looming;
            }
        }
        Threats::None
    }

    fn in_danger(&self, game: &Tafl) -> bool {
        let pos = game.position();
        if pos.side_to_move() == ATTACKERS {
            attackers_in_danger(pos, &Escape::of(pos), game.rules().is_copenhagen())
        } else {
            king_capture(pos).is_some()
        }
    }

    fn mark_evasions(&self, game: &Tafl, moves: &[Move], keep: &mut [bool]) {
        let pos = game.position();
        // Against a fort in one (no open corner) every move is kept: many can stop it.
        if pos.side_to_move() != ATTACKERS || Escape::of(pos).open_corners().is_empty() {
            return;
        }
        // The king on the edge cannot be captured: only a piece put between him and the
        // open corner stops him.
        let blocks = escape_blocks(pos);
        for (mv, keep) in moves.iter().zip(keep.iter_mut()) {
            *keep = blocks.contains(mv.to);
        }
    }

    fn tactical_scores(&self, game: &Tafl, moves: &[Move], scores: &mut [i32]) {
        let pos = game.position();
        let captures = capture_targets(pos);
        let escape = Escape::of(pos);
        let king = pos.king();
        if pos.side_to_move() == DEFENDERS {
            let threats = escape.threats();
            let doubles = escape.unstoppable();
            for (mv, score) in moves.iter().zip(scores.iter_mut()) {
                if captures.contains(mv.to) {
                    *score += 10_000;
                }
                if mv.from == king {
                    if mv.to.is_corner() {
                        *score += 100_000;
                    } else if doubles.contains(mv.to) {
                        *score += 50_000;
                    } else if threats.contains(mv.to) {
                        *score += 20_000;
                    }
                }
            }
        } else {
            let kill = king_capture(pos).map(|m| m.to);
            // Squares on the king's escape routes: occupying one blocks a line or a threat.
            let blocks = escape.reach & escape.any_line();
            let beside = if king.is_edge() {
                Bitboard::EMPTY
            } else {
                Bitboard::from_square(king).neighbours()
            };
            for (mv, score) in moves.iter().zip(scores.iter_mut()) {
                if Some(mv.to) == kill {
                    *score += 100_000;
                }
                if captures.contains(mv.to) {
                    *score += 10_000;
                }
                if blocks.contains(mv.to) {
                    *score += 8_000;
                }
                if beside.contains(mv.to) {
                    *score += 3_000;
                }
            }
        }
    }

    fn forcing_moves(&self, game: &Tafl, threats: bool, out: &mut Vec<Move>) {
        if game.outcome().is_some() {
            return;
        }
        let pos = game.position();
        for to in capture_targets(pos) {
            moves_to(pos, to, false, out);
        }
        if pos.side_to_move() == DEFENDERS {
            // Every escape threat when asked; an unstoppable one (as good as a win)
            // always, so quiescence sees the king's double threat a capture has just
            // opened.
            let escape = Escape::of(pos);
            let king_moves = if threats {
                escape.threats()
            } else {
                escape.unstoppable()
            };
            for to in king_moves - capture_targets(pos) {
                out.push(Move::new(pos.king(), to));
            }
        }
    }

    fn history_size(&self) -> usize {
        121 * 121
    }

    fn history_key(&self, _game: &Tafl, mv: Move) -> usize {
        mv.from.index() * 121 + mv.to.index()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use game::Game;
    use tafl::{Position, Rules};

    fn game(text: &str, rules: Rules) -> Tafl {
        Tafl::from_position(rules, Position::from_string_with_side(text).unwrap())
    }

    fn sq(name: &str) -> Square {
        name.parse().unwrap()
    }

    /// Whether the king, moved by `mv` (not to a corner), would have open lines to two
    /// corners or more, or stand beside one, found by walking the board square by
    /// square.
    fn opens_two_corners(pos: &Position, mv: Move) -> bool {
        if mv.from != pos.king() || mv.to.is_corner() {
            return false;
        }
        let beside_corner = Direction::ALL
            .into_iter()
            .any(|dir| mv.to.step(dir).is_some_and(Square::is_corner));
        if beside_corner {
            return true;
        }
        let occupied = pos.occupied() - Bitboard::from_square(mv.from);
        let corners = Direction::ALL
            .into_iter()
            .filter(|&dir| {
                let mut next = mv.to.step(dir);
                while let Some(sq) = next {
                    if sq.is_corner() {
                        return true;
                    }
                    if occupied.contains(sq) {
                        return false;
                    }
                    next = sq.step(dir);
                }
                false
            })
            .count();
        corners >= 2
    }

    /// Every move the hooks name is legal, and the forcing moves are exactly the legal
    /// moves that capture, plus the king's double threats (and all his threats when
    /// asked).
    fn check_hooks(g: &Tafl) {
        let eval = TaflEval::default();
        let mut legal = Vec::new();
        g.legal_moves(&mut legal);
        let mut forcing = Vec::new();
        eval.forcing_moves(g, false, &mut forcing);
        let opens_two = |mv: Move| opens_two_corners(g.position(), mv);
        let mut expected: Vec<Move> = legal
            .iter()
            .copied()
            .filter(|&mv| {
                // Custodial captures only: the shieldwall is not a quiescence capture.
                let mut after = *g.position();
                after.play_unchecked(mv, Rules::FETLAR).any()
                    || (g.to_move() == DEFENDERS && opens_two(mv))
            })
            .collect();
        let mut got = forcing.clone();
        got.sort();
        got.dedup();
        expected.sort();
        assert_eq!(got, expected, "captures in {}", g.position_string());
        assert_eq!(forcing.len(), got.len(), "no move twice");
        let looming = g.to_move() == ATTACKERS && {
            let pos = g.position();
            Direction::ALL.into_iter().any(|dir| {
                let mut to = pos.king().step(dir);
                while let Some(sq) = to.filter(|&sq| !pos.occupied().contains(sq)) {
                    if opens_two_corners(pos, Move::new(pos.king(), sq)) {
                        return true;
                    }
                    to = sq.step(dir);
                }
                false
            })
        };
        let expected = match eval.winning_move(g) {
            Some(mv) => Threats::Win(mv),
            None if eval.in_danger(g) => Threats::Danger,
            None if looming => Threats::Looming,
            None => Threats::None,
        };
        assert_eq!(
            eval.threats(g),
            expected,
            "threats in {}",
            g.position_string()
        );
        if eval.in_danger(g) {
            let mut keep = vec![true; legal.len()];
            eval.mark_evasions(g, &legal, &mut keep);
            for (&mv, &kept) in legal.iter().zip(&keep) {
                let mut after = g.clone();
                after.play(mv);
                let lost = after
                    .outcome()
                    .is_some_and(|o| o.winner != Some(g.to_move()))
                    || eval.winning_move(&after).is_some();
                assert!(kept || lost, "{mv} dropped but does not lose at once");
            }
        }
        if let Some(mv) = eval.winning_move(g) {
            assert!(g.is_legal(mv));
            let mut after = g.clone();
            after.play(mv);
            assert_eq!(after.outcome().and_then(|o| o.winner), Some(g.to_move()));
        }
    }

    #[test]
    fn hooks_agree_with_the_rules_along_archive_games() {
        let games = [
            "d1-d3 f8-i8 j6-j9 e7-e10 j9-e9xe10 d6-d9 f10-f9 g7-g10 e9-e10 h6-h9 k8-j8 g6-g9 k6-i6 f6-h6 a8-h8xi8 f7-h7xh8 f9-f8 h9-j9 k7-i7 h7-h9 i7-i10 h6-h7 i6-i7 e6-j6 i10-j10xj9 j6-j7xi7 d3-i3 h7-i7 h11-i11 h9-k9 i11-i9 i7-h7 g11-i11 h7-h2 k4-k2 h2-j2 h1-j1 g5-g2 i3-g3xg2 j7-j3 k5-k3 f4-k4xk3xk2",
            "a8-e8 d6-d8xe8 d11-d9 e6-d6 a7-d7xd8 f8-d8xd7 a6-a7 e7-b7 e11-b11 e5-b5xb6 d1-b1 d6-a6 h11-h7 g5-g3 f2-f3 d8-a8xa7xa7",
        ];
        for moves in games {
            let mut g = Tafl::new(Rules::COPENHAGEN.with_repetition(false));
            check_hooks(&g);
            for text in moves.split_whitespace() {
                let mv = g.parse_move(text).unwrap();
                g.play(mv);
                check_hooks(&g);
                let mut legal = Vec::new();
                g.legal_moves(&mut legal);
                for &reply in &legal {
                    g.play(reply);
                    check_hooks(&g);
                    g.undo();
                }
            }
        }
    }

    #[test]
    fn the_search_s_updated_evaluation_is_the_evaluation() {
        // As the search calls it: one memo, every reply tried and taken back, along an
        // archive game down to its few last defenders (where the network stops).
        let eval = TaflEval::default();
        let mut memo = TaflMemo::default();
        for rules in [Rules::COPENHAGEN, Rules::FETLAR] {
            let mut g = Tafl::new(rules.with_repetition(false));
            let line = "a8-e8 d6-d8xe8 d11-d9 e6-d6 a7-d7xd8 f8-d8xd7 a6-a7 e7-b7 e11-b11 e5-b5xb6 d1-b1 d6-a6 h11-h7 g5-g3 f2-f3 d8-a8xa7xa7";
            for text in line.split_whitespace() {
                let mut legal = Vec::new();
                g.legal_moves(&mut legal);
                for &reply in &legal {
                    g.play(reply);
                    if g.outcome().is_none() {
                        assert_eq!(eval.evaluate_with(&g, &mut memo), eval.evaluate(&g));
                    }
                    g.undo();
                }
                g.play(g.parse_move(text).unwrap());
                assert_eq!(eval.evaluate_with(&g, &mut memo), eval.evaluate(&g));
            }
        }
    }

    #[test]
    fn the_evaluation_is_the_sum_of_its_weighted_terms() {
        // The tuner fits weights to the terms: any weights, the same evaluation.
        let mut varied = TaflWeights::default();
        varied.set_linear(std::array::from_fn(|i| 3 * i as i32 - 20));
        assert_eq!(varied.linear(), std::array::from_fn(|i| 3 * i as i32 - 20));
        assert_eq!(varied.edge_reach_cap, TaflWeights::default().edge_reach_cap);
        let mut named = TaflWeights::default();
        let names: Vec<&str> = named.named().into_iter().map(|(n, _)| n).collect();
        for name in TERM_NAMES {
            assert!(names.contains(&name), "{name} is a weight");
        }
        for weights in [TaflWeights::default(), varied] {
            let eval = TaflEval::with_weights(weights);
            for rules in [Rules::COPENHAGEN, Rules::FETLAR] {
                let mut g = Tafl::new(rules.with_repetition(false));
                let moves = "d1-d3 f8-i8 j6-j9 e7-e10 j9-e9xe10 d6-d9 f10-f9 g7-g10 e9-e10 h6-h9 k8-j8 g6-g9 k6-i6 f6-h6 a8-h8xi8 f7-h7xh8 f9-f8 h9-j9 k7-i7 h7-h9 i7-i10 h6-h7 i6-i7 e6-j6 i10-j10xj9 j6-j7xi7 d3-i3 h7-i7 h11-i11 h9-k9 i11-i9 i7-h7 g11-i11 h7-h2 k4-k2 h2-j2 h1-j1 g5-g2 i3-g3xg2 j7-j3 k5-k3";
                for text in moves.split_whitespace() {
                    let terms = eval.terms(g.position(), rules.is_copenhagen(), true);
                    let sum: i32 = weights
                        .linear()
                        .iter()
                        .zip(&terms)
                        .map(|(w, t)| w * t)
                        .sum();
                    let own = eval.evaluate(&g);
                    let defenders_view = if g.to_move() == DEFENDERS { own } else { -own };
                    assert_eq!(sum, defenders_view, "{}", g.position_string());
                    let mv = g.parse_move(text).unwrap();
                    g.play(mv);
                }
            }
        }
    }

    #[test]
    fn the_embedded_weights_file_reads_and_names_every_weight() {
        let mut read = TaflWeights::HAND_SET.read(EMBEDDED_WEIGHTS).unwrap();
        assert_eq!(read, TaflWeights::default());
        let names: Vec<&str> = read.named().into_iter().map(|(n, _)| n).collect();
        for name in names {
            let named = EMBEDDED_WEIGHTS
                .lines()
                .any(|line| line.split_whitespace().next() == Some(name));
            assert!(named, "{name} is in tafl.weights");
        }
    }

    #[test]
    fn weights_round_trip_through_text_and_reject_unknown_names() {
        let changed = TaflWeights {
            defender: 321,
            king_pressure: [0, 5, -7, 90],
            ..TaflWeights::default()
        };
        let text = changed.write();
        assert_eq!(TaflWeights::default().read(&text), Ok(changed));
        let partial = TaflWeights::default().read("# comment\nfort 5\n").unwrap();
        assert_eq!(partial.fort, 5);
        assert_eq!(partial.attacker, TaflWeights::default().attacker);
        assert!(TaflWeights::default().read("speed 3").is_err());
        assert!(TaflWeights::default().read("fort five").is_err());
    }

    #[test]
    fn king_with_open_edge_line_wins_in_one() {
        // King on c1 can slide to a1.
        let g = game(
            "/2K5t2/11/11/11/11/4T6/11/11/11/3t7/11/ defenders",
            Rules::FETLAR,
        );
        let eval = TaflEval::default();
        assert_eq!(eval.winning_move(&g), Some(Move::new(sq("c1"), sq("a1"))));
    }

    #[test]
    fn attackers_to_move_facing_an_open_line_are_in_danger() {
        let g = game(
            "/2K5t2/11/11/11/11/4T6/11/11/11/3t7/11/ attackers",
            Rules::FETLAR,
        );
        let eval = TaflEval::default();
        assert!(eval.in_danger(&g));
        assert_eq!(eval.winning_move(&g), None);
    }

    #[test]
    fn tafl_6b_king_beside_empty_throne_is_captured_by_three() {
        // King on f5 (beside the empty throne f6), attackers on e5 and g5: one attacker
        // from f2 closes f4.
        let g = game(
            "/11/5t5/11/11/4tKt4/11/11/11/11/11/1T9/ attackers",
            Rules::COPENHAGEN,
        );
        let eval = TaflEval::default();
        assert_eq!(eval.winning_move(&g), Some(Move::new(sq("f2"), sq("f4"))));
        let defenders_to_move = game(
            "/11/5t5/11/11/4tKt4/11/11/11/11/11/1T9/ defenders",
            Rules::COPENHAGEN,
        );
        assert!(eval.in_danger(&defenders_to_move));
        assert!(!eval.in_danger(&g), "the attackers face no threat");
    }

    #[test]
    fn king_on_the_edge_cannot_be_captured() {
        let g = game(
            "/11/11/11/11/t10/Kt9/t10/11/11/11/11/ attackers",
            Rules::FETLAR,
        );
        assert_eq!(king_capture(g.position()), None);
    }

    #[test]
    fn evaluation_is_symmetric_under_side_to_move() {
        let eval = TaflEval::with_weights(TaflWeights::default());
        let a = game(
            "/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/ attackers",
            Rules::FETLAR,
        );
        let d = game(
            "/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/ defenders",
            Rules::FETLAR,
        );
        assert_eq!(
            eval.evaluate(&a) + eval.evaluate(&d),
            2 * eval.weights.tempo
        );
        // The learned correction sees the side to move too (one of its features).
        let learned = TaflEval::default();
        let net = learned
            .net
            .expect("the engine plays with the embedded network");
        assert_eq!(
            learned.evaluate(&a) + learned.evaluate(&d),
            2 * eval.weights.tempo + net.defenders_correction(d.position(), false)
                - net.defenders_correction(a.position(), false)
        );
    }

    #[test]
    fn double_threats_are_the_king_moves_that_open_two_corners() {
        // The king on f3, the edges empty: f1, a3, k3 and f11 each open two corners.
        let open = game(
            "/11/11/5K5/11/11/11/11/11/9t1/3t3t3/11/ attackers",
            Rules::FETLAR,
        );
        let escape = Escape::of(open.position());
        let doubles = escape.reach & escape.double_lines();
        let names: Vec<String> = doubles.into_iter().map(|s| s.to_string()).collect();
        assert_eq!(names, ["f1", "a3", "k3", "f11"]);
        // An attacker on b1 closes a1 to f1, which then opens only k1.
        let closed = game(
            "/1t9/11/5K5/11/11/11/11/11/11/3t3t3/11/ attackers",
            Rules::FETLAR,
        );
        let escape = Escape::of(closed.position());
        let names: Vec<String> = (escape.reach & escape.double_lines())
            .into_iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(names, ["a3", "k3", "f11"]);
        assert!(escape.threats().contains(sq("f1")));
    }

    /// Copenhagen, defenders to move, the position one move before a fort in a match
    /// record (`bench/runs/issue22-fort-vs-0bf0871-copenhagen-100ms`): the king on
    /// `g11` between defenders, and `g3-g1` closes the wall below him.
    const BEFORE_FORT: &str =
        "/5T1K1T1/1t5TTtt/tt4T4/8T2/8T2/1t1T5t1/t3T5t/t9t/11/5t5/3ttttt3/ defenders";

    fn board(attackers: &str, defenders: &str, king: &str, side: game::Player) -> Position {
        let set = |list: &str| {
            list.split_whitespace()
                .fold(Bitboard::EMPTY, |set, name| set.with(sq(name)))
        };
        Position::from_pieces(set(attackers), set(defenders), sq(king), side).unwrap()
    }

    /// The move is a win because it builds a fort, by the rules' own judgement.
    fn builds_fort(g: &Tafl, mv: Move) -> bool {
        let mut after = g.clone();
        after.play(mv);
        after
            .outcome()
            .is_some_and(|o| o.reason == game::EndReason::ExitFort)
    }

    #[test]
    fn a_fort_in_one_is_a_win_for_the_defenders_and_a_threat_to_the_attackers() {
        let eval = TaflEval::default();
        let g = game(BEFORE_FORT, Rules::COPENHAGEN);
        let Threats::Win(mv) = eval.threats(&g) else {
            panic!("{:?}", eval.threats(&g));
        };
        assert!(builds_fort(&g, mv), "{mv}");
        assert_eq!(eval.winning_move(&g), Some(mv));

        // The same board with the attackers to move: they must answer it, and with no
        // corner open every move is searched (many can stop a fort).
        let pos = g.position().with_side_to_move(ATTACKERS);
        let g = Tafl::from_position(Rules::COPENHAGEN, pos);
        assert_eq!(eval.threats(&g), Threats::Danger);
        assert!(eval.in_danger(&g));
        let mut moves = Vec::new();
        g.legal_moves(&mut moves);
        let mut keep = vec![true; moves.len()];
        eval.mark_evasions(&g, &moves, &mut keep);
        assert!(keep.iter().all(|&k| k));

        // Fetlar has no forts.
        let g = game(BEFORE_FORT, Rules::FETLAR);
        assert_eq!(eval.threats(&g), Threats::None);
        assert!(!eval.in_danger(&Tafl::from_position(Rules::FETLAR, pos)));
    }

    #[test]
    fn each_way_a_fort_closes_in_one_move_is_seen() {
        let eval = TaflEval::default();
        let cases = [
            // A defender closes the wall above the king's room (TAFL.md 7, f2).
            ("a5 k9 b9", "e1 g1 e2 g2 e3 f5", "f1", "f5-f3"),
            // The king steps from his room onto the edge.
            ("a5 k9 b9", "e1 g1 e2 g2 e3 f3", "f2", "f2-f1"),
            // No attacker touches the room; a defender steadies the wall (f3 alone
            // could be captured).
            ("a5 k9", "e1 g1 e2 g2 f3 e6", "f1", "e6-e3"),
            // An attacker in the room, captured against the king by the move that
            // closes the wall.
            ("a5 k9 f2", "e1 g1 e2 g2 e3 f5", "f1", "f5-f3"),
        ];
        for (attackers, defenders, king, expected) in cases {
            let pos = board(attackers, defenders, king, DEFENDERS);
            let g = Tafl::from_position(Rules::COPENHAGEN, pos);
            assert_eq!(g.outcome(), None, "{pos}");
            let Threats::Win(mv) = eval.threats(&g) else {
                panic!("{pos}: {:?}", eval.threats(&g));
            };
            assert!(builds_fort(&g, mv), "{pos}: {mv}");
            let expected = g.parse_move(expected).unwrap();
            assert!(builds_fort(&g, expected));
        }
        // An attacker at the room's door that no move captures or shuts out.
        let pos = board("a5 k9 f4", "e1 g1 e2 g2 e3", "f1", DEFENDERS);
        let g = Tafl::from_position(Rules::COPENHAGEN, pos);
        assert!(!matches!(eval.threats(&g), Threats::Win(_)));
        let mut moves = Vec::new();
        g.legal_moves(&mut moves);
        assert!(!moves.iter().any(|&mv| builds_fort(&g, mv)));
    }

    #[test]
    fn forts_are_no_threat_at_the_start() {
        let eval = TaflEval::default();
        let g = Tafl::new(Rules::COPENHAGEN);
        assert_eq!(eval.threats(&g), Threats::None);
        let g = Tafl::from_position(Rules::COPENHAGEN, g.position().with_side_to_move(DEFENDERS));
        assert_eq!(eval.threats(&g), Threats::None);
    }
}
