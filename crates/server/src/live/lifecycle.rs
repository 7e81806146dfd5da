//! How live games start and end beyond the moves (docs/API.md, "How games start and
//! end"): who of the players is here ([`Presence`], for claims against a player who
//! left), a backed-off retry for timer writes that fail ([`Retry`]), the expiry of
//! unjoined and abandoned games and of unused guests (the maintenance job), and the
//! downtime given back to the clocks on resume. The rules of the session itself (first
//! moves, claims, abandonment) live in the `session` crate; this is what needs the
//! server: sockets, the database, the wall clock.

use std::time::Duration;

use game::Player;
use session::{Session, TimeControl, Timestamp};

use super::messages::AbsenceView;
use super::{Command, millis, session_json};
use crate::state::AppState;
use crate::store::{GameRecord, StoreError, now_ms};

/// How long a player of a live game may be gone (every socket of theirs closed) before
/// the opponent may claim the game; shorter in games whose base time is shorter.
pub const CLAIM_AFTER: Duration = Duration::from_secs(30);
/// How long a game may wait for its second player before it expires (is aborted).
pub const UNJOINED_EXPIRE_AFTER: Duration = Duration::from_secs(24 * 3600);
/// How long a guest with no game, no challenge and no account is kept.
pub const GUEST_PURGE_AFTER: Duration = Duration::from_secs(30 * 86_400);
/// How often the server writes its heartbeat (the downtime given back on resume is
/// exact to within this).
pub const HEARTBEAT_PERIOD: Duration = Duration::from_secs(5);
/// The first wait before a failed timer write (a flag fall, a first-move abort) is tried
/// again; it doubles on each failure up to [`RETRY_MAX`].
pub const RETRY_FIRST: Duration = Duration::from_millis(100);
/// The longest wait between tries of a failed timer write.
pub const RETRY_MAX: Duration = Duration::from_secs(30);

/// How long the opponent waits before claiming against a player who left a game under
/// `control`: [`CLAIM_AFTER`], or the base time if shorter; `None` when claims do not
/// apply (correspondence and untimed games are not played in one sitting).
#[must_use]
pub fn claim_wait(control: TimeControl) -> Option<Duration> {
    match control {
        TimeControl::Fischer { base, .. } => Some(base.min(CLAIM_AFTER)),
        _ => None,
    }
}

/// Which players of a game have a socket open, and since when each has had none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Presence {
    sockets: [usize; 2],
    gone_since: [Option<Timestamp>; 2],
}

impl Presence {
    /// Nobody here yet: both gone since `now` (a player who never comes counts as gone
    /// from when the owner started, a restart included).
    #[must_use]
    pub fn new(now: Timestamp) -> Presence {
        Presence {
            sockets: [0; 2],
            gone_since: [Some(now); 2],
        }
    }

    /// A socket of `player` opened (`change` 1) or closed (-1) at `now`; returns whether
    /// they arrived or left by it.
    pub fn change(&mut self, player: Player, change: isize, now: Timestamp) -> bool {
        let i = player.index();
        let was_here = self.sockets[i] > 0;
        self.sockets[i] = self.sockets[i].saturating_add_signed(change);
        let here = self.sockets[i] > 0;
        if here {
            self.gone_since[i] = None;
        } else if was_here {
            self.gone_since[i] = Some(now);
        }
        here != was_here
    }

    /// Whether either player has a socket open.
    #[must_use]
    pub fn anyone_here(&self) -> bool {
        self.sockets.iter().any(|&n| n > 0)
    }

    /// Since when `player` has had no socket open (`None`: they are here).
    #[must_use]
    pub fn gone_since(&self, player: Player) -> Option<Timestamp> {
        self.gone_since[player.index()]
    }
}

/// When the opponent of `gone` may claim against them in `session` (of `record`), if
/// they have left and a claim applies: a live game going on in which both sides have
/// moved, and `gone` is no AI.
#[must_use]
pub fn claim_at(
    presence: &Presence,
    record: &GameRecord,
    session: &Session,
    gone: Player,
) -> Option<Timestamp> {
    let wait = claim_wait(session.options().control)?;
    let claimable = session.is_ongoing()
        && !session.can_abort()
        && record.seat(gone).ai_level.is_none()
        && record.seat(gone.other()).ai_level.is_none();
    claimable
        .then(|| presence.gone_since(gone))
        .flatten()
        .map(|since| since + wait)
}

/// The players who have left `session` and can be claimed against, as clients see it
/// at `now`.
#[must_use]
pub fn absent(
    presence: &Presence,
    record: &GameRecord,
    session: Option<&Session>,
    now: Timestamp,
) -> Vec<AbsenceView> {
    let Some(session) = session else {
        return Vec::new();
    };
    Player::BOTH
        .into_iter()
        .filter_map(|side| {
            let at = claim_at(presence, record, session, side)?;
            Some(AbsenceView {
                side,
                claim_in_ms: millis_u64(at.saturating_duration_since(now)),
            })
        })
        .collect()
}

fn millis_u64(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// A write that a timer makes (a flag fall, a first-move abort) and that failed: the
/// next try waits [`RETRY_FIRST`], doubling up to [`RETRY_MAX`], instead of spinning.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Retry {
    wait: Option<Duration>,
}

