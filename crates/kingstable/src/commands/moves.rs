//! `kingstable moves`: the legal moves of a position.

use anyhow::Result;
use game::Game;
use games::AnyGame;
use serde::Serialize;

#[derive(Serialize)]
struct MoveJson {
    #[serde(rename = "move")]
    text: String,
    captures: usize,
}

/// One move per line in the game's notation with its captures, or a JSON array.
pub fn run(game: &AnyGame, json: bool) -> Result<()> {
    let moves = game.legal_moves_info();
    if let Some(outcome) = game.outcome() {
        eprintln!(
            "the game is over: {} ({})",
            game.kind().status_name(Some(outcome)),
            outcome.reason
        );
    }
    if json {
        let list: Vec<MoveJson> = moves
            .into_iter()
            .map(|info| MoveJson {
                captures: info.captures.len(),
                text: info.text,
            })
            .collect();
        println!("{}", serde_json::to_string(&list)?);
    } else {
        for info in moves {
            println!("{}", info.text);
        }
    }
    Ok(())
}
