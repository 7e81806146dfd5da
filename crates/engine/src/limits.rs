//! What bounds a search (depth, nodes, time, clocks) and how much of a clock one move
//! may spend.

use std::time::Duration;

use game::Player;

/// The players' clocks, as protocols report them (`p1time`, `p2time`, increments).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Clock {
    /// Time left, indexed by [`Player::index`].
    pub remaining: [Duration; 2],
    /// Time added after each move, indexed by [`Player::index`].
    pub increment: [Duration; 2],
    /// Moves to play before the next time control, if the control has one.
    pub moves_to_go: Option<u32>,
}

/// When to stop searching. Every limit given applies; the first reached stops the
/// search. With none (and not `infinite`) the search runs until stopped or until it has
/// searched as deep as it can.
///
/// ```
/// use std::time::Duration;
/// use engine::Limits;
/// let limits = Limits::depth(6).with_nodes(1_000_000);
/// assert_eq!(limits.depth, Some(6));
/// let timed = Limits::move_time(Duration::from_millis(500));
/// assert_eq!(timed.move_time, Some(Duration::from_millis(500)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Limits {
    /// Deepest iteration (plies, before extensions and quiescence).
    pub depth: Option<u32>,
    /// Most nodes, counted over all threads.
    pub nodes: Option<u64>,
    /// Time for this move.
    pub move_time: Option<Duration>,
    /// The clocks, from which the engine allots time for this move.
    pub clock: Option<Clock>,
    /// Search until stopped (other limits still apply if given).
    pub infinite: bool,
}

impl Limits {
    /// Search `depth` plies deep.
    #[must_use]
    pub fn depth(depth: u32) -> Limits {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }

    /// Search `nodes` nodes.
    #[must_use]
    pub fn nodes(nodes: u64) -> Limits {
        Limits {
            nodes: Some(nodes),
            ..Limits::default()
        }
    }

    /// Search for `time`.
    #[must_use]
    pub fn move_time(time: Duration) -> Limits {
        Limits {
            move_time: Some(time),
            ..Limits::default()
        }
    }

    /// Play on a clock.
    #[must_use]
    pub fn clock(clock: Clock) -> Limits {
        Limits {
            clock: Some(clock),
            ..Limits::default()
        }
    }

    /// Search until stopped.
    #[must_use]
    pub fn infinite() -> Limits {
        Limits {
            infinite: true,
            ..Limits::default()
        }
    }

    /// These limits with a node limit as well.
    #[must_use]
    pub fn with_nodes(self, nodes: u64) -> Limits {
        Limits {
            nodes: Some(nodes),
            ..self
        }
    }

    /// These limits with a depth limit as well.
    #[must_use]
    pub fn with_depth(self, depth: u32) -> Limits {
        Limits {
            depth: Some(depth),
            ..self
        }
    }

    /// These limits with a move time as well.
    #[must_use]
    pub fn with_move_time(self, time: Duration) -> Limits {
        Limits {
            move_time: Some(time),
            ..self
        }
    }

    /// The time `me` may spend on this move.
    #[must_use]
    pub fn budget(&self, me: Player) -> TimeBudget {
        let mut budget = TimeBudget::default();
        if self.infinite {
            return budget;
        }
        if let Some(time) = self.move_time {
            // A fixed time is there to be used: no early stop, only the cut-off.
            budget.hard = Some(time);
        }
        if let Some(clock) = self.clock {
            let from_clock = clock_budget(&clock, me);
            budget = TimeBudget {
                soft: from_clock.soft,
                hard: min_some(budget.hard, from_clock.hard),
            };
        }
        if let (Some(soft), Some(hard)) = (budget.soft, budget.hard) {
            budget.soft = Some(soft.min(hard));
        }
        budget
    }
}

fn min_some(a: Option<Duration>, b: Option<Duration>) -> Option<Duration> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// How long one move may take: iterative deepening starts no new iteration once a good
/// part of `soft` is spent (less when the best move is settled), and the search is cut
/// off at `hard`. A fixed move time has no `soft` target: the whole time is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TimeBudget {
    /// The target time.
    pub soft: Option<Duration>,
    /// The time that must not be exceeded.
    pub hard: Option<Duration>,
}

