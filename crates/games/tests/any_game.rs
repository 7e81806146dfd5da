//! The runtime game type: legal moves with their geometry, checked moves, position
//! strings, the board, and the Game trait on top of the three games.

use games::{
    AnyGame, AnyMove, Cell, Game, GameKind, Mark, MoveError, MoveInfo, PieceKind, Player,
    PositionError, Square, Variations, with_game,
};

fn played(kind: GameKind, moves: &[&str]) -> AnyGame {
    let mut game = AnyGame::start(kind);
    for text in moves {
        game.try_play(text)
            .unwrap_or_else(|e| panic!("{kind} {text}: {e}"));
    }
    game
}

fn sq(game: &AnyGame, name: &str) -> Square {
    game.parse_square(name)
        .unwrap_or_else(|| panic!("{name} is no square"))
}

/// Every listed move's geometry agrees with the move the rules list at the same index.
fn assert_infos_agree(game: &AnyGame) {
    let mut moves = Vec::new();
    game.legal_moves(&mut moves);
    let infos = game.legal_moves_info();
    assert_eq!(infos.len(), moves.len(), "{}", game.position_string());
    assert_eq!(infos.len(), game.count_legal_moves());
    for (&mv, info) in moves.iter().zip(&infos) {
        assert_eq!(info.text, game.format_move(mv));
        assert_eq!(game.parse_move(&info.text).unwrap(), mv, "{}", info.text);
        assert_eq!(info.path.first(), Some(&info.from));
        assert_eq!(info.path.last(), Some(&info.to));
        assert_eq!(info.captures.len(), game.captures(mv) as usize);
        let (from, to) = match mv {
            AnyMove::Tafl(m) => (Square::from(m.from), Square::from(m.to)),
            AnyMove::Camelot(m) => (Square::from(m.from), Square::from(m.to)),
        };
        assert_eq!((info.from, info.to), (from, to));
        assert!(info.path.iter().all(|&s| game.exists(s)));
        for &captured in &info.captures {
            let piece = game
                .cell(captured)
                .piece
                .expect("a captured square holds a piece");
            assert_eq!(piece.0, game.to_move().other());
        }
    }
}

#[test]
fn legal_moves_info_agrees_with_legal_moves() {
    let lines: [(GameKind, &[&str]); 6] = [
        (GameKind::Fetlar, &[]),
        (
            GameKind::Fetlar,
            &["d1-d3", "e5-e2", "g1-g3", "f4-c4", "g3-e3"],
        ),
        (GameKind::Copenhagen, &[]),
        (GameKind::Copenhagen, &["d1-d3", "e5-e2", "g1-g3", "f4-c4"]),
        (GameKind::Camelot, &[]),
        (GameKind::Camelot, &["E7-E8"]),
    ];
    for (kind, moves) in lines {
        let game = played(kind, moves);
        assert_infos_agree(&game);
        assert_eq!(game.kind(), kind);
        assert_eq!(game.ply(), moves.len());
    }
}

#[test]
fn try_play_on_bad_text_changes_nothing_and_says_why() {
    for (kind, bad) in [
        (GameKind::Fetlar, ["d1d3", "a1-a2", "d1-d9"]),
        (GameKind::Copenhagen, ["zz", "e5-e6", "d1-c1xc2"]),
        (GameKind::Camelot, ["Q9", "D6-D4", "C6-C5xC4"]),
    ] {
        let mut game = played(kind, &[]);
        let (position, ply, hash) = (game.position_string(), game.ply(), game.hash());
        for text in bad {
            let err = game.try_play(text).unwrap_err();
            match (kind, &err) {
                (GameKind::Camelot, MoveError::Camelot(_)) => {}
                (GameKind::Fetlar | GameKind::Copenhagen, MoveError::Tafl(_)) => {}
                _ => panic!("{kind} {text}: {err:?}"),
            }
            assert!(!err.to_string().is_empty());
            assert_eq!(game.position_string(), position, "{kind} {text}");
            assert_eq!((game.ply(), game.hash()), (ply, hash), "{kind} {text}");
        }
    }
    let syntax = played(GameKind::Fetlar, &[]).try_play("d1d3").unwrap_err();
    assert!(matches!(
        syntax,
        MoveError::Tafl(tafl::MoveError::Syntax(_))
    ));
    let illegal = played(GameKind::Camelot, &[])
        .try_play("D6-D4")
        .unwrap_err();
    assert!(matches!(
        illegal,
        MoveError::Camelot(camelot::MoveError::Illegal { .. })
    ));
}

