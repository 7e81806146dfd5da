//! OpenTafl game records (`.otg`) and rules strings.
//!
//! A record is `[tag:value]` lines (the `rules` tag last), a blank line, then numbered
//! moves `1. d1-d3 h6-h9`; the text layer is [`game::record`]. The `rules` tag is an
//! OpenTafl rules string: space-separated `key:value` pairs such as
//! `dim:11 atkf:y sw:s efe:y start:/3ttttt3/…/`. Kingstable recognises the two variants it
//! plays: Copenhagen is the 11x11 corner-escape game with shieldwalls (`sw`) or edge-fort
//! escapes (`efe:y`), Fetlar the same game without them. Other settings (edge escape,
//! unarmed or weak king, other board sizes, defenders first) are refused with a reason.
//!
//! ```
//! use tafl::otg::{OpenTaflRules, rules_string};
//! use tafl::{Position, Variant};
//!
//! let text = rules_string(Variant::Copenhagen, &Position::start());
//! assert!(text.starts_with("dim:11 atkf:y sw:s efe:y start:/3ttttt3/"));
//! let rules: OpenTaflRules = text.parse().unwrap();
//! assert_eq!(rules.variant, Variant::Copenhagen);
//! assert_eq!(rules.start, Some(Position::start()));
//! ```

use std::str::FromStr;

use game::record::{Record, TagStyle, write_record};
use game::{Game, Outcome, Player};

use crate::game::Tafl;
use crate::position::{ATTACKERS, DEFENDERS, Position, PositionError};
use crate::rules::{Rules, Variant};

/// What an OpenTafl rules string says, as far as Kingstable plays it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenTaflRules {
    /// The variant the string describes.
    pub variant: Variant,
    /// The start position (`start:` key), side to move set by `atkf`.
    pub start: Option<Position>,
}

/// Why an OpenTafl rules string is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RulesStringError {
    /// A setting Kingstable does not play.
    #[error("unsupported rules: {key}:{value} ({why})")]
    Unsupported {
        /// The key.
        key: String,
        /// Its value.
        value: String,
        /// What it means.
        why: &'static str,
    },
    /// The start position is not a tafl position. The reason is part of the message,
    /// not a separate source, so that printing the error chain does not repeat it.
    #[error("bad start position: {0}")]
    Start(PositionError),
}

impl From<PositionError> for RulesStringError {
    fn from(err: PositionError) -> Self {
        RulesStringError::Start(err)
    }
}

impl FromStr for OpenTaflRules {
    type Err = RulesStringError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut copenhagen = false;
        let mut attackers_first = true;
        let mut start_text = None;
        for part in text.split_whitespace() {
            let (key, value) = part.split_once(':').unwrap_or((part, ""));
            let unsupported = |why| {
                Err(RulesStringError::Unsupported {
                    key: key.to_owned(),
                    value: value.to_owned(),
                    why,
                })
            };
            match (key, value) {
                ("dim", "11") => {}
                ("dim", _) => return unsupported("only 11x11 boards are played"),
                ("esc", "c") | ("surf", "y") | ("ka", "y") | ("ks", "y") | ("kj", "n") => {}
                ("esc", _) => return unsupported("only corner escape is played"),
                ("ka", _) => return unsupported("the king is armed in Fetlar and Copenhagen"),
                ("ks", _) | ("kj", _) => {
                    return unsupported("the king is captured on four sides and cannot jump");
                }
                ("atkf", v) => attackers_first = v != "n",
                ("sw", "n") | ("efe", "n") => {}
                ("sw", _) | ("efe", "y") => copenhagen = true,
                ("start", v) => start_text = Some(v),
                // Repetition, hostility and other fine print: Kingstable applies TAFL.md.
                _ => {}
            }
        }
        let side = if attackers_first {
            ATTACKERS
        } else {
            DEFENDERS
        };
        let start = start_text
            .map(|s| Position::from_opentafl(s, side))
            .transpose()?;
        Ok(OpenTaflRules {
            variant: if copenhagen {
                Variant::Copenhagen
            } else {
                Variant::Fetlar
            },
            start,
        })
    }
}

/// The OpenTafl rules string for `variant` starting from `start`.
#[must_use]
pub fn rules_string(variant: Variant, start: &Position) -> String {
    let mut out = String::from("dim:11 ");
    if start.side_to_move() == DEFENDERS {
        out.push_str("atkf:n ");
    } else {
        out.push_str("atkf:y ");
    }
    if variant == Variant::Copenhagen {
        out.push_str("sw:s efe:y ");
    }
    out.push_str("start:");
    out.push_str(&start.to_opentafl());
    out
}

/// OpenTafl's `result` tag value: `1` attackers won, `-1` defenders won, `0` draw, `?`
/// not finished.
#[must_use]
pub fn result_tag(outcome: Option<Outcome>) -> &'static str {
    match outcome.map(|o| o.winner) {
        Some(Some(Player::First)) => "1",
        Some(Some(Player::Second)) => "-1",
        Some(None) => "0",
        None => "?",
    }
}

