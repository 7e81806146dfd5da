//! The small vocabulary Kingstable's games share, and the [`Game`] trait that search,
//! protocols, the match runner and the server are written against once for all three
//! games (Fetlar and Copenhagen Hnefatafl, Camelot).
//!
//! A rules crate (`tafl`, `camelot`) implements [`Game`] for its game state; everything
//! above it knows the game only through this trait and the game's own notation.
//!
//! ```
//! use game::{EndReason, GameKind, Outcome, Player};
//!
//! let kind: GameKind = "copenhagen".parse().unwrap();
//! assert_eq!(kind.side_name(Player::First), "attackers");
//! let outcome = Outcome::win(Player::Second, EndReason::CornerEscape);
//! assert_eq!(kind.status_name(Some(outcome)), "defenders_win");
//! assert_eq!(outcome.reason.as_str(), "corner_escape");
//! ```

mod perft;
mod prove;
pub mod record;

use std::fmt;
use std::hash::Hash;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

pub use perft::{
    MoveBound, PROGRESS_DEPTH, deepest_countable, perft, perft_divide, try_perft,
    try_perft_with_progress,
};
pub use prove::{forced_win_within, shortest_forced_win};

/// One step of SplitMix64, a `const fn` so each rules crate can fill its Zobrist tables
/// at compile time: returns the next state and the random value.
///
/// ```
/// const FIRST: (u64, u64) = game::splitmix64(0);
/// assert_eq!(FIRST.1, 0xE220_A839_7B1D_CDAF);
/// ```
#[must_use]
pub const fn splitmix64(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (state, z ^ (z >> 31))
}

/// One of the two players. The first player moves first: the attackers in tafl, White in
/// Camelot (`p1` in engine protocols).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Player {
    /// The side that moves first (tafl attackers, Camelot White).
    First,
    /// The side that moves second (tafl defenders, Camelot Black).
    Second,
}

impl Player {
    /// Both players, first one first.
    pub const BOTH: [Player; 2] = [Player::First, Player::Second];

    /// The opponent.
    #[must_use]
    pub const fn other(self) -> Player {
        match self {
            Player::First => Player::Second,
            Player::Second => Player::First,
        }
    }

    /// 0 for the first player, 1 for the second: handy for indexing per-player tables.
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }
}

/// Why a game ended. One list for all games; each game uses the reasons its rules have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// Tafl: the king reached a corner.
    CornerEscape,
    /// Tafl: the king was surrounded.
    KingCaptured,
    /// Copenhagen: the king stands in an exit fort the attackers cannot break.
    ExitFort,
    /// Tafl: no defender can reach the board edge any more.
    Encirclement,
    /// The side to move has no legal move.
    NoLegalMoves,
    /// A position occurred for the third time.
    Repetition,
    /// A player ran out of time.
    Timeout,
    /// A player resigned (or the game was adjudicated against them).
    Resignation,
    /// Camelot: two pieces in the opponent's castle.
    Castle,
    /// Camelot: all the opponent's pieces were captured.
    Elimination,
    /// Camelot: both players have one piece or fewer.
    Material,
    /// Camelot: fifty moves by each side without capture or castle entry.
    FiftyMoves,
    /// The players agreed a draw.
    Agreement,
    /// A referee (a match runner's ply limit, say) declared the result.
    Adjudication,
    /// A player left a live game and the opponent claimed it (a win, or a draw when the
    /// claimer could not have won on the board).
    Abandonment,
}

impl EndReason {
    /// Every reason, in declaration order.
    pub const ALL: [EndReason; 15] = [
        EndReason::CornerEscape,
        EndReason::KingCaptured,
        EndReason::ExitFort,
        EndReason::Encirclement,
        EndReason::NoLegalMoves,
        EndReason::Repetition,
        EndReason::Timeout,
        EndReason::Resignation,
        EndReason::Castle,
        EndReason::Elimination,
        EndReason::Material,
        EndReason::FiftyMoves,
        EndReason::Agreement,
        EndReason::Adjudication,
        EndReason::Abandonment,
    ];

