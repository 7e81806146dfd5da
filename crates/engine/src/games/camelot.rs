//! The Camelot evaluation and Camelot's forcing moves.
//!
//! Terms, for each side (the score is White's minus Black's, then seen from the side to
//! move):
//!
//! - material: men, and knights worth more (they charge);
//! - progress: each piece by its distance to the enemy castle, steeply more near it, and
//!   a piece already inside it (one more wins, W1);
//! - guarding: own pieces close to one's own castle while enemies approach it;
//! - exposure: pieces an enemy piece could jump right now (worse for the side not to
//!   move, whose opponent must take, S4);
//! - mobility: plain moves to empty neighbouring squares.

use camelot::{Bitboard, Camelot, Move, Position, Square, castle};
use game::{Game, Player};

use crate::eval::Evaluator;
use crate::games::camelot_net::CamelotNet;

/// The weights of the Camelot evaluation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CamelotWeights {
    /// Each man.
    pub man: i32,
    /// Each knight.
    pub knight: i32,
    /// A piece by its (king-move) distance to the enemy castle, 0 (inside) to 7; further
    /// counts nothing.
    pub progress: [i32; 8],
    /// Each step a piece is nearer the enemy castle than 15 squares: a gentle slope over
    /// the whole board, so even a shallow search moves forward (without it, low levels
    /// shuffle into fifty-move draws from the start, where every piece is 9-10 away).
    pub advance: i32,
    /// Each own piece within two squares of the own castle, counted up to
    /// [`CamelotWeights::guards_wanted`], scaled by how close the nearest enemy is.
    pub guard: i32,
    /// Guards beyond this count nothing.
    pub guards_wanted: u32,
    /// Each piece of the side to move that an enemy could jump.
    pub exposed_to_move: i32,
    /// Each piece of the side not to move that an enemy could jump (it must be taken).
    pub exposed_waiting: i32,
    /// Each plain move.
    pub mobility: i32,
    /// For the side to move.
    pub tempo: i32,
}

impl Default for CamelotWeights {
    fn default() -> Self {
        CamelotWeights {
            man: 100,
            knight: 170,
            progress: [450, 70, 45, 28, 16, 8, 3, 1],
            advance: 2,
            guard: 12,
            guards_wanted: 2,
            exposed_to_move: 8,
            exposed_waiting: 35,
            mobility: 1,
            tempo: 8,
        }
    }
}

/// The Camelot evaluation.
///
/// ```
/// use engine::Evaluator;
/// use engine::games::camelot::CamelotEval;
///
/// let game = camelot::Camelot::start();
/// let eval = CamelotEval::default();
/// assert!(eval.evaluate(&game).abs() < 50, "the start is balanced");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CamelotEval {
    /// The weights.
    pub weights: CamelotWeights,
    /// A learned correction added to the hand-set terms ([`super::camelot_net`]), if any.
    pub net: Option<&'static CamelotNet>,
}

/// King-move distance from every frame index to `player`'s castle, capped at 15.
const fn castle_distances(player: Player) -> [u8; 256] {
    let rank = match player {
        Player::First => 0i32,
        Player::Second => 15,
    };
    let mut out = [15u8; 256];
    let mut i = 0;
    while i < 256 {
        let (f, r) = ((i % 16) as i32, (i / 16) as i32);
        let mut best = 15;
        let mut file = 5;
        while file <= 6 {
            let df = if f > file { f - file } else { file - f };
            let dr = if r > rank { r - rank } else { rank - r };
            let d = if df > dr { df } else { dr };
            if d < best {
                best = d;
            }
            file += 1;
        }
        out[i] = best as u8;
        i += 1;
    }
    out
}

/// Distances to White's castle (index 0) and Black's (index 1).
const DISTANCE: [[u8; 256]; 2] = [
    castle_distances(Player::First),
    castle_distances(Player::Second),
];

const CASTLES: Bitboard = Bitboard::WHITE_CASTLE.union(Bitboard::BLACK_CASTLE);

