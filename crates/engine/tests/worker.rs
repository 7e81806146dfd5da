//! The worker's contract, for every game: it answers with a legal move however the search
//! ends (stopped before its first iteration, panicking, finishing), it stops promptly,
//! and it keeps its engine between searches.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use camelot::Camelot;
use engine::{
    Answer, DefaultWorker, Engine, EngineGame, Evaluator, Event, Job, Limits, Source, Threats,
    Worker,
};
use game::Game;
use tafl::{Position, Rules, Tafl};

/// Long enough for anything these tests do, short enough to fail a hang quickly.
const PATIENCE: Duration = Duration::from_secs(60);

/// A game's default evaluation that panics once it is armed (at once, or from the first
/// progress report on), `panics` times.
#[derive(Clone)]
struct Failing<E> {
    inner: E,
    armed: Arc<AtomicBool>,
    panics: Arc<AtomicU64>,
    calls: Arc<AtomicU64>,
}

impl<E: Default> Failing<E> {
    fn new(armed: bool, panics: u64) -> Self {
        Failing {
            inner: E::default(),
            armed: Arc::new(AtomicBool::new(armed)),
            panics: Arc::new(AtomicU64::new(panics)),
            calls: Arc::new(AtomicU64::new(0)),
        }
    }
}

impl<G: Game, E: Evaluator<G>> Evaluator<G> for Failing<E> {
    type Memo = ();
    fn evaluate(&self, game: &G) -> i32 {
        self.calls.fetch_add(1, Ordering::Relaxed);
        if self.armed.load(Ordering::Relaxed)
            && self
                .panics
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
                .is_ok()
        {
            panic!("injected evaluation failure");
        }
        self.inner.evaluate(game)
    }
    fn winning_move(&self, game: &G) -> Option<G::Move> {
        self.inner.winning_move(game)
    }
    fn in_danger(&self, game: &G) -> bool {
        self.inner.in_danger(game)
    }
    fn threats(&self, game: &G) -> Threats<G::Move> {
        self.inner.threats(game)
    }
    fn mark_evasions(&self, game: &G, moves: &[G::Move], keep: &mut [bool]) {
        self.inner.mark_evasions(game, moves, keep);
    }
    fn tactical_scores(&self, game: &G, moves: &[G::Move], scores: &mut [i32]) {
        self.inner.tactical_scores(game, moves, scores);
    }
    fn forcing_moves(&self, game: &G, threats: bool, out: &mut Vec<G::Move>) {
        self.inner.forcing_moves(game, threats, out);
    }
    fn history_size(&self) -> usize {
        self.inner.history_size()
    }
    fn history_key(&self, game: &G, mv: G::Move) -> usize {
        self.inner.history_key(game, mv)
    }
}

/// A position of each game, a few moves in.
fn games() -> (Tafl, Tafl, Camelot) {
    let play = |mut game: Tafl, moves: &str| {
        for text in moves.split(' ') {
            let mv = game.parse_move(text).unwrap();
            game.play(mv);
        }
        game
    };
    let fetlar = play(Tafl::new(Rules::FETLAR), "d1-d3 f4-c4");
    let copenhagen = play(Tafl::new(Rules::COPENHAGEN), "d1-d3 e5-e2 g1-g3 f4-c4");
    let mut camelot = Camelot::start();
    let mv = camelot.parse_move("E7-E8").unwrap();
    camelot.play(mv);
    (fetlar, copenhagen, camelot)
}

/// Runs `check` on each game with a small single-threaded worker.
macro_rules! for_each_game {
    ($check:ident) => {{
        let (fetlar, copenhagen, camelot) = games();
        $check(fetlar, 1);
        $check(copenhagen, 2);
        $check(camelot, 1);
    }};
}

fn small<G: EngineGame>(threads: usize) -> DefaultWorker<G> {
    let mut worker = DefaultWorker::<G>::default();
    worker.engine_mut().set_hash_mb(4);
    worker.engine_mut().set_threads(threads);
    worker
}

/// A small worker whose evaluation is `failing`.
fn failing_worker<G: EngineGame>(
    failing: Failing<G::Evaluator>,
    threads: usize,
) -> Worker<G, Failing<G::Evaluator>> {
    let mut engine = Engine::new(failing);
    engine.set_hash_mb(4);
    engine.set_threads(threads);
    Worker::new(engine)
}

