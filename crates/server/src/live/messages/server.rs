//! What the server sends on the game socket: the whole game as a viewer sees it
//! ([`GameView`]), each change ([`EventsView`]), the clocks, and who may do what now.

use game::{GameKind, Outcome, Player};
use games::{BoardView, MoveInfo};
use serde::{Deserialize, Serialize};
use session::{Clocks, Event, Session, Timestamp};

pub use crate::seat::PlayerInfo;

use super::*;

/// What the server sends on `/ws/game/{id}` (JSON, tagged by `"t"`).
///
/// `ServerTag`, derived from it, names its variants as serde tags them (a variant
/// renamed by hand must be renamed there too, with `#[strum_discriminants(serde(…))]`
/// and `#[strum(serialize = …)]`: a test compares the two names of every variant).
#[derive(Clone, Debug, Serialize, strum::EnumDiscriminants)]
#[serde(tag = "t", rename_all = "snake_case")]
#[strum_discriminants(
    name(ServerTag),
    vis(pub(crate)),
    derive(Serialize, strum::VariantArray, strum::VariantNames),
    serde(rename_all = "snake_case"),
    strum(serialize_all = "snake_case")
)]
pub enum ServerMessage {
    /// The whole game as the receiver sees it.
    State {
        /// The game.
        game: Box<GameView>,
    },
    /// What changed since revision `from_rev`, and everything a viewer needs to draw
    /// the game after it (published once per change and shared by every socket; only the
    /// side to move gets its legal moves).
    Events(Box<EventsView>),
    /// The clocks now: sent after a catch-up, whose clocks are those of the last change.
    Clocks {
        /// Both clocks now (`null` untimed).
        clocks: Option<ClocksView>,
    },
    /// How many are watching.
    Watchers {
        /// Sockets open on this game.
        count: usize,
    },
    /// A player left the game or came back: who is gone now, and when the opponent may
    /// claim.
    Absent {
        /// The players gone (empty when both are here).
        absent: Vec<AbsenceView>,
    },
    /// Both players asked for a rematch (or the AI agreed): the new game.
    Rematch {
        /// The new game's id.
        id: String,
    },
    /// A refused message.
    Error {
        /// What kind of refusal.
        code: SocketError,
        /// In words.
        message: String,
        /// For `chat_refused`: why, as a word (`banned`, `muted`, `too_long`…).
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<&'static str>,
    },
    /// A chat message, to the sockets that may read its room.
    Chat(Box<crate::live::chat::ChatLine>),
    /// The answer to `ping`.
    Pong,
}

impl From<Refusal> for ServerMessage {
    fn from(refusal: Refusal) -> ServerMessage {
        ServerMessage::Error {
            code: refusal.code,
            message: refusal.message,
            reason: refusal.reason,
        }
    }
}

/// The clocks as a client shows them: time left at the moment the message was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClocksView {
    /// The first player's time left, in milliseconds.
    pub first_ms: u64,
    /// The second player's.
    pub second_ms: u64,
    /// Whose clock runs.
    pub running: Option<Player>,
}

impl ClocksView {
    /// The clocks of `session` at `now`; `None` when untimed.
    #[must_use]
    pub fn of(session: &Session, now: Timestamp) -> Option<ClocksView> {
        ClocksView::from_clocks(session.clocks(), now)
    }

    /// `clocks` at `now`; `None` when untimed.
    #[must_use]
    pub fn from_clocks(clocks: &Clocks, now: Timestamp) -> Option<ClocksView> {
        let [first, second] = clocks.both(now)?;
        let ms = |d: std::time::Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        Some(ClocksView {
            first_ms: ms(first),
            second_ms: ms(second),
            running: clocks.running_player(),
        })
    }
}

/// The `events` message: the changes from `from_rev` to `rev` and the game after them.
#[derive(Clone, Debug, Serialize)]
pub struct EventsView {
    /// The revision the events follow.
    pub from_rev: u64,
    /// The revision after them.
    pub rev: u64,
    /// The changes, oldest first (each with its `revision` and `type`).
    pub events: Vec<Event>,
    /// `waiting`, `ongoing`, `finished` or `aborted`.
    pub status: GameStatusView,
    /// The result once finished.
    pub result: Option<Outcome>,
    /// The pieces on the board after them ([`BoardView::pieces`]: the frame and the
    /// marks do not change in a game, and the `state` message gave them).
    pub pieces: String,
    /// The side to move after them.
    pub to_move: Player,
    /// Both clocks when the change was made (`null` untimed).
    pub clocks: Option<ClocksView>,
    /// Who offers a draw.
    pub draw_offer: Option<Player>,
    /// Who asks for a takeback.
    pub takeback_request: Option<Player>,
    /// What each player may do now.
    pub actions: Actions,
    /// The legal moves of the side to move, in the wire form: filled only in the copy
    /// that side's sockets get. Last, so that copy is the others' text with the moves
    /// put in ([`EventsView::with_legal_moves`]).
    #[serde(serialize_with = "super::lists::wire_array")]
    pub legal: LegalMoves,
}

