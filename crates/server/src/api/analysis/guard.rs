//! Analysis is kept out of games being played: the engine is not run on a game that is
//! still going (asked by its id), nor on a position a game being played stands in now,
//! nor on one a single move from it (what a player would try their candidate moves
//! on), until that game ends. This holds for everyone, players and spectators alike:
//! in a rated game the engine would be a second player.
//!
//! Positions are compared as the board draws them (each square's piece and the side to
//! move), against the latest state each live game publishes (its feed: no owner is
//! asked), whatever game they are asked under: Fetlar and Copenhagen share their board,
//! and the engine's view of a Copenhagen position under Fetlar's rules would still help. The first [`OPENING_PLIES`] plies of a game are not guarded: their positions
//! are shared by many games and are in every opening book, and guarding them would shut
//! the start position out of analysis whenever someone somewhere has just begun.

use std::collections::HashSet;

use game::{Game, Player};
use games::{AnyGame, BoardView, PieceKind, Square};

use crate::live::GameStatusView;
use crate::state::AppState;

/// A game being played is guarded once it has this many plies.
pub const OPENING_PLIES: usize = 6;

/// What a position is compared by: each square's piece (rank by rank, as
/// [`BoardView::cells`]) and the side to move.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Placement {
    pieces: Vec<Option<(Player, PieceKind)>>,
    to_move: Player,
}

impl Placement {
    fn of_game(game: &AnyGame) -> Placement {
        let (files, ranks) = (game.files(), game.ranks());
        let pieces = (0..ranks)
            .flat_map(|rank| (0..files).map(move |file| Square::new(file, rank)))
            .map(|sq| game.cell(sq).piece)
            .collect();
        Placement {
            pieces,
            to_move: game.to_move(),
        }
    }

    fn of_view(board: &BoardView) -> Placement {
        Placement {
            pieces: board.cells.iter().map(|cell| cell.piece).collect(),
            to_move: board.to_move,
        }
    }

    /// Whether this position can follow `before` by one move of its side to move: one
    /// of the mover's pieces left one square for another that was empty, and nothing
    /// else changed but opponent's pieces taken off. (What the rules allow is not
    /// asked: a position shaped like a move from a live one is enough to refuse.)
    fn follows(&self, before: &Placement) -> bool {
        let mover = before.to_move;
        if self.to_move != mover.other() || self.pieces.len() != before.pieces.len() {
            return false;
        }
        let (mut left, mut arrived) = (None, None);
        for (was, now) in before.pieces.iter().zip(&self.pieces) {
            match (was, now) {
                _ if was == now => {}
                (Some(piece), None) if piece.0 == mover => {
                    if left.replace(*piece).is_some() {
                        return false;
                    }
                }
                (None, Some(piece)) if piece.0 == mover => {
                    if arrived.replace(*piece).is_some() {
                        return false;
                    }
                }
                // A capture.
                (Some(piece), None) if piece.0 != mover => {}
                _ => return false,
            }
        }
        left.is_some() && left == arrived
    }
}

/// The positions of the games being played now that are guarded.
fn live_positions(state: &AppState) -> Vec<Placement> {
    state
        .live
        .handles()
        .iter()
        .filter_map(|handle| {
            let snapshot = handle.feed().snapshot();
            let view = &snapshot.view;
            (view.status == GameStatusView::Ongoing && view.moves.len() >= OPENING_PLIES)
                .then(|| Placement::of_view(&view.board))
        })
        .collect()
}

/// Whether the engine may not look at the line from `start` through `moves` (legal,
/// already checked): the line passes through a position a game being played stands in
/// now, or ends one move after it.
pub(super) fn touches_live_game(state: &AppState, start: &AnyGame, moves: &[String]) -> bool {
    let live = live_positions(state);
    if live.is_empty() {
        return false;
    }
    let mut game = start.clone();
    let mut line = HashSet::with_capacity(moves.len() + 1);
    line.insert(Placement::of_game(&game));
    for text in moves {
        if game.try_play(text).is_err() {
            break;
        }
        line.insert(Placement::of_game(&game));
    }
    let last = Placement::of_game(&game);
    live.iter()
        .any(|position| line.contains(position) || last.follows(position))
}

/// Whether the game `id` is being played (or waits for its second player) now.
pub(super) fn is_live_game(state: &AppState, id: &str) -> bool {
    state.live.handle(id).is_some_and(|handle| {
        matches!(
            handle.feed().snapshot().view.status,
            GameStatusView::Ongoing | GameStatusView::Waiting
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use game::GameKind;

    fn after(kind: GameKind, moves: &[&str]) -> AnyGame {
        let mut game = AnyGame::start(kind);
        for text in moves {
            game.try_play(text).expect("a legal move");
        }
        game
    }

    #[test]
    fn a_position_one_move_on_follows_it() {
        for (kind, first, second) in [
            (GameKind::Copenhagen, "d1-d3", "f4-c4"),
            (GameKind::Fetlar, "d1-d3", "f4-c4"),
            (GameKind::Camelot, "D6-F8", "H11-F9"),
        ] {
            let start = Placement::of_game(&AnyGame::start(kind));
            let one = Placement::of_game(&after(kind, &[first]));
            let two = Placement::of_game(&after(kind, &[first, second]));
            assert!(one.follows(&start), "{kind}: one move on");
            assert!(two.follows(&one), "{kind}: the reply");
            assert!(!two.follows(&start), "{kind}: two moves on is not one");
            assert!(!start.follows(&start), "{kind}: the same position");
            assert!(!start.follows(&one), "{kind}: one move back");
        }
    }

    #[test]
    fn a_capture_follows_the_position_before_it() {
        // Copenhagen game 60 of the aagenielsen.dk archive: the defenders' second move
        // takes an attacker.
        let mut game = AnyGame::start(GameKind::Copenhagen);
        game.try_play("k8-g8").expect("a legal move");
        let before = Placement::of_game(&game);
        let info = game.try_play("h6-h8xg8").expect("a legal move");
        assert_eq!(info.captures.len(), 1);
        assert!(Placement::of_game(&game).follows(&before));
    }
}
