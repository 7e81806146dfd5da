//! What a front end draws: the board of a game as plain data (serde), so that a browser
//! or any other client holds no rules.

use std::borrow::Cow;
use std::sync::OnceLock;

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
    pub file_names: Cow<'static, [String]>,
    /// The ranks' names, from rank 1.
    pub rank_names: Cow<'static, [String]>,
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
        let (file_names, rank_names) = names(game);
        let cells = (0..ranks)
            .flat_map(|rank| (0..files).map(move |file| Square::new(file, rank)))
            .map(|sq| game.cell(sq))
            .collect();
        BoardView {
            kind: game.kind(),
            files,
            ranks,
            file_names: Cow::Borrowed(file_names),
            rank_names: Cow::Borrowed(rank_names),
            cells,
            to_move: game::Game::to_move(game),
        }
    }

    /// The pieces of every cell in one string, a character a cell in the order of
    /// [`BoardView::cells`]: `.` for no piece (or a square off the board), else the
    /// piece's kind by its initial (`a`ttacker, `d`efender, `k`ing, k`n`ight, `m`an),
    /// upper case for the first player's and lower case for the second's. With the
    /// board's frame and marks, which a game never changes, it is the whole board: the
    /// server's `events` messages carry it instead of the cells.
    ///
    /// ```
    /// use games::{AnyGame, BoardView, GameKind};
    ///
    /// let view = BoardView::of(&AnyGame::start(GameKind::Copenhagen));
    /// let pieces = view.pieces();
    /// assert_eq!(pieces.len(), 121);
    /// assert_eq!(&pieces[..11], "...AAAAA...");
    /// assert_eq!(pieces.as_bytes()[60], b'k');
    /// ```
    #[must_use]
    pub fn pieces(&self) -> String {
        self.cells
            .iter()
            .map(|cell| cell.piece.map_or('.', |(owner, kind)| kind.initial(owner)))
            .collect()
    }
}

/// The names of `game`'s files and ranks, worked out once for each kind of game (a
/// server draws a board on every move).
fn names(game: &AnyGame) -> (&'static [String], &'static [String]) {
    static NAMES: [OnceLock<(Vec<String>, Vec<String>)>; 3] =
        [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    let kind = game.kind();
    let slot = GameKind::ALL.iter().position(|k| *k == kind).unwrap_or(0);
    let (files, ranks) = NAMES[slot].get_or_init(|| {
        let files = (0..game.files())
            .map(|f| letters(&game.square_name(Square::new(f, 0))))
            .collect();
        let ranks = (0..game.ranks())
            .map(|r| digits(&game.square_name(Square::new(0, r))))
            .collect();
        (files, ranks)
    });
    (files, ranks)
}

fn letters(name: &str) -> String {
    name.chars().filter(char::is_ascii_alphabetic).collect()
}

fn digits(name: &str) -> String {
    name.chars().filter(char::is_ascii_digit).collect()
}
