//! The learned evaluation for tafl, added to the hand-set one ([`super::tafl`]): a
//! [`crate::nnue`] network over sparse board features, with integer weights and integer
//! inference. It learns what the hand-set terms miss: it is trained (`crate::train`,
//! `--example train_net`) on positions of the engine's own games, labelled with the
//! game's result and the engine's search score; its output, from the defenders' side,
//! is added to the hand-set evaluation.
//!
//! Features: one per piece and square (attacker, defender, king: 3 × 121), one for
//! Copenhagen rules and one for the defenders to move.
//!
//! ```
//! use engine::games::tafl_net::TaflNet;
//! use tafl::Position;
//!
//! // A network of zeros adds nothing; its file reads back the same.
//! let net = TaflNet::zero();
//! assert_eq!(net.defenders_correction(&Position::start(), true), 0);
//! assert_eq!(TaflNet::from_bytes(&net.to_bytes()).unwrap(), net);
//! ```

use tafl::{Bitboard, Position};

pub use crate::nnue::{Accumulator, HIDDEN, NetError, OUTPUT_POINTS, QA, QB};
use crate::nnue::{Network, Shape};

/// Squares of the board.
pub const SQUARES: usize = 121;
/// Input features: a piece kind on a square (attackers, defenders, the king), the rules
/// (Copenhagen or not) and the side to move.
pub const FEATURES: usize = 3 * SQUARES + 2;
/// The feature that is present under Copenhagen rules.
pub const COPENHAGEN_FEATURE: usize = 3 * SQUARES;
/// The feature that is present with the defenders to move.
pub const DEFENDERS_TO_MOVE: usize = 3 * SQUARES + 1;
/// The first feature of each piece kind: an attacker, a defender or the king on square
/// `i` is feature `base + i`.
const ATTACKER_BASE: usize = 0;
const DEFENDER_BASE: usize = SQUARES;
const KING_BASE: usize = 2 * SQUARES;

/// The network the engine plays with (`src/games/tafl.net`, embedded in the binary;
/// `--example train_net --out` writes such a file).
pub const EMBEDDED_NET: &[u8] = include_bytes!("tafl.net");

/// The tafl network's shape: its features and the eight symmetries of the square.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaflShape;

/// The tafl network.
pub type TaflNet = Network<TaflShape>;

static EMBEDDED: std::sync::LazyLock<TaflNet> = std::sync::LazyLock::new(|| {
    // A test reads the file; a file that does not read fails it.
    TaflNet::from_bytes(EMBEDDED_NET).unwrap_or_else(|_| TaflNet::zero())
});

impl Shape for TaflShape {
    const GAME: &'static str = "tafl";
    const MAGIC: &'static [u8; 8] = b"KTNET01\n";
    const FEATURES: usize = FEATURES;
    const SYMMETRIES: u8 = 8;

    fn symmetric_feature(feature: usize, symmetry: u8) -> usize {
        symmetric_feature(feature, symmetry)
    }

    fn embedded() -> Option<&'static TaflNet> {
        Some(&EMBEDDED)
    }
}

impl Network<TaflShape> {
    /// The embedded network ([`EMBEDDED_NET`]).
    #[must_use]
    pub fn embedded() -> &'static TaflNet {
        &EMBEDDED
    }

    /// The accumulator of a position: the hidden units before clipping.
    #[must_use]
    pub fn accumulate(&self, pos: &Position, copenhagen: bool) -> Accumulator {
        let mut acc = Accumulator(self.b1.map(i32::from));
        for_each_feature(pos, copenhagen, |f| acc.add(self, f));
        acc
    }

    /// What the network adds to the hand-set evaluation, from the defenders' side.
    #[must_use]
    pub fn defenders_correction(&self, pos: &Position, copenhagen: bool) -> i32 {
        self.output(&self.accumulate(pos, copenhagen))
    }

    /// The same as [`Network::defenders_correction`], with the accumulator updated from
    /// the one `memo` holds (of whatever position this network evaluated last with it)
    /// by the pieces that differ, instead of summed afresh. `memo` then holds this
    /// position's. The search evaluates positions a move or two apart, so an update is
    /// a handful of rows against forty; beyond [`MAX_UPDATE`] changed features, or with
    /// another network or other rules, the accumulator is summed afresh.
    pub fn defenders_correction_with(
        &self,
        pos: &Position,
        copenhagen: bool,
        memo: &mut TaflMemo,
    ) -> i32 {
        let now = MemoKey::of(self, pos, copenhagen);
        let acc = match memo.last.take() {
            Some((then, mut acc)) if then.changes_to(&now).is_some_and(|n| n <= MAX_UPDATE) => {
                then.update(&now, self, &mut acc);
                acc
            }
            _ => self.accumulate(pos, copenhagen),
        };
        memo.last = Some((now, acc));
        self.output(&acc)
    }
}