/// `WITHIN[player][d]`: the squares at most `d` king moves from `player`'s castle, so
/// "the nearest enemy" and "pieces near home" are a few set operations, not a loop.
const fn within_masks(player: Player) -> [Bitboard; 16] {
    let distances = castle_distances(player);
    let mut out = [Bitboard::EMPTY; 16];
    let mut d = 0;
    while d < 16 {
        let mut i = 0;
        while i < 160 {
            let sq = camelot::Square::ALL[i];
            if distances[sq.index()] as usize <= d {
                out[d] = out[d].union(Bitboard::from_square(sq));
            }
            i += 1;
        }
        d += 1;
    }
    out
}

/// Guards count only while an enemy is this near the castle.
const GUARD_RANGE: usize = 6;

const WITHIN: [[Bitboard; 16]; 2] = [within_masks(Player::First), within_masks(Player::Second)];

/// The (king-move) distance from `player`'s castle to the nearest square of `set` when
/// it is at most [`GUARD_RANGE`], else `GUARD_RANGE + 1` (all the evaluation asks).
#[inline]
fn nearest(set: Bitboard, player: Player) -> u8 {
    let rings = &WITHIN[player.index()];
    if (set & rings[GUARD_RANGE]).is_empty() {
        return GUARD_RANGE as u8 + 1;
    }
    let mut d = 0;
    while d < 15 {
        if (set & rings[d]).any() {
            return d as u8;
        }
        d += 1;
    }
    15
}

/// Pieces of `victims` that a piece of `jumpers` could jump at once (an adjacent enemy
/// with an empty square beyond; pieces in a castle cannot be jumped, S8).
#[cfg(test)]
fn exposed(victims: Bitboard, jumpers: Bitboard, empty: Bitboard) -> Bitboard {
    let mut out = Bitboard::EMPTY;
    for dir in camelot::Direction::ALL {
        out |= victims & jumpers.shift(dir) & empty.shift(dir.opposite());
    }
    out - CASTLES
}

/// Bit-by-bit sums of up to eight sets, in carry-save form: a square's count is
/// `ones + 2 twos + 4 fours + 8 eights`, so four population counts do the work of eight
/// (a population count of four words is the costly part without a `popcnt`
/// instruction).
#[derive(Clone, Copy, Default)]
struct Tally {
    ones: Bitboard,
    twos: Bitboard,
    fours: Bitboard,
    eights: Bitboard,
}

impl Tally {
    #[inline(always)]
    fn add(&mut self, add: Bitboard) {
        // ones + add, carrying into twos, fours, eights (at most 8 per square).
        let carry1 = self.ones & add;
        self.ones ^= add;
        let carry2 = self.twos & carry1;
        self.twos ^= carry1;
        let carry4 = self.fours & carry2;
        self.fours ^= carry2;
        self.eights |= carry4;
    }

    #[inline(always)]
    fn total(&self) -> u32 {
        self.ones.count() + 2 * self.twos.count() + 4 * self.fours.count() + 8 * self.eights.count()
    }
}

/// What the evaluation reads off the neighbours of every square, one pass over the
/// eight directions for both sides (each direction's shifts serve both): the pieces of
/// each side an enemy could jump (`exposed`), and each side's plain moves to empty
/// neighbours.
#[derive(Debug, PartialEq, Eq)]
struct Contacts {
    exposed: [Bitboard; 2],
    plain_moves: [u32; 2],
}

#[inline(always)]
fn contacts(white: Bitboard, black: Bitboard, empty: Bitboard) -> Contacts {
    let mut exposed = [Bitboard::EMPTY; 2];
    let mut moves = [Tally::default(), Tally::default()];
    camelot::each_direction!(dir => {
        // A piece with an enemy one step in `dir` and an empty square one step back.
        let beyond = empty.shift(dir.opposite());
        exposed[0] |= black.shift_and(dir, white & beyond);
        exposed[1] |= white.shift_and(dir, black & beyond);
        moves[0].add(white.shift_and(dir, empty));
        moves[1].add(black.shift_and(dir, empty));
    });
    Contacts {
        exposed: [exposed[0] - CASTLES, exposed[1] - CASTLES],
        plain_moves: [moves[0].total(), moves[1].total()],
    }
}