/// Writes `game` as an OpenTafl record: the caller's `tags` (in order, except any
/// `result` or `rules` tag), then `result` (from `outcome`, or the game's own outcome) and
/// `rules` last, as OpenTafl does; then the numbered moves with their captures.
#[must_use]
pub fn write_game(game: &Tafl, tags: &[(String, String)], outcome: Option<Outcome>) -> String {
    let outcome = outcome.or(game.outcome());
    let mut all: Vec<(String, String)> = tags
        .iter()
        .filter(|(k, _)| !k.eq_ignore_ascii_case("result") && !k.eq_ignore_ascii_case("rules"))
        .cloned()
        .collect();
    all.push(("result".into(), result_tag(outcome).into()));
    all.push((
        "rules".into(),
        rules_string(game.rules().variant, game.start_position()),
    ));
    let second_starts = game.start_position().side_to_move() == DEFENDERS;
    write_record(
        &all,
        TagStyle::Colon,
        &game.move_texts(),
        second_starts,
        None,
    )
}

/// The rules and start position a record describes: its `rules` tag if it has one
/// (which must agree with `rules.variant`), else the standard start.
pub fn start_of(record: &Record, rules: Rules) -> Result<Position, RecordRulesError> {
    let Some(tag) = record.tag("rules") else {
        return Ok(Position::start());
    };
    let described: OpenTaflRules = tag.parse()?;
    if described.variant != rules.variant {
        return Err(RecordRulesError::Mismatch {
            record: described.variant,
            asked: rules.variant,
        });
    }
    Ok(described.start.unwrap_or_else(Position::start))
}

/// Why a record's rules cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RecordRulesError {
    /// The rules tag is refused. The reason is part of the message, not a separate
    /// source, so that printing the error chain does not repeat it.
    #[error("rules tag: {0}")]
    Rules(RulesStringError),
    /// The rules tag names another variant than the one asked for.
    #[error("the record's rules tag describes {record}, but {asked} was asked for")]
    Mismatch {
        /// What the record says.
        record: Variant,
        /// What the caller asked for.
        asked: Variant,
    },
}

impl From<RulesStringError> for RecordRulesError {
    fn from(err: RulesStringError) -> Self {
        RecordRulesError::Rules(err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_rules_tag_is_said_once() {
        // The reason is part of the message, and not also a source: printing the error
        // with its sources (as `anyhow` does) says it once.
        let err = RecordRulesError::from("dim:13 atkf:y".parse::<OpenTaflRules>().unwrap_err());
        assert_eq!(
            err.to_string(),
            "rules tag: unsupported rules: dim:13 (only 11x11 boards are played)"
        );
        assert!(std::error::Error::source(&err).is_none());
        let err = "dim:11 start:/11/".parse::<OpenTaflRules>().unwrap_err();
        assert!(err.to_string().starts_with("bad start position: "), "{err}");
        assert!(std::error::Error::source(&err).is_none());
    }

    #[test]
    fn fetlar_rules_strings_are_recognised() {
        let rules: OpenTaflRules = "dim:11 atkf:y start:/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/"
            .parse()
            .unwrap();
        assert_eq!(rules.variant, Variant::Fetlar);
    }

    #[test]
    fn other_variants_are_refused_with_a_reason() {
        for (text, why) in [
            ("dim:9 start:/", "11x11"),
            ("dim:11 esc:e", "corner escape"),
            ("dim:11 ka:n", "armed"),
            ("dim:11 ks:n", "four sides"),
        ] {
            let err = text.parse::<OpenTaflRules>().unwrap_err();
            assert!(err.to_string().contains(why), "{text}: {err}");
        }
    }

    #[test]
    fn written_games_read_back() {
        let mut game = Tafl::new(Rules::COPENHAGEN);
        for text in ["d1-d3", "e5-e2", "g1-g3", "f4-c4", "g3-e3"] {
            let mv = game.parse_move(text).unwrap();
            game.play(mv);
        }
        let tags = vec![("event".to_owned(), "Test".to_owned())];
        let text = write_game(&game, &tags, None);
        assert!(text.contains("[result:?]\n[rules:dim:11 atkf:y sw:s efe:y start:"));
        assert!(text.ends_with("3. g3-e3xe2\n"), "{text}");
        let record = &game::record::parse_records(&text).unwrap()[0];
        assert_eq!(record.moves, game.move_texts());
        assert_eq!(
            start_of(record, Rules::COPENHAGEN).unwrap(),
            Position::start()
        );
    }

    #[test]
    fn result_tags() {
        assert_eq!(result_tag(None), "?");
        let won = Outcome::win(DEFENDERS, game::EndReason::CornerEscape);
        assert_eq!(result_tag(Some(won)), "-1");
    }
}
