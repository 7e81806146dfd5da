//! Who the AI's work counts against and how much each may hold: an [`Asker`] carries
//! every identity of whoever asked (the account, the guest, the client address), each
//! bounded by [`AiQuotas`](crate::config::AiQuotas) — AI games being played, analyses
//! and reviews queued or running — in this process's pool and, through Redis, across
//! every process.

use std::net::IpAddr;

use super::pool::GameSlot;
use super::queue::Work;
use crate::live::Ident;
use crate::shared::Hold;
use crate::state::AppState;
use crate::store::{GameRecord, SeatRecord};

/// How many searches an identity's last turn is remembered for once it holds nothing
/// (then it is forgotten, memory staying bounded, and counts as never served).
pub(super) const REMEMBERED: u64 = 1024;

/// One identity a job counts against.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AiKey {
    /// An account.
    User(String),
    /// A guest.
    Guest(String),
    /// A client address.
    Addr(IpAddr),
}

impl AiKey {
    /// Its name in the shared quotas.
    fn identity(&self) -> String {
        match self {
            AiKey::User(id) => format!("u:{id}"),
            AiKey::Guest(id) => format!("g:{id}"),
            AiKey::Addr(addr) => format!("a:{addr}"),
        }
    }
}

/// Who asks for the AI's work: every identity it counts against.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Asker {
    pub(super) keys: Vec<AiKey>,
}

impl Asker {
    /// The account and guest of `ident`, and the client address if known.
    #[must_use]
    pub fn new(ident: &Ident, addr: Option<IpAddr>) -> Asker {
        let mut keys = Vec::with_capacity(3);
        keys.extend(ident.user.clone().map(AiKey::User));
        keys.extend(ident.guest.clone().map(AiKey::Guest));
        keys.extend(addr.map(AiKey::Addr));
        Asker { keys }
    }

    /// The human players of a game (for a game resumed after a restart, whose asker's
    /// address is not known any more).
    pub(super) fn of_record(record: &GameRecord) -> Asker {
        let seat_keys = |seat: &SeatRecord| {
            seat.user_id
                .clone()
                .map(AiKey::User)
                .into_iter()
                .chain(seat.guest_id.clone().map(AiKey::Guest))
        };
        Asker {
            keys: seat_keys(&record.first)
                .chain(seat_keys(&record.second))
                .collect(),
        }
    }
}

/// Why the pool refused work.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum QuotaError {
    /// The asker plays its most games against the AI.
    #[error("you are playing {0} games against the AI already: finish one first")]
    Games(usize),
    /// The asker has its most analyses running.
    #[error("you have {0} analyses running already: stop one first")]
    Analyses(usize),
    /// The asker has its most reviews running.
    #[error("you have {0} reviews running already: wait for one to finish")]
    Reviews(usize),
}

/// What one identity holds now.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Held {
    pub(super) games: usize,
    pub(super) analyses: usize,
    pub(super) reviews: usize,
    /// Searches running now.
    pub(super) running: usize,
    /// The pool's count of started searches when one of this identity's last started
    /// (0: none yet): the fair order serves the identity served longest ago first.
    pub(super) last_started: u64,
}

impl Held {
    /// Whether the identity holds nothing and was served more than [`REMEMBERED`]
    /// searches before `now` (so it can be forgotten without losing its turn).
    pub(super) const fn is_forgettable(&self, now: u64) -> bool {
        self.games == 0
            && self.analyses == 0
            && self.reviews == 0
            && self.running == 0
            && now.saturating_sub(self.last_started) > REMEMBERED
    }
}

/// Counts a game against the AI for `asker`, before it is created, in this process's
/// pool and in the quotas shared with the other processes.
///
/// # Errors
/// [`QuotaError::Games`] when one of its identities plays its most AI games.
pub(crate) async fn reserve_game(state: &AppState, asker: &Asker) -> Result<GameSlot, QuotaError> {
    let mut slot = state.ai.reserve_game(asker)?;
    slot.hold = hold(state, Work::Move, asker).await?;
    Ok(slot)
}

/// Counts one of `work` (a game for [`Work::Move`]) for `asker` in the quotas shared with
/// the other processes: `None` when there are none, or Redis does not answer (the
/// process's own pool still counts it).
///
/// # Errors
/// When one of the asker's identities holds its most of that work.
pub(crate) async fn hold(
    state: &AppState,
    work: Work,
    asker: &Asker,
) -> Result<Option<Hold>, QuotaError> {
    let Some(shared) = state.limiters.shared() else {
        return Ok(None);
    };
    let quotas = state.ai.quotas();
    let (name, cap, refusal) = match work {
        Work::Move => ("games", quotas.games, QuotaError::Games(quotas.games)),
        Work::Analysis => (
            "analyses",
            quotas.analyses,
            QuotaError::Analyses(quotas.analyses),
        ),
        Work::Review => (
            "reviews",
            quotas.reviews,
            QuotaError::Reviews(quotas.reviews),
        ),
    };
    let identities: Vec<String> = asker.keys.iter().map(AiKey::identity).collect();
    if identities.is_empty() {
        return Ok(None);
    }
    match shared.acquire(name, &identities, cap).await {
        Ok(Some(hold)) => Ok(Some(hold)),
        Ok(None) => Err(refusal),
        Err(_) => Ok(None),
    }
}
#[cfg(test)]
mod tests {
    use super::super::testing::{asker, held_job, pool, wait_until};
    use super::*;
    use std::sync::mpsc as std_mpsc;

    #[test]
    fn quotas_bound_each_identity_and_come_back() {
        let pool = pool(2);
        let (started_tx, _started) = std_mpsc::channel();
        let (a, _ra) = held_job("a", &started_tx);
        let (b, _rb) = held_job("b", &started_tx);
        let (c, _rc) = held_job("c", &started_tx);
        let first = pool
            .submit_analysis(Work::Analysis, asker("x"), None, a)
            .unwrap();
        let _second = pool
            .submit_analysis(Work::Analysis, asker("x"), None, b)
            .unwrap();
        assert_eq!(
            pool.submit_analysis(Work::Analysis, asker("x"), None, c)
                .unwrap_err(),
            QuotaError::Analyses(2)
        );
        // The first was running: it is given back once its search has stopped, when
        // the second starts in its place.
        drop(first);
        wait_until(&pool, |s| s.running == 1 && s.waiting == 0);
        let (c, _rc) = held_job("c", &started_tx);
        assert!(
            pool.submit_analysis(Work::Analysis, asker("x"), None, c)
                .is_ok()
        );

        // The address counts too: another guest from the same address is refused.
        let addr: IpAddr = [192, 0, 2, 7].into();
        let by = |guest: &str| {
            Asker::new(
                &Ident {
                    user: None,
                    guest: Some(guest.into()),
                },
                Some(addr),
            )
        };
        let one = pool.reserve_game(&by("p")).unwrap();
        one.bind("game-1");
        let _two = pool.reserve_game(&by("q")).unwrap();
        assert_eq!(
            pool.reserve_game(&by("r")).unwrap_err(),
            QuotaError::Games(2)
        );
        pool.game_over("game-1");
        pool.game_over("game-1");
        assert!(pool.reserve_game(&by("r")).is_ok());
    }
}
