//! What a game publishes ([`Published`]), one kind per variant, and how it is written on
//! the bus for the processes that relay the game: as it is, serialised once, with the
//! texts the sockets send embedded as the JSON they are.

use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use session::Clocks;

use super::{ChatRoom, Frame, GameView, LegalMoves, Seats, Snapshot, Tap, WatcherCount};

/// What a game publishes, one kind per variant: what its sockets here are told, and,
/// serialised as it is, what the processes that relay the game read on the bus
/// ([`crate::live::remote`]). A new kind is a variant here, what the feed keeps of it
/// (in [`super::Feed::publish`]) and what a socket sends for it.
///
/// `S` is how the state after a change travels with it: into [`super::Feed::publish`] as the
/// owner's own ([`Publication`]); not at all to the sockets (`()`: they read it from the
/// feed); on the bus as its moves from where they differ from the state before (see
/// [`crate::live::remote`]).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Published<S = ()> {
    /// A change: the session moved on.
    Change {
        /// The change, serialised.
        #[serde(with = "shared")]
        frame: Arc<Frame>,
        /// The state after it.
        snapshot: S,
    },
    /// Something the events do not carry (a seat taken, a waiting game called off):
    /// every socket sends the whole state.
    Reset {
        /// The new state.
        snapshot: S,
    },
    /// A new state that changes nothing the sockets were told (a rating shown after
    /// the end): kept for the sockets that connect, and not sent to those open.
    Refresh {
        /// The new state.
        snapshot: S,
    },
    /// The number of watchers (at most a few a second).
    Watchers(#[serde(with = "shared")] Arc<WatcherCount>),
    /// The agreed rematch: its `rematch` message.
    Rematch(#[serde(with = "embedded")] Arc<str>),
    /// Who has left the game (every socket of theirs closed), and when the opponent may
    /// claim: on every arrival and departure (an `absent` message).
    Absent(#[serde(with = "embedded")] Arc<str>),
    /// A chat message said in a room: written by the sockets that may read that room.
    Chat(ChatRoom, #[serde(with = "embedded")] Arc<str>),
    /// Another server process owns the game now: the sockets close (their clients
    /// connect again).
    Moved,
}

/// What the owner hands [`super::Feed::publish`]: each kind with the state after it.
pub type Publication = Published<Arc<Snapshot>>;

impl<S> Published<S> {
    /// What the sockets are told, and the state that came with it (for the kinds that
    /// carry one).
    pub(super) fn split(self) -> (Published, Option<S>) {
        match self {
            Published::Change { frame, snapshot } => (
                Published::Change {
                    frame,
                    snapshot: (),
                },
                Some(snapshot),
            ),
            Published::Reset { snapshot } => (Published::Reset { snapshot: () }, Some(snapshot)),
            Published::Refresh { snapshot } => {
                (Published::Refresh { snapshot: () }, Some(snapshot))
            }
            Published::Watchers(count) => (Published::Watchers(count), None),
            Published::Rematch(text) => (Published::Rematch(text), None),
            Published::Absent(text) => (Published::Absent(text), None),
            Published::Chat(room, text) => (Published::Chat(room, text), None),
            Published::Moved => (Published::Moved, None),
        }
    }
}

impl Published {
    /// The same with `state` as the state after it (dropped by the kinds without one).
    pub(crate) fn with_state<T>(self, state: T) -> Published<T> {
        match self {
            Published::Change { frame, .. } => Published::Change {
                frame,
                snapshot: state,
            },
            Published::Reset { .. } => Published::Reset { snapshot: state },
            Published::Refresh { .. } => Published::Refresh { snapshot: state },
            Published::Watchers(count) => Published::Watchers(count),
            Published::Rematch(text) => Published::Rematch(text),
            Published::Absent(text) => Published::Absent(text),
            Published::Chat(room, text) => Published::Chat(room, text),
            Published::Moved => Published::Moved,
        }
    }

    /// The change, for a [`Published::Change`].
    pub(super) fn frame(&self) -> Option<&Frame> {
        match self {
            Published::Change { frame, .. } => Some(frame),
            _ => None,
        }
    }

    /// Whether the sockets are told of it (a refresh is only kept).
    pub(super) fn is_told(&self) -> bool {
        !matches!(self, Published::Refresh { .. })
    }
}

/// How the state after a publication reaches [`super::Feed::publish`]: the owner's own, or as
/// a relay read it from the bus ([`crate::live::remote`]).
pub trait StateAfter {
    /// The state after the publication, given the state `before` it and, for a change,
    /// the change.
    fn resolve(self, before: &Snapshot, change: Option<&Frame>) -> Resolved;
}

/// The state after a publication, as [`StateAfter::resolve`] finds it.
#[derive(Debug)]
pub enum Resolved {
    /// This one.
    Apply(Arc<Snapshot>),
    /// A change the feed has already had: nothing to do.
    Stale,
    /// It does not follow the state the feed has (something was missed).
    Missed,
}

impl StateAfter for Arc<Snapshot> {
    fn resolve(self, _before: &Snapshot, _change: Option<&Frame>) -> Resolved {
        Resolved::Apply(self)
    }
}

/// A publication that does not follow the feed's state (see [`Resolved::Missed`]):
/// nothing was published; the relay asks for the whole state.
#[derive(Debug, PartialEq, Eq)]
pub struct Missed;

/// A snapshot as the owner publishes it: after a change, its moves only from where they
/// differ from the snapshot before (whose moves the relay has), so that a change costs
/// the same at any length of game.
#[derive(Serialize)]
pub(crate) struct SnapshotRef<'a> {
    view: std::borrow::Cow<'a, GameView>,
    /// The index of the first move in `view` (0: all of them).
    #[serde(skip_serializing_if = "is_zero")]
    moves_from: usize,
    /// How many moves the game has (with `moves_from`).
    moves_len: usize,
    legal: &'a LegalMoves,
    seats: &'a Seats,
    clocks: &'a Option<Clocks>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl<'a> SnapshotRef<'a> {
    /// The whole snapshot.
    pub(crate) fn of(snapshot: &'a Snapshot) -> SnapshotRef<'a> {
        SnapshotRef {
            view: std::borrow::Cow::Borrowed(&snapshot.view),
            moves_from: 0,
            moves_len: snapshot.view.moves.len(),
            legal: &snapshot.legal,
            seats: &snapshot.seats,
            clocks: &snapshot.clocks,
        }
    }

    /// `snapshot`, the one after `before`, with only the moves `before` does not share.
    pub(crate) fn after(before: &Snapshot, snapshot: &'a Snapshot) -> SnapshotRef<'a> {
        let from = before.view.moves.shared_with(&snapshot.view.moves);
        let mut whole = SnapshotRef::of(snapshot);
        if from > 0 {
            let mut view = snapshot.view.clone();
            view.moves = snapshot.view.moves.since(from);
            whole.view = std::borrow::Cow::Owned(view);
            whole.moves_from = from;
        }
        whole
    }
}

/// A snapshot as a relay reads it.
#[derive(Deserialize)]
pub(crate) struct SnapshotIn {
    view: GameView,
    #[serde(default)]
    moves_from: usize,
    moves_len: usize,
    legal: LegalMoves,
    seats: Seats,
    clocks: Option<Clocks>,
}

impl SnapshotIn {
    /// The snapshot, whose first moves (when it says only the later ones) are those of
    /// `before`; `None` when `before` does not have them.
    fn into_snapshot_after(mut self, before: &Snapshot) -> Option<Snapshot> {
        if self.moves_from > 0 {
            self.view.moves = before
                .view
                .moves
                .joined(self.moves_from, &self.view.moves)?;
        }
        (self.view.moves.len() == self.moves_len).then(|| self.into_whole())
    }

    /// The snapshot, which has all its moves.
    fn into_whole(self) -> Snapshot {
        Snapshot::new(self.view, self.legal, self.seats, self.clocks)
    }

    /// The snapshot, if it has all its moves.
    pub(crate) fn into_snapshot(self) -> Option<Snapshot> {
        (self.moves_from == 0 && self.view.moves.len() == self.moves_len).then(|| self.into_whole())
    }
}

impl StateAfter for SnapshotIn {
    /// After a change, the snapshot whose first moves are those of `before` (a change
    /// already had is [`Resolved::Stale`]; one that does not follow `before`,
    /// [`Resolved::Missed`]); else the whole snapshot it is.
    fn resolve(self, before: &Snapshot, change: Option<&Frame>) -> Resolved {
        let snapshot = match change {
            Some(frame) if frame.to <= before.rev() => return Resolved::Stale,
            Some(frame) if frame.from != before.rev() => return Resolved::Missed,
            Some(_) => self.into_snapshot_after(before),
            None => self.into_snapshot(),
        };
        snapshot.map_or(Resolved::Missed, |snapshot| {
            Resolved::Apply(Arc::new(snapshot))
        })
    }
}

/// `told` (what the feed of a game told its sockets) as the bus carries it, with the
/// state `after` it: after a change, with its moves from where they differ from those
/// of the state `before` it, so that a change costs the same at any length of game.
///
/// # Errors
/// When a text it embeds is not JSON (a bug: it is not published, and relays catch up).
pub(super) fn on_the_bus(
    told: &Published,
    before: &Snapshot,
    after: &Snapshot,
) -> serde_json::Result<Vec<u8>> {
    let state = match told {
        Published::Change { .. } => SnapshotRef::after(before, after),
        _ => SnapshotRef::of(after),
    };
    serde_json::to_vec(&told.clone().with_state(state))
}

/// Publishes `told` for the processes listening to the game ([`on_the_bus`]).
pub(super) fn publish(tap: &Tap, told: &Published, before: &Snapshot, after: &Snapshot) {
    match on_the_bus(told, before, after) {
        Ok(bytes) => tap.bus.publish(tap.channel.clone(), Arc::from(bytes)),
        Err(error) => tracing::error!(%error, "a game's publication cannot be written for the bus"),
    }
}

/// Embeds a message text the feed holds (always JSON: the feed's texts are written by
/// [`super::to_text`]) in another as the JSON it is, not as a string: nothing to escape,
/// nothing to unescape, and a relay sends what it reads as it is.
pub(crate) mod embedded {
    use std::sync::Arc;

    use game::Player;
    use serde::ser::Error as _;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use serde_json::value::RawValue;

    /// `text`, which is JSON, as the JSON it is.
    pub(crate) fn raw(text: &str) -> Result<&RawValue, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// Writes `text` as the JSON it is (an error, and nothing written, if it is not JSON).
    pub(crate) fn serialize<S: Serializer>(
        text: &Arc<str>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        raw(text).map_err(S::Error::custom)?.serialize(serializer)
    }

    /// Reads an embedded message back as the text it was.
    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Arc<str>, D::Error> {
        let raw = Box::<RawValue>::deserialize(deserializer)?;
        Ok(Arc::from(raw.get()))
    }

    /// The same for the mover's copy of a change: its side and its text.
    pub(crate) mod mover {
        use super::*;

        /// Writes the side and the text as the JSON it is.
        pub(crate) fn serialize<S: Serializer>(
            mover: &Option<(Player, Arc<str>)>,
            serializer: S,
        ) -> Result<S::Ok, S::Error> {
            let raw = match mover {
                Some((side, text)) => Some((*side, raw(text).map_err(S::Error::custom)?)),
                None => None,
            };
            raw.serialize(serializer)
        }

        /// Reads the side and the text back.
        pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
            deserializer: D,
        ) -> Result<Option<(Player, Arc<str>)>, D::Error> {
            let raw = Option::<(Player, Box<RawValue>)>::deserialize(deserializer)?;
            Ok(raw.map(|(side, text)| (side, Arc::from(text.get()))))
        }
    }
}

/// A shared value written as the value it is (and read back into a new share).
mod shared {
    use std::sync::Arc;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub(super) fn serialize<T: Serialize, S: Serializer>(
        value: &Arc<T>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        T::serialize(value, serializer)
    }

    pub(super) fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Arc<T>, D::Error> {
        T::deserialize(deserializer).map(Arc::new)
    }
}

/// A watcher count on the bus: its version and the count (each process writes the
/// messages itself).
#[derive(Serialize, Deserialize)]
struct WatchersWire {
    version: u64,
    count: usize,
}

impl Serialize for WatcherCount {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        WatchersWire {
            version: self.version,
            count: self.count,
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for WatcherCount {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<WatcherCount, D::Error> {
        let wire = WatchersWire::deserialize(deserializer)?;
        Ok(WatcherCount::new(wire.version, wire.count))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::live::feed::{Feed, Publication, to_text};
    use crate::live::messages::{Actions, GameStatusView, PlayedList, PlayedView, ServerMessage};
    use game::{GameKind, Player};
    use games::{AnyGame, BoardView};
    use serde_json::json;
    use tokio::sync::broadcast;

    /// A game at revision `rev` with `plies` moves (one legal move's geometry, numbered).
    fn snapshot(rev: u64, plies: usize) -> Snapshot {
        let game = AnyGame::start(GameKind::Fetlar);
        let info = game.legal_moves_info()[0].clone();
        let played: Vec<PlayedView> = (1..=plies)
            .map(|ply| PlayedView {
                ply,
                player: if ply % 2 == 1 {
                    Player::First
                } else {
                    Player::Second
                },
                info: info.clone(),
            })
            .collect();
        let moves: PlayedList =
            serde_json::from_value(serde_json::to_value(played).unwrap()).unwrap();
        let board = BoardView::of(&game);
        let view = GameView {
            id: "g".into(),
            kind: GameKind::Fetlar,
            rev,
            status: GameStatusView::Ongoing,
            result: None,
            ended_by: None,
            played_at: 0,
            players: Vec::new(),
            you: None,
            time_control: "untimed".into(),
            correspondence: false,
            rated: false,
            board: board.clone(),
            start_board: board,
            start_position: String::new(),
            moves,
            legal_moves: Vec::new(),
            clocks: None,
            draw_offer: None,
            takeback_request: None,
            watchers: 0,
            absent: Vec::new(),
            actions: Actions::default(),
            chat: crate::live::chat::rooms_for([&Default::default(), &Default::default()], None),
        };
        Snapshot::new(view, LegalMoves::default(), Seats::default(), None)
    }

    fn frame(from: u64, to: u64) -> Arc<Frame> {
        Arc::new(Frame {
            from,
            to,
            public: to_text(&json!({"t": "events", "from_rev": from, "rev": to, "legal": []})),
            mover: Some((
                Player::Second,
                to_text(&json!({"t": "events", "from_rev": from, "rev": to, "legal": ["x"]})),
            )),
        })
    }

    /// What the sockets of a feed were told, in order.
    fn heard(receiver: &mut broadcast::Receiver<Published>) -> Vec<String> {
        std::iter::from_fn(|| receiver.try_recv().ok())
            .map(|told| format!("{told:?}"))
            .collect()
    }

    /// `publication`, published by `owner`, as a relay reads it from the bus.
    fn relayed(owner: &Feed, publication: Publication) -> (Vec<u8>, Published<SnapshotIn>) {
        let before = owner.snapshot();
        let (told, _) = publication.clone().split();
        owner.publish(publication).expect("the owner's own follow");
        let bytes = on_the_bus(&told, &before, &owner.snapshot()).expect("JSON");
        let read = serde_json::from_slice(&bytes).expect("readable");
        (bytes, read)
    }

    #[test]
    fn a_relay_tells_its_sockets_and_keeps_what_the_owner_did() {
        let owner = Feed::new(snapshot(3, 15));
        let mirror = Feed::new(snapshot(3, 15));
        let (mut owners, mut mirrors) = (owner.subscribe(), mirror.subscribe());
        let publications: Vec<Publication> = vec![
            Published::Change {
                frame: frame(3, 4),
                snapshot: Arc::new(snapshot(4, 16)),
            },
            Published::Change {
                frame: frame(4, 5),
                snapshot: Arc::new(snapshot(5, 17)),
            },
            Published::Watchers(Arc::new(WatcherCount::new(1, 3))),
            Published::Chat(
                ChatRoom::Players,
                to_text(&json!({"t": "chat", "room": "players", "text": "good luck"})),
            ),
            Published::Absent(to_text(&ServerMessage::Absent { absent: Vec::new() })),
            Published::Refresh {
                snapshot: Arc::new(snapshot(5, 17)),
            },
            Published::Rematch(to_text(&ServerMessage::Rematch { id: "r".into() })),
            Published::Reset {
                snapshot: Arc::new(snapshot(6, 17)),
            },
        ];
        for publication in publications {
            let (bytes, read) = relayed(&owner, publication);
            let text = String::from_utf8(bytes).unwrap();
            // The sockets' texts travel as the JSON they are, never as strings.
            assert!(!text.contains("\\\""), "{text}");
            mirror.publish(read).expect("it follows");
            let (mine, theirs) = (mirror.snapshot(), owner.snapshot());
            assert_eq!(
                serde_json::to_string(&SnapshotRef::of(&mine)).unwrap(),
                serde_json::to_string(&SnapshotRef::of(&theirs)).unwrap()
            );
        }
        let told = heard(&mut owners);
        assert_eq!(told.len(), 7, "a refresh is not told: {told:?}");
        assert_eq!(heard(&mut mirrors), told);
        assert_eq!(
            mirror.chat_history(ChatRoom::Players),
            owner.chat_history(ChatRoom::Players)
        );
        assert_eq!(mirror.rematch(), owner.rematch());
        assert_eq!(mirror.watchers().text_for(0), owner.watchers().text_for(0));
        assert_eq!(mirror.watchers().version, 1);
    }

    #[test]
    fn a_change_on_the_bus_carries_the_moves_after_the_shared_ones() {
        let owner = Feed::new(snapshot(4, 16));
        let (bytes, _) = relayed(
            &owner,
            Published::Change {
                frame: frame(4, 5),
                snapshot: Arc::new(snapshot(5, 17)),
            },
        );
        let value: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        let state = &value["change"]["snapshot"];
        assert_eq!(state["moves_from"], 16);
        assert_eq!(state["moves_len"], 17);
        assert_eq!(state["view"]["moves"].as_array().unwrap().len(), 1);
        assert_eq!(value["change"]["frame"]["public"]["t"], "events");
        assert_eq!(value["change"]["frame"]["mover"][0], "second");
    }

    #[test]
    fn a_relay_skips_a_change_it_had_and_is_told_it_missed_one() {
        let owner = Feed::new(snapshot(3, 15));
        let mirror = Feed::new(snapshot(3, 15));
        let mut mirrors = mirror.subscribe();
        let change = |from, to, plies| Published::Change {
            frame: frame(from, to),
            snapshot: Arc::new(snapshot(to, plies)),
        };
        let (bytes, read) = relayed(&owner, change(3, 4, 16));
        mirror.publish(read).unwrap();
        let again: Published<SnapshotIn> = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(mirror.publish(again), Ok(()));
        assert_eq!(heard(&mut mirrors).len(), 1, "the change is told once");
        let _ = relayed(&owner, change(4, 5, 17));
        let (_, gap) = relayed(&owner, change(5, 6, 18));
        assert_eq!(mirror.publish(gap), Err(Missed));
        assert_eq!(mirror.snapshot().rev(), 4);
        assert!(heard(&mut mirrors).is_empty());
        // A whole state is taken whatever came before.
        let (_, reset) = relayed(
            &owner,
            Published::Reset {
                snapshot: Arc::new(snapshot(7, 18)),
            },
        );
        mirror.publish(reset).unwrap();
        assert_eq!(mirror.snapshot().rev(), 7);
    }

    #[test]
    fn a_text_that_is_not_json_is_not_written_for_the_bus() {
        let state = snapshot(1, 0);
        let told: Published = Published::Absent(Arc::from("not json"));
        assert!(on_the_bus(&told, &state, &state).is_err());
    }
}
