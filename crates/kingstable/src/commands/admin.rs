//! `kingstable admin`: account care and chat moderation on the server's database, for
//! installs without e-mail or for the person who runs the site: set a new password, make
//! a user a moderator or not, ban, unban or mute an account in chat, list reported
//! messages. It opens the database `kingstable serve` uses (same `--database`
//! option and environment variable), which may be in use by a running server.

use std::io::BufRead;

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand, ValueEnum};

use server::admin::ChatAction;
use server::auth::{Password, hash_password_blocking};
use server::{DatabaseUrl, Store};

/// Options of `kingstable admin`.
#[derive(Args, Debug)]
pub struct AdminArgs {
    /// Database, as for `kingstable serve`: a SQLite file path or `sqlite:FILE`, or
    /// `postgres://USER:PASSWORD@HOST/DB`.
    #[arg(
        long,
        global = true,
        env = "KINGSTABLE_DATABASE",
        default_value = "kingstable.db",
        hide_env_values = true
    )]
    pub database: DatabaseUrl,
    #[command(subcommand)]
    pub action: AdminAction,
}

/// What to do.
#[derive(Subcommand, Debug)]
pub enum AdminAction {
    /// Give USER a new password and end every sign-in of theirs. Prints a new random
    /// password, or with --stdin reads the new one from the first line of standard input.
    ResetPassword {
        /// The username (any case).
        user: String,
        /// Read the new password from standard input instead of making one.
        #[arg(long)]
        stdin: bool,
    },
    /// Give USER a role.
    Grant {
        /// The role.
        role: Role,
        /// The username (any case).
        user: String,
    },
    /// Take a role from USER.
    Revoke {
        /// The role.
        role: Role,
        /// The username (any case).
        user: String,
    },
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

/// A role a user may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Role {
    /// Moderates chat.
    Moderator,
}

/// Runs one admin action.
pub fn run(args: AdminArgs) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        // A SQLite file is opened, never created: a mistyped path is an error.
        let database = match args.database.backend() {
            server::Backend::Sqlite => args
                .database
                .connection_string()
                .replace("mode=rwc", "mode=rw")
                .parse::<DatabaseUrl>()
                .unwrap_or(args.database),
            server::Backend::Postgres => args.database,
        };
        let store = Store::open(&database, 1)
            .await
            .with_context(|| format!("opening the database {database}"))?;
        let done = act(&store, args.action).await;
        store.close().await;
        done
    })
}

async fn act(store: &Store, action: AdminAction) -> Result<()> {
    match action {
        AdminAction::ResetPassword { user, stdin } => {
            let found = find(store, &user).await?;
            let (text, made) = if stdin {
                let mut line = String::new();
                std::io::stdin()
                    .lock()
                    .read_line(&mut line)
                    .context("reading the new password from standard input")?;
                (line.trim_end_matches(['\r', '\n']).to_owned(), false)
            } else {
                // About 119 bits: letters and digits only, easy to pass on.
                (server::store::random_id(20), true)
            };
            let password = Password::new(text.clone());
            if let Err(error) = password.check_new(&found.username) {
                bail!("{}", error.message);
            }
            let hash = hash_password_blocking(&password)
                .map_err(|e| anyhow::anyhow!("hashing the password: {e}"))?;
            store.set_password_hash(&found.id, &hash, None).await?;
            if made {
                println!("{text}");
            }
            eprintln!(
                "The password of {} is reset and every sign-in of theirs ended.",
                found.username
            );
        }
        AdminAction::Grant { role, user } => set_role(store, role, &user, true).await?,
        AdminAction::Revoke { role, user } => set_role(store, role, &user, false).await?,
        AdminAction::Ban { user } => moderate(store, ChatAction::Ban(user)).await?,
        AdminAction::Unban { user } => moderate(store, ChatAction::Unban(user)).await?,
        AdminAction::Mute { user, minutes } => {
            moderate(store, ChatAction::Mute(user, minutes)).await?;
        }
        AdminAction::Reports { limit } => moderate(store, ChatAction::Reports(limit)).await?,
    }
    Ok(())
}

/// A chat moderation action (`server::admin`), its outcome printed.
async fn moderate(store: &Store, action: ChatAction) -> Result<()> {
    let said = server::admin::run(store, &action).await?;
    println!("{said}");
    Ok(())
}

async fn set_role(store: &Store, role: Role, user: &str, on: bool) -> Result<()> {
    let found = find(store, user).await?;
    match role {
        Role::Moderator => {
            if !store.set_moderator(&found.id, on).await? {
                bail!("no user named {user:?}");
            }
        }
    }
    println!(
        "{} {} a moderator.",
        found.username,
        if on { "is now" } else { "is no longer" }
    );
    Ok(())
}

async fn find(store: &Store, user: &str) -> Result<server::store::User> {
    store
        .user_by_name(user)
        .await?
        .with_context(|| format!("no user named {user:?}"))
}
