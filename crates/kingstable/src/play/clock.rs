//! Game clocks: a time control (`5+3`: five minutes each, three seconds added after
//! every move), and the two clocks of a game, of which at most one runs.
//!
//! Every method takes the current instant, so the clocks can be tested without waiting.

use std::fmt;
use std::str::FromStr;
use std::time::{Duration, Instant};

use game::Player;

/// Starting time and increment, the same for both players.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    /// Time each player starts with.
    pub base: Duration,
    /// Time added to a player's clock after each of their moves.
    pub increment: Duration,
}

/// A time control that is not `MINUTES+SECONDS`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "bad clock {0:?}: expected MINUTES+SECONDS, like 5+3 (5 minutes each, 3 seconds added per move) or 0.5+0"
)]
pub struct ParseTimeControlError(pub String);

impl FromStr for TimeControl {
    type Err = ParseTimeControlError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || ParseTimeControlError(s.to_owned());
        let (minutes, seconds) = s.trim().split_once('+').unwrap_or((s.trim(), "0"));
        let number = |t: &str| -> Result<f64, ParseTimeControlError> {
            let value: f64 = t.trim().parse().map_err(|_| err())?;
            // A day is more than any game needs; beyond it is a typo.
            if value.is_finite() && (0.0..=86_400.0).contains(&value) {
                Ok(value)
            } else {
                Err(err())
            }
        };
        let base = Duration::from_secs_f64(number(minutes)? * 60.0);
        let increment = Duration::from_secs_f64(number(seconds)?);
        if base.is_zero() {
            return Err(err());
        }
        Ok(TimeControl { base, increment })
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let minutes = self.base.as_secs_f64() / 60.0;
        write!(f, "{minutes}+{}", self.increment.as_secs_f64())
    }
}

/// The two clocks. Time is charged to the running one; [`Clocks::press`] stops the
/// mover's clock, adds the increment and starts the opponent's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clocks {
    control: TimeControl,
    /// Time left when the running clock (if any) was last started or stopped.
    remaining: [Duration; 2],
    running: Option<(Player, Instant)>,
}

impl Clocks {
    /// Both clocks full and stopped.
    #[must_use]
    pub fn new(control: TimeControl) -> Clocks {
        Clocks {
            control,
            remaining: [control.base; 2],
            running: None,
        }
    }

    /// The time control.
    #[must_use]
    pub fn control(&self) -> TimeControl {
        self.control
    }

    /// The player whose clock runs.
    #[must_use]
    pub fn running(&self) -> Option<Player> {
        self.running.map(|(p, _)| p)
    }

    /// Time left for `player` at `now`.
    #[must_use]
    pub fn remaining(&self, player: Player, now: Instant) -> Duration {
        let left = self.remaining[player.index()];
        match self.running {
            Some((p, since)) if p == player => {
                left.saturating_sub(now.saturating_duration_since(since))
            }
            _ => left,
        }
    }

    /// Both players' time left at `now`, indexed by [`Player::index`].
    #[must_use]
    pub fn both(&self, now: Instant) -> [Duration; 2] {
        [
            self.remaining(Player::First, now),
            self.remaining(Player::Second, now),
        ]
    }

    /// Starts `player`'s clock (stopping the other).
    pub fn start(&mut self, player: Player, now: Instant) {
        self.stop(now);
        self.running = Some((player, now));
    }

    /// Stops the running clock, charging it the time since it started.
    pub fn stop(&mut self, now: Instant) {
        if let Some((player, _)) = self.running {
            self.remaining[player.index()] = self.remaining(player, now);
            self.running = None;
        }
    }

    /// `mover` has moved: charge their time, add the increment, start the opponent's.
    pub fn press(&mut self, mover: Player, now: Instant) {
        self.stop(now);
        let left = &mut self.remaining[mover.index()];
        *left += self.control.increment;
        self.running = Some((mover.other(), now));
    }

    /// The player whose flag has fallen (running clock at zero).
    #[must_use]
    pub fn flagged(&self, now: Instant) -> Option<Player> {
        self.running
            .map(|(p, _)| p)
            .filter(|&p| self.remaining(p, now).is_zero())
    }

    /// Sets both players' time left (taking moves back restores the clocks as they were),
    /// and starts `running`'s clock.
    pub fn restore(&mut self, remaining: [Duration; 2], running: Option<Player>, now: Instant) {
        self.remaining = remaining;
        self.running = running.map(|p| (p, now));
    }
}

/// `m:ss` below an hour, `h:mm:ss` above, tenths under ten seconds (`0:07.3`).
#[must_use]
pub fn format_clock(time: Duration) -> String {
    let secs = time.as_secs();
    if secs < 10 {
        return format!("0:{:02}.{}", secs, time.subsec_millis() / 100);
    }
    let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    if h > 0 {
        format!("{h}:{m:02}:{s:02}")
    } else {
        format!("{m}:{s:02}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: u64) -> Duration {
        Duration::from_secs(s)
    }

    #[test]
    fn time_controls_read_minutes_plus_seconds() {
        let tc: TimeControl = "5+3".parse().unwrap();
        assert_eq!((tc.base, tc.increment), (secs(300), secs(3)));
        let tc: TimeControl = "0.5".parse().unwrap();
        assert_eq!((tc.base, tc.increment), (secs(30), secs(0)));
        for bad in ["", "+3", "5+", "x+1", "0+5", "-1+0", "5+3+1", "1e9+0"] {
            assert!(bad.parse::<TimeControl>().is_err(), "{bad}");
        }
    }

    #[test]
    fn pressing_charges_the_mover_and_adds_the_increment() {
        let t0 = Instant::now();
        let mut clocks = Clocks::new("1+2".parse().unwrap());
        clocks.start(Player::First, t0);
        assert_eq!(clocks.remaining(Player::First, t0 + secs(10)), secs(50));
        clocks.press(Player::First, t0 + secs(10));
        assert_eq!(clocks.remaining(Player::First, t0 + secs(30)), secs(52));
        assert_eq!(clocks.remaining(Player::Second, t0 + secs(30)), secs(40));
        assert_eq!(clocks.running(), Some(Player::Second));
        assert_eq!(clocks.flagged(t0 + secs(69)), None);
        assert_eq!(clocks.flagged(t0 + secs(70)), Some(Player::Second));
        clocks.stop(t0 + secs(20));
        assert_eq!(clocks.flagged(t0 + secs(100)), None);
        assert_eq!(clocks.both(t0 + secs(100)), [secs(52), secs(50)]);
    }

    #[test]
    fn clocks_print_as_minutes_and_seconds() {
        assert_eq!(format_clock(secs(300)), "5:00");
        assert_eq!(format_clock(secs(3723)), "1:02:03");
        assert_eq!(format_clock(Duration::from_millis(7_340)), "0:07.3");
    }
}
