//! Helpers shared by the engine's integration tests.

use game::Game;
use tafl::{Rules, Tafl};

/// The game under `rules` after `moves` (space-separated, in the game's notation).
pub fn after(rules: Rules, moves: &str) -> Tafl {
    let mut game = Tafl::new(rules);
    for text in moves.split_whitespace() {
        let mv = game.parse_move(text).unwrap();
        game.play(mv);
    }
    game
}