/// [`contacts`] with AVX2: a set is one 256-bit register, so a set operation is one
/// instruction where it is four, and a shift across the four words five where it is
/// ten (the whole evaluation takes about half the instructions it takes without).
#[cfg(target_arch = "x86_64")]
mod wide {
    use std::arch::x86_64::{
        __m256i, _mm_cvtsi32_si128, _mm256_and_si256, _mm256_andnot_si256, _mm256_blend_epi32,
        _mm256_extract_epi64, _mm256_or_si256, _mm256_permute4x64_epi64, _mm256_set_epi64x,
        _mm256_setzero_si256, _mm256_sll_epi64, _mm256_srl_epi64, _mm256_xor_si256,
    };

    use camelot::Bitboard;

    use super::{CASTLES, Contacts};

    #[target_feature(enable = "avx2")]
    fn load(set: Bitboard) -> __m256i {
        let w = set.words();
        _mm256_set_epi64x(w[3] as i64, w[2] as i64, w[1] as i64, w[0] as i64)
    }

    #[target_feature(enable = "avx2")]
    fn words(v: __m256i) -> [u64; 4] {
        [
            _mm256_extract_epi64::<0>(v) as u64,
            _mm256_extract_epi64::<1>(v) as u64,
            _mm256_extract_epi64::<2>(v) as u64,
            _mm256_extract_epi64::<3>(v) as u64,
        ]
    }

    #[target_feature(enable = "avx2,popcnt")]
    fn count(v: __m256i) -> u32 {
        words(v).iter().map(|w| w.count_ones()).sum()
    }

    /// The bits moved up by `offset` (-63 to 63, not 0) frame indexes across the four
    /// words, guard band and all (what `Bitboard::shift_and` intersects).
    #[target_feature(enable = "avx2")]
    fn shift(v: __m256i, offset: i32) -> __m256i {
        let zero = _mm256_setzero_si256();
        if offset > 0 {
            let (n, back) = (_mm_cvtsi32_si128(offset), _mm_cvtsi32_si128(64 - offset));
            // Each word's carry comes from the word below: lanes [0, 0, 1, 2], the
            // lowest cleared.
            let below = _mm256_permute4x64_epi64::<0b10_01_00_00>(v);
            let below = _mm256_blend_epi32::<0b0000_0011>(below, zero);
            _mm256_or_si256(_mm256_sll_epi64(v, n), _mm256_srl_epi64(below, back))
        } else {
            let (n, back) = (_mm_cvtsi32_si128(-offset), _mm_cvtsi32_si128(64 + offset));
            // From the word above: lanes [1, 2, 3, 3], the highest cleared.
            let above = _mm256_permute4x64_epi64::<0b11_11_10_01>(v);
            let above = _mm256_blend_epi32::<0b1100_0000>(above, zero);
            _mm256_or_si256(_mm256_srl_epi64(v, n), _mm256_sll_epi64(above, back))
        }
    }

    /// [`super::Tally`] in registers.
    #[derive(Clone, Copy)]
    struct Tally([__m256i; 4]);

    impl Tally {
        #[target_feature(enable = "avx2")]
        fn new() -> Tally {
            Tally([_mm256_setzero_si256(); 4])
        }

        #[target_feature(enable = "avx2")]
        fn add(&mut self, add: __m256i) {
            let [ones, twos, fours, eights] = &mut self.0;
            let carry1 = _mm256_and_si256(*ones, add);
            *ones = _mm256_xor_si256(*ones, add);
            let carry2 = _mm256_and_si256(*twos, carry1);
            *twos = _mm256_xor_si256(*twos, carry1);
            let carry4 = _mm256_and_si256(*fours, carry2);
            *fours = _mm256_xor_si256(*fours, carry2);
            *eights = _mm256_or_si256(*eights, carry4);
        }

        #[target_feature(enable = "avx2,popcnt")]
        fn total(&self) -> u32 {
            let [ones, twos, fours, eights] = self.0;
            count(ones) + 2 * count(twos) + 4 * count(fours) + 8 * count(eights)
        }
    }

