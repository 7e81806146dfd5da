//! External engines speaking UGI (Kingstable's own protocol, `docs/PROTOCOL.md`), driven
//! through [`crate::client`]. Stateless: each move the engine gets the whole game as
//! `position startpos moves …`.

use std::process::Stdio;
use std::time::Duration;

use engine::Clock;
use game::GameKind;
use games::Board;
use protocol::ugi::Go;

use crate::client::UgiClient;
use crate::contestant::{Choice, Contestant, ContestantError, Limit};
use crate::error::DriverError;
use crate::process::command_line;

/// How long the handshake and other quick commands may take.
const QUICK: Duration = Duration::from_secs(30);
/// Extra time an engine may take beyond its time control before it is declared hung.
const GRACE: Duration = Duration::from_secs(60);

/// A program speaking UGI, started once and reused for every game.
pub struct UgiContestant {
    command: String,
    kind: GameKind,
    client: Option<UgiClient>,
    name: String,
}

impl UgiContestant {
    /// A contestant that runs `command` (split on whitespace) for `kind`; the program
    /// starts with the first game.
    #[must_use]
    pub fn new(command: &str, kind: GameKind) -> Self {
        let program = command.split_whitespace().next().unwrap_or("ugi");
        UgiContestant {
            command: command.to_owned(),
            kind,
            client: None,
            name: program.rsplit('/').next().unwrap_or(program).to_owned(),
        }
    }

    fn client(&mut self) -> Result<&mut UgiClient, DriverError> {
        if self.client.is_none() {
            let mut command = command_line(&self.command, &[] as &[&str])?;
            command.stderr(Stdio::null());
            // The client's error names the program and why it did not start.
            let mut client = UgiClient::from_command(command)?;
            let id = client.handshake(QUICK)?;
            if let Some(name) = &id.name {
                self.name = name.clone();
            }
            client.set_option("Variant", self.kind.as_str(), QUICK)?;
            self.client = Some(client);
        }
        Ok(self.client.as_mut().expect("started above"))
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

impl<G: Board> Contestant<G> for UgiContestant {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn new_game(&mut self, start: &G, _opening: &[G::Move]) -> Result<(), ContestantError> {
        if start.ply() != 0 {
            return Err(
                DriverError::protocol("ugi", "games must start from a fresh position").into(),
            );
        }
        self.client()?.new_game(QUICK).map_err(DriverError::from)?;
        Ok(())
    }

    fn choose(&mut self, game: &G, clock: &Clock, control: Limit) -> Result<Choice, DriverError> {
        let moves = game.move_texts();
        let (go, limit) = match control {
            Limit::MoveTime(time) => (
                Go {
                    movetime: Some(millis(time)),
                    ..Go::default()
                },
                time,
            ),
            Limit::Clock(_) => (
                Go {
                    p1time: Some(millis(clock.remaining[0])),
                    p2time: Some(millis(clock.remaining[1])),
                    p1inc: Some(millis(clock.increment[0])),
                    p2inc: Some(millis(clock.increment[1])),
                    ..Go::default()
                },
                clock.remaining[game.to_move().index()],
            ),
            Limit::Depth(depth) => (Go::depth(depth), Duration::from_secs(600)),
        };
        let client = self.client()?;
        client.set_position(None, &moves, QUICK)?;
        let reply = client.go(&go, limit + GRACE)?;
        let mv = reply
            .bestmove
            .ok_or_else(|| DriverError::protocol("ugi", "the engine answered bestmove none"))?;
        Ok(Choice::Move(mv))
    }

    fn observe(&mut self, _before: &G, _mv: G::Move) -> Result<(), ContestantError> {
        Ok(())
    }
}
