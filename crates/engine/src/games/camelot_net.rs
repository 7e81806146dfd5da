//! A learned evaluation for Camelot, to add to the hand-set one ([`super::camelot`]):
//! a [`crate::nnue`] network, trained as the tafl one is (`crate::train`, `--example
//! train_net`); its output, from White's side, is added to the hand-set evaluation when
//! [`super::camelot::CamelotEval::net`] names one. None is embedded yet: the first one
//! trained (42,044 positions) did not beat the hand-set terms on held-out games
//! (`bench/RESULTS.md`, "A network for Camelot").
//!
//! Features: one per piece and square (White's men and knights, Black's men and
//! knights: 4 × 192 squares of the 12 × 16 rectangle, of which 160 exist), and one for
//! White to move. The board's one symmetry is the mirror between the A and L files.
//!
//! ```
//! use engine::games::camelot_net::CamelotNet;
//!
//! let net = CamelotNet::zero();
//! assert_eq!(net.white_correction(camelot::Camelot::start().position()), 0);
//! ```

use camelot::{Position, Square};
use game::Player;

pub use crate::nnue::Accumulator;
use crate::nnue::{Network, Shape};

/// Squares of the rectangle the board fits in (12 files × 16 ranks).
pub const SQUARES: usize = 12 * 16;
/// Input features: a kind of piece of a colour on a square, and White to move.
pub const FEATURES: usize = 4 * SQUARES + 1;
/// The feature that is present with White to move.
pub const WHITE_TO_MOVE: usize = 4 * SQUARES;

/// The Camelot network's shape: its features and the board's mirror.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CamelotShape;

/// The Camelot network.
pub type CamelotNet = Network<CamelotShape>;

impl Shape for CamelotShape {
    const GAME: &'static str = "Camelot";
    const MAGIC: &'static [u8; 8] = b"KCNET01\n";
    const FEATURES: usize = FEATURES;
    const SYMMETRIES: u8 = 2;

    fn symmetric_feature(feature: usize, symmetry: u8) -> usize {
        symmetric_feature(feature, symmetry)
    }

    fn embedded() -> Option<&'static CamelotNet> {
        None
    }
}

impl Network<CamelotShape> {
    /// What the network adds to the hand-set evaluation, from White's side.
    #[must_use]
    pub fn white_correction(&self, pos: &Position) -> i32 {
        let mut acc = Accumulator(self.b1.map(i32::from));
        for_each_feature(pos, |f| acc.add(self, f));
        self.output(&acc)
    }
}

fn square_feature(sq: Square) -> usize {
    usize::from(sq.rank()) * 12 + usize::from(sq.file())
}

/// Calls `f` with each feature present in `pos`: White's men, White's knights, Black's
/// men, Black's knights, then White to move.
pub fn for_each_feature(pos: &Position, mut f: impl FnMut(usize)) {
    for (kind, player) in [Player::First, Player::Second].into_iter().enumerate() {
        let own = pos.pieces(player);
        for sq in own & pos.men() {
            f((2 * kind) * SQUARES + square_feature(sq));
        }
        for sq in own & pos.knights() {
            f((2 * kind + 1) * SQUARES + square_feature(sq));
        }
    }
    if pos.side_to_move() == Player::First {
        f(WHITE_TO_MOVE);
    }
}

/// A feature seen through the board's mirror (symmetry 1) or as it is (0).
#[must_use]
pub fn symmetric_feature(feature: usize, symmetry: u8) -> usize {
    if feature >= 4 * SQUARES || symmetry & 1 == 0 {
        return feature;
    }
    let (kind, square) = (feature / SQUARES, feature % SQUARES);
    let (file, rank) = (square % 12, square / 12);
    kind * SQUARES + rank * 12 + (11 - file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_network_is_embedded_and_a_file_reads_back() {
        let error = CamelotNet::by_name("embedded").unwrap_err();
        assert!(error.contains("no Camelot network"), "{error}");
        let mut net = CamelotNet::zero();
        net.w1[WHITE_TO_MOVE][3] = 17;
        net.b2 = -5;
        assert_eq!(CamelotNet::from_bytes(&net.to_bytes()).unwrap(), net);
        // A tafl network is not a Camelot one.
        let tafl = crate::games::tafl_net::TaflNet::zero().to_bytes();
        assert!(matches!(
            CamelotNet::from_bytes(&tafl),
            Err(crate::nnue::NetError::Magic {
                game: "Camelot",
                ..
            })
        ));
    }

    #[test]
    fn the_start_has_every_piece_as_a_feature_and_looks_the_same_in_the_mirror() {
        let pos = *camelot::Camelot::start().position();
        let mut features = Vec::new();
        for_each_feature(&pos, |f| features.push(f));
        assert_eq!(features.len(), 2 * 14 + 1);
        assert_eq!(features.last(), Some(&WHITE_TO_MOVE));
        let mut mirrored: Vec<usize> = features.iter().map(|&f| symmetric_feature(f, 1)).collect();
        mirrored.sort_unstable();
        let mut sorted = features.clone();
        sorted.sort_unstable();
        assert_eq!(mirrored, sorted);
        // Every feature is in range, and the mirror is its own inverse.
        for f in 0..FEATURES {
            assert!(symmetric_feature(f, 1) < FEATURES);
            assert_eq!(symmetric_feature(symmetric_feature(f, 1), 1), f);
        }
        // The castles' squares (F1, G1) swap.
        let f1 = square_feature(Square::F1);
        assert_eq!(symmetric_feature(f1, 1), square_feature(Square::G1));
    }
}
