//! Clocks on the command line and for the AI: `play --clock` and `match --tc` read the
//! same [`session::TimeControl`] syntax (`5+3`: five minutes each, three seconds added per
//! move), and the session's clocks become the engine's.

use session::{Clocks, TimeControl, Timestamp};

/// Reads `play --clock`: any time control (`5+3`, `0.5+0`, `3d`, `untimed`).
pub fn parse_clock(text: &str) -> Result<TimeControl, String> {
    text.parse()
        .map_err(|e: session::ParseTimeControlError| e.to_string())
}

/// Reads `match --tc`: clocks with an increment, as `play --clock` writes them (`5+3`);
/// engines are not given days per move, nor no clock (use `--movetime` or `--depth`).
pub fn parse_fischer(text: &str) -> Result<TimeControl, String> {
    match parse_clock(text)? {
        tc @ TimeControl::Fischer { .. } => Ok(tc),
        _ => Err(format!(
            "{text:?}: expected MINUTES+SECONDS, like 5+3 (5 minutes each, 3 seconds added per move) or 0.5+0"
        )),
    }
}

/// The engine's view of `clocks` at `now`: both players' time left and increments
/// (`None` when untimed).
#[must_use]
pub fn engine_clock(clocks: &Clocks, now: Timestamp) -> Option<engine::Clock> {
    Some(engine::Clock {
        remaining: clocks.both(now)?,
        increment: [clocks.control().increment(); 2],
        moves_to_go: None,
    })
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use game::Player;

    use super::*;

    #[test]
    fn match_clocks_are_minutes_plus_seconds_like_play() {
        assert_eq!(parse_fischer("5+3"), Ok(TimeControl::fischer(5, 3)));
        assert_eq!(parse_clock("5+3"), parse_fischer("5+3"));
        for bad in ["3d", "untimed", "60s+1", "x+1"] {
            assert!(parse_fischer(bad).is_err(), "{bad}");
        }
        assert!(parse_clock("3d").is_ok());
    }

    #[test]
    fn the_engine_sees_both_clocks_and_the_increment() {
        let t0 = Timestamp::from_millis(1_000_000);
        let mut clocks = Clocks::new(TimeControl::fischer(2, 1));
        clocks.start(Player::First, t0);
        let clock = engine_clock(&clocks, t0 + Duration::from_secs(20)).unwrap();
        assert_eq!(
            clock.remaining,
            [Duration::from_secs(100), Duration::from_secs(120)]
        );
        assert_eq!(clock.increment, [Duration::from_secs(1); 2]);
        assert!(engine_clock(&Clocks::new(TimeControl::Untimed), t0).is_none());
    }
}
