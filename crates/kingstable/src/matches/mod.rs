//! `kingstable match`: engine against engine, in the spirit of cutechess-cli. Each
//! opening is played twice with the sides swapped; the referee is our rules; every game is
//! saved as a record; the score comes with the Elo difference and its 95% interval.

pub mod htp;
pub mod otep;
pub mod player;
pub mod stats;
pub mod ugi;

use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::channel;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use engine::{Clock, EngineGame};
use game::{EndReason, Game, GameKind, Outcome, Player as Side};
use games::record::ReplayOptions;
use games::{AnyGame, Board};

use player::{Choice, Limit, Player, PlayerError, player_from_spec};
use session::{Clocks, Timestamp};
use stats::Tally;

/// Openings shipped with Kingstable (see `bench/openings/README.md`).
pub fn builtin_openings(kind: GameKind) -> &'static str {
    match kind {
        GameKind::Fetlar | GameKind::Copenhagen => {
            include_str!("../../../../bench/openings/tafl.txt")
        }
        GameKind::Camelot => include_str!("../../../../bench/openings/camelot.txt"),
    }
}

/// Reads an openings file: one opening per line, moves separated by spaces; `#` starts a
/// comment; blank lines are skipped. Every opening must be legal and leave the game
/// going.
pub fn parse_openings(kind: GameKind, text: &str) -> Result<Vec<Vec<String>>> {
    let mut openings = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let mut game = AnyGame::start(kind);
        let texts: Vec<&str> = line.split_whitespace().collect();
        let played = game
            .play_texts(&texts)
            .with_context(|| format!("openings line {}", i + 1))?;
        if game.outcome().is_some() {
            bail!("openings line {}: the game is already over", i + 1);
        }
        openings.push(played.into_iter().map(|info| info.text).collect());
    }
    if openings.is_empty() {
        bail!("no openings");
    }
    Ok(openings)
}

/// How a match is run.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// The game.
    pub kind: GameKind,
    /// The two players' descriptions (`level:6`, `greedy`, `ugi:COMMAND`, `htp:COMMAND`).
    pub players: [String; 2],
    /// Games to play (each opening twice, sides swapped).
    pub games: usize,
    /// Opening move sequences, each played from both sides.
    pub openings: Vec<Vec<String>>,
    /// Time per move or clocks.
    pub control: Limit,
    /// Adjudicate a draw after this many plies (`None`: never).
    pub draw_after: Option<usize>,
    /// What a third repetition does (tafl; `None`: the variant's rule, TAFL.md 10).
    pub repetition: Option<tafl::Repetition>,
    /// Where to save the records.
    pub out: Option<PathBuf>,
    /// Search threads per engine.
    pub threads: usize,
    /// Games played at once.
    pub concurrency: usize,
    /// Print every move (with the time it took) to stderr.
    pub verbose: bool,
    /// Keep the games already saved in `out` by an earlier run of the same match and play
    /// only the rest.
    pub resume: bool,
}

/// How one game went.
#[derive(Clone, Debug)]
pub struct GameReport {
    /// 0-based game number.
    pub index: usize,
    /// Whether the first player (config.players[0]) had the first side.
    pub a_first: bool,
    /// The outcome (`None`: aborted, not scored).
    pub outcome: Option<Outcome>,
    /// Why the game ended, in words.
    pub note: String,
    /// Plies played.
    pub plies: usize,
    /// The peer refused a move our rules allow (the game is not scored).
    pub refusal: Option<String>,
    /// A player failed (crashed, hung, broke the protocol) and lost the game for it.
    pub failure: Option<String>,
    /// The record, as written.
    pub record: String,
}

impl GameReport {
    /// Points for player A: 1, ½ or 0; `None` if not scored.
    #[must_use]
    pub fn points_for_a(&self) -> Option<f64> {
        let outcome = self.outcome?;
        let a_side = if self.a_first {
            Side::First
        } else {
            Side::Second
        };
        Some(match outcome.winner {
            None => 0.5,
            Some(winner) if winner == a_side => 1.0,
            Some(_) => 0.0,
        })
    }
}

