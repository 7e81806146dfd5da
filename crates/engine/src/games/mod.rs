//! One evaluation per game.
//!
//! One module per game: [`tafl`] for Fetlar and Copenhagen Hnefatafl, [`camelot`] for
//! Camelot.

pub mod camelot;
pub mod tafl;
