//! Time: [`Timestamp`]s, the [`TimeControl`] a game is played under, and the two
//! [`Clocks`] of a game, as plain data.
//!
//! Nothing here reads the time: every method that needs it takes `now`, so tests control
//! it and a server can store the clocks and load them back after a restart without
//! giving or taking any time. Durations are kept to the millisecond.

use std::fmt;
use std::ops::Add;
use std::str::FromStr;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use game::Player;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An instant, as milliseconds since the Unix epoch (1970-01-01 UTC). Serialises as that
/// number.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Timestamp(u64);

impl Timestamp {
    /// The instant `millis` milliseconds after the Unix epoch.
    #[must_use]
    pub const fn from_millis(millis: u64) -> Timestamp {
        Timestamp(millis)
    }

    /// Milliseconds since the Unix epoch.
    #[must_use]
    pub const fn as_millis(self) -> u64 {
        self.0
    }

    /// The system's time now (the epoch if the system clock is before it).
    #[must_use]
    pub fn now() -> Timestamp {
        let since = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        Timestamp(u64::try_from(since.as_millis()).unwrap_or(u64::MAX))
    }

    /// The time from `earlier` to `self`; zero if `earlier` is later (a clock that went
    /// back never gives time).
    #[must_use]
    pub const fn saturating_duration_since(self, earlier: Timestamp) -> Duration {
        Duration::from_millis(self.0.saturating_sub(earlier.0))
    }
}

impl Add<Duration> for Timestamp {
    type Output = Timestamp;

    /// Adds whole milliseconds, saturating.
    fn add(self, rhs: Duration) -> Timestamp {
        Timestamp(self.0.saturating_add(millis(rhs)))
    }
}

/// A duration in whole milliseconds (saturating).
pub(crate) fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// The longest a Fischer control's base time (in minutes) or increment (in seconds) may
/// be: a day's worth of either is more than any game needs, so beyond it is a typo.
const MAX_FISCHER_NUMBER: f64 = 86_400.0;

/// The most days per move a correspondence game may give.
pub const MAX_DAYS_PER_MOVE: u32 = 365;

/// How long a player of a live (Fischer) game may take over their first move before the
/// game is aborted (see [`TimeControl::first_move_limit`]).
pub const FIRST_MOVE_LIMIT: Duration = Duration::from_secs(30);

/// How long a game's players may think. One syntax everywhere (command line, records,
/// JSON): `5+3` is Fischer with five minutes each and three seconds added after every
/// move (fractions work: `0.5+0`; `5` alone is `5+0`); `3d` is correspondence with three
/// days per move; `untimed` has no clock. Serialises as that text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TimeControl {
    /// Each player starts with `base` and gets `increment` added after each of their
    /// moves; whoever runs out loses.
    Fischer {
        /// Time each player starts with (more than zero, whole milliseconds).
        base: Duration,
        /// Time added after each move (whole milliseconds).
        increment: Duration,
    },
    /// Each move may take up to `days` days; every turn starts with the full time again.
    Correspondence {
        /// Days per move, 1 to [`MAX_DAYS_PER_MOVE`].
        days: u32,
    },
    /// No clock.
    Untimed,
}

/// Text that is not a time control.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "bad clock {0:?}: expected MINUTES+SECONDS, like 5+3 (5 minutes each, 3 seconds added per move) or 0.5+0, DAYSd for days per move, like 3d, or untimed"
)]
pub struct ParseTimeControlError(pub String);

impl TimeControl {
    /// A Fischer control of `minutes` each and `seconds` added per move.
    #[must_use]
    pub const fn fischer(minutes: u64, seconds: u64) -> TimeControl {
        TimeControl::Fischer {
            base: Duration::from_secs(minutes * 60),
            increment: Duration::from_secs(seconds),
        }
    }

    /// Whether there is a clock at all.
    #[must_use]
    pub const fn is_timed(self) -> bool {
        !matches!(self, TimeControl::Untimed)
    }

    /// The time a player has when a game starts (or, in correspondence, when their turn
    /// starts); `None` when untimed.
    #[must_use]
    pub const fn initial(self) -> Option<Duration> {
        match self {
            TimeControl::Fischer { base, .. } => Some(base),
            TimeControl::Correspondence { days } => Some(Duration::from_secs(days as u64 * 86_400)),
            TimeControl::Untimed => None,
        }
    }

