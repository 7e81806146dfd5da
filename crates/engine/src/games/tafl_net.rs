//! A small learned evaluation for tafl, added to the hand-set one ([`super::tafl`]): a
//! network of one hidden layer over sparse board features (NNUE-style), with integer
//! weights and integer inference. It learns what the hand-set terms miss: it is trained
//! (`crate::train`, `--example train_tafl_net`) on positions of the engine's own games,
//! labelled with the game's result and the engine's search score, and its output is
//! added to the hand-set evaluation.
//!
//! Features: one per piece and square (attacker, defender, king: 3 × 121), one for
//! Copenhagen rules and one for the defenders to move. The hidden layer is the sum of the rows of the features present
//! (the accumulator), clipped to `[0, QA]`; the output is a weighted sum of the hidden
//! units, from the defenders' side, in evaluation points.
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

use tafl::Position;

/// Squares of the board.
pub const SQUARES: usize = 121;
/// Input features: a piece kind on a square (attackers, defenders, the king), the rules
/// (Copenhagen or not) and the side to move.
pub const FEATURES: usize = 3 * SQUARES + 2;
/// Hidden units.
pub const HIDDEN: usize = 32;
/// Fixed-point scale of the first layer and of the hidden units (1.0 is `QA`).
pub const QA: i32 = 64;
/// Fixed-point scale of the output weights.
pub const QB: i32 = 64;
/// Evaluation points per unit of the network's output.
pub const OUTPUT_POINTS: i64 = 100;
/// The feature that is present under Copenhagen rules.
pub const COPENHAGEN_FEATURE: usize = 3 * SQUARES;
/// The feature that is present with the defenders to move.
pub const DEFENDERS_TO_MOVE: usize = 3 * SQUARES + 1;

const MAGIC: &[u8; 8] = b"KTNET01\n";

/// The network the engine can play with (`src/games/tafl.net`, embedded in the
/// binary; `--example train_tafl_net --out` writes such a file).
pub const EMBEDDED_NET: &[u8] = include_bytes!("tafl.net");

/// Why a network file was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum NetError {
    /// The file does not begin with the header.
    #[error("not a tafl network file (expected the header {MAGIC:?})")]
    Magic,
    /// A network of another shape.
    #[error(
        "the network has {features} features and {hidden} hidden units; this engine reads {FEATURES} and {HIDDEN}"
    )]
    Shape {
        /// Its features.
        features: usize,
        /// Its hidden units.
        hidden: usize,
    },
    /// The file's length (found, expected) does not fit its shape.
    #[error("the network file is {0} bytes long; expected {1}")]
    Length(usize, usize),
}

/// The network's integer weights.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaflNet {
    /// `FEATURES` rows of `HIDDEN` weights, scale `QA`.
    pub w1: Vec<[i16; HIDDEN]>,
    /// The hidden units' biases, scale `QA`.
    pub b1: [i16; HIDDEN],
    /// The output weights, scale `QB`.
    pub w2: [i16; HIDDEN],
    /// The output bias, scale `QA × QB`.
    pub b2: i32,
}

static EMBEDDED: std::sync::LazyLock<TaflNet> = std::sync::LazyLock::new(|| {
    // A test reads the file; a file that does not read fails it.
    TaflNet::from_bytes(EMBEDDED_NET).unwrap_or_else(|_| TaflNet::zero())
});

impl TaflNet {
    /// A network that adds nothing.
    #[must_use]
    pub fn zero() -> TaflNet {
        TaflNet {
            w1: vec![[0; HIDDEN]; FEATURES],
            b1: [0; HIDDEN],
            w2: [0; HIDDEN],
            b2: 0,
        }
    }

