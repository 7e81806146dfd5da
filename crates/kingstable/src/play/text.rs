//! The board and the game's state as plain text, for the line mode.

use std::fmt::Write as _;

use game::Player;
use games::Board;
use session::{Timestamp, format_clock};

use super::board::{Cell, Mark, Sq};
use super::session::TerminalGame;

/// The files left to right and ranks top to bottom as drawn: rank 1 at the bottom, or at
/// the top when `flipped` (files then run right to left).
#[must_use]
pub fn view_order<G: Board>(game: &G, flipped: bool) -> (Vec<u8>, Vec<u8>) {
    let mut files: Vec<u8> = (0..game.files()).collect();
    let mut ranks: Vec<u8> = (0..game.ranks()).rev().collect();
    if flipped {
        files.reverse();
        ranks.reverse();
    }
    (files, ranks)
}

/// The letter drawn for a cell: the piece, `+` on an empty special square (throne,
/// corner, castle), `.` on an empty square, a space off the board.
#[must_use]
pub fn cell_char(cell: Cell) -> char {
    match (cell.exists, cell.piece, cell.mark) {
        (false, _, _) => ' ',
        (true, Some((owner, piece)), _) => piece.letter(owner),
        (true, None, Mark::Plain) => '.',
        (true, None, _) => '+',
    }
}

/// The board with coordinates on all four sides.
///
/// ```text
///     a b c d e f g h i j k
///  11 + . . X X X X X . . + 11
/// ```
#[must_use]
pub fn board_text<G: Board>(game: &G, flipped: bool) -> String {
    let (files, ranks) = view_order(game, flipped);
    let letters: String = files
        .iter()
        .map(|&f| {
            let name = game.square_name(Sq::new(f, first_rank_of(game, f)));
            format!("{} ", name.chars().next().unwrap_or(' '))
        })
        .collect();
    let header = format!("    {}", letters.trim_end());
    let mut out = String::new();
    writeln!(out, "{header}").expect("writing to a String cannot fail");
    for &rank in &ranks {
        let row: String = files
            .iter()
            .map(|&file| format!("{} ", cell_char(game.cell(Sq::new(file, rank)))))
            .collect();
        let line = format!("{:>3} {row}{}", rank + 1, rank + 1);
        writeln!(out, "{line}").expect("writing to a String cannot fail");
    }
    out.push_str(&header);
    out.push('\n');
    out
}

/// A rank on which `file` exists, to name the file by.
fn first_rank_of<G: Board>(game: &G, file: u8) -> u8 {
    (0..game.ranks())
        .find(|&rank| game.exists(Sq::new(file, rank)))
        .unwrap_or(0)
}

/// The lines under the board: the last move and its captures, pieces lost, clocks, and
/// who is to move.
#[must_use]
pub fn status_text(session: &TerminalGame, now: Timestamp) -> String {
    let mut out = String::new();
    let kind = session.kind();
    if let Some(last) = session.moves().last() {
        let who = if session.by_ai(last) { "AI" } else { "you" };
        let who = if session.options().players[0] == session.options().players[1] {
            kind.side_name(last.player)
        } else {
            who
        };
        write!(out, "last move: {} ({who})", last.info.text)
            .expect("writing to a String cannot fail");
        if !last.info.captures.is_empty() {
            let game = session.game();
            let names: Vec<String> = last
                .info
                .captures
                .iter()
                .map(|&s| game.square_name(s))
                .collect();
            write!(out, ", captured {}", names.join(" ")).expect("writing to a String cannot fail");
        }
        out.push('\n');
    }
    let lost = session.pieces_lost();
    if lost != [0, 0] {
        writeln!(
            out,
            "pieces lost: {} {}, {} {}",
            kind.side_name(Player::First),
            lost[0],
            kind.side_name(Player::Second),
            lost[1]
        )
        .expect("writing to a String cannot fail");
    }
    if let Some(times) = session.clocks().and_then(|clocks| clocks.both(now)) {
        writeln!(
            out,
            "clock: {} {}, {} {}",
            kind.side_name(Player::First),
            format_clock(times[0]),
            kind.side_name(Player::Second),
            format_clock(times[1])
        )
        .expect("writing to a String cannot fail");
    }
    if session.outcome().is_none() {
        let to_move = session.to_move();
        writeln!(out, "{} to move", session.side_label(to_move))
            .expect("writing to a String cannot fail");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use camelot::Camelot;
    use tafl::{Rules, Tafl};

    #[test]
    fn tafl_board_text_has_coordinates_and_marks() {
        let text = board_text(&Tafl::new(Rules::FETLAR), false);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "    a b c d e f g h i j k");
        assert_eq!(lines[1], " 11 + . . X X X X X . . + 11");
        assert_eq!(lines[6], "  6 X X . O O K O O . X X 6");
        assert_eq!(lines[11], "  1 + . . X X X X X . . + 1");
        let flipped = board_text(&Tafl::new(Rules::FETLAR), true);
        assert_eq!(flipped.lines().next(), Some("    k j i h g f e d c b a"));
        assert!(flipped.lines().nth(1).unwrap().starts_with("  1 "));
    }

    #[test]
    fn camelot_board_text_cuts_the_corners() {
        let text = board_text(&Camelot::start(), false);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "    A B C D E F G H I J K L");
        assert_eq!(lines[1], " 16           + +           16");
        assert_eq!(lines[6], " 11 . . n m m m m m m n . . 11");
        assert_eq!(lines[16], "  1           + +           1");
    }
}
