//! Camelot text readers: positions and setups (FEN-like), paths, squares, and move texts
//! read against the start (a move that reads is legal, and is written back to a text
//! that reads as the same move).
#![no_main]

use camelot::{Camelot, Path, Position, Setup, Square};
use game::Game;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = kingstable_fuzz::text(data);
    if let Ok(position) = text.parse::<Position>() {
        let written = position.fen();
        let again: Position = written
            .parse()
            .unwrap_or_else(|e| panic!("{written} (written) does not read back: {e}"));
        assert_eq!(again.fen(), written);
    }
    if let Ok(setup) = text.parse::<Setup>() {
        let written = setup.fen();
        let again: Setup = written
            .parse()
            .unwrap_or_else(|e| panic!("{written} (written) does not read back: {e}"));
        assert_eq!(again.fen(), written);
    }
    let _ = text.parse::<Path>();
    let _ = text.parse::<Square>();
    if let Ok(game) = Camelot::from_position_string(&text) {
        let mut moves = Vec::new();
        game.legal_moves(&mut moves);
    }
    let game = Camelot::start();
    if let Ok(mv) = game.parse_move(&text) {
        assert!(game.is_legal(mv), "{text} reads as an illegal move");
        let written = game.format_move(mv);
        assert_eq!(game.parse_move(&written).ok(), Some(mv), "{written}");
    }
});