    /// The embedded network ([`EMBEDDED_NET`]).
    #[must_use]
    pub fn embedded() -> &'static TaflNet {
        &EMBEDDED
    }

    /// The network a command line names: `embedded` (the one in the binary), `none` (the
    /// hand-set terms alone), or a network file, read once and kept for the life of the
    /// program.
    pub fn by_name(name: &str) -> Result<Option<&'static TaflNet>, String> {
        match name {
            "embedded" => Ok(Some(TaflNet::embedded())),
            "none" => Ok(None),
            file => {
                let bytes = std::fs::read(file).map_err(|e| format!("{file}: {e}"))?;
                let net = TaflNet::from_bytes(&bytes).map_err(|e| format!("{file}: {e}"))?;
                Ok(Some(Box::leak(Box::new(net))))
            }
        }
    }

    const fn file_len() -> usize {
        MAGIC.len() + 8 + 2 * (FEATURES * HIDDEN + 2 * HIDDEN) + 4
    }

    /// Reads a network file: the header, the shape (two little-endian `u32`), then the
    /// weights as little-endian integers, row by row.
    pub fn from_bytes(bytes: &[u8]) -> Result<TaflNet, NetError> {
        if bytes.len() < MAGIC.len() + 8 || &bytes[..MAGIC.len()] != MAGIC {
            return Err(NetError::Magic);
        }
        let word = |at: usize| {
            u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]) as usize
        };
        let (features, hidden) = (word(MAGIC.len()), word(MAGIC.len() + 4));
        if (features, hidden) != (FEATURES, HIDDEN) {
            return Err(NetError::Shape { features, hidden });
        }
        if bytes.len() != Self::file_len() {
            return Err(NetError::Length(bytes.len(), Self::file_len()));
        }
        let mut at = MAGIC.len() + 8;
        let mut next = || {
            let v = i16::from_le_bytes([bytes[at], bytes[at + 1]]);
            at += 2;
            v
        };
        let mut net = TaflNet::zero();
        for row in &mut net.w1 {
            row.iter_mut().for_each(|w| *w = next());
        }
        net.b1.iter_mut().for_each(|w| *w = next());
        net.w2.iter_mut().for_each(|w| *w = next());
        net.b2 = i32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
        Ok(net)
    }

    /// The network file ([`TaflNet::from_bytes`] reads it back).
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(Self::file_len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&(FEATURES as u32).to_le_bytes());
        out.extend_from_slice(&(HIDDEN as u32).to_le_bytes());
        for row in &self.w1 {
            row.iter()
                .for_each(|w| out.extend_from_slice(&w.to_le_bytes()));
        }
        self.b1
            .iter()
            .chain(&self.w2)
            .for_each(|w| out.extend_from_slice(&w.to_le_bytes()));
        out.extend_from_slice(&self.b2.to_le_bytes());
        out
    }

    /// The accumulator of a position: the hidden units before clipping.
    #[must_use]
    pub fn accumulate(&self, pos: &Position, copenhagen: bool) -> Accumulator {
        let mut acc = Accumulator(self.b1.map(i32::from));
        for_each_feature(pos, copenhagen, |f| acc.add(self, f));
        acc
    }

    /// The network's output for an accumulator, in evaluation points from the
    /// defenders' side.
    #[must_use]
    pub fn output(&self, acc: &Accumulator) -> i32 {
        let sum: i64 = acc
            .0
            .iter()
            .zip(&self.w2)
            .map(|(&h, &w)| i64::from(h.clamp(0, QA)) * i64::from(w))
            .sum::<i64>()
            + i64::from(self.b2);
        (sum * OUTPUT_POINTS / i64::from(QA * QB)) as i32
    }

    /// What the network adds to the hand-set evaluation, from the defenders' side.
    #[must_use]
    pub fn defenders_correction(&self, pos: &Position, copenhagen: bool) -> i32 {
        self.output(&self.accumulate(pos, copenhagen))
    }
}

/// The hidden units of one position before clipping, kept up to date piece by piece
/// as moves are made ([`Accumulator::add`], [`Accumulator::remove`]) or built afresh
/// ([`TaflNet::accumulate`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Accumulator(pub [i32; HIDDEN]);

impl Accumulator {
    /// A feature appears (a piece arrives on a square).
    pub fn add(&mut self, net: &TaflNet, feature: usize) {
        for (h, &w) in self.0.iter_mut().zip(&net.w1[feature]) {
            *h += i32::from(w);
        }
    }

    /// A feature goes (a piece leaves a square or is captured).
    pub fn remove(&mut self, net: &TaflNet, feature: usize) {
        for (h, &w) in self.0.iter_mut().zip(&net.w1[feature]) {
            *h -= i32::from(w);
        }
    }
}

/// Calls `f` with each feature present in `pos`: attackers, then defenders, the king,
/// the rules and the side to move.
pub fn for_each_feature(pos: &Position, copenhagen: bool, mut f: impl FnMut(usize)) {
    for sq in pos.attackers() {
        f(sq.index());
    }
    for sq in pos.defenders() {
        f(SQUARES + sq.index());
    }
    f(2 * SQUARES + pos.king().index());
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
        assert_eq!(TaflNet::from_bytes(b"hello"), Err(NetError::Magic));
        assert_eq!(
            TaflNet::from_bytes(&bytes[..bytes.len() - 1]),
            Err(NetError::Length(bytes.len() - 1, bytes.len()))
        );
        let mut other = bytes.clone();
        other[MAGIC.len()..MAGIC.len() + 4].copy_from_slice(&9u32.to_le_bytes());
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
