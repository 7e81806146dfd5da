//! One game as a table sees it, apart from how it is shown or sent: the moves with what
//! they captured, takeback, resignation, draw offers, abort and flag fall, the result
//! with its reason, and the clocks. No input or output happens here, and no sentence is
//! written: front ends (the terminal game, the server) put it into words.
//!
//! Time is always passed in (`now`, a [`Timestamp`]), so tests control it, and every
//! piece of state is plain data that serialises with serde and loads back exactly.

pub mod clock;

pub use clock::{
    Clocks, MAX_DAYS_PER_MOVE, ParseTimeControlError, Running, TimeControl, Timestamp, format_clock,
};
