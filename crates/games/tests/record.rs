//! The one replay path: records in every form read back to their start, moves and
//! ending, faults reported per game, and games written back.

use games::record::{
    GameRead, LoadError, ReplayError, ReplayOptions, StartError, TagKey, extension, load, read,
    tag_name, write, write_moves,
};
use games::{AnyGame, EndReason, Game, GameKind, MoveError, Outcome, Player, Variations};

fn replayed(kind: GameKind, text: &str) -> Vec<GameRead> {
    read(kind, text, ReplayOptions::default())
}

fn played(kind: GameKind, moves: &[&str]) -> AnyGame {
    let mut game = AnyGame::start(kind);
    for text in moves {
        game.try_play(text).unwrap();
    }
    game
}

#[test]
fn move_lists_replay_with_their_endings() {
    let games = replayed(
        GameKind::Copenhagen,
        "d1-d3 e5-e2 g1-g3 f4-c4 g3-e3xe2\n\nh1-h3 f8-i8 timeout\nd1-d3 e5-e2 ---\nd1-d3 d3-d4\n",
    );
    assert_eq!(games.len(), 4);
    assert_eq!(
        games.iter().map(|g| (g.index, g.line)).collect::<Vec<_>>(),
        [(1, 1), (2, 3), (3, 4), (4, 5)]
    );
    let first = games[0].replay.as_ref().unwrap();
    assert_eq!(
        (first.game.ply(), first.outcome, first.start.ply()),
        (5, None, 0)
    );
    let timeout = games[1].replay.as_ref().unwrap();
    assert_eq!(
        timeout.outcome,
        Some(Outcome::loss(Player::First, EndReason::Timeout))
    );
    let resigned = games[2].replay.as_ref().unwrap();
    assert_eq!(
        resigned.outcome,
        Some(Outcome::loss(Player::First, EndReason::Resignation))
    );
    let bad = games[3].replay.as_ref().unwrap();
    let fault = bad.fault.as_ref().unwrap();
    assert_eq!(
        (fault.ply, fault.line, fault.text.as_str()),
        (2, 5, "d3-d4")
    );
    assert!(matches!(fault.error, ReplayError::Move(MoveError::Tafl(_))));
    assert_eq!(bad.game.ply(), 1);
    assert!(
        fault.to_string().starts_with("line 5, ply 2 (d3-d4): "),
        "{fault}"
    );
}

#[test]
fn a_game_that_cannot_be_read_does_not_stop_the_others() {
    let text = "d1-d3 e5-e2 ---\nd1-d3 --- e5-e2\nd1-d3\n";
    let games = replayed(GameKind::Fetlar, text);
    assert_eq!(games.len(), 3);
    let fault = games[1].replay.as_ref().unwrap().fault.as_ref().unwrap();
    assert_eq!(
        (fault.ply, fault.line, fault.text.as_str()),
        (2, 2, "e5-e2")
    );
    assert!(matches!(fault.error, ReplayError::Text(_)));
    assert!(fault.error.to_string().contains("after the end"), "{fault}");
    assert!(games[2].replay.as_ref().unwrap().fault.is_none());
}

#[test]
fn moves_and_endings_after_the_end_are_faults() {
    // The king escapes to a corner at once from this position.
    let board = "/11/11/11/11/11/K3t6/11/11/11/11/11/";
    let record = format!("[rules:dim:11 atkf:n start:{board}]\n\n1... a6-a1 e6-e7\n");
    let games = replayed(GameKind::Fetlar, &record);
    let fault = games[0].replay.as_ref().unwrap().fault.clone().unwrap();
    assert_eq!((fault.ply, fault.text.as_str()), (2, "e6-e7"));
    assert_eq!(
        fault.error.to_string(),
        "a move after the end of the game (defenders_win, corner_escape)"
    );
    let record = format!("[rules:dim:11 atkf:n start:{board}]\n\n1... a6-a1 timeout\n");
    let games = replayed(GameKind::Fetlar, &record);
    let replay = games[0].replay.as_ref().unwrap();
    let fault = replay.fault.as_ref().unwrap();
    assert_eq!((fault.ply, fault.text.as_str()), (2, "timeout"));
    assert!(matches!(fault.error, ReplayError::EndingAfterEnd { .. }));
    assert_eq!(replay.outcome.unwrap().reason, EndReason::CornerEscape);
}

