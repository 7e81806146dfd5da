//! Perft: the number of move sequences of a given length, the correctness contract of a
//! move generator. A move that ends the game is a leaf (it is counted, not expanded).

use crate::Game;

/// Counts the leaves of the game tree `depth` plies deep from the current position.
///
/// A move that ends the game counts as one leaf whatever depth remains. `perft(0)` is 1.
/// The game is left as it was found.
pub fn perft<G: Game>(game: &mut G, depth: u32) -> u64 {
    let mut buffers = vec![Vec::with_capacity(256); depth as usize + 1];
    count(game, depth, &mut buffers)
}

/// Perft split by first move: each legal move with the number of leaves below it, in
/// move-generation order. The sum is `perft(depth)`. Empty for `depth == 0`.
pub fn perft_divide<G: Game>(game: &mut G, depth: u32) -> Vec<(G::Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    let mut moves = Vec::new();
    game.legal_moves(&mut moves);
    let mut buffers = vec![Vec::with_capacity(256); depth as usize];
    moves
        .into_iter()
        .map(|mv| {
            game.play(mv);
            let n = if game.outcome().is_some() {
                1
            } else {
                count(game, depth - 1, &mut buffers)
            };
            game.undo();
            (mv, n)
        })
        .collect()
}

fn count<G: Game>(game: &mut G, depth: u32, buffers: &mut [Vec<G::Move>]) -> u64 {
    if depth == 0 {
        return 1;
    }
    if depth == 1 {
        return game.count_legal_moves() as u64;
    }
    let (moves, rest) = buffers
        .split_last_mut()
        .expect("one buffer per remaining ply");
    moves.clear();
    game.legal_moves(moves);
    let mut total = 0;
    for &mv in moves.iter() {
        game.play(mv);
        total += if game.outcome().is_some() {
            1
        } else {
            count(game, depth - 1, rest)
        };
        game.undo();
    }
    total
}
