//! Game records of the three games (OpenTafl `.otg`, PGN-like tags and move lists,
//! Camelot scores), as an import reads them: every game in the text is read and
//! replayed under each game's rules; a game that replays is written out again and that
//! record must load to the same moves.
#![no_main]

use game::GameKind;
use games::record::{self, ReplayOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = kingstable_fuzz::text(data);
    let _ = game::record::parse_records(&text);
    let _ = game::record::read_games(&text);
    for kind in GameKind::ALL {
        for lenient_captures in [false, true] {
            let options = ReplayOptions {
                lenient_captures,
                ..ReplayOptions::default()
            };
            let _ = record::read(kind, &text, options);
            if let Ok(replay) = record::load(kind, &text, options) {
                let outcome = replay.outcome;
                // With a tag, as the server writes records: a game of no moves written
                // without tags is an empty text, which is no game.
                let tags = [("Site".to_owned(), "fuzz".to_owned())];
                let written = record::write(&replay.game, &tags, outcome);
                let again = record::load(kind, &written, options).unwrap_or_else(|e| {
                    panic!("a written {kind:?} record does not load: {e}\n{written}")
                });
                assert_eq!(
                    again.game.move_texts(),
                    replay.game.move_texts(),
                    "{written}"
                );
            }
        }
    }
});
