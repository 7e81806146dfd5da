//! What the terminal game needs to know about a game beyond [`game::Game`]: the shape
//! of its board, what stands on each square and which squares are special, square
//! names, the squares a move touches, and how its records are written and read.

use anyhow::{Context, Result, bail};
use game::record::{Record, RecordEnding};
use game::{EndReason, Game, GameKind, Outcome, Player};

use crate::setup::Setup;

/// A square as the screen sees it: 0-based file (`a`/`A` = 0) and rank (rank 1 = 0),
/// whatever the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sq {
    /// 0 = the first file.
    pub file: u8,
    /// 0 = rank 1.
    pub rank: u8,
}

impl Sq {
    /// The square on `file` and `rank` (both 0-based).
    #[must_use]
    pub const fn new(file: u8, rank: u8) -> Sq {
        Sq { file, rank }
    }
}

/// A square the rules treat specially, drawn so the player sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// An ordinary square.
    Plain,
    /// Tafl: the throne in the middle.
    Throne,
    /// Tafl: a corner, where the king escapes.
    Corner,
    /// Camelot: a square of `Player`'s castle.
    Castle(Player),
}

/// What the screen draws on one square of the board's frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cell {
    /// Whether the square is part of the board (Camelot's frame has cut corners).
    pub exists: bool,
    /// The piece on it: its owner and letter (`X`, `O`, `K`; `N`, `M`, `n`, `m`).
    pub piece: Option<(Player, char)>,
    /// Whether the square is special.
    pub mark: Mark,
}

/// A game the terminal game can show and play.
pub trait PlayGame: Setup + engine::EngineGame {
    /// Files of the board's frame.
    const FILES: u8;
    /// Ranks of the board's frame.
    const RANKS: u8;
    /// The file extension its records are saved with.
    const RECORD_EXTENSION: &'static str;

    /// What stands on `sq` and how it is marked.
    fn cell(&self, sq: Sq) -> Cell;

    /// The square's name as the game's notation writes it (`d1`, `F16`).
    fn square_name(sq: Sq) -> String;

    /// Reads a square name (any case); `None` if it is not a square of the board.
    fn parse_square(text: &str) -> Option<Sq>;

    /// Where a move starts and ends.
    fn move_ends(mv: Self::Move) -> (Sq, Sq);

    /// The squares of the pieces a legal move captures here (before it is played).
    fn captured_squares(&self, mv: Self::Move) -> Vec<Sq>;

    /// The tags naming the players, in the record style of the game.
    fn player_tags(names: [&str; 2]) -> Vec<(String, String)>;

    /// Whether `sq` is on the board.
    #[must_use]
    fn exists(sq: Sq) -> bool {
        sq.file < Self::FILES
            && sq.rank < Self::RANKS
            && Self::parse_square(&Self::square_name(sq)) == Some(sq)
    }
}

fn tafl_square(sq: Sq) -> Option<tafl::Square> {
    (sq.file < tafl::SIZE && sq.rank < tafl::SIZE).then(|| tafl::Square::new(sq.file, sq.rank))
}

fn from_tafl(sq: tafl::Square) -> Sq {
    Sq::new(sq.file(), sq.rank())
}

impl PlayGame for tafl::Tafl {
    const FILES: u8 = tafl::SIZE;
    const RANKS: u8 = tafl::SIZE;
    const RECORD_EXTENSION: &'static str = "otg";

    fn cell(&self, sq: Sq) -> Cell {
        let Some(square) = tafl_square(sq) else {
            return Cell {
                exists: false,
                piece: None,
                mark: Mark::Plain,
            };
        };
        let piece = self.position().piece_at(square).map(|piece| match piece {
            tafl::Piece::Attacker => (Player::First, 'X'),
            tafl::Piece::Defender => (Player::Second, 'O'),
            tafl::Piece::King => (Player::Second, 'K'),
        });
        let mark = if square == tafl::Square::THRONE {
            Mark::Throne
        } else if square.is_corner() {
            Mark::Corner
        } else {
            Mark::Plain
        };
        Cell {
            exists: true,
            piece,
            mark,
        }
    }

    fn square_name(sq: Sq) -> String {
        format!("{}{}", (b'a' + sq.file) as char, sq.rank + 1)
    }