#[test]
fn moves_after_the_end_are_refused_as_game_over() {
    // The king escapes to a corner from a position set up by hand.
    let board = "/11/11/11/11/11/K3t6/11/11/11/11/11/";
    let mut game = AnyGame::from_position(GameKind::Fetlar, &format!("{board} defenders")).unwrap();
    let escape = game.try_play("a6-a1").unwrap();
    assert_eq!(escape.path, [Square::new(0, 5), Square::new(0, 0)]);
    let outcome = game.outcome().expect("the king escaped");
    assert_eq!(outcome.winner, Some(Player::Second));
    let err = game.try_play("f6-f7").unwrap_err();
    assert_eq!(
        err,
        MoveError::GameOver {
            text: "f6-f7".into(),
            kind: GameKind::Fetlar,
            outcome,
        }
    );
    assert!(
        err.to_string()
            .contains("already over (defenders_win, corner_escape)"),
        "{err}"
    );
    assert!(game.legal_moves_info().is_empty());
}

#[test]
fn move_info_json_round_trips() {
    let game = played(GameKind::Copenhagen, &["d1-d3", "e5-e2", "g1-g3", "f4-c4"]);
    let info = game
        .legal_moves_info()
        .into_iter()
        .find(|i| i.text == "g3-e3xe2")
        .unwrap();
    let json = serde_json::to_string(&info).unwrap();
    assert_eq!(
        json,
        r#"{"text":"g3-e3xe2","from":{"file":6,"rank":2},"to":{"file":4,"rank":2},"path":[{"file":6,"rank":2},{"file":4,"rank":2}],"captures":[{"file":4,"rank":1}]}"#
    );
    let back: MoveInfo = serde_json::from_str(&json).unwrap();
    assert_eq!(back, info);
    for game in [
        played(GameKind::Camelot, &["E7-E8"]),
        played(GameKind::Fetlar, &[]),
    ] {
        for info in game.legal_moves_info() {
            let back: MoveInfo =
                serde_json::from_str(&serde_json::to_string(&info).unwrap()).unwrap();
            assert_eq!(back, info);
        }
    }
    let v = Variations {
        repetition_off: true,
        ..Variations::default()
    };
    let back: Variations = serde_json::from_str(&serde_json::to_string(&v).unwrap()).unwrap();
    assert_eq!(back, v);
    let v = Variations {
        repetition: Some(tafl::Repetition::MoverLoses),
        ..Variations::default()
    };
    let text = serde_json::to_string(&v).unwrap();
    assert_eq!(
        text,
        r#"{"repetition_off":false,"repetition":"mover-loses"}"#
    );
    assert_eq!(serde_json::from_str::<Variations>(&text).unwrap(), v);
    // A game under another rule says so, and keeps it through a copy of its moves.
    let game = AnyGame::start(GameKind::Copenhagen)
        .with_repetition_rule(tafl::Repetition::MoverLoses)
        .unwrap();
    assert_eq!(game.variations(), v);
    assert_eq!(
        AnyGame::start(GameKind::Copenhagen).variations(),
        Variations::default()
    );
    assert!(
        AnyGame::start(GameKind::Camelot)
            .with_repetition_rule(tafl::Repetition::Draw)
            .is_err()
    );
    assert_eq!(
        serde_json::from_str::<Variations>("{}").unwrap(),
        Variations::default()
    );
}

