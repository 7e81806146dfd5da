//! The session's state machine, through its public API.

use std::time::Duration;

use game::{EndReason, Game, GameKind, Outcome, Player};
use proptest::prelude::*;
use session::{
    ABANDONED_AFTER, AbortReason, AnyGame, ClockStart, Error, EventKind, LoadError, Options,
    Session, SessionData, Status, Takeback, Takebacks, TimeControl, Timestamp,
};

const FIRST: Player = Player::First;
const SECOND: Player = Player::Second;

fn at(secs: u64) -> Timestamp {
    Timestamp::from_millis(1_700_000_000_000 + secs * 1000)
}

fn options(control: &str, takebacks: Takebacks) -> Options {
    Options {
        control: control.parse().unwrap(),
        takebacks,
        clock_start: ClockStart::AtOnce,
    }
}

/// A server's table: each clock starts with its player's first move.
fn from_first_move(kind: GameKind, control: &str, takebacks: Takebacks) -> Session {
    let options = Options {
        clock_start: ClockStart::FirstMove,
        ..options(control, takebacks)
    };
    Session::new(AnyGame::start(kind), options, at(0))
}

fn copenhagen(control: &str, takebacks: Takebacks) -> Session {
    Session::new(
        AnyGame::start(GameKind::Copenhagen),
        options(control, takebacks),
        at(0),
    )
}

/// Plays `texts` alternately from the side to move, a second apart from `from`.
fn play_all(s: &mut Session, texts: &[&str], from: u64) {
    for (i, text) in texts.iter().enumerate() {
        let player = s.to_move();
        s.play(player, text, at(from + i as u64)).unwrap();
    }
}

fn round_trip(s: &Session) -> Session {
    let json = serde_json::to_string(s).unwrap();
    serde_json::from_str(&json).unwrap()
}

