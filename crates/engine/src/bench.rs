//! The deterministic benchmark: fixed positions searched to a fixed depth, one thread,
//! a fresh table each. The total node count is a signature of search behaviour (it
//! changes only when the search or an evaluation changes); nodes per second measure
//! speed. Asked for more threads, each position is searched again on that many (Lazy
//! SMP), which measures the time to the same depth; those node counts vary from run to
//! run and are not part of the signature.
//!
//! Middlegame positions are the openings of real games, played from the start: the
//! Copenhagen ones from the aagenielsen.dk archive (`aagenielsen_archive_part1.csv` in
//! `crates/tafl/tests/data/`, by its `index` column, first N plies), the Fetlar ones
//! from the 2014 English national championship final and from an archive opening that
//! is legal under both rule sets, the Camelot ones from the 2009 World Camelot
//! Federation championship (games 1 and 5).

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use camelot::Camelot;
use game::{Game, GameKind};
use tafl::{Rules, Tafl};

use crate::eval::EngineGame;
use crate::limits::Limits;
use crate::score::Score;
use crate::search::Engine;

/// One benchmark position: a game, and the moves played from its start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BenchPosition {
    /// The game.
    pub game: GameKind,
    /// Where the moves come from.
    pub name: &'static str,
    /// Moves from the start position, in the game's notation.
    pub moves: &'static str,
}

/// The benchmark positions, in the order they are searched.
pub const POSITIONS: &[BenchPosition] = &[
    BenchPosition {
        game: GameKind::Copenhagen,
        name: "start",
        moves: "",
    },
    BenchPosition {
        game: GameKind::Copenhagen,
        name: "archive 100, 20 plies",
        moves: "h1-h3 f4-i4 k8-i8 g5-g3 f2-f3xg3 g6-g3 g1-g2 i4-i3xh3 e1-e3 h6-h9 a4-g4xg3 f6-i6 k7-i7 i3-g3 g4-i4 d6-d2 d11-d3xd2 e7-e10 d3-d10xe10 e6-e10",
    },
    BenchPosition {
        game: GameKind::Copenhagen,
        name: "archive 316, 40 plies",
        moves: "d1-d3 h6-h3 k8-i8 d6-d9 a5-c5 g7-j7 f10-j10 g5-j5xj6 f2-j2 g6-i6 h1-i1 f6-g6 g11-g9 j5-j3 k4-k3 e6-c6 a7-c7xc6 f8-c8 c7-c6 f7-f10 b6-b10 f5-f9 g9-i9 d9-a9 a6-a7 g6-d6 d11-c11 e7-b7 e11-d11 b7-b6xc6 c11-c10 d6-d4 c5-c2 e5-e2 e1-b1 e2-d2xd3 b1-b3 d2-d1 f1-f3 d4-d3",
    },
    BenchPosition {
        game: GameKind::Copenhagen,
        name: "archive 611, 60 plies",
        moves: "d1-d3 e5-e2 f2-i2 d6-d9 f10-c10 f4-c4 b6-b2 c4-c3 b2-b3xc3 f5-f3 d3-e3xe2 d9-d3xe3 d11-d9 h6-h9 j6-j9 e6-e2 c10-c2 d3-d1 a6-c6 g6-j6 k4-k3 f8-c8 e11-e10 e7-b7 a8-b8 f7-c7 c6-b6xb7 f6-f10 h11-h10 c8-c10 b8-b10 c10-d10xe10 f11-d11xd10 c7-c11 b3-e3xe2 d1-d3xe3 b6-b3 f10-c10 d9-c9 d3-d8 c2-c8 c10-e10 g11-e11 e10-e4 e11-e8xd8 e4-c4 a4-a3 c4-c1 b3-b1 c1-c2 b1-b2 g7-g11 k8-h8xh9 g11-e11xd11 h1-h2 c2-c1 b2-b1 c1-c4 e1-c1 c4-b4",
    },
    BenchPosition {
        game: GameKind::Copenhagen,
        name: "archive 709, 80 plies",
        moves: "d1-d3 e5-e2 f2-i2 f4-c4 e1-c1 e2-b2 c1-c2 e6-e3 a4-a2xb2 c4-c3xd3 b6-b3 d6-d10 a6-d6 c3-c9 d6-d9xd10 e7-e9xd9 f10-c10 f8-c8 d11-b11 f7-b7 b11-b9 f6-d6 e11-d11 d6-d1 c2-c1 c8-c2 a2-b2 d1-d4 f1-f4xf5 d4-a4 b3-a3 g6-a6xa5 d11-d9xc9 c2-c9xd9 k8-c8xc9 a4-e4 f4-h4 e4-e8 h11-h8 e9-c9 f11-d11 e8-g8 d11-d9xc9 g7-i7 j6-j10 g8-g9 h8-h9 i7-i9xh9 g11-i11 i9-k9 c10-i10 b7-i7 c8-k8 a6-g6 a8-c8 g9-g11 d9-d11 g11-g10 c8-c10 k9-f9 i11-h11 g10-g8 a7-a8 f9-f4 k8-i8 i7-c7 k5-h5 c7-h7 k4-k3 g6-a6 a3-a4 g5-a5 b2-b3 g8-g2 c1-c2 f4-f1 d11-d1 g2-g11 c10-c11 g11-g10",
    },
    BenchPosition {
        game: GameKind::Fetlar,
        name: "start",
        moves: "",
    },
    BenchPosition {
        game: GameKind::Fetlar,
        name: "English championship 2014 final, 12 plies",
        moves: "a8-a9 h6-h3 f2-j2 g5-j5 k4-j4xj5 g6-g2 b6-b2 f6-i6 h1-j1 i6-i11 j6-j11 i11-i3",
    },
    BenchPosition {
        game: GameKind::Fetlar,
        name: "archive 225, 30 plies",
        moves: "h1-h3 d6-d3 a4-a3 e5-b5 a7-c7 f5-c5 f2-b2 f4-j4 k5-i5 f8-c8 f10-c10 e6-c6xc7 b6-b9 c5-c1 i5-i4xj4 f6-f2 g1-g2 e7-e4 a5-a4 d3-b3 a4-b4xb3 f7-b7 e1-e2 f2-f3 d11-d3 g6-d6 e11-d11 g7-i7 a6-a4 i7-i10",
    },
    BenchPosition {
        game: GameKind::Camelot,
        name: "start",
        moves: "",
    },
    BenchPosition {
        game: GameKind::Camelot,
        name: "WCF 2009 game 5, 10 plies",
        moves: "H6-H8 E11-G9 J6-H6 C11-E11 I6-G8 D11-F9 D6-F8 D10-F12 C6-E8 F11-D9",
    },
    BenchPosition {
        game: GameKind::Camelot,
        name: "WCF 2009 game 1, 12 plies",
        moves: "D6-F8 H11-F9 C6-E8-G8 J11-H11 H6-H8 E11-G9 J6-H6 C11-E11 I6-I8 D11-D9 I8-J9 D10-D8xD6",
    },
];

