//! Durations on the command line: `500ms`, `5s`, `1.5` (seconds), `1m`, `1h`.

use std::time::Duration;

/// Reads a positive duration of at most a day: a number with `ms`, `s`/`sec`,
/// `m`/`min` or `h`, or a bare number of seconds.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("bad duration {text:?}: expected e.g. 500ms, 5s, 1m"))?;
    let seconds = match unit.trim() {
        "" | "s" | "sec" => value,
        "ms" => value / 1000.0,
        "m" | "min" => value * 60.0,
        "h" => value * 3600.0,
        other => {
            return Err(format!(
                "bad duration unit {other:?} in {text:?}: use ms, s, m or h"
            ));
        }
    };
    if !seconds.is_finite() || seconds <= 0.0 || seconds > 86_400.0 {
        return Err(format!(
            "duration {text:?} must be positive and at most a day"
        ));
    }
    Ok(Duration::from_secs_f64(seconds))
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
    }

    #[test]
    fn bad_durations_are_refused() {
        for bad in ["", "0s", "-1s", "2d", "ms", "1e999", "25h", "five"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }
}
