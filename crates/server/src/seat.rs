//! Who sits in a seat, in one place: the seat a new game is made with ([`Seat`]), a
//! seat as stored with its names ([`SeatRecord`], both of a game: [`Seats`]), a player
//! as the lists show them ([`PlayerRef`]) and as a game shows them ([`PlayerInfo`]), and
//! who is asking ([`Ident`]), with the conversions between them: a request's viewer to
//! its [`Ident`], an [`Ident`] to its side among the seats, a stored seat to the seat of
//! a rematch, to its [`PlayerRef`] and to its [`PlayerInfo`].

use game::Player;
use serde::{Deserialize, Serialize};

use crate::auth::Viewer;
use crate::store::GameRecord;

/// Who is to sit on one side of a new game.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Seat {
    /// Nobody yet: the first to follow the game's link takes it.
    Open,
    /// A user, by id.
    User(String),
    /// A guest, by id.
    Guest(String),
    /// The AI at a level (1-6).
    Ai(u8),
}

/// One side of a stored game, with names for showing it.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SeatRecord {
    /// The user on this side (also set for a guest who later signed up).
    pub user_id: Option<String>,
    /// That user's name.
    pub username: Option<String>,
    /// The guest on this side.
    pub guest_id: Option<String>,
    /// That guest's name.
    pub guest_name: Option<String>,
    /// The AI's level, when the AI plays this side.
    pub ai_level: Option<u8>,
}

impl SeatRecord {
    /// The player as others see them; `None` for an open seat.
    #[must_use]
    pub fn player(&self) -> Option<PlayerRef> {
        if let Some(name) = &self.username {
            Some(PlayerRef::User { name: name.clone() })
        } else if let Some(name) = &self.guest_name {
            Some(PlayerRef::Guest { name: name.clone() })
        } else {
            self.ai_level.map(|level| PlayerRef::Ai { level })
        }
    }

    /// Who sits here, as a seat of a new game (a rematch's); `None` for an open seat.
    #[must_use]
    pub fn seat(&self) -> Option<Seat> {
        if let Some(user) = &self.user_id {
            Some(Seat::User(user.clone()))
        } else if let Some(guest) = &self.guest_id {
            Some(Seat::Guest(guest.clone()))
        } else {
            self.ai_level.map(Seat::Ai)
        }
    }

    /// The name clients show: a user's, a guest's, or `AI level N`; empty for an open
    /// seat.
    #[must_use]
    pub fn shown_name(&self) -> String {
        if let Some(name) = &self.username {
            name.clone()
        } else if let Some(name) = &self.guest_name {
            name.clone()
        } else if let Some(level) = self.ai_level {
            format!("AI level {level}")
        } else {
            String::new()
        }
    }

    /// Whether nobody sits here yet.
    #[must_use]
    pub fn is_open(&self) -> bool {
        self.user_id.is_none() && self.guest_id.is_none() && self.ai_level.is_none()
    }
}

/// A player as shown to clients (JSON `{"type": "user", "name": "ragnar"}`,
/// `{"type": "guest", "name": "Guest-K7QX2M"}`, `{"type": "ai", "level": 4}`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum PlayerRef {
    /// A user with an account.
    User {
        /// Their username.
        name: String,
    },
    /// A guest.
    Guest {
        /// Their generated name.
        name: String,
    },
    /// The AI.
    Ai {
        /// Its level, 1-6.
        level: u8,
    },
}

/// Who sits in each seat of a game (first, second): enough to tell a socket's side
/// without the game's owner.
pub type Seats = [SeatRecord; 2];

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

impl PlayerInfo {
    /// The player of `side` sitting in `seat`, with their rating in the game's kind
    /// (rating, provisional), for users.
    #[must_use]
    pub fn of(side: Player, seat: &SeatRecord, rating: Option<(i64, bool)>) -> PlayerInfo {
        PlayerInfo {
            side,
            name: seat.shown_name(),
            user: seat.user_id.is_some(),
            ai: seat.ai_level,
            rating: rating.map(|r| r.0),
            provisional: rating.map(|r| r.1),
        }
    }
}

/// Who is asking: the account and the guest cookie of a request.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Ident {
    /// The signed-in user's id.
    pub user: Option<String>,
    /// The guest's id (also carried by a signed-in user who was a guest first).
    pub guest: Option<String>,
}

impl From<&Viewer> for Ident {
    fn from(viewer: &Viewer) -> Ident {
        match viewer {
            Viewer::User { user, guest, .. } => Ident {
                user: Some(user.id.clone()),
                guest: guest.as_ref().map(|g| g.id.clone()),
            },
            Viewer::Guest(guest) => Ident {
                user: None,
                guest: Some(guest.id.clone()),
            },
            Viewer::Anonymous => Ident::default(),
        }
    }
}

