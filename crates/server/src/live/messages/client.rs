//! What a client sends on the game socket: its own messages and the player's acts
//! ([`Act`], the typed input of a game's owner, whose kinds are the [`Action`]s), and
//! the refusals it may get back ([`SocketError`], [`Refusal`]).

use game::Player;
use serde::{Deserialize, Serialize};

use super::*;

/// What a client sends on `/ws/game/{id}` (JSON, tagged by `"t"`): the socket's own
/// messages, or one of the player's acts ([`Act`], flattened: `{"t":"resign"}`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum ClientMessage {
    /// The last revision the client has seen (0: none). The server answers with the
    /// events since then, or the whole state.
    Hello {
        /// Last revision seen.
        #[serde(default)]
        rev: u64,
    },
    /// Say something in one of the game's chat rooms (see [`crate::live::chat`]).
    Chat {
        /// `players` or `spectators`.
        room: crate::live::chat::ChatRoom,
        /// What to say: at most [`crate::live::chat::MAX_CHARS`] characters, one line.
        text: String,
    },
    /// Keep the connection open.
    Ping,
    /// Something a player does in the game: handed to the game's owner as it is.
    #[serde(untagged)]
    Act(Act),
}

/// The kind of a [`ClientMessage`], as its `t` names it: the label of the handling-time
/// histogram (`invalid` for a message that could not be read).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MessageKind {
    /// `hello`.
    Hello,
    /// `chat`.
    Chat,
    /// `ping`.
    Ping,
    /// One of the player's acts.
    Act(Action),
    /// A message that could not be read.
    Invalid,
}

impl MessageKind {
    /// The socket's own kinds (not acts), with their tags.
    const OWN: [(MessageKind, &'static str); 3] = [
        (MessageKind::Hello, "hello"),
        (MessageKind::Chat, "chat"),
        (MessageKind::Ping, "ping"),
    ];

    /// Every kind, acts one by one: the histogram's labels.
    pub fn all() -> impl Iterator<Item = MessageKind> {
        MessageKind::OWN
            .into_iter()
            .map(|(kind, _)| kind)
            .chain(Action::ALL.iter().copied().map(MessageKind::Act))
            .chain([MessageKind::Invalid])
    }

    /// The kind of `message` (`None`: not readable).
    #[must_use]
    pub fn of(message: Option<&ClientMessage>) -> MessageKind {
        match message {
            None => MessageKind::Invalid,
            Some(ClientMessage::Hello { .. }) => MessageKind::Hello,
            Some(ClientMessage::Chat { .. }) => MessageKind::Chat,
            Some(ClientMessage::Ping) => MessageKind::Ping,
            Some(ClientMessage::Act(act)) => MessageKind::Act(act.into()),
        }
    }

    /// The label: the message's `t`.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            MessageKind::Act(action) => action.into(),
            MessageKind::Invalid => "invalid",
            own => MessageKind::OWN
                .iter()
                .find(|(kind, _)| *kind == own)
                .map_or("invalid", |(_, tag)| tag),
        }
    }
}

impl ClientMessage {
    /// Reads a message of the game socket; the error says in words what is wrong with
    /// it (an unknown `t`, or a field missing or of the wrong type for that `t`).
    ///
    /// # Errors
    /// The reason, when `text` is not one of the socket's messages.
    pub fn parse(text: &str) -> Result<ClientMessage, String> {
        serde_json::from_str::<ClientMessage>(text).map_err(|_| {
            // The untagged fallback hides serde's reason: find it again.
            #[derive(Deserialize)]
            struct Tagged {
                t: String,
            }
            match serde_json::from_str::<Tagged>(text) {
                Err(error) => error.to_string(),
                Ok(Tagged { t }) if Action::from_tag(&t).is_some() => {
                    serde_json::from_str::<Act>(text).err().map_or_else(
                        || format!("a `{t}` message that cannot be read"),
                        |e| e.to_string(),
                    )
                }
                Ok(Tagged { t }) if MessageKind::OWN.iter().any(|(_, tag)| *tag == t) => {
                    format!("a `{t}` message with a field missing or of the wrong type")
                }
                Ok(Tagged { t }) => format!("unknown message type `{t}`"),
            }
        })
    }
}

/// What a player does in a game: the typed input of the game's owner, whether it comes
/// from a socket, the HTTP API, the AI or a conditional line. Its kinds are
/// [`Action`]s.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, strum::EnumDiscriminants)]
#[serde(tag = "t", rename_all = "snake_case")]
#[strum_discriminants(
    name(Action),
    doc = "Something a player may do: the tag of the [`Act`] that does it. The `actions` of a game view list those a player may do now (never `move` and the claims: the legal moves and `absent` say those).",
    derive(
        Hash,
        Serialize,
        Deserialize,
        strum::IntoStaticStr,
        strum::VariantArray
    ),
    serde(rename_all = "snake_case"),
    strum(serialize_all = "snake_case")
)]
pub enum Act {
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
    /// Take the last own move back: at once against the AI; between people, asked of
    /// the opponent (one request at a time).
    Takeback,
    /// Accept the opponent's takeback request.
    TakebackAccept,
    /// Refuse it.
    TakebackDecline,
    /// Give the opponent more time: 15 seconds in a live game, a day in
    /// correspondence.
    GiveTime,
    /// Call the game off before both sides have moved.
    Abort,
    /// Claim the game against an opponent who left (see `absent`): a win, or a draw when
    /// the claimer could not win on the board.
    ClaimVictory,
    /// Claim a draw against an opponent who left.
    ClaimDraw,
    /// Ask for a rematch once the game is over.
    Rematch,
}

