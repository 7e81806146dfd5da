//! The subcommands.

pub mod analyze;
pub mod bench;
pub mod chat_admin;
pub mod convert;
pub mod engine;
pub mod matches;
pub mod moves;
pub mod perft;
pub mod replay;
pub mod serve;
