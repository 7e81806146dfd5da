//! OpenTafl game records (`.otg`) and rules strings.
//!
//! A record is `[tag:value]` lines (the `rules` tag last), a blank line, then numbered
//! moves `1. d1-d3 h6-h9`, each turn optionally followed by OpenTafl's comment line
//! (`[|]`, `[]`, or the clocks `[0 5/3 0i |0 5/3 0i ]`); the text layer is
//! [`game::record`]. The `rules` tag is an OpenTafl rules string: space-separated
//! `key:value` pairs such as `dim:11 name:Copenhagen atkf:y tfr:w sw:s efe:y start:/3ttttt3/…/`
//! (`starti:` gives the start position with its ranks in reverse order).
//!
//! Kingstable recognises the two variants it plays: Copenhagen is the 11x11 corner-escape
//! game with strong shieldwalls and edge-fort escapes (`sw:s efe:y`), Fetlar the same game
//! without either. The repetition key `tfr` is honoured ([`Repetition`]); without it a
//! string means the variant's own rule as TAFL.md states it (a draw in Fetlar, as
//! OpenTafl's default; the attackers' win in Copenhagen, which OpenTafl cannot spell).
//! Every other key must have a value that describes these games (OpenTafl's defaults, for
//! the keys OpenTafl leaves out); an unknown key, another value, or a string without
//! `dim` is refused with a reason.
//!
//! ```
//! use tafl::otg::{OpenTaflRules, rules_string, rules_string_for};
//! use tafl::{Position, Repetition, Rules, Variant};
//!
//! let text = rules_string(Variant::Copenhagen, &Position::start());
//! assert!(text.starts_with("dim:11 name:Copenhagen atkf:y sw:s efe:y start:/3ttttt3/"));
//! let rules: OpenTaflRules = text.parse().unwrap();
//! assert_eq!(rules.variant, Variant::Copenhagen);
//! assert_eq!(rules.rules(), Rules::COPENHAGEN);
//! assert_eq!(rules.start, Some(Position::start()));
//!
//! // OpenTafl's own Copenhagen: whoever makes the third repetition loses.
//! let opentafl = Rules::COPENHAGEN.with_repetition_rule(Repetition::MoverLoses);
//! let text = rules_string_for(opentafl, &Position::start());
//! assert!(text.starts_with("dim:11 name:Copenhagen atkf:y tfr:w sw:s efe:y start:"));
//! assert_eq!(text.parse::<OpenTaflRules>().unwrap().rules(), opentafl);
//! assert!("nonsense".parse::<OpenTaflRules>().is_err());
//! ```

use std::str::FromStr;

use game::record::{Record, TagKey, TagStyle, termination_text, write_record};
use game::{Game, Outcome, Player};

use crate::game::Tafl;
use crate::position::{ATTACKERS, DEFENDERS, Position, PositionError};
use crate::rules::{Repetition, Rules, Variant};

/// What an OpenTafl rules string says, as far as Kingstable plays it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenTaflRules {
    /// The variant the string describes.
    pub variant: Variant,
    /// The start position (`start:` or `starti:` key), side to move set by `atkf`.
    pub start: Option<Position>,
    /// The repetition rule of the `tfr` key, if the string has one.
    pub repetition: Option<Repetition>,
}

