//! `kingstable play`: a game against the AI or another person, full-screen in a terminal,
//! or as plain lines when stdout is not a terminal.
//!
//! The game itself ([`session::TerminalGame`]: a table of the `session` crate with the AI
//! requests, hints and choices around it) knows nothing of the screen; [`tui`] draws it
//! with ratatui and [`line`](mod@line) prints it as text. The AI searches on a worker thread
//! ([`ai`]).

pub mod ai;
pub mod board;
pub mod input;
pub mod line;
pub mod session;
pub mod text;
pub mod tui;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ::session::{TimeControl, Timestamp};
use anyhow::{Result, bail};
use clap::{Args, ValueEnum};
use engine::Level;
use game::{Game, GameKind, Player};
use games::{AnyGame, with_game};

use self::board::PlayGame;
use self::session::{Controller, SessionOptions, TerminalGame};

/// Who the opponent is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Opponent {
    /// The AI.
    Ai,
    /// Another person at the same keyboard.
    Human,
}

/// The options of `kingstable play`.
#[derive(Args, Debug)]
pub struct PlayArgs {
    /// fetlar, copenhagen or camelot.
    #[arg(long, value_parser = parse_kind)]
    game: GameKind,
    /// Your side: attackers or defenders (tafl), white or black (Camelot). Default: the
    /// side that moves first.
    #[arg(long)]
    side: Option<String>,
    /// The AI's level: 1-6 or beginner, casual, club, expert, master, maximum.
    #[arg(long)]
    level: Option<Level>,
    /// Play against the AI or another person.
    #[arg(long, value_enum, default_value_t = Opponent::Ai)]
    vs: Opponent,
    /// Clocks: MINUTES+SECONDS, e.g. 5+3 (five minutes each, three seconds added per
    /// move), DAYSd for days per move (3d), or untimed. A player whose time runs out
    /// loses.
    #[arg(long, value_parser = crate::clock::parse_clock)]
    clock: Option<TimeControl>,
    /// Longest the AI thinks per move (and per hint): 500ms, 2s, 1m. Default: 3s, or
    /// what the clock allows.
    #[arg(long, value_parser = crate::duration::parse_duration)]
    think: Option<Duration>,
    /// Continue a game from a record (.otg for tafl, a WCF score for Camelot, or a move
    /// list).
    #[arg(long)]
    load: Option<PathBuf>,
    /// Use the line mode even in a terminal.
    #[arg(long)]
    plain: bool,
    /// The AI's search threads (two help on two cores: see bench/RESULTS.md).
    #[arg(long, default_value_t = 1, value_parser = crate::threads::parse_threads)]
    threads: usize,
}

/// The level the AI plays at unless told.
pub const DEFAULT_LEVEL: Level = Level::Club;

fn parse_kind(text: &str) -> Result<GameKind, String> {
    text.parse()
        .map_err(|e: game::ParseGameKindError| e.to_string())
}

/// Runs `kingstable play`.
pub fn run(args: &PlayArgs) -> Result<()> {
    let human: Player = match &args.side {
        Some(side) => args.game.parse_side(side)?,
        None => Player::First,
    };
    if args.vs == Opponent::Human && args.level.is_some() {
        bail!("--level is for games against the AI, not --vs human");
    }
    let level = args.level.unwrap_or(DEFAULT_LEVEL);
    let mut players = [Controller::Human; 2];
    if args.vs == Opponent::Ai {
        players[human.other().index()] = Controller::Ai;
    }
    let options = SessionOptions {
        players,
        level,
        think: args.think,
        clock: args.clock.unwrap_or_default(),
    };
    let mut session = TerminalGame::new(AnyGame::start(args.game), options, Timestamp::now());
    if let Some(path) = &args.load {
        session.load(path, Timestamp::now())?;
    }
    let ai = ai::AiSetup {
        seed: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64),
        threads: args.threads,
    };
    let intro = intro(&session, human, args.vs);
    let plain = args.plain || !std::io::stdout().is_terminal();
    // The AI searches the game inside (a `Tafl` or a `Camelot`) at full speed.
    with_game!(AnyGame::start(args.game), game => front_end(&game, plain, session, ai, &intro, human))
}

/// Runs the line mode or the full-screen game, with the AI searching games like `_game`.
fn front_end<G: PlayGame>(
    _game: &G,
    plain: bool,
    session: TerminalGame,
    ai: ai::AiSetup,
    intro: &str,
    human: Player,
) -> Result<()> {
    if plain {
        line::run::<G>(session, ai, intro)
    } else {
        tui::run::<G>(session, ai, human)
    }
}

fn intro(session: &TerminalGame, human: Player, vs: Opponent) -> String {
    let kind = session.kind();
    let who = match vs {
        Opponent::Ai => format!(
            "you play the {} against the AI (level {}, {})",
            kind.side_name(human),
            session.options().level.number(),
            session.options().level
        ),
        Opponent::Human => "two players at one keyboard".to_owned(),
    };
    let clock = match session.options().clock {
        TimeControl::Untimed => String::new(),
        control => format!(", clock {control}"),
    };
    let example = if kind.is_tafl() { "d1-d3" } else { "D6-F8" };
    let moves = match (kind.is_tafl(), session.to_move()) {
        (true, Player::First) => "The attackers move",
        (true, Player::Second) => "The defenders move",
        (false, Player::First) => "White moves",
        (false, Player::Second) => "Black moves",
    };
    let when = if session.game().ply() == 0 {
        "first"
    } else {
        "next"
    };
    format!(
        "kingstable play: {kind}, {who}{clock}. Type a move like {example}, or help. {moves} {when}."
    )
}