/// The result of a whole match.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Scored games from A's point of view.
    pub tally: Tally,
    /// Games the peer refused a legal move in, or held over by its own rules (not scored).
    pub refusals: Vec<(usize, String)>,
    /// Games lost by a player's failure (scored as losses, listed apart).
    pub failures: Vec<(usize, String)>,
    /// Every game, in order.
    pub games: Vec<GameReport>,
}

fn side_name(kind: GameKind, side: Side) -> String {
    let name = kind.side_name(side);
    let mut chars = name.chars();
    chars
        .next()
        .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
        .unwrap_or_default()
}

/// Plays one game between `first` (moves first) and `second`.
pub fn play_game<G: Board>(
    config: &MatchConfig,
    start: &G,
    index: usize,
    opening: &[String],
    first: &mut dyn Player<G>,
    second: &mut dyn Player<G>,
) -> Result<GameReport> {
    let kind = config.kind;
    let start = match config.repetition {
        Some(rule) => G::from_any(start.to_any().with_repetition_rule(rule)?)
            .context("the game changed kind")?,
        None => start.clone(),
    };
    let mut game = start.clone();
    let mut opening_moves = Vec::new();
    for text in opening {
        let mv = game.parse_move(text)?;
        opening_moves.push(mv);
        game.play(mv);
    }
    let names = [first.name(), second.name()];
    let mut report = GameReport {
        index,
        a_first: index.is_multiple_of(2),
        outcome: None,
        note: String::new(),
        plies: 0,
        refusal: None,
        failure: None,
        record: String::new(),
    };
    let mut players: [&mut dyn Player<G>; 2] = [first, second];
    let mut outcome: Option<Outcome> = None;
    for (i, player) in players.iter_mut().enumerate() {
        match player.new_game(&start, &opening_moves) {
            Ok(()) => {}
            Err(PlayerError::Refused(reason)) => report.refusal = Some(reason),
            // An engine that cannot start (or has died since the last game) ends the
            // match: no game it would lose by default is worth scoring.
            Err(PlayerError::Failed(err)) => {
                bail!("game {}: {} failed to start: {err:#}", index + 1, names[i]);
            }
        }
    }
    // The clocks, when the match is played on them: the first side's starts now.
    let mut clocks = match config.control {
        Limit::Clock(control) => Some(Clocks::new(control)),
        _ => None,
    };
    if let Some(clocks) = clocks.as_mut() {
        clocks.start(game.to_move(), Timestamp::now());
    }
    while outcome.is_none() && report.refusal.is_none() {
        if let Some(o) = game.outcome() {
            outcome = Some(o);
            report.note = o.reason.to_string();
            break;
        }
        if config.draw_after.is_some_and(|limit| game.ply() >= limit) {
            outcome = Some(Outcome::draw(EndReason::Adjudication));
            report.note = format!("draw adjudicated after {} plies", game.ply());
            break;
        }
        let side = game.to_move();
        let me = side.index();
        let started = Timestamp::now();
        let clock = clocks
            .as_ref()
            .and_then(|c| crate::clock::engine_clock(c, started))
            .unwrap_or(Clock {
                remaining: [Duration::ZERO; 2],
                increment: [Duration::ZERO; 2],
                moves_to_go: None,
            });
        let choice = players[me].choose(&game, &clock, config.control);
        let now = Timestamp::now();
        let spent = now.saturating_duration_since(started);
        if let Some(clocks) = clocks.as_mut() {
            if clocks.flagged(now) == Some(side) {
                let lost = timeout_outcome::<G>(kind, &game, side)?;
                outcome = Some(lost);
                report.note = match lost.winner {
                    Some(_) => format!("{} lost on time", names[me]),
                    None => format!(
                        "{} ran out of time; the opponent cannot win: draw",
                        names[me]
                    ),
                };
                break;
            }
            clocks.press(side, now);
        }
        let text = match choice {
            Ok(Choice::Move(text)) => text,
            Ok(Choice::Resign) => {
                outcome = Some(Outcome::loss(side, EndReason::Resignation));
                report.note = format!("{} resigned", names[me]);
                break;
            }
            Ok(Choice::GameOver(reason)) => {
                report.refusal = Some(reason);
                break;
            }
            Err(err) => {
                outcome = Some(Outcome::loss(side, EndReason::Resignation));
                report.note = format!("{} failed: {err:#}", names[me]);
                report.failure = Some(report.note.clone());
                break;
            }
        };
        let mv = match game.parse_move(&text) {
            Ok(mv) => mv,
            Err(err) => {
                outcome = Some(Outcome::loss(side, EndReason::Resignation));
                report.note = format!("{} played an illegal move: {err}", names[me]);
                break;
            }
        };
        if config.verbose {
            eprintln!(
                "game {} ply {}: {} {} ({:.1} s)",
                index + 1,
                game.ply() + 1,
                names[me],
                game.format_move(mv),
                spent.as_secs_f64()
            );
        }
        match players[1 - me].observe(&game, mv) {
            Ok(()) => {}
            Err(PlayerError::Refused(reason)) => {
                report.refusal = Some(reason);
                game.play(mv);
                break;
            }
            Err(PlayerError::Failed(err)) => {
                outcome = Some(Outcome::loss(side.other(), EndReason::Resignation));
                report.note = format!("{} failed: {err:#}", names[1 - me]);
                report.failure = Some(report.note.clone());
                game.play(mv);
                break;
            }
        }
        game.play(mv);
    }
    if let Some(reason) = &report.refusal {
        report.note = format!("aborted: the peer's house rules differ from ours ({reason})");
        outcome = None;
    }
    for player in players.iter_mut() {
        player.finish(outcome);
    }
    report.outcome = outcome;
    report.plies = game.ply();
    let mut tags = vec![
        ("Event".to_owned(), "Kingstable match".to_owned()),
        ("Round".to_owned(), (index + 1).to_string()),
        (side_name(kind, Side::First), names[0].clone()),
        (side_name(kind, Side::Second), names[1].clone()),
        ("Engine1".to_owned(), config.players[0].clone()),
        ("Engine2".to_owned(), config.players[1].clone()),
        ("Opening".to_owned(), opening.join(" ")),
        ("Termination".to_owned(), report.note.clone()),
    ];
    if let Some(o) = outcome {
        tags.push(("Reason".to_owned(), o.reason.as_str().to_owned()));
    }
    if let Some(failure) = &report.failure {
        tags.push(("Failure".to_owned(), failure.clone()));
    }
    if let Some(refusal) = &report.refusal {
        tags.push(("Refusal".to_owned(), refusal.clone()));
    }
    report.record = games::record::write(&game.to_any(), &tags, outcome);
    Ok(report)
}

