//! Who is at the game: the players' sockets (present or gone, for claims against one
//! who left) and the spectators' (the watcher count, sent at most every
//! [`WATCHERS_EVERY`]). A function of the sockets that open and close: the owner
//! publishes what it says changed.

use std::collections::HashMap;
use std::time::Duration;

use game::Player;
use session::Timestamp;
use tokio::time::Instant;

use crate::live::Ident;
use crate::live::lifecycle::Presence;

/// Watcher counts go out at most this often: a crowd arriving costs a few messages, not
/// one per arrival to every socket.
pub(crate) const WATCHERS_EVERY: Duration = Duration::from_millis(500);

/// What a socket opening or closing changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Arrival {
    /// It is a spectator's socket (counted among the watchers).
    pub(crate) spectator: bool,
    /// A player arrived or left: everyone is told who is gone.
    pub(crate) presence_changed: bool,
}

/// The sockets open on one game.
pub(crate) struct Audience {
    /// Sockets open by people who do not play in the game (the watcher count).
    watchers: usize,
    /// Those sockets by person: one who takes a seat leaves the count, and their
    /// sockets count as a player's from then (bounded by the connection caps).
    spectators: HashMap<Ident, usize>,
    /// Which players have a socket open.
    presence: Presence,
    /// When the watcher count is next due out (`None`: it has not changed).
    due: Option<Instant>,
    /// When it last went out.
    sent: Instant,
}

impl Audience {
    /// Nobody yet, as of `now`.
    pub(crate) fn new(now: Timestamp) -> Audience {
        Audience {
            watchers: 0,
            spectators: HashMap::new(),
            presence: Presence::new(now),
            due: None,
            sent: Instant::now(),
        }
    }

    /// The spectators' sockets.
    pub(crate) fn watchers(&self) -> usize {
        self.watchers
    }

    /// Which players are here.
    pub(crate) fn presence(&self) -> &Presence {
        &self.presence
    }

    /// Whether nobody is at the game (a finished game's owner may then go).
    pub(crate) fn is_empty(&self) -> bool {
        self.watchers == 0 && !self.presence.anyone_here()
    }

    /// A socket of `ident` (whose side is `side`, if a player) opened (+1) or closed
    /// (-1) at `now`.
    pub(crate) fn socket(
        &mut self,
        ident: Ident,
        side: Option<Player>,
        change: isize,
        now: Timestamp,
    ) -> Arrival {
        let watching = self.spectators.get(&ident).copied().unwrap_or(0);
        match side {
            // A player's socket: they are here or gone, not watching.
            Some(side) if change > 0 || watching == 0 => Arrival {
                spectator: false,
                presence_changed: self.presence.change(side, change, now),
            },
            // A spectator's, or one opened before its person took a seat.
            _ => {
                if change > 0 {
                    self.spectators.insert(ident, watching + 1);
                    self.set_watchers(self.watchers + 1);
                } else if watching > 1 {
                    self.spectators.insert(ident, watching - 1);
                    self.set_watchers(self.watchers.saturating_sub(1));
                } else if self.spectators.remove(&ident).is_some() {
                    self.set_watchers(self.watchers.saturating_sub(1));
                }
                Arrival {
                    spectator: true,
                    presence_changed: false,
                }
            }
        }
    }

    /// `ident` took the seat of `side`: the sockets they had open as a spectator are a
    /// player's from now on. Whether that changed who is present.
    pub(crate) fn seated(&mut self, ident: &Ident, side: Player, now: Timestamp) -> bool {
        let Some(sockets) = self.spectators.remove(ident) else {
            return false;
        };
        self.set_watchers(self.watchers.saturating_sub(sockets));
        self.presence
            .change(side, isize::try_from(sockets).unwrap_or(isize::MAX), now)
    }

    fn set_watchers(&mut self, count: usize) {
        self.watchers = count;
        if self.due.is_none() {
            self.due = Some(self.sent + WATCHERS_EVERY);
        }
    }

    /// When the watcher count is due out (`None`: unchanged since it last went).
    pub(crate) fn due(&self) -> Option<Instant> {
        self.due
    }

    /// The count goes out now: returns it.
    pub(crate) fn send_watchers(&mut self) -> usize {
        self.due = None;
        self.sent = Instant::now();
        self.watchers
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn person(id: &str) -> Ident {
        Ident {
            user: Some(id.to_owned()),
            guest: None,
        }
    }

    #[test]
    fn spectators_count_by_socket_and_a_player_is_here_or_gone() {
        let now = Timestamp::now();
        let mut audience = Audience::new(now);
        let watcher = person("w");
        for _ in 0..2 {
            let arrival = audience.socket(watcher.clone(), None, 1, now);
            assert!(arrival.spectator && !arrival.presence_changed);
        }
        assert_eq!(audience.watchers(), 2);
        assert!(audience.due().is_some(), "the new count is due out");
        assert_eq!(audience.send_watchers(), 2);
        assert!(audience.due().is_none());
        let player = audience.socket(person("p"), Some(Player::First), 1, now);
        assert_eq!(
            player,
            Arrival {
                spectator: false,
                presence_changed: true
            }
        );
        assert_eq!(audience.watchers(), 2, "a player is never watching");
        // A second socket of the same player changes nothing; closing both, they leave.
        assert!(
            !audience
                .socket(person("p"), Some(Player::First), 1, now)
                .presence_changed
        );
        audience.socket(person("p"), Some(Player::First), -1, now);
        assert!(
            audience
                .socket(person("p"), Some(Player::First), -1, now)
                .presence_changed
        );
        audience.socket(watcher.clone(), None, -1, now);
        audience.socket(watcher.clone(), None, -1, now);
        // A close with nothing open is not counted below zero.
        audience.socket(watcher, None, -1, now);
        assert_eq!(audience.watchers(), 0);
        assert!(audience.is_empty());
    }

    #[test]
    fn a_spectator_who_takes_a_seat_is_a_player_with_their_sockets() {
        let now = Timestamp::now();
        let mut audience = Audience::new(now);
        let joiner = person("j");
        audience.socket(joiner.clone(), None, 1, now);
        audience.socket(joiner.clone(), None, 1, now);
        assert!(audience.seated(&joiner, Player::Second, now));
        assert_eq!(audience.watchers(), 0);
        assert!(audience.presence().anyone_here());
        // Those sockets close as a player's, not a spectator's.
        let arrival = audience.socket(joiner, Some(Player::Second), -1, now);
        assert!(!arrival.spectator);
        assert!(!audience.seated(&person("nobody"), Player::First, now));
    }
}
