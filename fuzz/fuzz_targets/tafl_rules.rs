//! Tafl rules invariants (see `kingstable_fuzz::check_rules`) from the start of either
//! variant, or from a position the input writes: legal exactly when listed, notation
//! round-trips, incremental hash equals recomputed, undo restores.
#![no_main]

use kingstable_fuzz::{Bytes, check_rules};
use libfuzzer_sys::fuzz_target;
use tafl::{Move, Position, Rules, Square, Tafl};

fuzz_target!(|data: &[u8]| {
    let mut bytes = Bytes::new(data);
    let head = bytes.byte();
    let rules = if head & 1 == 0 {
        Rules::FETLAR
    } else {
        Rules::COPENHAGEN
    };
    let mut game = if head & 2 == 0 {
        Tafl::new(rules)
    } else {
        match Position::from_string_with_side(&bytes.line()) {
            Ok(position) => Tafl::from_position(rules, position),
            Err(_) => return,
        }
    };
    check_rules(
        &mut game,
        &mut bytes,
        |_, listed, bytes| {
            let pick = listed[usize::from(bytes.byte()) % listed.len()];
            let square = |b: u8| Square::from_index(b % 121).unwrap_or(pick.from);
            match bytes.byte() % 3 {
                0 => Move {
                    from: pick.from,
                    to: square(bytes.byte()),
                },
                1 => Move {
                    from: square(bytes.byte()),
                    to: pick.to,
                },
                _ => Move {
                    from: square(bytes.byte()),
                    to: square(bytes.byte()),
                },
            }
        },
        |game| game.position().compute_hash(),
    );
});
