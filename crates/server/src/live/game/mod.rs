//! A live game's owner: the one task that changes the game, and the only code that
//! writes it while this process holds its lease.
//!
//! The owner is a small actor. It takes [`Command`]s — a [`Request`] from a socket, the
//! HTTP API or another process, or one of the server's own notices (a timer, the AI's
//! move, the lease keeper) — and hands each to a concern module that is a function of
//! the game and returns what changed, or a refusal:
//!
//! | module | concern |
//! |---|---|
//! | [`play`] | a player's act on the board: moves, resignation, draws, takebacks, time, claims |
//! | [`seats`] | who takes the open seat; the rematch both sides agree on |
//! | [`conditional`] | correspondence players' conditional moves, entered and followed |
//! | [`presence`] | the players' sockets (present or gone) and the spectators' count |
//! | [`timers`] | the flag, the first move, expiry |
//! | [`ai_turn`] | the AI's turn and its answer to a draw offer |
//! | [`view`] | the game as each player, spectator and list sees it |
//! | [`persist`] | what is written to the database for each change |
//! | [`setup`] | how a game starts: options, first session, a new owner |
//!
//! The modules never call back into the actor. The actor does the effects: it stores a
//! change of the session and publishes it in one place ([`Owner::commit`]), to the
//! game's feed (its sockets, here and on other processes), the players' own channels,
//! the lobby and the AI.

pub(crate) mod ai_turn;
pub mod command;
pub(crate) mod conditional;
mod owner;
pub(crate) mod persist;
pub(crate) mod play;
pub(crate) mod presence;
mod publish;
pub(crate) mod seats;
pub(crate) mod setup;
pub(crate) mod timers;
pub(crate) mod view;

#[cfg(test)]
mod fixture;

use std::pin::Pin;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

pub(crate) use self::owner::Owner;
use super::ai::GameSlot;
use super::messages::Refusal;
use super::{AiPool, Live};
use crate::metrics::Metrics;
use crate::store::{GameRecord, Store};

/// A future the owner awaits, boxed: what [`NewGames`] answers.
pub(crate) type Pending<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Where a new game made by an owner (a rematch) counts: the limit on new games and
/// the AI's quotas, shared with the other processes.
pub(crate) trait NewGames: Send + Sync {
    /// A place for a rematch of `record` (`None`: no AI plays in it).
    fn rematch_slot<'a>(
        &'a self,
        record: &'a GameRecord,
    ) -> Pending<'a, Result<Option<GameSlot>, Refusal>>;
}

/// What a game's owner needs from the rest of the server, and nothing more.
#[derive(Clone)]
pub(crate) struct Deps {
    /// The database.
    pub(crate) store: Store,
    /// The AI's searches.
    pub(crate) ai: Arc<AiPool>,
    /// The registry of live games, the lobby and the players' channels.
    pub(crate) live: Arc<Live>,
    /// The server's metrics.
    pub(crate) metrics: Arc<Metrics>,
    /// Cancelled when the server stops.
    pub(crate) shutdown: CancellationToken,
    /// Where owners are spawned (and waited for on shutdown).
    pub(crate) tasks: TaskTracker,
    /// The limits a rematch counts against.
    pub(crate) new_games: Arc<dyn NewGames>,
}
