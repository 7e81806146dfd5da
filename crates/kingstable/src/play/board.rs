//! What the terminal game needs to know about a game beyond [`game::Game`]: the board's
//! geometry ([`games::Board`]: its shape, what stands on each square and which squares
//! are special, square names, the squares a move touches) and a search for the AI; and
//! reading a record to play on from.

use anyhow::{Context, Result};
use game::{Game, GameKind, Outcome};
use games::record::ReplayOptions;

pub use games::{Cell, Mark, Square as Sq};

/// A game the terminal game can show and play: a board, and the AI's search.
pub trait PlayGame: engine::EngineGame + games::Board {}

impl<G: engine::EngineGame + games::Board> PlayGame for G {}

/// A game read from a record: where it starts, its moves (checked), and how it ended
/// (by the rules, or as the record says: time, resignation…).
#[derive(Debug)]
pub struct Loaded<G: Game> {
    /// The start position the record names.
    pub start: G,
    /// Every recorded move, each legal after the ones before it.
    pub moves: Vec<G::Move>,
    /// How the game ended.
    pub outcome: Option<Outcome>,
}

/// Reads the first game of a record (`.otg`, WCF score or move list; captures may be left
/// out, as when typed by hand) and replays it, naming the first move that does not
/// replay.
pub fn load_record<G: PlayGame>(kind: GameKind, text: &str) -> Result<Loaded<G>> {
    let options = ReplayOptions {
        lenient_captures: true,
        ..ReplayOptions::default()
    };
    let loaded = games::record::load(kind, text, options)?;
    let start = G::from_any(loaded.start).context("the record is of another game")?;
    let moves = loaded
        .game
        .moves()
        .into_iter()
        .filter_map(G::move_from_any)
        .collect();
    Ok(Loaded {
        start,
        moves,
        outcome: loaded.outcome,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use camelot::Camelot;
    use game::{EndReason, Player};
    use games::Board;
    use tafl::Tafl;

    #[test]
    fn records_load_with_their_endings() {
        let loaded = load_record::<Tafl>(GameKind::Fetlar, "d1-d3 e5-e2 timeout\n").unwrap();
        assert_eq!(loaded.moves.len(), 2);
        assert_eq!(loaded.start.ply(), 0);
        assert_eq!(
            loaded.outcome,
            Some(Outcome::loss(Player::First, EndReason::Timeout))
        );
        let err = load_record::<Tafl>(GameKind::Fetlar, "d1-d3 d3-d1\n").unwrap_err();
        assert!(format!("{err:#}").contains("ply 2 (d3-d1)"), "{err:#}");
        assert!(load_record::<Tafl>(GameKind::Fetlar, "\n").is_err());
    }

    #[test]
    fn records_load_to_the_game_inside() {
        let mut game = Camelot::start();
        let mv = game.parse_move("D6-F8").unwrap();
        game.play(mv);
        let lost = Outcome::loss(Player::Second, EndReason::Timeout);
        let text = games::record::write(&game.to_any(), &[], Some(lost));
        let loaded = load_record::<Camelot>(GameKind::Camelot, &text).unwrap();
        assert_eq!(loaded.moves, [mv]);
        assert_eq!(loaded.outcome, Some(lost));
        assert_eq!(loaded.start, Camelot::start());
        // Captures may be left out of a move list typed by hand.
        let loaded = load_record::<Tafl>(GameKind::Copenhagen, "d1-d3 e5-e2 g1-g3 f4-c4 g3-e3\n");
        assert_eq!(loaded.unwrap().moves.len(), 5);
    }
}
