//! Perft: the number of move sequences of a given length, the correctness contract of a
//! move generator. A move that ends the game is a leaf (it is counted, not expanded).

use crate::{Game, Player};

/// Counts the leaves of the game tree `depth` plies deep from the current position.
///
/// A move that ends the game counts as one leaf whatever depth remains. `perft(0)` is 1.
/// The game is left as it was found.
///
/// # Panics
///
/// If the count does not fit in a `u64`; [`try_perft`] says so instead.
pub fn perft<G: Game>(game: &mut G, depth: u32) -> u64 {
    try_perft(game, depth).expect("the perft count fits in a u64")
}

/// [`perft`], or `None` when the count does not fit in a `u64` (the count is checked as
/// it grows, never wrapped). The game is left as it was found either way.
pub fn try_perft<G: Game>(game: &mut G, depth: u32) -> Option<u64> {
    count(game, depth, 0, &mut Vec::new(), &mut |_| {})
}

/// A bound on the number of legal moves any position at or below this one can have, by
/// side: what lets a perft depth be refused before counting when its count might not fit
/// in a `u64` ([`deepest_countable`]).
pub trait MoveBound {
    /// At most this many legal moves for `player` in this position and in every position
    /// that follows it, or `None` if the game gives no useful bound.
    fn move_bound(&self, player: Player) -> Option<u64>;
}

/// The deepest perft whose count is sure to fit in a `u64`, by the game's move bound:
/// the product of the bounds of the plies, sides alternating from the side to move.
/// `None` when the game gives no bound (count with [`try_perft`], which checks the count
/// as it grows).
pub fn deepest_countable<G: Game + MoveBound>(game: &G) -> Option<u32> {
    let bounds = [
        game.move_bound(game.to_move())?,
        game.move_bound(game.to_move().other())?,
    ];
    if bounds.iter().all(|&b| b <= 1) {
        // At most one move a ply: every count is 0 or 1.
        return Some(u32::MAX);
    }
    let mut product: u64 = 1;
    let mut depth: u32 = 0;
    while let Some(next) = product.checked_mul(bounds[depth as usize % 2].max(1)) {
        product = next;
        depth += 1;
    }
    Some(depth)
}

/// Subtrees this many plies deep or less are reported whole by
/// [`try_perft_with_progress`].
pub const PROGRESS_DEPTH: u32 = 3;

/// [`try_perft`], calling `progress` with leaves as they are counted, so that a long
/// count can show how far it has got: each subtree of at most [`PROGRESS_DEPTH`] plies
/// below a deeper node as a whole (such a subtree takes milliseconds), and each
/// game-ending move above them as one leaf. The reported leaves add up to the result when
/// `depth` exceeds [`PROGRESS_DEPTH`]; shallower counts report nothing.
pub fn try_perft_with_progress<G: Game>(
    game: &mut G,
    depth: u32,
    progress: &mut dyn FnMut(u64),
) -> Option<u64> {
    count(game, depth, 0, &mut Vec::new(), progress)
}

/// Perft split by first move: each legal move with the number of leaves below it, in
/// move-generation order. The sum is `perft(depth)`. Empty for `depth == 0`.
///
/// # Panics
///
/// If a first move's count does not fit in a `u64`.
pub fn perft_divide<G: Game>(game: &mut G, depth: u32) -> Vec<(G::Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    let mut moves = Vec::new();
    game.legal_moves(&mut moves);
    let mut buffers = Vec::new();
    moves
        .into_iter()
        .map(|mv| {
            game.play(mv);
            let n = if game.outcome().is_some() {
                Some(1)
            } else {
                count(game, depth - 1, 0, &mut buffers, &mut |_| {})
            };
            game.undo();
            (mv, n.expect("the perft count fits in a u64"))
        })
        .collect()
}