    /// The snake_case name used in JSON and protocols (`corner_escape`).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            EndReason::CornerEscape => "corner_escape",
            EndReason::KingCaptured => "king_captured",
            EndReason::ExitFort => "exit_fort",
            EndReason::Encirclement => "encirclement",
            EndReason::NoLegalMoves => "no_legal_moves",
            EndReason::Repetition => "repetition",
            EndReason::Timeout => "timeout",
            EndReason::Resignation => "resignation",
            EndReason::Castle => "castle",
            EndReason::Elimination => "elimination",
            EndReason::Material => "material",
            EndReason::FiftyMoves => "fifty_moves",
            EndReason::Agreement => "agreement",
            EndReason::Adjudication => "adjudication",
            EndReason::Abandonment => "abandonment",
        }
    }
}

/// A name that is no [`EndReason`]'s [`EndReason::as_str`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown end reason {0:?}")]
pub struct UnknownEndReason(pub String);

impl FromStr for EndReason {
    type Err = UnknownEndReason;

    /// Reads the snake_case name [`EndReason::as_str`] gives.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let name = s.trim();
        EndReason::ALL
            .into_iter()
            .find(|r| r.as_str() == name)
            .ok_or_else(|| UnknownEndReason(name.to_owned()))
    }
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a finished game ended: the winner (`None` for a draw) and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Outcome {
    /// The winner, or `None` for a draw.
    pub winner: Option<Player>,
    /// Why the game ended.
    pub reason: EndReason,
}

impl Outcome {
    /// `winner` won because of `reason`.
    #[must_use]
    pub const fn win(winner: Player, reason: EndReason) -> Outcome {
        Outcome {
            winner: Some(winner),
            reason,
        }
    }

    /// A draw because of `reason`.
    #[must_use]
    pub const fn draw(reason: EndReason) -> Outcome {
        Outcome {
            winner: None,
            reason,
        }
    }

    /// `player` lost because of `reason` (timeout, resignation, no legal moves…).
    #[must_use]
    pub const fn loss(player: Player, reason: EndReason) -> Outcome {
        Outcome::win(player.other(), reason)
    }
}

/// The games Kingstable plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameKind {
    /// Fetlar Hnefatafl 11x11.
    Fetlar,
    /// Copenhagen Hnefatafl 11x11.
    Copenhagen,
    /// Camelot (World Camelot Federation rules).
    Camelot,
}

impl GameKind {
    /// Every game, in declaration order.
    pub const ALL: [GameKind; 3] = [GameKind::Fetlar, GameKind::Copenhagen, GameKind::Camelot];

    /// The lowercase name used on the command line and in protocols.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            GameKind::Fetlar => "fetlar",
            GameKind::Copenhagen => "copenhagen",
            GameKind::Camelot => "camelot",
        }
    }

    /// Whether this is one of the tafl variants.
    #[must_use]
    pub const fn is_tafl(self) -> bool {
        matches!(self, GameKind::Fetlar | GameKind::Copenhagen)
    }

    /// The game's own name for a player: `attackers`/`defenders` or `white`/`black`.
    #[must_use]
    pub const fn side_name(self, player: Player) -> &'static str {
        match (self.is_tafl(), player) {
            (true, Player::First) => "attackers",
            (true, Player::Second) => "defenders",
            (false, Player::First) => "white",
            (false, Player::Second) => "black",
        }
    }

    /// The player a side name (as printed by [`GameKind::side_name`], case-insensitive)
    /// stands for; `p1`/`p2` and `first`/`second` are accepted for every game.
    pub fn parse_side(self, text: &str) -> Result<Player, ParseSideError> {
        let lower = text.trim().to_ascii_lowercase();
        for player in Player::BOTH {
            let generic = match player {
                Player::First => ["p1", "first"],
                Player::Second => ["p2", "second"],
            };
            let own = self.side_name(player);
            let singular = own.trim_end_matches('s');
            if lower == own || lower == singular || generic.contains(&lower.as_str()) {
                return Ok(player);
            }
        }
        Err(ParseSideError {
            game: self,
            text: text.to_owned(),
        })
    }

    /// The game status for JSON and protocols: `ongoing`, `draw`, or `<side>_win`
    /// (`attackers_win`, `white_win`…).
    #[must_use]
    pub fn status_name(self, outcome: Option<Outcome>) -> &'static str {
        match outcome {
            None => "ongoing",
            Some(Outcome { winner: None, .. }) => "draw",
            Some(Outcome {
                winner: Some(player),
                ..
            }) => match (self.is_tafl(), player) {
                (true, Player::First) => "attackers_win",
                (true, Player::Second) => "defenders_win",
                (false, Player::First) => "white_win",
                (false, Player::Second) => "black_win",
            },
        }
    }
}

