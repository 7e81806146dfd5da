//! One game as a table sees it, apart from how it is shown or sent: the moves with what
//! they captured, takeback, resignation, draw offers, abort and flag fall, the result
//! with its reason, an arbiter's ruling, and the clocks. For a server's tables also
//! lichess's rules of how games start and end: clocks that start with each side's first
//! move ([`ClockStart::FirstMove`]), a first move not made in time that aborts, untimed
//! games abandoned after [`ABANDONED_AFTER`], claims against a player who left, and
//! downtime given back ([`Session::resume`]). Whether a side can still win (a flag fall
//! or a claim against a side that could not is a draw) is the rules crates' answer
//! (`Game::can_win`). No input or output happens here,
//! and no sentence is written: front ends (the terminal game, the server, the match
//! runner's referee) put it into words.
//!
//! Time is always passed in (`now`, a [`Timestamp`]), so tests control it, and every
//! piece of state is plain data that serialises with serde and loads back exactly.
//!
//! ```
//! use session::{AnyGame, Options, Session, Status, Takebacks, Timestamp};
//! use game::{EndReason, GameKind, Outcome, Player};
//!
//! let t0 = Timestamp::from_millis(1_700_000_000_000);
//! let options = Options { control: "5+3".parse().unwrap(), takebacks: Takebacks::Never, ..Options::default() };
//! let mut table = Session::new(AnyGame::start(GameKind::Copenhagen), options, t0);
//! let seen = table.revision();
//! table.play(Player::First, "d1-d3", t0).unwrap();
//! assert!(table.play(Player::First, "e5-e2", t0).is_err()); // not their turn
//! table.offer_draw(Player::Second, t0).unwrap();
//! assert_eq!(table.events_since(seen).unwrap().len(), 2);
//!
//! // Stored and loaded back (after a restart, say), it is the same session.
//! let json = serde_json::to_string(&table).unwrap();
//! let mut table: Session = serde_json::from_str(&json).unwrap();
//! let agreed = table.accept_draw(Player::First, t0).unwrap();
//! assert_eq!(table.status(), Status::Finished { outcome: agreed });
//! assert_eq!(agreed, Outcome::draw(EndReason::Agreement));
//! ```

pub mod clock;
pub mod table;

pub use clock::{
    Clocks, FIRST_MOVE_LIMIT, MAX_DAYS_PER_MOVE, ParseTimeControlError, Running, TimeControl,
    Timestamp, format_clock,
};
pub use table::{
    ABANDONED_AFTER, AbortReason, Checkpoint, ClockStart, Ending, Error, Event, EventKind,
    LoadError, Options, PlayedMove, Session, SessionData, Status, StoredMove, Takeback, Takebacks,
    timeout_outcome,
};

pub use games::{AnyGame, AnyMove, MoveInfo, Square, Variations};