/// The depth `kingstable bench` searches a game's positions to unless told otherwise:
/// about a second of searching per game.
#[must_use]
pub const fn default_depth(game: GameKind) -> u32 {
    match game {
        GameKind::Fetlar | GameKind::Copenhagen => 8,
        GameKind::Camelot => 6,
    }
}

/// The table size of each benchmark search.
const BENCH_HASH_MB: usize = 16;

/// The result of one benchmark position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BenchLine {
    /// The position.
    pub position: BenchPosition,
    /// The depth searched.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Time taken.
    pub time: Duration,
    /// The best move, in the game's notation.
    pub best_move: String,
    /// Its score.
    pub score: Score,
    /// The same search on more threads, when asked for.
    pub parallel: Option<ParallelRun>,
}

/// A benchmark position searched to the same depth on several threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParallelRun {
    /// Search threads.
    pub threads: usize,
    /// Nodes searched by all threads (varies from run to run).
    pub nodes: u64,
    /// Time to the depth.
    pub time: Duration,
}

/// A bench position that cannot be set up (a bad move list).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bench position {name:?} ({game}): move {ply} ({text}) is not legal: {reason}")]
pub struct BenchError {
    /// The game.
    pub game: GameKind,
    /// The position's name.
    pub name: &'static str,
    /// The ply of the bad move (1-based).
    pub ply: usize,
    /// The move.
    pub text: String,
    /// Why it was rejected.
    pub reason: String,
}

/// The tafl game of a Fetlar or Copenhagen benchmark position.
pub fn tafl_game(position: &BenchPosition) -> Result<Tafl, BenchError> {
    let rules = match position.game {
        GameKind::Copenhagen => Rules::COPENHAGEN,
        _ => Rules::FETLAR,
    };
    let mut game = Tafl::new(rules);
    play(&mut game, position)?;
    Ok(game)
}

/// The game of a Camelot benchmark position.
pub fn camelot_game(position: &BenchPosition) -> Result<Camelot, BenchError> {
    let mut game = Camelot::start();
    play(&mut game, position)?;
    Ok(game)
}

fn play<G: Game>(game: &mut G, position: &BenchPosition) -> Result<(), BenchError> {
    for (i, text) in position.moves.split_whitespace().enumerate() {
        let mv = game.parse_move(text).map_err(|e| BenchError {
            game: position.game,
            name: position.name,
            ply: i + 1,
            text: text.to_owned(),
            reason: e.to_string(),
        })?;
        game.play(mv);
    }
    Ok(())
}

