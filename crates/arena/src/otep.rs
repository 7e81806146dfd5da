//! External tafl engines speaking the OpenTafl Engine Protocol (`otep:COMMAND`), driven
//! the way OpenTafl's `ExternalEngineHost` drives them, and the way OpenTafl 0.4.8 running
//! as an engine (`--engine`) needs them driven:
//!
//! - `hello` from the engine, then ours and `rules` with the keys OpenTafl itself writes
//!   (`name:`, `tfr:` …), so both sides judge repetition alike. OpenTafl never answers
//!   `rules`: an answer is waited for only briefly (Kingstable answers `status`, or
//!   `error -1` when it cannot play the rules; an `error -1` at any later time ends the
//!   game too).
//! - An opening as `position <board>` (the board alone: a side word after it crashes
//!   OpenTafl) and `side <side to move>`, as OpenTafl sets up a position.
//! - For each of the engine's moves: `clock`, then `play <side>`, answered `move
//!   <from>-<to>`; `move <board>` once the move went through. An illegal move gets OTEP's
//!   `error 2`, then the previous move and board again (`opponent-move`), `clock` and
//!   `play`: the engine may try again (three times in all).
//! - The other side's moves as `opponent-move <move> <board>`, never within
//!   [`SETTLE`] of the engine's own move (OpenTafl applies its move to its own board only
//!   after writing it, and fails on a move that arrives first).
//! - `finish <code>` with the game's result (1 draw, 2 attackers, 3 defenders, 0 none) and
//!   `goodbye`. A fresh process plays each game; a process that times out is killed and
//!   reaped at once.
//!
//! OTEP has no move-time command: a fixed time per move is sent as a clock in overtime
//! with that much left in the period (and three periods: OpenTafl keeps a whole second
//! back in its last one, and thinks for 0 ms and fails when a period is 1 s); clocks are
//! sent as main time (OTEP clocks have no increment). A fixed depth cannot be asked for.

use std::process::{ChildStdin, Stdio};
use std::time::{Duration, Instant};

use engine::Clock;
use game::{Outcome, Player as Side};
use games::Board;

use crate::contestant::{Choice, Contestant, ContestantError, Limit};
use crate::error::DriverError;
use crate::process::{LineError, Lines, Process, command_line, send_line};

/// How long the greeting may take.
const QUICK: Duration = Duration::from_secs(30);
/// How long an answer to `rules` is waited for (OpenTafl sends none).
const RULES_ANSWER: Duration = Duration::from_millis(500);
/// Extra time an engine may take beyond its time before it is declared hung.
const GRACE: Duration = Duration::from_secs(60);
/// The least time between the engine's move and the next `opponent-move` it is sent.
pub const SETTLE: Duration = Duration::from_millis(100);
/// How many moves the engine may offer for one turn before an illegal one loses.
const TRIES: usize = 3;
/// How long an engine may take to exit after `goodbye` before it is killed.
const EXIT: Duration = Duration::from_millis(500);

fn failure(message: impl Into<String>) -> DriverError {
    DriverError::protocol("otep", message)
}

/// A program speaking the OpenTafl Engine Protocol.
pub struct OtepContestant {
    command: String,
    engine: Option<Engine>,
    /// When the engine's last move arrived.
    moved_at: Option<Instant>,
    /// Extra time beyond its own an engine may take before it is declared hung.
    grace: Duration,
}

/// One game's engine process.
struct Engine {
    process: Process,
    /// Closed once the engine is told goodbye, so a program that quits at the end of
    /// its input quits then.
    stdin: Option<ChildStdin>,
    lines: Lines,
    /// `finish` already sent.
    finished: bool,
    /// Gone: exited or killed, and reaped.
    closed: bool,
}

impl Engine {
    /// Sends `goodbye` (after `finish 0` if no result was sent) and closes the engine's
    /// input, gives it `patience` to exit, then kills it and reaps it.
    fn close(&mut self, patience: Duration) {
        if self.closed {
            return;
        }
        self.closed = true;
        if let Some(mut stdin) = self.stdin.take() {
            if !self.finished {
                let _ = send_line(&mut stdin, "finish 0");
            }
            let _ = send_line(&mut stdin, "goodbye");
        }
        self.process.wait_or_kill(patience);
    }

    /// Writes one line to the engine.
    fn send(&mut self, line: &str) -> std::io::Result<()> {
        match self.stdin.as_mut() {
            Some(stdin) => send_line(stdin, line),
            None => Err(std::io::Error::other("closed")),
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.close(Duration::from_millis(20));
    }
}

fn side_word(side: Side) -> &'static str {
    match side {
        Side::First => "attackers",
        Side::Second => "defenders",
    }
}