/// The leaves `depth` plies below, or `None` if they overflow a `u64`. `buffers[level]`
/// is this ply's move list, kept between calls; buffers are added as the search first
/// reaches a ply, so a depth beyond the game's end costs nothing. `progress` hears of
/// leaves as [`try_perft_with_progress`] says.
fn count<G: Game>(
    game: &mut G,
    depth: u32,
    level: usize,
    buffers: &mut Vec<Vec<G::Move>>,
    progress: &mut dyn FnMut(u64),
) -> Option<u64> {
    if depth == 0 {
        return Some(1);
    }
    if depth == 1 {
        return u64::try_from(game.count_legal_moves()).ok();
    }
    if buffers.len() <= level {
        buffers.resize_with(level + 1, || Vec::with_capacity(256));
    }
    let mut moves = std::mem::take(&mut buffers[level]);
    moves.clear();
    game.legal_moves(&mut moves);
    let mut total = Some(0u64);
    for &mv in &moves {
        game.play(mv);
        let over = game.outcome().is_some();
        let n = if over {
            Some(1)
        } else {
            count(game, depth - 1, level + 1, buffers, progress)
        };
        game.undo();
        total = total.zip(n).and_then(|(t, n)| t.checked_add(n));
        let Some(n) = n.filter(|_| total.is_some()) else {
            break;
        };
        // A child counted whole (a game-ending move, or a subtree shallow enough) is
        // reported here; a deeper child reported its own parts.
        if depth > PROGRESS_DEPTH && (over || depth - 1 <= PROGRESS_DEPTH) {
            progress(n);
        }
    }
    buffers[level] = moves;
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{GameKind, Outcome, Player};

    /// A game of `WIDTH` moves a ply that claims, through `count_legal_moves`, to have
    /// `claimed` at the last ply: with `CLAIMED`, enough to make a count overflow at
    /// depth 2 without visiting that many positions.
    #[derive(Clone, Debug)]
    struct Wide {
        played: Vec<u8>,
        claimed: usize,
    }

    impl Default for Wide {
        fn default() -> Self {
            Wide {
                played: Vec::new(),
                claimed: CLAIMED,
            }
        }
    }

    const WIDTH: u8 = 4;
    const CLAIMED: usize = 1 << 62;

    impl Game for Wide {
        type Move = u8;
        type MoveError = std::fmt::Error;

        fn kind(&self) -> GameKind {
            GameKind::Fetlar
        }
        fn to_move(&self) -> Player {
            if self.played.len().is_multiple_of(2) {
                Player::First
            } else {
                Player::Second
            }
        }
        fn ply(&self) -> usize {
            self.played.len()
        }
        fn legal_moves(&self, out: &mut Vec<u8>) {
            out.extend(0..WIDTH);
        }
        fn count_legal_moves(&self) -> usize {
            self.claimed
        }
        fn can_win(&self, _player: Player) -> bool {
            true
        }
        fn is_legal(&self, mv: u8) -> bool {
            mv < WIDTH
        }
        fn play(&mut self, mv: u8) {
            self.played.push(mv);
        }
        fn undo(&mut self) -> Option<u8> {
            self.played.pop()
        }
        fn outcome(&self) -> Option<Outcome> {
            None
        }
        fn hash(&self) -> u64 {
            self.played.len() as u64
        }
        fn parse_move(&self, _: &str) -> Result<u8, std::fmt::Error> {
            Err(std::fmt::Error)
        }
        fn format_move(&self, mv: u8) -> String {
            mv.to_string()
        }
        fn position_string(&self) -> String {
            String::new()
        }
        fn captures(&self, _: u8) -> u32 {
            0
        }
    }

    #[test]
    fn a_count_that_does_not_fit_is_none_and_the_game_is_left_as_found() {
        let mut game = Wide::default();
        assert_eq!(try_perft(&mut game, 1), Some(CLAIMED as u64));
        // Three of the four replies fit (3 * 2^62); the fourth would make 2^64.
        assert_eq!(try_perft(&mut game, 2), None);
        assert_eq!(game.ply(), 0);
        assert_eq!(try_perft(&mut game, 0), Some(1));
    }

    #[test]
    fn progress_hears_of_each_subtree_of_its_depth() {
        let mut game = Wide {
            played: Vec::new(),
            claimed: 2,
        };
        let mut heard = Vec::new();
        // Depth 4: four subtrees of three plies, each 4 * 4 * 2 leaves.
        let n = try_perft_with_progress(&mut game, 4, &mut |leaves| heard.push(leaves));
        assert_eq!(n, Some(128));
        assert_eq!(heard, [32, 32, 32, 32]);
        assert_eq!(game.ply(), 0);
    }

    #[test]
    #[should_panic(expected = "fits in a u64")]
    fn perft_refuses_to_wrap() {
        perft(&mut Wide::default(), 2);
    }
}