    /// [`super::contacts`], the same sets and counts.
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) fn contacts(white: Bitboard, black: Bitboard, empty: Bitboard) -> Contacts {
        let (white, black, empty) = (load(white), load(black), load(empty));
        let mut exposed = [_mm256_setzero_si256(); 2];
        let mut moves = [Tally::new(), Tally::new()];
        camelot::each_direction!(dir => {
            let offset = dir.offset();
            // Only squares of the board are kept: every shifted set meets one of the
            // three, which hold nothing else.
            let beyond = shift(empty, -offset);
            let white_on = shift(white, offset);
            let black_on = shift(black, offset);
            let (white_beyond, black_beyond) =
                (_mm256_and_si256(white, beyond), _mm256_and_si256(black, beyond));
            exposed[0] = _mm256_or_si256(exposed[0], _mm256_and_si256(black_on, white_beyond));
            exposed[1] = _mm256_or_si256(exposed[1], _mm256_and_si256(white_on, black_beyond));
            moves[0].add(_mm256_and_si256(white_on, empty));
            moves[1].add(_mm256_and_si256(black_on, empty));
        });
        let castles = load(CASTLES);
        let outside = |set: __m256i| Bitboard::from_words(words(_mm256_andnot_si256(castles, set)));
        Contacts {
            exposed: [outside(exposed[0]), outside(exposed[1])],
            plain_moves: [moves[0].total(), moves[1].total()],
        }
    }
}

/// The number of plain moves of `pieces` to empty neighbours, square by square (what
/// [`contacts`] counts).
#[cfg(test)]
fn plain_moves(pieces: Bitboard, empty: Bitboard) -> u32 {
    camelot::Direction::ALL
        .into_iter()
        .map(|dir| (pieces.shift(dir) & empty).count())
        .sum()
}

impl CamelotEval {
    /// The evaluation from White's side.
    #[must_use]
    // One of the workspace's two places with `unsafe`: the call of the AVX2 compilation,
    // after the check that the processor has what it needs.
    #[allow(unsafe_code)]
    pub fn white_score(&self, pos: &Position) -> i32 {
        // A dozen population counts of four words each are a fifth of the evaluation
        // without the `popcnt` instruction, which the baseline x86-64 target leaves
        // out, and many four-word set operations take one AVX2 instruction where they
        // take four without (the BMI shifts save a few more): use them where the
        // processor has them, as every x86-64 processor since 2013 does (the same
        // score either way).
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("popcnt")
            && std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("bmi1")
            && std::arch::is_x86_feature_detected!("bmi2")
        {
            // SAFETY: the processor has the features the function is compiled for,
            // checked just above.
            return unsafe { self.white_score_avx2(pos) };
        }
        self.white_score_plain(pos)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt,avx2,bmi1,bmi2")]
    fn white_score_avx2(&self, pos: &Position) -> i32 {
        let empty = Bitboard::ALL - pos.occupied();
        let contacts = wide::contacts(pos.pieces(Player::First), pos.pieces(Player::Second), empty);
        self.white_score_with(pos, &contacts)
    }

    /// [`CamelotEval::white_score`] without the processor's extensions.
    fn white_score_plain(&self, pos: &Position) -> i32 {
        let empty = Bitboard::ALL - pos.occupied();
        let contacts = contacts(pos.pieces(Player::First), pos.pieces(Player::Second), empty);
        self.white_score_with(pos, &contacts)
    }

    /// [`CamelotEval::white_score`] from the [`contacts`] of `pos`, inlined into each of
    /// its two compilations.
    #[inline(always)]
    fn white_score_with(&self, pos: &Position, contacts: &Contacts) -> i32 {
        let w = &self.weights;
        let to_move = pos.side_to_move();
        let mut score = 0;
        for player in Player::BOTH {
            let sign = if player == Player::First { 1 } else { -1 };
            let own = pos.pieces(player);
            let enemy = pos.pieces(player.other());
            let knights = (own & pos.knights()).count() as i32;
            let men = own.count() as i32 - knights;
            let mut side = w.man * men + w.knight * knights;

            let target = &DISTANCE[player.other().index()];
            for sq in own {
                let distance = target[sq.index()];
                if let Some(&bonus) = w.progress.get(usize::from(distance)) {
                    side += bonus;
                }
                side += w.advance * (15 - i32::from(distance));
            }

            let nearest_enemy = nearest(enemy, player);
            if usize::from(nearest_enemy) <= GUARD_RANGE {
                let guards = (own & WITHIN[player.index()][2])
                    .count()
                    .min(w.guards_wanted) as i32;
                side += w.guard * guards * (7 - i32::from(nearest_enemy));
            }

            let weak = contacts.exposed[player.index()].count() as i32;
            side -= weak
                * if player == to_move {
                    w.exposed_to_move
                } else {
                    w.exposed_waiting
                };
            side += w.mobility * contacts.plain_moves[player.index()] as i32;
            score += sign * side;
        }
        score
    }
}

impl Evaluator<Camelot> for CamelotEval {
    type Memo = ();

