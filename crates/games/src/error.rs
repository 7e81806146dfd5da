//! Why a position string or a move text is refused, with each game's own reasons inside.

use game::{GameKind, Outcome, Player};

/// Why a position string is not a position of the game asked for.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// A tafl board without the side to move after it.
    #[error("{}", missing_side(*kind))]
    MissingSide {
        /// The game.
        kind: GameKind,
    },
    /// The side to move written in the position is not the one given apart from it.
    #[error(
        "the position has the {} to move, but the {} were given as the side to move",
        kind.side_name(*written),
        kind.side_name(*given)
    )]
    SideConflict {
        /// The game.
        kind: GameKind,
        /// The side the position string names.
        written: Player,
        /// The side given apart.
        given: Player,
    },
    /// The tafl rules refuse the position.
    #[error(transparent)]
    Tafl(#[from] tafl::PositionError),
    /// The Camelot rules refuse the position string.
    #[error(transparent)]
    Camelot(#[from] camelot::FenError),
}

/// Why a move text is not played.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// The game is over (by the rules): no move can be played.
    #[error("{text}: the game is already over ({}, {})", kind.status_name(Some(*outcome)), outcome.reason)]
    GameOver {
        /// The move as given.
        text: String,
        /// The game.
        kind: GameKind,
        /// How it ended.
        outcome: Outcome,
    },
    /// The tafl rules refuse the move (syntax, illegal, wrong captures).
    #[error(transparent)]
    Tafl(#[from] tafl::MoveError),
    /// The Camelot rules refuse the move (syntax or illegal).
    #[error(transparent)]
    Camelot(#[from] camelot::MoveError),
}

/// What a position string of `kind` needs besides its board.
fn missing_side(kind: GameKind) -> String {
    if kind.is_tafl() {
        format!(
            "a {kind} position needs the side to move after the board, like \"{} attackers\"",
            tafl::START
        )
    } else {
        format!(
            "a {kind} position needs the side to move (w or b) after the board, like \"{}\"",
            camelot::START_FEN
        )
    }
}

/// Why [`AnyGame::with_repetition_rule`](crate::AnyGame::with_repetition_rule) refuses.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    /// The game is Camelot.
    #[error("the repetition rule is chosen for tafl only (Camelot's third repetition is a draw)")]
    NotTafl,
    /// A played move does not replay under the new rule.
    #[error("the moves do not replay under that repetition rule: {0}")]
    Replay(String),
}
