//! The messages of the game and lobby sockets, as explicit Rust types: what a client may
//! send, and what the server sends. `docs/API.md` documents each one.

use std::sync::Arc;

use game::{GameKind, Outcome, Player};
use games::{BoardView, MoveInfo};
use serde::{Deserialize, Serialize};
use session::{Clocks, Event, Session, Timestamp};

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
    /// Say something in one of the game's chat rooms (see [`super::chat`]).
    Chat {
        /// `players` or `spectators`.
        room: super::chat::ChatRoom,
        /// What to say: at most [`super::chat::MAX_CHARS`] characters, one line.
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
    /// see [`super::chat::ChatRefusal`], for `not_allowed` [`Refusal::REASONS`].
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
                .chain(super::chat::ChatRefusal::ALL.iter().map(|r| r.word()))
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
    Chat(Box<super::chat::ChatLine>),
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

/// The legal moves of the side to move as a JSON array in the compact wire form
/// ([`games::MoveInfo::wire`]; `[]`: none), with the board's width to read their squares
/// back: written once per change from the rules' move list
/// ([`Session::legal_moves_wire`]) and shared by the mover's `events` text (`legal`) and
/// the snapshot that `state` messages are made from (where they are written out as
/// [`MoveInfo`]s, `legal_moves`: a `state` is rare, a move is not).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LegalMoves(Option<Arc<WireList>>);

#[derive(Debug, PartialEq, Eq)]
struct WireList {
    /// The board's files: a square's index is `rank * files + file`.
    files: u8,
    /// The JSON array.
    json: Box<str>,
}

impl LegalMoves {
    /// The legal moves of `session`'s side to move (none once it is over).
    #[must_use]
    pub fn of(session: &Session) -> LegalMoves {
        LegalMoves::from_wire(
            games::Board::files(session.game()),
            session.legal_moves_wire(),
        )
    }

    /// The moves of `json`, a JSON array of moves in the wire form on a board of `files`
    /// files.
    fn from_wire(files: u8, json: String) -> LegalMoves {
        if json == "[]" {
            LegalMoves(None)
        } else {
            LegalMoves(Some(Arc::new(WireList {
                files,
                json: json.into_boxed_str(),
            })))
        }
    }

    /// The moves of `infos` on a board of `files` files.
    #[must_use]
    pub fn from_infos(infos: &[MoveInfo], files: u8) -> LegalMoves {
        let wire: Vec<games::WireMove> = infos.iter().map(|m| m.wire(files)).collect();
        LegalMoves::from_wire(
            files,
            serde_json::to_string(&wire).unwrap_or_else(|_| "[]".into()),
        )
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// The JSON array in the wire form.
    #[must_use]
    pub fn json(&self) -> &str {
        self.0.as_ref().map_or("[]", |list| &list.json)
    }

    /// The moves with their squares ([`MoveInfo`]s), as a `state` message gives them.
    #[must_use]
    pub fn infos(&self) -> Vec<MoveInfo> {
        let Some(list) = &self.0 else {
            return Vec::new();
        };
        match serde_json::from_str::<Vec<games::WireMove>>(&list.json) {
            Ok(moves) => moves
                .iter()
                .filter_map(|m| MoveInfo::from_wire(m, list.files))
                .collect(),
            Err(error) => {
                tracing::error!(%error, "legal moves that do not read back");
                Vec::new()
            }
        }
    }
}

/// Between server processes (a snapshot on the bus): `{"files": 11, "moves": [...]}` in
/// the wire form, or `null`.
#[derive(Serialize, Deserialize)]
struct WireListOut<'a> {
    files: u8,
    #[serde(borrow)]
    moves: &'a serde_json::value::RawValue,
}

impl Serialize for LegalMoves {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            None => serializer.serialize_none(),
            Some(list) => {
                let moves: &serde_json::value::RawValue =
                    serde_json::from_str(&list.json).map_err(serde::ser::Error::custom)?;
                WireListOut {
                    files: list.files,
                    moves,
                }
                .serialize(serializer)
            }
        }
    }
}

impl<'de> Deserialize<'de> for LegalMoves {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Owned {
            files: u8,
            moves: Box<serde_json::value::RawValue>,
        }
        Ok(match Option::<Owned>::deserialize(deserializer)? {
            None => LegalMoves(None),
            Some(list) => LegalMoves::from_wire(list.files, list.moves.get().to_owned()),
        })
    }
}