#[test]
fn stated_endings_outside_the_rules_are_taken_as_stated() {
    let record = |reason: &str, result: &str| {
        format!(
            "[Event:Kingstable match]\n[Reason:{reason}]\n[result:{result}]\n\n1. d1-d3 h6-h9\n"
        )
    };
    let outcome = |text: &str| {
        replayed(GameKind::Copenhagen, text)[0]
            .replay
            .as_ref()
            .unwrap()
            .outcome
    };
    assert_eq!(
        outcome(&record("adjudication", "0")),
        Some(Outcome::draw(EndReason::Adjudication))
    );
    // An ending by the rules that the moves do not reach is not believed.
    assert_eq!(
        outcome(&record("corner_escape", "-1")),
        Some(Outcome::win(Player::Second, EndReason::Resignation))
    );
    assert_eq!(
        outcome("[termination:Time forfeit]\n[result:1]\n\n1. d1-d3\n"),
        Some(Outcome::win(Player::First, EndReason::Timeout))
    );
    assert_eq!(
        outcome("[result:0]\n\n1. d1-d3\n"),
        Some(Outcome::draw(EndReason::Agreement))
    );
    assert_eq!(outcome("[result:?]\n\n1. d1-d3\n"), None);
}

#[test]
fn endings_outside_the_rules_round_trip_through_written_records() {
    for (kind, moves) in [
        (GameKind::Camelot, &["D6-F8"][..]),
        (GameKind::Fetlar, &["d1-d3"][..]),
        (
            GameKind::Copenhagen,
            &["d1-d3", "e5-e2", "g1-g3", "f4-c4", "g3-e3"][..],
        ),
    ] {
        let game = played(kind, moves);
        for reason in [
            EndReason::Timeout,
            EndReason::Resignation,
            EndReason::Agreement,
            EndReason::Adjudication,
        ] {
            let outcome = if reason == EndReason::Agreement {
                Outcome::draw(reason)
            } else {
                Outcome::loss(game.to_move(), reason)
            };
            let tags = vec![(
                tag_name(kind, TagKey::FirstPlayer).to_owned(),
                "me".to_owned(),
            )];
            let text = write(&game, &tags, Some(outcome));
            let loaded = load(kind, &text, ReplayOptions::default()).unwrap();
            assert_eq!(loaded.outcome, Some(outcome), "{kind} {text}");
            assert_eq!(loaded.game.move_texts(), game.move_texts());
            assert_eq!(
                loaded.start.position_string(),
                AnyGame::start(kind).position_string()
            );
            assert_eq!(loaded.game.position_string(), game.position_string());

            let line = write_moves(&game, Some(outcome));
            let again = load(kind, &line, ReplayOptions::default()).unwrap();
            assert_eq!(again.game.move_texts(), game.move_texts());
            match reason {
                EndReason::Timeout | EndReason::Resignation => {
                    assert_eq!(again.outcome, Some(outcome), "{line}")
                }
                _ => assert_eq!(again.outcome, None, "{line}"),
            }
        }
    }
    let camelot = write(&played(GameKind::Camelot, &[]), &[], None);
    assert!(!camelot.contains("Result"), "{camelot}");
}

#[test]
fn record_styles_live_with_each_game() {
    assert_eq!(extension(GameKind::Fetlar), "otg");
    assert_eq!(extension(GameKind::Camelot), "txt");
    assert_eq!(
        tag_name(GameKind::Copenhagen, TagKey::SecondPlayer),
        "defenders"
    );
    assert_eq!(tag_name(GameKind::Camelot, TagKey::SecondPlayer), "Black");
    assert_eq!(
        tag_name(GameKind::Camelot, TagKey::TimeControl),
        "TimeControl"
    );
    assert_eq!(
        tag_name(GameKind::Fetlar, TagKey::TimeControl),
        "time-control"
    );
}