#[test]
fn moves_are_played_with_their_captures_and_logged() {
    let mut s = copenhagen("untimed", Takebacks::ByAgreement);
    play_all(&mut s, &["d1-d3", "e5-e2", "g1-g3", "f4-c4"], 1);
    let info = s.play(FIRST, "g3-e3", at(10)).unwrap();
    assert_eq!(info.text, "g3-e3xe2");
    assert_eq!(s.game().square_name(info.captures[0]), "e2");
    assert_eq!(s.pieces_lost(), [0, 1]);
    assert_eq!(s.moves().len(), 5);
    assert_eq!(s.moves()[4].player, FIRST);
    assert_eq!(s.moves()[4].at, Some(at(10)));
    assert_eq!(s.revision(), 5);
    let revisions: Vec<u64> = s.events().iter().map(|e| e.revision).collect();
    assert_eq!(revisions, [1, 2, 3, 4, 5]);
    match &s.events()[4].kind {
        EventKind::Moved {
            player,
            info,
            outcome,
            ..
        } => {
            assert_eq!(
                (*player, info.text.as_str(), *outcome),
                (FIRST, "g3-e3xe2", None)
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(s.game().move_texts()[4], "g3-e3xe2");
}

#[test]
fn moves_out_of_turn_or_illegal_are_refused_and_change_nothing() {
    let mut s = copenhagen("5+3", Takebacks::ByAgreement);
    let before = s.clone();
    assert_eq!(s.play(SECOND, "e5-e2", at(1)), Err(Error::NotYourTurn));
    let err = s.play(FIRST, "d1-d9", at(1)).unwrap_err();
    assert!(matches!(err, Error::IllegalMove(_)), "{err:?}");
    assert!(err.to_string().contains("blocked"), "{err}");
    assert!(matches!(
        s.play(FIRST, "z9", at(1)),
        Err(Error::IllegalMove(_))
    ));
    assert_eq!(s, before);
    assert_eq!(s.revision(), 0);
    // A move of the wrong game family is refused too.
    let camelot = AnyGame::start(GameKind::Camelot);
    let mut moves = Vec::new();
    camelot.legal_moves(&mut moves);
    assert_eq!(s.play_move(FIRST, moves[0], at(1)), Err(Error::NotLegal));
    let mv = s.legal_any_moves()[0];
    assert!(s.play_move(FIRST, mv, at(1)).is_ok());
}

#[test]
fn a_rule_ending_stops_the_clocks_and_refuses_further_moves() {
    let board = "/11/11/11/11/11/K3t6/11/11/11/11/11/";
    let game = AnyGame::from_position(GameKind::Fetlar, &format!("{board} defenders")).unwrap();
    let mut s = Session::new(game, options("1+0", Takebacks::Never), at(0));
    s.play(SECOND, "a6-a1", at(5)).unwrap();
    let outcome = Outcome::win(SECOND, EndReason::CornerEscape);
    assert_eq!(s.status(), Status::Finished { outcome });
    assert!(s.legal_moves().is_empty());
    assert_eq!(s.clocks().running(), None);
    assert_eq!(s.check_flag(at(1000)), None);
    assert_eq!(
        s.play(FIRST, "e6-e7", at(6)),
        Err(Error::GameOver {
            outcome: Some(outcome)
        })
    );
    match &s.events()[0].kind {
        EventKind::Moved { outcome: o, .. } => assert_eq!(*o, Some(outcome)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn fischer_clocks_charge_the_mover_and_a_flag_fall_loses_in_tafl() {
    let mut s = Session::new(
        AnyGame::start(GameKind::Fetlar),
        options("1+5", Takebacks::Immediate),
        at(0),
    );
    s.play(FIRST, "d1-d3", at(10)).unwrap();
    assert_eq!(
        s.clocks().both(at(20)),
        Some([Duration::from_secs(55), Duration::from_secs(50)])
    );
    assert_eq!(s.moves()[0].remaining_before_ms, Some([50_000, 60_000]));
    assert_eq!(s.check_flag(at(69)), None);
    let revision = s.revision();
    // A move after the flag fell finds the game lost on time.
    let lost = Outcome::loss(SECOND, EndReason::Timeout);
    assert_eq!(
        s.play(SECOND, "e5-e2", at(71)),
        Err(Error::GameOver {
            outcome: Some(lost)
        })
    );
    assert_eq!(s.revision(), revision + 1);
    assert!(
        matches!(s.events().last().unwrap().kind, EventKind::Ended { outcome, .. } if outcome == lost)
    );
    assert_eq!(s.check_flag(at(80)), None, "called once");
    // Taking the move back restores the clocks as they were before it.
    assert_eq!(s.request_takeback(FIRST, at(80)), Ok(Takeback::Done(1)));
    assert_eq!(s.status(), Status::Ongoing);
    assert_eq!(
        s.clocks().remaining(FIRST, at(80)),
        Some(Duration::from_secs(50))
    );
    assert_eq!(s.clocks().running_player(), Some(FIRST));
}

/// A Camelot position with two white men (C5, D5) and one black man (F10).
const TWO_AGAINST_ONE: &str = "2/8/10/12/12/12/5m6/12/12/12/12/2MM8/12/10/8/2";

#[test]
fn camelot_flag_fall_is_a_draw_when_the_opponent_cannot_win() {
    for (side, outcome) in [
        // White out of time; Black's one man cannot win: a draw.
        ("w", Outcome::draw(EndReason::Timeout)),
        // Black out of time; White's two men can: White wins.
        ("b", Outcome::loss(SECOND, EndReason::Timeout)),
    ] {
        let fen = format!("{TWO_AGAINST_ONE} {side} 0 0 0");
        let game = AnyGame::from_position(GameKind::Camelot, &fen).unwrap();
        let mut s = Session::new(game, options("1+0", Takebacks::Never), at(0));
        assert_eq!(s.check_flag(at(59)), None);
        assert_eq!(s.check_flag(at(60)), Some(outcome), "{side}");
        assert_eq!(s.outcome(), Some(outcome));
    }
    // From the start either side can win.
    let mut s = Session::new(
        AnyGame::start(GameKind::Camelot),
        options("0.5+0", Takebacks::Never),
        at(0),
    );
    assert_eq!(
        s.check_flag(at(30)),
        Some(Outcome::loss(FIRST, EndReason::Timeout))
    );
}

#[test]
fn correspondence_gives_each_turn_the_full_days() {
    let day = 86_400;
    let mut s = copenhagen("3d", Takebacks::Never);
    s.play(FIRST, "d1-d3", at(2 * day)).unwrap();
    assert_eq!(
        s.clocks().remaining(SECOND, at(2 * day)),
        Some(Duration::from_secs(3 * day))
    );
    s.play(SECOND, "e5-e2", at(5 * day - 1)).unwrap();
    assert_eq!(s.clocks().deadline(), Some(at(8 * day - 1)));
    assert_eq!(
        s.check_flag(at(8 * day)),
        Some(Outcome::loss(FIRST, EndReason::Timeout))
    );
}

#[test]
fn untimed_games_never_fall() {
    let mut s = copenhagen("untimed", Takebacks::Never);
    assert_eq!(s.check_flag(at(10_000_000)), None);
    assert_eq!(s.clocks().both(at(5)), None);
    s.play(FIRST, "d1-d3", at(10_000_000)).unwrap();
    assert_eq!(s.clocks().running().unwrap().since, at(10_000_000));
}

#[test]
fn immediate_takebacks_go_back_to_before_the_players_last_move() {
    let mut s = copenhagen("untimed", Takebacks::Immediate);
    // Nobody has moved: nothing to take back.
    assert_eq!(
        s.request_takeback(FIRST, at(1)),
        Err(Error::NothingToTakeBack)
    );
    s.play(FIRST, "d1-d3", at(1)).unwrap();
    assert_eq!(
        s.request_takeback(SECOND, at(1)),
        Err(Error::NothingToTakeBack)
    );
    s.play(SECOND, "e5-e2", at(2)).unwrap();
    // The first player to move: their move and the reply go.
    let revision = s.revision();
    assert_eq!(s.request_takeback(FIRST, at(3)), Ok(Takeback::Done(2)));
    assert!(s.moves().is_empty());
    assert_eq!(s.revision(), revision + 1);
    assert!(matches!(
        s.events().last().unwrap().kind,
        EventKind::TakenBack {
            by: FIRST,
            plies: 2,
            ..
        }
    ));
    // Just moved: only that move goes.
    play_all(&mut s, &["d1-d3", "e5-e2", "g1-g3"], 4);
    assert_eq!(s.request_takeback(FIRST, at(9)), Ok(Takeback::Done(1)));
    assert_eq!(s.game().move_texts(), ["d1-d3", "e5-e2"]);
    // After the end, too: the game goes on.
    s.resign(SECOND, at(10)).unwrap();
    assert_eq!(s.request_takeback(SECOND, at(11)), Ok(Takeback::Done(1)));
    assert_eq!(s.status(), Status::Ongoing);
    assert_eq!(s.to_move(), SECOND);
}

#[test]
fn takebacks_by_agreement_wait_for_the_opponent() {
    let mut s = copenhagen("5+3", Takebacks::ByAgreement);
    play_all(&mut s, &["d1-d3", "e5-e2"], 1);
    assert_eq!(
        s.accept_takeback(FIRST, at(3)),
        Err(Error::NoTakebackRequest)
    );
    assert_eq!(s.request_takeback(SECOND, at(3)), Ok(Takeback::Requested));
    assert_eq!(s.takeback_request(), Some(SECOND));
    assert_eq!(
        s.request_takeback(SECOND, at(3)),
        Err(Error::TakebackPending)
    );
    assert_eq!(
        s.accept_takeback(SECOND, at(3)),
        Err(Error::NoTakebackRequest)
    );
    assert_eq!(s.decline_takeback(FIRST, at(4)), Ok(()));
    assert_eq!(s.takeback_request(), None);
    assert_eq!(s.request_takeback(SECOND, at(5)), Ok(Takeback::Requested));
    assert_eq!(s.accept_takeback(FIRST, at(6)), Ok(1));
    assert_eq!(s.game().move_texts(), ["d1-d3"]);
    assert_eq!(s.to_move(), SECOND);
    // A request lapses when a move is played.
    assert_eq!(s.request_takeback(FIRST, at(7)), Ok(Takeback::Requested));
    s.play(SECOND, "e5-e2", at(8)).unwrap();
    assert_eq!(s.takeback_request(), None);
    // Asking back when the opponent asked accepts their request.
    assert_eq!(s.request_takeback(SECOND, at(9)), Ok(Takeback::Requested));
    assert_eq!(s.request_takeback(FIRST, at(9)), Ok(Takeback::Done(1)));
    // Not after the end.
    s.resign(FIRST, at(10)).unwrap();
    assert!(matches!(
        s.request_takeback(FIRST, at(11)),
        Err(Error::GameOver { .. })
    ));
    let mut never = copenhagen("untimed", Takebacks::Never);
    play_all(&mut never, &["d1-d3"], 1);
    assert_eq!(
        never.request_takeback(FIRST, at(2)),
        Err(Error::TakebacksNotAllowed)
    );
}

#[test]
fn draws_are_offered_accepted_declined_and_lapse() {
    let mut s = copenhagen("untimed", Takebacks::Never);
    assert_eq!(s.accept_draw(SECOND, at(1)), Err(Error::NoDrawOffer));
    assert_eq!(s.decline_draw(SECOND, at(1)), Err(Error::NoDrawOffer));
    assert_eq!(s.offer_draw(FIRST, at(1)), Ok(None));
    assert_eq!(s.offer_draw(FIRST, at(1)), Err(Error::DrawPending));
    assert_eq!(s.accept_draw(FIRST, at(1)), Err(Error::NoDrawOffer));
    // The offerer's own move keeps the offer open.
    s.play(FIRST, "d1-d3", at(2)).unwrap();
    assert_eq!(s.draw_offer(), Some(FIRST));
    assert_eq!(s.decline_draw(SECOND, at(3)), Ok(()));
    assert_eq!(s.draw_offer(), None);
    // The opponent's move declines it.
    assert_eq!(s.offer_draw(FIRST, at(4)), Ok(None));
    s.play(SECOND, "e5-e2", at(5)).unwrap();
    assert_eq!(s.draw_offer(), None);
    // Offering back accepts.
    assert_eq!(s.offer_draw(SECOND, at(6)), Ok(None));
    let agreed = Outcome::draw(EndReason::Agreement);
    assert_eq!(s.offer_draw(FIRST, at(7)), Ok(Some(agreed)));
    assert_eq!(s.status(), Status::Finished { outcome: agreed });
    assert_eq!(s.draw_offer(), None);
    assert!(s.legal_moves().is_empty());

    let mut s = copenhagen("untimed", Takebacks::Never);
    s.offer_draw(SECOND, at(1)).unwrap();
    assert_eq!(s.accept_draw(FIRST, at(2)), Ok(agreed));
    assert!(matches!(
        s.offer_draw(FIRST, at(3)),
        Err(Error::GameOver { .. })
    ));
}

#[test]
fn resignation_ends_the_game_for_either_player() {
    for player in Player::BOTH {
        let mut s = copenhagen("5+0", Takebacks::Never);
        let lost = Outcome::loss(player, EndReason::Resignation);
        assert_eq!(s.resign(player, at(3)), Ok(lost));
        assert_eq!(s.outcome(), Some(lost));
        assert_eq!(s.clocks().running(), None);
        assert_eq!(
            s.clocks().remaining(FIRST, at(100)),
            Some(Duration::from_secs(297))
        );
        assert!(matches!(
            s.resign(player.other(), at(4)),
            Err(Error::GameOver { .. })
        ));
    }
}

#[test]
fn an_arbiter_ends_the_game_with_any_result_and_it_is_logged() {
    let mut s = copenhagen("5+0", Takebacks::Never);
    play_all(&mut s, &["d1-d3", "e5-e2"], 1);
    let drawn = Outcome::draw(EndReason::Adjudication);
    let revision = s.revision();
    assert_eq!(s.adjudicate(drawn, at(10)), Ok(drawn));
    assert_eq!(s.outcome(), Some(drawn));
    assert_eq!(s.revision(), revision + 1);
    assert!(matches!(
        s.events().last().unwrap().kind,
        EventKind::Ended { outcome, .. } if outcome == drawn
    ));
    assert_eq!(s.clocks().running(), None);
    // Over is over: a second ruling, or a move, is refused.
    let lost = Outcome::loss(FIRST, EndReason::Resignation);
    assert!(matches!(
        s.adjudicate(lost, at(11)),
        Err(Error::GameOver { .. })
    ));
    assert!(s.play(FIRST, "d3-d2", at(11)).is_err());
    assert_eq!(round_trip(&s).outcome(), Some(drawn));
}

#[test]
fn a_game_can_be_aborted_until_both_sides_have_moved() {
    let mut s = copenhagen("5+0", Takebacks::Immediate);
    assert!(s.can_abort());
    s.play(FIRST, "d1-d3", at(1)).unwrap();
    assert!(s.can_abort());
    s.play(SECOND, "e5-e2", at(2)).unwrap();
    assert!(!s.can_abort());
    let before = s.clone();
    assert_eq!(s.abort(FIRST, at(3)), Err(Error::CannotAbort));
    assert_eq!(s, before);

    let mut s = copenhagen("5+0", Takebacks::Immediate);
    s.play(FIRST, "d1-d3", at(1)).unwrap();
    assert_eq!(s.abort(SECOND, at(2)), Ok(()));
    assert_eq!(
        s.status(),
        Status::Aborted {
            by: SECOND,
            reason: AbortReason::Asked
        }
    );
    assert_eq!(s.outcome(), None);
    assert!(s.legal_moves().is_empty());
    assert_eq!(s.clocks().running(), None);
    assert_eq!(
        s.play(SECOND, "e5-e2", at(3)),
        Err(Error::GameOver { outcome: None })
    );
    assert_eq!(
        s.request_takeback(FIRST, at(3)),
        Err(Error::GameOver { outcome: None })
    );
    assert_eq!(round_trip(&s), s);
}

#[test]
fn a_front_end_gets_exactly_the_events_it_missed() {
    let mut s = copenhagen("5+3", Takebacks::ByAgreement);
    assert_eq!(s.events_since(0), Some(&[][..]));
    play_all(&mut s, &["d1-d3", "e5-e2", "g1-g3"], 1);
    s.offer_draw(SECOND, at(5)).unwrap();
    s.decline_draw(FIRST, at(6)).unwrap();
    let missed = s.events_since(2).unwrap();
    let revisions: Vec<u64> = missed.iter().map(|e| e.revision).collect();
    assert_eq!(revisions, [3, 4, 5]);
    assert!(matches!(
        missed[1].kind,
        EventKind::DrawOffered { by: SECOND }
    ));
    assert!(matches!(
        missed[2].kind,
        EventKind::DrawDeclined { by: FIRST }
    ));
    assert_eq!(s.events_since(5), Some(&[][..]));
    assert_eq!(s.events_since(6), None, "a revision from the future");
    // The log survives a restart; stored without it, a front end gets the whole state.
    let back = round_trip(&s);
    assert_eq!(back.events_since(2), s.events_since(2));
    let mut data = s.data();
    data.events.clear();
    let bare = Session::from_data(data).unwrap();
    assert_eq!(bare.events_since(2), None);
    assert_eq!(bare.events_since(5), Some(&[][..]));
}

#[test]
fn events_serialise_with_their_type_and_revision() {
    let mut s = copenhagen("1+0", Takebacks::Never);
    s.play(FIRST, "d1-d3", at(1)).unwrap();
    let json = serde_json::to_value(&s.events()[0]).unwrap();
    assert_eq!(json["type"], "moved");
    assert_eq!(json["revision"], 1);
    assert_eq!(json["player"], "first");
    assert_eq!(json["move"]["text"], "d1-d3");
    assert_eq!(
        json["move"]["from"],
        serde_json::json!({"file": 3, "rank": 0})
    );
    assert_eq!(json["clocks"]["control"], "1+0");
    assert_eq!(json["outcome"], serde_json::Value::Null);
}

#[test]
fn a_stored_session_loads_back_exactly() {
    let mut s = copenhagen("5+3", Takebacks::ByAgreement);
    play_all(&mut s, &["d1-d3", "e5-e2", "g1-g3", "f4-c4", "g3-e3"], 1);
    s.offer_draw(FIRST, at(20)).unwrap();
    s.request_takeback(SECOND, at(21)).unwrap();
    let json = serde_json::to_string(&s).unwrap();
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(value["kind"], "copenhagen");
    assert_eq!(value["moves"][4]["text"], "g3-e3xe2");
    assert_eq!(value["draw_offer"], "first");
    let back: Session = serde_json::from_str(&json).unwrap();
    assert_eq!(back, s);
    assert_eq!(back.game().position_string(), s.game().position_string());
    assert_eq!(back.game().hash(), s.game().hash());
    assert_eq!(back.moves(), s.moves());
    assert_eq!(back.clocks().both(at(30)), s.clocks().both(at(30)));
}

#[test]
fn stored_data_that_does_not_hold_together_is_refused() {
    let mut s = copenhagen("5+3", Takebacks::ByAgreement);
    play_all(&mut s, &["d1-d3", "e5-e2"], 1);
    let data = s.data();

    let mut bad = data.clone();
    bad.moves[1].text = "e5-e9".into();
    assert!(matches!(
        Session::from_data(bad),
        Err(LoadError::Move { index: 1, .. })
    ));
    let mut bad = data.clone();
    bad.start = "nonsense".into();
    assert!(matches!(
        Session::from_data(bad),
        Err(LoadError::Position(_))
    ));
    let mut bad = data.clone();
    bad.options.control = TimeControl::Untimed;
    assert!(matches!(
        Session::from_data(bad),
        Err(LoadError::Inconsistent(_))
    ));
    let mut bad = data.clone();
    bad.revision = 1;
    assert!(matches!(
        Session::from_data(bad),
        Err(LoadError::Inconsistent(_))
    ));
    let mut bad: SessionData = data.clone();
    bad.ending = Some(session::Ending::Aborted {
        by: FIRST,
        reason: AbortReason::Asked,
    });
    bad.draw_offer = Some(SECOND);
    assert!(matches!(
        Session::from_data(bad),
        Err(LoadError::Inconsistent(_))
    ));
    assert!(serde_json::from_str::<Session>("{\"kind\":\"chess\"}").is_err());
    assert!(Session::from_data(data).is_ok());
}

#[test]
fn a_game_from_a_record_keeps_its_moves_and_its_ending() {
    let mut game = AnyGame::start(GameKind::Fetlar);
    for text in ["d1-d3", "e5-e2", "g1-g3"] {
        game.try_play(text).unwrap();
    }
    let resigned = Outcome::loss(SECOND, EndReason::Resignation);
    let s = Session::with_ending(
        game.clone(),
        Some(resigned),
        options("5+0", Takebacks::Immediate),
        at(0),
    );
    assert_eq!(s.moves().len(), 3);
    assert_eq!(s.moves()[1].player, SECOND);
    assert_eq!(s.moves()[2].at, None);
    assert_eq!(s.outcome(), Some(resigned));
    assert_eq!(s.clocks().running(), None);
    assert_eq!(round_trip(&s), s);
    assert_eq!(
        s.data().start,
        AnyGame::start(GameKind::Fetlar).start_position_string()
    );

    let mut s = Session::new(game, options("5+0", Takebacks::Immediate), at(0));
    assert_eq!(s.clocks().running_player(), Some(SECOND));
    assert_eq!(s.request_takeback(SECOND, at(5)), Ok(Takeback::Done(2)));
    assert_eq!(s.game().move_texts(), ["d1-d3"]);
    assert_eq!(s.clocks().running_player(), Some(SECOND));
}

#[test]
fn each_clock_starts_with_its_players_first_move() {
    let mut s = from_first_move(GameKind::Copenhagen, "1+2", Takebacks::Never);
    // Looking at the board for 25 s costs nothing (and adds no increment).
    assert_eq!(s.first_move_deadline(), Some((FIRST, at(30))));
    assert_eq!(s.check_flag(at(25)), None);
    s.play(FIRST, "d1-d3", at(25)).unwrap();
    assert_eq!(s.clocks().both(at(25)), Some([Duration::from_secs(60); 2]));
    // The second player's first turn is free too, with its own deadline.
    assert_eq!(s.first_move_deadline(), Some((SECOND, at(55))));
    assert_eq!(s.clocks().deadline(), None);
    s.play(SECOND, "e5-e2", at(50)).unwrap();
    // From now on both clocks count.
    assert_eq!(s.first_move_deadline(), None);
    assert_eq!(
        s.clocks().remaining(FIRST, at(60)),
        Some(Duration::from_secs(50))
    );
    assert_eq!(s.clocks().deadline(), Some(at(110)));
    s.play(FIRST, "g1-g3", at(60)).unwrap();
    assert_eq!(
        s.clocks().remaining(FIRST, at(60)),
        Some(Duration::from_secs(52))
    );
    assert_eq!(
        s.check_flag(at(120)),
        Some(Outcome::loss(SECOND, EndReason::Timeout))
    );
    // Stored and loaded, the clocks still know who has started.
    let mut s = from_first_move(GameKind::Fetlar, "1+0", Takebacks::Never);
    s.play(FIRST, "d1-d3", at(5)).unwrap();
    let back = round_trip(&s);
    assert_eq!(back, s);
    assert_eq!(back.clocks().deadline(), None);
}

#[test]
fn a_first_move_not_made_in_time_aborts_the_game() {
    for (mover_first, who) in [(false, FIRST), (true, SECOND)] {
        let mut s = from_first_move(GameKind::Camelot, "5+3", Takebacks::Never);
        let from = if mover_first {
            let mv = s.legal_moves()[0].text.clone();
            s.play(FIRST, &mv, at(10)).unwrap();
            10
        } else {
            0
        };
        assert_eq!(s.check_first_move(at(from + 29)), None);
        let revision = s.revision();
        assert_eq!(s.check_first_move(at(from + 30)), Some(who));
        assert_eq!(
            s.status(),
            Status::Aborted {
                by: who,
                reason: AbortReason::NoFirstMove
            }
        );
        assert_eq!(s.outcome(), None, "aborted, not lost");
        assert_eq!(s.revision(), revision + 1);
        assert!(matches!(
            s.events().last().unwrap().kind,
            EventKind::Aborted { by, reason: AbortReason::NoFirstMove } if by == who
        ));
        assert_eq!(s.clocks().running(), None);
        assert_eq!(round_trip(&s), s);
    }
    // Correspondence: the days per move; untimed: no limit; clocks counting at once: none.
    let s = from_first_move(GameKind::Fetlar, "2d", Takebacks::Never);
    assert_eq!(s.first_move_deadline(), Some((FIRST, at(2 * 86_400))));
    let mut s = from_first_move(GameKind::Fetlar, "untimed", Takebacks::Never);
    assert_eq!(s.first_move_deadline(), None);
    assert_eq!(s.check_first_move(at(10_000_000)), None);
    let mut s = copenhagen("1+0", Takebacks::Never);
    assert_eq!(s.first_move_deadline(), None);
    assert_eq!(s.check_first_move(at(59)), None);
}

#[test]
fn taking_back_a_first_move_makes_that_clock_wait_again() {
    let mut s = from_first_move(GameKind::Copenhagen, "1+0", Takebacks::Immediate);
    play_all(&mut s, &["d1-d3", "e5-e2", "g1-g3"], 1);
    assert!(s.clocks().is_started(SECOND));
    // The second player's only move goes: their clock waits for a first move again.
    assert_eq!(s.request_takeback(SECOND, at(10)), Ok(Takeback::Done(2)));
    assert!(s.clocks().is_started(FIRST));
    assert!(!s.clocks().is_started(SECOND));
    assert_eq!(s.first_move_deadline(), Some((SECOND, at(40))));
    assert_eq!(s.clocks().deadline(), None);
}

#[test]
fn untimed_games_left_alone_are_abandoned_and_aborted() {
    let mut s = from_first_move(GameKind::Copenhagen, "untimed", Takebacks::Never);
    play_all(&mut s, &["d1-d3", "e5-e2"], 1);
    let due = at(2) + ABANDONED_AFTER;
    assert_eq!(s.abandoned_at(), Some(due));
    assert!(!s.check_abandoned(at(1_000)));
    assert!(s.is_ongoing());
    assert!(s.check_abandoned(due));
    assert_eq!(
        s.status(),
        Status::Aborted {
            by: FIRST,
            reason: AbortReason::Abandoned
        }
    );
    // Timed games end on time instead.
    let mut s = copenhagen("3d", Takebacks::Never);
    assert_eq!(s.abandoned_at(), None);
    assert!(!s.check_abandoned(at(100) + ABANDONED_AFTER));
}

#[test]
fn a_player_who_stayed_claims_victory_or_a_draw() {
    let mut s = from_first_move(GameKind::Copenhagen, "5+0", Takebacks::Never);
    s.play(FIRST, "d1-d3", at(1)).unwrap();
    // Before both have moved the game can be aborted instead.
    assert_eq!(s.claim_victory(FIRST, at(2)), Err(Error::NothingToClaim));
    s.play(SECOND, "e5-e2", at(2)).unwrap();
    let mut drawn = s.clone();
    let won = Outcome::win(FIRST, EndReason::Abandonment);
    assert_eq!(s.claim_victory(FIRST, at(40)), Ok(won));
    assert_eq!(s.outcome(), Some(won));
    assert_eq!(s.clocks().running(), None);
    assert!(matches!(
        s.claim_victory(SECOND, at(41)),
        Err(Error::GameOver { .. })
    ));
    let draw = Outcome::draw(EndReason::Abandonment);
    assert_eq!(drawn.claim_draw(SECOND, at(40)), Ok(draw));
    // A claimer who could not win on the board gets a draw (one Camelot man).
    let fen = format!("{TWO_AGAINST_ONE} b 0 0 0");
    let game = AnyGame::from_position(GameKind::Camelot, &fen).unwrap();
    let mut s = Session::new(game, options("5+0", Takebacks::Never), at(0));
    let mv = s.legal_moves()[0].text.clone();
    s.play(SECOND, &mv, at(1)).unwrap();
    let mv = s.legal_moves()[0].text.clone();
    s.play(FIRST, &mv, at(2)).unwrap();
    assert_eq!(s.claim_victory(SECOND, at(3)), Ok(draw));
}

#[test]
fn downtime_is_given_back_to_the_side_to_move() {
    let mut s = copenhagen("1+0", Takebacks::Never);
    s.play(FIRST, "d1-d3", at(10)).unwrap();
    // Second thinks from 10; the server is last seen alive at 20, back at 500.
    let revision = s.revision();
    assert_eq!(s.resume(at(20), at(500)), Some(Duration::from_secs(480)));
    assert_eq!(s.revision(), revision + 1);
    assert!(matches!(
        s.events().last().unwrap().kind,
        EventKind::Resumed {
            paused_ms: 480_000,
            ..
        }
    ));
    assert_eq!(
        s.clocks().remaining(SECOND, at(500)),
        Some(Duration::from_secs(50))
    );
    assert_eq!(s.check_flag(at(549)), None);
    assert_eq!(round_trip(&s), s);
    // Nothing to give back: no time passed since the turn (re)started, or the game is over.
    assert_eq!(s.resume(at(20), at(490)), None);
    s.resign(SECOND, at(501)).unwrap();
    assert_eq!(s.resume(at(501), at(900)), None);
}

#[test]
fn a_player_gives_the_opponent_time_running_or_not() {
    let mut s = copenhagen("1+0", Takebacks::Never);
    s.play(FIRST, "d1-d3", at(10)).unwrap();
    // Second thinks from 10; First gives them 15 s at 20, and again while waiting.
    let revision = s.revision();
    assert_eq!(s.give_time(FIRST, at(20)), Ok(Duration::from_secs(15)));
    assert_eq!(s.revision(), revision + 1);
    assert!(matches!(
        s.events().last().unwrap().kind,
        EventKind::TimeGiven {
            by: FIRST,
            ms: 15_000,
            ..
        }
    ));
    assert_eq!(
        s.clocks().remaining(SECOND, at(20)),
        Some(Duration::from_secs(65))
    );
    // The giver's own clock is untouched; the receiver's stopped clock gets it too.
    assert_eq!(
        s.clocks().remaining(FIRST, at(20)),
        Some(Duration::from_secs(50))
    );
    s.give_time(SECOND, at(21)).unwrap();
    assert_eq!(
        s.clocks().remaining(FIRST, at(21)),
        Some(Duration::from_secs(65))
    );
    assert_eq!(round_trip(&s), s);
    // The second had 65 s left at 20: still on at 84, fallen at 85; then no gift helps.
    assert_eq!(s.check_flag(at(84)), None);
    assert!(matches!(
        s.give_time(FIRST, at(86)),
        Err(Error::GameOver { outcome: Some(_) })
    ));
}

#[test]
fn time_is_given_a_day_in_correspondence_and_never_untimed() {
    let mut s = copenhagen("2d", Takebacks::Never);
    s.play(FIRST, "d1-d3", at(10)).unwrap();
    assert_eq!(s.give_time(FIRST, at(20)), Ok(Duration::from_secs(86_400)));
    assert_eq!(
        s.clocks().remaining(SECOND, at(10)),
        Some(Duration::from_secs(3 * 86_400))
    );
    let mut s = copenhagen("untimed", Takebacks::Never);
    let revision = s.revision();
    assert_eq!(s.give_time(FIRST, at(1)), Err(Error::Untimed));
    assert_eq!(s.revision(), revision);
}

// ---- Property tests: random play, stored and loaded at random points ----

#[derive(Clone, Debug)]
enum Action {
    Move(usize),
    Wait(u64),
    Takeback(bool),
    AcceptTakeback(bool),
    DeclineTakeback(bool),
    OfferDraw(bool),
    AcceptDraw(bool),
    DeclineDraw(bool),
    Resign(bool),
    Abort(bool),
    Flag,
    FirstMove,
    ClaimVictory(bool),
    Resume(u64),
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        8 => any::<usize>().prop_map(Action::Move),
        3 => (0u64..20_000).prop_map(Action::Wait),
        1 => any::<bool>().prop_map(Action::Takeback),
        1 => any::<bool>().prop_map(Action::AcceptTakeback),
        1 => any::<bool>().prop_map(Action::DeclineTakeback),
        1 => any::<bool>().prop_map(Action::OfferDraw),
        1 => any::<bool>().prop_map(Action::AcceptDraw),
        1 => any::<bool>().prop_map(Action::DeclineDraw),
        1 => any::<bool>().prop_map(Action::Resign),
        1 => any::<bool>().prop_map(Action::Abort),
        1 => Just(Action::Flag),
        1 => Just(Action::FirstMove),
        1 => any::<bool>().prop_map(Action::ClaimVictory),
        1 => (0u64..20_000).prop_map(Action::Resume),
    ]
}

fn who(first: bool) -> Player {
    if first { FIRST } else { SECOND }
}

/// Applies `action` and returns what it answered, as text to compare.
fn apply(s: &mut Session, action: &Action, now: &mut Timestamp) -> String {
    match *action {
        Action::Move(i) => {
            let moves = s.legal_moves();
            if moves.is_empty() {
                return format!("{:?}", s.play(s.to_move(), "a1-a2", *now));
            }
            let text = moves[i % moves.len()].text.clone();
            format!("{:?}", s.play(s.to_move(), &text, *now))
        }
        Action::Wait(ms) => {
            *now = *now + Duration::from_millis(ms);
            String::new()
        }
        Action::Takeback(p) => format!("{:?}", s.request_takeback(who(p), *now)),
        Action::AcceptTakeback(p) => format!("{:?}", s.accept_takeback(who(p), *now)),
        Action::DeclineTakeback(p) => format!("{:?}", s.decline_takeback(who(p), *now)),
        Action::OfferDraw(p) => format!("{:?}", s.offer_draw(who(p), *now)),
        Action::AcceptDraw(p) => format!("{:?}", s.accept_draw(who(p), *now)),
        Action::DeclineDraw(p) => format!("{:?}", s.decline_draw(who(p), *now)),
        Action::Resign(p) => format!("{:?}", s.resign(who(p), *now)),
        Action::Abort(p) => format!("{:?}", s.abort(who(p), *now)),
        Action::Flag => format!("{:?}", s.check_flag(*now)),
        Action::FirstMove => format!("{:?}", s.check_first_move(*now)),
        Action::ClaimVictory(p) => format!("{:?}", s.claim_victory(who(p), *now)),
        Action::Resume(ms) => {
            // Down from now for `ms` milliseconds.
            let from = *now;
            *now = *now + Duration::from_millis(ms);
            format!("{:?}", s.resume(from, *now))
        }
    }
}

fn setup() -> impl Strategy<Value = (GameKind, Options)> {
    let kind = prop_oneof![
        Just(GameKind::Fetlar),
        Just(GameKind::Copenhagen),
        Just(GameKind::Camelot)
    ];
    let control = prop_oneof![Just("0.5+1"), Just("1+0"), Just("1d"), Just("untimed")];
    let takebacks = prop_oneof![
        Just(Takebacks::Never),
        Just(Takebacks::ByAgreement),
        Just(Takebacks::Immediate)
    ];
    let clock_start = prop_oneof![Just(ClockStart::AtOnce), Just(ClockStart::FirstMove)];
    (kind, control, takebacks, clock_start).prop_map(|(kind, control, takebacks, clock_start)| {
        let options = Options {
            clock_start,
            ..options(control, takebacks)
        };
        (kind, options)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Two copies play the same actions; one is stored and loaded back at random points.
    /// They answer every action alike and end equal, the game inside included.
    #[test]
    fn storing_and_loading_at_any_point_changes_nothing(
        (kind, opts) in setup(),
        actions in proptest::collection::vec((action(), any::<bool>()), 1..80),
    ) {
        let mut kept = Session::new(AnyGame::start(kind), opts, at(0));
        let mut stored = kept.clone();
        let mut now = at(0);
        for (action, store) in &actions {
            let mut now_b = now;
            let a = apply(&mut kept, action, &mut now);
            let b = apply(&mut stored, action, &mut now_b);
            prop_assert_eq!(a, b);
            if *store {
                let json = serde_json::to_string(&stored).unwrap();
                stored = serde_json::from_str(&json).unwrap();
            }
            prop_assert_eq!(&stored, &kept);
            prop_assert_eq!(stored.game().position_string(), kept.game().position_string());
            prop_assert_eq!(stored.game().hash(), kept.game().hash());
            prop_assert_eq!(stored.status(), kept.status());
            prop_assert_eq!(stored.legal_moves(), kept.legal_moves());
            prop_assert_eq!(stored.moves(), kept.moves());
            // The revision counts the events, and the log replays the catch-up.
            prop_assert_eq!(kept.events().len() as u64, kept.revision());
            prop_assert_eq!(stored.events_since(0).map(<[_]>::len), Some(kept.events().len()));
        }
    }

    /// A checkpoint puts the session back exactly as it was after any action that did
    /// not take moves back (the server keeps a mark, not a copy, while it stores a move);
    /// after one that did, restoring is refused and changes nothing.
    #[test]
    fn a_checkpoint_restores_what_any_action_changed(
        (kind, opts) in setup(),
        actions in proptest::collection::vec(action(), 1..60),
    ) {
        let mut s = Session::new(AnyGame::start(kind), opts, at(0));
        let mut now = at(0);
        for action in &actions {
            let before = s.clone();
            let mark = s.checkpoint();
            let mut tried = s.clone();
            let mut later = now;
            apply(&mut tried, action, &mut later);
            let took_back = tried.moves().len() < before.moves().len();
            let after = tried.clone();
            if tried.restore(&mark) {
                prop_assert!(!took_back);
                prop_assert_eq!(&tried, &before);
                prop_assert_eq!(tried.game().hash(), before.game().hash());
                prop_assert_eq!(tried.game().position_string(), before.game().position_string());
                prop_assert_eq!(tried.events(), before.events());
                prop_assert_eq!(tried.legal_moves(), before.legal_moves());
            } else {
                prop_assert!(took_back);
                prop_assert_eq!(&tried, &after);
            }
            apply(&mut s, action, &mut now);
        }
    }

    /// Whatever is done, the clocks never give a player time they did not get from a
    /// move's increment, and a game that is over has no clock running.
    #[test]
    fn over_means_stopped(
        (kind, opts) in setup(),
        actions in proptest::collection::vec(action(), 1..60),
    ) {
        let mut s = Session::new(AnyGame::start(kind), opts, at(0));
        let mut now = at(0);
        for action in &actions {
            apply(&mut s, action, &mut now);
            if !s.is_ongoing() {
                prop_assert_eq!(s.clocks().running(), None);
                prop_assert!(s.legal_moves().is_empty());
                prop_assert_eq!(s.draw_offer(), None);
                prop_assert_eq!(s.takeback_request(), None);
            } else {
                prop_assert_eq!(s.clocks().running_player(), Some(s.to_move()));
            }
        }
    }
}

#[test]
fn an_ending_names_who_resigned_whose_flag_fell_or_who_left() {
    let mut s = from_first_move(GameKind::Copenhagen, "1+0", Takebacks::Never);
    s.play(FIRST, "d1-d3", at(1)).unwrap();
    s.play(SECOND, "e5-e2", at(2)).unwrap();
    assert_eq!(s.ended_by(), None, "still going");
    // Resignation: the player who resigned.
    let mut resigned = s.clone();
    resigned.resign(SECOND, at(3)).unwrap();
    assert_eq!(resigned.ended_by(), Some(SECOND));
    assert!(matches!(
        resigned.events().last().unwrap().kind,
        EventKind::Ended {
            by: Some(SECOND),
            ..
        }
    ));
    // It survives being stored and read back.
    assert_eq!(round_trip(&resigned).ended_by(), Some(SECOND));
    // A flag fall: the player whose time ran out (the attackers, to move).
    let mut flagged = s.clone();
    assert!(flagged.check_flag(at(200)).is_some());
    assert_eq!(flagged.ended_by(), Some(FIRST));
    // A claim, for a win or a draw: the player who left, not the claimer.
    let mut claimed = s.clone();
    claimed.claim_victory(FIRST, at(40)).unwrap();
    assert_eq!(claimed.ended_by(), Some(SECOND));
    let mut drawn = s.clone();
    drawn.claim_draw(SECOND, at(40)).unwrap();
    assert_eq!(drawn.ended_by(), Some(FIRST));
    // An agreement is nobody's doing.
    let mut agreed = s.clone();
    agreed.offer_draw(FIRST, at(3)).unwrap();
    agreed.accept_draw(SECOND, at(4)).unwrap();
    assert_eq!(agreed.ended_by(), None);
    // A session stored before endings named anyone reads as naming no one.
    let mut old = serde_json::to_value(&resigned).unwrap();
    assert_eq!(old["ending"]["by"], "second");
    old["ending"].as_object_mut().unwrap().remove("by");
    for event in old["events"].as_array_mut().unwrap() {
        event.as_object_mut().unwrap().remove("by");
    }
    let old: Session = serde_json::from_value(old).unwrap();
    assert_eq!(old.ended_by(), None);
    assert_eq!(old.outcome(), resigned.outcome());
}