#[test]
fn camelot_charge_path_has_every_step() {
    // E7-E8 lets Black's knight canter over E10 and jump E8 and F6 (the camelot crate's
    // example): C11-E9 canter, E9xE7 and E7xG5 jumps.
    let game = played(GameKind::Camelot, &["E7-E8"]);
    let info = game
        .legal_moves_info()
        .into_iter()
        .find(|i| i.text == "C11-E9xE7xG5")
        .expect("the charge is legal");
    let names: Vec<String> = info.path.iter().map(|&s| game.square_name(s)).collect();
    assert_eq!(names, ["C11", "E9", "E7", "G5"]);
    let mut captured: Vec<String> = info.captures.iter().map(|&s| game.square_name(s)).collect();
    captured.sort();
    assert_eq!(captured, ["E8", "F6"]);
    // Each step of every path is one square (a plain move) or two in a line (a leap).
    for info in game.legal_moves_info() {
        for pair in info.path.windows(2) {
            let df = (i16::from(pair[1].file) - i16::from(pair[0].file)).abs();
            let dr = (i16::from(pair[1].rank) - i16::from(pair[0].rank)).abs();
            assert!(
                (df <= 1 && dr <= 1 && df + dr > 0)
                    || ((df == 2 || df == 0) && (dr == 2 || dr == 0) && df + dr > 0),
                "{}",
                info.text
            );
        }
    }
    let mut game = game;
    let played = game.try_play("c11-e9xe7xg5").unwrap();
    assert_eq!(played, info);
    assert_eq!(game.move_texts(), ["E7-E8", "C11-E9xE7xG5"]);
}

#[test]
fn tafl_capture_squares_are_the_captured_pieces() {
    let game = played(GameKind::Copenhagen, &["d1-d3", "e5-e2", "g1-g3", "f4-c4"]);
    let info = game
        .legal_moves_info()
        .into_iter()
        .find(|i| i.from == sq(&game, "g3") && i.to == sq(&game, "e3"))
        .unwrap();
    assert_eq!(info.captures, [sq(&game, "e2")]);

    // An attacker moving between two defenders, each with an attacker beyond, takes both.
    let board = "/4t6/11/11/11/2tT1Tt4/K10/11/11/11/11/11/";
    let mut game = AnyGame::from_position(GameKind::Fetlar, &format!("{board} attackers")).unwrap();
    let info = game.try_play("e1-e5").unwrap();
    assert_eq!(info.text, "e1-e5xd5xf5");
    assert_eq!(info.captures, [sq(&game, "d5"), sq(&game, "f5")]);
    assert_eq!(game.cell(sq(&game, "d5")).piece, None);
    assert_eq!(game.move_texts(), ["e1-e5xd5xf5"]);
}

#[test]
fn cells_mark_the_special_squares() {
    let tafl = AnyGame::start(GameKind::Fetlar);
    let throne = tafl.cell(Square::new(5, 5));
    assert_eq!(throne.mark, Mark::Throne);
    assert_eq!(throne.piece, Some((Player::Second, PieceKind::King)));
    assert_eq!(tafl.cell(Square::new(10, 10)).mark, Mark::Corner);
    assert_eq!(
        tafl.cell(Square::new(3, 0)).piece,
        Some((Player::First, PieceKind::Attacker))
    );
    assert_eq!(tafl.cell(Square::new(11, 0)), Cell::MISSING);
    assert_eq!(tafl.parse_square("K11"), Some(Square::new(10, 10)));
    assert_eq!(tafl.parse_square("l1"), None);
    assert_eq!(tafl.square_name(Square::new(3, 0)), "d1");
    assert_eq!((tafl.files(), tafl.ranks()), (11, 11));

    let camelot = AnyGame::start(GameKind::Camelot);
    assert_eq!((camelot.files(), camelot.ranks()), (12, 16));
    assert!(!camelot.cell(Square::new(0, 0)).exists);
    assert!(!camelot.exists(Square::new(0, 14)));
    assert!(camelot.exists(Square::new(2, 14)));
    assert_eq!(
        camelot.cell(Square::new(5, 0)).mark,
        Mark::Castle(Player::First)
    );
    assert_eq!(
        camelot.cell(Square::new(6, 15)).mark,
        Mark::Castle(Player::Second)
    );
    let knight = camelot.cell(Square::new(2, 5)).piece.unwrap();
    assert_eq!(knight, (Player::First, PieceKind::Knight));
    assert_eq!(knight.1.letter(knight.0), 'N');
    assert_eq!(camelot.square_name(Square::new(5, 15)), "F16");
    assert_eq!(camelot.parse_square("a1"), None);
    let json = serde_json::to_string(&camelot.cell(Square::new(5, 15))).unwrap();
    assert_eq!(
        json,
        r#"{"exists":true,"piece":null,"mark":{"castle":"second"}}"#
    );
}

