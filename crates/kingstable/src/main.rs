//! `kingstable`: Fetlar and Copenhagen Hnefatafl and Camelot from the command line.

mod clock;
mod commands;
mod duration;
mod play;
mod threads;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand, ValueEnum};
use game::{GameKind, Player};
use games::{AnyGame, PositionError, Variations, with_game};

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
    /// The last line printed is the count alone. A count that takes more than a second
    /// shows its progress on stderr (on a terminal; in a log, every 30 seconds).
    Perft {
        #[command(flatten)]
        position: PositionArgs,
        /// How many plies deep. Counts are exact 64-bit numbers (at most 2^64 - 1). Tafl:
        /// a piece has at most 20 moves (10 along its rank, 10 along its file) and pieces
        /// are never gained, so a depth is refused when 20 moves per piece, ply after ply,
        /// could pass 2^64 - 1; from the start that allows 7 plies. Camelot has no such
        /// small bound (a jump sequence can branch), so its count is checked as it grows
        /// and stopped with an error rather than wrapped.
        #[arg(long)]
        depth: u32,
        /// Print each legal move with its own count first.
        #[arg(long)]
        divide: bool,
        /// Report progress on stderr after every first move and every second, whether
        /// or not stderr is a terminal.
        #[arg(long)]
        progress: bool,
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
        /// Record files (`-` for standard input).
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
        /// Record files (`-` for standard input).
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
        /// Engine 2's time per move where it differs from engine 1's (time odds: with
        /// --movetime 40ms, --movetime2 4s gives engine 2 a hundred times the time).
        #[arg(long, value_parser = duration::parse_duration, requires = "movetime")]
        movetime2: Option<std::time::Duration>,
        /// Clocks: MINUTES+SECONDS, as `play --clock` reads them (5+3: five minutes each,
        /// three seconds added per move; 0.5+0.1 for fast games).
        #[arg(long, conflicts_with = "depth", value_parser = clock::parse_fischer)]
        tc: Option<session::TimeControl>,
        /// Fixed search depth per move for our engines (deterministic, fast).
        #[arg(long)]
        depth: Option<u32>,
        /// Adjudicate a draw after this many plies (0: never).
        #[arg(long, default_value_t = 400)]
        draw_after: usize,
        /// What a third repetition does (tafl): the variant's own rule (TAFL.md 10: the
        /// attackers win in Copenhagen, a draw in Fetlar), a draw, the side that makes it
        /// loses (OpenTafl's Copenhagen, `tfr:w`) or wins (`tfr:l`), or nothing.
        #[arg(long, value_enum, default_value_t = RepetitionRule::Rules)]
        repetition: RepetitionRule,
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
        /// Stop when a sequential probability ratio test decides, as fishtest and
        /// cutechess-cli do: `elo0=0,elo1=10,alpha=0.05,beta=0.05` (optionally
        /// `,model=trinomial`; pentanomial by default: pairs of games with one opening).
        /// --games is then the most games played. Prints the LLR and its bounds after
        /// each game.
        #[arg(long)]
        sprt: Option<arena::Sprt>,
    },
    /// Rate the AI's levels on one scale: level 1 against the one-ply greedy player (the
    /// anchor, 1000), then each level against the one below (each opening from both
    /// sides), fitted together; prints every level's rating with its 95% interval and
    /// its score by side. The ratings the site shows come from such runs.
    Levels {
        /// The game.
        #[arg(long, value_parser = parse_kind)]
        game: GameKind,
        /// Games in each match.
        #[arg(long, default_value_t = 20)]
        games: usize,
        /// Games in the matches of levels 5 and 6, which take most of the time
        /// (default: --games).
        #[arg(long)]
        strong_games: Option<usize>,
        /// Games in the match of level 6 alone (default: --strong-games).
        #[arg(long)]
        level6_games: Option<usize>,
        /// The strongest level rated (level 6 plays with --level6-time a move).
        #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u8).range(1..=6))]
        top: u8,
        /// Level 6's time a move (the site gives it 3 s in untimed games).
        #[arg(long, value_parser = duration::parse_duration, default_value = "3s")]
        level6_time: std::time::Duration,
        /// Adjudicate a draw after this many plies (0: never).
        #[arg(long, default_value_t = 300)]
        draw_after: usize,
        /// Save each match's records in DIR/levelN.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Keep the games an earlier run saved in --out and play only the missing ones.
        #[arg(long, requires = "out")]
        resume: bool,
        /// Games played at once.
        #[arg(long, default_value_t = 1)]
        concurrency: usize,
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
        /// Transposition table size in MB (1-65536).
        #[arg(long, default_value_t = engine::DEFAULT_HASH_MB, value_parser = threads::parse_hash)]
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
    /// Look after accounts on the server's database (the same --database as serve):
    /// `reset-password USER` (for sites without e-mail), `grant moderator USER`,
    /// `revoke moderator USER`; chat moderation: `ban USER`, `unban USER`, `mute USER
    /// [--minutes N]`, `reports`. docs/OPERATIONS.md describes them.
    Admin(commands::admin::AdminArgs),
    /// Copy the server's SQLite database to a new file while the server runs (a
    /// consistent copy, checked and counted). PostgreSQL: pg_dump (docs/OPERATIONS.md).
    Backup(commands::backup::BackupArgs),
    /// Put a backup in place of the server's SQLite database, with the server stopped:
    /// the backup is checked first, and the old file is kept beside it.
    Restore(commands::backup::RestoreArgs),
    /// Copy a SQLite database into an empty PostgreSQL one, with the server stopped:
    /// every table, ids kept, counted table by table (docs/OPERATIONS.md).
    MigrateDb(commands::migrate::MigrateArgs),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Switch {
    On,
    Off,
}

/// `match --repetition`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum RepetitionRule {
    /// The variant's own rule (TAFL.md 10).
    Rules,
    /// A draw (OpenTafl `tfr:d`).
    Draw,
    /// The side that makes the third occurrence loses (OpenTafl `tfr:w`).
    MoverLoses,
    /// The side that makes the third occurrence wins (OpenTafl `tfr:l`).
    MoverWins,
    /// Repetition does not end the game (OpenTafl `tfr:i`).
    Off,
}

