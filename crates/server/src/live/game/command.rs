//! What a game's owner is asked and told, and the handle through which it is asked.
//!
//! [`Request`] is the one list of what may be asked of a game from outside it — by a
//! socket or the HTTP API on this process, or by a relay on another process, over the
//! bus, as the very same value ([`super::super::remote`] wraps it, it does not copy
//! it). Each request has one [`Reply`]. A new kind of request is a variant here and an
//! arm in the actor's dispatch; the relay and the bus carry it unchanged.

use std::sync::Arc;

use game::Player;
use serde::{Deserialize, Serialize};
use session::Timestamp;
use tokio::sync::{mpsc, oneshot};

use crate::live::Ident;
use crate::live::chat::ChatRoom;
use crate::live::conditional::Lines;
use crate::live::feed::Feed;
use crate::live::messages::{Act, GameView, Refusal, SocketError};
use crate::store::Seat;

/// A request to a game's owner from outside it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "ask", rename_all = "snake_case")]
pub enum Request {
    /// A player's act; answered [`Reply::Acted`].
    Act {
        /// Who acts (the owner finds their side).
        ident: Ident,
        /// What they do.
        act: Act,
    },
    /// `seat` takes the open seat; answered [`Reply::Joined`].
    Join {
        /// Who asks.
        ident: Ident,
        /// The seat they take it as.
        seat: Seat,
    },
    /// A socket of `ident` opened (+1) or closed (-1); answered [`Reply::Counted`] with
    /// the version of the watcher count published last (the counts after it include this
    /// change; `u64::MAX` for a player's socket, which is never counted).
    Watch {
        /// Whose socket.
        ident: Ident,
        /// +1 or -1.
        change: isize,
    },
    /// A player reads (`lines` `None`) or replaces their conditional moves; answered
    /// [`Reply::Lines`].
    Conditional {
        /// Who asks.
        ident: Ident,
        /// The new lines, or `None` to read them.
        lines: Option<Lines>,
    },
    /// Chat said in `room` on a socket elsewhere (checked and stored there): publish it;
    /// answered [`Reply::Done`].
    Chat {
        /// The room.
        room: ChatRoom,
        /// The message as the sockets get it.
        text: String,
    },
}

/// The owner's answer to a [`Request`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reply {
    /// To [`Request::Act`]: `Ok(Some(id))` names a new game (an agreed rematch).
    Acted(Result<Option<String>, Refusal>),
    /// To [`Request::Join`]: the side taken.
    Joined(Result<Player, Refusal>),
    /// To [`Request::Watch`].
    Counted(u64),
    /// To [`Request::Conditional`]: the lines kept, as the game writes them.
    Lines(Result<Lines, Refusal>),
    /// To [`Request::Chat`].
    Done,
}

impl Request {
    /// The reply that refuses this request with `refusal` (the owner could not be
    /// reached, or has gone).
    #[must_use]
    pub fn refused(&self, refusal: Refusal) -> Reply {
        match self {
            Request::Act { .. } => Reply::Acted(Err(refusal)),
            Request::Join { .. } => Reply::Joined(Err(refusal)),
            Request::Watch { .. } => Reply::Counted(u64::MAX),
            Request::Conditional { .. } => Reply::Lines(Err(refusal)),
            Request::Chat { .. } => Reply::Done,
        }
    }
}

/// What a game's owner receives: a [`Request`] (with where to answer it, if anyone
/// waits), or one of the server's own notices about the game.
pub(crate) enum Command {
    /// A request from outside; `reply` is `None` when nobody waits for the answer.
    Ask {
        /// What is asked.
        request: Request,
        /// Where the answer goes.
        reply: Option<oneshot::Sender<Reply>>,
    },
    /// The maintenance job found the game unjoined or abandoned: end it if it still is
    /// at `now`.
    Expire {
        /// When the job looked.
        now: Timestamp,
    },
    /// The lease keeper did not find the game among this process's games: stop owning
    /// it if the database says another process has it now.
    LeaseLost,
    /// The AI's move for revision `rev`.
    AiMove {
        /// The revision it thought on.
        rev: u64,
        /// The move.
        text: String,
        /// The AI's evaluation of the position it moved in, for itself.
        score: engine::Score,
    },
}

impl Command {
    /// Chat said in `room` on this process, for the owner (elsewhere) to publish.
    pub(crate) fn chat(room: ChatRoom, text: &str) -> Command {
        Command::Ask {
            request: Request::Chat {
                room,
                text: text.to_owned(),
            },
            reply: None,
        }
    }
}

/// A live game as the registry holds it: where to send commands, and what it publishes.
/// The same for a game owned here and for a relay to one owned by another process.
#[derive(Clone)]
pub struct Handle {
    pub(crate) commands: mpsc::Sender<Command>,
    pub(crate) feed: Arc<Feed>,
}

/// The refusal when the owner has gone.
fn gone() -> Refusal {
    Refusal::new(SocketError::GameOver, "the game is over")
}

/// The refusal for a reply of the wrong kind (a bug, or a process of another version).
fn mismatched(reply: &Reply) -> Refusal {
    tracing::error!(
        ?reply,
        "a game's owner answered with the wrong kind of reply"
    );
    Refusal::new(SocketError::Internal, "the game stopped")
}