/// The result of `loser`'s flag falling in `game`, by the session's rule (in Camelot a
/// draw when the opponent has too little material to win).
fn timeout_outcome<G: Board>(kind: GameKind, game: &G, loser: Side) -> Result<Outcome> {
    let any = games::AnyGame::from_position(kind, &game.position_string())?;
    Ok(session::timeout_outcome(&any, loser))
}

/// Reads back game `index` as an earlier run of this match saved it (`--resume`), after
/// checking that it is the game this match would play there: same round, opening and
/// engines (records that predate the `Engine1`/`Engine2` tags are checked by round and
/// opening). The moves are replayed by our rules; the outcome is the rules' if they ended
/// the game, else the one the record states (resignation, time, adjudication, failure).
pub fn report_from_record(config: &MatchConfig, index: usize, text: &str) -> Result<GameReport> {
    let games = games::record::read(config.kind, text, ReplayOptions::default());
    let [read] = games.as_slice() else {
        bail!("expected one game, found {}", games.len());
    };
    let record = &read.record;
    let opening = &config.openings[(index / 2) % config.openings.len()];
    let mut expected = vec![
        ("Round", (index + 1).to_string()),
        ("Opening", opening.join(" ")),
    ];
    for (key, spec) in ["Engine1", "Engine2"].into_iter().zip(&config.players) {
        if record.tag(key).is_some() {
            expected.push((key, spec.clone()));
        }
    }
    for (key, want) in expected {
        match record.tag(key) {
            Some(found) if found == want => {}
            Some(found) => bail!("its {key} is {found:?}, this match's is {want:?}"),
            None => bail!("it has no {key} tag"),
        }
    }
    let replay = read.replay.clone()?;
    if let Some(fault) = replay.fault {
        return Err(fault.into());
    }
    let refusal = record.tag("Refusal").map(str::to_owned);
    let outcome = match (&refusal, replay.outcome) {
        (Some(_), _) => None,
        (None, Some(outcome)) => Some(outcome),
        (None, None) => bail!("the game is unfinished and states no result"),
    };
    Ok(GameReport {
        index,
        a_first: index.is_multiple_of(2),
        outcome,
        note: record.tag("Termination").unwrap_or_default().to_owned(),
        plies: replay.game.ply(),
        refusal,
        failure: record.tag("Failure").map(str::to_owned),
        record: text.to_owned(),
    })
}