impl RepetitionRule {
    fn rule(self) -> Option<tafl::Repetition> {
        match self {
            RepetitionRule::Rules => None,
            RepetitionRule::Draw => Some(tafl::Repetition::Draw),
            RepetitionRule::MoverLoses => Some(tafl::Repetition::MoverLoses),
            RepetitionRule::MoverWins => Some(tafl::Repetition::MoverWins),
            RepetitionRule::Off => Some(tafl::Repetition::Ignored),
        }
    }
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
    /// The game these options describe: the start position, or `--position` (its side
    /// to move given in the string or by `--side`, not both differently), then `--moves`.
    fn build(&self) -> Result<AnyGame> {
        let side: Option<Player> = self
            .side
            .as_deref()
            .map(|s| self.game.parse_side(s))
            .transpose()?;
        let mut game = match &self.position {
            None if side.is_some() => bail!("--side needs --position"),
            None => AnyGame::start(self.game),
            Some(text) => {
                AnyGame::from_position_and_side(self.game, text, side, Variations::default())
                    .map_err(|err| self.position_error(text, err))?
            }
        };
        if let Some(moves) = &self.moves {
            let texts: Vec<&str> = moves.split_whitespace().collect();
            game.play_texts(&texts).context("--moves")?;
        }
        Ok(game)
    }

    /// What is wrong with `--position` (and `--side`), in the command line's words.
    fn position_error(&self, text: &str, err: PositionError) -> anyhow::Error {
        let sides = || {
            let [first, second] = Player::BOTH.map(|p| self.game.side_name(p));
            format!("{first}|{second}")
        };
        match err {
            PositionError::MissingSide { .. } => {
                anyhow::anyhow!("--position {text:?}: {err} (or give --side {})", sides())
            }
            PositionError::SideConflict { .. } => {
                anyhow::anyhow!("--position and --side disagree: {err}")
            }
            _ => anyhow::anyhow!("bad --position {text:?}: {err}"),
        }
    }
}

fn parse_kind(text: &str) -> Result<GameKind, String> {
    text.parse()
        .map_err(|e: game::ParseGameKindError| e.to_string())
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Perft {
            position,
            depth,
            divide,
            progress,
        } => {
            let game = position.build()?;
            with_game!(game, g => commands::perft::run(g, depth, divide, progress))?;
        }
        Command::Moves { position, json } => commands::moves::run(&position.build()?, json)?,
        Command::Replay {
            game,
            repetition,
            json,
            files,
        } => {
            let had_errors = commands::replay::run(game, &files, repetition == Switch::On, json)?;
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
        } => commands::convert::run(
            game,
            &files,
            to,
            repetition == Switch::On,
            output.as_deref(),
        )?,
        Command::Match {
            game,
            engine1,
            engine2,
            games,
            openings,
            movetime,
            movetime2,
            tc,
            depth,
            draw_after,
            repetition,
            out,
            threads,
            concurrency,
            verbose,
            resume,
            sprt,
        } => {
            let control = match (movetime, tc, depth) {
                (Some(time), _, _) => arena::Limit::MoveTime(time),
                (None, Some(tc), _) => arena::Limit::Clock(tc),
                (None, None, Some(depth)) => arena::Limit::Depth(depth),
                (None, None, None) => arena::Limit::MoveTime(std::time::Duration::from_secs(1)),
            };
            let openings_text = match &openings {
                Some(path) => std::fs::read_to_string(path)
                    .with_context(|| format!("cannot read {}", path.display()))?,
                None => arena::builtin_openings(game).to_owned(),
            };
            let openings = arena::parse_openings(game, &openings_text)?;
            let config = arena::MatchConfig {
                kind: game,
                players: [engine1, engine2],
                games,
                openings,
                control,
                movetime_b: movetime2,
                draw_after: (draw_after > 0).then_some(draw_after),
                repetition: repetition.rule(),
                out,
                threads,
                concurrency,
                resume,
                sprt,
            };
            let summary = commands::matches::run(&config, verbose)?;
            if !summary.failures.is_empty() {
                // Listed apart in the summary; the match did not go as it should.
                return Ok(ExitCode::from(1));
            }
        }
        Command::Levels {
            game,
            games,
            strong_games,
            level6_games,
            top,
            level6_time,
            draw_after,
            out,
            resume,
            concurrency,
        } => {
            commands::levels::run(&commands::levels::LevelsConfig {
                kind: game,
                games,
                strong_games: strong_games.unwrap_or(games),
                level6_games: level6_games.or(strong_games).unwrap_or(games),
                top,
                level6_time,
                draw_after: (draw_after > 0).then_some(draw_after),
                out,
                resume,
                concurrency,
            })?;
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
            let game = position.build()?;
            with_game!(game, g => commands::analyze::run(g, &options))?;
        }
        Command::Bench { depth, threads } => commands::bench::run(depth, threads)?,
        Command::Engine(args) => commands::engine::run(&args)?,
        Command::Play(args) => play::run(&args)?,
        Command::Serve(args) => commands::serve::run(args)?,
        Command::Admin(args) => commands::admin::run(args)?,
        Command::Backup(args) => commands::backup::backup(&args)?,
        Command::Restore(args) => commands::backup::restore(&args)?,
        Command::MigrateDb(args) => commands::migrate::run(&args)?,
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
