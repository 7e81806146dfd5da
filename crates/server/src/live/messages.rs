//! The messages of the game and lobby sockets, as explicit Rust types: what a client may
//! send, and what the server sends. `docs/API.md` documents each one.

use game::{GameKind, Outcome, Player};
use games::{BoardView, MoveInfo};
use serde::{Deserialize, Serialize};
use session::{Event, Session, Timestamp};

/// What a client sends on `/ws/game/{id}` (JSON, tagged by `"t"`).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum ClientMessage {
    /// The last revision the client has seen (0: none). The server answers with the
    /// events since then, or the whole state.
    Hello {
        /// Last revision seen.
        #[serde(default)]
        rev: u64,
    },
    /// A move, in the game's notation, made on the position of revision `rev`.
    Move {
        /// The revision the move was chosen on (a move chosen on an older one is refused
        /// as `stale`).
        #[serde(default)]
        rev: Option<u64>,
        /// The move's text, as in the legal moves' `text`.
        #[serde(rename = "move")]
        text: String,
    },
    /// Resign.
    Resign,
    /// Offer a draw (or accept the one offered).
    DrawOffer,
    /// Accept the draw offered.
    DrawAccept,
    /// Refuse the draw offered.
    DrawDecline,
    /// Take the last own move back (against the AI only).
    Takeback,
    /// Accept the opponent's takeback request.
    TakebackAccept,
    /// Refuse it.
    TakebackDecline,
    /// Call the game off before both sides have moved.
    Abort,
    /// Claim the game against an opponent who left (see `absent`): a win, or a draw when
    /// the claimer could not win on the board.
    ClaimVictory,
    /// Claim a draw against an opponent who left.
    ClaimDraw,
    /// Ask for a rematch once the game is over.
    Rematch,
    /// Keep the connection open.
    Ping,
}

/// The error codes of the game socket.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SocketError {
    /// The message is not one of [`ClientMessage`] (or is too large).
    BadMessage,
    /// Only the game's players may do this.
    NotAPlayer,
    /// It is the other player's turn.
    NotYourTurn,
    /// The move is not legal here.
    IllegalMove,
    /// The move was chosen on an older position (the game has changed since).
    Stale,
    /// The game is over.
    GameOver,
    /// Not possible now (no draw offered, takeback not allowed, too late to abort…).
    NotAllowed,
    /// Too many messages.
    RateLimited,
    /// No such game.
    NotFound,
    /// The server could not store the change; nothing changed.
    Internal,
}

impl SocketError {
    /// Every code, for the documentation test.
    pub const ALL: [SocketError; 10] = [
        SocketError::BadMessage,
        SocketError::NotAPlayer,
        SocketError::NotYourTurn,
        SocketError::IllegalMove,
        SocketError::Stale,
        SocketError::GameOver,
        SocketError::NotAllowed,
        SocketError::RateLimited,
        SocketError::NotFound,
        SocketError::Internal,
    ];

    /// The code as sent.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            SocketError::BadMessage => "bad_message",
            SocketError::NotAPlayer => "not_a_player",
            SocketError::NotYourTurn => "not_your_turn",
            SocketError::IllegalMove => "illegal_move",
            SocketError::Stale => "stale",
            SocketError::GameOver => "game_over",
            SocketError::NotAllowed => "not_allowed",
            SocketError::RateLimited => "rate_limited",
            SocketError::NotFound => "not_found",
            SocketError::Internal => "internal",
        }
    }
}

/// A refused action: the code and a sentence for the player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The code.
    pub code: SocketError,
    /// What went wrong, in words.
    pub message: String,
}

impl Refusal {
    /// A refusal with this code and message.
    pub fn new(code: SocketError, message: impl Into<String>) -> Refusal {
        Refusal {
            code,
            message: message.into(),
        }
    }
}

impl From<session::Error> for Refusal {
    fn from(err: session::Error) -> Refusal {
        use session::Error as E;
        let code = match &err {
            E::GameOver { .. } => SocketError::GameOver,
            E::NotYourTurn => SocketError::NotYourTurn,
            E::IllegalMove(_) | E::NotLegal => SocketError::IllegalMove,
            _ => SocketError::NotAllowed,
        };
        Refusal::new(code, err.to_string())
    }
}

/// What the server sends on `/ws/game/{id}` (JSON, tagged by `"t"`).
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum ServerMessage {
    /// The whole game as the receiver sees it.
    State {
        /// The game.
        game: Box<GameView>,
    },
    /// What changed since revision `from_rev`, and the position after it.
    Events {
        /// The revision the events follow.
        from_rev: u64,
        /// The changes, oldest first (each with its `revision` and `type`).
        events: Vec<Event>,
        /// The board after them.
        board: BoardView,
        /// The receiver's legal moves (empty unless it is their turn).
        legal_moves: Vec<MoveInfo>,
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
    },
    /// The answer to `ping`.
    Pong,
}

