//! The real game fragments in `tests/data/` replay legally, move by move, the way the
//! command-line replays any record: `game::record::parse_records`, then
//! `Game::parse_move` and `Game::play` on every move text.

mod common;

use camelot::Camelot;
use camelot::record::{replay, write_score};
use game::Game;
use game::record::parse_records;

const FILES: [(&str, &str); 5] = [
    (
        "warren_1930_openings.txt",
        include_str!("data/warren_1930_openings.txt"),
    ),
    (
        "wcf_2009_wc_game1.txt",
        include_str!("data/wcf_2009_wc_game1.txt"),
    ),
    (
        "wcf_2009_wc_game4.txt",
        include_str!("data/wcf_2009_wc_game4.txt"),
    ),
    (
        "wcf_2009_wc_game5.txt",
        include_str!("data/wcf_2009_wc_game5.txt"),
    ),
    (
        "wcf_first_moves_facts.txt",
        include_str!("data/wcf_first_moves_facts.txt"),
    ),
];

/// Replays like the CLI: generic `Game` calls only.
fn replay_generically(text: &str) -> Vec<Camelot> {
    parse_records(text)
        .expect("the record text layer reads the file")
        .iter()
        .map(|record| {
            let mut game = Camelot::start();
            for (i, mv) in record.moves.iter().enumerate() {
                let parsed = game.parse_move(mv).unwrap_or_else(|e| {
                    panic!("line {}: ply {}: {e}", record.move_lines[i], i + 1)
                });
                assert!(game.is_legal(parsed));
                game.play(parsed);
            }
            game
        })
        .collect()
}

#[test]
fn camelot_records_replay_legally() {
    let mut plies = 0;
    let mut games = 0;
    for (name, text) in FILES {
        for game in replay_generically(text) {
            assert_eq!(game.outcome(), None, "{name}: the fragments end mid-game");
            plies += game.ply();
            games += 1;
        }
    }
    // Two Warren openings and three championship games; the facts file holds none.
    assert_eq!(games, 5);
    assert_eq!(plies, 8 + 6 + 23 + 20 + 31);
}

#[test]
fn camelot_records_replay_through_the_record_module() {
    for (name, text) in FILES {
        for record in parse_records(text).unwrap() {
            let game = replay(&record).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(game.ply(), record.moves.len());
        }
    }
}

#[test]
fn camelot_records_keep_their_captures() {
    let games = replay_generically(FILES[1].1);
    let game = &games[0];
    // Game 1: 6... D10-D8xD6, 7. E6xC6 I10xK8, 8. E7-G5 G9xE7, 9. F6xD8xD10xF12 F11xF13.
    let captures: u32 = game.moves().map(|m| m.capture_count()).sum();
    assert_eq!(captures, 1 + 1 + 1 + 1 + 3 + 1 + 1);
    let game5 = &replay_generically(FILES[3].1)[0];
    let charge = game5.moves().nth(14).unwrap();
    assert_eq!(charge.capture_count(), 2, "8. D7-F5-H7-H9xF11xD11");
}

#[test]
fn camelot_records_write_and_read_back() {
    for (name, text) in FILES {
        for (record, game) in parse_records(text)
            .unwrap()
            .iter()
            .zip(replay_generically(text))
        {
            let tags: Vec<(String, String)> = record.tags.clone();
            let score = write_score(&game, &tags);
            let again = parse_records(&score).unwrap();
            assert_eq!(again.len(), 1, "{name}");
            assert_eq!(again[0].tags, tags);
            let replayed = replay(&again[0]).unwrap();
            assert_eq!(replayed.position(), game.position(), "{name}");
            // Written moves are canonical: writing again changes nothing.
            assert_eq!(write_score(&replayed, &tags), score);
        }
    }
}

#[test]
fn camelot_records_name_the_bad_move_and_why() {
    let records = parse_records("[Event \"bad\"]\n1. D6-F8 H11-F9\n2. F7-F8 E11-E9\n").unwrap();
    let err = replay(&records[0]).unwrap_err();
    let text = err.to_string();
    assert!(
        text.starts_with("line 3, ply 3 (2.): F7-F8 is illegal: F8 is occupied"),
        "{text}"
    );
}

#[test]
fn camelot_records_start_from_a_fen_tag() {
    let mut game = Camelot::from_position_string(
        "2/8/10/12/12/2nmmm1mmn2/3nmmmmn3/8m3/3M8/3NMMMMN3/2N2MMMMN2/3M8/12/10/8/2 b 0 0 0",
    )
    .unwrap();
    game.play_text("C11-E9xC7xC5xE5").unwrap();
    let score = write_score(&game, &[("Event".into(), "S5".into())]);
    assert!(score.contains("[FEN \""), "{score}");
    assert!(score.contains("1... C11-E9xC7xC5xE5"), "{score}");
    let again = replay(&parse_records(&score).unwrap()[0]).unwrap();
    assert_eq!(again.position(), game.position());
}

#[test]
fn scores_name_endings_outside_the_rules_and_their_start() {
    use camelot::record::{StartError, start_of, write_game};
    use game::{EndReason, Outcome, Player};

    let mut game = Camelot::start();
    game.play_text("D6-F8").unwrap();
    let lost = Outcome::loss(Player::Second, EndReason::Timeout);
    let tags = vec![("White".to_owned(), "me".to_owned())];
    let text = write_game(&game, &tags, Some(lost));
    assert!(
        text.starts_with("[White \"me\"]\n[Termination \"time forfeit\"]\n[Result \"1-0\"]\n"),
        "{text}"
    );
    assert!(text.ends_with("1. D6-F8 1-0\n"), "{text}");
    let records = parse_records(&text).unwrap();
    assert_eq!(start_of(&records[0]).unwrap(), Camelot::start());

    let black_first = parse_records("[Event \"x\"]\n1... H11-F9\n").unwrap();
    assert_eq!(start_of(&black_first[0]), Err(StartError::WrongSide));
    let bad_fen = parse_records("[FEN \"2/8\"]\n1. D6-F8\n").unwrap();
    assert!(matches!(start_of(&bad_fen[0]), Err(StartError::Fen(_))));
}
