//! `kingstable admin`: moderation on the server's database (the same `--database` as
//! `kingstable serve`), run beside a running server.

use anyhow::{Context, Result};
use clap::{Args, Subcommand};

use server::DatabaseUrl;
use server::admin::{ChatAction, run_blocking};

/// Options of `kingstable admin`.
#[derive(Args, Debug)]
pub struct AdminArgs {
    /// The server's database, as `kingstable serve --database` takes it.
    #[arg(
        long,
        env = "KINGSTABLE_DATABASE",
        default_value = "kingstable.db",
        hide_env_values = true,
        global = true
    )]
    pub database: DatabaseUrl,
    #[command(subcommand)]
    pub command: AdminCommand,
}

/// What `kingstable admin` does.
#[derive(Subcommand, Debug)]
pub enum AdminCommand {
    /// Bar an account from every chat room until `unban` (a running server refuses its
    /// next message, on pages already open).
    Ban {
        /// The account's name.
        user: String,
    },
    /// Lift an account's chat ban and mute.
    Unban {
        /// The account's name.
        user: String,
    },
    /// Bar an account from chat for a while.
    Mute {
        /// The account's name.
        user: String,
        /// How long, in minutes (1 to 525600).
        #[arg(long, default_value_t = 60)]
        minutes: u64,
    },
    /// List the latest reported chat messages, newest first.
    Reports {
        /// How many.
        #[arg(long, default_value_t = 50)]
        limit: usize,
    },
}

/// Runs `kingstable admin`.
///
/// # Errors
/// On an unknown account, a bad duration, or a database failure.
pub fn run(args: AdminArgs) -> Result<()> {
    let action = match args.command {
        AdminCommand::Ban { user } => ChatAction::Ban(user),
        AdminCommand::Unban { user } => ChatAction::Unban(user),
        AdminCommand::Mute { user, minutes } => ChatAction::Mute(user, minutes),
        AdminCommand::Reports { limit } => ChatAction::Reports(limit),
    };
    let said = run_blocking(&args.database, &action).context("kingstable admin")?;
    println!("{said}");
    Ok(())
}