    fn evaluate(&self, game: &Camelot) -> i32 {
        let pos = game.position();
        let mut score = self.white_score(pos);
        if let Some(net) = self.net {
            score += net.white_correction(pos);
        }
        let own = if pos.side_to_move() == Player::First {
            score
        } else {
            -score
        };
        own + self.weights.tempo
    }

    fn winning_move(&self, game: &Camelot) -> Option<Move> {
        let pos = game.position();
        let me = pos.side_to_move();
        let target = castle(me.other());
        // W1 needs a piece already inside and the other square reachable now.
        let inside = pos.pieces(me) & target;
        if inside.is_empty() || !inside.has_at_most_one() || game.outcome().is_some() {
            return None;
        }
        let mut moves = Vec::new();
        game.legal_moves(&mut moves);
        moves
            .into_iter()
            .find(|mv| target.contains(mv.to) && mv.from != mv.to && !target.contains(mv.from))
    }

    fn tactical_scores(&self, game: &Camelot, moves: &[Move], scores: &mut [i32]) {
        let pos = game.position();
        let target = castle(pos.side_to_move().other());
        for (mv, score) in moves.iter().zip(scores.iter_mut()) {
            // Most moves capture nothing: a test of the set is cheaper than counting it.
            *score = if mv.is_capture() {
                1000 * mv.capture_count() as i32
            } else {
                0
            };
            if target.contains(mv.to) && !target.contains(mv.from) {
                *score += 5000;
            }
        }
    }

    /// Captures and entries into the enemy castle. The search asks only in positions
    /// whose game is not over (repetition included), so the position's own generator,
    /// which skips the pieces that cannot make such a move, is enough.
    fn forcing_moves(&self, game: &Camelot, _threats: bool, out: &mut Vec<Move>) {
        game.position().forcing_moves_into(out);
    }

    /// Inner nodes generate the captures and castle entries first: when one of them
    /// (or the hash move) cuts the node off, the canters of every piece are never
    /// looked for.
    fn staged_moves(&self) -> bool {
        true
    }

    fn quiet_moves(&self, game: &Camelot, out: &mut Vec<Move>) {
        game.position().quiet_moves_into(out);
    }

    /// A quiet move is its two squares (it captures nothing): the start's frame index
    /// (below 255) in the high byte, the end's in the low one.
    fn quiet_move_key(&self, _game: &Camelot, mv: Move) -> Option<u16> {
        let key = (mv.from.index() as u16) << 8 | mv.to.index() as u16;
        (!mv.is_capture()).then_some(key)
    }

    fn quiet_move_from_key(&self, game: &Camelot, key: u16) -> Option<Move> {
        let from = Square::from_index(usize::from(key >> 8))?;
        let to = Square::from_index(usize::from(key & 0xFF))?;
        game.position().quiet_move_from(from, to)
    }

    fn history_size(&self) -> usize {
        256 * 256
    }

