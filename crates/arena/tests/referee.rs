//! The referee and the match runner: games refereed by our rules, records that read back
//! as the same game, failures, refusals, clocks and adjudication.

use std::time::Duration;

use arena::{
    Choice, Contestant, ContestantError, DriverError, Endings, Event, GameReport, GreedyContestant,
    LevelContestant, Limit, MatchConfig, Summary, play_game, report_from_record, run,
};
use game::{EndReason, GameKind, Outcome, Player as Side};
use games::{AnyGame, Board};

/// An observer that ignores everything.
fn quiet(_: Event<'_>) {}

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
        movetime_b: None,
        draw_after: Some(60),
        repetition: None,
        out: None,
        threads: 1,
        concurrency: 1,
        resume: false,
        sprt: None,
    }
}

#[test]
fn a_game_between_levels_is_refereed_and_recorded() {
    let mut cfg = config(GameKind::Copenhagen, ["level:1", "level:2"], 1);
    cfg.openings = vec![vec!["d1-d3".into(), "h6-h9".into()]];
    let mut a = LevelContestant::<tafl::Tafl>::new(engine::Level::Beginner, 1);
    let mut b = LevelContestant::<tafl::Tafl>::new(engine::Level::Casual, 1);
    let report = play_game(
        &cfg,
        &start(&cfg),
        0,
        &cfg.openings[0],
        &mut a,
        &mut b,
        &quiet,
    )
    .unwrap();
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
    let mut a = GreedyContestant::<camelot::Camelot>::new();
    let mut b = GreedyContestant::<camelot::Camelot>::new();
    let report = play_game(&cfg, &start(&cfg), 0, &[], &mut a, &mut b, &quiet).unwrap();
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
    let mut a = LevelContestant::<tafl::Tafl>::new(engine::Level::Beginner, 1);
    let mut b = GreedyContestant::<tafl::Tafl>::new();
    // Game 3 (index 2): the second opening, player A first.
    let played = play_game(
        &cfg,
        &start(&cfg),
        2,
        &cfg.openings[1],
        &mut a,
        &mut b,
        &quiet,
    )
    .unwrap();
    let read = report_from_record(&cfg, 2, &played.record).unwrap();
    assert_eq!(read.outcome, played.outcome);
    assert_eq!(read.plies, played.plies);
    assert_eq!(read.note, played.note);
    assert_eq!(read.points_for_a(), played.points_for_a());
    assert!(read.failure.is_none() && read.refusal.is_none());

    // Another round, another opening or other engines: not this match's game.
    for index in [0, 3] {
        let err = report_from_record(&cfg, index, &played.record).unwrap_err();
        assert!(err.to_string().contains("Round"), "{err:#}");
    }
    let mut other = cfg.clone();
    other.openings = vec![vec!["d1-d3".into()], vec!["d1-d2".into()]];
    let err = report_from_record(&other, 2, &played.record).unwrap_err();
    assert!(err.to_string().contains("Opening"), "{err:#}");
    let mut other = cfg.clone();
    other.players[1] = "level:2".into();
    let err = report_from_record(&other, 2, &played.record).unwrap_err();
    assert!(err.to_string().contains("Engine2"), "{err:#}");

    // A record whose moves break our rules is refused.
    let bad = played.record.replace("1. h1-h3", "1. h1-h9");
    assert!(report_from_record(&cfg, 2, &bad).is_err());
}