    fn parse_square(text: &str) -> Option<Sq> {
        text.trim().parse::<tafl::Square>().ok().map(from_tafl)
    }

    fn move_ends(mv: tafl::Move) -> (Sq, Sq) {
        (from_tafl(mv.from), from_tafl(mv.to))
    }

    fn captured_squares(&self, mv: tafl::Move) -> Vec<Sq> {
        self.position()
            .captures_of(mv, self.rules())
            .squares()
            .map(from_tafl)
            .collect()
    }

    fn player_tags(names: [&str; 2]) -> Vec<(String, String)> {
        vec![
            ("attackers".to_owned(), names[0].to_owned()),
            ("defenders".to_owned(), names[1].to_owned()),
        ]
    }
}

fn camelot_square(sq: Sq) -> Option<camelot::Square> {
    camelot::Square::new(sq.file, sq.rank)
}

fn from_camelot(sq: camelot::Square) -> Sq {
    Sq::new(sq.file(), sq.rank())
}

impl PlayGame for camelot::Camelot {
    const FILES: u8 = camelot::square::FILES;
    const RANKS: u8 = camelot::square::RANKS;
    const RECORD_EXTENSION: &'static str = "txt";

    fn cell(&self, sq: Sq) -> Cell {
        let Some(square) = camelot_square(sq) else {
            return Cell {
                exists: false,
                piece: None,
                mark: Mark::Plain,
            };
        };
        let piece = self
            .position()
            .piece_at(square)
            .map(|(player, piece)| (player, piece.letter(player)));
        let mark = Player::BOTH
            .into_iter()
            .find(|&p| camelot::castle(p).contains(square))
            .map_or(Mark::Plain, Mark::Castle);
        Cell {
            exists: true,
            piece,
            mark,
        }
    }

    fn square_name(sq: Sq) -> String {
        format!("{}{}", (b'A' + sq.file) as char, sq.rank + 1)
    }

    fn parse_square(text: &str) -> Option<Sq> {
        text.trim()
            .parse::<camelot::Square>()
            .ok()
            .map(from_camelot)
    }

    fn move_ends(mv: camelot::Move) -> (Sq, Sq) {
        (from_camelot(mv.from), from_camelot(mv.to))
    }

    fn captured_squares(&self, mv: camelot::Move) -> Vec<Sq> {
        mv.captured.squares().map(from_camelot).collect()
    }

    fn player_tags(names: [&str; 2]) -> Vec<(String, String)> {
        vec![
            ("White".to_owned(), names[0].to_owned()),
            ("Black".to_owned(), names[1].to_owned()),
        ]
    }
}

/// A game read from a record: where it starts, its moves (checked), and how the record
/// says it ended if the rules did not end it (time or resignation).
#[derive(Debug)]
pub struct Loaded<G: Game> {
    /// The start position the record names.
    pub start: G,
    /// Every recorded move, each legal after the ones before it.
    pub moves: Vec<G::Move>,
    /// `timeout` or `---` after the last move, as an outcome.
    pub ending: Option<Outcome>,
}

/// Reads the first game of a record (`.otg`, WCF score or move list) and replays it,
/// naming the first move that does not replay.
pub fn load_record<G: PlayGame>(kind: GameKind, text: &str) -> Result<Loaded<G>> {
    let records = game::record::parse_records(text)?;
    let Some(record) = records.first() else {
        bail!("the file holds no game");
    };
    replay::<G>(kind, record)
}

fn replay<G: PlayGame>(kind: GameKind, record: &Record) -> Result<Loaded<G>> {
    let start = G::from_record(kind, record, true)?;
    let mut game = start.clone();
    let mut moves = Vec::with_capacity(record.moves.len());
    for (i, text) in record.moves.iter().enumerate() {
        let line = record.move_lines.get(i).copied().unwrap_or(record.line);
        let mv = game
            .parse_move(text)
            .with_context(|| format!("line {line}, move {} ({text})", i + 1))?;
        game.play(mv);
        moves.push(mv);
    }
    let ending = match record.ending {
        _ if game.outcome().is_some() => None,
        Some(RecordEnding::Timeout) => Some(Outcome::loss(game.to_move(), EndReason::Timeout)),
        Some(RecordEnding::Resignation) => {
            Some(Outcome::loss(game.to_move(), EndReason::Resignation))
        }
        None => stated_ending(record),
    };
    Ok(Loaded {
        start,
        moves,
        ending,
    })
}

