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

use games::{AnyGame, Game, GameKind, MoveInfo, Player, Square};
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
        "board": board_view(&game),
        "moves": moves,
        "legal_moves": game.legal_moves_info(),
    });
    serde_json::to_string(&view).map_err(|e| e.to_string())
}

/// The board view of LIVE_API.md: frame size, square names, cells rank by rank from
/// rank 1, and the side to move.
fn board_view(game: &AnyGame) -> Value {
    let (files, ranks) = (game.files(), game.ranks());
    let file_names: Vec<String> = (0..files)
        .map(|f| letters(&game.square_name(Square::new(f, 0))))
        .collect();
    let rank_names: Vec<String> = (0..ranks)
        .map(|r| digits(&game.square_name(Square::new(0, r))))
        .collect();
    let cells: Vec<_> = (0..ranks)
        .flat_map(|rank| (0..files).map(move |file| Square::new(file, rank)))
        .map(|sq| game.cell(sq))
        .collect();
    json!({
        "kind": game.kind(),
        "files": files,
        "ranks": ranks,
        "file_names": file_names,
        "rank_names": rank_names,
        "cells": cells,
        "to_move": game.to_move(),
    })
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

fn letters(name: &str) -> String {
    name.chars().filter(char::is_ascii_alphabetic).collect()
}

fn digits(name: &str) -> String {
    name.chars().filter(char::is_ascii_digit).collect()
}
