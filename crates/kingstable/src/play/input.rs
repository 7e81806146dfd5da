//! What a player types: a move, a number picking one of several moves offered, or a
//! command. Shared by the full-screen game and the line mode.

use std::path::PathBuf;

/// One line of input, read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// Nothing (a blank line).
    Empty,
    /// A move or the start of one (`d1-d3`, `d1`, `C6-E8-G8`, `H9-F5`).
    Move(String),
    /// Picks the n-th (1-based) of the moves offered.
    Pick(usize),
    /// Take back the last move (against the AI: back to before your last move).
    Undo,
    /// Ask the AI for a move.
    Hint,
    /// Turn the board around.
    Flip,
    /// Save the game as a record, to the file given or a new file.
    Save(Option<PathBuf>),
    /// Load a record and continue from its end.
    Load(PathBuf),
    /// Make the AI move now with the best move found so far.
    Stop,
    /// Give up the game.
    Resign,
    /// Show the board again.
    Board,
    /// List the commands.
    Help,
    /// Leave.
    Quit,
}

/// The commands as the help shows them.
pub const COMMANDS: &[(&str, &str)] = &[
    ("d1-d3", "a move; a square alone lists its moves"),
    ("undo", "take back your last move"),
    ("hint", "ask the AI for a move"),
    ("flip", "turn the board around"),
    ("save [FILE]", "save the game as a record"),
    ("load FILE", "load a record and play on"),
    ("stop", "make the AI move now"),
    ("resign", "give up the game"),
    ("board", "show the board"),
    ("quit", "leave"),
];

/// Reads a line. Anything that is not a command or a number is taken as a move (the
/// game then says what is wrong with it).
pub fn parse(line: &str) -> Result<Input, String> {
    let line = line.trim();
    let (word, rest) = line
        .split_once(char::is_whitespace)
        .map_or((line, ""), |(w, r)| (w, r.trim()));
    let lower = word.to_ascii_lowercase();
    let no_argument = |input: Input| {
        if rest.is_empty() {
            Ok(input)
        } else {
            Err(format!("{lower} takes no argument"))
        }
    };
    match lower.as_str() {
        "" => Ok(Input::Empty),
        "undo" | "takeback" => no_argument(Input::Undo),
        "hint" => no_argument(Input::Hint),
        "flip" => no_argument(Input::Flip),
        "stop" | "go" => no_argument(Input::Stop),
        "resign" => no_argument(Input::Resign),
        "board" => no_argument(Input::Board),
        "help" | "?" => no_argument(Input::Help),
        "quit" | "exit" => no_argument(Input::Quit),
        "save" => Ok(Input::Save((!rest.is_empty()).then(|| PathBuf::from(rest)))),
        "load" if rest.is_empty() => Err("load needs a file: load FILE".to_owned()),
        "load" => Ok(Input::Load(PathBuf::from(rest))),
        _ if word.bytes().all(|b| b.is_ascii_digit()) => word
            .parse()
            .map(Input::Pick)
            .map_err(|_| format!("{word} is not a choice")),
        _ if !rest.is_empty() => Err(format!(
            "{line:?} is not a move or a command (type help for the commands)"
        )),
        _ => Ok(Input::Move(word.to_owned())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_moves_and_choices_are_told_apart() {
        assert_eq!(parse("  "), Ok(Input::Empty));
        assert_eq!(parse("UNDO"), Ok(Input::Undo));
        assert_eq!(parse("d1-d3"), Ok(Input::Move("d1-d3".into())));
        assert_eq!(parse(" 2 "), Ok(Input::Pick(2)));
        assert_eq!(parse("save"), Ok(Input::Save(None)));
        assert_eq!(
            parse("save my game.otg"),
            Ok(Input::Save(Some(PathBuf::from("my game.otg"))))
        );
        assert_eq!(parse("load x.otg"), Ok(Input::Load(PathBuf::from("x.otg"))));
    }

    #[test]
    fn malformed_commands_say_why() {
        assert!(parse("load").unwrap_err().contains("needs a file"));
        assert!(parse("undo 3").unwrap_err().contains("no argument"));
        assert!(
            parse("d1 d3")
                .unwrap_err()
                .contains("not a move or a command")
        );
        assert!(parse("99999999999999999999999").is_err());
    }
}
