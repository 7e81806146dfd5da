//! Conditional moves for correspondence games: while the opponent is to move, a player
//! enters lines of expected replies and their answers ("if they play X, I play Y; then
//! if they play Z, I play W"). When the opponent's move is the first of one of the lines,
//! the game's owner plays that line's answer at once for the player, and keeps the rest
//! of the lines that began with the same two moves; any other move drops the lines. A
//! takeback or the end of the game drops them too.
//!
//! The lines are checked when entered (each move legal after the ones before it, from
//! the position then) and kept as the game writes the moves, so that a reply is matched
//! by its text.

use games::AnyGame;
use serde::{Deserialize, Serialize};

/// The most lines a player may keep in a game.
pub const MAX_LINES: usize = 16;
/// The most moves in a line (replies and answers together).
pub const MAX_PLIES: usize = 20;

/// A player's lines: each starts with the opponent's reply and alternates.
pub type Lines = Vec<Vec<String>>;

/// A player's lines as entered, with the moves played then.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Conditional {
    /// The moves played when the lines were entered.
    pub ply: u32,
    /// The lines.
    pub lines: Lines,
}

/// Checks `lines` on `game` (the position now, the opponent to move) and writes each
/// move as the game does; the empty list is fine (no lines). Lines that repeat are kept
/// once.
///
/// # Errors
/// A sentence saying which line and move is wrong.
pub fn check(game: &AnyGame, lines: Lines) -> Result<Lines, String> {
    if lines.len() > MAX_LINES {
        return Err(format!("at most {MAX_LINES} lines"));
    }
    let mut checked: Lines = Vec::with_capacity(lines.len());
    for (number, line) in lines.iter().enumerate() {
        let number = number + 1;
        if line.len() < 2 || line.len() % 2 != 0 {
            return Err(format!(
                "line {number}: give the opponent's reply and your answer, in pairs"
            ));
        }
        if line.len() > MAX_PLIES {
            return Err(format!("line {number}: at most {MAX_PLIES} moves"));
        }
        let played = game
            .clone()
            .play_texts(line)
            .map_err(|error| format!("line {number}: {error}"))?;
        let texts: Vec<String> = played.into_iter().map(|info| info.text).collect();
        if !checked.contains(&texts) {
            checked.push(texts);
        }
    }
    Ok(checked)
}

/// What the opponent's move `reply` does to `lines`: the answer to play and the lines
/// that go on after it, or `None` when no line expected that reply (the lines are
/// dropped).
#[must_use]
pub fn after_reply(lines: &Lines, reply: &str) -> Option<(String, Lines)> {
    let answer = lines.iter().find(|line| line[0] == reply)?[1].clone();
    let rest = lines
        .iter()
        .filter(|line| line[0] == reply && line[1] == answer && line.len() > 2)
        .map(|line| line[2..].to_vec())
        .collect();
    Some((answer, rest))
}

#[cfg(test)]
mod tests {
    use game::GameKind;

    use super::*;

    fn lines(texts: &[&[&str]]) -> Lines {
        texts
            .iter()
            .map(|line| line.iter().map(|t| (*t).to_owned()).collect())
            .collect()
    }

    #[test]
    fn lines_are_checked_from_the_position_and_written_as_the_game_writes_them() {
        let mut game = AnyGame::start(GameKind::Copenhagen);
        game.try_play("d1-d3").unwrap();
        // The defenders to move: their reply first, then the attackers' answer.
        let ok = check(&game, lines(&[&["e5-e2", "g1-g3"], &["e5-e2", "g1-g3"]])).unwrap();
        assert_eq!(ok, lines(&[&["e5-e2", "g1-g3"]]));
        assert!(
            check(&game, lines(&[&["e5-e2"]]))
                .unwrap_err()
                .contains("pairs")
        );
        let wrong = check(&game, lines(&[&["e5-e2", "d3-d9"]])).unwrap_err();
        assert!(wrong.starts_with("line 1: move 2"), "{wrong}");
        assert!(check(&game, lines(&[&["d3-d4", "e5-e2"]])).is_err());
        let many: Lines = (0..=MAX_LINES)
            .map(|_| vec!["e5-e2".into(), "g1-g3".into()])
            .collect();
        assert!(check(&game, many).is_err());
        assert_eq!(check(&game, Vec::new()).unwrap(), Lines::new());
    }

    #[test]
    fn a_reply_plays_its_answer_and_keeps_the_lines_that_go_on() {
        let kept = lines(&[
            &["a", "b", "c", "d"],
            &["a", "b", "e", "f"],
            &["a", "b"],
            &["x", "y"],
        ]);
        assert_eq!(
            after_reply(&kept, "a"),
            Some(("b".into(), lines(&[&["c", "d"], &["e", "f"]])))
        );
        assert_eq!(after_reply(&kept, "x"), Some(("y".into(), Lines::new())));
        assert_eq!(after_reply(&kept, "z"), None);
    }
}
