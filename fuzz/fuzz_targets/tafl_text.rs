//! Tafl text readers: positions (`<OpenTafl string> <side>`), squares, variant names,
//! OpenTafl rules strings, and move texts read against the start (a move that reads is
//! legal, and is written back to a text that reads as the same move).
#![no_main]

use game::Game;
use libfuzzer_sys::fuzz_target;
use tafl::otg::OpenTaflRules;
use tafl::{Position, Rules, Square, Tafl, Variant};

fuzz_target!(|data: &[u8]| {
    let text = kingstable_fuzz::text(data);
    if let Ok(position) = Position::from_string_with_side(&text) {
        let written = position.to_string_with_side();
        let again = Position::from_string_with_side(&written)
            .unwrap_or_else(|e| panic!("{written} (written) does not read back: {e}"));
        assert_eq!(again.to_string_with_side(), written);
        let _ = Tafl::from_position(Rules::COPENHAGEN, position);
    }
    let _ = text.parse::<Square>();
    let _ = text.parse::<Variant>();
    let _ = text.parse::<OpenTaflRules>();
    for rules in [Rules::FETLAR, Rules::COPENHAGEN] {
        let game = Tafl::new(rules);
        for strict in [false, true] {
            if let Ok(mv) = game.parse_move_text(&text, strict) {
                assert!(game.is_legal(mv), "{text} reads as an illegal move");
                let written = game.format_move(mv);
                assert_eq!(game.parse_move(&written).ok(), Some(mv), "{written}");
            }
        }
    }
});