impl EventsView {
    /// The end of an `events` message's text without legal moves.
    const NO_MOVES_END: &'static str = "\"legal\":[]}";

    /// The text of the `events` message `public` (serialised without legal moves) with
    /// `legal` put in: the board and the events are not written out again.
    #[must_use]
    pub fn with_legal_moves(public: &str, legal: &LegalMoves) -> Option<String> {
        let head = public.strip_suffix(Self::NO_MOVES_END)?;
        let moves = legal.json();
        let mut text = String::with_capacity(public.len() + moves.len());
        text.push_str(head);
        text.push_str("\"legal\":");
        text.push_str(moves);
        text.push('}');
        Some(text)
    }
}

/// Where a game stands, as every message and list says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameStatusView {
    /// A seat is open.
    Waiting,
    /// Being played.
    Ongoing,
    /// Over, with a result.
    Finished,
    /// Called off: no result.
    Aborted,
}

impl From<crate::store::GameStatus> for GameStatusView {
    /// A stored status as the messages say it (`playing` is `ongoing`).
    fn from(status: crate::store::GameStatus) -> GameStatusView {
        use crate::store::GameStatus;
        match status {
            GameStatus::Waiting => GameStatusView::Waiting,
            GameStatus::Playing => GameStatusView::Ongoing,
            GameStatus::Finished => GameStatusView::Finished,
            GameStatus::Aborted => GameStatusView::Aborted,
        }
    }
}

impl From<session::Status> for GameStatusView {
    /// A session's status as the messages say it (through the stored one: the layers
    /// meet in one place each).
    fn from(status: session::Status) -> GameStatusView {
        crate::store::GameStatus::from(status).into()
    }
}

impl ServerMessage {
    /// The tag (`"t"`) of every message of the game socket, in the order of the variants
    /// (from the enum: a new message is listed by being declared).
    pub const TAGS: &'static [&'static str] = <ServerTag as strum::VariantNames>::VARIANTS;
}

/// What each player may do now (an AI's side, and an open seat, may do nothing).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Actions {
    /// The first player's actions.
    pub first: Vec<Action>,
    /// The second player's.
    pub second: Vec<Action>,
}

/// The game as one client sees it: the `game` of a `state` message, and of
/// `GET /api/games/{id}`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GameView {
    /// The game's id.
    pub id: String,
    /// Which game.
    pub kind: GameKind,
    /// The session's revision.
    pub rev: u64,
    /// `waiting` (a seat is open), `ongoing`, `finished` or `aborted`.
    pub status: GameStatusView,
    /// The result once finished.
    pub result: Option<Outcome>,
    /// Who ended it outside the rules: the side that resigned, whose flag fell, or that
    /// left and was claimed against.
    pub ended_by: Option<Player>,
    /// When it was made (ms since the Unix epoch); for an imported game, the day its
    /// record gives.
    pub played_at: i64,
    /// Both players, first first.
    pub players: Vec<PlayerInfo>,
    /// The receiver's side, if they play in this game.
    pub you: Option<Player>,
    /// The time control (`5+3`, `3d`, `untimed`).
    pub time_control: String,
    /// Whether it is played by correspondence (days per move): [`is_correspondence`].
    pub correspondence: bool,
    /// Whether the result changes ratings.
    pub rated: bool,
    /// The board now.
    pub board: BoardView,
    /// The board before the first move.
    pub start_board: BoardView,
    /// The position string the game started from.
    pub start_position: String,
    /// The moves played.
    pub moves: PlayedList,
    /// The receiver's legal moves (empty unless it is their turn in a game going on).
    pub legal_moves: Vec<MoveInfo>,
    /// Both clocks (`null` untimed).
    pub clocks: Option<ClocksView>,
    /// Who offers a draw.
    pub draw_offer: Option<Player>,
    /// Who asks for a takeback.
    pub takeback_request: Option<Player>,
    /// Sockets open on this game.
    pub watchers: usize,
    /// The players who left (every socket of theirs closed) a live game in which both
    /// sides have moved: the opponent may claim once the countdown is over.
    pub absent: Vec<AbsenceView>,
    /// What each player may do now.
    pub actions: Actions,
    /// What the receiver may do in each room of the game's chat
    /// ([`crate::live::chat::rooms_for`]).
    pub chat: crate::live::chat::ChatRights,
}

/// Whether a game of this time control (as stored and sent: `3d`, `5+3`, `untimed`) is
/// played by correspondence, days per move; text that is no time control is not.
#[must_use]
pub fn is_correspondence(time_control: &str) -> bool {
    matches!(
        time_control.parse(),
        Ok(session::TimeControl::Correspondence { .. })
    )
}

/// A player who has left a live game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AbsenceView {
    /// Who left.
    pub side: Player,
    /// Milliseconds, from when the message was made, until the opponent may claim
    /// (`claim_victory`, `claim_draw`); 0: now.
    pub claim_in_ms: u64,
}
