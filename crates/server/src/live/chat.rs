//! Game chat: the players' room and the spectators' room of every game between people.
//!
//! The players' room is read by the two players while the game goes on; the
//! spectators' room by everyone else (the players cannot read it, as on lichess). Once
//! the game is over both are read by everyone. A message is checked here (length, one
//! line, no control or bidi-override characters, the profanity filter, the author's rate
//! limit and sanctions), stored, then published once on the game's [`Feed`] as one
//! serialised `chat` message that each socket of the game writes if its viewer may read
//! that room. The feed keeps the last [`HISTORY`] messages of each room for the sockets
//! that open later. Who may read and write each room is [`rooms_for`], which the game
//! view sends each viewer (`chat`) and [`post`] holds messages to.

use std::sync::Arc;
use std::time::Duration;

use game::Player;
use rustrict::CensorStr;
use serde::{Deserialize, Serialize};

use super::feed::Feed;
use super::messages::{GameStatusView, Refusal, ServerMessage, SocketError};
use super::{Ident, feed};
use crate::auth::Viewer;
use crate::state::AppState;
use crate::store::{ChatRecord, SeatRecord, StoreError, now_ms};

/// The longest message, in characters.
pub const MAX_CHARS: usize = 500;
/// How many messages of each room the feed keeps for sockets that open later (and a
/// finished game's chat lists at most: [`ARCHIVE`]).
pub const HISTORY: usize = 50;
/// The most messages a finished game's chat shows (both rooms together).
pub const ARCHIVE: usize = 2 * HISTORY;
/// Messages one author may send in a burst ...
pub const BURST: u32 = 5;
/// ... then one more each this long (five messages per ten seconds at most).
pub const REFILL: Duration = Duration::from_secs(2);

/// A game's chat room.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChatRoom {
    /// The two players.
    Players,
    /// Everyone else.
    Spectators,
}

impl ChatRoom {
    /// Both rooms.
    pub const BOTH: [ChatRoom; 2] = [ChatRoom::Players, ChatRoom::Spectators];

    /// The room's name as stored and sent.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            ChatRoom::Players => "players",
            ChatRoom::Spectators => "spectators",
        }
    }

    /// The room named `name`.
    #[must_use]
    pub fn from_name(name: &str) -> Option<ChatRoom> {
        ChatRoom::BOTH.into_iter().find(|r| r.as_str() == name)
    }

    /// Its place in per-room arrays.
    #[must_use]
    pub fn index(self) -> usize {
        match self {
            ChatRoom::Players => 0,
            ChatRoom::Spectators => 1,
        }
    }

    /// Whether a viewer on side `you` (a spectator: `None`) reads this room, the game
    /// being over (`over`) or not: the room it writes in, and both once over.
    #[must_use]
    pub fn readable_by(self, you: Option<Player>, over: bool) -> bool {
        over || self.writable_by(you)
    }

    /// Whether a viewer on side `you` (a spectator: `None`) writes in this room: a player
    /// in the players' room, anyone else in the spectators' (with an account: see
    /// [`post`]).
    #[must_use]
    pub fn writable_by(self, you: Option<Player>) -> bool {
        match self {
            ChatRoom::Players => you.is_some(),
            ChatRoom::Spectators => you.is_none(),
        }
    }
}

/// What a viewer may do in one room of a game's chat.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoomRights {
    /// Reads the room while the game goes on.
    pub read: bool,
    /// Reads the room once the game is over (finished or aborted).
    pub read_over: bool,
    /// Writes in the room. A spectator writes with an account: a guest's or a signed-out
    /// visitor's message is refused (`sign_in`).
    pub write: bool,
}

/// What a viewer may do in each room of a game's chat: `chat` in the game view, so that
/// a client shows the rooms without knowing the rules. All `false` in a game that has no
/// chat ([`closed`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatRights {
    /// The players' room.
    pub players: RoomRights,
    /// The spectators' room.
    pub spectators: RoomRights,
}

