//! External engines speaking UGI (Kingstable's own protocol, `docs/PROTOCOL.md`), driven
//! through `protocol::client`. Stateless: each move the engine gets the whole game as
//! `position startpos moves …`.

use std::time::Duration;

use anyhow::{Context, Result};
use engine::Clock;
use game::GameKind;
use protocol::client::UgiClient;
use protocol::ugi::Go;

use super::player::{Choice, Limit, Player, PlayerError};
use games::Board;

/// How long the handshake and other quick commands may take.
const QUICK: Duration = Duration::from_secs(30);
/// Extra time an engine may take beyond its time control before it is declared hung.
const GRACE: Duration = Duration::from_secs(60);

/// A program speaking UGI, started once and reused for every game.
pub struct UgiPlayer {
    command: String,
    kind: GameKind,
    client: Option<UgiClient>,
    name: String,
}

impl UgiPlayer {
    /// A player that runs `command` (split on whitespace) for `kind`.
    pub fn new(command: &str, kind: GameKind) -> Result<Self> {
        let program = command
            .split_whitespace()
            .next()
            .context("ugi: empty command")?;
        Ok(UgiPlayer {
            command: command.to_owned(),
            kind,
            client: None,
            name: program.rsplit('/').next().unwrap_or(program).to_owned(),
        })
    }

    fn client(&mut self) -> Result<&mut UgiClient> {
        if self.client.is_none() {
            let mut words = self.command.split_whitespace();
            let program = words.next().context("ugi: empty command")?;
            // The client's error names the program and why it did not start.
            let mut client = UgiClient::spawn(program, words)?;
            let id = client.handshake(QUICK)?;
            if let Some(name) = &id.name {
                self.name = name.clone();
            }
            client.set_option("Variant", self.kind.as_str(), QUICK)?;
            self.client = Some(client);
        }
        self.client.as_mut().context("ugi: not started")
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

impl<G: Board> Player<G> for UgiPlayer {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn new_game(&mut self, start: &G, _opening: &[G::Move]) -> Result<(), PlayerError> {
        if start.ply() != 0 {
            return Err(PlayerError::Failed(anyhow::anyhow!(
                "ugi: games must start from a fresh position"
            )));
        }
        self.client()?
            .new_game(QUICK)
            .map_err(|e| PlayerError::Failed(e.into()))
    }

    fn choose(&mut self, game: &G, clock: &Clock, control: Limit) -> Result<Choice> {
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
            .context("ugi: the engine answered bestmove none")?;
        Ok(Choice::Move(mv))
    }

    fn observe(&mut self, _before: &G, _mv: G::Move) -> Result<(), PlayerError> {
        Ok(())
    }
}