    /// The time a player may give their opponent ([`crate::Session::give_time`]): 15
    /// seconds in a live (Fischer) game, a day in correspondence (for the turn it is
    /// given in: every turn starts with the full time again); `None` when untimed.
    #[must_use]
    pub const fn gift(self) -> Option<Duration> {
        match self {
            TimeControl::Fischer { .. } => Some(Duration::from_secs(15)),
            TimeControl::Correspondence { .. } => Some(Duration::from_secs(86_400)),
            TimeControl::Untimed => None,
        }
    }

    /// How long a player may take over their first move when the clocks start with
    /// each side's first move ([`crate::ClockStart::FirstMove`]): [`FIRST_MOVE_LIMIT`] in
    /// a live (Fischer) game, or the base time if that is shorter; the days per move in
    /// correspondence; no limit untimed. A game whose first move (either side's) is not
    /// made in time is aborted, not lost.
    #[must_use]
    pub fn first_move_limit(self) -> Option<Duration> {
        match self {
            TimeControl::Fischer { base, .. } => Some(base.min(FIRST_MOVE_LIMIT)),
            TimeControl::Correspondence { .. } => self.initial(),
            TimeControl::Untimed => None,
        }
    }

    /// The time added after each move (zero unless Fischer).
    #[must_use]
    pub const fn increment(self) -> Duration {
        match self {
            TimeControl::Fischer { increment, .. } => increment,
            _ => Duration::ZERO,
        }
    }
}

impl Default for TimeControl {
    /// Untimed.
    fn default() -> TimeControl {
        TimeControl::Untimed
    }
}

impl FromStr for TimeControl {
    type Err = ParseTimeControlError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || ParseTimeControlError(s.to_owned());
        let text = s.trim().to_ascii_lowercase();
        if matches!(text.as_str(), "untimed" | "none" | "-") {
            return Ok(TimeControl::Untimed);
        }
        if let Some(days) = text.strip_suffix('d') {
            // Digits only: no sign, no fraction.
            if days.is_empty() || !days.bytes().all(|b| b.is_ascii_digit()) {
                return Err(err());
            }
            let days: u32 = days.parse().map_err(|_| err())?;
            if !(1..=MAX_DAYS_PER_MOVE).contains(&days) {
                return Err(err());
            }
            return Ok(TimeControl::Correspondence { days });
        }
        let (minutes, seconds) = text.split_once('+').unwrap_or((text.as_str(), "0"));
        let number = |t: &str| -> Result<f64, ParseTimeControlError> {
            let t = t.trim();
            // Plain decimals only (no `inf`, `nan` or exponents).
            if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
                return Err(err());
            }
            let value: f64 = t.parse().map_err(|_| err())?;
            if value.is_finite() && (0.0..=MAX_FISCHER_NUMBER).contains(&value) {
                Ok(value)
            } else {
                Err(err())
            }
        };
        // Rounded to the millisecond, so that printing and reading back is exact.
        let base = Duration::from_millis((number(minutes)? * 60_000.0).round() as u64);
        let increment = Duration::from_millis((number(seconds)? * 1_000.0).round() as u64);
        if base.is_zero() {
            return Err(err());
        }
        Ok(TimeControl::Fischer { base, increment })
    }
}

/// `value` (a whole number of `unit`s) divided by `unit`, in the fewest decimals that read
/// back to the same whole number: `90_000 / 60_000` is `1.5`, `100_000 / 60_000` is
/// `1.66667`.
fn decimal(value: u64, unit: u64) -> String {
    if value.is_multiple_of(unit) {
        return (value / unit).to_string();
    }
    let exact = value as f64 / unit as f64;
    for places in 1..=12 {
        let text = format!("{exact:.places$}");
        let back: f64 = text.parse().unwrap_or(f64::NAN);
        if (back * unit as f64).round() == value as f64 {
            return text;
        }
    }
    exact.to_string()
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            TimeControl::Fischer { base, increment } => write!(
                f,
                "{}+{}",
                decimal(millis(base), 60_000),
                decimal(millis(increment), 1_000)
            ),
            TimeControl::Correspondence { days } => write!(f, "{days}d"),
            TimeControl::Untimed => f.write_str("untimed"),
        }
    }
}

