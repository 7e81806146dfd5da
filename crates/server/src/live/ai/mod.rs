//! The AI's work — game moves, analyses and reviews — on a fair pool of search threads.
//!
//! This module is what a game uses: the AI's move ([`AiPool::request`]: a search on the
//! pool whose move goes to the game's owner), whether the AI takes a draw offered to it
//! ([`accepts_draw`]) and what a rematch counts against ([`rematch_slot`]). Beneath it:
//!
//! - [`pool`]: the search threads, their jobs' [`Ticket`]s and the games' [`GameSlot`]s
//!   ([`AiPool`]);
//! - [`queue`]: the order in which waiting jobs are served (moves first, fair between
//!   players);
//! - [`quota`]: who a job counts against ([`Asker`]) and the bounds per identity, in this
//!   process and shared with the other processes.

mod pool;
mod queue;
mod quota;
#[cfg(test)]
mod testing;

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use engine::{AnyEngine, Clock, EngineOptions, Level, Limits, Score};
use game::{GameKind, Player};
use games::AnyGame;
use tokio::sync::mpsc;

pub use self::pool::{AiPool, AiStats, GameSlot, Ticket};
pub use self::queue::{MoveWait, Work};
pub use self::quota::{AiKey, Asker, QuotaError};
pub(crate) use self::quota::{hold, reserve_game};
use super::{Command, Refusal, SocketError};
use crate::state::AppState;
use crate::store::GameRecord;

/// Hash table of one AI search, in MiB (small: many run at once).
const HASH_MB: usize = 16;
/// Think time per move without a Fischer clock (untimed and correspondence games). Only
/// level 6 uses it all (levels 1-5 stop at their own depth or node limits): at 3 s it
/// searches about four times level 5's million nodes here and scored 88% against it in
/// Copenhagen and Camelot, 65% in Fetlar; at 1.5 s, 58% in both tafl games
/// (`bench/RESULTS.md`, "The levels rated").
const UNTIMED_MOVE: Duration = Duration::from_millis(3000);
/// The longest an AI move may take, whatever the clock says.
const LONGEST_MOVE: Duration = Duration::from_secs(10);

impl AiPool {
    /// Searches `game` (game `record`'s position at revision `rev`) at `level` (1-6) and
    /// sends the move to the game's owner. `clock`: both players' time left and the
    /// increment, for Fischer games. A search still waiting or running for the game is
    /// cancelled first (its answer would be stale).
    pub(crate) fn request(
        &self,
        record: &GameRecord,
        game: AnyGame,
        level: u8,
        clock: Option<([Duration; 2], Duration)>,
        rev: u64,
        owner: mpsc::Sender<Command>,
    ) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let level = Level::ALL[usize::from(level.clamp(1, 6)) - 1];
        let limits = limits(clock);
        self.submit_move(record, move |stop| {
            if let (Some(text), score) = think(&game, level, &limits, stop) {
                runtime.spawn(async move {
                    let _ = owner.send(Command::AiMove { rev, text, score }).await;
                });
            }
        });
    }
}

