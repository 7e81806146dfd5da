//! What the lobby socket sends: the live games, the challenges, a player's own games.

use game::{GameKind, Player};
use games::BoardView;
use serde::{Deserialize, Serialize};

use super::*;

impl LobbyMessage {
    /// The tag (`"t"`) of every [`LobbyMessage`], in the order of the variants (from the
    /// enum). The lobby socket also sends `pong` and `error` as [`ServerMessage`]s, the
    /// lobby chat's messages and `my_challenges`.
    pub const TAGS: &'static [&'static str] = <LobbyTag as strum::VariantNames>::VARIANTS;
}

/// A game being played now, for the lobby and `GET /api/games?status=live`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LiveGame {
    /// The game's id.
    pub id: String,
    /// Which game.
    pub kind: GameKind,
    /// Both players.
    pub players: Vec<PlayerInfo>,
    /// The board now.
    pub board: BoardView,
    /// The time control.
    pub time_control: String,
    /// Whether it is rated.
    pub rated: bool,
    /// Sockets open on it.
    pub watchers: usize,
    /// When the game was made (ms since the epoch): lists are newest first by it.
    pub created_at: i64,
}

/// What changed in a game of the lobby's list since the last lobby message: the cells
/// that differ (a move changes two to a few), the side to move, the watchers, and the
/// players only when they changed. A client applies it to the game it holds.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LiveGameChange {
    /// The game's id.
    pub id: String,
    /// The cells that changed, as `[index, cell]` (index as in [`BoardView::cells`]).
    pub cells: Vec<(usize, games::Cell)>,
    /// The side to move now.
    pub to_move: Player,
    /// Sockets open on it now.
    pub watchers: usize,
    /// Both players, only when they changed (a rating after a game, a seat taken).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub players: Option<Vec<PlayerInfo>>,
}

impl LiveGameChange {
    /// What changed from `before` to `now` (the same game), or `None` when nothing did.
    #[must_use]
    pub fn between(before: &LiveGame, now: &LiveGame) -> Option<LiveGameChange> {
        let cells: Vec<(usize, games::Cell)> = before
            .board
            .cells
            .iter()
            .zip(&now.board.cells)
            .enumerate()
            .filter(|(_, (old, new))| old != new)
            .map(|(i, (_, new))| (i, *new))
            .collect();
        let players = (before.players != now.players).then(|| now.players.clone());
        let same = cells.is_empty()
            && players.is_none()
            && before.board.to_move == now.board.to_move
            && before.watchers == now.watchers;
        (!same).then(|| LiveGameChange {
            id: now.id.clone(),
            cells,
            to_move: now.board.to_move,
            watchers: now.watchers,
            players,
        })
    }
}

/// An open challenge as the lobby shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChallengeView {
    /// Its id.
    pub id: String,
    /// Which game.
    pub kind: GameKind,
    /// The time control.
    pub time_control: String,
    /// The side its poster plays: `first`, `second` or `random`.
    pub side: String,
    /// Whether the game will be rated.
    pub rated: bool,
    /// The poster's name.
    pub by: Option<String>,
    /// When it was posted (ms since the epoch).
    pub created_at: i64,
    /// When it lapses unless accepted (ms since the epoch).
    pub expires_at: i64,
    /// The player a direct challenge is made to (absent: the lobby's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
}

/// What the server sends on `/ws/lobby` (JSON, tagged by `"t"`). Each message is
/// serialised once and shared by every lobby socket. Its tags are `LobbyTag`'s, as
/// [`ServerMessage`]'s are `ServerTag`'s.
#[derive(Clone, Debug, Serialize, strum::EnumDiscriminants)]
#[serde(tag = "t", rename_all = "snake_case")]
#[strum_discriminants(
    name(LobbyTag),
    vis(pub(crate)),
    derive(Serialize, strum::VariantArray, strum::VariantNames),
    serde(rename_all = "snake_case"),
    strum(serialize_all = "snake_case")
)]
pub enum LobbyMessage {
    /// Everything the lobby shows, on connecting (and to a socket that fell behind).
    Snapshot {
        /// The lobby's version: the `changes` that follow have `v` + 1, + 2…
        v: u64,
        /// The newest live games (at most [`crate::live::lobby::WINDOW`]), newest first.
        games: Vec<LiveGame>,
        /// How many games are being played in all.
        live: usize,
        /// The open challenges, newest first.
        challenges: Vec<ChallengeView>,
    },
    /// What changed since version `v - 1`, gathered over a quarter of a second at most.
    Changes {
        /// This change's version.
        v: u64,
        /// Games that entered the lobby's list (newly started, or moved up).
        games_added: Vec<LiveGame>,
        /// Games of the list that changed (a move, watchers), as what changed only.
        games_changed: Vec<LiveGameChange>,
        /// Games that left the list (over, or pushed out by newer ones).
        games_removed: Vec<String>,
        /// How many games are being played in all.
        live: usize,
        /// New challenges, newest first.
        challenges_added: Vec<ChallengeView>,
        /// Challenges accepted, withdrawn, lapsed or gone with their poster.
        challenges_removed: Vec<String>,
    },
    /// To the poster's lobby sockets only: their challenge was accepted, the game is on.
    ChallengeAccepted {
        /// The challenge.
        challenge: String,
        /// The game it became.
        game: String,
    },
    /// To a player's own sockets: the games they play that are not over (on connecting,
    /// and to a socket that fell behind).
    MyGames {
        /// As `GET /api/me/games` orders them.
        games: Vec<crate::live::people::Mine>,
    },
    /// To a player's own sockets: one of their games as it is after a change (written
    /// once per change and side by [`crate::live::people::People::publish`]).
    MyGame {
        /// The game, with the receiver's side.
        game: crate::live::people::Mine,
    },
    /// The answer to `{"t":"ping"}`.
    Pong,
}
