//! A brute-force proof of forced wins: plain minimax over every legal move, with no
//! evaluation, ordering or tables. It is the independent reference the engine's tactics
//! suites are checked against (a suite position must really be a win in exactly N), and
//! the tool that finds such positions; it is far too slow to play with.

use crate::{Game, Player};

/// Whether `winner` can force a win within `plies` plies from the current position,
/// whoever is to move (a position already won for `winner` counts at 0 plies). The game
/// is left as it was found.
pub fn forced_win_within<G: Game>(game: &mut G, winner: Player, plies: u32) -> bool {
    let mut buffers = vec![Vec::new(); plies as usize + 1];
    prove(game, winner, plies, &mut buffers)
}

/// The shortest forced win for `winner` in at most `max_plies` plies: `Some(n)`, or `None`
/// if there is none that short. `n` has the parity of the winner's moves (odd when the
/// winner is to move).
pub fn shortest_forced_win<G: Game>(game: &mut G, winner: Player, max_plies: u32) -> Option<u32> {
    let first = if game.outcome().is_some() {
        0
    } else if game.to_move() == winner {
        1
    } else {
        2
    };
    (first..=max_plies)
        .step_by(2)
        .find(|&n| forced_win_within(game, winner, n))
}

fn prove<G: Game>(game: &mut G, winner: Player, plies: u32, buffers: &mut [Vec<G::Move>]) -> bool {
    if let Some(outcome) = game.outcome() {
        return outcome.winner == Some(winner);
    }
    if plies == 0 {
        return false;
    }
    let (moves, rest) = buffers.split_first_mut().expect("a buffer per ply");
    moves.clear();
    game.legal_moves(moves);
    let attacking = game.to_move() == winner;
    // The winner needs one move that wins; the other side loses only if every move does
    // (a side without moves has lost or drawn by the rules, which `outcome` saw).
    let mut result = !attacking;
    for &mv in moves.iter() {
        game.play(mv);
        let won = prove(game, winner, plies - 1, rest);
        game.undo();
        if won == attacking {
            result = attacking;
            break;
        }
    }
    result
}