/// OTEP's `finish` code for a game's result: 0 no result, 1 draw, 2 the attackers won, 3
/// the defenders won.
#[must_use]
pub fn finish_code(outcome: Option<Outcome>) -> u8 {
    match outcome.map(|o| o.winner) {
        None => 0,
        Some(None) => 1,
        Some(Some(Side::First)) => 2,
        Some(Some(Side::Second)) => 3,
    }
}

impl OtepContestant {
    /// A contestant that runs `command` (split on whitespace) for each game.
    #[must_use]
    pub fn new(command: &str) -> Self {
        OtepContestant {
            command: command.to_owned(),
            engine: None,
            moved_at: None,
            grace: GRACE,
        }
    }

    /// The same contestant allowing `grace` beyond its time before a move is declared
    /// late.
    #[must_use]
    pub fn with_grace(mut self, grace: Duration) -> Self {
        self.grace = grace;
        self
    }

    fn send(&mut self, line: &str) -> Result<(), DriverError> {
        let engine = self.engine.as_mut().ok_or_else(|| failure("not started"))?;
        engine
            .send(line)
            .map_err(|_| failure("the engine closed its input"))
    }

    /// The next line the engine writes that starts with one of `words`, within `limit`
    /// (other lines, such as `status`, are skipped; `error -1`, a critical error, fails).
    /// `Ok(None)` if `patient` is false and nothing came in time. An engine that does
    /// not answer a patient wait, or exits, is killed and reaped at once.
    fn expect_within(
        &mut self,
        words: &[&str],
        limit: Duration,
        patient: bool,
    ) -> Result<Option<String>, DriverError> {
        let engine = self.engine.as_mut().ok_or_else(|| failure("not started"))?;
        let deadline = Instant::now() + limit;
        let error = loop {
            let line = match engine.lines.next_before(deadline) {
                Ok(line) => line,
                Err(LineError::Timeout) if !patient => return Ok(None),
                Err(LineError::Timeout) => {
                    break failure(format!("no {} from the engine in time", words.join("/")));
                }
                Err(LineError::Closed) => break failure("the engine exited"),
            };
            let line = line.trim();
            let first = line.split_whitespace().next();
            if line.starts_with("error -1") {
                break failure(format!("the engine gave up: {line}"));
            }
            if words.iter().any(|w| first == Some(*w)) {
                return Ok(Some(line.to_owned()));
            }
        };
        // Hung or gone: do not leave the process behind.
        self.engine = None;
        Err(error)
    }

    fn expect(&mut self, words: &[&str], limit: Duration) -> Result<String, DriverError> {
        self.expect_within(words, limit, true)?
            .ok_or_else(|| failure("no answer"))
    }

    fn start<G: Board>(&mut self, start: &G) -> Result<(), DriverError> {
        let (rules, _) = start
            .to_any()
            .opentafl()
            .ok_or_else(|| failure("OpenTafl engines play tafl only"))?;
        let mut command = command_line(&self.command, &[] as &[&str])?;
        let (process, stdin, lines) = Process::piped(command.stderr(Stdio::null()))?;
        self.engine = Some(Engine {
            process,
            stdin: Some(stdin),
            lines,
            finished: false,
            closed: false,
        });
        self.expect(&["hello"], QUICK)?;
        self.send("hello")?;
        self.send(&format!("rules {rules}"))?;
        // Kingstable says `status`, or `error -1` for rules it cannot play; OpenTafl says
        // nothing.
        match self.expect_within(&["status"], RULES_ANSWER, false) {
            Ok(_) => Ok(()),
            Err(DriverError::Protocol { message, .. }) => Err(failure(format!(
                "the engine refused the rules {rules:?}: {message}"
            ))),
            Err(err) => Err(err),
        }
    }

    fn board<G: Board>(game: &G) -> Result<String, DriverError> {
        Ok(game
            .to_any()
            .opentafl()
            .ok_or_else(|| failure("not a tafl game"))?
            .1)
    }

    /// Waits until [`SETTLE`] has passed since the engine's own move.
    fn settle(&self) {
        if let Some(at) = self.moved_at {
            let left = SETTLE.saturating_sub(at.elapsed());
            if !left.is_zero() {
                std::thread::sleep(left);
            }
        }
    }

