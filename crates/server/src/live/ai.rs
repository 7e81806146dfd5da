//! The AI's moves, searched on a bounded pool of blocking threads (one per core) so that
//! no search ever runs on the async runtime or delays a human game's move.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use engine::{Clock, DefaultEngine, EngineGame, Level, Limits};
use games::AnyGame;
use tokio::sync::{Semaphore, mpsc};

use super::Command;
use crate::state::AppState;

/// Hash table of one AI search, in MiB (small: many run at once).
const HASH_MB: usize = 16;
/// Think time per move without a Fischer clock (untimed and correspondence games).
const UNTIMED_MOVE: Duration = Duration::from_millis(1500);
/// The longest an AI move may take, whatever the clock says.
const LONGEST_MOVE: Duration = Duration::from_secs(10);

/// A bounded pool of AI searches.
#[derive(Debug)]
pub struct AiPool {
    permits: Arc<Semaphore>,
}

impl AiPool {
    /// A pool running at most `workers` searches at once.
    #[must_use]
    pub fn new(workers: usize) -> AiPool {
        AiPool {
            permits: Arc::new(Semaphore::new(workers.max(1))),
        }
    }

    /// The pool's permits: one per search running (the analysis socket takes them too).
    pub(crate) fn permits(&self) -> Arc<Semaphore> {
        Arc::clone(&self.permits)
    }

    /// Searches `game` at `level` (1-6) and sends the move to the game's owner as the
    /// move for revision `rev`. `clock`: both players' time left and the increment, for
    /// Fischer games.
    pub(crate) fn request(
        &self,
        state: &AppState,
        game: AnyGame,
        level: u8,
        clock: Option<([Duration; 2], Duration)>,
        rev: u64,
        owner: mpsc::Sender<Command>,
    ) {
        let permits = Arc::clone(&self.permits);
        let metrics = state.clone();
        let shutdown = state.shutdown.clone();
        state.tasks.spawn(async move {
            metrics.metrics.ai_queue.inc();
            let permit = tokio::select! {
                permit = permits.acquire_owned() => permit,
                () = shutdown.cancelled() => {
                    metrics.metrics.ai_queue.dec();
                    return;
                }
            };
            metrics.metrics.ai_queue.dec();
            let Ok(permit) = permit else { return };
            let level = Level::ALL[usize::from(level.clamp(1, 6)) - 1];
            let limits = limits(clock);
            let searched = tokio::task::spawn_blocking(move || {
                let _permit = permit;
                think(&game, level, &limits)
            })
            .await;
            match searched {
                Ok(Some(text)) => {
                    let _ = owner.send(Command::AiMove { rev, text }).await;
                }
                Ok(None) => {}
                Err(error) => tracing::error!(%error, "an AI search failed"),
            }
        });
    }
}

/// How long the AI may think: by its clock in Fischer games (never more than
/// [`LONGEST_MOVE`]), else [`UNTIMED_MOVE`].
fn limits(clock: Option<([Duration; 2], Duration)>) -> Limits {
    let mut limits = match clock {
        Some((remaining, increment)) => Limits::clock(Clock {
            remaining,
            increment: [increment; 2],
            moves_to_go: None,
        }),
        None => Limits::move_time(UNTIMED_MOVE),
    };
    let cap = limits
        .move_time
        .map_or(LONGEST_MOVE, |t| t.min(LONGEST_MOVE));
    limits.move_time = Some(cap);
    limits
}

/// The AI's move in `game`, as text; `None` when the game has no legal move.
fn think(game: &AnyGame, level: Level, limits: &Limits) -> Option<String> {
    match game {
        AnyGame::Tafl(g) => answer(g, level, limits),
        AnyGame::Camelot(g) => answer(g, level, limits),
    }
}

fn answer<G: EngineGame>(game: &G, level: Level, limits: &Limits) -> Option<String> {
    let mut engine = DefaultEngine::<G>::default();
    engine.set_hash_mb(HASH_MB);
    engine.set_threads(1);
    engine.set_level(level);
    let stop = AtomicBool::new(false);
    let answer = engine.answer(game, limits, &stop, |_| {});
    answer.result.best_move.map(|mv| game.format_move(mv))
}

#[cfg(test)]
mod tests {
    use super::*;
    use game::GameKind;

    #[test]
    fn the_ai_answers_a_legal_move_in_each_game() {
        for kind in GameKind::ALL {
            let mut game = AnyGame::start(kind);
            let text = think(&game, Level::Beginner, &limits(None)).unwrap();
            game.try_play(&text).unwrap();
        }
    }

    #[test]
    fn a_fischer_clock_bounds_the_think_time() {
        let long = limits(Some((
            [Duration::from_secs(3600); 2],
            Duration::from_secs(30),
        )));
        assert!(long.move_time.unwrap() <= LONGEST_MOVE);
        assert_eq!(limits(None).move_time, Some(UNTIMED_MOVE));
    }
}
