//! Which tafl variant is played, and the repetition switch.

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

/// The rules a game is played under: the variant, and whether repetition ends the game
/// (TAFL.md 10; switch it off only to replay historical records, 10e).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    /// The variant.
    pub variant: Variant,
    /// Whether a third occurrence of a position ends the game.
    pub repetition: bool,
}

impl Rules {
    /// Fetlar, repetition on.
    pub const FETLAR: Rules = Rules::new(Variant::Fetlar);
    /// Copenhagen, repetition on.
    pub const COPENHAGEN: Rules = Rules::new(Variant::Copenhagen);

    /// `variant` with repetition on (the default).
    #[must_use]
    pub const fn new(variant: Variant) -> Rules {
        Rules {
            variant,
            repetition: true,
        }
    }

    /// The same rules with repetition switched on or off.
    #[must_use]
    pub const fn with_repetition(self, repetition: bool) -> Rules {
        Rules { repetition, ..self }
    }

    /// Whether the shieldwall and exit fort apply.
    #[must_use]
    pub const fn is_copenhagen(self) -> bool {
        matches!(self.variant, Variant::Copenhagen)
    }
}
