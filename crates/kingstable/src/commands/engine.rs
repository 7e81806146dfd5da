//! `kingstable engine`: the engine for other programs, speaking UGI on standard input
//! and output (all three games), or with `--otep` the OpenTafl Engine Protocol (Fetlar
//! and Copenhagen). The protocols live in the `protocol` crate; `docs/PROTOCOL.md`
//! describes them.

use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;
use protocol::otep::OtepSettings;
use protocol::{EngineSettings, Level};

/// Options of `kingstable engine`.
#[derive(Args, Debug)]
pub struct EngineArgs {
    /// Speak the OpenTafl Engine Protocol (for OpenTafl) instead of UGI.
    #[arg(long)]
    pub otep: bool,
    /// Starting level: 1-6 or beginner, casual, club, expert, master, maximum (UGI can
    /// change it with `setoption name Level`).
    #[arg(long, default_value = "maximum")]
    pub level: Level,
    /// Search threads (UGI option Threads).
    #[arg(long, default_value_t = 1, value_parser = crate::threads::parse_threads)]
    pub threads: usize,
    /// Transposition table size in MB, 1-65536 (UGI option Hash).
    #[arg(long, default_value_t = protocol::DEFAULT_HASH_MB, value_parser = crate::threads::parse_hash)]
    pub hash: usize,
    /// OTEP: milliseconds per move when OpenTafl sends no clock.
    #[arg(long, default_value_t = 5000)]
    pub movetime: u64,
}

/// Runs the protocol until the peer quits or closes standard input.
pub fn run(args: &EngineArgs) -> Result<()> {
    let engine = EngineSettings {
        level: args.level,
        hash_mb: args.hash,
        threads: args.threads,
        ..EngineSettings::default()
    };
    if args.otep {
        protocol::run_otep_stdio(OtepSettings {
            engine,
            move_time: Duration::from_millis(args.movetime.max(1)),
        })
    } else {
        protocol::run_ugi_stdio(engine)
    }
    .context("reading standard input")
}
