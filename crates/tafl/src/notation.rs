//! Move notation (TAFL.md 13): `from-to` then `x<square>` per captured piece
//! (`g3-e3xe2`, `f4-k4xk3xk2`). On input a `K` prefix for the king (`Kf6-f9`) and
//! OpenTafl's slash form (`xc3/d2`) are accepted, case does not matter, and the captured
//! squares are a set (a square listed twice counts once). OpenTafl writes a captured king
//! with his letter (`j9-j7xKi7`): that is read as the claim that the move captures the
//! king there, which ends the game (TAFL.md 6), not as a custodial capture.

use crate::bitboard::Bitboard;
use crate::position::Move;
use crate::square::Square;

/// A move as written: squares and, if the text listed any, the claimed captures. Not yet
/// checked against a position.
///
/// ```
/// use tafl::notation::MoveText;
/// let text: MoveText = "f4-k4xk3/k2".parse().unwrap();
/// assert_eq!(text.mv.to_string(), "f4-k4");
/// assert_eq!(text.captures.unwrap().count(), 2);
/// assert!("Kf6-f9".parse::<MoveText>().unwrap().captures.is_none());
/// let text: MoveText = "j9-j7xKi7".parse().unwrap();
/// assert_eq!(text.king.unwrap().to_string(), "i7");
/// assert_eq!(text.captures.unwrap().count(), 0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveText {
    /// The move.
    pub mv: Move,
    /// The captured squares the text lists (the king's excepted), or `None` if it lists
    /// none.
    pub captures: Option<Bitboard>,
    /// Where the text says the king is captured (`xKi7`), if it does.
    pub king: Option<Square>,
}

/// Why a move text could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot read move {text:?}: {reason}")]
pub struct ParseMoveError {
    /// The text given.
    pub text: String,
    /// What is wrong with it.
    pub reason: String,
}

impl std::str::FromStr for MoveText {
    type Err = ParseMoveError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let fail = |reason: String| ParseMoveError {
            text: text.to_owned(),
            reason,
        };
        let trimmed = text.trim();
        let mut body = trimmed;
        // A king prefix: `K` followed by a file letter (`kf6`); `k4` alone is a square.
        if body.len() > 1
            && body.starts_with(['K', 'k'])
            && body[1..].starts_with(|c: char| c.is_ascii_alphabetic())
        {
            body = &body[1..];
        }
        let (from_text, rest) = body
            .split_once('-')
            .ok_or_else(|| fail("expected from-to, like d1-d3".into()))?;
        let lower = rest.to_ascii_lowercase();
        let (to_text, capture_text) = match lower.find('x') {
            Some(i) => (&lower[..i], Some(&lower[i + 1..])),
            None => (lower.as_str(), None),
        };
        let square = |s: &str, what: &str| {
            s.parse::<Square>()
                .map_err(|_| fail(format!("{what} {s:?} is not a square a1..k11")))
        };
        let from = square(from_text, "start square")?;
        let to = square(to_text, "target square")?;
        let mut king = None;
        let captures = match capture_text {
            None => None,
            Some(list) => {
                let mut set = Bitboard::EMPTY;
                for part in list.split(['x', '/']) {
                    if part.is_empty() {
                        return Err(fail("empty capture after 'x' or '/'".into()));
                    }
                    // OpenTafl's piece letter before a captured square (`ki7`, lowercased
                    // here): only the king is ever written so among tafl's pieces.
                    match part.strip_prefix('k') {
                        Some(rest) if rest.starts_with(|c: char| c.is_ascii_alphabetic()) => {
                            king = Some(square(rest, "captured king's square")?);
                        }
                        _ => set = set.with(square(part, "captured square")?),
                    }
                }
                Some(set)
            }
        };
        Ok(MoveText {
            mv: Move::new(from, to),
            captures,
            king,
        })
    }
}

/// Writes `from-to` and `x<square>` for each capture, in square order (a1 first).
#[must_use]
pub fn format_move(mv: Move, captures: Bitboard) -> String {
    // Written by hand, not through `Display`: the server writes every legal move's text
    // on every move played (a hundred or so), and the formatting machinery was most of
    // that cost. The same text as `format!("{mv}")` then `x{sq}` for each capture.
    let mut out = String::with_capacity(16);
    push_move(&mut out, mv, captures);
    out
}

