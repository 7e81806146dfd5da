//! `kingstable analyze`: search a position and show the search's progress, depth by
//! depth, then the best move.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use engine::{DefaultEngine, EngineGame, Level, Limits, Score, SearchInfo, line_texts};
use game::{GameKind, Player};

/// How long or deep to search, and with what.
#[derive(Clone, Debug)]
pub struct AnalyzeOptions {
    /// Search for this long.
    pub time: Option<Duration>,
    /// Search this many plies deep.
    pub depth: Option<u32>,
    /// Search this many nodes.
    pub nodes: Option<u64>,
    /// Search threads.
    pub threads: usize,
    /// Transposition table size in MB.
    pub hash_mb: usize,
    /// Playing level (the lower levels cap the search and add noise).
    pub level: Level,
}

/// A game whose board can be drawn for people.
pub trait Board {
    /// The board as text, with the side to move.
    fn board(&self) -> String;
}

impl Board for tafl::Tafl {
    fn board(&self) -> String {
        self.position().to_string()
    }
}

impl Board for camelot::Camelot {
    fn board(&self) -> String {
        // The position's text ends with the side to move and the counters.
        self.position().to_string()
    }
}

/// Whose view the scores take: `the attackers`, `White`.
fn score_side(kind: GameKind, player: Player) -> String {
    let side = kind.side_name(player);
    if kind.is_tafl() {
        format!("the {side}")
    } else {
        let mut name = side.to_owned();
        name[..1].make_ascii_uppercase();
        name
    }
}

/// The score for printing: `+35`, `-120`, `win in 3`, `loss in 2`.
fn score_text(score: Score) -> String {
    if score.is_decisive() {
        score.to_string()
    } else {
        format!("{:+}", score.0)
    }
}

fn nps_text(nps: u64) -> String {
    if nps >= 1_000_000 {
        format!("{:.2}M", nps as f64 / 1e6)
    } else if nps >= 1_000 {
        format!("{:.0}k", nps as f64 / 1e3)
    } else {
        nps.to_string()
    }
}

/// Prints the board, a line per completed depth and the best move.
pub fn run<G: EngineGame + Board>(game: G, options: &AnalyzeOptions) -> Result<()> {
    let mut engine = DefaultEngine::<G>::default();
    engine.set_threads(options.threads);
    engine.try_set_hash_mb(options.hash_mb)?;
    engine.set_level(options.level);
    // Analysis scores a draw as the game does, whatever the level.
    engine.set_contempt(Some(0));
    println!("{}", game.board());
    println!("{}", game.position_string());
    if let Some(outcome) = game.outcome() {
        bail!(
            "the game is over: {} ({})",
            game.kind().status_name(Some(outcome)),
            outcome.reason
        );
    }
    let mut limits = Limits {
        depth: options.depth,
        nodes: options.nodes,
        move_time: options.time,
        ..Limits::default()
    };
    if limits.depth.is_none() && limits.nodes.is_none() && limits.move_time.is_none() {
        limits.move_time = Some(Duration::from_secs(5));
    }
    let side = score_side(game.kind(), game.to_move());
    println!(
        "searching with {} thread(s), level {} ({}), scores for {side}",
        engine.threads(),
        options.level.number(),
        options.level
    );
    println!(
        "{:>5} {:>8} {:>10} {:>12} {:>8} {:>8}  pv",
        "depth", "seldepth", "score", "nodes", "nps", "time"
    );
    let stop = AtomicBool::new(false);
    let result = engine.answer(&game, &limits, &stop, |info: &SearchInfo<G::Move>| {
        println!(
            "{:>5} {:>8} {:>10} {:>12} {:>8} {:>7.3}s  {}",
            info.depth,
            info.seldepth,
            score_text(info.score),
            info.nodes,
            nps_text(info.nps),
            info.time.as_secs_f64(),
            line_texts(&game, &info.pv).join(" ")
        );
    });
    let best = result.result.best_move.context("no move found")?;
    println!(
        "best move {} ({}, depth {}, {} nodes in {:.3}s, {} nodes/s)",
        game.format_move(best),
        score_text(result.result.score),
        result.result.depth,
        result.result.nodes,
        result.result.time.as_secs_f64(),
        nps_text(result.result.nps())
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_print_signed_or_as_wins() {
        assert_eq!(score_text(Score(35)), "+35");
        assert_eq!(score_text(Score(-120)), "-120");
        assert_eq!(score_text(Score::win_in(3)), "win in 3");
    }
}