impl Serialize for TimeControl {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for TimeControl {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// The clock that runs: whose, and since when.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Running {
    /// The player whose clock runs (the player to move).
    pub player: Player,
    /// When it was last started.
    pub since: Timestamp,
}

/// The two clocks of a game, of which at most one runs. Time is charged to the running
/// one; [`Clocks::press`] stops the mover's clock, gives them their increment (Fischer)
/// or their full time back (correspondence), and starts the opponent's. Untimed clocks
/// still record whose turn it is and since when, and never fall.
///
/// A clock may wait for its player's first move ([`Clocks::waiting_for_first_moves`],
/// lichess's rule): until that player has moved, their turn is timed (whose turn, since
/// when) but charges nothing and never falls, and that first move adds no increment.
///
/// Serialises as the control, the time left on each clock when the running one was last
/// started (milliseconds), the running clock with its start, and which clocks have
/// started: storing that and loading it back later gives exactly the same clocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Clocks {
    control: TimeControl,
    /// Time left, in milliseconds, when the running clock (if any) was last started or
    /// stopped; indexed by [`Player::index`]. Zero when untimed.
    remaining_ms: [u64; 2],
    running: Option<Running>,
    /// Whether each player's clock counts (indexed by [`Player::index`]): false until
    /// their first move when the clocks wait for it. Clocks stored before this existed
    /// counted from the start.
    #[serde(default = "both_started")]
    started: [bool; 2],
}

const fn both_started() -> [bool; 2] {
    [true; 2]
}

impl Clocks {
    /// Both clocks full and stopped; each counts as soon as it runs.
    #[must_use]
    pub fn new(control: TimeControl) -> Clocks {
        let full = control.initial().map_or(0, millis);
        Clocks {
            control,
            remaining_ms: [full; 2],
            running: None,
            started: both_started(),
        }
    }

    /// Both clocks full and stopped; each starts counting with its player's first move
    /// (until then that player's turns cost no time).
    #[must_use]
    pub fn waiting_for_first_moves(control: TimeControl) -> Clocks {
        Clocks {
            started: [false; 2],
            ..Clocks::new(control)
        }
    }

    /// Whether `player`'s clock counts (they have made their first move, or the clocks
    /// do not wait for it).
    #[must_use]
    pub fn is_started(&self, player: Player) -> bool {
        self.started[player.index()]
    }

    /// Sets whether each player's clock counts (taking moves back to before a player's
    /// first move makes their clock wait again), indexed by [`Player::index`].
    pub fn set_started(&mut self, started: [bool; 2]) {
        self.started = started;
    }

    /// The time control.
    #[must_use]
    pub fn control(&self) -> TimeControl {
        self.control
    }

    /// The running clock and when it started.
    #[must_use]
    pub fn running(&self) -> Option<Running> {
        self.running
    }

    /// The player whose clock runs.
    #[must_use]
    pub fn running_player(&self) -> Option<Player> {
        self.running.map(|r| r.player)
    }

    /// Time left for `player` at `now`; `None` when untimed.
    #[must_use]
    pub fn remaining(&self, player: Player, now: Timestamp) -> Option<Duration> {
        if !self.control.is_timed() {
            return None;
        }
        let left = Duration::from_millis(self.remaining_ms[player.index()]);
        Some(match self.running {
            Some(r) if r.player == player && self.is_started(player) => {
                left.saturating_sub(now.saturating_duration_since(r.since))
            }
            _ => left,
        })
    }

    /// Both players' time left at `now`, indexed by [`Player::index`]; `None` when
    /// untimed.
    #[must_use]
    pub fn both(&self, now: Timestamp) -> Option<[Duration; 2]> {
        Some([
            self.remaining(Player::First, now)?,
            self.remaining(Player::Second, now)?,
        ])
    }

    /// When the running clock reaches zero if nobody moves (`None`: no clock runs, or the
    /// game is untimed). A server wakes up then to call the flag fall.
    #[must_use]
    pub fn deadline(&self) -> Option<Timestamp> {
        let r = self.running?;
        (self.control.is_timed() && self.is_started(r.player))
            .then(|| r.since + Duration::from_millis(self.remaining_ms[r.player.index()]))
    }