/// The creation limits a rematch of `record` counts against: the creation rate of the
/// address that asked for the game (when known), and, against the AI, the asker's quota
/// of AI games (the slot to bind to the new game).
///
/// # Errors
/// `rate_limited` when either is spent.
pub(crate) async fn rematch_slot(
    state: &AppState,
    record: &GameRecord,
) -> Result<Option<GameSlot>, Refusal> {
    if let Some(addr) = state.ai.address_of(&record.id)
        && !state.limiters.challenge.take(&addr).await
    {
        return Err(Refusal::new(
            SocketError::RateLimited,
            "too many new games: wait a little",
        ));
    }
    if record.first.ai_level.is_none() && record.second.ai_level.is_none() {
        return Ok(None);
    }
    reserve_game(state, &state.ai.asker_of(record))
        .await
        .map(Some)
        .map_err(|quota| Refusal::new(SocketError::RateLimited, quota.to_string()))
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

/// The AI's move in `game`, as text (`None` when the game has no legal move), and its
/// evaluation of the position for itself.
fn think(
    game: &AnyGame,
    level: Level,
    limits: &Limits,
    stop: &AtomicBool,
) -> (Option<String>, Score) {
    let mut engine = AnyEngine::new(EngineOptions {
        hash_mb: HASH_MB,
        threads: 1,
        level: Some(level),
        contempt: None,
    });
    let answer = engine.answer(game, limits, stop, |_| {});
    (answer.best, answer.score)
}

/// Below this (in the engine's units, for itself) the AI takes a draw: it stands
/// clearly worse, so a draw is the most it can hope for. Each game's own: Camelot's
/// evaluation counts a man as about 100, so −150 is a man and a half down; in tafl the
/// learned correction spreads the scores (about 1,000 points to one logistic unit of
/// the game's result), so −400 is an expected score of about 40%, and −150 was no more
/// than where the evaluation leans at a start (the AI defending Fetlar, at −176 after
/// one move each, took a draw offered there).
pub(crate) const fn draw_accept_below(kind: GameKind) -> i32 {
    match kind {
        GameKind::Fetlar | GameKind::Copenhagen => -400,
        GameKind::Camelot => -150,
    }
}

/// Whether the AI playing `ai` accepts a draw offered in `game`: only when it cannot win
/// — the rules say it has not the pieces to win ([`Game::can_win`](game::Game::can_win)), or its own
/// evaluation from its last search (`score`, for itself) is a forced loss or below
/// [`draw_accept_below`]. Before its first search it judges by the rules alone. Any
/// other offer is declined.
pub(crate) fn accepts_draw(game: &AnyGame, ai: Player, score: Option<Score>) -> bool {
    if !game::Game::can_win(game, ai) {
        return true;
    }
    score.is_some_and(|score| match score.plies_to_end() {
        Some(_) => score.0 < 0,
        None => score.0 < draw_accept_below(game.kind()),
    })
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ai_takes_a_draw_only_when_it_cannot_win() {
        let start = AnyGame::start(GameKind::Copenhagen);
        // Before its first search, and when it stands even, better or a little worse:
        // declined.
        assert!(!accepts_draw(&start, Player::First, None));
        assert!(!accepts_draw(&start, Player::First, Some(Score(0))));
        assert!(!accepts_draw(&start, Player::Second, Some(Score(-200))));
        assert!(!accepts_draw(
            &start,
            Player::Second,
            Some(Score::win_in(7))
        ));
        // Clearly worse, or lost: accepted.
        assert!(accepts_draw(&start, Player::First, Some(Score(-600))));
        assert!(accepts_draw(
            &start,
            Player::Second,
            Some(Score::loss_in(6))
        ));
        // Camelot: White's lone man cannot win (every way to win needs two pieces), so
        // White takes a draw even where its search liked its chances; Black does not.
        let lone = AnyGame::from_position(
            GameKind::Camelot,
            "2/8/10/12/12/12/3mm7/12/12/12/12/12/12/M9/8/2 w 0 0 0",
        )
        .unwrap();
        assert!(accepts_draw(&lone, Player::First, Some(Score(500))));
        assert!(accepts_draw(&lone, Player::First, None));
        assert!(!accepts_draw(&lone, Player::Second, Some(Score(0))));
    }

    /// The AI's own searches in the first plies of every game, as the levels the site's
    /// browser tests play: it never judges itself so far behind that it takes a draw
    /// offered there (below −150, the AI defending Fetlar, about −176 after one move each,
    /// took one).
    #[test]
    fn the_ai_declines_a_draw_offered_in_the_first_moves_of_every_game() {
        for kind in GameKind::ALL {
            for level in [Level::Beginner, Level::Club] {
                let mut game = AnyGame::start(kind);
                for ply in 0..4 {
                    let ai = game::Game::to_move(&game);
                    let stop = AtomicBool::new(false);
                    let (text, score) = think(&game, level, &limits(None), &stop);
                    assert!(
                        !accepts_draw(&game, ai, Some(score)),
                        "{kind}, {level}, ply {ply}: {score:?}"
                    );
                    game.try_play(&text.unwrap()).unwrap();
                }
            }
        }
    }

    #[test]
    fn the_ai_answers_a_legal_move_in_each_game() {
        for kind in GameKind::ALL {
            let mut game = AnyGame::start(kind);
            let stop = AtomicBool::new(false);
            let text = think(&game, Level::Beginner, &limits(None), &stop)
                .0
                .unwrap();
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
