//! What the terminal game's AI needs to know about a game: its search
//! ([`engine::EngineGame`]), the game's board ([`games::Board`]) and how its moves become
//! the runtime game's ([`games::AnyMove`]), which the session plays.

use games::AnyMove;

pub use games::{Cell, Mark, Square as Sq};

/// A game the AI can search for the terminal game.
pub trait PlayGame: engine::EngineGame + games::Board {
    /// `mv` as a move of the runtime game.
    fn any_move(mv: Self::Move) -> AnyMove;
}

impl<G> PlayGame for G
where
    G: engine::EngineGame + games::Board,
    G::Move: Into<AnyMove>,
{
    fn any_move(mv: G::Move) -> AnyMove {
        mv.into()
    }
}
