//! A whole match: N games, each opening from both sides, several at once if asked, every
//! game saved as a record as it finishes, and a match cut short resumed from the records
//! it saved. Progress goes to an observer ([`Event`]); nothing is printed here.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::channel;
use std::time::Duration;

use engine::EngineGame;
use game::{EndReason, GameKind};
use games::Board;

use crate::contestant::{Contestant, Limit, from_spec};
use crate::error::Error;
use crate::referee::{GameReport, play_game, report_from_record};
use crate::sprt::{Decision, Model, Sprt, Status};
use crate::stats::Tally;

/// How a match is run.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// The game.
    pub kind: GameKind,
    /// The two contestants' descriptions (`level:6`, `greedy`, `ugi:COMMAND`, … as
    /// [`from_spec`] reads them): A and B.
    pub players: [String; 2],
    /// Games to play (each opening twice, sides swapped: A has the first side in the
    /// even-numbered games, counting from 0).
    pub games: usize,
    /// Opening move sequences, each played from both sides.
    pub openings: Vec<Vec<String>>,
    /// Time per move or clocks.
    pub control: Limit,
    /// B's time per move where it differs from A's (time odds; `control` is then A's
    /// [`Limit::MoveTime`]).
    pub movetime_b: Option<std::time::Duration>,
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
    /// Keep the games already saved in `out` by an earlier run of the same match and play
    /// only the rest.
    pub resume: bool,
    /// Stop once this sequential test decides ([`crate::sprt`]); `games` stays the most
    /// that are played. Games already under way when it decides are finished and
    /// counted.
    pub sprt: Option<Sprt>,
}

impl MatchConfig {
    /// The file game `index` (0-based) is saved in, in `dir`: `game-001.otg` (tafl) or
    /// `game-001.txt` (Camelot).
    #[must_use]
    pub fn record_path(&self, dir: &Path, index: usize) -> PathBuf {
        let extension = games::record::extension(self.kind);
        dir.join(format!("game-{:03}.{extension}", index + 1))
    }
}

/// The result of a whole match.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Scored games from A's point of view.
    pub tally: Tally,
    /// Games the peer refused a legal move in, or held over by its own rules (not
    /// scored): the 1-based game number and why.
    pub refusals: Vec<(usize, String)>,
    /// Games lost by a contestant's failure (scored as losses, listed apart).
    pub failures: Vec<(usize, String)>,
    /// Every game, in the order they finished (by number once the match is over).
    pub games: Vec<GameReport>,
    /// When the match's SPRT decided: the decision and the games scored by then (no new
    /// game was started after it).
    pub sprt_decided: Option<(Decision, u32)>,
}

/// How A's scored games with one result ended: the result (1 won, ½ drew, 0 lost), how
/// many, and how many for each reason, most first.
#[derive(Clone, Debug, PartialEq)]
pub struct Endings {
    /// A's points in each of these games.
    pub points: f64,
    /// How many games.
    pub total: usize,
    /// Each reason with its count, most first (ties by name).
    pub reasons: Vec<(EndReason, usize)>,
}

impl Summary {
    /// Adds a finished game.
    pub fn add(&mut self, report: GameReport) {
        if let Some(points) = report.points_for_a() {
            self.tally.count(points);
        }
        if let Some(reason) = &report.refusal {
            self.refusals.push((report.index + 1, reason.clone()));
        }
        if let Some(reason) = &report.failure {
            self.failures.push((report.index + 1, reason.clone()));
        }
        self.games.push(report);
    }

    /// A's results as the SPRT model counts them: `[losses, draws, wins]`
    /// (trinomial), or the pairs of games with one opening (games `2k` and `2k+1`, both
    /// scored) by A's points in them, `[0, ½, 1, 1½, 2]` (pentanomial).
    #[must_use]
    pub fn counts(&self, model: Model) -> Vec<u32> {
        match model {
            Model::Trinomial => vec![self.tally.losses, self.tally.draws, self.tally.wins],
            Model::Pentanomial => {
                let mut points: std::collections::HashMap<usize, [Option<f64>; 2]> =
                    std::collections::HashMap::new();
                for game in &self.games {
                    points.entry(game.index / 2).or_default()[game.index % 2] = game.points_for_a();
                }
                let mut counts = vec![0; 5];
                for pair in points.values() {
                    if let [Some(a), Some(b)] = pair {
                        counts[((a + b) * 2.0).round() as usize] += 1;
                    }
                }
                counts
            }
        }
    }

