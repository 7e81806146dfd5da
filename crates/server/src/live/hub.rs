//! The one path of every live channel that is not a game's: a hub (the lobby, the lobby
//! chat, the players' own channels) takes each change through its [`Outlet`], which
//! applies it here and, when the process is on the bus (`--redis`), publishes it once on
//! the hub's channel ([`HubChannel`]); every other process applies it to its own copy of
//! the hub, and skips its own messages by the process's token. So a socket hears of a
//! change whichever process it is connected to, and a hub has no other way to reach its
//! sockets than through its outlet.
//!
//! A hub is a [`Hub`]: its channel, its change (serialised once for the bus, as JSON
//! with the token of the process that made it), and how a change is applied. Each hub's
//! channel is listened to from start to shutdown by `share_all`, which matches on every
//! [`HubChannel`]: a new channel is a new case there, or it does not compile. When the
//! connection to Redis comes back, each hub listens again and catches up what it missed
//! ([`Hub::joined`]).
//!
//! Delivering stays each hub's: a change is applied in O(the sockets it is for) (the
//! players' channel looks up the two seats' people), serialised once, through bounded
//! queues that nobody waits on. The bus adds one message per change, and each process
//! reads every hub's messages.

use std::marker::PhantomData;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::lobby::Lobby;
use super::lobby_chat::LobbyChat;
use super::people::People;
use crate::bus::{Bus, BusError, HubChannel};
use crate::state::AppState;

/// How long a hub waits before it listens again after the connection to Redis was lost.
const RELISTEN_EVERY: Duration = Duration::from_millis(500);

/// Where a change a hub applies was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin<'a> {
    /// On this process.
    Here,
    /// On the other process whose lease token this is.
    Process(&'a str),
}

/// A live hub whose changes every process applies.
pub trait Hub: Send + Sync + Sized + 'static {
    /// Its channel on the bus.
    const CHANNEL: HubChannel;
    /// A change, as the processes share it.
    type Change: Serialize + DeserializeOwned + Send;
    /// What applying a change says (the lobby: who is no longer present anywhere).
    type Applied;

    /// Its outlet, through which every change made here goes.
    fn outlet(&self) -> &Outlet<Self>;

    /// Applies `change` to this process's hub and sends it to the sockets here that it is
    /// for. Called by [`Outlet::publish`] for a change made here, and by the hub's
    /// listener for one another process published.
    fn apply(&self, change: Self::Change, origin: Origin<'_>) -> Self::Applied;

    /// What the listener does after applying another process's change (default:
    /// nothing more).
    fn received(&self, state: &AppState, applied: Self::Applied) {
        let _ = (state, applied);
    }

    /// The process listens on the hub's channel: at start (`again` false) and each time
    /// the connection to Redis came back (`again` true), when the hub catches up what was
    /// published while it was away (default: nothing).
    fn joined(&self, state: &AppState, again: bool) {
        let _ = (state, again);
    }
}

/// A hub's way to the sockets of every process: each change goes through
/// [`Outlet::publish`], applied here and (on the bus) published once for the others.
pub struct Outlet<H> {
    bus: OnceLock<Arc<Bus>>,
    hub: PhantomData<fn() -> H>,
}

impl<H> Default for Outlet<H> {
    fn default() -> Outlet<H> {
        Outlet {
            bus: OnceLock::new(),
            hub: PhantomData,
        }
    }
}

impl<H> std::fmt::Debug for Outlet<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Outlet")
            .field("on_bus", &self.bus.get().is_some())
            .finish()
    }
}

impl<H: Hub> Outlet<H> {
    /// Whether the changes made here go to other processes too.
    #[must_use]
    pub fn on_bus(&self) -> bool {
        self.bus.get().is_some()
    }

    /// The token of this process on the bus (`None` off the bus).
    #[must_use]
    pub fn token(&self) -> Option<&str> {
        self.bus.get().map(|bus| bus.token())
    }

    /// A change made here: published for the other processes (on the bus), then applied
    /// here.
    pub fn publish(&self, hub: &H, change: H::Change) -> H::Applied {
        self.tell_others(&change);
        hub.apply(change, Origin::Here)
    }

    /// Publishes a change for the other processes only: one this process has applied
    /// already in its own way (the lobby's coalesced games), or that concerns only the
    /// others (the lobby's greetings). Nothing off the bus.
    pub fn tell_others(&self, change: &H::Change) {
        let Some(bus) = self.bus.get() else { return };
        if let Some(payload) = encode(bus.token(), change) {
            bus.publish(H::CHANNEL.name().to_owned(), payload);
        }
    }

    /// Puts the hub on `bus` (once; later calls change nothing).
    fn join(&self, bus: &Arc<Bus>) {
        let _ = self.bus.set(Arc::clone(bus));
    }
}

/// A change as it travels: with the token of the process that made it.
#[derive(Serialize)]
struct Outgoing<'a, C> {
    from: &'a str,
    change: &'a C,
}

#[derive(serde::Deserialize)]
struct Incoming<C> {
    from: String,
    change: C,
}