impl fmt::Display for GameKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A game name that is not one of `fetlar`, `copenhagen`, `camelot`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown game {0:?}: expected fetlar, copenhagen or camelot")]
pub struct ParseGameKindError(pub String);

impl FromStr for GameKind {
    type Err = ParseGameKindError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        GameKind::ALL
            .into_iter()
            .find(|kind| kind.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| ParseGameKindError(s.to_owned()))
    }
}

/// A side name that the game does not have.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown side {text:?} for {game}: expected {} or {}", game.side_name(Player::First), game.side_name(Player::Second))]
pub struct ParseSideError {
    /// The game whose sides were expected.
    pub game: GameKind,
    /// What was given.
    pub text: String,
}

/// A game in progress under one game's rules: the current position plus whatever history
/// the rules need (repetition, castle-move counts, the fifty-move count), with moves
/// played and taken back in place.
///
/// Implementations hold no global state and are `Send + Sync`, so a server may keep many
/// games and search them from many threads at once (each search on its own clone).
///
/// Contract (checked by each rules crate's property tests):
/// - [`legal_moves`](Game::legal_moves) lists each legal move exactly once, and nothing
///   when the game is over; [`is_legal`](Game::is_legal) agrees with it.
/// - [`play`](Game::play) then [`undo`](Game::undo) restores the game exactly, hash
///   included.
/// - [`format_move`](Game::format_move) output parses back to the same move with
///   [`parse_move`](Game::parse_move).
pub trait Game: Clone + Send + Sync + fmt::Debug + 'static {
    /// A move, identified as the rules identify it (tafl: from and to; Camelot: from, to
    /// and the set of captured squares). Small and `Copy`, so move lists are cheap.
    type Move: Copy + Eq + Hash + fmt::Debug + Send + Sync + 'static;

    /// Why a move text was rejected (syntax, or why the move is illegal here).
    type MoveError: std::error::Error + Send + Sync + 'static;

    /// Which game this is.
    fn kind(&self) -> GameKind;

    /// The player to move.
    fn to_move(&self) -> Player;

    /// Plies played since this game's start position.
    fn ply(&self) -> usize;

    /// Appends every legal move to `out` (nothing if the game is over).
    fn legal_moves(&self, out: &mut Vec<Self::Move>);

    /// The number of legal moves (0 if the game is over). By default it lists them; a
    /// game may count faster (perft's last ply uses this).
    fn count_legal_moves(&self) -> usize {
        let mut moves = Vec::new();
        self.legal_moves(&mut moves);
        moves.len()
    }

    /// Whether `mv` is legal here. Agrees with [`Game::legal_moves`].
    fn is_legal(&self, mv: Self::Move) -> bool;

    /// Plays a legal move. Playing an illegal move is a logic error: it may panic in
    /// debug builds and leaves the game in an unspecified (but memory-safe) state.
    fn play(&mut self, mv: Self::Move);

    /// Takes back the last move played, returning it, or `None` at the start.
    fn undo(&mut self) -> Option<Self::Move>;

    /// How the game ended, if it has, by the rules alone (time and resignation belong to
    /// the play layer).
    fn outcome(&self) -> Option<Outcome>;

    /// A Zobrist hash of everything that decides the future of the game here (pieces,
    /// side to move, and game-specific counters such as Camelot's castle moves).
    fn hash(&self) -> u64;

    /// Reads a move in the game's notation and checks that it is legal here.
    fn parse_move(&self, text: &str) -> Result<Self::Move, Self::MoveError>;

    /// Reads a move as a game record writes it and checks it strictly: besides being
    /// legal, everything the text states must hold (in tafl, the captures a record lists
    /// are the complete set, so a record that lists none claims none). By default the
    /// same as [`Game::parse_move`].
    fn parse_recorded_move(&self, text: &str) -> Result<Self::Move, Self::MoveError> {
        self.parse_move(text)
    }

    /// Writes a legal move in the game's notation, with its captures.
    fn format_move(&self, mv: Self::Move) -> String;

    /// The current position in the game's position-string format (OpenTafl position
    /// string plus side, or Kingstable's Camelot FEN).
    fn position_string(&self) -> String;

    /// The number of pieces the move captures (0 for a quiet move). Search uses it for
    /// move ordering and quiescence.
    fn captures(&self, mv: Self::Move) -> u32;

    /// Whether `player` could still win from here by some series of legal moves, as far
    /// as the material on the board tells: `false` only when a win is impossible (a
    /// Camelot side with one piece), as chess's insufficient material. The play layer
    /// asks it when a player runs out of time or leaves: the opponent then wins only if
    /// they could have won on the board, otherwise it is a draw.
    fn can_win(&self, player: Player) -> bool;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn game_kind_parses_case_insensitively_and_rejects_others() {
        assert_eq!("Copenhagen".parse::<GameKind>(), Ok(GameKind::Copenhagen));
        assert_eq!(" camelot ".parse::<GameKind>(), Ok(GameKind::Camelot));
        let err = "chess".parse::<GameKind>().unwrap_err();
        assert!(err.to_string().contains("chess"));
    }

    #[test]
    fn sides_parse_by_game_name_and_generic_name() {
        assert_eq!(GameKind::Fetlar.parse_side("Attackers"), Ok(Player::First));
        assert_eq!(GameKind::Fetlar.parse_side("defender"), Ok(Player::Second));
        assert_eq!(GameKind::Camelot.parse_side("black"), Ok(Player::Second));
        assert_eq!(GameKind::Camelot.parse_side("p1"), Ok(Player::First));
        assert!(GameKind::Camelot.parse_side("attackers").is_err());
    }

    #[test]
    fn status_names_follow_the_game() {
        let white = Outcome::win(Player::First, EndReason::Castle);
        assert_eq!(GameKind::Camelot.status_name(Some(white)), "white_win");
        assert_eq!(GameKind::Fetlar.status_name(Some(white)), "attackers_win");
        let draw = Outcome::draw(EndReason::Repetition);
        assert_eq!(GameKind::Fetlar.status_name(Some(draw)), "draw");
        assert_eq!(GameKind::Camelot.status_name(None), "ongoing");
        assert_eq!(
            Outcome::loss(Player::First, EndReason::Timeout).winner,
            Some(Player::Second)
        );
    }

    #[test]
    fn end_reasons_serialize_as_their_names() {
        for reason in EndReason::ALL {
            let json = serde_json::to_string(&reason).unwrap();
            assert_eq!(json, format!("\"{}\"", reason.as_str()));
        }
    }

    #[test]
    fn end_reasons_parse_from_their_names() {
        for reason in EndReason::ALL {
            assert_eq!(reason.as_str().parse::<EndReason>(), Ok(reason));
        }
        assert_eq!(" adjudication ".parse(), Ok(EndReason::Adjudication));
        assert_eq!(
            "draw".parse::<EndReason>(),
            Err(UnknownEndReason("draw".to_owned()))
        );
    }
}