impl OpenTaflRules {
    /// The rules to play: the variant with the string's repetition rule (the variant's own
    /// when it names none).
    #[must_use]
    pub fn rules(&self) -> Rules {
        let rules = Rules::new(self.variant);
        match self.repetition {
            Some(repetition) => rules.with_repetition_rule(repetition),
            None => rules,
        }
    }
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
    /// A word that is not `key:value`, or a key OpenTafl rules strings do not have.
    #[error("unsupported rules: {0:?} is not an OpenTafl rules entry (key:value)")]
    Unknown(String),
    /// A required key is missing.
    #[error("unsupported rules: no {0}")]
    Missing(&'static str),
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

/// Whether a piece-type list (`tcnkmTCNKM`) names exactly the pieces of `wanted` among
/// the three Kingstable has (`t` attacker, `T` defender, `K` king); the other letters
/// are pieces that cannot be on the board.
fn pieces_are(list: &str, wanted: &str) -> bool {
    "tTK"
        .chars()
        .all(|c| list.contains(c) == wanted.contains(c))
}

/// `why` unless `ok`.
fn unless(ok: bool, why: &'static str) -> Option<&'static str> {
    (!ok).then_some(why)
}

/// Whether every number of a speed-limit list is -1 (no limit).
fn no_speed_limit(list: &str) -> bool {
    list.split(',').all(|n| n.trim() == "-1")
}

/// A space list that is the given squares, in any order (`default` is accepted too).
fn spaces_are(list: &str, squares: &[&str]) -> bool {
    if list == "default" {
        return true;
    }
    let mut given: Vec<&str> = list.split(',').filter(|s| !s.is_empty()).collect();
    given.sort_unstable();
    given.dedup();
    let mut wanted = squares.to_vec();
    wanted.sort_unstable();
    given == wanted
}

/// The start position of an inverted (`starti:`) position record: its ranks reversed.
fn uninvert(text: &str) -> String {
    let ranks: Vec<&str> = text.split('/').filter(|r| !r.is_empty()).collect();
    let mut out = String::from("/");
    for rank in ranks.iter().rev() {
        out.push_str(rank);
        out.push('/');
    }
    out
}

impl FromStr for OpenTaflRules {
    type Err = RulesStringError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut dim = false;
        let mut shieldwall = false;
        let mut fort = false;
        let mut attackers_first = true;
        let mut repetition = None;
        let mut start_text = None;
        for part in text.split_whitespace() {
            let Some((key, value)) = part.split_once(':') else {
                return Err(RulesStringError::Unknown(part.to_owned()));
            };
            // `Some(why)` refuses the value.
            let refused = match key {
                "dim" => {
                    dim = true;
                    unless(value == "11", "only 11x11 boards are played")
                }
                "name" => None,
                "esc" => unless(value == "c", "only corner escape is played"),
                "surf" => unless(value == "y", "encirclement wins for the attackers"),
                "atkf" => {
                    attackers_first = value != "n";
                    unless(matches!(value, "y" | "n"), "y or n")
                }
                "tfr" => {
                    repetition = Repetition::from_opentafl_key(value);
                    unless(repetition.is_some(), "w, l, d or i")
                }
                "ka" => unless(value == "y", "the king is armed in Fetlar and Copenhagen"),
                "ks" => unless(
                    matches!(value, "s" | "y"),
                    "the king is captured on four sides, never on the edge",
                ),
                "kj" => unless(value == "n", "the king cannot jump"),
                // Knights, commanders, mercenaries and guards: pieces the start position
                // cannot hold (it is refused if it has them). Fortress settings mean
                // nothing without fortresses; nothing passes through a corner, which
                // ends every line.
                "nj" | "cj" | "mj" | "gj" | "aforh" | "dforh" | "aforp" | "dforp" | "afors"
                | "dfors" | "aforre" | "dforre" | "corp" => None,
                "spd" => unless(no_speed_limit(value), "pieces move any distance"),
                "cor" => unless(
                    spaces_are(value, &["a1", "k1", "a11", "k11"]),
                    "the corners are a1, k1, a11 and k11",
                ),
                "cen" => unless(spaces_are(value, &["f6"]), "the throne is f6"),
                "afor" | "dfor" => unless(value.is_empty(), "there are no fortresses"),
                "corh" => unless(
                    pieces_are(value, "tTK"),
                    "the corners are hostile to every piece",
                ),
                "cenh" => unless(
                    pieces_are(value, "t"),
                    "the occupied throne is hostile to attackers only",
                ),
                "cenhe" => unless(
                    pieces_are(value, "tTK"),
                    "the empty throne is hostile to every piece",
                ),
                "cenp" => unless(
                    pieces_are(value, "tTK"),
                    "every piece may pass the empty throne",
                ),
                "cors" | "cens" => unless(
                    pieces_are(value, "K"),
                    "only the king may stop on a corner or the throne",
                ),
                "corre" | "cenre" => unless(
                    value.contains('K'),
                    "the king may enter the corners and the throne",
                ),
                "sw" => {
                    shieldwall = value == "s";
                    unless(
                        matches!(value, "s" | "n"),
                        "shieldwalls may be closed by a corner (sw:s)",
                    )
                }
                "swf" => unless(
                    value == "y",
                    "only a move that closes a shieldwall's flank captures",
                ),
                "efe" => {
                    fort = value == "y";
                    unless(matches!(value, "y" | "n"), "y or n")
                }
                "linc" => unless(value == "n", "there is no Linnaean capture"),
                "ber" => unless(value == "n", "berserk tafl is not played"),
                "start" => {
                    start_text = Some(value.to_owned());
                    None
                }
                "starti" => {
                    start_text = Some(uninvert(value));
                    None
                }
                _ => return Err(RulesStringError::Unknown(part.to_owned())),
            };
            if let Some(why) = refused {
                return Err(RulesStringError::Unsupported {
                    key: key.to_owned(),
                    value: value.to_owned(),
                    why,
                });
            }
        }
        if !dim {
            return Err(RulesStringError::Missing("dim: key (the board size)"));
        }
        let variant = match (shieldwall, fort) {
            (true, true) => Variant::Copenhagen,
            (false, false) => Variant::Fetlar,
            (true, false) => {
                return Err(RulesStringError::Unsupported {
                    key: "efe".into(),
                    value: "n".into(),
                    why: "shieldwalls come with the exit fort (Copenhagen) or not at all (Fetlar)",
                });
            }
            (false, true) => {
                return Err(RulesStringError::Unsupported {
                    key: "sw".into(),
                    value: "n".into(),
                    why: "the exit fort comes with shieldwalls (Copenhagen) or not at all (Fetlar)",
                });
            }
        };
        let side = if attackers_first {
            ATTACKERS
        } else {
            DEFENDERS
        };
        let start = start_text
            .map(|s| Position::from_opentafl(&s, side))
            .transpose()?;
        Ok(OpenTaflRules {
            variant,
            start,
            repetition,
        })
    }
}

/// The OpenTafl rules string for `variant` (its own repetition rule) starting from
/// `start`.
#[must_use]
pub fn rules_string(variant: Variant, start: &Position) -> String {
    rules_string_for(Rules::new(variant), start)
}

/// The OpenTafl rules string for `rules` starting from `start`, with the keys OpenTafl
/// writes for its own Fetlar and Copenhagen: `dim`, `name`, `atkf`, `tfr` (left out for
/// the variant's own rule, as OpenTafl leaves out its default), `sw`, `efe`, `start`.
#[must_use]
pub fn rules_string_for(rules: Rules, start: &Position) -> String {
    let mut out = String::from("dim:11 name:");
    out.push_str(match rules.variant {
        Variant::Fetlar => "Fetlar",
        Variant::Copenhagen => "Copenhagen",
    });
    if start.side_to_move() == DEFENDERS {
        out.push_str(" atkf:n");
    } else {
        out.push_str(" atkf:y");
    }
    if rules.repetition != Repetition::of_variant(rules.variant)
        && let Some(key) = rules.repetition.opentafl_key()
    {
        out.push_str(" tfr:");
        out.push_str(key);
    }
    if rules.variant == Variant::Copenhagen {
        out.push_str(" sw:s efe:y");
    }
    out.push_str(" start:");
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

/// The file extension of OpenTafl records.
pub const EXTENSION: &str = "otg";

/// How OpenTafl records spell Kingstable's tags: lowercase, `attackers`/`defenders` for
/// the players (`[attackers:Alice]`).
#[must_use]
pub const fn tag_name(key: TagKey) -> &'static str {
    match key {
        TagKey::Event => "event",
        TagKey::Date => "date",
        TagKey::FirstPlayer => "attackers",
        TagKey::SecondPlayer => "defenders",
        TagKey::TimeControl => "time-control",
        TagKey::Termination => "termination",
        TagKey::Result => "result",
    }
}

/// Writes `game` as an OpenTafl record: the caller's `tags` (in order, except any
/// `result` or `rules` tag), a `termination` tag when `outcome` is an ending outside the
/// rules (time, resignation, agreement, adjudication) and the tags name none, then
/// `result` (from `outcome`, or the game's own outcome) and `rules` last, as OpenTafl
/// does; then the numbered moves with their captures.
#[must_use]
pub fn write_game(game: &Tafl, tags: &[(String, String)], outcome: Option<Outcome>) -> String {
    let outcome = outcome.or(game.outcome());
    let has = |key: &str| tags.iter().any(|(k, _)| k.eq_ignore_ascii_case(key));
    let mut all: Vec<(String, String)> = tags
        .iter()
        .filter(|(k, _)| !k.eq_ignore_ascii_case("result") && !k.eq_ignore_ascii_case("rules"))
        .cloned()
        .collect();
    let termination = tag_name(TagKey::Termination);
    if let Some(text) = outcome.and_then(|o| termination_text(o.reason))
        && !has(termination)
    {
        all.push((termination.into(), text.into()));
    }
    all.push((tag_name(TagKey::Result).into(), result_tag(outcome).into()));
    all.push((
        "rules".into(),
        rules_string_for(game.rules(), game.start_position()),
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
    setup_of(record, rules).map(|(_, start)| start)
}

/// The rules a record was played under and its start position: `rules`, with the
/// repetition rule of the record's `rules` tag if it names one (unless `rules` ignore
/// repetition: replaying with repetition off stays off), and the tag's start position
/// (else the standard start). The tag must describe `rules.variant`.
pub fn setup_of(record: &Record, rules: Rules) -> Result<(Rules, Position), RecordRulesError> {
    let Some(tag) = record.tag("rules") else {
        return Ok((rules, Position::start()));
    };
    let described: OpenTaflRules = tag.parse()?;
    if described.variant != rules.variant {
        return Err(RecordRulesError::Mismatch {
            record: described.variant,
            asked: rules.variant,
        });
    }
    let rules = match described.repetition {
        Some(repetition) if rules.repetition_ends_game() => rules.with_repetition_rule(repetition),
        _ => rules,
    };
    Ok((rules, described.start.unwrap_or_else(Position::start)))
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
    fn opentafls_own_strings_are_read_with_their_repetition_rule() {
        let start = "/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/";
        let copenhagen: OpenTaflRules =
            format!("dim:11 name:Copenhagen atkf:y tfr:w sw:s efe:y starti:{start}")
                .parse()
                .unwrap();
        assert_eq!(copenhagen.variant, Variant::Copenhagen);
        assert_eq!(copenhagen.repetition, Some(Repetition::MoverLoses));
        assert_eq!(copenhagen.start, Some(Position::start()));
        let fetlar: OpenTaflRules = format!("dim:11 name:Fetlar atkf:y nj:n cj:n starti:{start}")
            .parse()
            .unwrap();
        assert_eq!(fetlar.rules(), Rules::FETLAR);
        for (key, rule) in [
            ("l", Repetition::MoverWins),
            ("d", Repetition::Draw),
            ("i", Repetition::Ignored),
        ] {
            let text = format!("dim:11 tfr:{key} sw:s efe:y start:{start}");
            let read: OpenTaflRules = text.parse().unwrap();
            assert_eq!(read.rules().repetition, rule);
        }
    }

    #[test]
    fn starti_is_the_start_upside_down() {
        let text = "dim:11 starti:/2K5t2/11/11/11/11/4T6/11/11/11/3t7/11/";
        let read: OpenTaflRules = text.parse().unwrap();
        let start = read.start.unwrap();
        assert_eq!(
            start.to_opentafl(),
            "/11/3t7/11/11/11/4T6/11/11/11/11/2K5t2/"
        );
    }

    #[test]
    fn strings_that_are_not_these_games_are_refused() {
        for (text, why) in [
            ("nonsense", "\"nonsense\" is not an OpenTafl rules entry"),
            ("", "no dim"),
            ("atkf:y", "no dim"),
            ("dim:11 colour:blue", "\"colour:blue\" is not"),
            ("dim:11 tfr:x", "tfr:x (w, l, d or i)"),
            ("dim:11 sw:s", "efe:n"),
            ("dim:11 efe:y", "sw:n"),
            ("dim:11 sw:w efe:y", "sw:w"),
            ("dim:11 spd:3", "spd:3"),
            ("dim:11 linc:y", "Linnaean"),
            ("dim:11 cens:KT", "cens:KT"),
            ("dim:11 cenh:tT", "cenh:tT"),
            ("dim:11 afor:a1", "fortresses"),
            ("dim:11 cor:a1,k1", "corners"),
            ("dim:11 kj:c", "jump"),
        ] {
            let err = text.parse::<OpenTaflRules>().unwrap_err();
            assert!(err.to_string().contains(why), "{text}: {err}");
        }
        // OpenTafl's defaults, written out, are these games.
        let defaults = "dim:11 esc:c surf:y ka:y ks:s kj:n spd:-1 cor:k11,a1,a11,k1 cen:f6 \
                        corh:tcnkmTCNKM cenh:tcnkm cenhe:tcnkmTCNKM corp:K cenp:tcnkmTCNKM \
                        cors:K cens:K corre:tcnkmTCNKM cenre:tcnkmTCNKM afor: dfor: swf:y \
                        linc:n ber:n";
        let read: OpenTaflRules = defaults.parse().unwrap();
        assert_eq!(read.rules(), Rules::FETLAR);
    }

    #[test]
    fn written_strings_name_the_repetition_rule_when_it_is_not_the_variants() {
        let start = Position::start();
        assert!(!rules_string(Variant::Fetlar, &start).contains("tfr"));
        assert!(!rules_string(Variant::Copenhagen, &start).contains("tfr"));
        for repetition in [
            Repetition::Ignored,
            Repetition::Draw,
            Repetition::MoverLoses,
            Repetition::MoverWins,
        ] {
            for variant in [Variant::Fetlar, Variant::Copenhagen] {
                let rules = Rules::new(variant).with_repetition_rule(repetition);
                let text = rules_string_for(rules, &start);
                assert_eq!(
                    text.parse::<OpenTaflRules>().unwrap().rules(),
                    rules,
                    "{text}"
                );
            }
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
        assert!(
            text.contains("[result:?]\n[rules:dim:11 name:Copenhagen atkf:y sw:s efe:y start:")
        );
        assert!(text.ends_with("3. g3-e3xe2\n"), "{text}");
        let record = &game::record::parse_records(&text).unwrap()[0];
        assert_eq!(record.moves, game.move_texts());
        assert_eq!(
            start_of(record, Rules::COPENHAGEN).unwrap(),
            Position::start()
        );
    }

    #[test]
    fn endings_outside_the_rules_are_named() {
        let mut game = Tafl::new(Rules::FETLAR);
        let mv = game.parse_move("d1-d3").unwrap();
        game.play(mv);
        let resigned = Outcome::loss(DEFENDERS, game::EndReason::Resignation);
        let tags = vec![(tag_name(TagKey::FirstPlayer).to_owned(), "me".to_owned())];
        let text = write_game(&game, &tags, Some(resigned));
        assert!(
            text.starts_with("[attackers:me]\n[termination:resignation]\n[result:1]\n"),
            "{text}"
        );
        let named = vec![("Termination".to_owned(), "flag".to_owned())];
        let text = write_game(&game, &named, Some(resigned));
        assert_eq!(text.matches("ermination").count(), 1, "{text}");
    }

    #[test]
    fn result_tags() {
        assert_eq!(result_tag(None), "?");
        let won = Outcome::win(DEFENDERS, game::EndReason::CornerEscape);
        assert_eq!(result_tag(Some(won)), "-1");
    }
}
