//! Durations on the command line: `500ms`, `5s`, `1m`, `1h`, `1m 30s` (read by the
//! `humantime` crate), or a bare number of seconds (`1.5`).

use std::time::Duration;

/// Reads a positive duration of at most a day: a number with a unit (`ms`, `s`/`sec`,
/// `m`/`min`, `h`…, as `humantime` reads them, several added: `1m 30s`), or a bare
/// number of seconds.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let duration = match text.parse::<f64>() {
        Ok(seconds) if seconds.is_finite() && seconds > 0.0 && seconds <= 86_400.0 => {
            Duration::from_secs_f64(seconds)
        }
        Ok(_) => Duration::ZERO,
        Err(_) => humantime::parse_duration(text)
            .map_err(|err| format!("bad duration {text:?} ({err}): expected e.g. 500ms, 5s, 1m"))?,
    };
    if duration.is_zero() || duration > Duration::from_secs(86_400) {
        return Err(format!(
            "duration {text:?} must be positive and at most a day"
        ));
    }
    Ok(duration)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_in_the_usual_units() {
        assert_eq!(parse_duration("5s"), Ok(Duration::from_secs(5)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("1m"), Ok(Duration::from_secs(60)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse_duration("1.5"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("2"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_duration("1m 30s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration(" 2sec "), Ok(Duration::from_secs(2)));
    }

    #[test]
    fn bad_durations_are_refused() {
        for bad in [
            "", "0s", "-1s", "2d", "ms", "1e999", "25h", "five", "0", "NaN",
        ] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }
}