#[test]
fn starts_come_from_the_records_tags() {
    let board = "/11/11/11/11/11/K3t6/11/11/11/11/11/";
    let games = replayed(
        GameKind::Fetlar,
        &format!("[rules:dim:11 atkf:n start:{board}]\n\n1... a6-a2\n"),
    );
    let replay = games[0].replay.as_ref().unwrap();
    assert_eq!(replay.start.position_string(), format!("{board} defenders"));
    assert_eq!(replay.game.ply(), 1);

    let games = replayed(GameKind::Fetlar, "[rules:dim:11 sw:s efe:y]\n\n1. d1-d3\n");
    let fault = games[0].replay.as_ref().unwrap_err();
    assert_eq!(fault.ply, 0);
    assert!(matches!(
        fault.error,
        ReplayError::Start(StartError::Tafl(_))
    ));
    assert!(fault.to_string().contains("copenhagen"), "{fault}");

    let games = replayed(GameKind::Camelot, "[Event \"x\"]\n1... H11-F9\n");
    let fault = games[0].replay.as_ref().unwrap_err();
    assert!(matches!(
        fault.error,
        ReplayError::Start(StartError::Camelot(_))
    ));
    let fen = "[FEN \"2/8/10/12/12/2nmmmmmmn2/3nmmmmn3/12/12/3NMMMMN3/2NMMMMMMN2/12/12/10/8/2 b 0 0 0\"]\n1... H11-F9\n";
    let games = replayed(GameKind::Camelot, fen);
    assert_eq!(
        games[0].replay.as_ref().unwrap().game.to_move(),
        Player::First
    );
}

#[test]
fn captures_are_checked_strictly_unless_asked_otherwise() {
    let text = "d1-d3 e5-e2 g1-g3 f4-c4 g3-e3\n";
    let strict = replayed(GameKind::Copenhagen, text);
    let fault = strict[0].replay.as_ref().unwrap().fault.clone().unwrap();
    assert_eq!(fault.ply, 5);
    let lenient = ReplayOptions {
        lenient_captures: true,
        ..ReplayOptions::default()
    };
    let loaded = load(GameKind::Copenhagen, text, lenient).unwrap();
    assert_eq!(loaded.game.move_texts()[4], "g3-e3xe2");
}

#[test]
fn load_takes_the_first_game_only_when_it_replays() {
    let options = ReplayOptions::default();
    assert_eq!(
        load(GameKind::Fetlar, "\n", options).unwrap_err(),
        LoadError::Empty
    );
    let err = load(GameKind::Fetlar, "d1-d3 d3-d1\n", options).unwrap_err();
    assert!(err.to_string().contains("ply 2 (d3-d1)"), "{err}");
    let loaded = load(GameKind::Fetlar, "d1-d3\nd1-d3 d3-d1\n", options).unwrap();
    assert_eq!(loaded.game.ply(), 1);
}

#[test]
fn repetition_can_be_switched_off_for_historical_records() {
    let shuffle = "d1-d2 e5-e4 d2-d1 e4-e5 d1-d2 e5-e4 d2-d1 e4-e5 d1-d2\n";
    let on = replayed(GameKind::Copenhagen, shuffle);
    let fault = on[0].replay.as_ref().unwrap().fault.clone().unwrap();
    assert!(
        matches!(fault.error, ReplayError::MoveAfterEnd { .. }),
        "{fault}"
    );
    let off = ReplayOptions {
        variations: Variations {
            repetition_off: true,
            ..Variations::default()
        },
        ..ReplayOptions::default()
    };
    let games = read(GameKind::Copenhagen, shuffle, off);
    let replay = games[0].replay.as_ref().unwrap();
    assert_eq!((replay.game.ply(), replay.fault.clone()), (9, None));
}