impl Ident {
    /// Whether `seat` is this person's.
    #[must_use]
    pub fn owns(&self, seat: &SeatRecord) -> bool {
        (self.user.is_some() && seat.user_id == self.user)
            || (self.guest.is_some() && seat.guest_id == self.guest)
    }

    /// Their side in `record`.
    #[must_use]
    pub fn side_in(&self, record: &GameRecord) -> Option<Player> {
        Player::BOTH
            .into_iter()
            .find(|&p| self.owns(record.seat(p)))
    }

    /// Their side among `seats` (first, second).
    #[must_use]
    pub fn side_among(&self, seats: &Seats) -> Option<Player> {
        Player::BOTH
            .into_iter()
            .find(|&p| self.owns(&seats[p.index()]))
    }

    /// The seat they take in a new game: as a user if signed in, else as a guest.
    #[must_use]
    pub fn seat(&self) -> Option<Seat> {
        match (&self.user, &self.guest) {
            (Some(user), _) => Some(Seat::User(user.clone())),
            (None, Some(guest)) => Some(Seat::Guest(guest.clone())),
            (None, None) => None,
        }
    }

    /// Whether `other` is the same person (the same user, or the same guest).
    #[must_use]
    pub fn is_same_person(&self, other: &Ident) -> bool {
        (self.user.is_some() && self.user == other.user)
            || (self.guest.is_some() && self.guest == other.guest)
    }

    /// One key for the person (the user id, else the guest id).
    #[must_use]
    pub fn key(&self) -> Option<&str> {
        self.user.as_deref().or(self.guest.as_deref())
    }

    /// Whether the request carries no identity.
    #[must_use]
    pub fn is_anonymous(&self) -> bool {
        self.user.is_none() && self.guest.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(user: Option<&str>, guest: Option<&str>, ai: Option<u8>) -> SeatRecord {
        SeatRecord {
            user_id: user.map(str::to_owned),
            username: user.map(|id| format!("{id}-name")),
            guest_id: guest.map(str::to_owned),
            guest_name: guest.map(|id| format!("Guest-{id}")),
            ai_level: ai,
        }
    }

    /// A stored seat converts to the seat of a rematch, the list's player and the
    /// game's, the same person each way; an open one to nothing.
    #[test]
    fn a_stored_seat_converts_to_each_of_its_forms() {
        let user = stored(Some("u1"), Some("g1"), None);
        assert_eq!(user.seat(), Some(Seat::User("u1".into())));
        assert_eq!(
            user.player(),
            Some(PlayerRef::User {
                name: "u1-name".into()
            })
        );
        let info = PlayerInfo::of(Player::First, &user, Some((1620, false)));
        assert_eq!((info.name.as_str(), info.user), ("u1-name", true));
        assert_eq!((info.rating, info.provisional), (Some(1620), Some(false)));
        let guest = stored(None, Some("g2"), None);
        assert_eq!(guest.seat(), Some(Seat::Guest("g2".into())));
        assert_eq!(guest.shown_name(), "Guest-g2");
        let ai = stored(None, None, Some(4));
        assert_eq!(ai.seat(), Some(Seat::Ai(4)));
        assert_eq!(ai.shown_name(), "AI level 4");
        assert_eq!(PlayerInfo::of(Player::Second, &ai, None).ai, Some(4));
        let open = SeatRecord::default();
        assert!(open.is_open());
        assert_eq!((open.seat(), open.player()), (None, None));
        assert_eq!(open.shown_name(), "");
    }

    /// Who is asking finds their side by their account or by their guest cookie.
    #[test]
    fn an_ident_finds_its_side_by_account_or_guest() {
        let seats: Seats = [
            stored(Some("u1"), None, None),
            stored(None, Some("g2"), None),
        ];
        let by_account = Ident {
            user: Some("u1".into()),
            guest: Some("g9".into()),
        };
        assert_eq!(by_account.side_among(&seats), Some(Player::First));
        let by_cookie = Ident {
            user: None,
            guest: Some("g2".into()),
        };
        assert_eq!(by_cookie.side_among(&seats), Some(Player::Second));
        assert_eq!(Ident::default().side_among(&seats), None);
        assert!(Ident::default().is_anonymous());
        assert_eq!(by_cookie.seat(), Some(Seat::Guest("g2".into())));
        assert!(by_account.is_same_person(&Ident {
            user: Some("u1".into()),
            guest: None
        }));
    }
}
