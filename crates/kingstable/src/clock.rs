//! Clocks on the command line: `play --clock` and `match --tc` read the same
//! [`session::TimeControl`] syntax (`5+3`: five minutes each, three seconds added per
//! move).

use session::TimeControl;

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

#[cfg(test)]
mod tests {
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
}
