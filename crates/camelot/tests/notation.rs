//! WCF notation: the examples of CAMELOT.md section 5 and docs/RECORDS.md, error
//! messages, and position strings.

mod common;

use camelot::{Camelot, FenError, MoveError, Path, PathError, Position, START_FEN, StepKind};
use common::*;
use game::Game;

fn after(texts: &[&str]) -> Camelot {
    let mut game = Camelot::start();
    for t in texts {
        game.play_text(t).unwrap_or_else(|e| panic!("{t}: {e}"));
    }
    game
}

#[test]
fn camelot_notation_examples_of_the_rules() {
    // Each example of section 5, in a position where it is legal.
    let game1 = [
        "D6-F8", "H11-F9", "C6-E8-G8", "J11-H11", "H6-H8", "E11-G9", "J6-H6", "C11-E11", "I6-I8",
        "D11-D9",
    ];
    let game = after(&game1);
    let mv = game.parse_move("I8-J9").unwrap();
    assert_eq!(game.format_move(mv), "I8-J9");
    let game = after(&game1[..2]);
    assert_eq!(
        game.format_move(game.parse_move("c6-e8-g8").unwrap()),
        "C6-E8-G8"
    );
    let game5 = [
        "H6-H8",
        "E11-G9",
        "J6-H6",
        "C11-E11",
        "I6-G8",
        "D11-F9",
        "D6-F8",
        "D10-F12",
        "C6-E8",
        "F11-D9",
        "E8xC10",
        "J11-H9-F11-D9xB11",
        "H7-H9",
        "G9xI9",
    ];
    let game = after(&game5);
    let charge = game.parse_move("D7-F5-H7-H9xF11xD11").unwrap();
    assert_eq!(game.format_move(charge), "D7-F5-H7-H9xF11xD11");
    assert_eq!(charge.capture_count(), 2);
    let castle =
        Position::from_fen("Mn/8/10/12/12/12/12/12/12/12/12/M11/12/10/8/2 w 0 0 0").unwrap();
    let mv = castle.parse_move("f16-g16").unwrap_err();
    assert_eq!(mv.to_string(), "F16-G16 is illegal: G16 is occupied");
    let castle =
        Position::from_fen("M1/8/10/12/12/12/12/12/12/12/12/M11/12/10/8/n1 w 0 0 0").unwrap();
    let mv = castle.parse_move("F16-G16").unwrap();
    assert_eq!(castle.format_move(mv), "F16-G16");
}

#[test]
fn camelot_notation_paths_read_and_print() {
    let path: Path = "f6xd8xD10XF12".parse().unwrap();
    assert_eq!(path.to_string(), "F6xD8xD10xF12");
    assert!(path.steps.iter().all(|s| s.kind == StepKind::Jump));
    let path: Path = "D7-F5-H7-H9xF11xD11".parse().unwrap();
    let kinds: Vec<StepKind> = path.steps.iter().map(|s| s.kind).collect();
    assert_eq!(
        kinds,
        [
            StepKind::Canter,
            StepKind::Canter,
            StepKind::Canter,
            StepKind::Jump,
            StepKind::Jump
        ]
    );
    assert_eq!(
        "I8-J9".parse::<Path>().unwrap().steps[0].kind,
        StepKind::Plain
    );
    assert!(matches!("E5".parse::<Path>(), Err(PathError::NoStep(_))));
    assert!(matches!(
        "E5xE6".parse::<Path>(),
        Err(PathError::ShortJump { .. })
    ));
    assert!(matches!(
        "E5-E8".parse::<Path>(),
        Err(PathError::NotALeap { .. })
    ));
    assert!(matches!(
        "E5+E6".parse::<Path>(),
        Err(PathError::Separator { found: '+', .. })
    ));
    assert!(matches!("E5-M6".parse::<Path>(), Err(PathError::Square(_))));
    assert!(matches!("".parse::<Path>(), Err(PathError::Empty)));
}

#[test]
fn camelot_notation_errors_say_why() {
    let start = Camelot::start();
    let text = |game: &Camelot, t: &str| game.parse_move(t).unwrap_err().to_string();
    assert_eq!(
        text(&start, "E5-E6"),
        "E5-E6 is illegal: there is no White piece on E5"
    );
    assert_eq!(text(&start, "D6-D7"), "D6-D7 is illegal: D7 is occupied");
    assert_eq!(
        text(&start, "A1-A2"),
        "\"A1-A2\" is not a move: A1 is not on the board: rank 1 has only F1..G1"
    );
    let game = after(&["D6-F8", "H11-F9"]);
    assert_eq!(
        text(&game, "C6-G8"),
        "\"C6-G8\" is not a move: G8 is neither next to C6 nor two squares away on a line, \
         so no single step or leap goes there (did you mean C6-E8-G8?)"
    );
    let s5 = Camelot::new(s5_position());
    assert_eq!(
        text(&s5, "C11-E9-G11"),
        "C11-E9-G11 is illegal: knight must jump from E9: its canter lands there next to an \
         enemy piece it could jump, and the move captures nothing (S5)"
    );
    let err = s5.parse_move("C11xE9").unwrap_err();
    assert!(matches!(err, MoveError::Illegal { .. }));
    assert!(err.to_string().contains("leaping it is a canter"), "{err}");
}

#[test]
fn camelot_position_strings_round_trip_and_explain_errors() {
    let game = Camelot::from_position_string(START_FEN).unwrap();
    assert_eq!(game.position_string(), START_FEN);
    let s5 = s5_position();
    assert_eq!(
        s5.fen(),
        "2/8/10/12/12/2nmmm1mmn2/3nmmmmn3/8m3/3M8/3NMMMMN3/2N2MMMMN2/3M8/12/10/8/2 b 0 0 0"
    );
    let err = Camelot::from_position_string(
        "2/8/10/12/12/2nmmmmmmn2/3nmmmmn3/12/12/3NMMMMN3/2NMMMMMMN2/12/12/10/8/NNM w",
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "rank 1 describes 3 squares, but it has 2 (F1..G1)"
    );
    let err = Camelot::from_position_string(
        "2/8/10/12/12/2nmmmmmmn2/3nmmmmn3/12/12/3NMMMMN3/2NMMMMMMN2/12/12/10/8/NN w",
    )
    .unwrap_err();
    assert!(matches!(err, FenError::Position(_)), "{err}");
    assert!(err.to_string().contains("White has 6 knights"), "{err}");
}
