//! The subcommands.

pub mod admin;
pub mod analyze;
pub mod backup;
pub mod bench;
pub mod convert;
pub mod engine;
pub mod levels;
pub mod matches;
pub mod migrate;
pub mod moves;
pub mod perft;
pub mod replay;
pub mod serve;
