//! Prints what a browser board draws — the board view, the legal moves and the moves
//! played, in the JSON shapes of the live-games API (the `game` object of a `state`
//! message, without the parts only a server knows) — for a game kind, an optional start
//! position and a list of moves. The web app's board tests use its output as fixtures.
//!
//! ```text
//! cargo run -p games --example board_json -- copenhagen d1-d3 e5-e2
//! cargo run -p games --example board_json -- camelot --position "<FEN>" F6-F8
//! ```

use std::process::ExitCode;

use games::{AnyGame, BoardView, Game, GameKind, MoveInfo, Player};
use serde_json::{Value, json};

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(text) => {
            println!("{text}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("board_json: {message}");
            eprintln!("usage: board_json KIND [--position POSITION] [MOVE...]");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Vec<String>) -> Result<String, String> {
    let mut args = args.into_iter();
    let kind: GameKind = args
        .next()
        .ok_or("no game kind given")?
        .parse()
        .map_err(|e| format!("{e}"))?;
    let mut rest: Vec<String> = args.collect();
    let mut game = if rest.first().map(String::as_str) == Some("--position") {
        let position = rest
            .get(1)
            .ok_or("--position needs a position string")?
            .clone();
        rest.drain(..2);
        AnyGame::from_position(kind, &position).map_err(|e| format!("position: {e}"))?
    } else {
        AnyGame::start(kind)
    };
    let start = game.position_string();
    let mut moves = Vec::new();
    for (i, text) in rest.iter().enumerate() {
        let player = game.to_move();
        let info = game
            .try_play(text)
            .map_err(|e| format!("move {} ({text}): {e}", i + 1))?;
        moves.push(move_json(i + 1, player, &info));
    }
    let result = game
        .outcome()
        .map(|outcome| json!({ "winner": outcome.winner, "reason": outcome.reason }));
    let view = json!({
        "kind": kind,
        "start_position": start,
        "position": game.position_string(),
        "status": if result.is_some() { "finished" } else { "ongoing" },
        "result": result,
        "board": BoardView::of(&game),
        "moves": moves,
        "legal_moves": game.legal_moves_info(),
    });
    serde_json::to_string(&view).map_err(|e| e.to_string())
}

fn move_json(ply: usize, player: Player, info: &MoveInfo) -> Value {
    json!({
        "ply": ply,
        "text": info.text,
        "player": player,
        "from": info.from,
        "to": info.to,
        "path": info.path,
        "captures": info.captures,
    })
}
