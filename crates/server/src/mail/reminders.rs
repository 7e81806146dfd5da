//! Reminders for correspondence games: a daily digest of the games waiting for a
//! player's move (at most one a day, only when something waits), and a warning when a
//! player's correspondence clock is below a quarter of its time (at most one per game
//! and turn). What was sent is stored before it is queued ([`Store::claim_digest`],
//! [`Store::claim_clock_warning`]), so a restart, or a second server on the same
//! database, never sends it again.
//!
//! The games are read from what each live game last published (its feed's snapshot):
//! the owners are never asked, so a scan costs the games nothing.
//!
//! [`Store::claim_digest`]: crate::Store::claim_digest
//! [`Store::claim_clock_warning`]: crate::Store::claim_clock_warning

use std::collections::BTreeMap;
use std::time::Duration;

use session::{TimeControl, Timestamp};

use super::messages::{self, WaitingGame};
use super::{Mailer, Outgoing};
use crate::live::GameStatusView;
use crate::state::AppState;
use crate::store::{StoreError, day_of};

/// How often the reminders look, unless told otherwise.
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(600);
/// The shortest and longest interval accepted (a clock warning comes at most this late).
pub const INTERVAL_BOUNDS: (Duration, Duration) =
    (Duration::from_secs(1), Duration::from_secs(3600));

/// What one scan queued.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScanReport {
    /// Digests queued.
    pub digests: usize,
    /// Clock warnings queued.
    pub warnings: usize,
}

/// A turn waiting for a user's move in a correspondence game.
struct Waiting {
    game: WaitingGame,
    /// Moves played when the turn began (names the turn).
    ply: u32,
    /// Below a quarter of the time, on a clock that counts.
    low: bool,
}

/// The correspondence games waiting for a user's move at `now`, by user id.
fn waiting_turns(state: &AppState, now: Timestamp) -> BTreeMap<String, Vec<Waiting>> {
    let mut waiting: BTreeMap<String, Vec<Waiting>> = BTreeMap::new();
    for handle in state.live.handles() {
        let snapshot = handle.feed().snapshot();
        if snapshot.view.status != GameStatusView::Ongoing {
            continue;
        }
        let Some(clocks) = snapshot.clocks.as_ref() else {
            continue;
        };
        let control = clocks.control();
        if !matches!(control, TimeControl::Correspondence { .. }) {
            continue;
        }
        let (Some(player), Some(total)) = (clocks.running_player(), control.initial()) else {
            continue;
        };
        let Some(user_id) = snapshot.seats[player.index()].user_id.clone() else {
            continue;
        };
        let Some(left) = clocks.remaining(player, now) else {
            continue;
        };
        let opponent = &snapshot.seats[player.other().index()];
        let opponent = opponent
            .username
            .clone()
            .or_else(|| opponent.guest_name.clone())
            .unwrap_or_else(|| "the computer".to_owned());
        waiting.entry(user_id).or_default().push(Waiting {
            game: WaitingGame {
                id: snapshot.view.id.clone(),
                kind: snapshot.view.kind,
                opponent,
                left,
            },
            ply: u32::try_from(snapshot.view.moves.len()).unwrap_or(u32::MAX),
            // A clock that waits for its player's first move never falls.
            low: clocks.is_started(player) && left < total / 4,
        });
    }
    waiting
}

/// Looks once, at `now` (ms since the Unix epoch), for digests and warnings due, and
/// queues them. Tests pass a time to see what a later scan would send.
///
/// # Errors
/// On a database failure (what was queued before it stays queued).
pub async fn scan(state: &AppState, mailer: &Mailer, now: i64) -> Result<ScanReport, StoreError> {
    let at = Timestamp::from_millis(u64::try_from(now).unwrap_or(0));
    let mut waiting = waiting_turns(state, at);
    let mut report = ScanReport::default();
    if waiting.is_empty() {
        return Ok(report);
    }
    let ids: Vec<String> = waiting.keys().cloned().collect();
    let base = mailer.base_url();
    for recipient in state.store.mail_recipients(&ids).await? {
        let Some(mut turns) = waiting.remove(&recipient.user_id) else {
            continue;
        };
        let Ok(to) = recipient.email.parse::<lettre::Address>() else {
            tracing::warn!(user = %recipient.username, "a stored address does not parse: no reminder");
            continue;
        };
        turns.sort_by_key(|t| t.game.left);
        if recipient.clock_warning {
            for turn in turns.iter().filter(|t| t.low) {
                if state
                    .store
                    .claim_clock_warning(&turn.game.id, &recipient.user_id, turn.ply, now)
                    .await?
                {
                    let text = messages::clock_warning(
                        messages::Lang::of_stored(recipient.lang.as_deref()),
                        base,
                        &recipient.username,
                        &turn.game,
                    );
                    mailer.send(Outgoing {
                        to: to.clone(),
                        subject: text.subject,
                        body: text.body,
                        kind: "clock_warning",
                    });
                    report.warnings += 1;
                }
            }
        }
        // Today's digest already sent: no need to ask the database (a write) again.
        let due = recipient.digest && recipient.digest_day.is_none_or(|day| day < day_of(now));
        if due
            && state
                .store
                .claim_digest(&recipient.user_id, day_of(now))
                .await?
        {
            let games: Vec<WaitingGame> = turns.into_iter().map(|t| t.game).collect();
            let text = messages::digest(
                messages::Lang::of_stored(recipient.lang.as_deref()),
                base,
                &recipient.username,
                &games,
            );
            mailer.send(Outgoing {
                to,
                subject: text.subject,
                body: text.body,
                kind: "digest",
            });
            report.digests += 1;
        }
    }
    Ok(report)
}

/// Scans every `interval` (bounded by [`INTERVAL_BOUNDS`]) until shutdown.
pub fn spawn(state: &AppState) {
    let Some(mailer) = state.mailer.clone() else {
        return;
    };
    let interval = mailer
        .config()
        .reminder_interval
        .clamp(INTERVAL_BOUNDS.0, INTERVAL_BOUNDS.1);
    let state_for_task = state.clone();
    state.tasks.spawn(async move {
        let state = state_for_task;
        let mut tick = tokio::time::interval(interval);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                () = state.shutdown.cancelled() => break,
                _ = tick.tick() => {
                    match scan(&state, &mailer, crate::store::now_ms()).await {
                        Ok(report) if report != ScanReport::default() => {
                            tracing::info!(digests = report.digests, warnings = report.warnings, "reminders queued");
                        }
                        Ok(_) => {}
                        Err(error) => tracing::warn!(error = %crate::error::error_chain(&error), "looking for reminders"),
                    }
                }
            }
        }
    });
}
