//! The learned evaluations' network, the same for every game: one hidden layer over
//! sparse board features (NNUE-style), integer weights and integer inference. What
//! differs by game is its [`Shape`]: how many features, what the file's header is, and
//! the board's symmetries. The hidden layer is the sum of the rows of the features
//! present (the [`Accumulator`]) and the biases, clipped to `[0, QA]`; the output is a
//! weighted sum of the hidden units, in evaluation points, added to the game's hand-set
//! evaluation. `crate::train` fits one.
//!
//! ```
//! use engine::games::tafl_net::TaflNet;
//!
//! // A network of zeros adds nothing; its file reads back the same.
//! let net = TaflNet::zero();
//! assert_eq!(net.output(&net.accumulate_features([3, 200, 364])), 0);
//! assert_eq!(TaflNet::from_bytes(&net.to_bytes()).unwrap(), net);
//! ```

use std::marker::PhantomData;

/// Hidden units.
pub const HIDDEN: usize = 32;
/// Fixed-point scale of the first layer and of the hidden units (1.0 is `QA`).
pub const QA: i32 = 64;
/// Fixed-point scale of the output weights.
pub const QB: i32 = 64;
/// Evaluation points per unit of the network's output.
pub const OUTPUT_POINTS: i64 = 100;

/// What makes one game's network its own.
pub trait Shape: Clone + std::fmt::Debug + PartialEq + Eq + 'static {
    /// The game, for messages.
    const GAME: &'static str;
    /// The file's first eight bytes.
    const MAGIC: &'static [u8; 8];
    /// Input features.
    const FEATURES: usize;
    /// The board's symmetries under which the rules and the hand-set evaluation look
    /// the same (`0..SYMMETRIES`, 0 the identity).
    const SYMMETRIES: u8;

    /// A feature seen through a symmetry.
    fn symmetric_feature(feature: usize, symmetry: u8) -> usize;

    /// The network embedded in the binary, if the game has one.
    fn embedded() -> Option<&'static Network<Self>>
    where
        Self: Sized;
}

/// Why a network file was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum NetError {
    /// The file does not begin with the header.
    #[error("not a {game} network file (expected the header {magic:?})")]
    Magic {
        /// The game.
        game: &'static str,
        /// The header expected.
        magic: &'static [u8; 8],
    },
    /// A network of another shape.
    #[error(
        "the network has {features} features and {hidden} hidden units; this engine reads {expected} and {HIDDEN}"
    )]
    Shape {
        /// Its features.
        features: usize,
        /// Its hidden units.
        hidden: usize,
        /// The features this engine reads.
        expected: usize,
    },
    /// The file's length (found, expected) does not fit its shape.
    #[error("the network file is {0} bytes long; expected {1}")]
    Length(usize, usize),
}

/// A network's integer weights.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Network<S> {
    /// `FEATURES` rows of `HIDDEN` weights, scale `QA`.
    pub w1: Vec<[i16; HIDDEN]>,
    /// The hidden units' biases, scale `QA`.
    pub b1: [i16; HIDDEN],
    /// The output weights, scale `QB`.
    pub w2: [i16; HIDDEN],
    /// The output bias, scale `QA × QB`.
    pub b2: i32,
    shape: PhantomData<S>,
}

impl<S: Shape> Network<S> {
    /// A network that adds nothing.
    #[must_use]
    pub fn zero() -> Network<S> {
        Network {
            w1: vec![[0; HIDDEN]; S::FEATURES],
            b1: [0; HIDDEN],
            w2: [0; HIDDEN],
            b2: 0,
            shape: PhantomData,
        }
    }

    /// The network a command line names: `embedded` (the one in the binary), `none` (the
    /// hand-set terms alone), or a network file, read once and kept for the life of the
    /// program.
    pub fn by_name(name: &str) -> Result<Option<&'static Network<S>>, String> {
        match name {
            "embedded" => S::embedded()
                .map(Some)
                .ok_or_else(|| format!("no {} network is embedded in this engine", S::GAME)),
            "none" => Ok(None),
            file => {
                let bytes = std::fs::read(file).map_err(|e| format!("{file}: {e}"))?;
                let net = Network::from_bytes(&bytes).map_err(|e| format!("{file}: {e}"))?;
                Ok(Some(Box::leak(Box::new(net))))
            }
        }
    }

    const fn file_len() -> usize {
        8 + 8 + 2 * (S::FEATURES * HIDDEN + 2 * HIDDEN) + 4
    }

    /// Reads a network file: the header, the shape (two little-endian `u32`), then the
    /// weights as little-endian integers, row by row.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network<S>, NetError> {
        if bytes.len() < 16 || &bytes[..8] != S::MAGIC {
            return Err(NetError::Magic {
                game: S::GAME,
                magic: S::MAGIC,
            });
        }
        let word = |at: usize| {
            u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]) as usize
        };
        let (features, hidden) = (word(8), word(12));
        if (features, hidden) != (S::FEATURES, HIDDEN) {
            return Err(NetError::Shape {
                features,
                hidden,
                expected: S::FEATURES,
            });
        }
        if bytes.len() != Self::file_len() {
            return Err(NetError::Length(bytes.len(), Self::file_len()));
        }
        let mut at = 16;
        let mut next = || {
            let v = i16::from_le_bytes([bytes[at], bytes[at + 1]]);
            at += 2;
            v
        };
        let mut net = Network::zero();
        for row in &mut net.w1 {
            row.iter_mut().for_each(|w| *w = next());
        }
        net.b1.iter_mut().for_each(|w| *w = next());
        net.w2.iter_mut().for_each(|w| *w = next());
        net.b2 = i32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
        Ok(net)
    }

    /// The network file ([`Network::from_bytes`] reads it back).
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(Self::file_len());
        out.extend_from_slice(S::MAGIC);
        out.extend_from_slice(&(S::FEATURES as u32).to_le_bytes());
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

    /// The accumulator of a set of features: the hidden units before clipping.
    #[must_use]
    pub fn accumulate_features(&self, features: impl IntoIterator<Item = usize>) -> Accumulator {
        let mut acc = Accumulator(self.b1.map(i32::from));
        for f in features {
            acc.add(self, f);
        }
        acc
    }

    /// The network's output for an accumulator, in evaluation points.
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
}

/// The hidden units of one position before clipping, kept up to date piece by piece
/// as moves are made ([`Accumulator::add`], [`Accumulator::remove`]) or built afresh
/// ([`Network::accumulate_features`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Accumulator(pub [i32; HIDDEN]);

impl Accumulator {
    /// A feature appears (a piece arrives on a square).
    pub fn add<S>(&mut self, net: &Network<S>, feature: usize) {
        for (h, &w) in self.0.iter_mut().zip(&net.w1[feature]) {
            *h += i32::from(w);
        }
    }

    /// A feature goes (a piece leaves a square or is captured).
    pub fn remove<S>(&mut self, net: &Network<S>, feature: usize) {
        for (h, &w) in self.0.iter_mut().zip(&net.w1[feature]) {
            *h -= i32::from(w);
        }
    }
}