    /// The server was down (or the game otherwise suspended) from `from` until `to`: the
    /// running clock is given that time back, so it is charged to nobody. Time before
    /// its start is not given (the turn began after `from`: only `to - since` is).
    pub fn give_back(&mut self, from: Timestamp, to: Timestamp) {
        if let Some(r) = &mut self.running {
            let paused = to.saturating_duration_since(from.max(r.since));
            r.since = r.since + paused;
        }
    }

    /// Adds `extra` to `player`'s time left (running or not); nothing when untimed.
    pub fn add(&mut self, player: Player, extra: Duration) {
        if self.control.is_timed() {
            let left = &mut self.remaining_ms[player.index()];
            *left = left.saturating_add(millis(extra));
        }
    }

    /// Starts `player`'s clock at `now` (stopping the other).
    pub fn start(&mut self, player: Player, now: Timestamp) {
        self.stop(now);
        self.running = Some(Running { player, since: now });
    }

    /// Stops the running clock, charging it the time since it started.
    pub fn stop(&mut self, now: Timestamp) {
        if let Some(r) = self.running {
            if let Some(left) = self.remaining(r.player, now) {
                self.remaining_ms[r.player.index()] = millis(left);
            }
            self.running = None;
        }
    }

    /// `mover` has moved at `now`: charge their time, add the increment (Fischer) or give
    /// the full time back (correspondence), and start the opponent's clock.
    pub fn press(&mut self, mover: Player, now: Timestamp) {
        self.stop(now);
        let first_move = !self.is_started(mover);
        self.started[mover.index()] = true;
        let left = &mut self.remaining_ms[mover.index()];
        match self.control {
            // A first move made before the clock counted earns no increment.
            TimeControl::Fischer { .. } if first_move => {}
            TimeControl::Fischer { increment, .. } => {
                *left = left.saturating_add(millis(increment));
            }
            TimeControl::Correspondence { .. } => {
                *left = self.control.initial().map_or(0, millis);
            }
            TimeControl::Untimed => {}
        }
        let next = mover.other();
        if let TimeControl::Correspondence { .. } = self.control {
            // Every turn starts with the full time.
            self.remaining_ms[next.index()] = self.control.initial().map_or(0, millis);
        }
        self.running = Some(Running {
            player: next,
            since: now,
        });
    }

    /// The player whose flag has fallen at `now` (running clock at zero); never when
    /// untimed.
    #[must_use]
    pub fn flagged(&self, now: Timestamp) -> Option<Player> {
        let player = self.running?.player;
        self.remaining(player, now)
            .is_some_and(|left| left.is_zero())
            .then_some(player)
    }

    /// Sets both players' time left (taking moves back restores the clocks as they were)
    /// and starts `running`'s clock at `now`. Ignored for untimed clocks but for who runs.
    pub fn restore(&mut self, remaining: [Duration; 2], running: Option<Player>, now: Timestamp) {
        if self.control.is_timed() {
            self.remaining_ms = remaining.map(millis);
        }
        self.running = running.map(|player| Running { player, since: now });
    }
}

