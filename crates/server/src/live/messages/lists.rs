//! The long lists of a game as the sockets get them, serialised once and shared: the
//! legal moves of the side to move ([`LegalMoves`]) and the moves played ([`PlayedList`]).

use std::sync::Arc;

use game::Player;
use games::MoveInfo;
use serde::{Deserialize, Serialize};
use session::Session;

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
    pub(super) fn from_wire(files: u8, json: String) -> LegalMoves {
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
pub(super) fn wire_array<S: serde::Serializer>(
    legal: &LegalMoves,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let raw: &serde_json::value::RawValue =
        serde_json::from_str(legal.json()).map_err(serde::ser::Error::custom)?;
    raw.serialize(serializer)
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

    pub(super) fn push_move(&mut self, m: &session::PlayedMove) {
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

    pub(super) fn push_view(&mut self, view: PlayedView) {
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