    /// The scored games by the side that won them, whoever played it: `[first side's
    /// wins, second side's wins, draws]` (self-play balance: attackers against
    /// defenders, White against Black).
    #[must_use]
    pub fn by_side(&self) -> [u32; 3] {
        let mut counts = [0; 3];
        for outcome in self.games.iter().filter_map(|g| g.outcome) {
            match outcome.winner {
                Some(game::Player::First) => counts[0] += 1,
                Some(game::Player::Second) => counts[1] += 1,
                None => counts[2] += 1,
            }
        }
        counts
    }

    /// A's scored games split by the side A had: with the first side, then the second.
    #[must_use]
    pub fn tally_by_side(&self) -> [Tally; 2] {
        let mut sides = [Tally::default(); 2];
        for report in &self.games {
            if let Some(points) = report.points_for_a() {
                sides[usize::from(!report.a_first)].count(points);
            }
        }
        sides
    }

    /// The test's status on the games so far.
    #[must_use]
    pub fn sprt_status(&self, sprt: &Sprt) -> Status {
        sprt.status(&self.counts(sprt.model))
    }

    /// Records the test's decision the first time it decides; true once decided.
    fn check_sprt(&mut self, sprt: Option<&Sprt>) -> bool {
        if self.sprt_decided.is_none()
            && let Some(sprt) = sprt
        {
            let decision = self.sprt_status(sprt).decision;
            if decision != Decision::Continue {
                self.sprt_decided = Some((decision, self.tally.games()));
            }
        }
        self.sprt_decided.is_some()
    }

    /// How A's scored games ended, by result (won, drew, lost; those with no game left
    /// out) and reason.
    #[must_use]
    pub fn endings(&self) -> Vec<Endings> {
        let mut all = Vec::new();
        for points in [1.0, 0.5, 0.0] {
            let mut reasons: Vec<(EndReason, usize)> = Vec::new();
            for game in &self.games {
                let Some(outcome) = game.outcome else {
                    continue;
                };
                if game.points_for_a() != Some(points) {
                    continue;
                }
                match reasons.iter_mut().find(|(r, _)| *r == outcome.reason) {
                    Some((_, n)) => *n += 1,
                    None => reasons.push((outcome.reason, 1)),
                }
            }
            if !reasons.is_empty() {
                reasons.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.as_str().cmp(b.0.as_str())));
                all.push(Endings {
                    points,
                    total: reasons.iter().map(|(_, n)| n).sum(),
                    reasons,
                });
            }
        }
        all
    }
}

/// What a match reports while it runs.
#[derive(Clone, Copy, Debug)]
pub enum Event<'a> {
    /// Something about the match's setup worth knowing before it starts.
    Note(&'a str),
    /// A move was played and checked (from a game's own thread).
    Move {
        /// The 0-based game number.
        game: usize,
        /// The 1-based ply.
        ply: usize,
        /// Who played it.
        player: &'a str,
        /// The move, with its captures.
        text: &'a str,
        /// How long it took.
        spent: Duration,
    },
    /// A game finished, or was read back from an earlier run (`resumed`); `summary` is
    /// the match so far, this game included.
    Game {
        /// The game.
        report: &'a GameReport,
        /// The match so far.
        summary: &'a Summary,
        /// Read back from the record an earlier run saved.
        resumed: bool,
    },
}