/// `m:ss` below an hour, `h:mm:ss` below a day, `Nd h:mm:ss` above; tenths under ten
/// seconds (`0:07.3`).
#[must_use]
pub fn format_clock(time: Duration) -> String {
    let secs = time.as_secs();
    if secs < 10 {
        return format!("0:{:02}.{}", secs, time.subsec_millis() / 100);
    }
    let (d, h, m, s) = (secs / 86_400, secs / 3600 % 24, secs / 60 % 60, secs % 60);
    if d > 0 {
        format!("{d}d {h}:{m:02}:{s:02}")
    } else if h > 0 {
        format!("{h}:{m:02}:{s:02}")
    } else {
        format!("{m}:{s:02}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn secs(s: u64) -> Duration {
        Duration::from_secs(s)
    }

    fn at(s: u64) -> Timestamp {
        Timestamp::from_millis(1_700_000_000_000 + s * 1000)
    }

    #[test]
    fn time_controls_read_minutes_plus_seconds() {
        let tc: TimeControl = "5+3".parse().unwrap();
        assert_eq!(tc, TimeControl::fischer(5, 3));
        assert_eq!(tc.initial(), Some(secs(300)));
        assert_eq!(tc.increment(), secs(3));
        let tc: TimeControl = "0.5".parse().unwrap();
        assert_eq!(
            tc,
            TimeControl::Fischer {
                base: secs(30),
                increment: Duration::ZERO
            }
        );
        assert_eq!(
            " 0.5+0.25 ".parse::<TimeControl>().unwrap().increment(),
            Duration::from_millis(250)
        );
        for bad in [
            "",
            "+3",
            "5+",
            "x+1",
            "0+5",
            "-1+0",
            "5+3+1",
            "1e9+0",
            "1e2+0",
            "inf+0",
            "nan",
            "5 3",
            "0d",
            "-3d",
            "1.5d",
            "d",
            "366d",
            "3 d",
            "untimed+1",
        ] {
            assert!(bad.parse::<TimeControl>().is_err(), "{bad}");
        }
    }

    #[test]
    fn correspondence_and_untimed_read_and_print() {
        assert_eq!(
            "3d".parse::<TimeControl>(),
            Ok(TimeControl::Correspondence { days: 3 })
        );
        assert_eq!("14D".parse::<TimeControl>().unwrap().to_string(), "14d");
        for text in ["untimed", "-", "none", "UNTIMED"] {
            assert_eq!(text.parse::<TimeControl>(), Ok(TimeControl::Untimed));
        }
        assert_eq!(TimeControl::Untimed.to_string(), "untimed");
        assert_eq!(
            TimeControl::Correspondence { days: 2 }.initial(),
            Some(secs(2 * 86_400))
        );
        assert_eq!(TimeControl::Untimed.initial(), None);
    }

    #[test]
    fn time_controls_print_as_players_write_them() {
        for (text, printed) in [
            ("5+3", "5+3"),
            ("1+0", "1+0"),
            ("0.5+0", "0.5+0"),
            ("0.02+0", "0.02+0"),
            ("10", "10+0"),
            ("1.5+0.5", "1.5+0.5"),
            ("3d", "3d"),
            ("-", "untimed"),
        ] {
            let tc: TimeControl = text.parse().unwrap();
            assert_eq!(tc.to_string(), printed, "{text}");
            assert_eq!(printed.parse::<TimeControl>(), Ok(tc));
        }
        // A base that is no finite decimal of minutes still reads back exactly.
        let odd = TimeControl::Fischer {
            base: Duration::from_millis(100_000),
            increment: Duration::from_millis(1),
        };
        assert_eq!(odd.to_string().parse::<TimeControl>(), Ok(odd));
    }

    #[test]
    fn time_controls_serialise_as_their_text() {
        let tc = TimeControl::fischer(5, 3);
        assert_eq!(serde_json::to_string(&tc).unwrap(), "\"5+3\"");
        assert_eq!(
            serde_json::from_str::<TimeControl>("\"3d\"")
                .unwrap()
                .to_string(),
            "3d"
        );
        assert!(serde_json::from_str::<TimeControl>("\"5-3\"").is_err());
    }

    #[test]
    fn pressing_charges_the_mover_and_adds_the_increment() {
        let t0 = at(0);
        let mut clocks = Clocks::new("1+2".parse().unwrap());
        clocks.start(Player::First, t0);
        assert_eq!(clocks.remaining(Player::First, at(10)), Some(secs(50)));
        clocks.press(Player::First, at(10));
        assert_eq!(clocks.remaining(Player::First, at(30)), Some(secs(52)));
        assert_eq!(clocks.remaining(Player::Second, at(30)), Some(secs(40)));
        assert_eq!(clocks.running_player(), Some(Player::Second));
        assert_eq!(clocks.deadline(), Some(at(70)));
        assert_eq!(clocks.flagged(at(69)), None);
        assert_eq!(clocks.flagged(at(70)), Some(Player::Second));
        clocks.stop(at(20));
        assert_eq!(clocks.flagged(at(100)), None);
        assert_eq!(clocks.deadline(), None);
        assert_eq!(clocks.both(at(100)), Some([secs(52), secs(50)]));
    }

    #[test]
    fn a_clock_that_goes_back_gives_no_time() {
        let mut clocks = Clocks::new(TimeControl::fischer(1, 0));
        clocks.start(Player::First, at(10));
        assert_eq!(clocks.remaining(Player::First, at(5)), Some(secs(60)));
        clocks.press(Player::First, at(5));
        assert_eq!(clocks.remaining(Player::First, at(5)), Some(secs(60)));
    }

    #[test]
    fn correspondence_gives_every_turn_the_full_days() {
        let day = 86_400;
        let mut clocks = Clocks::new("2d".parse().unwrap());
        clocks.start(Player::First, at(0));
        assert_eq!(clocks.remaining(Player::First, at(day)), Some(secs(day)));
        clocks.press(Player::First, at(day));
        assert_eq!(
            clocks.remaining(Player::Second, at(day)),
            Some(secs(2 * day))
        );
        assert_eq!(
            clocks.remaining(Player::First, at(3 * day)),
            Some(secs(2 * day))
        );
        assert_eq!(
            clocks.flagged(at(3 * day) + Duration::from_millis(1)),
            Some(Player::Second)
        );
        clocks.press(Player::Second, at(2 * day));
        assert_eq!(
            clocks.remaining(Player::Second, at(2 * day)),
            Some(secs(2 * day))
        );
        assert_eq!(clocks.deadline(), Some(at(4 * day)));
    }

    #[test]
    fn untimed_clocks_track_the_turn_and_never_fall() {
        let mut clocks = Clocks::new(TimeControl::Untimed);
        clocks.start(Player::First, at(0));
        clocks.press(Player::First, at(5));
        assert_eq!(
            clocks.running(),
            Some(Running {
                player: Player::Second,
                since: at(5)
            })
        );
        assert_eq!(clocks.remaining(Player::Second, at(1_000_000)), None);
        assert_eq!(clocks.flagged(at(u64::MAX / 2_000)), None);
        assert_eq!(clocks.deadline(), None);
    }

    #[test]
    fn restore_sets_the_time_left_and_the_running_clock() {
        let mut clocks = Clocks::new(TimeControl::fischer(3, 2));
        clocks.start(Player::First, at(0));
        clocks.press(Player::First, at(10));
        clocks.restore([secs(170), secs(180)], Some(Player::First), at(50));
        assert_eq!(clocks.both(at(60)), Some([secs(160), secs(180)]));
    }

    #[test]
    fn clocks_survive_a_round_trip_through_json() {
        let mut clocks = Clocks::new("0.5+1".parse().unwrap());
        clocks.start(Player::First, at(0));
        clocks.press(Player::First, at(3) + Duration::from_millis(250));
        let json = serde_json::to_string(&clocks).unwrap();
        assert_eq!(
            json,
            r#"{"control":"0.5+1","remaining_ms":[27750,30000],"running":{"player":"second","since":1700000003250},"started":[true,true]}"#
        );
        let back: Clocks = serde_json::from_str(&json).unwrap();
        assert_eq!(back, clocks);
        // Clocks stored before `started` existed counted from the start.
        let old = r#"{"control":"0.5+1","remaining_ms":[27750,30000],"running":{"player":"second","since":1700000003250}}"#;
        assert_eq!(serde_json::from_str::<Clocks>(old).unwrap(), clocks);
    }

    #[test]
    fn a_waiting_clock_starts_with_its_players_first_move() {
        let mut clocks = Clocks::waiting_for_first_moves("1+2".parse().unwrap());
        clocks.start(Player::First, at(0));
        // First's turn is timed but costs nothing, and cannot fall.
        assert_eq!(clocks.remaining(Player::First, at(500)), Some(secs(60)));
        assert_eq!(clocks.deadline(), None);
        assert_eq!(clocks.flagged(at(10_000)), None);
        assert!(!clocks.is_started(Player::First));
        // Their first move adds no increment; Second's first turn is free too.
        clocks.press(Player::First, at(500));
        assert!(clocks.is_started(Player::First));
        assert_eq!(clocks.both(at(900)), Some([secs(60), secs(60)]));
        assert_eq!(clocks.deadline(), None);
        clocks.press(Player::Second, at(900));
        // From now on both count: First's clock runs and can fall.
        assert_eq!(clocks.remaining(Player::First, at(910)), Some(secs(50)));
        assert_eq!(clocks.deadline(), Some(at(960)));
        clocks.press(Player::First, at(910));
        assert_eq!(clocks.remaining(Player::First, at(910)), Some(secs(52)));
        assert_eq!(clocks.remaining(Player::Second, at(915)), Some(secs(55)));
        // Taking moves back can make a clock wait again.
        clocks.set_started([true, false]);
        assert_eq!(clocks.remaining(Player::Second, at(999)), Some(secs(60)));
    }

    #[test]
    fn downtime_given_back_is_charged_to_nobody() {
        let mut clocks = Clocks::new(TimeControl::fischer(1, 0));
        clocks.start(Player::First, at(0));
        clocks.press(Player::First, at(10));
        // Second thought 5 s, then the server was down from 15 to 100.
        clocks.give_back(at(15), at(100));
        assert_eq!(clocks.remaining(Player::Second, at(100)), Some(secs(55)));
        assert_eq!(clocks.deadline(), Some(at(155)));
        // A turn that began after the last sign of life gets only its own time back.
        let mut clocks = Clocks::new(TimeControl::fischer(1, 0));
        clocks.start(Player::First, at(20));
        clocks.give_back(at(15), at(100));
        assert_eq!(clocks.remaining(Player::First, at(100)), Some(secs(60)));
        // A stopped clock has nothing to give back.
        let mut stopped = Clocks::new(TimeControl::fischer(1, 0));
        stopped.give_back(at(0), at(100));
        assert_eq!(stopped, Clocks::new(TimeControl::fischer(1, 0)));
    }

    #[test]
    fn first_move_limits_follow_the_control() {
        assert_eq!(
            TimeControl::fischer(1, 0).first_move_limit(),
            Some(FIRST_MOVE_LIMIT)
        );
        assert_eq!(
            TimeControl::Correspondence { days: 2 }.first_move_limit(),
            Some(secs(2 * 86_400))
        );
        assert_eq!(TimeControl::Untimed.first_move_limit(), None);
        // A game shorter than the limit gets its base time.
        let bullet: TimeControl = "0.25+2".parse().unwrap();
        assert_eq!(bullet.first_move_limit(), Some(secs(15)));
    }

    #[test]
    fn clocks_print_as_minutes_and_seconds() {
        assert_eq!(format_clock(secs(300)), "5:00");
        assert_eq!(format_clock(secs(3723)), "1:02:03");
        assert_eq!(format_clock(Duration::from_millis(7_340)), "0:07.3");
        assert_eq!(format_clock(secs(3 * 86_400 + 3723)), "3d 1:02:03");
    }

    fn control() -> impl Strategy<Value = TimeControl> {
        prop_oneof![
            (1u64..=86_400_000, 0u64..=3_600_000).prop_map(|(b, i)| TimeControl::Fischer {
                base: Duration::from_millis(b),
                increment: Duration::from_millis(i),
            }),
            (1..=MAX_DAYS_PER_MOVE).prop_map(|days| TimeControl::Correspondence { days }),
            Just(TimeControl::Untimed),
        ]
    }

    proptest! {
        #[test]
        fn every_time_control_prints_and_reads_back_exactly(tc in control()) {
            prop_assert_eq!(tc.to_string().parse::<TimeControl>(), Ok(tc));
        }

        #[test]
        fn clocks_never_gain_time_without_a_move(
            tc in control(),
            steps in proptest::collection::vec(0u64..200_000, 1..20),
        ) {
            let mut clocks = Clocks::new(tc);
            let mut now = at(0);
            clocks.start(Player::First, now);
            let mut mover = Player::First;
            for step in steps {
                let before = clocks.remaining(mover, now);
                now = now + Duration::from_millis(step);
                let after = clocks.remaining(mover, now);
                prop_assert!(after <= before);
                let json = serde_json::to_string(&clocks).unwrap();
                prop_assert_eq!(serde_json::from_str::<Clocks>(&json).unwrap(), clocks);
                if clocks.flagged(now).is_some() {
                    break;
                }
                clocks.press(mover, now);
                mover = mover.other();
            }
        }
    }
}