/// Kept back from every clock for the time a move takes to travel (protocol, network).
pub const MOVE_OVERHEAD: Duration = Duration::from_millis(30);

/// Moves we expect still to play when the time control does not say: tafl games last
/// about 25 moves per side (TAFL.md 14), and there is no sense in saving time for a
/// hundred.
const EXPECTED_MOVES: u32 = 25;

fn clock_budget(clock: &Clock, me: Player) -> TimeBudget {
    let remaining = clock.remaining[me.index()].saturating_sub(MOVE_OVERHEAD);
    let increment = clock.increment[me.index()];
    let moves = clock
        .moves_to_go
        .unwrap_or(EXPECTED_MOVES)
        .clamp(1, EXPECTED_MOVES);
    // The share of the remaining time plus most of the increment, never more than 40%
    // of what is left (so one long think cannot lose on time).
    let share = remaining / moves + increment * 3 / 4;
    let soft = share.min(remaining * 2 / 5);
    let hard = (share * 4).min(remaining * 3 / 5).max(soft);
    TimeBudget {
        soft: Some(soft),
        hard: Some(hard),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: f64) -> Duration {
        Duration::from_secs_f64(s)
    }

    #[test]
    fn move_time_is_used_up_to_the_cap() {
        let b = Limits::move_time(secs(1.0)).budget(Player::First);
        assert_eq!((b.soft, b.hard), (None, Some(secs(1.0))));
    }

    #[test]
    fn depth_and_infinite_searches_have_no_time_limit() {
        assert_eq!(
            Limits::depth(5).budget(Player::First),
            TimeBudget::default()
        );
        let infinite = Limits {
            move_time: Some(secs(1.0)),
            ..Limits::infinite()
        };
        assert_eq!(infinite.budget(Player::Second), TimeBudget::default());
    }

    #[test]
    fn clock_share_uses_own_time_and_increment() {
        let clock = Clock {
            remaining: [secs(60.0), secs(5.0)],
            increment: [secs(2.0), secs(0.0)],
            moves_to_go: None,
        };
        let first = Limits::clock(clock).budget(Player::First);
        let soft = first.soft.unwrap();
        // (60 s - overhead) / 25 + 1.5 s ≈ 3.9 s.
        assert!(soft > secs(3.8) && soft < secs(4.0), "{soft:?}");
        assert!(first.hard.unwrap() >= soft);
        assert!(first.hard.unwrap() <= secs(36.0));
        let second = Limits::clock(clock).budget(Player::Second);
        assert!(second.soft.unwrap() < secs(0.2));
        assert!(second.hard.unwrap() < secs(3.0));
    }

    #[test]
    fn nearly_flagged_clock_never_spends_more_than_it_has() {
        let clock = Clock {
            remaining: [secs(0.02), secs(0.02)],
            increment: [secs(5.0), secs(5.0)],
            moves_to_go: Some(1),
        };
        let b = Limits::clock(clock).budget(Player::First);
        assert_eq!(b.hard, Some(Duration::ZERO));
    }

    #[test]
    fn moves_to_go_divides_the_clock() {
        let clock = Clock {
            remaining: [Duration::from_millis(10_030); 2],
            increment: [Duration::ZERO; 2],
            moves_to_go: Some(2),
        };
        let b = Limits::clock(clock).budget(Player::First);
        // Half of 10 s would exceed the 40% cap.
        assert_eq!(b.soft, Some(secs(4.0)));
        assert_eq!(b.hard, Some(secs(6.0)));
    }

    #[test]
    fn the_tighter_of_move_time_and_clock_wins() {
        let clock = Clock {
            remaining: [secs(100.0); 2],
            increment: [Duration::ZERO; 2],
            moves_to_go: None,
        };
        let limits = Limits::clock(clock).with_move_time(secs(1.0));
        let b = limits.budget(Player::Second);
        assert_eq!((b.soft, b.hard), (Some(secs(1.0)), Some(secs(1.0))));
    }
}