/// Runs the match from `start`, telling `observer` what happens, and returns the
/// summary with the games in order.
///
/// # Errors
/// A contestant that cannot be built or started (the match stops at once: no game it
/// would lose by default is worth scoring), a setting the game or a protocol cannot
/// have, a record that cannot be written, or a saved game that is not this match's.
pub fn run<G: Board + EngineGame>(
    config: &MatchConfig,
    start: &G,
    observer: &(dyn Fn(Event<'_>) + Sync),
) -> Result<Summary, Error> {
    if let Some(dir) = &config.out {
        std::fs::create_dir_all(dir).map_err(|error| Error::Write {
            path: dir.clone(),
            error,
        })?;
    }
    if config.repetition.is_some() && !config.kind.is_tafl() {
        return Err(games::RulesError::NotTafl.into());
    }
    // Check both contestants can be built before starting any game.
    for spec in &config.players {
        let otep = spec.trim().starts_with("otep:");
        if otep && config.kind == GameKind::Copenhagen && config.repetition.is_none() {
            observer(Event::Note(
                "OTEP rules strings cannot say that a third repetition wins for the \
                 attackers (TAFL.md 10b): OpenTafl will count it a draw; OpenTafl's own \
                 Copenhagen is --repetition mover-loses",
            ));
        }
        from_spec::<G>(spec, config.kind, config.threads)?;
        if otep && matches!(config.control, Limit::Depth(_)) {
            return Err(Error::Unsupported(format!(
                "{spec}: the OpenTafl Engine Protocol cannot ask for a depth; use --movetime or --tc"
            )));
        }
    }
    let mut summary = Summary::default();
    let mut done = vec![false; config.games];
    if config.resume {
        let dir = config.out.as_ref().ok_or(Error::ResumeWithoutDirectory)?;
        for (index, done) in done.iter_mut().enumerate() {
            let path = config.record_path(dir, index);
            if !path.exists() {
                continue;
            }
            let report = std::fs::read_to_string(&path)
                .map_err(crate::error::ResumeError::Read)
                .and_then(|text| report_from_record(config, index, &text))
                .map_err(|error| Error::Resume {
                    path: path.clone(),
                    error: Box::new(error),
                })?;
            summary.add(report);
            summary.check_sprt(config.sprt.as_ref());
            observer(Event::Game {
                report: summary.games.last().expect("just added"),
                summary: &summary,
                resumed: true,
            });
            *done = true;
        }
    }
    let next = AtomicUsize::new(0);
    // Set once the SPRT has decided: no new game starts.
    let decided = AtomicBool::new(summary.sprt_decided.is_some());
    let (sender, receiver) = channel();
    let errors = Mutex::new(Vec::new());
    std::thread::scope(|scope| -> Result<(), Error> {
        for _ in 0..config.concurrency.max(1) {
            let sender = sender.clone();
            let next = &next;
            let errors = &errors;
            let done = &done;
            let decided = &decided;
            scope.spawn(move || {
                let build = || -> Result<[Box<dyn Contestant<G>>; 2], Error> {
                    Ok([
                        from_spec::<G>(&config.players[0], config.kind, config.threads)?,
                        from_spec::<G>(&config.players[1], config.kind, config.threads)?,
                    ])
                };
                let mut players = match build() {
                    Ok(players) => players,
                    Err(err) => {
                        errors
                            .lock()
                            .unwrap_or_else(std::sync::PoisonError::into_inner)
                            .push(err);
                        return;
                    }
                };
                loop {
                    if decided.load(Ordering::SeqCst) {
                        return;
                    }
                    let index = next.fetch_add(1, Ordering::SeqCst);
                    if index >= config.games {
                        return;
                    }
                    if done[index] {
                        continue;
                    }
                    let opening = &config.openings[(index / 2) % config.openings.len()];
                    let [a, b] = &mut players;
                    let (first, second) = if index.is_multiple_of(2) {
                        (a.as_mut(), b.as_mut())
                    } else {
                        (b.as_mut(), a.as_mut())
                    };
                    let result = play_game(config, start, index, opening, first, second, observer);
                    let failed = result.is_err();
                    if sender.send(result).is_err() || failed {
                        return;
                    }
                }
            });
        }
        drop(sender);
        for result in receiver {
            let report = result?;
            if let Some(dir) = &config.out {
                let path = config.record_path(dir, report.index);
                std::fs::write(&path, &report.record)
                    .map_err(|error| Error::Write { path, error })?;
            }
            summary.add(report);
            if summary.check_sprt(config.sprt.as_ref()) {
                decided.store(true, Ordering::SeqCst);
            }
            observer(Event::Game {
                report: summary.games.last().expect("just added"),
                summary: &summary,
                resumed: false,
            });
        }
        Ok(())
    })?;
    if let Some(err) = errors
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .into_iter()
        .next()
    {
        return Err(err);
    }
    summary.games.sort_by_key(|g| g.index);
    Ok(summary)
}
