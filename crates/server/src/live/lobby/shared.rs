//! The lobby on the bus: its changes as the processes share them, how one is applied
//! (made here or on another process), and the watch over the processes whose lobby
//! sockets are counted here.

use std::sync::Arc;
use std::time::Duration;

use super::{Lobby, count_in, uncount_in};
use crate::bus::{Bus, HubChannel};
use crate::live::hub::{Hub, Origin, Outlet};
use crate::live::messages::{ChallengeView, LiveGame};
use crate::live::{Ident, lock};
use crate::state::AppState;

/// A lobby change, as the processes share it.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LobbyChange {
    /// Games started or changed on the sending process since its last message (at
    /// most one message each [`FLUSH_EVERY`], as its sockets are told).
    Games(Vec<LiveGame>),
    /// A game is no longer being played.
    GameRemoved(String),
    /// A challenge was posted (by this person).
    ChallengeAdded(ChallengeView, Ident),
    /// A challenge is gone.
    ChallengeRemoved(String),
    /// The poster of a challenge is told the game it became.
    Accepted {
        /// The poster.
        poster: Ident,
        /// The challenge.
        challenge: String,
        /// The game.
        game: String,
    },
    /// A lobby socket of this person opened.
    Enter(Ident),
    /// A lobby socket of this person closed.
    Leave(Ident),
    /// Everyone with a lobby socket open on the sending process, and how many (it
    /// replaces what that process said before).
    Present(Vec<(Ident, usize)>),
    /// A process started, or its connection came back: the others tell it their games
    /// and who is present on them.
    Hello,
}

/// What applying a lobby change says.
#[derive(Debug, Default)]
pub struct Applied {
    /// The people no longer present anywhere (whose live challenges go after the grace
    /// period).
    pub(super) gone: Vec<Ident>,
    /// Another process said hello: it is told this one's games and people.
    pub(super) greeted: bool,
}

impl Hub for Lobby {
    const CHANNEL: HubChannel = HubChannel::Lobby;
    type Change = LobbyChange;
    type Applied = Applied;

    fn outlet(&self) -> &Outlet<Lobby> {
        &self.outlet
    }

    /// A change made here, or one another process published (whose own messages come
    /// back too, and are skipped before they reach this).
    fn apply(&self, change: LobbyChange, origin: Origin<'_>) -> Applied {
        let mut applied = Applied::default();
        match change {
            LobbyChange::Games(games) => {
                for game in games {
                    self.apply_game_changed(game);
                }
            }
            LobbyChange::GameRemoved(id) => self.apply_game_removed(&id),
            LobbyChange::ChallengeAdded(challenge, by) => {
                self.apply_challenge_added(challenge, by);
            }
            LobbyChange::ChallengeRemoved(id) => self.apply_challenge_removed(&id),
            LobbyChange::Accepted {
                poster,
                challenge,
                game,
            } => self.apply_tell_accepted(poster, &challenge, &game),
            LobbyChange::Enter(who) => {
                {
                    let mut state = lock(&self.inner);
                    let people = match origin {
                        Origin::Here => &mut state.here,
                        Origin::Process(from) => {
                            state.elsewhere.entry(from.to_owned()).or_default()
                        }
                    };
                    count_in(people, &who);
                }
                self.apply_enter(&who);
            }
            LobbyChange::Leave(who) => {
                {
                    let mut state = lock(&self.inner);
                    let people = match origin {
                        Origin::Here => Some(&mut state.here),
                        Origin::Process(from) => state.elsewhere.get_mut(from),
                    };
                    if let Some(people) = people {
                        uncount_in(people, &who);
                    }
                }
                if self.apply_leave(&who) {
                    applied.gone.push(who);
                }
            }
            LobbyChange::Present(people) => {
                if let Origin::Process(from) = origin {
                    applied.gone = self.apply_present(from, people);
                }
            }
            LobbyChange::Hello => applied.greeted = matches!(origin, Origin::Process(_)),
        }
        applied
    }

    fn received(&self, state: &AppState, applied: Applied) {
        for who in applied.gone {
            crate::live::poster_left(state, who);
        }
        if applied.greeted {
            // A process has started: it learns the games this one owns.
            let mine: Vec<String> = state.live.entries().into_iter().map(|(id, _)| id).collect();
            self.greet(&mine);
        }
    }

    fn joined(&self, _state: &AppState, _again: bool) {
        self.say_hello();
    }
}

/// How often a process checks that the others whose lobby sockets it counts still live.
const PRESENCE_CHECK: Duration = Duration::from_secs(5);

/// Forgets, every [`PRESENCE_CHECK`] until shutdown, the lobby sockets of processes that
/// have died (no longer subscribed to their own channel): their people are absent, and
/// their challenges go after the grace period unless they come back on another process.
pub(crate) fn watch_processes(state: &AppState, bus: &Arc<Bus>) {
    let state = state.clone();
    let bus = Arc::clone(bus);
    tokio::spawn(async move {
        let mut sweep = tokio::time::interval(PRESENCE_CHECK);
        sweep.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                () = state.shutdown.cancelled() => return,
                _ = sweep.tick() => {}
            }
            for token in state.live.lobby().present_elsewhere() {
                if let Ok(false) = bus.is_alive(&token).await {
                    tracing::info!(process = %token, "a process has gone: its lobby sockets no longer count");
                    for who in state.live.lobby().forget_process(&token) {
                        crate::live::poster_left(&state, who);
                    }
                }
            }
        }
    });
}