    /// Sends `position <board>` and `side <side to move>` for `game`'s position.
    fn send_position<G: Board>(&mut self, game: &G) -> Result<(), DriverError> {
        let board = Self::board(game)?;
        self.send(&format!("position {board}"))?;
        self.send(&format!("side {}", side_word(game.to_move())))
    }

    /// Tells the engine its move was refused (OTEP `error 2`) and sets the game up again
    /// as OpenTafl does: the previous move with the board, or the position if there was
    /// none.
    fn refuse<G: Board>(&mut self, game: &G) -> Result<(), DriverError> {
        self.send("error 2")?;
        self.settle();
        match game.move_texts().last() {
            Some(previous) => {
                let board = Self::board(game)?;
                self.send(&format!("opponent-move {previous} {board}"))
            }
            None => self.send_position(game),
        }
    }
}

impl<G: Board> Contestant<G> for OtepContestant {
    fn name(&self) -> String {
        let program = self.command.split_whitespace().next().unwrap_or("otep");
        program.rsplit('/').next().unwrap_or(program).to_owned()
    }

    fn new_game(&mut self, start: &G, opening: &[G::Move]) -> Result<(), ContestantError> {
        self.engine = None;
        self.moved_at = None;
        self.start(start)?;
        if !opening.is_empty() {
            // The opening as a position, as OpenTafl sets one up.
            let mut board = start.clone();
            for &mv in opening {
                board.play(mv);
            }
            self.send_position(&board)?;
        }
        Ok(())
    }

    fn choose(&mut self, game: &G, clock: &Clock, control: Limit) -> Result<Choice, DriverError> {
        let side = game.to_move();
        let (clock_line, limit) = match control {
            // Three periods: OpenTafl keeps a whole second back in its last one.
            Limit::MoveTime(time) => (
                format!(
                    "clock {ms}* {ms}* {s} 3 3 ",
                    ms = time.as_millis(),
                    s = time.as_secs().max(1)
                ),
                time,
            ),
            Limit::Clock(_) => (
                format!(
                    "clock {} {} 0 0 0 ",
                    clock.remaining[0].as_millis(),
                    clock.remaining[1].as_millis()
                ),
                clock.remaining[side.index()],
            ),
            Limit::Depth(_) => {
                return Err(failure(
                    "the protocol cannot ask for a depth; use a move time or clocks",
                ));
            }
        };
        let mut tries = 0;
        loop {
            tries += 1;
            self.send(&clock_line)?;
            self.send(&format!("play {}", side_word(side)))?;
            let reply = self.expect(&["move", "error"], limit + self.grace)?;
            self.moved_at = Some(Instant::now());
            let mut words = reply.split_whitespace();
            let text = match (words.next(), words.next()) {
                (Some("move"), Some(mv)) => mv.to_owned(),
                _ => return Err(failure(format!("the engine answered {reply:?}"))),
            };
            match game.parse_move(&text) {
                Ok(mv) => {
                    let mut after = game.clone();
                    after.play(mv);
                    self.send(&format!("move {}", Self::board(&after)?))?;
                    return Ok(Choice::Move(text));
                }
                // The referee rules on the last try.
                Err(_) if tries >= TRIES => return Ok(Choice::Move(text)),
                Err(_) => self.refuse(game)?,
            }
        }
    }

    fn observe(&mut self, before: &G, mv: G::Move) -> Result<(), ContestantError> {
        let mut after = before.clone();
        after.play(mv);
        let board = Self::board(&after)?;
        let text = before.format_move(mv);
        self.settle();
        self.send(&format!("opponent-move {text} {board}"))?;
        Ok(())
    }

