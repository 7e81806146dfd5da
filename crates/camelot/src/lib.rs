//! Camelot, exactly as the World Camelot Federation plays it: the 160-square board,
//! knights and men, plain moves, canters, jumps and knight's charges with every
//! obligation (compulsory capture, continuing jumps, the knight's duty to jump, the
//! castles), the ways a game ends, WCF notation and game scores.
//!
//! The rules implemented are `docs/rules/CAMELOT.md` in the repository; its numbered points (R1–R4,
//! S1–S10, W1–W3, D1–D4) are cited in the code and each has tests named after it.
//!
//! ```
//! use camelot::{Camelot, Position};
//! use game::{Game, Player};
//!
//! let mut game = Camelot::start();
//! let mut moves = Vec::new();
//! game.legal_moves(&mut moves);
//! assert_eq!(moves.len(), 100); // the WCF's 100 first moves
//!
//! // Any valid path is accepted, in either case; the canonical one is written back.
//! let mv = game.parse_move("e7-e8").unwrap();
//! assert_eq!(game.format_move(mv), "E7-E8");
//! game.play(mv);
//! // E7-E8 is one of the WCF's fourteen first moves that lose material: Black's knight
//! // charges, cantering over E10 and jumping E8 and F6.
//! let charge = game.parse_move("C11-E9xE7xG5").unwrap();
//! assert_eq!(game.captures(charge), 2);
//! game.play(charge);
//! // Now White can jump, so it must capture (S4).
//! let err = game.parse_move("C6-C5").unwrap_err();
//! assert_eq!(err.to_string(), "C6-C5 is illegal: capture is compulsory: the piece on G6 can jump (S4)");
//!
//! // Positions are read and written as position strings.
//! let pos: Position = camelot::START_FEN.parse().unwrap();
//! assert_eq!(pos.side_to_move(), Player::First);
//! ```
//!
//! Modules, one concept each: [`square`] (squares and directions), [`bitboard`] (sets of
//! squares), [`position`] (the checked position and playing moves), [`setup`] (the
//! unchecked one), [`fen`] (position strings), [`movegen`] (legal moves), [`notation`]
//! (WCF move paths), [`outcome`] (how games end), [`zobrist`] (hashing),
//! [`game_state`] (the game with history, implementing [`game::Game`]) and [`record`]
//! (game scores).

pub mod bitboard;
pub mod fen;
pub mod game_state;
pub mod movegen;
pub mod moves;
pub mod notation;
pub mod outcome;
pub mod position;
pub mod record;
pub mod setup;
pub mod square;
mod tables;
pub mod zobrist;

pub use bitboard::Bitboard;
pub use fen::{FenError, START_FEN};
pub use game_state::Camelot;
pub use moves::Move;
pub use notation::{Illegal, MoveError, Path, PathError, Step, StepKind};
pub use position::{Piece, Position, castle};
pub use setup::{PositionError, Setup};
pub use square::{Direction, ParseSquareError, Square};