    fn history_key(&self, _game: &Camelot, mv: Move) -> usize {
        mv.from.index() * 256 + mv.to.index()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use camelot::Direction;

    #[test]
    fn distances_to_the_castles() {
        let f1 = Square::F1;
        assert_eq!(DISTANCE[0][f1.index()], 0);
        assert_eq!(DISTANCE[1][Square::G16.index()], 0);
        let e2: Square = "E2".parse().unwrap();
        assert_eq!(DISTANCE[0][e2.index()], 1);
        let a8: Square = "A8".parse().unwrap();
        assert_eq!(DISTANCE[0][a8.index()], 7);
        assert_eq!(DISTANCE[1][a8.index()], 8);
    }

    #[test]
    fn set_operations_agree_with_the_square_by_square_terms() {
        // Along a real game: the nearest enemy, the guards and the plain moves, as the
        // carry-save and ring-mask forms compute them and square by square.
        let mut game = Camelot::start();
        let moves =
            "D6-F8 H11-F9 C6-E8-G8 J11-H11 H6-H8 E11-G9 J6-H6 C11-E11 I6-I8 D11-D9 I8-J9 D10-D8xD6";
        for text in std::iter::once("").chain(moves.split_whitespace()) {
            if !text.is_empty() {
                game.play_text(text).unwrap();
            }
            let pos = *game.position();
            let empty = Bitboard::ALL - pos.occupied();
            for player in Player::BOTH {
                let own = pos.pieces(player);
                let enemy = pos.pieces(player.other());
                let home = &DISTANCE[player.index()];
                let slow = enemy
                    .into_iter()
                    .map(|sq| home[sq.index()])
                    .min()
                    .unwrap_or(15);
                let want = if usize::from(slow) <= GUARD_RANGE {
                    slow
                } else {
                    GUARD_RANGE as u8 + 1
                };
                assert_eq!(nearest(enemy, player), want);
                let guards = own.into_iter().filter(|sq| home[sq.index()] <= 2).count() as u32;
                assert_eq!((own & WITHIN[player.index()][2]).count(), guards);
                let fast = contacts(own, enemy, empty);
                assert_eq!(fast.plain_moves[0], plain_moves(own, empty));
                assert_eq!(fast.plain_moves[1], plain_moves(enemy, empty));
                assert_eq!(fast.exposed[0], exposed(own, enemy, empty));
                assert_eq!(fast.exposed[1], exposed(enemy, own, empty));
            }
        }
        // Every square's count up to eight is carried right.
        let all = Bitboard::ALL;
        let mut tally = Tally::default();
        for dir in Direction::ALL {
            tally.add(all.shift(dir) & all);
        }
        assert_eq!(tally.total(), plain_moves(all, all));
    }

    #[test]
    fn forcing_moves_are_the_legal_captures_and_castle_entries_in_order() {
        // Deterministic random games (capturing ones preferred, so pieces thin out and
        // reach the castles): at every position the shortcut generator gives exactly the
        // legal moves that capture or enter the enemy castle, in the same order.
        let eval = CamelotEval::default();
        let mut checked_entries = 0;
        for seed in 0..24u64 {
            let mut game = Camelot::start();
            let mut state = seed;
            for _ in 0..300 {
                if game.outcome().is_some() {
                    break;
                }
                let mut legal = Vec::new();
                game.legal_moves(&mut legal);
                let target = castle(game.to_move().other());
                let want: Vec<Move> = legal
                    .iter()
                    .copied()
                    .filter(|mv| {
                        mv.is_capture() || (target.contains(mv.to) && !target.contains(mv.from))
                    })
                    .collect();
                checked_entries += want.iter().filter(|mv| target.contains(mv.to)).count();
                let mut got = Vec::new();
                eval.forcing_moves(&game, false, &mut got);
                assert_eq!(got, want, "{}", game.position_string());
                let (next, pick) = game::splitmix64(state);
                state = next;
                // Toward the enemy castle half the time, so games end by castle entries too.
                let toward = |mv: &Move| DISTANCE[game.to_move().other().index()][mv.to.index()];
                let mv = if pick % 2 == 0 {
                    *legal
                        .iter()
                        .min_by_key(|mv| (toward(mv), mv.to.index()))
                        .unwrap()
                } else {
                    legal[(pick >> 8) as usize % legal.len()]
                };
                game.play(mv);
            }
        }
        assert!(checked_entries > 0, "some castle entries were seen");
    }

    #[test]
    fn quiet_move_keys_name_the_quiet_moves() {
        // Along deterministic random games: every quiet move comes back from its key,
        // the key of a move from elsewhere gives a legal quiet move here or nothing, and
        // the staged lists are the legal moves.
        let eval = CamelotEval::default();
        for seed in 0..12u64 {
            let mut game = Camelot::start();
            let mut state = seed;
            let mut last_keys: Vec<u16> = Vec::new();
            for _ in 0..200 {
                if game.outcome().is_some() {
                    break;
                }
                let mut legal = Vec::new();
                game.legal_moves(&mut legal);
                let mut staged = Vec::new();
                eval.forcing_moves(&game, false, &mut staged);
                let forcing = staged.len();
                eval.quiet_moves(&game, &mut staged);
                let mut sorted = legal.clone();
                sorted.sort_by_key(|mv| (mv.from, mv.to, mv.captured));
                staged.sort_by_key(|mv| (mv.from, mv.to, mv.captured));
                assert_eq!(staged, sorted, "{}", game.position_string());
                let mut quiet = Vec::new();
                eval.quiet_moves(&game, &mut quiet);
                assert_eq!(quiet.len(), legal.len() - forcing);
                let mut keys = Vec::new();
                for &mv in &quiet {
                    let key = eval
                        .quiet_move_key(&game, mv)
                        .expect("a quiet move has a key");
                    assert!(key < 0xFF00);
                    assert_eq!(eval.quiet_move_from_key(&game, key), Some(mv));
                    keys.push(key);
                }
                for &key in &last_keys {
                    if let Some(mv) = eval.quiet_move_from_key(&game, key) {
                        assert!(quiet.contains(&mv), "{mv:?} from another position");
                    }
                }
                last_keys = keys;
                let (next, pick) = game::splitmix64(state);
                state = next;
                game.play(legal[(pick % legal.len() as u64) as usize]);
            }
        }
    }

    #[test]
    fn the_processor_specific_evaluation_is_the_plain_one() {
        // Along deterministic random games, capturing moves preferred so the board
        // thins out: the AVX2 contacts (where this processor has AVX2) and the
        // evaluation `white_score` chooses equal the plain ones.
        let eval = CamelotEval::default();
        #[cfg(target_arch = "x86_64")]
        let wide = std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("popcnt");
        for seed in 0..16u64 {
            let mut game = Camelot::start();
            let mut state = seed;
            for _ in 0..200 {
                if game.outcome().is_some() {
                    break;
                }
                let pos = *game.position();
                assert_eq!(eval.white_score(&pos), eval.white_score_plain(&pos));
                #[cfg(target_arch = "x86_64")]
                if wide {
                    let (white, black) = (pos.pieces(Player::First), pos.pieces(Player::Second));
                    let empty = Bitboard::ALL - pos.occupied();
                    // SAFETY: the processor has AVX2 and POPCNT, checked above.
                    #[allow(unsafe_code)]
                    let fast = unsafe { wide::contacts(white, black, empty) };
                    assert_eq!(fast, contacts(white, black, empty));
                }
                let mut legal = Vec::new();
                game.legal_moves(&mut legal);
                let (next, pick) = game::splitmix64(state);
                state = next;
                let captures: Vec<Move> =
                    legal.iter().copied().filter(|mv| mv.is_capture()).collect();
                let from = if pick % 3 == 0 || captures.is_empty() {
                    &legal
                } else {
                    &captures
                };
                game.play(from[(pick >> 8) as usize % from.len()]);
            }
        }
    }

    #[test]
    fn the_start_is_symmetric() {
        let eval = CamelotEval::default();
        let pos = Position::start();
        assert_eq!(eval.white_score(&pos), 0);
    }

    #[test]
    fn a_piece_that_can_be_jumped_is_exposed() {
        let d7: Square = "D7".parse().unwrap();
        let d8: Square = "D8".parse().unwrap();
        let d9: Square = "D9".parse().unwrap();
        let white = Bitboard::from_square(d7);
        let black = Bitboard::from_square(d8);
        let empty = Bitboard::ALL - white - black;
        assert_eq!(exposed(black, white, empty), black);
        assert_eq!(exposed(white, black, empty), white);
        assert_eq!(contacts(white, black, empty).exposed, [white, black]);
        let blocked = empty - Bitboard::from_square(d9);
        assert_eq!(exposed(black, white, blocked), Bitboard::EMPTY);
    }

    #[test]
    fn forcing_moves_are_the_captures_when_capture_is_compulsory() {
        let mut game = Camelot::start();
        for text in ["E7-E8", "C11-E9xE7xG5"] {
            game.play_text(text).unwrap();
        }
        let eval = CamelotEval::default();
        let mut forcing = Vec::new();
        eval.forcing_moves(&game, false, &mut forcing);
        let mut legal = Vec::new();
        game.legal_moves(&mut legal);
        assert!(!forcing.is_empty());
        assert_eq!(forcing, legal, "S4: every legal move captures here");
    }
}
