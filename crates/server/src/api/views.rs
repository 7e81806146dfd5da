//! The JSON shapes of stored things as clients see them.

use game::{EndReason, GameKind, Player};
use serde::Serialize;

use crate::store::{GameRecord, GameStatus, Guest, PlayerRef, User, result_str};

/// A user as others see them.
#[derive(Clone, Debug, Serialize)]
pub struct UserView {
    /// Their username.
    pub name: String,
    /// When the account was made (ms since the Unix epoch).
    pub created_at: i64,
}

impl From<&User> for UserView {
    fn from(user: &User) -> UserView {
        UserView {
            name: user.username.clone(),
            created_at: user.created_at,
        }
    }
}

/// `GET /api/whoami`: who the request comes from.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WhoAmI {
    /// A signed-in user.
    User {
        /// Their username.
        name: String,
        /// When the account was made.
        created_at: i64,
        /// Present and true for a moderator (`GET /api/whoami` only).
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        moderator: bool,
    },
    /// A guest.
    Guest {
        /// Their generated name.
        name: String,
    },
    /// Nobody known yet.
    Anonymous,
}

impl WhoAmI {
    /// A user.
    #[must_use]
    pub fn user(user: &User) -> WhoAmI {
        WhoAmI::User {
            name: user.username.clone(),
            created_at: user.created_at,
            moderator: false,
        }
    }

    /// A guest.
    #[must_use]
    pub fn guest(guest: &Guest) -> WhoAmI {
        WhoAmI::Guest {
            name: guest.name.clone(),
        }
    }
}

pub use crate::live::game::view::ended_by;

/// A game in a list (no moves, no position).
#[derive(Clone, Debug, Serialize)]
pub struct GameSummary {
    /// The game's id, as in its link.
    pub id: String,
    /// Which game.
    pub kind: GameKind,
    /// The first player (tafl attackers, Camelot White); `null` for an open seat.
    pub first: Option<PlayerRef>,
    /// The second player.
    pub second: Option<PlayerRef>,
    /// The time control.
    pub time_control: String,
    /// Whether it is rated.
    pub rated: bool,
    /// `waiting`, `playing`, `finished` or `aborted`.
    pub status: GameStatus,
    /// `first`, `second` or `draw` once finished.
    pub result: Option<&'static str>,
    /// Why it ended.
    pub reason: Option<EndReason>,
    /// Who ended it outside the rules: the side that resigned, whose flag fell, or that
    /// left and was claimed against (`null` otherwise).
    pub ended_by: Option<Player>,
    /// Moves played.
    pub plies: u32,
    /// When it was made (ms since the Unix epoch).
    pub created_at: i64,
    /// When it ended.
    pub finished_at: Option<i64>,
}

impl From<&GameRecord> for GameSummary {
    fn from(game: &GameRecord) -> GameSummary {
        GameSummary {
            id: game.id.clone(),
            kind: game.kind,
            first: game.first.player(),
            second: game.second.player(),
            time_control: game.time_control.clone(),
            rated: game.rated,
            status: game.status,
            result: game.outcome.map(|o| result_str(o.winner)),
            reason: game.outcome.map(|o| o.reason),
            ended_by: ended_by(game.outcome, game.ended_by),
            plies: game.plies,
            created_at: game.created_at,
            finished_at: game.finished_at,
        }
    }
}