#[test]
fn position_strings_are_checked_with_the_games_own_errors() {
    for kind in GameKind::ALL {
        let start = AnyGame::start(kind);
        let again = AnyGame::from_position(kind, &start.position_string()).unwrap();
        assert_eq!(again.position_string(), start.position_string());
        assert_eq!(again.start_position_string(), start.position_string());
    }
    let game = played(GameKind::Copenhagen, &["d1-d3"]);
    assert_eq!(
        game.start_position_string(),
        AnyGame::start(GameKind::Copenhagen).position_string()
    );

    let err = AnyGame::from_position(GameKind::Fetlar, tafl::START).unwrap_err();
    assert_eq!(
        err,
        PositionError::MissingSide {
            kind: GameKind::Fetlar
        }
    );
    // A bad board is reported as what is wrong with it, not as a missing side.
    let err = AnyGame::from_position(GameKind::Copenhagen, "/3ttttt3/").unwrap_err();
    assert!(
        matches!(err, PositionError::Tafl(tafl::PositionError::RankCount(1))),
        "{err}"
    );
    let board = camelot::START_FEN.split(' ').next().unwrap();
    let err = AnyGame::from_position(GameKind::Camelot, board).unwrap_err();
    assert_eq!(
        err,
        PositionError::MissingSide {
            kind: GameKind::Camelot
        }
    );
    let err = AnyGame::from_position(GameKind::Camelot, "2/8/10").unwrap_err();
    assert!(matches!(err, PositionError::Camelot(_)), "{err}");
    assert!(err.to_string().contains("16"), "{err}");
}

#[test]
fn a_side_given_apart_fills_a_board_and_may_not_contradict_it() {
    let v = Variations::default();
    let game =
        AnyGame::from_position_and_side(GameKind::Fetlar, tafl::START, Some(Player::Second), v)
            .unwrap();
    assert_eq!(game.to_move(), Player::Second);
    let full = format!("{} attackers", tafl::START);
    let err = AnyGame::from_position_and_side(GameKind::Fetlar, &full, Some(Player::Second), v)
        .unwrap_err();
    assert_eq!(
        err,
        PositionError::SideConflict {
            kind: GameKind::Fetlar,
            written: Player::First,
            given: Player::Second,
        }
    );
    assert!(err.to_string().contains("attackers to move"), "{err}");
    assert!(
        AnyGame::from_position_and_side(GameKind::Fetlar, &full, Some(Player::First), v).is_ok()
    );

    let board = camelot::START_FEN.split(' ').next().unwrap();
    let game =
        AnyGame::from_position_and_side(GameKind::Camelot, board, Some(Player::Second), v).unwrap();
    assert_eq!(game.to_move(), Player::Second);
    let err = AnyGame::from_position_and_side(
        GameKind::Camelot,
        camelot::START_FEN,
        Some(Player::Second),
        v,
    )
    .unwrap_err();
    assert!(matches!(err, PositionError::SideConflict { .. }), "{err}");
    assert!(err.to_string().contains("white to move"), "{err}");
}