/// Writes legal moves as their JSON array in the wire form (the `events` message's
/// `legal`).
fn wire_array<S: serde::Serializer>(legal: &LegalMoves, serializer: S) -> Result<S::Ok, S::Error> {
    let raw: &serde_json::value::RawValue =
        serde_json::from_str(legal.json()).map_err(serde::ser::Error::custom)?;
    raw.serialize(serializer)
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
    #[serde(serialize_with = "wire_array")]
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

impl ServerMessage {
    /// The tag (`"t"`) of every message of the game socket, in the order of the variants
    /// (from the enum: a new message is listed by being declared).
    pub const TAGS: &'static [&'static str] = <ServerTag as strum::VariantNames>::VARIANTS;
}

impl LobbyMessage {
    /// The tag (`"t"`) of every [`LobbyMessage`], in the order of the variants (from the
    /// enum). The lobby socket also sends `pong` and `error` as [`ServerMessage`]s, the
    /// lobby chat's messages and `my_challenges`.
    pub const TAGS: &'static [&'static str] = <LobbyTag as strum::VariantNames>::VARIANTS;
}

/// What each player may do now (an AI's side, and an open seat, may do nothing).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Actions {
    /// The first player's actions.
    pub first: Vec<Action>,
    /// The second player's.
    pub second: Vec<Action>,
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

/// One player of a game as clients show them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayedView {
    /// 1 for the first move.
    pub ply: usize,
    /// Who played it.
    pub player: Player,
    /// Its text and geometry.
    #[serde(flatten)]
    pub info: MoveInfo,
}

/// The moves of a game as clients get them (a JSON array of [`PlayedView`]), cheap to
/// copy: every full chunk of [`PlayedList::CHUNK`] moves is shared by all the copies, so
/// that the game's view after each move, and each socket's copy of it, costs the same
/// however long the game is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlayedList {
    chunks: Vec<Arc<[PlayedView]>>,
    tail: Vec<PlayedView>,
}

impl PlayedList {
    /// Moves per shared chunk.
    pub const CHUNK: usize = 8;

    /// The moves of `session` (none before a session starts).
    #[must_use]
    pub fn of(moves: &[session::PlayedMove]) -> PlayedList {
        let mut list = PlayedList::default();
        for m in moves {
            list.push_move(m);
        }
        list
    }

    /// Brings the list up to `moves`, the session's moves after one change: the new
    /// moves are added when moves were only added, else the list is made again.
    pub fn sync(&mut self, moves: &[session::PlayedMove]) {
        let len = self.len();
        let extends = moves.len() >= len
            && (len == 0 || self.iter().last().map(|v| &v.info) == Some(&moves[len - 1].info));
        if !extends {
            *self = PlayedList::of(moves);
            return;
        }
        for m in &moves[len..] {
            self.push_move(m);
        }
    }

    fn push_move(&mut self, m: &session::PlayedMove) {
        self.push_view(PlayedView {
            ply: self.len() + 1,
            player: m.player,
            info: m.info.clone(),
        });
    }

    /// How many moves.
    #[must_use]
    pub fn len(&self) -> usize {
        self.chunks.len() * Self::CHUNK + self.tail.len()
    }

    /// Whether no move was played.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty() && self.tail.is_empty()
    }

    /// The moves in order.
    pub fn iter(&self) -> impl Iterator<Item = &PlayedView> {
        self.chunks.iter().flat_map(|c| c.iter()).chain(&self.tail)
    }

    /// Where a list that follows this one need only say what comes after: the moves
    /// before it are in whole chunks (never changed once full) that `next` shares with
    /// this list, which a change leaves alone (it adds moves or takes some back).
    #[must_use]
    pub fn shared_with(&self, next: &PlayedList) -> usize {
        let kept = self.len().min(next.len());
        kept - kept % Self::CHUNK
    }

    /// The moves from the `from`th on, as a list of their own.
    #[must_use]
    pub fn since(&self, from: usize) -> PlayedList {
        let mut list = PlayedList::default();
        for view in self.iter().skip(from) {
            list.push_view(view.clone());
        }
        list
    }

    /// This list's first `upto` moves (a multiple of [`PlayedList::CHUNK`]) followed by
    /// `rest`; `None` when this list has fewer, or `upto` is not at a chunk's end.
    #[must_use]
    pub fn joined(&self, upto: usize, rest: &PlayedList) -> Option<PlayedList> {
        if !upto.is_multiple_of(Self::CHUNK) || upto > self.len() {
            return None;
        }
        let mut list = PlayedList {
            chunks: self.chunks.get(..upto / Self::CHUNK)?.to_vec(),
            tail: Vec::new(),
        };
        for view in rest.iter() {
            list.push_view(view.clone());
        }
        Some(list)
    }

    fn push_view(&mut self, view: PlayedView) {
        self.tail.push(view);
        if self.tail.len() == Self::CHUNK {
            self.chunks.push(Arc::from(std::mem::take(&mut self.tail)));
        }
    }
}