impl ChatRights {
    /// The rights in `room`.
    #[must_use]
    pub fn room(&self, room: ChatRoom) -> RoomRights {
        match room {
            ChatRoom::Players => self.players,
            ChatRoom::Spectators => self.spectators,
        }
    }
}

/// Why a game with these seats has no chat: the AI plays in it, or a seat has nobody (a
/// game waiting for its second player, an imported record); `None` when two people sit.
#[must_use]
pub fn closed(seats: [&SeatRecord; 2]) -> Option<ChatRefusal> {
    if seats.iter().any(|s| s.ai_level.is_some()) {
        Some(ChatRefusal::AiGame)
    } else if seats.iter().any(|s| s.player().is_none()) {
        Some(ChatRefusal::NotStarted)
    } else {
        None
    }
}

/// What the viewer on side `you` (a spectator: `None`) may do in each room of the chat
/// of a game with these `seats`: a player reads and writes the players' room, anyone
/// else the spectators' room, and once the game is over everyone reads both.
#[must_use]
pub fn rooms_for(seats: [&SeatRecord; 2], you: Option<Player>) -> ChatRights {
    if closed(seats).is_some() {
        return ChatRights::default();
    }
    let rights = |room: ChatRoom| RoomRights {
        read: room.readable_by(you, false),
        read_over: room.readable_by(you, true),
        write: room.writable_by(you),
    };
    ChatRights {
        players: rights(ChatRoom::Players),
        spectators: rights(ChatRoom::Spectators),
    }
}

/// A chat message as sent (`{"t":"chat",...}`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChatLine {
    /// The message's id (to report it).
    pub id: String,
    /// The room it was said in.
    pub room: ChatRoom,
    /// The author's name.
    pub from: String,
    /// Whether the author is a guest.
    pub guest: bool,
    /// What was said.
    pub text: String,
    /// When (ms since the Unix epoch).
    pub at: i64,
}

impl ChatLine {
    /// The line of a stored message (`None` for a room this server does not know).
    #[must_use]
    pub fn of(record: &ChatRecord) -> Option<ChatLine> {
        Some(ChatLine {
            id: record.id.clone(),
            room: ChatRoom::from_name(&record.room)?,
            from: record.author.clone(),
            guest: record.user_id.is_none(),
            text: record.body.clone(),
            at: record.created_at,
        })
    }

    /// The `chat` message, serialised.
    #[must_use]
    pub fn text(&self) -> Arc<str> {
        feed::to_text(&ServerMessage::Chat(Box::new(self.clone())))
    }
}

/// Who writes: the socket's identity and the name others see.
#[derive(Clone, Debug, Default)]
pub struct Author {
    ident: Ident,
    name: Option<String>,
}

impl Author {
    /// The author behind `viewer` (an anonymous visitor has no name and cannot write).
    #[must_use]
    pub fn of(viewer: &Viewer) -> Author {
        let name = match viewer {
            Viewer::User { user, .. } => Some(user.username.clone()),
            Viewer::Guest(guest) => Some(guest.name.clone()),
            Viewer::Anonymous => None,
        };
        Author {
            ident: Ident::from(viewer),
            name,
        }
    }

    /// The author's account, when signed in.
    #[must_use]
    pub fn user_id(&self) -> Option<&str> {
        self.ident.user.as_deref()
    }

    /// The name others see (`None` for an anonymous visitor).
    #[must_use]
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }
}

/// The per-author rate limit of chat messages: [`BURST`] at once, one more each
/// [`REFILL`].
pub const LIMIT: crate::config::RateLimit = crate::config::RateLimit::new(BURST, REFILL);

/// Why a chat message is refused: a word a client translates
/// ([`ChatRefusal::word`]), sent as `reason` beside the English `message`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChatRefusal {
    /// The message is empty.
    Empty,
    /// Longer than [`MAX_CHARS`].
    TooLong,
    /// A control or bidi character.
    NotOneLine,
    /// The language filter.
    Language,
    /// The author's rate limit.
    TooMany,
    /// Banned by a moderator.
    Banned,
    /// Muted for now.
    Muted,
    /// A visitor (no account or seat) where only players or accounts may write.
    SignIn,
    /// A game against the AI.
    AiGame,
    /// The game waits for its second player.
    NotStarted,
    /// A spectator in the players' room, or a player in the spectators' room.
    WrongRoom,
}