/// Beyond this many changed features, [`Network::defenders_correction_with`] sums the
/// accumulator afresh (about forty rows) rather than updating it.
pub const MAX_UPDATE: u32 = 16;

/// A tafl network's accumulator kept from one evaluation to the next, with the position
/// it is of ([`Network::defenders_correction_with`]; the search keeps one per thread).
#[derive(Clone, Debug, Default)]
pub struct TaflMemo {
    last: Option<(MemoKey, Accumulator)>,
}

/// What an accumulator depends on: the network, the pieces, the side to move and the
/// rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct MemoKey {
    /// The network's address: a memo filled by one network is never used by another.
    net: usize,
    attackers: Bitboard,
    defenders: Bitboard,
    king: usize,
    defenders_to_move: bool,
    copenhagen: bool,
}

impl MemoKey {
    fn of(net: &TaflNet, pos: &Position, copenhagen: bool) -> MemoKey {
        MemoKey {
            net: std::ptr::from_ref(net) as usize,
            attackers: pos.attackers(),
            defenders: pos.defenders(),
            king: pos.king().index(),
            defenders_to_move: pos.side_to_move() == tafl::DEFENDERS,
            copenhagen,
        }
    }

    /// How many features differ between the two positions, if one accumulator can be
    /// updated into the other at all (the same network and rules).
    fn changes_to(&self, now: &MemoKey) -> Option<u32> {
        (self.net == now.net && self.copenhagen == now.copenhagen).then(|| {
            ((self.attackers - now.attackers) | (now.attackers - self.attackers)).count()
                + ((self.defenders - now.defenders) | (now.defenders - self.defenders)).count()
                + 2 * u32::from(self.king != now.king)
                + u32::from(self.defenders_to_move != now.defenders_to_move)
        })
    }

    /// Turns `acc`, this position's accumulator, into `now`'s.
    fn update(&self, now: &MemoKey, net: &TaflNet, acc: &mut Accumulator) {
        for (then, now, base) in [
            (self.attackers, now.attackers, ATTACKER_BASE),
            (self.defenders, now.defenders, DEFENDER_BASE),
        ] {
            for sq in then - now {
                acc.remove(net, base + sq.index());
            }
            for sq in now - then {
                acc.add(net, base + sq.index());
            }
        }
        if self.king != now.king {
            acc.remove(net, KING_BASE + self.king);
            acc.add(net, KING_BASE + now.king);
        }
        if self.defenders_to_move != now.defenders_to_move {
            if now.defenders_to_move {
                acc.add(net, DEFENDERS_TO_MOVE);
            } else {
                acc.remove(net, DEFENDERS_TO_MOVE);
            }
        }
    }
}

/// Calls `f` with each feature present in `pos`: attackers, then defenders, the king,
/// the rules and the side to move.
pub fn for_each_feature(pos: &Position, copenhagen: bool, mut f: impl FnMut(usize)) {
    for sq in pos.attackers() {
        f(ATTACKER_BASE + sq.index());
    }
    for sq in pos.defenders() {
        f(DEFENDER_BASE + sq.index());
    }
    f(KING_BASE + pos.king().index());
    if copenhagen {
        f(COPENHAGEN_FEATURE);
    }
    if pos.side_to_move() == tafl::DEFENDERS {
        f(DEFENDERS_TO_MOVE);
    }
}

/// The features of `pos` seen through one of the board's eight symmetries (`0..8`:
/// the four rotations, each with and without a mirror). The rules and the hand-set
/// evaluation look the same through each, so a position and its images share a label.
#[must_use]
pub fn symmetric_feature(feature: usize, symmetry: u8) -> usize {
    if feature >= 3 * SQUARES {
        return feature;
    }
    let (kind, square) = (feature / SQUARES, feature % SQUARES);
    let (mut file, mut rank) = (square % 11, square / 11);
    if symmetry & 4 != 0 {
        file = 10 - file;
    }
    for _ in 0..(symmetry & 3) {
        (file, rank) = (rank, 10 - file);
    }
    kind * SQUARES + rank * 11 + file
}