/// Starts `job`; the events come on the returned channel.
fn start<G: Game, E: Evaluator<G> + 'static>(
    worker: &mut Worker<G, E>,
    job: Job<G>,
) -> Receiver<Event<G::Move>> {
    let (tx, rx) = mpsc::channel();
    worker
        .start(job, move |_, event| {
            let _ = tx.send(event);
        })
        .unwrap();
    rx
}

/// The answer at the end of `events`, and the progress reports before it.
fn answer_of<M: std::fmt::Debug>(
    events: &Receiver<Event<M>>,
) -> (Answer<M>, Vec<engine::SearchInfo<M>>) {
    let mut progress = Vec::new();
    loop {
        match events.recv_timeout(PATIENCE).expect("an answer in time") {
            Event::Progress(info) => progress.push(info),
            Event::Done(answer) => return (answer, progress),
        }
    }
}

fn assert_legal<G: Game>(game: &G, answer: &Answer<G::Move>) {
    let mv = answer.result.best_move.expect("a move");
    assert!(game.is_legal(mv), "{answer:?}");
    assert_eq!(answer.result.pv.first(), Some(&mv), "{answer:?}");
}

#[test]
fn a_search_stopped_before_it_starts_answers_with_a_legal_move() {
    fn check<G: EngineGame>(game: G, threads: usize) {
        let mut worker = small::<G>(threads);
        let job = Job::new(game.clone(), Limits::infinite());
        job.stop.store(true, Ordering::SeqCst);
        let started = Instant::now();
        let (answer, progress) = answer_of(&start(&mut worker, job));
        // The flag is first looked at after 1024 nodes: a small first iteration may
        // be completed all the same.
        let source = if progress.is_empty() {
            Source::OnePly
        } else {
            Source::Search
        };
        assert_eq!(answer.source, source, "{answer:?}");
        assert_eq!(answer.failure, None);
        assert_legal(&game, &answer);
        assert!(started.elapsed() < Duration::from_secs(10));
    }
    for_each_game!(check);
}

#[test]
fn a_search_stopped_at_once_answers_with_a_legal_move() {
    fn check<G: EngineGame>(game: G, threads: usize) {
        let mut worker = small::<G>(threads);
        let events = start(&mut worker, Job::new(game.clone(), Limits::infinite()));
        worker.stop();
        let (answer, _) = answer_of(&events);
        assert_legal(&game, &answer);
        assert!(matches!(answer.source, Source::Search | Source::OnePly));
        // A zero move time is the same race, decided by the clock.
        let limits = Limits::move_time(Duration::ZERO);
        let (answer, _) = answer_of(&start(&mut worker, Job::new(game.clone(), limits)));
        assert_legal(&game, &answer);
    }
    for_each_game!(check);
}

#[test]
fn a_search_that_panics_at_once_answers_with_a_one_ply_choice() {
    fn check<G: EngineGame>(game: G, threads: usize) {
        let mut worker = failing_worker(Failing::<G::Evaluator>::new(true, 1), threads);
        let (answer, progress) = answer_of(&start(
            &mut worker,
            Job::new(game.clone(), Limits::depth(3)),
        ));
        // With two threads the other may complete an iteration before it stops.
        let source = if progress.is_empty() {
            Source::OnePly
        } else {
            Source::LastIteration
        };
        assert_eq!(answer.source, source, "{answer:?}");
        assert_legal(&game, &answer);
        assert!(answer.failure.is_some());
    }
    for_each_game!(check);
}

#[test]
fn a_search_that_always_panics_still_answers() {
    fn check<G: EngineGame>(game: G, threads: usize) {
        let failing = Failing::<G::Evaluator>::new(true, u64::MAX);
        let calls = Arc::clone(&failing.calls);
        let mut worker = failing_worker(failing, threads);
        let (answer, progress) = answer_of(&start(
            &mut worker,
            Job::new(game.clone(), Limits::depth(3)),
        ));
        assert!(
            calls.load(Ordering::Relaxed) > 0,
            "the evaluation was reached"
        );
        assert!(progress.is_empty());
        assert_legal(&game, &answer);
        // Every fallback that evaluates fails too: the first legal move is left.
        assert_eq!(answer.source, Source::FirstLegal, "{answer:?}");
        let failure = answer.failure.expect("the failure is reported");
        assert!(failure.contains("injected evaluation failure"), "{failure}");
        // The worker goes on: the next search fails the same way and answers again.
        let (again, _) = answer_of(&start(
            &mut worker,
            Job::new(game.clone(), Limits::depth(2)),
        ));
        assert_legal(&game, &again);
    }
    for_each_game!(check);
}