impl ChatRefusal {
    /// Every reason, for the documentation test.
    pub const ALL: [ChatRefusal; 11] = [
        ChatRefusal::Empty,
        ChatRefusal::TooLong,
        ChatRefusal::NotOneLine,
        ChatRefusal::Language,
        ChatRefusal::TooMany,
        ChatRefusal::Banned,
        ChatRefusal::Muted,
        ChatRefusal::SignIn,
        ChatRefusal::AiGame,
        ChatRefusal::NotStarted,
        ChatRefusal::WrongRoom,
    ];

    /// The word sent as `reason`.
    #[must_use]
    pub fn word(self) -> &'static str {
        match self {
            ChatRefusal::Empty => "empty",
            ChatRefusal::TooLong => "too_long",
            ChatRefusal::NotOneLine => "not_one_line",
            ChatRefusal::Language => "language",
            ChatRefusal::TooMany => "too_many",
            ChatRefusal::Banned => "banned",
            ChatRefusal::Muted => "muted",
            ChatRefusal::SignIn => "sign_in",
            ChatRefusal::AiGame => "ai_game",
            ChatRefusal::NotStarted => "not_started",
            ChatRefusal::WrongRoom => "wrong_room",
        }
    }

    /// The refusal to send, with `message` in words.
    #[must_use]
    pub fn refusal(self, message: impl Into<String>) -> Refusal {
        Refusal {
            reason: Some(self.word()),
            ..Refusal::new(SocketError::ChatRefused, message)
        }
    }
}

/// Why a text cannot be said, in words; `None` when it can. The text is taken as it is
/// (the caller trims it).
#[must_use]
pub fn text_problem(text: &str) -> Option<String> {
    text_refusal(text).map(|(_, words)| words)
}

/// As [`text_problem`], with the reason.
fn text_refusal(text: &str) -> Option<(ChatRefusal, String)> {
    if text.is_empty() {
        return Some((
            ChatRefusal::Empty,
            "say something: the message is empty".into(),
        ));
    }
    let count = text.chars().count();
    if count > MAX_CHARS {
        return Some((
            ChatRefusal::TooLong,
            format!("a message has at most {MAX_CHARS} characters (this one has {count})"),
        ));
    }
    if let Some(c) = text.chars().find(|&c| c.is_control() || is_bidi_control(c)) {
        return Some((
            ChatRefusal::NotOneLine,
            format!(
                "a message is one line of text: the character U+{:04X} is not allowed",
                u32::from(c)
            ),
        ));
    }
    if text.is_inappropriate() {
        return Some((
            ChatRefusal::Language,
            "the message was refused by the language filter: please rephrase".into(),
        ));
    }
    None
}

/// The characters that reorder how text around them is shown (embeddings, overrides,
/// isolates and the Arabic letter mark): a name or message could look like another.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Whether the game whose latest state `feed` holds is over.
#[must_use]
pub fn is_over(feed: &Feed) -> bool {
    matches!(
        feed.snapshot().view.status,
        GameStatusView::Finished | GameStatusView::Aborted
    )
}