impl From<Refusal> for ServerMessage {
    fn from(refusal: Refusal) -> ServerMessage {
        ServerMessage::Error {
            code: refusal.code,
            message: refusal.message,
        }
    }
}

/// The clocks as a client shows them: time left at the moment the message was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
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
        let clocks = session.clocks();
        let [first, second] = clocks.both(now)?;
        let ms = |d: std::time::Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        Some(ClocksView {
            first_ms: ms(first),
            second_ms: ms(second),
            running: clocks.running_player(),
        })
    }
}

/// One player of a game as clients show them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlayerInfo {
    /// Their side.
    pub side: Player,
    /// Their name (a user's, a guest's, or `AI level N`); empty for an open seat.
    pub name: String,
    /// Whether it is a user with an account.
    pub user: bool,
    /// The AI's level when the AI plays this side.
    pub ai: Option<u8>,
    /// Their rating in this game, for users.
    pub rating: Option<i64>,
    /// Whether that rating is still provisional.
    pub provisional: Option<bool>,
}

/// A move played, as the move list shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlayedView {
    /// 1 for the first move.
    pub ply: usize,
    /// Who played it.
    pub player: Player,
    /// Its text and geometry.
    #[serde(flatten)]
    pub info: MoveInfo,
}

/// The game as one client sees it: the `game` of a `state` message, and of
/// `GET /api/games/{id}`.
#[derive(Clone, Debug, Serialize)]
pub struct GameView {
    /// The game's id.
    pub id: String,
    /// Which game.
    pub kind: GameKind,
    /// The session's revision.
    pub rev: u64,
    /// `waiting` (a seat is open), `ongoing`, `finished` or `aborted`.
    pub status: &'static str,
    /// The result once finished.
    pub result: Option<Outcome>,
    /// Both players, first first.
    pub players: Vec<PlayerInfo>,
    /// The receiver's side, if they play in this game.
    pub you: Option<Player>,
    /// The time control (`5+3`, `3d`, `untimed`).
    pub time_control: String,
    /// Whether the result changes ratings.
    pub rated: bool,
    /// The board now.
    pub board: BoardView,
    /// The board before the first move.
    pub start_board: BoardView,
    /// The position string the game started from.
    pub start_position: String,
    /// The moves played.
    pub moves: Vec<PlayedView>,
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
}

/// A player who has left a live game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct AbsenceView {
    /// Who left.
    pub side: Player,
    /// Milliseconds, from when the message was made, until the opponent may claim
    /// (`claim_victory`, `claim_draw`); 0: now.
    pub claim_in_ms: u64,
}

/// A game being played now, for the lobby and `GET /api/games?status=live`.
#[derive(Clone, Debug, Serialize)]
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
}

/// What the server sends on `/ws/lobby`.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum LobbyMessage {
    /// The open challenges (on connecting, and whenever they change).
    Challenges {
        /// Open challenges, newest first.
        challenges: Vec<serde_json::Value>,
    },
    /// The games being played now (on connecting, and whenever one starts, moves or
    /// ends; at most a few times a second).
    LiveGames {
        /// The games.
        games: Vec<LiveGame>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_messages_read_as_documented() {
        let read = |text: &str| serde_json::from_str::<ClientMessage>(text);
        assert_eq!(
            read(r#"{"t":"hello","rev":12}"#).unwrap(),
            ClientMessage::Hello { rev: 12 }
        );
        assert_eq!(
            read(r#"{"t":"move","rev":3,"move":"d1-d3"}"#).unwrap(),
            ClientMessage::Move {
                rev: Some(3),
                text: "d1-d3".into()
            }
        );
        assert_eq!(read(r#"{"t":"resign"}"#).unwrap(), ClientMessage::Resign);
        assert_eq!(
            read(r#"{"t":"claim_victory"}"#).unwrap(),
            ClientMessage::ClaimVictory
        );
        assert_eq!(
            read(r#"{"t":"claim_draw"}"#).unwrap(),
            ClientMessage::ClaimDraw
        );
        assert_eq!(
            read(r#"{"t":"draw_offer"}"#).unwrap(),
            ClientMessage::DrawOffer
        );
        for bad in [
            r#"{"t":"fly"}"#,
            r#"{"move":"d1-d3"}"#,
            "[]",
            "",
            r#"{"t":"move"}"#,
        ] {
            assert!(read(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn error_codes_are_snake_case() {
        for code in SocketError::ALL {
            assert_eq!(
                serde_json::to_value(code).unwrap(),
                serde_json::Value::from(code.as_str())
            );
        }
    }
}