#[test]
fn a_search_that_panics_later_answers_with_its_last_iteration() {
    fn check<G: EngineGame>(game: G, threads: usize) {
        let failing = Failing::<G::Evaluator>::new(false, u64::MAX);
        let armed = Arc::clone(&failing.armed);
        let mut worker = failing_worker(failing, threads);
        let (tx, events) = mpsc::channel();
        // The first progress report arms the failure: the next evaluation panics, in
        // an infinite search that would otherwise run until stopped.
        worker
            .start(
                Job::new(game.clone(), Limits::default()),
                move |_, event| {
                    armed.store(true, Ordering::Relaxed);
                    let _ = tx.send(event);
                },
            )
            .unwrap();
        let (answer, progress) = answer_of(&events);
        let last = progress.last().expect("an iteration before the failure");
        assert_eq!(answer.source, Source::LastIteration, "{answer:?}");
        assert_eq!(answer.result.pv, last.pv);
        assert_eq!(answer.result.depth, last.depth);
        assert_legal(&game, &answer);
        assert!(answer.failure.is_some());
    }
    for_each_game!(check);
}

#[test]
fn stopping_a_running_search_ends_it_promptly() {
    fn check<G: EngineGame>(game: G, threads: usize) {
        let mut worker = small::<G>(threads);
        let events = start(&mut worker, Job::new(game.clone(), Limits::infinite()));
        // Let it get going, then stop it.
        let first = events.recv_timeout(PATIENCE).unwrap();
        assert!(matches!(first, Event::Progress(_)), "{first:?}");
        assert!(worker.is_searching());
        let stopped = Instant::now();
        worker.stop();
        let (answer, _) = answer_of(&events);
        assert!(
            stopped.elapsed() < Duration::from_secs(2),
            "took {:?} to stop",
            stopped.elapsed()
        );
        assert_eq!(answer.source, Source::Search);
        assert_legal(&game, &answer);
        worker.wait();
        assert!(!worker.is_searching() && !worker.has_search());
    }
    for_each_game!(check);
}

#[test]
fn an_infinite_search_answers_only_when_stopped() {
    let (fetlar, _, _) = games();
    let mut worker = small::<Tafl>(1);
    let job = Job::new(fetlar.clone(), Limits::infinite().with_nodes(2_000));
    let stop = Arc::clone(&job.stop);
    let events = start(&mut worker, job);
    // The node limit ends the search itself, but the answer waits for the stop flag.
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        !events.try_iter().any(|e| matches!(e, Event::Done(_))),
        "answered before being stopped"
    );
    assert!(worker.has_search());
    stop.store(true, Ordering::SeqCst);
    let (answer, _) = answer_of(&events);
    assert_legal(&fetlar, &answer);
}

#[test]
fn a_finished_game_has_no_move_and_the_worker_keeps_its_engine() {
    // The king on c1 escapes to a1.
    let pos = Position::from_string_with_side("/2K5t2/11/11/11/11/4T6/11/11/11/3t7/11/ defenders")
        .unwrap();
    let mut game = Tafl::from_position(Rules::FETLAR, pos);
    let mut worker = small::<Tafl>(1);
    let answer = worker.think(&game, &Limits::depth(3)).unwrap();
    assert_eq!(game.format_move(answer.result.best_move.unwrap()), "c1-a1");
    game.play(answer.result.best_move.unwrap());
    assert!(game.outcome().is_some());
    let answer = worker.think(&game, &Limits::depth(3)).unwrap();
    assert_eq!(answer.result.best_move, None);
    assert_eq!(answer.source, Source::NoMove);
    assert!(answer.result.pv.is_empty());
    // Settings changed between searches stay.
    worker.engine_mut().set_threads(2);
    let (_, copenhagen, _) = games();
    let answer = worker.think(&copenhagen, &Limits::depth(2)).unwrap();
    assert_eq!(answer.source, Source::Search);
    assert_eq!(answer.result.depth, 2);
    assert_eq!(worker.engine().threads(), 2);
    assert_eq!(worker.engine().hash_mb(), 4);
}

#[test]
fn dropping_a_worker_stops_its_search() {
    let (_, copenhagen, _) = games();
    let mut worker = small::<Tafl>(1);
    let events = start(
        &mut worker,
        Job::new(copenhagen.clone(), Limits::infinite()),
    );
    events.recv_timeout(PATIENCE).unwrap();
    let dropped = Instant::now();
    drop(worker);
    assert!(dropped.elapsed() < Duration::from_secs(2));
    let (answer, _) = answer_of(&events);
    assert_legal(&copenhagen, &answer);
}