#[test]
fn failures_and_adjudications_read_back() {
    let mut cfg = config(GameKind::Camelot, ["greedy", "level:1"], 2);
    cfg.draw_after = Some(6);
    let mut a = GreedyContestant::<camelot::Camelot>::new();
    let mut b = GreedyContestant::<camelot::Camelot>::new();
    let mut played = play_game(&cfg, &start(&cfg), 1, &[], &mut b, &mut a, &quiet).unwrap();
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

/// An answer a scripted contestant gives.
type Answer = fn() -> Result<Choice, DriverError>;

/// A contestant named `name` that thinks for `think`, then plays the first legal move,
/// until ply `after`: from then on it answers `then`.
struct Scripted {
    name: &'static str,
    think: Duration,
    after: usize,
    then: Answer,
}

impl Scripted {
    /// Plays the first legal move at once until ply `after`, then answers `then`.
    fn until(name: &'static str, after: usize, then: Answer) -> Scripted {
        Scripted {
            name,
            think: Duration::ZERO,
            after,
            then,
        }
    }
}

impl<G: Board> Contestant<G> for Scripted {
    fn name(&self) -> String {
        self.name.into()
    }
    fn new_game(&mut self, _: &G, _: &[G::Move]) -> Result<(), ContestantError> {
        Ok(())
    }
    fn choose(&mut self, game: &G, _: &engine::Clock, _: Limit) -> Result<Choice, DriverError> {
        std::thread::sleep(self.think);
        if game.ply() >= self.after {
            return (self.then)();
        }
        let mut moves = Vec::new();
        game.legal_moves(&mut moves);
        Ok(Choice::Move(game.format_move(moves[0])))
    }
    fn observe(&mut self, _: &G, _: G::Move) -> Result<(), ContestantError> {
        Ok(())
    }
}

/// Plays the first legal move and keeps the limits it was given.
struct Recording {
    limits: Vec<Limit>,
}

impl<G: Board> Contestant<G> for Recording {
    fn name(&self) -> String {
        "recording".into()
    }
    fn new_game(&mut self, _: &G, _: &[G::Move]) -> Result<(), ContestantError> {
        Ok(())
    }
    fn choose(&mut self, game: &G, _: &engine::Clock, limit: Limit) -> Result<Choice, DriverError> {
        self.limits.push(limit);
        let mut moves = Vec::new();
        game.legal_moves(&mut moves);
        Ok(Choice::Move(game.format_move(moves[0])))
    }
    fn observe(&mut self, _: &G, _: G::Move) -> Result<(), ContestantError> {
        Ok(())
    }
}

#[test]
fn time_odds_give_engine_b_its_own_time_on_either_side() {
    let mut cfg = config(GameKind::Copenhagen, ["a", "b"], 2);
    cfg.control = Limit::MoveTime(Duration::from_millis(40));
    cfg.movetime_b = Some(Duration::from_secs(4));
    cfg.draw_after = Some(6);
    for index in 0..2 {
        let mut a = Recording { limits: Vec::new() };
        let mut b = Recording { limits: Vec::new() };
        // Game 0: A has the first side; game 1: B has it.
        let (first, second): (
            &mut dyn Contestant<tafl::Tafl>,
            &mut dyn Contestant<tafl::Tafl>,
        ) = if index == 0 {
            (&mut a, &mut b)
        } else {
            (&mut b, &mut a)
        };
        play_game::<tafl::Tafl>(&cfg, &start(&cfg), index, &[], first, second, &quiet).unwrap();
        assert_eq!(a.limits, [Limit::MoveTime(Duration::from_millis(40)); 3]);
        assert_eq!(b.limits, [Limit::MoveTime(Duration::from_secs(4)); 3]);
    }
}

#[test]
fn a_game_the_peer_holds_over_is_aborted_not_scored() {
    let cfg = config(GameKind::Copenhagen, ["greedy", "stops"], 1);
    let mut a = GreedyContestant::<tafl::Tafl>::new();
    // It holds the game over by its own rules from ply 5 on (as hnefatafl.org's program
    // does after 140 plies).
    let mut b = Scripted::until("stops", 5, || {
        Ok(Choice::GameOver("over after 5 plies".into()))
    });
    let report =
        play_game::<tafl::Tafl>(&cfg, &start(&cfg), 0, &[], &mut a, &mut b, &quiet).unwrap();
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

#[test]
fn the_clocks_are_minutes_plus_seconds_and_a_flag_fall_loses() {
    // 0.01 minutes = 600 ms each, 10 ms added per move: the fast player keeps its
    // time, the slow one (250 ms a move) runs out on its third move.
    let mut cfg = config(GameKind::Fetlar, ["greedy", "slow"], 1);
    cfg.control = Limit::Clock("0.01+0.01".parse().unwrap());
    cfg.draw_after = None;
    let mut a = GreedyContestant::<tafl::Tafl>::new();
    let mut b = Scripted {
        think: Duration::from_millis(250),
        ..Scripted::until("slow", usize::MAX, || Err(DriverError::NoMove))
    };
    let report =
        play_game::<tafl::Tafl>(&cfg, &start(&cfg), 0, &[], &mut a, &mut b, &quiet).unwrap();
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
    let summary = run::<tafl::Tafl>(&cfg, &start(&cfg), &quiet).unwrap();
    assert_eq!(summary.games.len(), 2);
    assert_eq!(summary.tally.games(), 2);
    assert!(summary.games[0].a_first && !summary.games[1].a_first);
}

#[test]
fn unknown_players_are_refused() {
    let cfg = config(GameKind::Fetlar, ["level:9", "greedy"], 2);
    assert!(run::<tafl::Tafl>(&cfg, &start(&cfg), &quiet).is_err());
    let cfg = config(GameKind::Camelot, ["htp:whatever", "greedy"], 2);
    assert!(run::<camelot::Camelot>(&cfg, &start(&cfg), &quiet).is_err());
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
    let mut summary = Summary::default();
    for report in [
        game(0, first(EndReason::Repetition)),
        game(1, second(EndReason::Resignation)),
        game(2, first(EndReason::Resignation)),
        game(3, first(EndReason::CornerEscape)),
        game(4, Some(Outcome::draw(EndReason::Adjudication))),
        game(5, None),
    ] {
        summary.add(report);
    }
    assert_eq!(summary.tally.games(), 5);
    let ending = |points, total, reasons: &[(EndReason, usize)]| Endings {
        points,
        total,
        reasons: reasons.to_vec(),
    };
    assert_eq!(
        summary.endings(),
        [
            ending(
                1.0,
                3,
                &[(EndReason::Resignation, 2), (EndReason::Repetition, 1)]
            ),
            ending(0.5, 1, &[(EndReason::Adjudication, 1)]),
            ending(0.0, 1, &[(EndReason::CornerEscape, 1)]),
        ]
    );
    assert!(Summary::default().endings().is_empty());
}

#[test]
fn every_move_is_reported_to_the_observer() {
    let cfg = config(GameKind::Fetlar, ["greedy", "greedy"], 1);
    let moves = std::sync::Mutex::new(Vec::new());
    let observer = |event: Event<'_>| {
        if let Event::Move {
            game, ply, text, ..
        } = event
        {
            moves.lock().unwrap().push((game, ply, text.to_owned()));
        }
    };
    let mut a = GreedyContestant::<tafl::Tafl>::new();
    let mut b = GreedyContestant::<tafl::Tafl>::new();
    let report = play_game(&cfg, &start(&cfg), 0, &[], &mut a, &mut b, &observer).unwrap();
    let moves = moves.into_inner().unwrap();
    assert_eq!(moves.len(), report.plies);
    let record = &game::record::parse_records(&report.record).unwrap()[0];
    for (i, (game, ply, text)) in moves.iter().enumerate() {
        assert_eq!((*game, *ply), (0, i + 1));
        assert_eq!(text, &record.moves[i]);
    }
}

#[test]
fn a_failure_or_an_illegal_move_loses_the_game_and_says_why() {
    let cfg = config(GameKind::Copenhagen, ["greedy", "then"], 1);
    let cases: [(Answer, &str); 3] = [
        (
            || Err(DriverError::NoMove),
            "then failed: the engine found no move",
        ),
        (
            || Ok(Choice::Move("a1-a2".into())),
            "then played an illegal move: ",
        ),
        (|| Ok(Choice::Resign), "then resigned"),
    ];
    for (then, note) in cases {
        let mut a = GreedyContestant::<tafl::Tafl>::new();
        let mut b = Scripted::until("then", 3, then);
        let report = play_game(&cfg, &start(&cfg), 0, &[], &mut a, &mut b, &quiet).unwrap();
        // "then" has the second side: it fails on its second turn, at ply 3.
        assert_eq!(report.plies, 3, "{note}");
        assert_eq!(
            report.outcome,
            Some(Outcome::loss(Side::Second, EndReason::Resignation))
        );
        assert!(report.note.starts_with(note), "{}", report.note);
        assert_eq!(report.failure.is_some(), note.contains("failed"), "{note}");
        assert_eq!(report.points_for_a(), Some(1.0));
        let read = report_from_record(&cfg, 0, &report.record).unwrap();
        assert_eq!(read.outcome, report.outcome);
        assert_eq!(read.note, report.note);
        assert_eq!(read.failure, report.failure);
    }
}

#[test]
fn an_sprt_stops_the_match_once_it_decides() {
    // A full-strength engine against a one-ply player: the test accepts H1 (A is at
    // least 100 Elo better) long before the 40 games are played, and no game starts after
    // it decides.
    let mut cfg = config(GameKind::Fetlar, ["level:maximum", "greedy"], 40);
    cfg.control = Limit::Depth(2);
    cfg.openings =
        arena::parse_openings(GameKind::Fetlar, arena::builtin_openings(GameKind::Fetlar)).unwrap();
    cfg.sprt = Some("elo0=0,elo1=100,alpha=0.1,beta=0.1".parse().unwrap());
    let summary = run::<tafl::Tafl>(&cfg, &start(&cfg), &quiet).unwrap();
    let (decision, games) = summary.sprt_decided.expect("decided");
    assert_eq!(decision, arena::sprt::Decision::AcceptH1);
    // A game already under way when the test decides is played out and counted; none
    // starts after it.
    let played = summary.games.len() as u32;
    assert!(
        (games..=games + cfg.concurrency as u32).contains(&played),
        "{played} games played, decided after {games}"
    );
    assert!(played < 40, "{played}");
    let status = summary.sprt_status(cfg.sprt.as_ref().unwrap());
    assert!(status.llr >= status.upper);
}

#[test]
fn sprt_counts_pair_the_games_of_one_opening() {
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
    let first = Some(Outcome::win(Side::First, EndReason::CornerEscape));
    let second = Some(Outcome::win(Side::Second, EndReason::KingCaptured));
    let draw = Some(Outcome::draw(EndReason::Adjudication));
    let mut summary = Summary::default();
    // Pair 0: A wins as first, loses as second (1 point). Pair 1: A wins both (2).
    // Pair 2: a draw and A's loss as first (½). Pair 3: one game only. Pair 4: one
    // game unscored.
    for report in [
        game(1, first),
        game(0, first),
        game(2, first),
        game(3, second),
        game(5, draw),
        game(4, second),
        game(6, first),
        game(8, draw),
        game(9, None),
    ] {
        summary.add(report);
    }
    use arena::sprt::Model;
    assert_eq!(summary.counts(Model::Pentanomial), [0, 1, 1, 0, 1]);
    let t = summary.tally;
    assert_eq!(
        summary.counts(Model::Trinomial),
        [t.losses, t.draws, t.wins]
    );
    assert_eq!(summary.counts(Model::Trinomial), [2, 2, 4]);
    // By the side that won, whoever played it.
    assert_eq!(summary.by_side(), [4, 2, 2]);
}
