//! `kingstable admin`: chat moderation from the command line, on the same database as
//! `kingstable serve` (a running server sees a change at the author's next message: it
//! reads the sanction from the database at every chat message).

use std::fmt::Write as _;

use crate::config::DatabaseUrl;
use crate::store::{Store, StoreError, User, now_ms};

/// The longest mute, in minutes (a year); longer is a ban.
pub const MAX_MUTE_MINUTES: u64 = 525_600;

/// What to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChatAction {
    /// Bar the account from chat until unbanned.
    Ban(String),
    /// Lift a ban (and a mute).
    Unban(String),
    /// Bar the account from chat for this many minutes.
    Mute(String, u64),
    /// List the latest reported messages.
    Reports(usize),
}

/// Why a command failed.
#[derive(Debug, thiserror::Error)]
pub enum AdminError {
    /// No account has this name.
    #[error("no account is named {0:?}")]
    NoSuchUser(String),
    /// A mute of no time, or longer than a year.
    #[error("a mute lasts 1 to {MAX_MUTE_MINUTES} minutes (for longer, ban); got {0}")]
    BadMinutes(u64),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// No runtime could be started.
    #[error("starting the runtime: {0}")]
    Io(#[from] std::io::Error),
}

/// Runs `action` on `database` and says what was done.
///
/// # Errors
/// On an unknown account, a bad duration, or a database failure; nothing changes then.
pub fn run_blocking(database: &DatabaseUrl, action: &ChatAction) -> Result<String, AdminError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let store = Store::open(database, 1).await?;
        let done = run(&store, action).await;
        store.close().await;
        done
    })
}

async fn user(store: &Store, name: &str) -> Result<User, AdminError> {
    store
        .user_by_name(name)
        .await?
        .ok_or_else(|| AdminError::NoSuchUser(name.to_owned()))
}

/// Runs `action` on `store`.
///
/// # Errors
/// As [`run_blocking`].
pub async fn run(store: &Store, action: &ChatAction) -> Result<String, AdminError> {
    let now = now_ms();
    match action {
        ChatAction::Ban(name) => {
            let user = user(store, name).await?;
            store.set_chat_ban(&user.id, true, now).await?;
            Ok(format!(
                "{} is banned from chat (from their next message, on open pages too)",
                user.username
            ))
        }
        ChatAction::Unban(name) => {
            let user = user(store, name).await?;
            store.set_chat_ban(&user.id, false, now).await?;
            Ok(format!(
                "{} may chat again (ban and mute lifted)",
                user.username
            ))
        }
        ChatAction::Mute(name, minutes) => {
            if !(1..=MAX_MUTE_MINUTES).contains(minutes) {
                return Err(AdminError::BadMinutes(*minutes));
            }
            let user = user(store, name).await?;
            let ms = i64::try_from(minutes * 60_000).unwrap_or(i64::MAX);
            store
                .mute_chat(&user.id, now.saturating_add(ms), now)
                .await?;
            Ok(format!(
                "{} is muted in chat for {minutes} minute(s)",
                user.username
            ))
        }
        ChatAction::Reports(limit) => {
            let reports = store.chat_report_list(*limit).await?;
            let mut out = String::new();
            for r in &reports {
                let _ = writeln!(
                    out,
                    "{}  {}  {}: {:?}  reported by {}{}",
                    r.reported_at,
                    if r.message.game_id.is_empty() {
                        "lobby".to_owned()
                    } else {
                        format!("game {} ({})", r.message.game_id, r.message.room)
                    },
                    r.message.author,
                    r.message.body,
                    r.reporter,
                    if r.reason.is_empty() {
                        String::new()
                    } else {
                        format!(": {:?}", r.reason)
                    }
                );
            }
            if reports.is_empty() {
                out.push_str("no reports\n");
            }
            Ok(out.trim_end().to_owned())
        }
    }
}
