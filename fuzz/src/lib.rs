//! What the fuzz targets share: splitting an input into parts, and the rules invariants
//! checked on any [`Game`] (tafl and Camelot alike).

use game::Game;

/// The input as text, lossily (invalid UTF-8 becomes U+FFFD: the parsers take `&str`).
#[must_use]
pub fn text(data: &[u8]) -> String {
    String::from_utf8_lossy(data).into_owned()
}

/// A little reader over the fuzzer's bytes: each call takes what it needs, and zeros once
/// the input is used up.
pub struct Bytes<'a> {
    data: &'a [u8],
}

impl<'a> Bytes<'a> {
    /// Reads `data` from its start.
    #[must_use]
    pub fn new(data: &'a [u8]) -> Bytes<'a> {
        Bytes { data }
    }

    /// Whether every byte has been taken.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The next byte (0 when none is left).
    pub fn byte(&mut self) -> u8 {
        match self.data.split_first() {
            Some((&b, rest)) => {
                self.data = rest;
                b
            }
            None => 0,
        }
    }

    /// The bytes up to the next `\n` (or the end), as text; the `\n` is skipped.
    pub fn line(&mut self) -> String {
        let end = self
            .data
            .iter()
            .position(|&b| b == b'\n')
            .unwrap_or(self.data.len());
        let line = text(&self.data[..end]);
        self.data = self.data.get(end + 1..).unwrap_or(&[]);
        line
    }
}

/// Plays through `game` as the bytes say and checks, at every step, that:
///
/// - every listed move is legal (`is_legal`) and the list holds no move twice; the text
///   of a few of them (chosen by the bytes) reads back as the same move and is written
///   the same again;
/// - a move made up by `candidate` (from the bytes and the listed moves) is legal
///   exactly when it is listed;
/// - the incrementally kept hash equals `recompute` (the position's hash from scratch);
/// - playing a move and taking it back restores the position, hash and ply.
///
/// # Panics
/// When an invariant fails: that is the finding.
pub fn check_rules<G, C, R>(game: &mut G, bytes: &mut Bytes<'_>, mut candidate: C, recompute: R)
where
    G: Game,
    C: FnMut(&G, &[G::Move], &mut Bytes<'_>) -> G::Move,
    R: Fn(&G) -> u64,
{
    let mut moves = Vec::new();
    // At most a few hundred plies: a long input must not make one run slow.
    for _ in 0..300 {
        assert_eq!(game.hash(), recompute(game), "incremental hash drifted");
        moves.clear();
        game.legal_moves(&mut moves);
        assert_eq!(
            moves.len(),
            game.count_legal_moves(),
            "count_legal_moves differs from the list"
        );
        let mut seen = std::collections::HashSet::new();
        for &mv in &moves {
            assert!(seen.insert(mv), "{mv:?} listed twice");
            assert!(game.is_legal(mv), "listed move {mv:?} is not legal");
        }
        // The notation of a few listed moves (all of them would make a run slow).
        for _ in 0..4 {
            let Some(&mv) = moves.get(usize::from(bytes.byte()) % moves.len().max(1)) else {
                break;
            };
            let text = game.format_move(mv);
            let back = game
                .parse_move(&text)
                .unwrap_or_else(|e| panic!("{text} (listed) does not read back: {e}"));
            assert_eq!(back, mv, "{text} reads back as another move");
            assert_eq!(
                game.format_move(back),
                text,
                "{text} is not written the same twice"
            );
        }
        if game.outcome().is_some() || bytes.is_empty() || moves.is_empty() {
            return;
        }
        let made_up = candidate(game, &moves, bytes);
        assert_eq!(
            game.is_legal(made_up),
            moves.contains(&made_up),
            "is_legal({made_up:?}) disagrees with the list in {}",
            game.position_string()
        );
        let choice = moves[usize::from(bytes.byte()) % moves.len()];
        let (before, hash, ply) = (game.position_string(), game.hash(), game.ply());
        game.play(choice);
        assert_eq!(game.ply(), ply + 1);
        if bytes.byte() % 8 == 0 {
            assert_eq!(game.undo(), Some(choice), "undo took back another move");
            assert_eq!(
                game.position_string(),
                before,
                "undo did not restore the position"
            );
            assert_eq!(game.hash(), hash, "undo did not restore the hash");
            assert_eq!(game.ply(), ply);
            game.play(choice);
        }
    }
}