/// Says `text` in `room` of the game `game_id` (live: `feed`): checks it, stores it and
/// publishes it to the sockets that may read the room.
///
/// # Errors
/// `chat_refused` with the reason, or `internal` when it cannot be stored; nothing is
/// stored or sent then.
pub async fn post(
    state: &AppState,
    game_id: &str,
    feed: &Feed,
    author: &Author,
    room: ChatRoom,
    text: &str,
) -> Result<(), Refusal> {
    let (Some(name), Some(key)) = (&author.name, author.ident.key()) else {
        return Err(ChatRefusal::SignIn.refusal("only players and signed-in visitors may chat"));
    };
    let snapshot = feed.snapshot();
    if let Some(why) = closed(snapshot.seats.each_ref()) {
        return Err(why.refusal(if why == ChatRefusal::AiGame {
            "chat is off in games against the AI"
        } else {
            "chat opens when both players are seated"
        }));
    }
    let you = author.ident.side_among(&snapshot.seats);
    if !rooms_for(snapshot.seats.each_ref(), you).room(room).write {
        return Err(ChatRefusal::WrongRoom.refusal(match room {
            ChatRoom::Players => "only the players write in the players' room",
            ChatRoom::Spectators => "the players do not write in the spectators' room",
        }));
    }
    if room == ChatRoom::Spectators && author.ident.user.is_none() {
        return Err(ChatRefusal::SignIn.refusal("sign in to chat in the spectators' room"));
    }
    let text = text.trim();
    let now = admit(state, key, author.ident.user.as_deref(), text).await?;
    let record = ChatRecord {
        id: String::new(),
        game_id: game_id.to_owned(),
        room: room.as_str().to_owned(),
        user_id: author.ident.user.clone(),
        guest_id: if author.ident.user.is_some() {
            None
        } else {
            author.ident.guest.clone()
        },
        author: name.clone(),
        body: text.to_owned(),
        created_at: now,
    };
    let stored = state.store.add_chat(&record).await.map_err(|error| {
        tracing::error!(%error, "storing a chat message");
        Refusal::new(SocketError::Internal, "the message cannot be stored now")
    })?;
    if let Some(line) = ChatLine::of(&stored) {
        feed.chat(room, line.text());
    }
    Ok(())
}

/// The checks every chat message passes, in a game's room or the lobby: the text
/// ([`text_problem`]), the author's rate limit (`key`: their user or guest id, game and
/// lobby chat together) and the account's ban or mute. Returns the time of the message.
///
/// # Errors
/// `chat_refused` with the reason; `internal` when the sanction cannot be read.
pub(super) async fn admit(
    state: &AppState,
    key: &str,
    user: Option<&str>,
    text: &str,
) -> Result<i64, Refusal> {
    if let Some((why, problem)) = text_refusal(text) {
        return Err(why.refusal(problem));
    }
    if !state.limiters.chat.take(&key.to_owned()).await {
        return Err(ChatRefusal::TooMany.refusal(format!(
            "too many messages: at most {BURST} in {} seconds",
            u64::from(BURST) * REFILL.as_secs()
        )));
    }
    let now = now_ms();
    if let Some(user) = user {
        // Read at every message: a ban or mute from `kingstable admin` (another process)
        // holds from the next message on, on sockets already open.
        let sanction = state.store.sanction(user).await.map_err(|error| {
            tracing::error!(%error, "reading a chat sanction");
            Refusal::new(SocketError::Internal, "the message cannot be stored now")
        })?;
        if sanction.banned {
            return Err(
                ChatRefusal::Banned.refusal("your account may not chat (banned by a moderator)")
            );
        }
        if sanction.bars(now) {
            return Err(ChatRefusal::Muted.refusal("your account is muted in chat for now"));
        }
    }
    Ok(now)
}

/// Loads the recent messages of `game_id` into its feed (a game resumed at start).
///
/// # Errors
/// On a database failure.
pub async fn restore(state: &AppState, game_id: &str, feed: &Feed) -> Result<(), StoreError> {
    for room in ChatRoom::BOTH {
        let records = state
            .store
            .game_chat(game_id, Some(room.as_str()), HISTORY)
            .await?;
        let texts = records
            .iter()
            .filter_map(ChatLine::of)
            .map(|line| line.text())
            .collect();
        feed.load_chat(room, texts);
    }
    Ok(())
}

