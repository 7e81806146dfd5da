//! Camelot rules invariants (see `kingstable_fuzz::check_rules`) from the start, or from
//! a position the input writes: legal exactly when listed (made-up moves change a
//! listed move's end square or captures), notation round-trips, incremental hash equals
//! recomputed, undo restores.
#![no_main]

use camelot::{Bitboard, Camelot, Move, Square};
use kingstable_fuzz::{Bytes, check_rules};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut bytes = Bytes::new(data);
    let mut game = if bytes.byte() & 1 == 0 {
        Camelot::start()
    } else {
        match Camelot::from_position_string(&bytes.line()) {
            Ok(game) => game,
            Err(_) => return,
        }
    };
    check_rules(
        &mut game,
        &mut bytes,
        |_, listed, bytes| {
            let pick = listed[usize::from(bytes.byte()) % listed.len()];
            let square = |b: u8| Square::from_index(usize::from(b)).unwrap_or(pick.from);
            match bytes.byte() % 4 {
                0 => Move {
                    to: square(bytes.byte()),
                    ..pick
                },
                1 => Move {
                    captured: pick.captured.with(square(bytes.byte())),
                    ..pick
                },
                2 => Move {
                    captured: Bitboard::EMPTY,
                    ..pick
                },
                _ => Move {
                    from: square(bytes.byte()),
                    to: square(bytes.byte()),
                    captured: Bitboard::EMPTY,
                },
            }
        },
        |game| game.position().compute_hash(),
    );
});
