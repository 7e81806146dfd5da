//! Which tafl variant is played, and what a repetition does.

use std::fmt;
use std::str::FromStr;

/// The 11x11 variants Kingstable plays. They share movement, custodial capture, king
/// capture, corner escape and encirclement; Copenhagen adds the shieldwall (TAFL.md 4)
/// and the exit fort (TAFL.md 7), and they differ on repetition (TAFL.md 10).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// Fetlar Hnefatafl: a third repetition is a draw.
    Fetlar,
    /// Copenhagen Hnefatafl: shieldwall, exit fort, and a third repetition wins for the
    /// attackers.
    Copenhagen,
}

impl Variant {
    /// The lowercase name (`fetlar`, `copenhagen`).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Variant::Fetlar => "fetlar",
            Variant::Copenhagen => "copenhagen",
        }
    }

    /// The matching [`game::GameKind`].
    #[must_use]
    pub const fn kind(self) -> game::GameKind {
        match self {
            Variant::Fetlar => game::GameKind::Fetlar,
            Variant::Copenhagen => game::GameKind::Copenhagen,
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not a tafl variant.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown tafl variant {0:?}: expected fetlar or copenhagen")]
pub struct ParseVariantError(pub String);

impl FromStr for Variant {
    type Err = ParseVariantError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "fetlar" => Ok(Variant::Fetlar),
            "copenhagen" => Ok(Variant::Copenhagen),
            _ => Err(ParseVariantError(s.to_owned())),
        }
    }
}

/// What a third occurrence of a position does (TAFL.md 10). Kingstable's own rules are
/// [`Repetition::of_variant`]; the others are the choices an OpenTafl rules string offers
/// (its `tfr` key), so that an OpenTafl host and Kingstable judge a game alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Repetition {
    /// Nothing: play on (TAFL.md 10e, for historical records; OpenTafl `tfr:i`).
    Ignored,
    /// A draw (Fetlar, TAFL.md 10c; OpenTafl `tfr:d`, its default).
    Draw,
    /// The attackers win (Copenhagen, TAFL.md 10b; no OpenTafl spelling).
    AttackersWin,
    /// The side that made the third occurrence loses: the side to move wins (OpenTafl
    /// `tfr:w`, which its Copenhagen uses).
    MoverLoses,
    /// The side that made the third occurrence wins (OpenTafl `tfr:l`).
    MoverWins,
}

impl Repetition {
    /// The rule of `variant` as TAFL.md states it: Copenhagen's attackers win, Fetlar's
    /// draw.
    #[must_use]
    pub const fn of_variant(variant: Variant) -> Repetition {
        match variant {
            Variant::Fetlar => Repetition::Draw,
            Variant::Copenhagen => Repetition::AttackersWin,
        }
    }

    /// The value of OpenTafl's `tfr` key for this rule, if it has one.
    #[must_use]
    pub const fn opentafl_key(self) -> Option<&'static str> {
        match self {
            Repetition::Ignored => Some("i"),
            Repetition::Draw => Some("d"),
            Repetition::MoverLoses => Some("w"),
            Repetition::MoverWins => Some("l"),
            Repetition::AttackersWin => None,
        }
    }

    /// The rule an OpenTafl `tfr` value names (`w`, `l`, `d`, `i`).
    #[must_use]
    pub fn from_opentafl_key(value: &str) -> Option<Repetition> {
        [
            Repetition::Ignored,
            Repetition::Draw,
            Repetition::MoverLoses,
            Repetition::MoverWins,
        ]
        .into_iter()
        .find(|r| r.opentafl_key() == Some(value))
    }

    /// The outcome of a third occurrence reached by a move of `mover`, or `None` if the
    /// game goes on.
    #[must_use]
    pub fn outcome(self, mover: game::Player) -> Option<game::Outcome> {
        use game::{EndReason::Repetition as Reason, Outcome};
        match self {
            Repetition::Ignored => None,
            Repetition::Draw => Some(Outcome::draw(Reason)),
            Repetition::AttackersWin => Some(Outcome::win(game::Player::First, Reason)),
            Repetition::MoverLoses => Some(Outcome::loss(mover, Reason)),
            Repetition::MoverWins => Some(Outcome::win(mover, Reason)),
        }
    }
}

impl fmt::Display for Repetition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Repetition::Ignored => "repetition ignored",
            Repetition::Draw => "a third repetition is a draw",
            Repetition::AttackersWin => "a third repetition wins for the attackers",
            Repetition::MoverLoses => "the side that makes a third repetition loses",
            Repetition::MoverWins => "the side that makes a third repetition wins",
        })
    }
}

/// The rules a game is played under: the variant, and what a third occurrence of a
/// position does (TAFL.md 10: the variant's rule by default; switch it off only to replay
/// historical records, 10e; other rules to play by an OpenTafl host's rules string).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    /// The variant.
    pub variant: Variant,
    /// What a third occurrence of a position does.
    pub repetition: Repetition,
}

impl Rules {
    /// Fetlar, repetition on.
    pub const FETLAR: Rules = Rules::new(Variant::Fetlar);
    /// Copenhagen, repetition on.
    pub const COPENHAGEN: Rules = Rules::new(Variant::Copenhagen);

    /// `variant` with its own repetition rule (the default).
    #[must_use]
    pub const fn new(variant: Variant) -> Rules {
        Rules {
            variant,
            repetition: Repetition::of_variant(variant),
        }
    }

    /// The same rules with repetition switched on (the variant's rule) or off.
    #[must_use]
    pub const fn with_repetition(self, repetition: bool) -> Rules {
        let repetition = if repetition {
            Repetition::of_variant(self.variant)
        } else {
            Repetition::Ignored
        };
        Rules { repetition, ..self }
    }

    /// The same rules with another repetition rule.
    #[must_use]
    pub const fn with_repetition_rule(self, repetition: Repetition) -> Rules {
        Rules { repetition, ..self }
    }

    /// Whether a third occurrence of a position ends the game.
    #[must_use]
    pub const fn repetition_ends_game(self) -> bool {
        !matches!(self.repetition, Repetition::Ignored)
    }

    /// Whether the shieldwall and exit fort apply.
    #[must_use]
    pub const fn is_copenhagen(self) -> bool {
        matches!(self.variant, Variant::Copenhagen)
    }
}