    fn finish(&mut self, outcome: Option<Outcome>) {
        self.settle();
        if let Some(mut engine) = self.engine.take() {
            let _ = engine.send(&format!("finish {}", finish_code(outcome)));
            engine.finished = true;
            engine.close(EXIT);
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    //! The driver against a stand-in for OpenTafl 0.4.8 run with `--engine`, shaped as the
    //! recorded conversations show it (`crates/protocol/tests/data/opentafl/`): it greets
    //! with OpenTafl's banner and `hello`, never answers `rules`, dies on `position
    //! <board> <side>` and on an `opponent-move` that comes within 20 ms of its own move,
    //! and plays the moves it is given, one per `play`, writing everything it is sent to
    //! a transcript.

    use std::path::{Path, PathBuf};

    use game::{EndReason, Game};
    use tafl::Tafl;

    use super::*;

    const RECORDED: &str =
        include_str!("../../protocol/tests/data/opentafl/host-rules-unanswered.log");

    const FAKE: &str = r#"transcript=$1; pidfile=$2; banner=$3; shift 3
echo $$ > "$pidfile"
cat "$banner"
moves=("$@"); next=0; moved=0
crash() {
  echo "Uncaught exception! This OpenTafl is running as EXTERNAL_ENGINE"
  echo "Exception: java.lang.ArrayIndexOutOfBoundsException: $1"
  exit 1
}
while IFS= read -r line; do
  printf '%s\n' "$line" >> "$transcript"
  case "$line" in
    "position "*" "*) crash "Index 121 out of bounds for length 121" ;;
    "opponent-move "*)
      now=${EPOCHREALTIME//[.,]/}
      if (( moved > 0 && now - moved < 20000 )); then crash "its own move not yet made"; fi ;;
    "play "*)
      if (( next < ${#moves[@]} )); then
        echo "move ${moves[next]}"; moved=${EPOCHREALTIME//[.,]/}; next=$((next + 1))
        echo "status Finding best state..."
      fi ;;
    goodbye) exit 0 ;;
  esac
done
"#;

    struct Fake {
        dir: PathBuf,
    }

    impl Fake {
        fn new(name: &str) -> Fake {
            let dir = std::env::temp_dir().join(format!(
                "kingstable-otep-fake-{}-{name}",
                std::process::id()
            ));
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("fake.sh"), FAKE).unwrap();
            // What OpenTafl wrote before its hello, as recorded.
            let banner: String = RECORDED
                .lines()
                .filter_map(|l| l.split_once(" < ").map(|(_, text)| format!("{text}\n")))
                .collect();
            assert!(banner.starts_with("OpenTafl v0.4.8") && banner.ends_with("hello\n"));
            std::fs::write(dir.join("banner"), banner).unwrap();
            let _ = std::fs::remove_file(dir.join("transcript"));
            Fake { dir }
        }

        fn player(&self, moves: &[&str]) -> OtepContestant {
            let path = |name: &str| self.dir.join(name).to_string_lossy().into_owned();
            let command = format!(
                "bash {} {} {} {} {}",
                path("fake.sh"),
                path("transcript"),
                path("pid"),
                path("banner"),
                moves.join(" ")
            );
            OtepContestant::new(&command)
        }

        fn transcript(&self) -> Vec<String> {
            std::fs::read_to_string(self.dir.join("transcript"))
                .unwrap_or_default()
                .lines()
                .map(str::to_owned)
                .collect()
        }

        fn pid(&self) -> String {
            std::fs::read_to_string(self.dir.join("pid"))
                .unwrap()
                .trim()
                .to_owned()
        }
    }

    impl Drop for Fake {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }

    fn fetlar() -> Tafl {
        Tafl::new(tafl::Rules::FETLAR)
    }

    fn board(game: &Tafl) -> String {
        game.position().to_opentafl()
    }

    fn play(game: &mut Tafl, text: &str) -> tafl::Move {
        let mv = game.parse_move(text).unwrap();
        game.play(mv);
        mv
    }

    const MOVE_TIME: Limit = Limit::MoveTime(Duration::from_millis(1000));

    #[test]
    fn a_game_as_opentafl_needs_it() {
        let fake = Fake::new("game");
        // Its first answer is illegal (no piece on a1): it is refused and asked again.
        let mut player = fake.player(&["a1-a2", "e5-e2", "f4-c4"]);
        let start = fetlar();
        let mut game = start.clone();
        let opening = [play(&mut game, "d1-d3")];
        let started = Instant::now();
        Contestant::<Tafl>::new_game(&mut player, &start, &opening).unwrap();
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "no waiting for an answer to rules: {:?}",
            started.elapsed()
        );
        let after_opening = board(&game);
        let clock = Clock::default();
        let choice = player.choose(&game, &clock, MOVE_TIME).unwrap();
        assert_eq!(choice, Choice::Move("e5-e2".into()));
        play(&mut game, "e5-e2");
        let after_reply = board(&game);
        // The other side answers at once: the driver holds it back until OpenTafl has
        // made its own move.
        let before = game.clone();
        let mv = play(&mut game, "g1-g3");
        player.observe(&before, mv).unwrap();
        let after_g1g3 = board(&game);
        let choice = player.choose(&game, &clock, MOVE_TIME).unwrap();
        assert_eq!(choice, Choice::Move("f4-c4".into()));
        play(&mut game, "f4-c4");
        let after_f4c4 = board(&game);
        Contestant::<Tafl>::finish(
            &mut player,
            Some(Outcome::win(Side::Second, EndReason::Resignation)),
        );
        let rules = start.to_any().opentafl().unwrap().0;
        assert!(
            rules.starts_with("dim:11 name:Fetlar atkf:y start:"),
            "{rules}"
        );
        let clock_line = "clock 1000* 1000* 1 3 3 ";
        assert_eq!(
            fake.transcript(),
            [
                "hello".to_owned(),
                format!("rules {rules}"),
                format!("position {after_opening}"),
                "side defenders".to_owned(),
                clock_line.to_owned(),
                "play defenders".to_owned(),
                "error 2".to_owned(),
                format!("opponent-move d1-d3 {after_opening}"),
                clock_line.to_owned(),
                "play defenders".to_owned(),
                format!("move {after_reply}"),
                format!("opponent-move g1-g3 {after_g1g3}"),
                clock_line.to_owned(),
                "play defenders".to_owned(),
                format!("move {after_f4c4}"),
                "finish 3".to_owned(),
                "goodbye".to_owned(),
            ]
        );
    }

    #[test]
    fn illegal_moves_end_the_game_after_three_tries() {
        let fake = Fake::new("illegal");
        let mut player = fake.player(&["a1-a2", "a1-a3", "k11-k10"]);
        let start = fetlar();
        Contestant::<Tafl>::new_game(&mut player, &start, &[]).unwrap();
        let choice = player.choose(&start, &Clock::default(), MOVE_TIME).unwrap();
        // The referee rules on the third: an illegal move, the game lost.
        assert_eq!(choice, Choice::Move("k11-k10".into()));
        let transcript = fake.transcript();
        let errors = transcript.iter().filter(|l| *l == "error 2").count();
        assert_eq!(errors, 2, "{transcript:?}");
        // No move before: the start position is set up again, board alone.
        assert!(transcript.contains(&format!("position {}", board(&start))));
        assert!(transcript.contains(&"side attackers".to_owned()));
    }

    #[test]
    fn a_hung_engine_is_killed_and_reaped() {
        let fake = Fake::new("hung");
        // It has no move to give: it never answers `play`.
        let mut player = fake.player(&[]).with_grace(Duration::from_millis(300));
        let start = fetlar();
        Contestant::<Tafl>::new_game(&mut player, &start, &[]).unwrap();
        let pid = fake.pid();
        assert!(Path::new(&format!("/proc/{pid}")).exists() || !cfg!(target_os = "linux"));
        let control = Limit::MoveTime(Duration::from_millis(100));
        let err = player
            .choose(&start, &Clock::default(), control)
            .unwrap_err();
        assert!(err.to_string().contains("in time"), "{err}");
        if cfg!(target_os = "linux") {
            assert!(
                !Path::new(&format!("/proc/{pid}")).exists(),
                "process {pid} left behind"
            );
        }
    }

    #[test]
    fn an_engine_that_quits_at_the_end_of_its_input_is_not_killed() {
        // It greets, then reads until its input ends and says so on its way out; a
        // killed process would not get to write that.
        let dir = std::env::temp_dir().join(format!("kingstable-otep-eof-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("log");
        let script = dir.join("engine.sh");
        std::fs::write(
            &script,
            format!(
                "echo hello\nwhile IFS= read -r line; do echo \"$line\" >> {log}; done\nsleep 0.2\necho 'input ended' >> {log}\n",
                log = log.display()
            ),
        )
        .unwrap();
        let mut player =
            OtepContestant::new(&format!("bash {}", script.display())).with_grace(Duration::ZERO);
        let start = fetlar();
        Contestant::<Tafl>::new_game(&mut player, &start, &[]).unwrap();
        Contestant::<Tafl>::finish(&mut player, None);
        let said = std::fs::read_to_string(&log).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        let lines: Vec<&str> = said.lines().collect();
        assert_eq!(
            lines[lines.len() - 3..],
            ["finish 0", "goodbye", "input ended"],
            "{said}"
        );
    }

    #[test]
    fn finish_codes() {
        assert_eq!(finish_code(None), 0);
        assert_eq!(finish_code(Some(Outcome::draw(EndReason::Repetition))), 1);
        assert_eq!(
            finish_code(Some(Outcome::win(Side::First, EndReason::KingCaptured))),
            2
        );
        assert_eq!(
            finish_code(Some(Outcome::loss(Side::First, EndReason::Timeout))),
            3
        );
    }
}
