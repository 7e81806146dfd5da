//! `kingstable perft`: count the leaves of the game tree, the move generator's contract.
//!
//! Counts are exact or refused: a depth whose count might not fit in a `u64` is refused
//! before counting where the game gives a bound ([`game::MoveBound`]), and every count is
//! checked as it grows. A long count shows its progress on standard error.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use game::{Game, MoveBound, deepest_countable};

/// When to report progress and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProgressPolicy {
    /// No report before the count has run this long.
    pub after: Duration,
    /// At most one report per this long.
    pub every: Duration,
    /// Rewrite one line in place (a terminal) instead of writing a line per report.
    pub in_place: bool,
    /// A line after every first move too.
    pub per_first_move: bool,
}

impl ProgressPolicy {
    /// On a terminal: a live line, updated twice a second once the count has taken a
    /// second. Elsewhere (a log): a line every 30 seconds once it has taken 30. With
    /// `always`: a line after each first move, and every second, from the start.
    #[must_use]
    pub fn new(terminal: bool, always: bool) -> ProgressPolicy {
        if always {
            ProgressPolicy {
                after: Duration::ZERO,
                every: Duration::from_secs(1),
                in_place: false,
                per_first_move: true,
            }
        } else if terminal {
            ProgressPolicy {
                after: Duration::from_secs(1),
                every: Duration::from_millis(500),
                in_place: true,
                per_first_move: false,
            }
        } else {
            ProgressPolicy {
                after: Duration::from_secs(30),
                every: Duration::from_secs(30),
                in_place: false,
                per_first_move: false,
            }
        }
    }

    /// Whether a report is due at `elapsed`, the last one having been at `last`.
    #[must_use]
    pub fn due(&self, elapsed: Duration, last: Option<Duration>) -> bool {
        elapsed >= self.after && last.is_none_or(|last| elapsed >= last + self.every)
    }
}

/// Where a count stands, for a progress report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Progress<'a> {
    /// The depth counted.
    pub depth: u32,
    /// First moves finished, of `first_total`.
    pub first_done: usize,
    /// Legal first moves.
    pub first_total: usize,
    /// The first move being counted, if any.
    pub current: Option<&'a str>,
    /// Leaves counted so far.
    pub leaves: u64,
    /// Time since the count started.
    pub elapsed: Duration,
}

impl Progress<'_> {
    /// `perft(6): 12/116 first moves, in b6-b9, 1234567 leaves, 1m 05s`.
    #[must_use]
    pub fn line(&self) -> String {
        let mut line = format!(
            "perft({}): {}/{} first moves",
            self.depth, self.first_done, self.first_total
        );
        if let Some(mv) = self.current {
            line.push_str(&format!(", in {mv}"));
        }
        line.push_str(&format!(
            ", {} leaves, {}",
            self.leaves,
            elapsed_text(self.elapsed)
        ));
        line
    }
}

/// `0.4s`, `12s`, `3m 05s`, `2h 07m`.
fn elapsed_text(elapsed: Duration) -> String {
    let secs = elapsed.as_secs();
    match secs {
        0..10 => format!("{:.1}s", elapsed.as_secs_f64()),
        10..60 => format!("{secs}s"),
        60..3600 => format!("{}m {:02}s", secs / 60, secs % 60),
        _ => format!("{}h {:02}m", secs / 3600, secs / 60 % 60),
    }
}

/// Writes due progress reports to standard error.
struct Reporter {
    policy: ProgressPolicy,
    started: Instant,
    last: Option<Duration>,
    /// Whether an in-place line is on the screen (to end it before other output).
    open: bool,
}

impl Reporter {
    fn report(&mut self, progress: &dyn Fn(Duration) -> String, force: bool) {
        let elapsed = self.started.elapsed();
        if !(force || self.policy.due(elapsed, self.last)) {
            return;
        }
        self.last = Some(elapsed);
        let line = progress(elapsed);
        if self.policy.in_place {
            eprint!("\r{line}\x1b[K");
            self.open = true;
        } else {
            eprintln!("{line}");
        }
    }

    fn close(&mut self) {
        if self.open {
            eprintln!();
            self.open = false;
        }
    }
}