/// Appends the text [`format_move`] returns to `out` (no allocation of its own).
pub fn push_move(out: &mut String, mv: Move, captures: Bitboard) {
    push_square(out, mv.from);
    out.push('-');
    push_square(out, mv.to);
    for sq in captures {
        out.push('x');
        push_square(out, sq);
    }
}

/// Appends the square's name as its `Display` writes it (`a1`..`k11`).
fn push_square(out: &mut String, sq: Square) {
    out.push(char::from(b'a' + sq.file()));
    let rank = sq.rank() + 1;
    if rank >= 10 {
        out.push(char::from(b'0' + rank / 10));
    }
    out.push(char::from(b'0' + rank % 10));
}

/// Writes the captured squares as a list (`e2 k3`), for messages.
#[must_use]
pub fn format_squares(set: Bitboard) -> String {
    if set.is_empty() {
        return "nothing".into();
    }
    set.squares()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_move_writes_what_display_writes() {
        use std::fmt::Write as _;

        let squares: Vec<Square> = (0..crate::SIZE)
            .flat_map(|file| (0..crate::SIZE).map(move |rank| Square::new(file, rank)))
            .collect();
        for (i, &from) in squares.iter().enumerate() {
            for (j, &to) in squares.iter().enumerate() {
                let captures = [i, j, (i * 7 + j) % squares.len()]
                    .into_iter()
                    .take(1 + (i + j) % 3)
                    .map(|k| squares[k])
                    .collect::<Bitboard>();
                let mut expected = format!("{}", Move::new(from, to));
                for sq in captures {
                    write!(expected, "x{sq}").unwrap();
                }
                assert_eq!(format_move(Move::new(from, to), captures), expected);
            }
        }
    }

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    #[test]
    fn tafl_13_move_forms_are_read() {
        let t: MoveText = "g3-e3xe2".parse().unwrap();
        assert_eq!(t.mv, Move::new(sq("g3"), sq("e3")));
        assert_eq!(t.captures, Some(Bitboard::from_square(sq("e2"))));
        let t: MoveText = "Kf6-f9".parse().unwrap();
        assert_eq!(t.mv, Move::new(sq("f6"), sq("f9")));
        let t: MoveText = "k4-i4".parse().unwrap();
        assert_eq!(t.mv.from, sq("k4"));
        let t: MoveText = "D1-C1XC2/B1".parse().unwrap();
        assert_eq!(t.captures.unwrap().count(), 2);
    }

    #[test]
    fn a_captured_king_is_written_with_his_letter() {
        let t: MoveText = "j9-j7xKi7".parse().unwrap();
        assert_eq!(t.king, Some(sq("i7")));
        assert_eq!(t.captures, Some(Bitboard::EMPTY));
        let t: MoveText = "e4-e5xKe6/d5".parse().unwrap();
        assert_eq!(t.king, Some(sq("e6")));
        assert_eq!(t.captures, Some(Bitboard::from_square(sq("d5"))));
        assert_eq!("d1-d3".parse::<MoveText>().unwrap().king, None);
        let err = "j9-j7xKz7".parse::<MoveText>().unwrap_err();
        assert!(err.to_string().contains("captured king's square"), "{err}");
    }

    #[test]
    fn tafl_13_captures_are_a_set() {
        let t: MoveText = "g3-e3xe2xe2".parse().unwrap();
        assert_eq!(t.captures.unwrap().count(), 1);
    }

    #[test]
    fn bad_move_texts_say_why() {
        for (bad, why) in [
            ("d1d3", "from-to"),
            ("z1-d3", "start square"),
            ("d1-d12", "target square"),
            ("d1-d3x", "empty capture"),
            ("d1-d3xq9", "captured square"),
        ] {
            let err = bad.parse::<MoveText>().unwrap_err();
            assert!(err.to_string().contains(why), "{bad}: {err}");
        }
    }

    #[test]
    fn formatted_moves_read_back() {
        let captures = Bitboard::from_square(sq("k3")).with(sq("k2"));
        let text = format_move(Move::new(sq("f4"), sq("k4")), captures);
        assert_eq!(text, "f4-k4xk2xk3");
        let back: MoveText = text.parse().unwrap();
        assert_eq!(back.captures, Some(captures));
    }
}
