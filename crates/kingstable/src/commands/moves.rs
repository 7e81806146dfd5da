//! `kingstable moves`: the legal moves of a position.

use anyhow::Result;
use serde::Serialize;

use crate::PositionArgs;
use crate::setup::Setup;

#[derive(Serialize)]
struct MoveJson {
    #[serde(rename = "move")]
    text: String,
    captures: u32,
}

/// One move per line in the game's notation with its captures, or a JSON array.
pub fn run<G: Setup>(position: &PositionArgs, json: bool) -> Result<()> {
    let game: G = position.build()?;
    let mut moves = Vec::new();
    game.legal_moves(&mut moves);
    if let Some(outcome) = game.outcome() {
        eprintln!(
            "the game is over: {} ({})",
            game.kind().status_name(Some(outcome)),
            outcome.reason
        );
    }
    if json {
        let list: Vec<MoveJson> = moves
            .iter()
            .map(|&mv| MoveJson {
                text: game.format_move(mv),
                captures: game.captures(mv),
            })
            .collect();
        println!("{}", serde_json::to_string(&list)?);
    } else {
        for mv in moves {
            println!("{}", game.format_move(mv));
        }
    }
    Ok(())
}