impl Handle {
    /// Sends `command` to the owner; false if it has ended.
    pub(crate) async fn send(&self, command: Command) -> bool {
        self.commands.send(command).await.is_ok()
    }

    /// Asks the owner and waits for the answer. The socket waits for room in the owner's
    /// queue; the owner never waits for a socket.
    pub async fn ask(&self, request: Request) -> Reply {
        let (reply, answer) = oneshot::channel();
        let refused = request.refused(gone());
        if !self
            .send(Command::Ask {
                request,
                reply: Some(reply),
            })
            .await
        {
            return refused;
        }
        answer.await.unwrap_or(refused)
    }

    /// Tells the owner, without waiting for the answer.
    pub async fn tell(&self, request: Request) {
        self.send(Command::Ask {
            request,
            reply: None,
        })
        .await;
    }

    /// Tells the owner a socket opened (+1) or closed (-1).
    pub async fn watch(&self, change: isize, ident: &Ident) {
        self.tell(Request::Watch {
            ident: ident.clone(),
            change,
        })
        .await;
    }

    /// Tells the owner a socket of `ident` opened, and waits until it is counted: the
    /// watcher counts published after the version returned include it (`u64::MAX`: a
    /// player's socket, or the owner has gone: no count will).
    pub async fn watch_counted(&self, ident: &Ident) -> u64 {
        match self
            .ask(Request::Watch {
                ident: ident.clone(),
                change: 1,
            })
            .await
        {
            Reply::Counted(version) => version,
            _ => u64::MAX,
        }
    }

    /// What the game publishes.
    #[must_use]
    pub fn feed(&self) -> &Arc<Feed> {
        &self.feed
    }

    /// The game as `ident` sees it now (from the latest published state: the owner is
    /// not asked).
    #[must_use]
    pub fn view_now(&self, ident: &Ident) -> GameView {
        let snapshot = self.feed.snapshot();
        let you = ident.side_among(&snapshot.seats);
        snapshot.view_for(you, Timestamp::now())
    }

    /// A player's act; `Ok(Some(id))` names a new game (an agreed rematch).
    ///
    /// # Errors
    /// The refusal, when the act is not possible.
    pub async fn act(&self, ident: Ident, act: Act) -> Result<Option<String>, Refusal> {
        match self.ask(Request::Act { ident, act }).await {
            Reply::Acted(result) => result,
            other => Err(mismatched(&other)),
        }
    }

    /// `ident`'s conditional moves in this game: read (`lines` `None`) or replaced.
    ///
    /// # Errors
    /// Not a player, a game that is not a correspondence game going on with the
    /// opponent to move, or a line that does not play.
    pub async fn conditional(&self, ident: Ident, lines: Option<Lines>) -> Result<Lines, Refusal> {
        match self.ask(Request::Conditional { ident, lines }).await {
            Reply::Lines(result) => result,
            other => Err(mismatched(&other)),
        }
    }

    /// Takes the open seat for `seat`.
    ///
    /// # Errors
    /// The refusal, when no seat is open to them.
    pub async fn join(&self, ident: Ident, seat: Seat) -> Result<Player, Refusal> {
        match self.ask(Request::Join { ident, seat }).await {
            Reply::Joined(result) => result,
            other => Err(mismatched(&other)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request and each reply cross the bus as the same value.
    #[test]
    fn requests_and_replies_read_back_as_written() {
        let ident = Ident {
            user: Some("u1".into()),
            guest: None,
        };
        let requests = [
            Request::Act {
                ident: ident.clone(),
                act: Act::Move {
                    rev: Some(3),
                    text: "d1-d3".into(),
                },
            },
            Request::Join {
                ident: ident.clone(),
                seat: Seat::User("u1".into()),
            },
            Request::Watch {
                ident: ident.clone(),
                change: -1,
            },
            Request::Conditional { ident, lines: None },
            Request::Chat {
                room: ChatRoom::Players,
                text: r#"{"t":"chat"}"#.into(),
            },
        ];
        for request in requests {
            let text = serde_json::to_string(&request).unwrap();
            assert_eq!(serde_json::from_str::<Request>(&text).unwrap(), request);
        }
        let refusal = Refusal::not_allowed("seat_open", "a seat is open");
        let replies = [
            Reply::Acted(Ok(Some("g2".into()))),
            Reply::Acted(Err(refusal.clone())),
            Reply::Joined(Ok(Player::Second)),
            Reply::Counted(7),
            Reply::Lines(Err(refusal)),
            Reply::Done,
        ];
        for reply in replies {
            let text = serde_json::to_string(&reply).unwrap();
            assert_eq!(serde_json::from_str::<Reply>(&text).unwrap(), reply);
        }
    }

    /// Each request's refusal is a reply of its own kind.
    #[test]
    fn a_refused_request_gets_its_own_kind_of_reply() {
        let ident = Ident::default();
        let no = || Refusal::new(SocketError::GameOver, "over");
        assert!(matches!(
            Request::Act {
                ident: ident.clone(),
                act: Act::Resign
            }
            .refused(no()),
            Reply::Acted(Err(_))
        ));
        assert!(matches!(
            Request::Watch { ident, change: 1 }.refused(no()),
            Reply::Counted(u64::MAX)
        ));
    }
}
