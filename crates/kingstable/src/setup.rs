//! Building a game of any kind from command-line options and records, so each command is
//! written once over [`game::Game`].

use anyhow::{Context, Result, bail};
use game::record::Record;
use game::{EndReason, Game, GameKind, Outcome, Player};
use tafl::{Position, Rules, Tafl, Variant};

/// A game the command line can set up.
pub trait Setup: Game + Sized {
    /// The start position of `kind`, or `position` (the game's position string) with
    /// `side` to move, then `moves` played.
    fn setup(
        kind: GameKind,
        position: Option<&str>,
        side: Option<Player>,
        repetition: bool,
    ) -> Result<Self>;

    /// The start of a recorded game (its tags may set up the position).
    fn from_record(kind: GameKind, record: &Record, repetition: bool) -> Result<Self>;

    /// The moves played so far in the game's notation, with captures.
    fn move_texts(&self) -> Vec<String>;

    /// The game as a record in the game's own format (OpenTafl `.otg` for tafl, a WCF
    /// score for Camelot), with `tags` and `outcome` (which may come from outside the
    /// rules: time, resignation).
    fn write_record(&self, tags: &[(String, String)], outcome: Option<Outcome>) -> String;

    /// OpenTafl's rules string for this game's rules and start position, and its board
    /// (OpenTafl's position string, without the side); `None` for games OpenTafl does not
    /// play.
    fn opentafl(&self) -> Option<(String, String)>;

    /// A new game from this one's position under another repetition rule (tafl only).
    fn with_repetition_rule(&self, rule: tafl::Repetition) -> Result<Self>;
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

    fn from_record(kind: GameKind, record: &Record, repetition: bool) -> Result<Self> {
        let rules = Rules::new(variant(kind)?).with_repetition(repetition);
        // The record's own repetition rule (OpenTafl's `tfr:`), if its rules tag has one.
        let (rules, start) = tafl::otg::setup_of(record, rules)?;
        Ok(Tafl::from_position(rules, start))
    }

    fn move_texts(&self) -> Vec<String> {
        Tafl::move_texts(self)
    }

    fn write_record(&self, tags: &[(String, String)], outcome: Option<Outcome>) -> String {
        let mut tags = tags.to_vec();
        if let Some(reason) = outside_rules(outcome)
            && !tags
                .iter()
                .any(|(k, _)| k.eq_ignore_ascii_case("termination"))
        {
            tags.push(("termination".into(), reason.into()));
        }
        tafl::otg::write_game(self, &tags, outcome)
    }

    fn with_repetition_rule(&self, rule: tafl::Repetition) -> Result<Self> {
        let rules = self.rules().with_repetition_rule(rule);
        Ok(Tafl::from_position(rules, *self.position()))
    }

    fn opentafl(&self) -> Option<(String, String)> {
        Some((
            tafl::otg::rules_string_for(self.rules(), self.start_position()),
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

    fn from_record(kind: GameKind, record: &Record, _repetition: bool) -> Result<Self> {
        if kind != GameKind::Camelot {
            bail!("{kind} is not camelot");
        }
        let game = match record.tag(camelot::record::FEN_TAG) {
            Some(text) => camelot::Camelot::from_position_string(text)
                .with_context(|| format!("bad {} tag", camelot::record::FEN_TAG))?,
            None => camelot::Camelot::start(),
        };
        if record.second_player_starts && game.to_move() == Player::First {
            bail!("the score starts with a Black move (1...) but White is to move");
        }
        Ok(game)
    }

    fn move_texts(&self) -> Vec<String> {
        camelot::Camelot::move_texts(self)
    }

    fn write_record(&self, tags: &[(String, String)], outcome: Option<Outcome>) -> String {
        let mut tags = tags.to_vec();
        let result = outcome.map(|o| match o.winner {
            Some(Player::First) => "1-0",
            Some(Player::Second) => "0-1",
            None => "1/2-1/2",
        });
        if let Some(reason) = outside_rules(outcome)
            && !tags
                .iter()
                .any(|(k, _)| k.eq_ignore_ascii_case("Termination"))
        {
            tags.push(("Termination".into(), reason.into()));
        }
        if let Some(result) = result
            && !tags.iter().any(|(k, _)| k.eq_ignore_ascii_case("Result"))
        {
            tags.push(("Result".into(), result.into()));
        }
        camelot::record::write_score_with_result(self, &tags, result)
    }

    fn with_repetition_rule(&self, _rule: tafl::Repetition) -> Result<Self> {
        bail!("the repetition rule is chosen for tafl only (Camelot's is a draw)")
    }

    fn opentafl(&self) -> Option<(String, String)> {
        None
    }
}

/// How a game ended outside the rules, for a record's termination tag.
fn outside_rules(outcome: Option<Outcome>) -> Option<&'static str> {
    match outcome?.reason {
        EndReason::Timeout => Some("time forfeit"),
        EndReason::Resignation => Some("resignation"),
        EndReason::Agreement => Some("draw agreed"),
        EndReason::Adjudication => Some("adjudication"),
        _ => None,
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