/// The error codes of the game socket.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
    /// A chat message was refused (too long, control characters, language, too many,
    /// chat off here, or the author is muted): the message says why.
    ChatRefused,
}

impl SocketError {
    /// Every code, for the documentation test.
    pub const ALL: [SocketError; 11] = [
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
        SocketError::ChatRefused,
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
            SocketError::ChatRefused => "chat_refused",
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
    /// Which case of the code it is, as a word a client translates: for `chat_refused`
    /// see [`crate::live::chat::ChatRefusal`], for `not_allowed` [`Refusal::REASONS`].
    pub reason: Option<&'static str>,
}

impl Refusal {
    /// A refusal with this code and message.
    pub fn new(code: SocketError, message: impl Into<String>) -> Refusal {
        Refusal {
            code,
            message: message.into(),
            reason: None,
        }
    }

    /// A `not_allowed` refusal naming its case (one of [`Refusal::REASONS`]).
    pub fn not_allowed(reason: &'static str, message: impl Into<String>) -> Refusal {
        debug_assert!(Refusal::REASONS.contains(&reason), "{reason}");
        Refusal {
            code: SocketError::NotAllowed,
            message: message.into(),
            reason: Some(reason),
        }
    }

    /// Every case a `not_allowed` refusal names in `reason` (docs/API.md lists them).
    pub const REASONS: [&'static str; 19] = [
        "nothing_to_take_back",
        "takebacks_off",
        "takeback_pending",
        "no_takeback_request",
        "draw_pending",
        "no_draw_offer",
        "too_late_to_abort",
        "untimed",
        "nothing_to_claim",
        "opponent_may_return",
        "claims_live_only",
        "opponent_present",
        "conditional_correspondence_only",
        "conditional_on_your_move",
        "seat_open",
        "seats_taken",
        "already_playing",
        "rematch_after_end",
        "seat_empty",
    ];
}

impl Serialize for Refusal {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        RefusalWire::from(self.clone()).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Refusal {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Refusal, D::Error> {
        RefusalWire::deserialize(deserializer).map(Refusal::from)
    }
}

/// A refusal as written between processes (its reason a word that is read back as
/// one of the known ones).
#[derive(Serialize, Deserialize)]
struct RefusalWire {
    code: SocketError,
    message: String,
    reason: Option<String>,
}

impl From<Refusal> for RefusalWire {
    fn from(refusal: Refusal) -> RefusalWire {
        RefusalWire {
            code: refusal.code,
            message: refusal.message,
            reason: refusal.reason.map(str::to_owned),
        }
    }
}

impl From<RefusalWire> for Refusal {
    fn from(wire: RefusalWire) -> Refusal {
        let reason = wire.reason.and_then(|word| {
            Refusal::REASONS
                .iter()
                .copied()
                .chain(crate::live::chat::ChatRefusal::ALL.iter().map(|r| r.word()))
                .find(|known| *known == word)
        });
        Refusal {
            code: wire.code,
            message: wire.message,
            reason,
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
            E::NothingToTakeBack => {
                return Refusal::not_allowed("nothing_to_take_back", err.to_string());
            }
            E::TakebacksNotAllowed => {
                return Refusal::not_allowed("takebacks_off", err.to_string());
            }
            E::TakebackPending => return Refusal::not_allowed("takeback_pending", err.to_string()),
            E::NoTakebackRequest => {
                return Refusal::not_allowed("no_takeback_request", err.to_string());
            }
            E::DrawPending => return Refusal::not_allowed("draw_pending", err.to_string()),
            E::NoDrawOffer => return Refusal::not_allowed("no_draw_offer", err.to_string()),
            E::CannotAbort => return Refusal::not_allowed("too_late_to_abort", err.to_string()),
            E::Untimed => return Refusal::not_allowed("untimed", err.to_string()),
            E::NothingToClaim => return Refusal::not_allowed("nothing_to_claim", err.to_string()),
        };
        Refusal::new(code, err.to_string())
    }
}

impl Action {
    /// Every action, from the enum itself.
    pub const ALL: &'static [Action] = <Action as strum::VariantArray>::VARIANTS;

    /// The action whose tag is `tag`.
    #[must_use]
    pub fn from_tag(tag: &str) -> Option<Action> {
        Action::ALL
            .iter()
            .copied()
            .find(|a| <&'static str>::from(*a) == tag)
    }
}

impl Actions {
    /// The actions of `side`.
    #[must_use]
    pub fn of(&self, side: Player) -> &[Action] {
        match side {
            Player::First => &self.first,
            Player::Second => &self.second,
        }
    }

    /// The actions of `side`, to fill.
    pub fn of_mut(&mut self, side: Player) -> &mut Vec<Action> {
        match side {
            Player::First => &mut self.first,
            Player::Second => &mut self.second,
        }
    }
}