impl Serialize for PlayedList {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for PlayedList {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let moves = Vec::<PlayedView>::deserialize(deserializer)?;
        let mut list = PlayedList::default();
        for view in moves {
            list.push_view(view);
        }
        Ok(list)
    }
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
    /// ([`super::chat::rooms_for`]).
    pub chat: super::chat::ChatRights,
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
        /// The newest live games (at most [`super::lobby::WINDOW`]), newest first.
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
        games: Vec<super::people::Mine>,
    },
    /// To a player's own sockets: one of their games as it is after a change (written
    /// once per change and side by [`super::people::People::publish`]).
    MyGame {
        /// The game, with the receiver's side.
        game: super::people::Mine,
    },
    /// The answer to `{"t":"ping"}`.
    Pong,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A list of `n` moves (the same legal move's geometry, numbered).
    fn played(n: usize) -> PlayedList {
        let info = games::AnyGame::start(GameKind::Fetlar).legal_moves_info()[0].clone();
        let mut list = PlayedList::default();
        for ply in 1..=n {
            let player = if ply % 2 == 1 {
                Player::First
            } else {
                Player::Second
            };
            list.push_view(PlayedView {
                ply,
                player,
                info: info.clone(),
            });
        }
        list
    }

    #[test]
    fn a_list_after_a_change_is_its_shared_chunks_and_what_follows() {
        for (before, after) in [
            (0, 1),
            (7, 8),
            (8, 9),
            (17, 18),
            (16, 24),
            (20, 13),
            (9, 8),
            (3, 0),
        ] {
            let (old, new) = (played(before), played(after));
            let from = old.shared_with(&new);
            assert_eq!(from % PlayedList::CHUNK, 0);
            assert!(from <= before.min(after));
            let rest = new.since(from);
            assert_eq!(rest.len(), after - from);
            let joined = old.joined(from, &rest).expect("joined");
            assert_eq!(joined, new, "{before} then {after}");
            assert_eq!(
                serde_json::to_string(&joined).unwrap(),
                serde_json::to_string(&new).unwrap()
            );
        }
        // What the list does not have, or a cut inside a chunk, is refused.
        assert!(played(8).joined(16, &played(1)).is_none());
        assert!(played(12).joined(4, &played(1)).is_none());
    }

    #[test]
    fn client_messages_read_as_documented() {
        let read = |text: &str| serde_json::from_str::<ClientMessage>(text);
        assert_eq!(
            read(r#"{"t":"hello","rev":12}"#).unwrap(),
            ClientMessage::Hello { rev: 12 }
        );
        assert_eq!(
            read(r#"{"t":"move","rev":3,"move":"d1-d3"}"#).unwrap(),
            ClientMessage::Act(Act::Move {
                rev: Some(3),
                text: "d1-d3".into()
            })
        );
        assert_eq!(
            read(r#"{"t":"resign"}"#).unwrap(),
            ClientMessage::Act(Act::Resign)
        );
        assert_eq!(
            read(r#"{"t":"claim_victory"}"#).unwrap(),
            ClientMessage::Act(Act::ClaimVictory)
        );
        assert_eq!(
            read(r#"{"t":"claim_draw"}"#).unwrap(),
            ClientMessage::Act(Act::ClaimDraw)
        );
        assert_eq!(
            read(r#"{"t":"draw_offer"}"#).unwrap(),
            ClientMessage::Act(Act::DrawOffer)
        );
        for bad in [
            r#"{"t":"fly"}"#,
            r#"{"move":"d1-d3"}"#,
            "[]",
            "",
            r#"{"t":"move"}"#,
        ] {
            assert!(read(bad).is_err(), "{bad}");
            assert!(ClientMessage::parse(bad).is_err(), "{bad}");
        }
        let why = |text: &str| ClientMessage::parse(text).unwrap_err();
        assert_eq!(why(r#"{"t":"fly"}"#), "unknown message type `fly`");
        assert!(why(r#"{"t":"move"}"#).contains("missing field `move`"));
        assert!(why(r#"{"t":"chat","text":"hi"}"#).contains("`chat` message"));
        assert!(why("[]").contains("expected"), "{}", why("[]"));
    }

    #[test]
    fn every_kind_is_labelled_by_its_tag() {
        let mut labels: Vec<&str> = MessageKind::all().map(MessageKind::label).collect();
        for kind in MessageKind::all() {
            let label = kind.label();
            let text = match label {
                "invalid" => r#"{"t":"fly"}"#.to_owned(),
                "move" => r#"{"t":"move","move":"d1-d3"}"#.to_owned(),
                "chat" => r#"{"t":"chat","room":"players","text":"hi"}"#.to_owned(),
                _ => format!(r#"{{"t":"{label}"}}"#),
            };
            let parsed = ClientMessage::parse(&text).ok();
            assert_eq!(MessageKind::of(parsed.as_ref()), kind, "{text}");
        }
        labels.sort_unstable();
        labels.dedup();
        assert_eq!(labels.len(), MessageKind::all().count(), "one label a kind");
    }

    mod any_input {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            /// What the `server_messages` fuzz target checks, in the test suite's short
            /// form: any text, or a message of any tag with fields of any kind, reads as
            /// a message or as an error (never a panic), and a move's text read from it
            /// is tried on each game's start as the game's owner tries it.
            #[test]
            fn reads_as_a_message_or_an_error(
                raw in ".{0,80}",
                tag in prop::sample::select(vec!["hello", "move", "resign", "draw_offer", "takeback", "chat", "claim_victory", "fly", ""]),
                field in prop::sample::select(vec!["rev", "move", "text", "t", "id"]),
                value in prop_oneof![
                    any::<i64>().prop_map(|n| n.to_string()),
                    any::<f64>().prop_map(|n| n.to_string()),
                    ".{0,24}".prop_map(|s| serde_json::to_string(&s).unwrap()),
                    Just("null".to_string()),
                    Just("[1,{}]".to_string()),
                ],
                mv in "[a-q]{1,2}[0-9]{1,2}([-x][a-q][0-9]{1,2}){1,4}",
            ) {
                let _ = serde_json::from_str::<ClientMessage>(&raw);
                let built = format!(
                    r#"{{"t":"{tag}","{field}":{value},"move":{}}}"#,
                    serde_json::to_string(&mv).unwrap()
                );
                for text in [raw.as_str(), built.as_str()] {
                    if let Ok(ClientMessage::Act(Act::Move { text, .. })) = serde_json::from_str::<ClientMessage>(text) {
                        for kind in GameKind::ALL {
                            let _ = games::AnyGame::start(kind).try_play(&text);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn every_refusal_reason_is_documented_and_said_in_words() {
        let api = include_str!("../../../../docs/API.md");
        let client = include_str!("../../../../web/js/ui.js");
        for reason in Refusal::REASONS {
            assert!(
                api.contains(&format!("`{reason}`")),
                "docs/API.md: {reason}"
            );
            assert!(
                client.contains(&format!("  {reason}: 'error.{reason}',")),
                "web/js/ui.js: {reason}"
            );
        }
    }

    #[test]
    fn actions_are_the_client_messages_that_do_them() {
        for &action in Action::ALL {
            let name = serde_json::to_value(action).unwrap();
            // A move names its move; the other acts ignore the field.
            let message = serde_json::json!({ "t": name, "move": "d1-d3" });
            match serde_json::from_value::<ClientMessage>(message) {
                Ok(ClientMessage::Act(act)) => assert_eq!(Action::from(&act), action),
                other => panic!("{name} is a client message: {other:?}"),
            }
            assert_eq!(Action::from_tag(name.as_str().unwrap()), Some(action));
        }
    }

    #[test]
    fn a_status_is_named_alike_at_every_layer() {
        use crate::store::GameStatus;
        use session::Status;
        for stored in [
            GameStatus::Waiting,
            GameStatus::Playing,
            GameStatus::Finished,
            GameStatus::Aborted,
        ] {
            assert_eq!(
                serde_json::to_value(GameStatusView::from(stored)).unwrap(),
                serde_json::to_value(stored).unwrap()
            );
        }
        let finished = Status::Finished {
            outcome: Outcome {
                winner: Some(Player::First),
                reason: game::EndReason::KingCaptured,
            },
        };
        let aborted = Status::Aborted {
            by: Player::Second,
            reason: session::AbortReason::default(),
        };
        for (status, stored, view) in [
            (
                Status::Ongoing,
                GameStatus::Playing,
                GameStatusView::Ongoing,
            ),
            (finished, GameStatus::Finished, GameStatusView::Finished),
            (aborted, GameStatus::Aborted, GameStatusView::Aborted),
        ] {
            assert_eq!(GameStatus::from(status), stored);
            assert_eq!(GameStatusView::from(status), view);
        }
    }

    #[test]
    fn the_tags_are_the_variants_as_serde_names_them() {
        use strum::VariantArray;
        assert_eq!(ServerTag::VARIANTS.len(), ServerMessage::TAGS.len());
        for (tag, name) in ServerTag::VARIANTS.iter().zip(ServerMessage::TAGS) {
            assert_eq!(serde_json::to_value(tag).unwrap(), *name);
        }
        assert_eq!(LobbyTag::VARIANTS.len(), LobbyMessage::TAGS.len());
        for (tag, name) in LobbyTag::VARIANTS.iter().zip(LobbyMessage::TAGS) {
            assert_eq!(serde_json::to_value(tag).unwrap(), *name);
        }
        assert!(ServerMessage::TAGS.contains(&"absent"));
    }

    #[test]
    fn the_tags_are_those_sent() {
        let game = [
            ServerMessage::Clocks { clocks: None },
            ServerMessage::Watchers { count: 1 },
            ServerMessage::Absent { absent: Vec::new() },
            ServerMessage::Rematch { id: "x".into() },
            Refusal::new(SocketError::Stale, "x").into(),
            ServerMessage::Pong,
        ];
        for message in &game {
            let t = serde_json::to_value(message).unwrap()["t"].clone();
            let listed = ServerMessage::TAGS[ServerTag::from(message) as usize];
            assert_eq!(t, listed, "{message:?}");
        }
        let lobby = [
            LobbyMessage::ChallengeAccepted {
                challenge: "c".into(),
                game: "g".into(),
            },
            LobbyMessage::MyGames { games: Vec::new() },
            LobbyMessage::Snapshot {
                v: 1,
                games: Vec::new(),
                live: 0,
                challenges: Vec::new(),
            },
            LobbyMessage::Pong,
        ];
        for message in &lobby {
            let t = serde_json::to_value(message).unwrap()["t"].clone();
            let listed = LobbyMessage::TAGS[LobbyTag::from(message) as usize];
            assert_eq!(t, listed, "{message:?}");
        }
    }

    #[test]
    fn the_movers_events_text_is_the_public_one_with_the_moves() {
        for kind in [GameKind::Copenhagen, GameKind::Camelot] {
            let game = games::AnyGame::start(kind);
            let files = games::Board::files(&game);
            let legal = LegalMoves::from_wire(files, games::Board::legal_moves_wire(&game));
            assert_eq!(
                legal,
                LegalMoves::from_infos(&game.legal_moves_info(), files)
            );
            assert_eq!(legal.infos(), game.legal_moves_info());
            // Between processes and back.
            let there: LegalMoves =
                serde_json::from_str(&serde_json::to_string(&legal).unwrap()).unwrap();
            assert_eq!(there, legal);
            let none: LegalMoves =
                serde_json::from_str(&serde_json::to_string(&LegalMoves::default()).unwrap())
                    .unwrap();
            assert!(none.is_empty());
            let board = BoardView::of(&game);
            let mut view = EventsView {
                from_rev: 3,
                rev: 4,
                events: Vec::new(),
                status: GameStatusView::Ongoing,
                result: None,
                pieces: board.pieces(),
                to_move: board.to_move,
                clocks: None,
                draw_offer: Some(Player::Second),
                takeback_request: None,
                actions: Actions::default(),
                legal: LegalMoves::default(),
            };
            let public =
                serde_json::to_string(&ServerMessage::Events(Box::new(view.clone()))).unwrap();
            assert!(public.ends_with(r#""legal":[]}"#), "{public}");
            view.legal.clone_from(&legal);
            let whole = serde_json::to_string(&ServerMessage::Events(Box::new(view))).unwrap();
            assert_eq!(
                EventsView::with_legal_moves(&public, &legal).unwrap(),
                whole
            );
        }
        assert_eq!(
            EventsView::with_legal_moves("{\"t\":\"pong\"}", &LegalMoves::default()),
            None
        );
    }

    #[test]
    fn a_correspondence_game_is_one_of_days_per_move() {
        for control in ["1d", "3d", "14d"] {
            assert!(is_correspondence(control), "{control}");
        }
        for control in ["5+3", "0.5+0", "untimed", "", "d", "0d", "3 days"] {
            assert!(!is_correspondence(control), "{control}");
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