/// `change`, made on process `from`, as the bus carries it (`None`, logged, when it
/// cannot be written: plain data, it does not happen).
fn encode<C: Serialize>(from: &str, change: &C) -> Option<Arc<[u8]>> {
    match serde_json::to_vec(&Outgoing { from, change }) {
        Ok(bytes) => Some(Arc::from(bytes)),
        Err(error) => {
            tracing::error!(%error, "a change cannot be written for the bus");
            None
        }
    }
}

/// The change in `payload` and the process that made it; `None` for one this process
/// (`own`) made, which it has applied already, and for one that cannot be read (logged,
/// and nothing changes).
fn decode<C: DeserializeOwned>(payload: &[u8], own: &str) -> Option<(String, C)> {
    match serde_json::from_slice::<Incoming<C>>(payload) {
        Ok(incoming) if incoming.from == own => None,
        Ok(incoming) => Some((incoming.from, incoming.change)),
        Err(error) => {
            tracing::warn!(%error, "an unreadable change on the bus");
            None
        }
    }
}

/// Applies a change that came on `H`'s channel: another process's, once.
fn receive<H: Hub>(hub: &H, state: &AppState, payload: &[u8], own: &str) {
    if let Some((from, change)) = decode::<H::Change>(payload, own) {
        let applied = hub.apply(change, Origin::Process(&from));
        hub.received(state, applied);
    }
}

/// `change`, made on process `from`, as the listener of process `here` applies it after
/// the bus carried it (`None`: it skipped it): the path of [`listen`] without Redis, for
/// the hubs' tests.
#[cfg(test)]
pub(crate) fn carried<H: Hub>(
    hub: &H,
    change: &H::Change,
    from: &str,
    here: &str,
) -> Option<H::Applied> {
    let payload = encode(from, change)?;
    let (from, change) = decode::<H::Change>(&payload, here)?;
    Some(hub.apply(change, Origin::Process(&from)))
}

/// Puts the hub that `hub` finds in the state on `bus`, listens on its channel, and
/// applies what the other processes publish there until shutdown, listening again each
/// time the connection to Redis comes back.
async fn listen<H: Hub>(
    state: &AppState,
    bus: &Arc<Bus>,
    hub: fn(&AppState) -> &H,
) -> Result<(), BusError> {
    let channel = H::CHANNEL.name();
    hub(state).outlet().join(bus);
    let mut inbox = bus.subscribe(channel).await?;
    hub(state).joined(state, false);
    let state = state.clone();
    let bus = Arc::clone(bus);
    tokio::spawn(async move {
        loop {
            loop {
                let payload = tokio::select! {
                    () = state.shutdown.cancelled() => return,
                    payload = inbox.recv() => payload,
                };
                // None: the connection to Redis was lost (the bus ended every listener).
                let Some(payload) = payload else { break };
                receive(hub(&state), &state, &payload, bus.token());
            }
            inbox = loop {
                tokio::select! {
                    () = state.shutdown.cancelled() => return,
                    () = tokio::time::sleep(RELISTEN_EVERY) => {}
                }
                if let Ok(inbox) = bus.subscribe(channel).await {
                    break inbox;
                }
            };
            tracing::info!(channel, "listening on the bus again");
            hub(&state).joined(&state, true);
        }
    });
    Ok(())
}

/// Shares every hub of this process with the others on `bus`: each listens on its
/// channel from now until shutdown, and publishes there every change made here.
///
/// # Errors
/// When Redis fails.
pub(crate) async fn share_all(state: &AppState, bus: &Arc<Bus>) -> Result<(), BusError> {
    for channel in HubChannel::ALL {
        match channel {
            HubChannel::Lobby => {
                listen::<Lobby>(state, bus, |state| state.live.lobby()).await?;
                super::lobby::watch_processes(state, bus);
            }
            HubChannel::LobbyChat => {
                listen::<LobbyChat>(state, bus, |state| state.live.lobby_chat()).await?;
            }
            HubChannel::People => {
                listen::<People>(state, bus, |state| &**state.live.people()).await?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_hub_listens_on_its_own_channel() {
        let mine = [Lobby::CHANNEL, LobbyChat::CHANNEL, People::CHANNEL];
        assert_eq!(mine, HubChannel::ALL);
    }

    #[test]
    fn a_change_reads_back_with_its_process_and_ones_own_are_skipped() {
        let payload = encode("one", &vec!["a".to_owned(), "b".to_owned()]).unwrap();
        let (from, change): (String, Vec<String>) = decode(&payload, "two").unwrap();
        assert_eq!(from, "one");
        assert_eq!(change, ["a", "b"]);
        assert!(decode::<Vec<String>>(&payload, "one").is_none(), "its own");
    }

    #[test]
    fn an_unreadable_change_is_dropped() {
        assert!(decode::<Vec<String>>(b"not json", "two").is_none());
        assert!(decode::<Vec<String>>(br#"{"from":"one","change":7}"#, "two").is_none());
        assert!(decode::<Vec<String>>(br#"{"change":[]}"#, "two").is_none());
    }
}