#[test]
fn variations_switch_tafl_repetition_off() {
    let off = Variations {
        repetition_off: true,
        ..Variations::default()
    };
    let shuffle = ["d1-d2", "e5-e4", "d2-d1", "e4-e5"];
    let mut on = AnyGame::start(GameKind::Copenhagen);
    let mut never = AnyGame::start_with(GameKind::Copenhagen, off);
    assert_eq!(never.variations(), off);
    assert_eq!(on.variations(), Variations::default());
    for _ in 0..2 {
        for text in shuffle {
            on.try_play(text).unwrap();
            never.try_play(text).unwrap();
        }
    }
    assert_eq!(
        on.outcome().map(|o| o.reason),
        Some(games::EndReason::Repetition)
    );
    assert_eq!(never.outcome(), None);
}

#[test]
fn the_game_trait_agrees_with_the_games_inside() {
    for (kind, depth, leaves) in [
        (GameKind::Copenhagen, 2, 6_788),
        (GameKind::Fetlar, 2, 6_788),
        (GameKind::Camelot, 2, 10_026),
    ] {
        let mut any = AnyGame::start(kind);
        assert_eq!(game::perft(&mut any, depth), leaves, "{kind}");
        assert_eq!(with_game!(&mut any, g => game::perft(g, depth)), leaves);
        let before = any.hash();
        let mut moves = Vec::new();
        any.legal_moves(&mut moves);
        for mv in moves {
            assert!(any.is_legal(mv));
            any.play(mv);
            assert_eq!(any.undo(), Some(mv));
            assert_eq!(any.hash(), before);
        }
    }
    let tafl_move = played(GameKind::Fetlar, &[]).parse_move("d1-d3").unwrap();
    assert!(!AnyGame::start(GameKind::Camelot).is_legal(tafl_move));
}

#[test]
fn move_lists_play_all_or_nothing() {
    let mut game = AnyGame::start(GameKind::Copenhagen);
    let infos = game
        .play_texts(&["d1-d3", "e5-e2", "g1-g3", "f4-c4", "g3-e3"])
        .unwrap();
    assert_eq!(infos[4].text, "g3-e3xe2");
    assert_eq!(game.ply(), 5);
    let before = game.position_string();
    let err = game.play_texts(&["h6-h9", "e3-e9"]).unwrap_err();
    assert_eq!((err.number, err.text.as_str()), (2, "e3-e9"));
    assert!(err.to_string().starts_with("move 2 (e3-e9): "), "{err}");
    assert_eq!((game.ply(), game.position_string()), (5, before));
}

#[test]
fn the_games_inside_share_the_board_geometry() {
    use games::Board;
    let tafl = tafl::Tafl::new(tafl::Rules::COPENHAGEN);
    let any = tafl.to_any();
    assert_eq!(Board::legal_moves_info(&tafl), any.legal_moves_info());
    assert_eq!(tafl.cell(Square::new(5, 5)), any.cell(Square::new(5, 5)));
    assert_eq!(tafl.square_name(Square::new(3, 0)), "d1");
    assert!(tafl::Tafl::from_any(any.clone()).is_some());
    assert!(camelot::Camelot::from_any(any).is_none());
    let camelot = camelot::Camelot::start();
    assert_eq!(
        Board::legal_moves_info(&camelot),
        camelot.to_any().legal_moves_info()
    );
    let mv = camelot.parse_move("D6-F8").unwrap();
    assert_eq!(camelot::Camelot::move_from_any(AnyMove::from(mv)), Some(mv));
    assert_eq!(tafl::Tafl::move_from_any(AnyMove::from(mv)), None);

    let (rules, board) = AnyGame::start(GameKind::Copenhagen).opentafl().unwrap();
    assert!(
        rules.starts_with("dim:11 name:Copenhagen atkf:y sw:s efe:y start:"),
        "{rules}"
    );
    assert_eq!(board, tafl::START);
    assert_eq!(AnyGame::start(GameKind::Camelot).opentafl(), None);
}