/// The messages of a finished game that has no owner any more, as sent.
///
/// # Errors
/// On a database failure.
pub async fn stored_lines(state: &AppState, game_id: &str) -> Result<Vec<ChatLine>, StoreError> {
    let records = state.store.game_chat(game_id, None, ARCHIVE).await?;
    Ok(records.iter().filter_map(ChatLine::of).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chat_text_is_one_line_of_bounded_length_without_bidi_overrides() {
        assert_eq!(text_problem("good luck, have fun"), None);
        assert_eq!(text_problem(&"é".repeat(MAX_CHARS)), None);
        assert!(text_problem(&"é".repeat(MAX_CHARS + 1)).is_some());
        assert!(text_problem("").is_some());
        for bad in ["a\nb", "a\u{7}b", "a\u{202E}b", "a\u{2066}b", "\u{200F}x"] {
            assert!(text_problem(bad).unwrap().contains("U+"), "{bad:?}");
        }
        assert!(
            text_problem("fuck you")
                .unwrap()
                .contains("language filter")
        );
    }

    #[test]
    fn chat_rooms_are_private_until_the_end() {
        let (player, spectator) = (Some(Player::First), None);
        assert!(ChatRoom::Players.readable_by(player, false));
        assert!(!ChatRoom::Players.readable_by(spectator, false));
        assert!(!ChatRoom::Spectators.readable_by(player, false));
        assert!(ChatRoom::Spectators.readable_by(spectator, false));
        for room in ChatRoom::BOTH {
            assert!(room.readable_by(player, true) && room.readable_by(spectator, true));
            assert_eq!(ChatRoom::from_name(room.as_str()), Some(room));
        }
    }

    /// A seat taken by a person (`user`: an account, else a guest) or the AI.
    fn seat(user: Option<&str>, guest: Option<&str>, ai: Option<u8>) -> SeatRecord {
        SeatRecord {
            user_id: user.map(|u| format!("id-{u}")),
            username: user.map(str::to_owned),
            guest_id: guest.map(|g| format!("id-{g}")),
            guest_name: guest.map(str::to_owned),
            ai_level: ai,
        }
    }

    #[test]
    fn each_viewer_is_told_which_rooms_it_reads_and_writes() {
        let (ragnar, guest) = (
            seat(Some("ragnar"), None, None),
            seat(None, Some("Guest 7"), None),
        );
        let people = [&ragnar, &guest];
        let room = |read, read_over, write| RoomRights {
            read,
            read_over,
            write,
        };
        for you in [Some(Player::First), Some(Player::Second)] {
            assert_eq!(
                rooms_for(people, you),
                ChatRights {
                    players: room(true, true, true),
                    spectators: room(false, true, false),
                },
                "a player: {you:?}"
            );
        }
        assert_eq!(
            rooms_for(people, None),
            ChatRights {
                players: room(false, true, false),
                spectators: room(true, true, true),
            },
            "a spectator"
        );
        // The rights agree with who reads each room's messages on the sockets.
        for you in [Some(Player::First), None] {
            let rights = rooms_for(people, you);
            for room in ChatRoom::BOTH {
                assert_eq!(rights.room(room).read, room.readable_by(you, false));
                assert_eq!(rights.room(room).read_over, room.readable_by(you, true));
            }
        }
    }

    #[test]
    fn a_game_against_the_ai_or_with_a_seat_open_has_no_chat() {
        let person = seat(Some("ragnar"), None, None);
        let (ai, open) = (seat(None, None, Some(3)), SeatRecord::default());
        assert_eq!(closed([&person, &ai]), Some(ChatRefusal::AiGame));
        assert_eq!(closed([&open, &person]), Some(ChatRefusal::NotStarted));
        assert_eq!(closed([&open, &open]), Some(ChatRefusal::NotStarted));
        assert_eq!(closed([&person, &person]), None);
        for seats in [[&person, &ai], [&ai, &person], [&person, &open]] {
            for you in [Some(Player::First), Some(Player::Second), None] {
                assert_eq!(rooms_for(seats, you), ChatRights::default(), "{you:?}");
            }
        }
    }

    #[tokio::test]
    async fn a_chat_author_is_limited_to_a_burst() {
        let limiter = crate::security::Limiters::new(&crate::config::RateLimits::default()).chat;
        let (a, b) = ("a".to_owned(), "b".to_owned());
        for _ in 0..BURST {
            assert!(limiter.take(&a).await);
        }
        assert!(!limiter.take(&a).await);
        assert!(
            limiter.take(&b).await,
            "another author has their own bucket"
        );
    }
}
