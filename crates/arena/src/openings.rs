//! Openings: the move sequences a match starts its games from, each played from both
//! sides. Kingstable ships a set for tafl and one for Camelot (`bench/openings/`).

use game::{Game, GameKind};
use games::AnyGame;

use crate::error::Error;

/// The openings shipped with Kingstable for `kind` (see `bench/openings/README.md`), as
/// text that [`parse_openings`] reads.
#[must_use]
pub fn builtin_openings(kind: GameKind) -> &'static str {
    match kind {
        GameKind::Fetlar | GameKind::Copenhagen => {
            include_str!("../../../bench/openings/tafl.txt")
        }
        GameKind::Camelot => include_str!("../../../bench/openings/camelot.txt"),
    }
}

/// Reads openings: one opening per line, moves separated by spaces; `#` starts a
/// comment; blank lines are skipped. Every opening must be legal and leave the game
/// going. The moves come back in the game's notation with captures.
///
/// ```
/// use game::GameKind;
///
/// let openings = arena::parse_openings(GameKind::Copenhagen, "d1-d3 e5-e2 # a comment\n\ng1-g3\n")?;
/// assert_eq!(openings, [vec!["d1-d3", "e5-e2"], vec!["g1-g3"]]);
/// assert!(arena::parse_openings(GameKind::Copenhagen, "d1-d9\n").is_err());
/// # Ok::<(), arena::Error>(())
/// ```
///
/// # Errors
/// The first line that does not play ([`Error::Opening`]) or ends the game, or
/// [`Error::NoOpenings`].
pub fn parse_openings(kind: GameKind, text: &str) -> Result<Vec<Vec<String>>, Error> {
    let mut openings = Vec::new();
    for (number, line) in engine::bench::opening_lines(text) {
        let mut game = AnyGame::start(kind);
        let texts: Vec<&str> = line.split_whitespace().collect();
        let played = game.play_texts(&texts).map_err(|error| Error::Opening {
            line: number,
            error,
        })?;
        if game.outcome().is_some() {
            return Err(Error::OpeningEndsGame(number));
        }
        openings.push(played.into_iter().map(|info| info.text).collect());
    }
    if openings.is_empty() {
        return Err(Error::NoOpenings);
    }
    Ok(openings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_openings_are_legal() {
        for kind in GameKind::ALL {
            let openings = parse_openings(kind, builtin_openings(kind)).unwrap();
            assert!(openings.len() >= 20, "{kind}: {}", openings.len());
        }
    }

    #[test]
    fn bad_openings_are_refused_with_the_line() {
        let err = parse_openings(GameKind::Fetlar, "d1-d3\n\nd1-d9\n").unwrap_err();
        assert!(err.to_string().starts_with("openings line 3: "), "{err}");
        assert!(matches!(
            parse_openings(GameKind::Fetlar, "# nothing\n"),
            Err(Error::NoOpenings)
        ));
    }
}
