//! The messages read and written as documented.

use game::{GameKind, Outcome, Player};
use games::BoardView;

use super::*;

/// A list of `n` moves (the same legal move's geometry, numbered).
fn played(n: usize) -> PlayedList {
    let info = games::AnyGame::start(GameKind::Fetlar).legal_moves_info()[0].clone();
    let mut list = PlayedList::default();
    for ply in 1..=n {
        let player = if ply % 2 == 1 {
            Player::First
        } else {
            Player::Second
        };
        list.push_view(PlayedView {
            ply,
            player,
            info: info.clone(),
        });
    }
    list
}

#[test]
fn a_list_after_a_change_is_its_shared_chunks_and_what_follows() {
    for (before, after) in [
        (0, 1),
        (7, 8),
        (8, 9),
        (17, 18),
        (16, 24),
        (20, 13),
        (9, 8),
        (3, 0),
    ] {
        let (old, new) = (played(before), played(after));
        let from = old.shared_with(&new);
        assert_eq!(from % PlayedList::CHUNK, 0);
        assert!(from <= before.min(after));
        let rest = new.since(from);
        assert_eq!(rest.len(), after - from);
        let joined = old.joined(from, &rest).expect("joined");
        assert_eq!(joined, new, "{before} then {after}");
        assert_eq!(
            serde_json::to_string(&joined).unwrap(),
            serde_json::to_string(&new).unwrap()
        );
    }
    // What the list does not have, or a cut inside a chunk, is refused.
    assert!(played(8).joined(16, &played(1)).is_none());
    assert!(played(12).joined(4, &played(1)).is_none());
}

