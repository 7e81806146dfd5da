//! Exact Fetlar and Copenhagen Hnefatafl 11x11 rules, as `docs/rules/TAFL.md`
//! states them: rook moves, custodial capture with hostile throne and corners, the armed
//! king, capture of the king by four (three beside the empty throne), corner escape,
//! encirclement, a side with no move losing, repetition, and for Copenhagen the
//! shieldwall and the exit fort.
//!
//! ```
//! use game::Game;
//! use tafl::{Position, Rules, Tafl};
//!
//! let start = Position::start();
//! assert_eq!(start.legal_moves().len(), 116);
//!
//! let mut game = Tafl::new(Rules::COPENHAGEN);
//! assert_eq!(game::perft(&mut game, 2), 6_788);
//! let mv = game.parse_move("d1-d3").unwrap();
//! game.play(mv);
//! // The attacker on d3 now blocks two of the defenders' 60 opening moves.
//! assert_eq!(game.position().legal_moves().len(), 58);
//! ```
//!
//! Positions are [`Bitboard`]s (`u128`, one bit a square), moves are generated as sets
//! per direction and distance, and [`Tafl`] keeps the history that repetition needs and
//! an undo stack. Nothing here is global: every type is `Send + Sync`.

mod bitboard;
mod game;
pub mod notation;
pub mod otg;
mod position;
mod rules;
mod square;
mod zobrist;

pub use crate::bitboard::{Bitboard, Squares};
pub use crate::game::{MoveError, PlayResult, Tafl};
pub use crate::position::{
    ATTACKERS, DEFENDERS, IllegalReason, Move, Piece, Position, PositionError, START,
};
pub use crate::rules::{ParseVariantError, Repetition, Rules, Variant};
pub use crate::square::{Direction, ParseSquareError, SIZE, Square};