/// Searches `game` to `depth` on `threads` threads with a fresh table.
pub fn search_position<G: EngineGame>(
    game: &G,
    depth: u32,
    threads: usize,
) -> (u64, Duration, Option<G::Move>, Score) {
    let mut engine = Engine::<G, G::Evaluator>::new(G::Evaluator::default());
    engine.set_hash_mb(BENCH_HASH_MB);
    engine.set_threads(threads);
    let result = engine.search(game, &Limits::depth(depth), &AtomicBool::new(false), |_| {});
    (result.nodes, result.time, result.best_move, result.score)
}

fn bench_line<G: EngineGame>(
    game: &G,
    position: &BenchPosition,
    depth: u32,
    threads: usize,
) -> BenchLine {
    // The search's own time: setting up the table is not searching.
    let (nodes, time, best, score) = search_position(game, depth, 1);
    let parallel = (threads > 1).then(|| {
        let (nodes, time, _, _) = search_position(game, depth, threads);
        ParallelRun {
            threads,
            nodes,
            time,
        }
    });
    BenchLine {
        position: *position,
        depth,
        nodes,
        time,
        best_move: best.map_or_else(|| "(none)".to_owned(), |mv| game.format_move(mv)),
        score,
        parallel,
    }
}

/// Runs the benchmark to `depth` (by default [`default_depth`]), calling `each` after
/// every position. With `threads` above 1 each position is also searched on that many
/// threads ([`BenchLine::parallel`]).
pub fn run(
    depth: Option<u32>,
    threads: usize,
    mut each: impl FnMut(&BenchLine),
) -> Result<Vec<BenchLine>, BenchError> {
    let mut lines = Vec::new();
    for position in POSITIONS {
        let depth = depth.unwrap_or(default_depth(position.game));
        let line = match position.game {
            GameKind::Camelot => bench_line(&camelot_game(position)?, position, depth, threads),
            GameKind::Fetlar | GameKind::Copenhagen => {
                bench_line(&tafl_game(position)?, position, depth, threads)
            }
        };
        each(&line);
        lines.push(line);
    }
    Ok(lines)
}

/// The openings of an openings file (as `bench/openings/tafl.txt`): one opening a line,
/// moves separated by spaces, `#` to the end of a line a comment, blank lines skipped.
/// Each comes with its line number (from 1), for error messages.
pub fn opening_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().filter_map(|(i, line)| {
        let line = line.split('#').next().unwrap_or("").trim();
        (!line.is_empty()).then_some((i + 1, line))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opening_lines_skip_comments_and_blanks_and_keep_line_numbers() {
        let text = "# openings\n\n  e1-e2 f3-f4  # the first\n#\nd1-d2\n";
        let lines: Vec<_> = opening_lines(text).collect();
        assert_eq!(lines, [(3, "e1-e2 f3-f4"), (5, "d1-d2")]);
        assert_eq!(opening_lines("# nothing\n \n").count(), 0);
    }

    #[test]
    fn every_bench_position_sets_up_and_is_still_being_played() {
        for position in POSITIONS {
            let plies = position.moves.split_whitespace().count();
            if position.game == GameKind::Camelot {
                let game = camelot_game(position).unwrap();
                assert_eq!(game.outcome(), None, "{}", position.name);
                assert_eq!(game.ply(), plies);
            } else {
                let game = tafl_game(position).unwrap();
                assert_eq!(game.outcome(), None, "{}", position.name);
                assert_eq!(game.ply(), plies);
            }
        }
    }

    #[test]
    fn the_archive_openings_are_the_archive_games() {
        // The tafl crate's copy of the archive (its test data).
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tafl/tests/data/aagenielsen_archive_part1.csv"
        );
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let mut checked = 0;
        for position in POSITIONS.iter().filter(|p| p.name.starts_with("archive ")) {
            let index = position.name["archive ".len()..].split(',').next().unwrap();
            let line = text
                .lines()
                .find(|l| l.split(',').next() == Some(index))
                .unwrap();
            let moves = line.split(',').nth(1).unwrap();
            assert!(moves.starts_with(position.moves), "{}", position.name);
            checked += 1;
        }
        assert!(checked > 0, "no archive positions checked");
    }

    #[test]
    fn bench_is_deterministic() {
        let a = run(Some(2), 1, |_| {}).unwrap();
        let b = run(Some(2), 1, |_| {}).unwrap();
        let nodes = |lines: &[BenchLine]| {
            lines
                .iter()
                .map(|l| (l.nodes, l.best_move.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(nodes(&a), nodes(&b));
        assert!(a.iter().all(|l| l.nodes > 0 && l.parallel.is_none()));
    }

    #[test]
    fn more_threads_search_again_and_keep_the_signature() {
        let one = run(Some(3), 1, |_| {}).unwrap();
        let two = run(Some(3), 2, |_| {}).unwrap();
        for (a, b) in one.iter().zip(&two) {
            assert_eq!(a.nodes, b.nodes, "{}", a.position.name);
            let parallel = b.parallel.expect("a second search");
            assert_eq!(parallel.threads, 2);
            assert!(parallel.nodes > 0);
        }
    }
}