#[test]
fn client_messages_read_as_documented() {
    let read = |text: &str| serde_json::from_str::<ClientMessage>(text);
    assert_eq!(
        read(r#"{"t":"hello","rev":12}"#).unwrap(),
        ClientMessage::Hello { rev: 12 }
    );
    assert_eq!(
        read(r#"{"t":"move","rev":3,"move":"d1-d3"}"#).unwrap(),
        ClientMessage::Act(Act::Move {
            rev: Some(3),
            text: "d1-d3".into()
        })
    );
    assert_eq!(
        read(r#"{"t":"resign"}"#).unwrap(),
        ClientMessage::Act(Act::Resign)
    );
    assert_eq!(
        read(r#"{"t":"claim_victory"}"#).unwrap(),
        ClientMessage::Act(Act::ClaimVictory)
    );
    assert_eq!(
        read(r#"{"t":"claim_draw"}"#).unwrap(),
        ClientMessage::Act(Act::ClaimDraw)
    );
    assert_eq!(
        read(r#"{"t":"draw_offer"}"#).unwrap(),
        ClientMessage::Act(Act::DrawOffer)
    );
    for bad in [
        r#"{"t":"fly"}"#,
        r#"{"move":"d1-d3"}"#,
        "[]",
        "",
        r#"{"t":"move"}"#,
    ] {
        assert!(read(bad).is_err(), "{bad}");
        assert!(ClientMessage::parse(bad).is_err(), "{bad}");
    }
    let why = |text: &str| ClientMessage::parse(text).unwrap_err();
    assert_eq!(why(r#"{"t":"fly"}"#), "unknown message type `fly`");
    assert!(why(r#"{"t":"move"}"#).contains("missing field `move`"));
    assert!(why(r#"{"t":"chat","text":"hi"}"#).contains("`chat` message"));
    assert!(why("[]").contains("expected"), "{}", why("[]"));
}

#[test]
fn every_kind_is_labelled_by_its_tag() {
    let mut labels: Vec<&str> = MessageKind::all().map(MessageKind::label).collect();
    for kind in MessageKind::all() {
        let label = kind.label();
        let text = match label {
            "invalid" => r#"{"t":"fly"}"#.to_owned(),
            "move" => r#"{"t":"move","move":"d1-d3"}"#.to_owned(),
            "chat" => r#"{"t":"chat","room":"players","text":"hi"}"#.to_owned(),
            _ => format!(r#"{{"t":"{label}"}}"#),
        };
        let parsed = ClientMessage::parse(&text).ok();
        assert_eq!(MessageKind::of(parsed.as_ref()), kind, "{text}");
    }
    labels.sort_unstable();
    labels.dedup();
    assert_eq!(labels.len(), MessageKind::all().count(), "one label a kind");
}

mod any_input {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// What the `server_messages` fuzz target checks, in the test suite's short
        /// form: any text, or a message of any tag with fields of any kind, reads as
        /// a message or as an error (never a panic), and a move's text read from it
        /// is tried on each game's start as the game's owner tries it.
        #[test]
        fn reads_as_a_message_or_an_error(
            raw in ".{0,80}",
            tag in prop::sample::select(vec!["hello", "move", "resign", "draw_offer", "takeback", "chat", "claim_victory", "fly", ""]),
            field in prop::sample::select(vec!["rev", "move", "text", "t", "id"]),
            value in prop_oneof![
                any::<i64>().prop_map(|n| n.to_string()),
                any::<f64>().prop_map(|n| n.to_string()),
                ".{0,24}".prop_map(|s| serde_json::to_string(&s).unwrap()),
                Just("null".to_string()),
                Just("[1,{}]".to_string()),
            ],
            mv in "[a-q]{1,2}[0-9]{1,2}([-x][a-q][0-9]{1,2}){1,4}",
        ) {
            let _ = serde_json::from_str::<ClientMessage>(&raw);
            let built = format!(
                r#"{{"t":"{tag}","{field}":{value},"move":{}}}"#,
                serde_json::to_string(&mv).unwrap()
            );
            for text in [raw.as_str(), built.as_str()] {
                if let Ok(ClientMessage::Act(Act::Move { text, .. })) = serde_json::from_str::<ClientMessage>(text) {
                    for kind in GameKind::ALL {
                        let _ = games::AnyGame::start(kind).try_play(&text);
                    }
                }
            }
        }
    }
}

#[test]
fn every_refusal_reason_is_documented_and_said_in_words() {
    let api = include_str!("../../../../../docs/API.md");
    let client = include_str!("../../../../../web/js/ui.js");
    for reason in Refusal::REASONS {
        assert!(
            api.contains(&format!("`{reason}`")),
            "docs/API.md: {reason}"
        );
        assert!(
            client.contains(&format!("  {reason}: 'error.{reason}',")),
            "web/js/ui.js: {reason}"
        );
    }
}

#[test]
fn actions_are_the_client_messages_that_do_them() {
    for &action in Action::ALL {
        let name = serde_json::to_value(action).unwrap();
        // A move names its move; the other acts ignore the field.
        let message = serde_json::json!({ "t": name, "move": "d1-d3" });
        match serde_json::from_value::<ClientMessage>(message) {
            Ok(ClientMessage::Act(act)) => assert_eq!(Action::from(&act), action),
            other => panic!("{name} is a client message: {other:?}"),
        }
        assert_eq!(Action::from_tag(name.as_str().unwrap()), Some(action));
    }
}

#[test]
fn a_status_is_named_alike_at_every_layer() {
    use crate::store::GameStatus;
    use session::Status;
    for stored in [
        GameStatus::Waiting,
        GameStatus::Playing,
        GameStatus::Finished,
        GameStatus::Aborted,
    ] {
        assert_eq!(
            serde_json::to_value(GameStatusView::from(stored)).unwrap(),
            serde_json::to_value(stored).unwrap()
        );
    }
    let finished = Status::Finished {
        outcome: Outcome {
            winner: Some(Player::First),
            reason: game::EndReason::KingCaptured,
        },
    };
    let aborted = Status::Aborted {
        by: Player::Second,
        reason: session::AbortReason::default(),
    };
    for (status, stored, view) in [
        (
            Status::Ongoing,
            GameStatus::Playing,
            GameStatusView::Ongoing,
        ),
        (finished, GameStatus::Finished, GameStatusView::Finished),
        (aborted, GameStatus::Aborted, GameStatusView::Aborted),
    ] {
        assert_eq!(GameStatus::from(status), stored);
        assert_eq!(GameStatusView::from(status), view);
    }
}

#[test]
fn the_tags_are_the_variants_as_serde_names_them() {
    use strum::VariantArray;
    assert_eq!(ServerTag::VARIANTS.len(), ServerMessage::TAGS.len());
    for (tag, name) in ServerTag::VARIANTS.iter().zip(ServerMessage::TAGS) {
        assert_eq!(serde_json::to_value(tag).unwrap(), *name);
    }
    assert_eq!(LobbyTag::VARIANTS.len(), LobbyMessage::TAGS.len());
    for (tag, name) in LobbyTag::VARIANTS.iter().zip(LobbyMessage::TAGS) {
        assert_eq!(serde_json::to_value(tag).unwrap(), *name);
    }
    assert!(ServerMessage::TAGS.contains(&"absent"));
}

#[test]
fn the_tags_are_those_sent() {
    let game = [
        ServerMessage::Clocks { clocks: None },
        ServerMessage::Watchers { count: 1 },
        ServerMessage::Absent { absent: Vec::new() },
        ServerMessage::Rematch { id: "x".into() },
        Refusal::new(SocketError::Stale, "x").into(),
        ServerMessage::Pong,
    ];
    for message in &game {
        let t = serde_json::to_value(message).unwrap()["t"].clone();
        let listed = ServerMessage::TAGS[ServerTag::from(message) as usize];
        assert_eq!(t, listed, "{message:?}");
    }
    let lobby = [
        LobbyMessage::ChallengeAccepted {
            challenge: "c".into(),
            game: "g".into(),
        },
        LobbyMessage::MyGames { games: Vec::new() },
        LobbyMessage::Snapshot {
            v: 1,
            games: Vec::new(),
            live: 0,
            challenges: Vec::new(),
        },
        LobbyMessage::Pong,
    ];
    for message in &lobby {
        let t = serde_json::to_value(message).unwrap()["t"].clone();
        let listed = LobbyMessage::TAGS[LobbyTag::from(message) as usize];
        assert_eq!(t, listed, "{message:?}");
    }
}

#[test]
fn the_movers_events_text_is_the_public_one_with_the_moves() {
    for kind in [GameKind::Copenhagen, GameKind::Camelot] {
        let game = games::AnyGame::start(kind);
        let files = games::Board::files(&game);
        let legal = LegalMoves::from_wire(files, games::Board::legal_moves_wire(&game));
        assert_eq!(
            legal,
            LegalMoves::from_infos(&game.legal_moves_info(), files)
        );
        assert_eq!(legal.infos(), game.legal_moves_info());
        // Between processes and back.
        let there: LegalMoves =
            serde_json::from_str(&serde_json::to_string(&legal).unwrap()).unwrap();
        assert_eq!(there, legal);
        let none: LegalMoves =
            serde_json::from_str(&serde_json::to_string(&LegalMoves::default()).unwrap()).unwrap();
        assert!(none.is_empty());
        let board = BoardView::of(&game);
        let mut view = EventsView {
            from_rev: 3,
            rev: 4,
            events: Vec::new(),
            status: GameStatusView::Ongoing,
            result: None,
            pieces: board.pieces(),
            to_move: board.to_move,
            clocks: None,
            draw_offer: Some(Player::Second),
            takeback_request: None,
            actions: Actions::default(),
            legal: LegalMoves::default(),
        };
        let public = serde_json::to_string(&ServerMessage::Events(Box::new(view.clone()))).unwrap();
        assert!(public.ends_with(r#""legal":[]}"#), "{public}");
        view.legal.clone_from(&legal);
        let whole = serde_json::to_string(&ServerMessage::Events(Box::new(view))).unwrap();
        assert_eq!(
            EventsView::with_legal_moves(&public, &legal).unwrap(),
            whole
        );
    }
    assert_eq!(
        EventsView::with_legal_moves("{\"t\":\"pong\"}", &LegalMoves::default()),
        None
    );
}

#[test]
fn a_correspondence_game_is_one_of_days_per_move() {
    for control in ["1d", "3d", "14d"] {
        assert!(is_correspondence(control), "{control}");
    }
    for control in ["5+3", "0.5+0", "untimed", "", "d", "0d", "3 days"] {
        assert!(!is_correspondence(control), "{control}");
    }
}

#[test]
fn error_codes_are_snake_case() {
    for code in SocketError::ALL {
        assert_eq!(
            serde_json::to_value(code).unwrap(),
            serde_json::Value::from(code.as_str())
        );
    }
}