/// Prints `move: count` lines with `divide`, then the total alone on the last line.
/// Timing and progress go to stderr.
pub fn run<G: Game + MoveBound>(
    mut game: G,
    depth: u32,
    divide: bool,
    progress: bool,
) -> Result<()> {
    if let Some(deepest) = deepest_countable(&game)
        && depth > deepest
    {
        bail!(
            "depth {depth} cannot be counted: here at most {deepest} plies are sure to fit in \
             64 bits (a tafl piece has at most 20 moves; see --help)"
        );
    }
    let started = Instant::now();
    let mut reporter = Reporter {
        policy: ProgressPolicy::new(std::io::stderr().is_terminal(), progress),
        started,
        last: None,
        open: false,
    };
    let mut total: u64 = 0;
    if depth == 0 {
        total = 1;
    } else {
        let mut moves = Vec::new();
        game.legal_moves(&mut moves);
        for (i, &mv) in moves.iter().enumerate() {
            let text = game.format_move(mv);
            game.play(mv);
            let n = if depth == 1 || game.outcome().is_some() {
                Some(1)
            } else {
                let mut leaves = total;
                game::try_perft_with_progress(&mut game, depth - 1, &mut |subtree| {
                    leaves = leaves.saturating_add(subtree);
                    let report = |elapsed| Progress {
                        depth,
                        first_done: i,
                        first_total: moves.len(),
                        current: Some(&text),
                        leaves,
                        elapsed,
                    };
                    reporter.report(&|elapsed| report(elapsed).line(), false);
                })
            };
            game.undo();
            let Some((n, sum)) = n.and_then(|n| Some((n, total.checked_add(n)?))) else {
                reporter.close();
                bail!("the count passed {} (2^64 - 1) and was stopped", u64::MAX);
            };
            total = sum;
            if divide {
                reporter.close();
                println!("{text}: {n}");
            }
            let per_first_move = reporter.policy.per_first_move;
            let report = |elapsed| Progress {
                depth,
                first_done: i + 1,
                first_total: moves.len(),
                current: None,
                leaves: total,
                elapsed,
            };
            reporter.report(&|elapsed| report(elapsed).line(), per_first_move);
        }
    }
    reporter.close();
    let seconds = started.elapsed().as_secs_f64();
    eprintln!(
        "perft({depth}) in {seconds:.3} s ({:.1} M leaves/s)",
        total as f64 / seconds.max(1e-9) / 1e6
    );
    println!("{total}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_hears_of_every_leaf_once() {
        // Few pieces, so that games end inside the count (captured kings, escapes).
        let position =
            tafl::Position::from_string_with_side("/11/11/11/2t8/3K2t4/11/4t6/11/11/11/11/ a")
                .unwrap();
        let mut game = tafl::Tafl::from_position(tafl::Rules::COPENHAGEN, position);
        let mut heard = 0;
        let total = game::try_perft_with_progress(&mut game, 5, &mut |n| heard += n);
        assert_eq!(total, Some(heard));
        assert_eq!(total, game::try_perft(&mut game, 5));
    }

    #[test]
    fn progress_waits_and_then_keeps_its_pace() {
        let terminal = ProgressPolicy::new(true, false);
        let ms = Duration::from_millis;
        assert!(!terminal.due(ms(900), None));
        assert!(terminal.due(ms(1000), None));
        assert!(!terminal.due(ms(1400), Some(ms(1000))));
        assert!(terminal.due(ms(1500), Some(ms(1000))));
        let log = ProgressPolicy::new(false, false);
        assert!(!log.due(Duration::from_secs(29), None));
        assert!(log.due(Duration::from_secs(30), None));
        assert!(!log.due(Duration::from_secs(59), Some(Duration::from_secs(30))));
        let always = ProgressPolicy::new(false, true);
        assert!(always.due(Duration::ZERO, None));
        assert!(always.per_first_move && !always.in_place);
    }

    #[test]
    fn a_progress_line_says_where_the_count_stands() {
        let line = Progress {
            depth: 6,
            first_done: 12,
            first_total: 116,
            current: Some("b6-b9"),
            leaves: 1_234_567,
            elapsed: Duration::from_secs(65),
        }
        .line();
        assert_eq!(
            line,
            "perft(6): 12/116 first moves, in b6-b9, 1234567 leaves, 1m 05s"
        );
        assert_eq!(elapsed_text(Duration::from_millis(400)), "0.4s");
        assert_eq!(elapsed_text(Duration::from_secs(7600)), "2h 06m");
    }
}