fn describe_result(kind: GameKind, report: &GameReport) -> String {
    match report.outcome {
        None => "aborted".into(),
        Some(o) => format!("{} ({})", kind.status_name(Some(o)), report.note),
    }
}

/// Adds a finished game to the summary and prints its line and the running score.
fn count_game(config: &MatchConfig, summary: &mut Summary, report: GameReport, how: &str) {
    let names = &config.players;
    match report.points_for_a() {
        Some(1.0) => summary.tally.wins += 1,
        Some(0.5) => summary.tally.draws += 1,
        Some(_) => summary.tally.losses += 1,
        None => {}
    }
    if let Some(reason) = &report.refusal {
        summary.refusals.push((report.index + 1, reason.clone()));
    }
    if let Some(reason) = &report.failure {
        summary.failures.push((report.index + 1, reason.clone()));
    }
    let (p1, p2) = if report.a_first {
        (&names[0], &names[1])
    } else {
        (&names[1], &names[0])
    };
    println!(
        "game {}/{} ({p1} vs {p2}): {} in {} plies{how}",
        report.index + 1,
        config.games,
        describe_result(config.kind, &report),
        report.plies
    );
    println!("score of {} vs {}: {}", names[0], names[1], summary.tally);
    summary.games.push(report);
}

/// How player A's scored games ended, by result and reason: `won 3 (repetition 2,
/// resignation 1), lost 1 (corner_escape 1)`; `None` if no game was scored.
fn endings(games: &[GameReport]) -> Option<String> {
    let mut parts = Vec::new();
    for (word, points) in [("won", 1.0), ("drew", 0.5), ("lost", 0.0)] {
        let mut reasons: Vec<(&'static str, usize)> = Vec::new();
        for game in games {
            let Some(outcome) = game.outcome else {
                continue;
            };
            if game.points_for_a() != Some(points) {
                continue;
            }
            let name = outcome.reason.as_str();
            match reasons.iter_mut().find(|(r, _)| *r == name) {
                Some((_, n)) => *n += 1,
                None => reasons.push((name, 1)),
            }
        }
        if !reasons.is_empty() {
            reasons.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
            let total: usize = reasons.iter().map(|(_, n)| n).sum();
            let list: Vec<String> = reasons.iter().map(|(r, n)| format!("{r} {n}")).collect();
            parts.push(format!("{word} {total} ({})", list.join(", ")));
        }
    }
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// Runs the match, printing progress, and returns the summary.
pub fn run<G: Board + EngineGame>(config: &MatchConfig, start: &G) -> Result<Summary> {
    let extension = if config.kind.is_tafl() { "otg" } else { "txt" };
    let record_path = |dir: &std::path::Path, index: usize| {
        dir.join(format!("game-{:03}.{extension}", index + 1))
    };
    if let Some(dir) = &config.out {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    if config.repetition.is_some() && !config.kind.is_tafl() {
        bail!("--repetition chooses a tafl rule; Camelot's third repetition is a draw");
    }
    // Check both players can be built before starting any game.
    for spec in &config.players {
        if spec.trim().starts_with("otep:")
            && config.kind == GameKind::Copenhagen
            && config.repetition.is_none()
        {
            eprintln!(
                "note: OTEP rules strings cannot say that a third repetition wins for the \
                 attackers (TAFL.md 10b): OpenTafl will count it a draw; OpenTafl's own \
                 Copenhagen is --repetition mover-loses"
            );
        }
        player_from_spec::<G>(spec, config.kind, config.threads)?;
        if spec.trim().starts_with("otep:") && matches!(config.control, Limit::Depth(_)) {
            bail!(
                "{spec}: the OpenTafl Engine Protocol cannot ask for a depth; use --movetime or --tc"
            );
        }
    }
    let mut summary = Summary::default();
    let mut done = vec![false; config.games];
    if config.resume {
        let dir = config.out.as_ref().context("--resume needs --out")?;
        for (index, done) in done.iter_mut().enumerate() {
            let path = record_path(dir, index);
            if !path.exists() {
                continue;
            }
            let report = std::fs::read_to_string(&path)
                .map_err(anyhow::Error::from)
                .and_then(|text| report_from_record(config, index, &text))
                .with_context(|| format!("cannot resume from {}", path.display()))?;
            count_game(config, &mut summary, report, " (saved earlier)");
            *done = true;
        }
    }
    let next = AtomicUsize::new(0);
    let (sender, receiver) = channel();
    let errors = Mutex::new(Vec::new());
    std::thread::scope(|scope| -> Result<()> {
        for _ in 0..config.concurrency.max(1) {
            let sender = sender.clone();
            let next = &next;
            let errors = &errors;
            let done = &done;
            scope.spawn(move || {
                let build = || -> Result<[Box<dyn Player<G>>; 2]> {
                    Ok([
                        player_from_spec::<G>(&config.players[0], config.kind, config.threads)?,
                        player_from_spec::<G>(&config.players[1], config.kind, config.threads)?,
                    ])
                };
                let mut players = match build() {
                    Ok(players) => players,
                    Err(err) => {
                        errors.lock().expect("no panics hold it").push(err);
                        return;
                    }
                };
                loop {
                    let index = next.fetch_add(1, Ordering::SeqCst);
                    if index >= config.games {
                        return;
                    }
                    if done[index] {
                        continue;
                    }
                    let opening = &config.openings[(index / 2) % config.openings.len()];
                    let [a, b] = &mut players;
                    let result = if index.is_multiple_of(2) {
                        play_game(config, start, index, opening, a.as_mut(), b.as_mut())
                    } else {
                        play_game(config, start, index, opening, b.as_mut(), a.as_mut())
                    };
                    if sender.send(result).is_err() {
                        return;
                    }
                }
            });
        }
        drop(sender);
        for result in receiver {
            let report = result?;
            if let Some(dir) = &config.out {
                let path = record_path(dir, report.index);
                std::fs::write(&path, &report.record)
                    .with_context(|| format!("cannot write {}", path.display()))?;
            }
            count_game(config, &mut summary, report, "");
        }
        Ok(())
    })?;
    if let Some(err) = errors
        .into_inner()
        .expect("no panics hold it")
        .into_iter()
        .next()
    {
        return Err(err);
    }
    summary.games.sort_by_key(|g| g.index);
    println!();
    println!(
        "final score of {} vs {}: {}",
        config.players[0], config.players[1], summary.tally
    );
    if let Some(line) = endings(&summary.games) {
        println!("{} {line}", config.players[0]);
    }
    if !summary.refusals.is_empty() {
        println!(
            "{} game(s) not scored: the peer refused a move our rules allow or held the game over by its own rules:",
            summary.refusals.len()
        );
        for (game, reason) in &summary.refusals {
            println!("  game {game}: {reason}");
        }
    }
    if !summary.failures.is_empty() {
        println!(
            "{} game(s) lost by a player's failure (scored, but not won over the board):",
            summary.failures.len()
        );
        for (game, reason) in &summary.failures {
            println!("  game {game}: {reason}");
        }
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The start position of the configured game, as the game type `G`.
    fn start<G: Board>(config: &MatchConfig) -> G {
        G::from_any(AnyGame::start(config.kind)).expect("the game type of the configured game")
    }

    fn config(kind: GameKind, players: [&str; 2], games: usize) -> MatchConfig {
        MatchConfig {
            kind,
            players: players.map(str::to_owned),
            games,
            openings: vec![vec![]],
            control: Limit::Depth(1),
            draw_after: Some(60),
            repetition: None,
            out: None,
            threads: 1,
            concurrency: 1,
            verbose: false,
            resume: false,
        }
    }

    #[test]
    fn builtin_openings_are_legal() {
        for kind in GameKind::ALL {
            let openings = parse_openings(kind, builtin_openings(kind)).unwrap();
            assert!(openings.len() >= 20, "{kind}: {}", openings.len());
        }
    }

    #[test]
    fn bad_openings_are_refused_with_the_line() {
        let err = parse_openings(GameKind::Fetlar, "d1-d3\n\nd1-d9\n").unwrap_err();
        assert!(format!("{err:#}").contains("line 3"), "{err:#}");
        assert!(parse_openings(GameKind::Fetlar, "# nothing\n").is_err());
    }

    #[test]
    fn a_game_between_levels_is_refereed_and_recorded() {
        let mut cfg = config(GameKind::Copenhagen, ["level:1", "level:2"], 1);
        cfg.openings = vec![vec!["d1-d3".into(), "h6-h9".into()]];
        let mut a = player::LevelPlayer::<tafl::Tafl>::new(engine::Level::Beginner, 1);
        let mut b = player::LevelPlayer::<tafl::Tafl>::new(engine::Level::Casual, 1);
        let report = play_game(&cfg, &start(&cfg), 0, &cfg.openings[0], &mut a, &mut b).unwrap();
        assert!(report.outcome.is_some());
        assert!(report.plies >= 2 && report.plies <= 60);
        assert!(report.record.starts_with("[Event:Kingstable match]"));
        let record = &game::record::parse_records(&report.record).unwrap()[0];
        assert_eq!(record.moves[..2], ["d1-d3", "h6-h9"]);
        assert_eq!(record.moves.len(), report.plies);
    }

    #[test]
    fn the_draw_adjudication_applies() {
        let mut cfg = config(GameKind::Camelot, ["greedy", "greedy"], 1);
        cfg.draw_after = Some(4);
        let mut a = player::GreedyPlayer::<camelot::Camelot>::new();
        let mut b = player::GreedyPlayer::<camelot::Camelot>::new();
        let report = play_game(&cfg, &start(&cfg), 0, &[], &mut a, &mut b).unwrap();
        match report.outcome {
            Some(o) if o.reason == EndReason::Adjudication => assert_eq!(report.plies, 4),
            Some(_) => assert!(report.plies <= 4),
            None => panic!("not aborted"),
        }
    }

    #[test]
    fn a_saved_game_reads_back_as_it_was_played() {
        let mut cfg = config(GameKind::Copenhagen, ["level:1", "greedy"], 4);
        cfg.openings = vec![vec!["d1-d3".into()], vec!["h1-h3".into()]];
        let mut a = player::LevelPlayer::<tafl::Tafl>::new(engine::Level::Beginner, 1);
        let mut b = player::GreedyPlayer::<tafl::Tafl>::new();
        // Game 3 (index 2): the second opening, player A first.
        let played = play_game(&cfg, &start(&cfg), 2, &cfg.openings[1], &mut a, &mut b).unwrap();
        let read = report_from_record(&cfg, 2, &played.record).unwrap();
        assert_eq!(read.outcome, played.outcome);
        assert_eq!(read.plies, played.plies);
        assert_eq!(read.note, played.note);
        assert_eq!(read.points_for_a(), played.points_for_a());
        assert!(read.failure.is_none() && read.refusal.is_none());

        // Another round, another opening or other engines: not this match's game.
        for index in [0, 3] {
            let err = report_from_record(&cfg, index, &played.record).unwrap_err();
            assert!(format!("{err:#}").contains("Round"), "{err:#}");
        }
        let mut other = cfg.clone();
        other.openings = vec![vec!["d1-d3".into()], vec!["d1-d2".into()]];
        let err = report_from_record(&other, 2, &played.record).unwrap_err();
        assert!(format!("{err:#}").contains("Opening"), "{err:#}");
        let mut other = cfg.clone();
        other.players[1] = "level:2".into();
        let err = report_from_record(&other, 2, &played.record).unwrap_err();
        assert!(format!("{err:#}").contains("Engine2"), "{err:#}");

        // A record whose moves break our rules is refused.
        let bad = played.record.replace("1. h1-h3", "1. h1-h9");
        assert!(report_from_record(&cfg, 2, &bad).is_err());
    }

    #[test]
    fn failures_and_adjudications_read_back() {
        let mut cfg = config(GameKind::Camelot, ["greedy", "level:1"], 2);
        cfg.draw_after = Some(6);
        let mut a = player::GreedyPlayer::<camelot::Camelot>::new();
        let mut b = player::GreedyPlayer::<camelot::Camelot>::new();
        let mut played = play_game(&cfg, &start(&cfg), 1, &[], &mut b, &mut a).unwrap();
        let read = report_from_record(&cfg, 1, &played.record).unwrap();
        assert_eq!(read.outcome, played.outcome);
        assert_eq!(read.plies, 6);

        // A failure (here written by hand) is read back and listed apart.
        let game = camelot::Camelot::start();
        let lost = Outcome::loss(Side::First, EndReason::Resignation);
        played.failure = Some("greedy failed: it crashed".into());
        let tags = vec![
            ("Round".to_owned(), "2".to_owned()),
            ("Opening".to_owned(), String::new()),
            (
                "Termination".to_owned(),
                "greedy failed: it crashed".to_owned(),
            ),
            ("Reason".to_owned(), "resignation".to_owned()),
            ("Failure".to_owned(), "greedy failed: it crashed".to_owned()),
        ];
        let text = games::record::write(&game.into(), &tags, Some(lost));
        let read = report_from_record(&cfg, 1, &text).unwrap();
        assert_eq!(read.outcome, Some(lost));
        assert_eq!(read.failure.as_deref(), Some("greedy failed: it crashed"));
        // Player A (greedy) had the second side in game 2, so the first side's loss is a win.
        assert_eq!(read.points_for_a(), Some(1.0));
    }

    /// A player that plays the first legal move and, from a given ply on, holds the game
    /// over by its own rules (as hnefatafl.org's program does after 140 plies).
    struct StopsAt(usize);

    impl<G: Board> Player<G> for StopsAt {
        fn name(&self) -> String {
            "stops".into()
        }
        fn new_game(&mut self, _: &G, _: &[G::Move]) -> Result<(), PlayerError> {
            Ok(())
        }
        fn choose(&mut self, game: &G, _: &engine::Clock, _: Limit) -> Result<Choice> {
            if game.ply() >= self.0 {
                return Ok(Choice::GameOver(format!("over after {} plies", game.ply())));
            }
            let mut moves = Vec::new();
            game.legal_moves(&mut moves);
            Ok(Choice::Move(game.format_move(moves[0])))
        }
        fn observe(&mut self, _: &G, _: G::Move) -> Result<(), PlayerError> {
            Ok(())
        }
    }

    #[test]
    fn a_game_the_peer_holds_over_is_aborted_not_scored() {
        let cfg = config(GameKind::Copenhagen, ["greedy", "stops"], 1);
        let mut a = player::GreedyPlayer::<tafl::Tafl>::new();
        let mut b = StopsAt(5);
        let report = play_game::<tafl::Tafl>(&cfg, &start(&cfg), 0, &[], &mut a, &mut b).unwrap();
        // Nobody can win in two moves each from the start: the game reaches ply 5.
        assert_eq!(report.plies, 5);
        assert_eq!(report.outcome, None);
        assert_eq!(report.points_for_a(), None);
        assert_eq!(report.refusal.as_deref(), Some("over after 5 plies"));
        assert!(report.note.contains("house rules"), "{}", report.note);
        let read = report_from_record(&cfg, 0, &report.record).unwrap();
        assert_eq!(read.refusal, report.refusal);
        assert_eq!(read.plies, 5);
    }

    /// A player that thinks for a fixed time, then plays the first legal move.
    struct Slow(Duration);

    impl<G: Board> Player<G> for Slow {
        fn name(&self) -> String {
            "slow".into()
        }
        fn new_game(&mut self, _: &G, _: &[G::Move]) -> Result<(), PlayerError> {
            Ok(())
        }
        fn choose(&mut self, game: &G, _: &engine::Clock, _: Limit) -> Result<Choice> {
            std::thread::sleep(self.0);
            let mut moves = Vec::new();
            game.legal_moves(&mut moves);
            Ok(Choice::Move(game.format_move(moves[0])))
        }
        fn observe(&mut self, _: &G, _: G::Move) -> Result<(), PlayerError> {
            Ok(())
        }
    }

    #[test]
    fn the_clocks_are_minutes_plus_seconds_and_a_flag_fall_loses() {
        // 0.01 minutes = 600 ms each, 10 ms added per move: the fast player keeps its
        // time, the slow one (250 ms a move) runs out on its third move.
        let mut cfg = config(GameKind::Fetlar, ["greedy", "slow"], 1);
        cfg.control = Limit::Clock(crate::clock::parse_fischer("0.01+0.01").unwrap());
        cfg.draw_after = None;
        let mut a = player::GreedyPlayer::<tafl::Tafl>::new();
        let mut b = Slow(Duration::from_millis(250));
        let report = play_game::<tafl::Tafl>(&cfg, &start(&cfg), 0, &[], &mut a, &mut b).unwrap();
        assert_eq!(
            report.outcome,
            Some(Outcome::loss(Side::Second, EndReason::Timeout))
        );
        assert_eq!(report.note, "slow lost on time");
        // It fell on its own turn, after at least one move (on a busy machine a sleep may
        // last longer, so not necessarily on the third).
        assert!(
            report.plies % 2 == 1 && (3..=5).contains(&report.plies),
            "{}",
            report.plies
        );
    }

    #[test]
    fn endings_are_counted_by_result_and_reason() {
        let game = |index: usize, outcome: Option<Outcome>| GameReport {
            index,
            a_first: index.is_multiple_of(2),
            outcome,
            note: String::new(),
            plies: 10,
            refusal: None,
            failure: None,
            record: String::new(),
        };
        let first = |reason| Some(Outcome::win(Side::First, reason));
        let second = |reason| Some(Outcome::win(Side::Second, reason));
        let games = [
            game(0, first(EndReason::Repetition)),
            game(1, second(EndReason::Resignation)),
            game(2, first(EndReason::Resignation)),
            game(3, first(EndReason::CornerEscape)),
            game(4, Some(Outcome::draw(EndReason::Adjudication))),
            game(5, None),
        ];
        assert_eq!(
            endings(&games).unwrap(),
            "won 3 (resignation 2, repetition 1), drew 1 (adjudication 1), lost 1 (corner_escape 1)"
        );
        assert_eq!(endings(&games[5..]), None);
    }

    #[test]
    fn sides_alternate_and_points_follow_the_side() {
        let win_first = Some(Outcome::win(Side::First, EndReason::CornerEscape));
        let mut report = GameReport {
            index: 0,
            a_first: true,
            outcome: win_first,
            note: String::new(),
            plies: 10,
            refusal: None,
            failure: None,
            record: String::new(),
        };
        assert_eq!(report.points_for_a(), Some(1.0));
        report.a_first = false;
        assert_eq!(report.points_for_a(), Some(0.0));
        report.outcome = None;
        assert_eq!(report.points_for_a(), None);
    }

    #[test]
    fn a_short_match_adds_up() {
        let cfg = config(GameKind::Fetlar, ["level:2", "greedy"], 2);
        let summary = run::<tafl::Tafl>(&cfg, &start(&cfg)).unwrap();
        assert_eq!(summary.games.len(), 2);
        assert_eq!(summary.tally.games(), 2);
        assert!(summary.games[0].a_first && !summary.games[1].a_first);
    }

    #[test]
    fn unknown_players_are_refused() {
        let cfg = config(GameKind::Fetlar, ["level:9", "greedy"], 2);
        assert!(run::<tafl::Tafl>(&cfg, &start(&cfg)).is_err());
        let cfg = config(GameKind::Camelot, ["htp:whatever", "greedy"], 2);
        assert!(run::<camelot::Camelot>(&cfg, &start(&cfg)).is_err());
    }
}