/// An ending stated by a termination tag with a result, as `Setup::write_record` writes
/// them (`[termination:time forfeit]` with `[result:1]`).
fn stated_ending(record: &Record) -> Option<Outcome> {
    let reason = match record
        .tag("termination")?
        .trim()
        .to_ascii_lowercase()
        .as_str()
    {
        "time forfeit" | "timeout" => EndReason::Timeout,
        "resignation" => EndReason::Resignation,
        "draw agreed" => EndReason::Agreement,
        _ => return None,
    };
    Some(Outcome {
        winner: record.stated_result()?,
        reason,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use camelot::Camelot;
    #[allow(unused_imports)]
    use game::Game;
    use tafl::{Rules, Tafl};

    #[test]
    fn tafl_cells_mark_throne_and_corners() {
        let game = Tafl::new(Rules::FETLAR);
        let throne = game.cell(Sq::new(5, 5));
        assert_eq!(throne.mark, Mark::Throne);
        assert_eq!(throne.piece, Some((Player::Second, 'K')));
        assert_eq!(game.cell(Sq::new(10, 10)).mark, Mark::Corner);
        assert_eq!(game.cell(Sq::new(3, 0)).piece, Some((Player::First, 'X')));
        assert!(!game.cell(Sq::new(11, 0)).exists);
        assert_eq!(Tafl::parse_square("K11"), Some(Sq::new(10, 10)));
        assert_eq!(Tafl::square_name(Sq::new(3, 0)), "d1");
    }

    #[test]
    fn camelot_cells_have_cut_corners_and_castles() {
        let game = Camelot::start();
        assert!(!game.cell(Sq::new(0, 0)).exists);
        assert!(!Camelot::exists(Sq::new(0, 14)));
        assert!(Camelot::exists(Sq::new(2, 14)));
        assert_eq!(game.cell(Sq::new(5, 0)).mark, Mark::Castle(Player::First));
        assert_eq!(game.cell(Sq::new(6, 15)).mark, Mark::Castle(Player::Second));
        assert_eq!(game.cell(Sq::new(2, 5)).piece, Some((Player::First, 'N')));
        assert_eq!(Camelot::square_name(Sq::new(5, 15)), "F16");
    }

    #[test]
    fn records_load_with_their_endings() {
        let loaded = load_record::<Tafl>(GameKind::Fetlar, "d1-d3 e5-e2 timeout\n").unwrap();
        assert_eq!(loaded.moves.len(), 2);
        assert_eq!(loaded.start.ply(), 0);
        assert_eq!(
            loaded.ending,
            Some(Outcome::loss(Player::First, EndReason::Timeout))
        );
        let err = load_record::<Tafl>(GameKind::Fetlar, "d1-d3 d3-d1\n").unwrap_err();
        assert!(format!("{err:#}").contains("move 2 (d3-d1)"), "{err:#}");
        assert!(load_record::<Tafl>(GameKind::Fetlar, "\n").is_err());
    }

    #[test]
    fn endings_outside_the_rules_round_trip_through_records() {
        let mut game = Camelot::start();
        let mv = game.parse_move("D6-F8").unwrap();
        game.play(mv);
        let lost = Outcome::loss(Player::Second, EndReason::Timeout);
        let text = game.write_record(&Camelot::player_tags(["me", "ai"]), Some(lost));
        assert!(text.contains("[White \"me\"]"), "{text}");
        let loaded = load_record::<Camelot>(GameKind::Camelot, &text).unwrap();
        assert_eq!(loaded.moves, [mv]);
        assert_eq!(loaded.ending, Some(lost));

        let mut game = Tafl::new(Rules::FETLAR);
        let mv = game.parse_move("d1-d3").unwrap();
        game.play(mv);
        let resigned = Outcome::loss(Player::Second, EndReason::Resignation);
        let text = game.write_record(&Tafl::player_tags(["me", "ai"]), Some(resigned));
        assert!(text.contains("[attackers:me]"), "{text}");
        let loaded = load_record::<Tafl>(GameKind::Fetlar, &text).unwrap();
        assert_eq!(loaded.ending, Some(resigned));
    }
}
