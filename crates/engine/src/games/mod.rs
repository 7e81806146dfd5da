//! One evaluation per game.
//!
//! One module per game: [`tafl`] for Fetlar and Copenhagen Hnefatafl, [`camelot`] for
//! Camelot; [`tafl_net`], the learned correction to the tafl evaluation.

pub mod camelot;
pub mod camelot_net;
pub mod tafl;
pub mod tafl_net;
