//! The game a session is playing, whichever of the three it is, with the helpers both
//! protocols need: start positions, position strings, playing a list of move texts.

use camelot::Camelot;
use game::{Game, GameKind, Outcome, Player};
use tafl::{Position, Rules, Tafl, Variant};

/// A game of any kind.
#[derive(Clone, Debug)]
pub(crate) enum AnyGame {
    /// Fetlar or Copenhagen.
    Tafl(Tafl),
    /// Camelot.
    Camelot(Camelot),
}

/// Runs `$body` with `$g` bound to the game inside an [`AnyGame`], whatever its type.
macro_rules! with_game {
    ($any:expr, $g:ident => $body:expr) => {
        match $any {
            $crate::table::AnyGame::Tafl($g) => $body,
            $crate::table::AnyGame::Camelot($g) => $body,
        }
    };
}

pub(crate) fn tafl_rules(kind: GameKind) -> Option<Rules> {
    match kind {
        GameKind::Fetlar => Some(Rules::new(Variant::Fetlar)),
        GameKind::Copenhagen => Some(Rules::new(Variant::Copenhagen)),
        GameKind::Camelot => None,
    }
}

impl AnyGame {
    /// The start position of `kind`.
    pub(crate) fn start(kind: GameKind) -> AnyGame {
        match tafl_rules(kind) {
            Some(rules) => AnyGame::Tafl(Tafl::new(rules)),
            None => AnyGame::Camelot(Camelot::start()),
        }
    }

    /// A game of `kind` from its position string: `<OpenTafl string> attackers|defenders`
    /// for tafl, the Camelot FEN for Camelot.
    pub(crate) fn from_position(kind: GameKind, text: &str) -> Result<AnyGame, String> {
        match tafl_rules(kind) {
            Some(rules) => {
                if text.split_whitespace().count() < 2 {
                    return Err(format!(
                        "a {kind} position is an OpenTafl string and the side to move, like \
                         \"{} attackers\"",
                        tafl::START
                    ));
                }
                let position = Position::from_string_with_side(text)
                    .map_err(|e| format!("bad {kind} position {text:?}: {e}"))?;
                Ok(AnyGame::Tafl(Tafl::from_position(rules, position)))
            }
            None => Camelot::from_position_string(text)
                .map(AnyGame::Camelot)
                .map_err(|e| format!("bad camelot position {text:?}: {e}")),
        }
    }

    pub(crate) fn to_move(&self) -> Player {
        with_game!(self, g => g.to_move())
    }

    pub(crate) fn outcome(&self) -> Option<Outcome> {
        with_game!(self, g => g.outcome())
    }

    pub(crate) fn position_string(&self) -> String {
        with_game!(self, g => g.position_string())
    }

    /// The legal moves in notation, with captures.
    pub(crate) fn legal_move_texts(&self) -> Vec<String> {
        with_game!(self, g => legal_move_texts(g))
    }

    /// Plays every move of `moves` on a copy; the copy if all are legal, else why the
    /// first that is not fails (and the original is untouched).
    pub(crate) fn with_moves<S: AsRef<str>>(&self, moves: &[S]) -> Result<AnyGame, String> {
        Ok(match self {
            AnyGame::Tafl(g) => AnyGame::Tafl(with_moves(g, moves)?),
            AnyGame::Camelot(g) => AnyGame::Camelot(with_moves(g, moves)?),
        })
    }
}

pub(crate) fn legal_move_texts<G: Game>(game: &G) -> Vec<String> {
    let mut moves = Vec::new();
    game.legal_moves(&mut moves);
    moves.into_iter().map(|mv| game.format_move(mv)).collect()
}

pub(crate) fn with_moves<G: Game, S: AsRef<str>>(game: &G, moves: &[S]) -> Result<G, String> {
    let mut copy = game.clone();
    for (i, text) in moves.iter().enumerate() {
        let text = text.as_ref();
        let mv = copy
            .parse_move(text)
            .map_err(|e| format!("move {} ({text}): {e}", i + 1))?;
        copy.play(mv);
    }
    Ok(copy)
}
