//! The subcommands.

pub mod moves;
pub mod perft;
pub mod replay;
