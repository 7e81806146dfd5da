//! `kingstable levels`: the AI's levels rated on one scale. A ladder of matches — level
//! 1 against the one-ply greedy player (the anchor, rated 1000), then each level
//! against the one below — played by the match runner (each opening from both sides),
//! then fitted together ([`arena::ladder`]). Prints each match as it goes, then every
//! level's rating with its 95% interval, its score against the level below and that
//! score by side.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use arena::ladder::{Match, Rating, fit};
use arena::{Limit, MatchConfig, Tally};
use game::GameKind;

/// The anchor's rating: the greedy player's, by definition.
pub const ANCHOR: f64 = 1000.0;

/// A calibration run.
#[derive(Clone, Debug)]
pub struct LevelsConfig {
    /// The game.
    pub kind: GameKind,
    /// Games in each match of the ladder.
    pub games: usize,
    /// Games in the match of level 5, which takes longer than those below.
    pub strong_games: usize,
    /// Games in the match of level 6, the longest.
    pub level6_games: usize,
    /// The strongest level rated (1-6).
    pub top: u8,
    /// Level 6's time a move (the other levels stop at their own depth or nodes, with
    /// [`CAP`] as a bound).
    pub level6_time: Duration,
    /// Adjudicate a draw after this many plies.
    pub draw_after: Option<usize>,
    /// Each match's records go in `DIR/levelN` (N against the one below).
    pub out: Option<PathBuf>,
    /// Keep the games saved in `out` by an earlier run and play only the rest.
    pub resume: bool,
    /// Games played at once.
    pub concurrency: usize,
}

/// The time bound of a move for levels 1-5, which stop at their own limits long before.
pub const CAP: Duration = Duration::from_secs(10);

/// One level's place on the ladder.
#[derive(Clone, Debug)]
pub struct Rung {
    /// The level (0: the greedy anchor).
    pub level: u8,
    /// Its fitted rating.
    pub rating: Rating,
    /// Its score against the rung below (none for the anchor).
    pub against_below: Option<Tally>,
    /// The same with the first side, and with the second.
    pub by_side: [Tally; 2],
}

/// Plays the ladder and fits it.
pub fn run(config: &LevelsConfig) -> Result<Vec<Rung>> {
    let name = |level: u8| {
        if level == 0 {
            "greedy".to_owned()
        } else {
            format!("level:{level}")
        }
    };
    let openings = arena::parse_openings(config.kind, arena::builtin_openings(config.kind))?;
    let mut matches = Vec::new();
    let mut tallies = vec![(None, [Tally::default(); 2])];
    for level in 1..=config.top {
        println!(
            "== {}: level {level} against {}",
            config.kind,
            if level == 1 {
                "the greedy player".to_owned()
            } else {
                format!("level {}", level - 1)
            }
        );
        let control = if level == 6 {
            Limit::MoveTime(config.level6_time)
        } else {
            Limit::MoveTime(CAP)
        };
        let match_config = MatchConfig {
            kind: config.kind,
            players: [name(level), name(level - 1)],
            games: match level {
                6 => config.level6_games,
                5 => config.strong_games,
                _ => config.games,
            },
            openings: openings.clone(),
            control,
            movetime_b: None,
            draw_after: config.draw_after,
            repetition: None,
            out: config
                .out
                .as_ref()
                .map(|dir| dir.join(format!("level{level}"))),
            threads: 1,
            concurrency: config.concurrency,
            resume: config.resume,
            sprt: None,
        };
        let summary = super::matches::run(&match_config, false)?;
        if !summary.failures.is_empty() {
            anyhow::bail!("a contestant failed in the match of level {level}");
        }
        let by_side = summary.tally_by_side();
        matches.push(Match {
            a: usize::from(level),
            b: usize::from(level - 1),
            tally: summary.tally,
        });
        tallies.push((Some(summary.tally), by_side));
    }
    let ratings = fit(usize::from(config.top) + 1, &matches, 0, ANCHOR)?;
    let rungs: Vec<Rung> = ratings
        .into_iter()
        .zip(tallies)
        .enumerate()
        .map(|(level, (rating, (against_below, by_side)))| Rung {
            level: u8::try_from(level).unwrap_or(u8::MAX),
            rating,
            against_below,
            by_side,
        })
        .collect();
    print_table(config.kind, &rungs);
    Ok(rungs)
}

fn score(tally: &Tally) -> String {
    tally
        .score()
        .map_or_else(|| "-".to_owned(), |s| format!("{:.0}%", s * 100.0))
}

fn print_table(kind: GameKind, rungs: &[Rung]) {
    println!();
    println!("{kind}: ratings on one scale, the greedy player at {ANCHOR:.0}");
    let first = format!("as {}", kind.side_name(game::Player::First));
    let second = format!("as {}", kind.side_name(game::Player::Second));
    println!(
        "{:<8} {:>16}  {:<24} {first:>12} {second:>12}",
        "player", "rating (95%)", "against the one below"
    );
    for rung in rungs {
        let who = if rung.level == 0 {
            "greedy".to_owned()
        } else {
            format!("level {}", rung.level)
        };
        let rating = if rung.level == 0 {
            format!("{:.0} (anchor)", rung.rating.rating)
        } else {
            format!("{:.0} ± {:.0}", rung.rating.rating, rung.rating.margin)
        };
        let below = rung.against_below.map_or_else(String::new, |t| {
            format!("+{} ={} -{} ({})", t.wins, t.draws, t.losses, score(&t))
        });
        let (first, second) = if rung.level == 0 {
            (String::new(), String::new())
        } else {
            (score(&rung.by_side[0]), score(&rung.by_side[1]))
        };
        println!("{who:<8} {rating:>16}  {below:<24} {first:>12} {second:>12}");
    }
}