#[cfg(test)]
mod tests {
    use super::*;
    use tafl::Bitboard;

    /// The squares of a set seen through a symmetry ([`symmetric_feature`]), for tests.
    fn symmetric_set(set: Bitboard, symmetry: u8) -> Bitboard {
        let mut out = Bitboard::EMPTY;
        for sq in set {
            let index = symmetric_feature(sq.index(), symmetry);
            out |= Bitboard(1u128 << index);
        }
        out
    }

    fn sample_net() -> TaflNet {
        let mut net = TaflNet::zero();
        let mut state = 7u64;
        for row in &mut net.w1 {
            for w in row.iter_mut() {
                let (s, r) = game::splitmix64(state);
                state = s;
                *w = (r % 41) as i16 - 20;
            }
        }
        for (i, w) in net.w2.iter_mut().enumerate() {
            *w = i as i16 * 3 - 40;
        }
        net.b1 = [10; HIDDEN];
        net.b2 = 1234;
        net
    }

    #[test]
    fn a_network_named_on_a_command_line() {
        assert!(TaflNet::by_name("none").unwrap().is_none());
        assert!(std::ptr::eq(
            TaflNet::by_name("embedded").unwrap().unwrap(),
            TaflNet::embedded()
        ));
        let dir = std::env::temp_dir().join(format!("tafl-net-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join("good.net");
        std::fs::write(&good, TaflNet::embedded().to_bytes()).unwrap();
        let read = TaflNet::by_name(good.to_str().unwrap()).unwrap().unwrap();
        assert_eq!(read.to_bytes(), TaflNet::embedded().to_bytes());
        let bad = dir.join("bad.net");
        std::fs::write(&bad, b"not a network").unwrap();
        let error = TaflNet::by_name(bad.to_str().unwrap()).unwrap_err();
        assert!(error.contains("not a tafl network file"), "{error}");
        let missing = TaflNet::by_name(dir.join("missing.net").to_str().unwrap()).unwrap_err();
        assert!(missing.contains("missing.net"), "{missing}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_embedded_network_reads() {
        TaflNet::from_bytes(EMBEDDED_NET).expect("src/games/tafl.net reads");
    }

    #[test]
    fn a_file_reads_back_and_bad_files_are_refused() {
        let net = sample_net();
        let bytes = net.to_bytes();
        assert_eq!(TaflNet::from_bytes(&bytes).unwrap(), net);
        assert_eq!(
            TaflNet::from_bytes(b"hello"),
            Err(NetError::Magic {
                game: "tafl",
                magic: b"KTNET01\n"
            })
        );
        assert_eq!(
            TaflNet::from_bytes(&bytes[..bytes.len() - 1]),
            Err(NetError::Length(bytes.len() - 1, bytes.len()))
        );
        let mut other = bytes.clone();
        other[8..12].copy_from_slice(&9u32.to_le_bytes());
        assert!(matches!(
            TaflNet::from_bytes(&other),
            Err(NetError::Shape { features: 9, .. })
        ));
    }

    #[test]
    fn the_output_is_the_clipped_sum_of_the_features_rows() {
        let net = sample_net();
        let pos = Position::start();
        let mut hidden = net.b1.map(i32::from);
        let mut count = 0;
        for_each_feature(&pos, false, |f| {
            count += 1;
            for (h, w) in hidden.iter_mut().zip(&net.w1[f]) {
                *h += i32::from(*w);
            }
        });
        assert_eq!(count, 24 + 12 + 1, "every piece of the start is a feature");
        let mut defenders_to_move = Vec::new();
        let pos_d = Position::from_opentafl(&pos.to_opentafl(), tafl::DEFENDERS).unwrap();
        for_each_feature(&pos_d, true, |f| defenders_to_move.push(f));
        assert_eq!(
            defenders_to_move[37..],
            [COPENHAGEN_FEATURE, DEFENDERS_TO_MOVE]
        );
        let sum: i64 = hidden
            .iter()
            .zip(&net.w2)
            .map(|(&h, &w)| i64::from(h.clamp(0, QA)) * i64::from(w))
            .sum::<i64>()
            + 1234;
        assert_eq!(
            i64::from(net.defenders_correction(&pos, false)),
            sum * OUTPUT_POINTS / i64::from(QA * QB)
        );
    }

    #[test]
    fn an_accumulator_kept_up_to_date_equals_one_built_afresh() {
        let net = sample_net();
        let mut game = tafl::Tafl::new(tafl::Rules::COPENHAGEN);
        let mut acc = net.accumulate(game.position(), true);
        let mut state = 3u64;
        let mut moves = Vec::new();
        for _ in 0..80 {
            if game::Game::outcome(&game).is_some() {
                break;
            }
            moves.clear();
            game::Game::legal_moves(&game, &mut moves);
            let (s, r) = game::splitmix64(state);
            state = s;
            let mv = moves[r as usize % moves.len()];
            let before = *game.position();
            game::Game::play(&mut game, mv);
            let after = game.position();
            // The pieces that left and arrived, as features.
            let mut old = Vec::new();
            let mut new = Vec::new();
            for_each_feature(&before, true, |f| old.push(f));
            for_each_feature(after, true, |f| new.push(f));
            old.iter()
                .filter(|f| !new.contains(f))
                .for_each(|&f| acc.remove(&net, f));
            new.iter()
                .filter(|f| !old.contains(f))
                .for_each(|&f| acc.add(&net, f));
            assert_eq!(acc, net.accumulate(after, true));
        }
    }

    #[test]
    fn a_memo_updated_from_any_earlier_position_gives_the_correction_built_afresh() {
        // Two networks and both rules share one memo, as a search thread's would be
        // shared if it were misused: each answer must still be the network's own.
        let one = sample_net();
        let mut two = sample_net();
        two.w2.iter_mut().for_each(|w| *w = -*w / 2 + 7);
        two.w1[DEFENDERS_TO_MOVE].iter_mut().for_each(|w| *w += 11);
        let mut memo = TaflMemo::default();
        let mut state = 11u64;
        let mut moves = Vec::new();
        let (mut updated, mut afresh) = (0, 0);
        for rules in [tafl::Rules::COPENHAGEN, tafl::Rules::FETLAR] {
            let copenhagen = rules.is_copenhagen();
            let mut game = tafl::Tafl::new(rules);
            for step in 0..600 {
                let (s, r) = game::splitmix64(state);
                state = s;
                // Mostly forward, sometimes back (as the search does), and now and
                // then back to the start (a jump too far to update).
                if step % 97 == 96 {
                    game = tafl::Tafl::new(rules);
                } else if r % 10 < 3 {
                    // Nothing to take back at the start: the same position again.
                    let _ = game::Game::undo(&mut game);
                } else if game::Game::outcome(&game).is_none() {
                    moves.clear();
                    game::Game::legal_moves(&game, &mut moves);
                    game::Game::play(&mut game, moves[(r >> 8) as usize % moves.len()]);
                }
                let net = if (r >> 40) % 7 == 0 { &two } else { &one };
                let pos = game.position();
                let before = memo.last.map(|(key, _)| key);
                let now = MemoKey::of(net, pos, copenhagen);
                match before.and_then(|key| key.changes_to(&now)) {
                    Some(n) if n <= MAX_UPDATE => updated += 1,
                    _ => afresh += 1,
                }
                assert_eq!(
                    net.defenders_correction_with(pos, copenhagen, &mut memo),
                    net.defenders_correction(pos, copenhagen),
                    "step {step} of {rules:?}"
                );
            }
        }
        assert!(updated > 900, "most answers are updates: {updated}");
        assert!(afresh > 100, "and some are built afresh: {afresh}");
    }

    #[test]
    fn the_symmetries_are_the_eight_of_the_square() {
        let pos = Position::start();
        // The start looks the same through all eight.
        for s in 0..8 {
            assert_eq!(symmetric_set(pos.attackers(), s), pos.attackers());
            assert_eq!(symmetric_set(pos.defenders(), s), pos.defenders());
        }
        // One square goes to eight different places, corners to corners.
        let a2 = 11; // a2: file 0, rank 1
        let images: std::collections::BTreeSet<usize> =
            (0..8).map(|s| symmetric_feature(a2, s)).collect();
        assert_eq!(images.len(), 8);
        for s in 0..8 {
            assert_eq!(
                symmetric_set(Bitboard::CORNERS, s),
                Bitboard::CORNERS,
                "symmetry {s}"
            );
        }
        assert_eq!(symmetric_feature(COPENHAGEN_FEATURE, 5), COPENHAGEN_FEATURE);
        assert_eq!(symmetric_feature(DEFENDERS_TO_MOVE, 3), DEFENDERS_TO_MOVE);
    }
}
