//! Building a game of any kind from command-line options and records, so each command is
//! written once over [`game::Game`].

use anyhow::{Context, Result, bail};
use game::{Game, GameKind, Player};
use tafl::{Position, Rules, Tafl, Variant};

/// A game the command line can set up.
pub trait Setup: games::Board + Sized {
    /// The start position of `kind`, or `position` (the game's position string) with
    /// `side` to move, then `moves` played.
    fn setup(
        kind: GameKind,
        position: Option<&str>,
        side: Option<Player>,
        repetition: bool,
    ) -> Result<Self>;

    /// OpenTafl's rules string for this game's rules and start position, and its board
    /// (OpenTafl's position string, without the side); `None` for games OpenTafl does not
    /// play.
    fn opentafl(&self) -> Option<(String, String)>;
}

fn variant(kind: GameKind) -> Result<Variant> {
    Ok(match kind {
        GameKind::Fetlar => Variant::Fetlar,
        GameKind::Copenhagen => Variant::Copenhagen,
        GameKind::Camelot => bail!("camelot is not a tafl variant"),
    })
}

impl Setup for Tafl {
    fn setup(
        kind: GameKind,
        position: Option<&str>,
        side: Option<Player>,
        repetition: bool,
    ) -> Result<Self> {
        let rules = Rules::new(variant(kind)?).with_repetition(repetition);
        let position = match position {
            None => {
                if side.is_some() {
                    bail!("--side needs --position");
                }
                Position::start()
            }
            Some(text) => {
                let text = text.trim();
                if text.split_whitespace().count() > 1 {
                    Position::from_string_with_side(text)
                        .with_context(|| format!("bad position {text:?}"))?
                } else {
                    let side = side.context(
                        "--position needs --side attackers|defenders (or the side after the position)",
                    )?;
                    Position::from_opentafl(text, side)
                        .with_context(|| format!("bad position {text:?}"))?
                }
            }
        };
        Ok(Tafl::from_position(rules, position))
    }

    fn opentafl(&self) -> Option<(String, String)> {
        Some((
            tafl::otg::rules_string(self.rules().variant, self.start_position()),
            self.position().to_opentafl(),
        ))
    }
}

impl Setup for camelot::Camelot {
    fn setup(
        kind: GameKind,
        position: Option<&str>,
        side: Option<Player>,
        _repetition: bool,
    ) -> Result<Self> {
        if kind != GameKind::Camelot {
            bail!("{kind} is not camelot");
        }
        let Some(text) = position else {
            if side.is_some() {
                bail!("--side needs --position");
            }
            return Ok(camelot::Camelot::start());
        };
        let text = text.trim();
        // A board without the fields after it takes the side from --side.
        let full = if text.contains(char::is_whitespace) {
            text.to_owned()
        } else {
            let side = side.context("--position without a side needs --side white|black")?;
            let letter = if side == Player::First { "w" } else { "b" };
            format!("{text} {letter} 0 0 0")
        };
        let game = camelot::Camelot::from_position_string(&full)
            .with_context(|| format!("bad position {full:?}"))?;
        if let Some(side) = side
            && game.to_move() != side
        {
            bail!(
                "--side {} contradicts the side to move in the position",
                kind.side_name(side)
            );
        }
        Ok(game)
    }

    fn opentafl(&self) -> Option<(String, String)> {
        None
    }
}

/// Plays `moves` (space-separated, the game's notation) from the current position,
/// naming the first bad one.
pub fn play_moves<G: Game>(game: &mut G, moves: &str) -> Result<()> {
    for (i, text) in moves.split_whitespace().enumerate() {
        let mv = game
            .parse_move(text)
            .with_context(|| format!("--moves: move {} ({text})", i + 1))?;
        game.play(mv);
    }
    Ok(())
}