#[test]
fn can_win_is_answered_by_each_games_rules() {
    // Camelot: one man cannot win (every way to win needs two pieces).
    let fen = "2/8/10/12/12/12/5m6/12/12/12/12/2MM8/12/10/8/2 w 0 0 0";
    let camelot = AnyGame::from_position(GameKind::Camelot, fen).unwrap();
    assert!(camelot.can_win(Player::First));
    assert!(!camelot.can_win(Player::Second));
    // Tafl: both sides can from the start.
    for kind in [GameKind::Fetlar, GameKind::Copenhagen, GameKind::Camelot] {
        let game = AnyGame::start(kind);
        assert!(game.can_win(Player::First) && game.can_win(Player::Second));
    }
}

/// The compact wire form written straight from the rules' move list is the geometry
/// (`legal_moves_info`) in that form, serialised, and reads back as that geometry, in
/// every position of random games of the three games: quiet moves, captures, Camelot's
/// canters and jump sequences (the list's paths worked out for all the moves at once,
/// the geometry's move by move, each move checked), and the end.
#[test]
fn legal_moves_wire_is_the_geometry_in_compact_form() {
    use games::Board;
    // A fixed xorshift sequence: the same games on every run.
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        usize::try_from(seed % n as u64).unwrap()
    };
    let mut checked = [0usize; 3];
    let mut captures = [0usize; 3];
    let mut paths = [0usize; 3];
    for (k, kind) in [GameKind::Fetlar, GameKind::Copenhagen, GameKind::Camelot]
        .into_iter()
        .enumerate()
    {
        for _ in 0..6 {
            let mut game = AnyGame::start(kind);
            let mut moves = Vec::new();
            for _ in 0..250 {
                let json = game.legal_moves_wire();
                let infos = game.legal_moves_info();
                let wire: Vec<games::WireMove> =
                    infos.iter().map(|m| m.wire(game.files())).collect();
                let expected = serde_json::to_string(&wire).unwrap();
                assert_eq!(json, expected, "{}", game.position_string());
                let read: Vec<games::WireMove> = serde_json::from_str(&json).unwrap();
                let back: Vec<MoveInfo> = read
                    .iter()
                    .map(|w| MoveInfo::from_wire(w, game.files()).unwrap())
                    .collect();
                assert_eq!(back, infos, "{}", game.position_string());
                paths[k] += wire.iter().filter(|w| w.path.is_some()).count();
                checked[k] += 1;
                moves.clear();
                game.legal_moves(&mut moves);
                if moves.is_empty() || game.outcome().is_some() {
                    break;
                }
                let mv = moves[next(moves.len())];
                captures[k] += usize::from(game.captures(mv) > 0);
                game.play(mv);
            }
        }
    }
    // The games reached positions with captures to write.
    assert!(
        captures.iter().all(|&c| c > 0),
        "{captures:?} of {checked:?}"
    );
    // Tafl moves go from one end to the other; Camelot's canters and jumps have paths.
    assert_eq!(paths[..2], [0, 0]);
    assert!(paths[2] > 0, "{paths:?}");
}

/// The wire form of a move, and what it refuses to read.
#[test]
fn a_wire_move_reads_back_and_refuses_bad_shapes() {
    let game = AnyGame::start(GameKind::Copenhagen);
    let info = game
        .legal_moves_info()
        .into_iter()
        .find(|m| m.text == "d1-d3")
        .unwrap();
    let wire = info.wire(11);
    assert_eq!(
        serde_json::to_string(&wire).unwrap(),
        r#"["d1-d3",3,25,[]]"#
    );
    assert_eq!(MoveInfo::from_wire(&wire, 11), Some(info));
    for bad in [
        r#"["d1-d3",3,25]"#,
        r#"["d1-d3",3,25,[],[3,25],1]"#,
        r#"{"text":"d1-d3"}"#,
        r#"["d1-d3",-1,25,[]]"#,
    ] {
        assert!(
            serde_json::from_str::<games::WireMove>(bad).is_err(),
            "{bad}"
        );
    }
    let far = games::WireMove {
        text: "x".into(),
        from: 60_000,
        to: 3,
        captures: vec![],
        path: None,
    };
    assert_eq!(MoveInfo::from_wire(&far, 11), None);
}
