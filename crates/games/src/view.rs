//! What a front end draws: the board of a game as plain data (serde), so that a browser
//! or any other client holds no rules.

use game::{GameKind, Player};
use serde::{Deserialize, Serialize};

use crate::{AnyGame, Cell, Square};

/// A board as a front end draws it: the frame's size, the names of its files and ranks,
/// every cell rank by rank from rank 1 (index `rank * files + file`), and the side to
/// move.
///
/// ```
/// use games::{AnyGame, BoardView, GameKind};
///
/// let view = BoardView::of(&AnyGame::start(GameKind::Copenhagen));
/// assert_eq!((view.files, view.ranks), (11, 11));
/// assert_eq!(view.file_names[0], "a");
/// assert_eq!(view.rank_names[10], "11");
/// assert_eq!(view.cells.len(), 121);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoardView {
    /// Which game.
    pub kind: GameKind,
    /// Files of the frame (tafl 11, Camelot 12).
    pub files: u8,
    /// Ranks of the frame (tafl 11, Camelot 16).
    pub ranks: u8,
    /// The files' names, from the first (`a` / `A`).
    pub file_names: Vec<String>,
    /// The ranks' names, from rank 1.
    pub rank_names: Vec<String>,
    /// Every cell of the frame, rank by rank from rank 1.
    pub cells: Vec<Cell>,
    /// The side to move.
    pub to_move: Player,
}

impl BoardView {
    /// The board of `game` as it stands.
    #[must_use]
    pub fn of(game: &AnyGame) -> BoardView {
        let (files, ranks) = (game.files(), game.ranks());
        let file_names = (0..files)
            .map(|f| letters(&game.square_name(Square::new(f, 0))))
            .collect();
        let rank_names = (0..ranks)
            .map(|r| digits(&game.square_name(Square::new(0, r))))
            .collect();
        let cells = (0..ranks)
            .flat_map(|rank| (0..files).map(move |file| Square::new(file, rank)))
            .map(|sq| game.cell(sq))
            .collect();
        BoardView {
            kind: game.kind(),
            files,
            ranks,
            file_names,
            rank_names,
            cells,
            to_move: game::Game::to_move(game),
        }
    }
}

fn letters(name: &str) -> String {
    name.chars().filter(char::is_ascii_alphabetic).collect()
}

fn digits(name: &str) -> String {
    name.chars().filter(char::is_ascii_digit).collect()
}
