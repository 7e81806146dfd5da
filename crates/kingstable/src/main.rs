//! `kingstable`: Fetlar and Copenhagen Hnefatafl and Camelot from the command line.

mod commands;
mod duration;
mod matches;
mod play;
mod setup;
mod threads;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand, ValueEnum};
use game::{GameKind, Player};

use crate::setup::Setup;

/// Kingstable: exact rules, AI and records for Fetlar and Copenhagen Hnefatafl and
/// Camelot.
#[derive(Parser, Debug)]
#[command(name = "kingstable", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Count the move sequences of a given length (a move that ends the game is a leaf).
    /// The last line printed is the count alone.
    Perft {
        #[command(flatten)]
        position: PositionArgs,
        /// How many plies deep.
        #[arg(long)]
        depth: u32,
        /// Print each legal move with its own count first.
        #[arg(long)]
        divide: bool,
    },
    /// List the legal moves of a position, one per line with captures (`g3-e3xe2`).
    Moves {
        #[command(flatten)]
        position: PositionArgs,
        /// Print a JSON array of {"move", "captures"} objects instead.
        #[arg(long)]
        json: bool,
    },
    /// Check game records move by move: OpenTafl `.otg` records, scores with tags, or
    /// move lists with one game per line (optionally ending with `timeout` or `---`).
    /// Exit status 1 if any game has an error, 2 if input cannot be read.
    Replay {
        /// The game's rules.
        #[arg(long, value_parser = parse_kind)]
        game: GameKind,
        /// Whether a third repetition ends the game (switch off for historical records).
        #[arg(long, value_enum, default_value_t = Switch::On)]
        repetition: Switch,
        /// Print one JSON object per game (JSON Lines) instead of a summary.
        #[arg(long)]
        json: bool,
        /// Record files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Convert game records from one form to another (any readable form in; an OpenTafl
    /// record, a WCF score or a move list out), checking every move. Nothing is written
    /// if any game does not replay.
    Convert {
        /// The game's rules.
        #[arg(long, value_parser = parse_kind)]
        game: GameKind,
        /// The form to write.
        #[arg(long, value_enum)]
        to: commands::convert::Form,
        /// Whether a third repetition ends the game (switch off for historical records).
        #[arg(long, value_enum, default_value_t = Switch::On)]
        repetition: Switch,
        /// Write here instead of to standard output.
        #[arg(long, short)]
        output: Option<PathBuf>,
        /// Record files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Play engines against each other (cutechess-style): N games, each opening from
    /// both sides, our rules as referee, live progress, the final score with the Elo
    /// difference and its 95% interval, every game saved as a record.
    Match {
        /// The game.
        #[arg(long, value_parser = parse_kind)]
        game: GameKind,
        /// The first engine: `level:N` (1-6 or a level name), `greedy` (one ply),
        /// `ugi:COMMAND` (a program speaking UGI, e.g. another Kingstable build's
        /// `kingstable engine`), `otep:COMMAND` (a tafl engine speaking the OpenTafl Engine
        /// Protocol), `htp:COMMAND` (the hnefatafl.org text protocol on stdin) or
        /// `htp-host:COMMAND` (the same program in its TCP `--host` mode, which takes
        /// `--depth`: `htp-host:hnefatafl-text-protocol --depth 3`).
        #[arg(long)]
        engine1: String,
        /// The second engine, in the same form.
        #[arg(long)]
        engine2: String,
        /// Games to play (each opening twice, sides swapped).
        #[arg(long, default_value_t = 2)]
        games: usize,
        /// Openings file (one move sequence per line); default: the built-in set.
        #[arg(long)]
        openings: Option<PathBuf>,
        /// Fixed time per move (1s, 500ms).
        #[arg(long, value_parser = duration::parse_duration, conflicts_with_all = ["tc", "depth"])]
        movetime: Option<std::time::Duration>,
        /// Clocks: base+increment in seconds (60+1).
        #[arg(long, conflicts_with = "depth")]
        tc: Option<String>,
        /// Fixed search depth per move for our engines (deterministic, fast).
        #[arg(long)]
        depth: Option<u32>,
        /// Adjudicate a draw after this many plies (0: never).
        #[arg(long, default_value_t = 400)]
        draw_after: usize,
        /// Save every game's record in this directory.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Search threads per engine.
        #[arg(long, default_value_t = 1, value_parser = threads::parse_threads)]
        threads: usize,
        /// Games played at once.
        #[arg(long, default_value_t = 1)]
        concurrency: usize,
        /// Print every move to stderr as it is played.
        #[arg(long)]
        verbose: bool,
        /// Keep the games an earlier run of the same match saved in --out (checked:
        /// same rounds, openings and engines) and play only the missing ones; a match
        /// cut short goes on where it stopped.
        #[arg(long, requires = "out")]
        resume: bool,
    },
    /// Search a position with the AI: the board, then per completed depth the score
    /// (for the side to move; `win in N` counts plies), nodes, speed and best line, then
    /// the best move. Searches 5 seconds unless --time, --depth or --nodes is given.
    Analyze {
        #[command(flatten)]
        position: PositionArgs,
        /// Time to search: 5s, 500ms, 1m.
        #[arg(long, value_parser = duration::parse_duration)]
        time: Option<std::time::Duration>,
        /// Plies to search.
        #[arg(long)]
        depth: Option<u32>,
        /// Nodes to search.
        #[arg(long)]
        nodes: Option<u64>,
        /// Search threads.
        #[arg(long, default_value_t = 1, value_parser = threads::parse_threads)]
        threads: usize,
        /// Transposition table size in MB.
        #[arg(long, default_value_t = engine::DEFAULT_HASH_MB)]
        hash: usize,
        /// Level: 1-6 or beginner, casual, club, expert, master, maximum.
        #[arg(long, default_value = "maximum")]
        level: engine::Level,
    },
    /// The AI's benchmark: fixed positions of every game searched to a fixed depth on one
    /// thread (and, with --threads, again on more to measure the speedup). The last line
    /// is the total one-thread node count, a signature that changes only when search
    /// behaviour changes.
    Bench {
        /// Plies to search each position (default: 8 for tafl, 6 for Camelot).
        #[arg(long)]
        depth: Option<u32>,
        /// Also search each position on this many threads and print the time to the
        /// same depth and the speedup (the signature stays the one-thread count).
        #[arg(long, default_value_t = 1, value_parser = threads::parse_threads)]
        threads: usize,
    },
    /// Run as an engine for other programs on standard input and output: UGI for all three
    /// games (match runners, GUIs), or with --otep the OpenTafl Engine Protocol for Fetlar
    /// and Copenhagen (OpenTafl). docs/PROTOCOL.md describes both.
    Engine(commands::engine::EngineArgs),
    /// Play in the terminal against the AI or another person: a full-screen board, or
    /// plain lines (moves in, moves out) when stdout is not a terminal.
    Play(play::PlayArgs),
    /// Run the game server: the web client, the JSON API and the database (a SQLite file
    /// by default, or PostgreSQL). Prints the URL to open; Ctrl-C or SIGTERM stops it
    /// gracefully.
    Serve(commands::serve::ServeArgs),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Switch {
    On,
    Off,
}

/// Options that choose a game and a position.
#[derive(Args, Debug)]
pub struct PositionArgs {
    /// fetlar, copenhagen or camelot.
    #[arg(long, value_parser = parse_kind)]
    game: GameKind,
    /// A position string (OpenTafl position for tafl; Camelot FEN) instead of the start.
    #[arg(long)]
    position: Option<String>,
    /// The side to move in --position (attackers/defenders, white/black).
    #[arg(long)]
    side: Option<String>,
    /// Moves to play first, space-separated, in the game's notation.
    #[arg(long)]
    moves: Option<String>,
}

impl PositionArgs {
    fn build<G: Setup>(&self) -> Result<G> {
        let side: Option<Player> = self
            .side
            .as_deref()
            .map(|s| self.game.parse_side(s))
            .transpose()?;
        let mut game = G::setup(self.game, self.position.as_deref(), side, true)?;
        if let Some(moves) = &self.moves {
            setup::play_moves(&mut game, moves)?;
        }
        Ok(game)
    }
}

/// `60+1`: 60 seconds and one second added per move (decimals allowed).
fn parse_tc(text: &str) -> Result<matches::player::TimeControl> {
    let (base, increment) = text.split_once('+').unwrap_or((text, "0"));
    let seconds = |s: &str| -> Result<std::time::Duration> {
        let value: f64 = s
            .trim()
            .parse()
            .with_context(|| format!("--tc {text:?}: expected seconds+increment, like 60+1"))?;
        if !value.is_finite() || value < 0.0 {
            anyhow::bail!("--tc {text:?}: times must be positive");
        }
        Ok(std::time::Duration::from_secs_f64(value))
    };
    Ok(matches::player::TimeControl::Clock {
        base: seconds(base)?,
        increment: seconds(increment)?,
    })
}

fn parse_kind(text: &str) -> Result<GameKind, String> {
    text.parse()
        .map_err(|e: game::ParseGameKindError| e.to_string())
}

/// Runs `$run::<G>(args…)` with `G` the game type of `$kind`.
macro_rules! for_game {
    ($kind:expr, $($run:ident)::+, $($arg:expr),*) => {
        match $kind {
            GameKind::Fetlar | GameKind::Copenhagen => $($run)::+::<tafl::Tafl>($($arg),*),
            GameKind::Camelot => $($run)::+::<camelot::Camelot>($($arg),*),
        }
    };
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Perft {
            position,
            depth,
            divide,
        } => for_game!(
            position.game,
            commands::perft::run,
            &position,
            depth,
            divide
        )?,
        Command::Moves { position, json } => {
            for_game!(position.game, commands::moves::run, &position, json)?;
        }
        Command::Replay {
            game,
            repetition,
            json,
            files,
        } => {
            let had_errors = for_game!(
                game,
                commands::replay::run,
                game,
                &files,
                repetition == Switch::On,
                json
            )?;
            if had_errors {
                return Ok(ExitCode::from(1));
            }
        }
        Command::Convert {
            game,
            to,
            repetition,
            output,
            files,
        } => for_game!(
            game,
            commands::convert::run,
            game,
            &files,
            to,
            repetition == Switch::On,
            output.as_deref()
        )?,
        Command::Match {
            game,
            engine1,
            engine2,
            games,
            openings,
            movetime,
            tc,
            depth,
            draw_after,
            out,
            threads,
            concurrency,
            verbose,
            resume,
        } => {
            let control = match (movetime, tc, depth) {
                (Some(time), _, _) => matches::player::TimeControl::MoveTime(time),
                (None, Some(tc), _) => parse_tc(&tc)?,
                (None, None, Some(depth)) => matches::player::TimeControl::Depth(depth),
                (None, None, None) => {
                    matches::player::TimeControl::MoveTime(std::time::Duration::from_secs(1))
                }
            };
            let openings_text = match &openings {
                Some(path) => std::fs::read_to_string(path)
                    .with_context(|| format!("cannot read {}", path.display()))?,
                None => matches::builtin_openings(game).to_owned(),
            };
            let openings = for_game!(game, matches::parse_openings, game, &openings_text)?;
            let config = matches::MatchConfig {
                kind: game,
                players: [engine1, engine2],
                games,
                openings,
                control,
                draw_after: (draw_after > 0).then_some(draw_after),
                out,
                threads,
                concurrency,
                verbose,
                resume,
            };
            for_game!(game, matches::run, &config)?;
        }
        Command::Analyze {
            position,
            time,
            depth,
            nodes,
            threads,
            hash,
            level,
        } => {
            let options = commands::analyze::AnalyzeOptions {
                time,
                depth,
                nodes,
                threads,
                hash_mb: hash,
                level,
            };
            for_game!(position.game, commands::analyze::run, &position, &options)?;
        }
        Command::Bench { depth, threads } => commands::bench::run(depth, threads)?,
        Command::Engine(args) => commands::engine::run(&args)?,
        Command::Play(args) => play::run(&args)?,
        Command::Serve(args) => commands::serve::run(args)?,
    }
    Ok(ExitCode::SUCCESS)
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("kingstable: {err:#}");
            ExitCode::from(2)
        }
    }
}