impl Retry {
    /// The write failed again: how long to wait before the next try.
    pub fn failed(&mut self) -> Duration {
        let wait = self
            .wait
            .map_or(RETRY_FIRST, |wait| (wait * 2).min(RETRY_MAX));
        self.wait = Some(wait);
        wait
    }

    /// The write succeeded (or is no longer due): the next failure waits the least.
    pub fn succeeded(&mut self) {
        self.wait = None;
    }
}

/// The maintenance job's part for games and guests, at `now` (ms since the Unix epoch):
/// games waiting for a second player for [`UNJOINED_EXPIRE_AFTER`] and untimed games
/// with no move for [`session::ABANDONED_AFTER`] are aborted by their owners (which
/// check again: a move may have come since), and guests unused for
/// [`GUEST_PURGE_AFTER`] are deleted.
///
/// # Errors
/// On a database failure.
pub async fn expire_stale(state: &AppState, now: i64) -> Result<ExpiryReport, StoreError> {
    let ago = |d: Duration| now.saturating_sub(i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    let mut ids = state
        .store
        .unjoined_games_before(ago(UNJOINED_EXPIRE_AFTER))
        .await?;
    ids.extend(
        state
            .store
            .idle_untimed_games(ago(session::ABANDONED_AFTER))
            .await?,
    );
    let mut report = ExpiryReport::default();
    for id in ids {
        let at = Timestamp::from_millis(millis(now));
        match state.live.handle(&id) {
            Some(handle) => {
                if handle.send(Command::Expire { now: at }).await {
                    report.games += 1;
                }
            }
            // No owner (a game that could not be resumed): nothing to tell, only to end.
            None => match state.store.abort_game(&id, None, now).await {
                Ok(()) => report.games += 1,
                // Another server process owns it: that one ends it.
                Err(StoreError::Fenced(_)) => {}
                Err(error) => return Err(error),
            },
        }
    }
    report.guests = state
        .store
        .purge_idle_guests(ago(GUEST_PURGE_AFTER))
        .await?;
    Ok(report)
}

/// What one run of [`expire_stale`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExpiryReport {
    /// Games told to expire (their owners abort them if they still should).
    pub games: usize,
    /// Guests deleted.
    pub guests: u64,
}

/// Where the server's downtime began: its last heartbeat, if it ever wrote one.
pub(crate) async fn down_since(state: &AppState) -> Option<Timestamp> {
    match state.store.last_heartbeat().await {
        Ok(beat) => beat.map(|ms| Timestamp::from_millis(millis(ms))),
        Err(error) => {
            tracing::warn!(%error, "reading the heartbeat: no downtime given back");
            None
        }
    }
}

/// Gives the time from `from` (the last heartbeat) until now back to the running clock
/// of a resumed game, and stores that, so that the server's downtime is charged to
/// nobody.
pub(crate) async fn give_back_downtime(
    state: &AppState,
    id: &str,
    session: &mut Session,
    from: Timestamp,
) {
    let now = now_ms();
    if let Some(paused) = session.resume(from, Timestamp::from_millis(millis(now))) {
        tracing::info!(game = %id, paused_ms = paused.as_millis(), "downtime given back");
        if let Err(error) = state
            .store
            .save_session_state(id, &session_json(session), now)
            .await
        {
            tracing::error!(game = %id, %error, "storing the downtime given back");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: u64) -> Timestamp {
        Timestamp::from_millis(1_700_000_000_000 + s * 1000)
    }

    #[test]
    fn a_player_is_gone_once_their_last_socket_closes() {
        let mut p = Presence::new(at(0));
        assert_eq!(p.gone_since(Player::First), Some(at(0)));
        assert!(p.change(Player::First, 1, at(1)));
        assert!(!p.change(Player::First, 1, at(2)), "a second tab");
        assert_eq!(p.gone_since(Player::First), None);
        assert!(!p.change(Player::First, -1, at(3)));
        assert_eq!(p.gone_since(Player::First), None);
        assert!(p.change(Player::First, -1, at(4)));
        assert_eq!(p.gone_since(Player::First), Some(at(4)));
        assert_eq!(p.gone_since(Player::Second), Some(at(0)));
        // More closes than opens (a socket the owner never counted) change nothing.
        assert!(!p.change(Player::First, -1, at(5)));
        assert_eq!(p.gone_since(Player::First), Some(at(4)));
    }

    #[test]
    fn claims_wait_thirty_seconds_or_the_base_time_in_live_games_only() {
        assert_eq!(claim_wait(TimeControl::fischer(5, 3)), Some(CLAIM_AFTER));
        let bullet: TimeControl = "0.25+0".parse().unwrap();
        assert_eq!(claim_wait(bullet), Some(Duration::from_secs(15)));
        assert_eq!(claim_wait(TimeControl::Correspondence { days: 3 }), None);
        assert_eq!(claim_wait(TimeControl::Untimed), None);
    }

    #[test]
    fn failed_timer_writes_back_off_exponentially_up_to_a_cap() {
        let mut retry = Retry::default();
        let waits: Vec<Duration> = (0..12).map(|_| retry.failed()).collect();
        assert_eq!(waits[0], RETRY_FIRST);
        assert_eq!(waits[1], RETRY_FIRST * 2);
        assert_eq!(waits[2], RETRY_FIRST * 4);
        assert!(waits.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(*waits.last().unwrap(), RETRY_MAX);
        retry.succeeded();
        assert_eq!(retry.failed(), RETRY_FIRST);
    }
}
