//! The players' own channels, without a database or a socket.

use super::*;

fn seat(user: Option<&str>, guest: Option<&str>) -> SeatRecord {
    SeatRecord {
        user_id: user.map(str::to_owned),
        username: None,
        guest_id: guest.map(str::to_owned),
        guest_name: None,
        ai_level: None,
    }
}

fn game(to_move: Option<Player>) -> MyGame {
    MyGame {
        id: "g1".into(),
        kind: GameKind::Copenhagen,
        status: GameStatusView::Ongoing,
        players: Vec::new(),
        time_control: "3d".into(),
        rated: false,
        to_move,
        clocks: None,
        draw_offer: None,
        takeback_request: None,
        result: None,
        plies: 0,
    }
}

fn ident(user: Option<&str>, guest: Option<&str>) -> Ident {
    Ident {
        user: user.map(str::to_owned),
        guest: guest.map(str::to_owned),
    }
}

fn text(sub: &mut Subscription) -> Option<String> {
    match sub.receiver.try_recv() {
        Ok(Personal::Text(text)) => Some(text.to_string()),
        Ok(Personal::Challenges) => Some("challenges".to_owned()),
        Err(_) => None,
    }
}

#[test]
fn challenges_are_told_once_per_socket_to_their_accounts_only() {
    let people = People::new();
    // A signed-in player who was a guest has their socket under both ids.
    let mut a = people.join(&ident(Some("ua"), Some("ga"))).unwrap();
    let mut b = people.join(&ident(Some("ub"), None)).unwrap();
    let mut other = people.join(&ident(Some("uc"), None)).unwrap();
    people.challenges_changed(&["ua", "ub", "ua"]);
    assert_eq!(text(&mut a).as_deref(), Some("challenges"));
    assert_eq!(text(&mut a), None, "once per socket");
    assert_eq!(text(&mut b).as_deref(), Some("challenges"));
    assert_eq!(text(&mut other), None);
}

#[test]
fn personal_message_goes_only_to_the_games_players_with_their_side() {
    let people = People::new();
    let mut a = people.join(&ident(Some("ua"), None)).unwrap();
    let mut b = people.join(&ident(None, Some("gb"))).unwrap();
    let mut other = people.join(&ident(Some("uc"), None)).unwrap();
    people.publish(&[seat(Some("ua"), None), seat(None, Some("gb"))], || {
        game(Some(Player::Second))
    });
    let to_a: serde_json::Value = serde_json::from_str(&text(&mut a).unwrap()).unwrap();
    let to_b: serde_json::Value = serde_json::from_str(&text(&mut b).unwrap()).unwrap();
    assert_eq!(to_a["t"], "my_game");
    assert_eq!(to_a["game"]["you"], "first");
    assert_eq!(to_b["game"]["you"], "second");
    assert_eq!(to_b["game"]["to_move"], "second");
    assert_eq!(text(&mut other), None, "a socket of someone else");
    assert_eq!(people.online_count(), 3);
}

fn game_change(first: &[&str], second: &[&str], to_move: Option<Player>) -> PeopleChange {
    let keys = |ids: &[&str]| ids.iter().map(|&id| id.to_owned()).collect();
    PeopleChange::Game {
        players: [keys(first), keys(second)],
        game: serde_json::value::to_raw_value(&game(to_move)).unwrap(),
    }
}

#[test]
fn a_game_changed_on_another_process_reaches_its_players_sockets_here() {
    let here = People::new();
    let mut a = here.join(&ident(Some("ua"), None)).unwrap();
    let mut b = here.join(&ident(None, Some("gb"))).unwrap();
    let mut other = here.join(&ident(Some("uc"), None)).unwrap();
    let change = game_change(&["ua"], &["gb"], Some(Player::First));
    assert!(super::super::hub::carried(&*here, &change, "one", "two").is_some());
    let to_a: serde_json::Value = serde_json::from_str(&text(&mut a).unwrap()).unwrap();
    let to_b: serde_json::Value = serde_json::from_str(&text(&mut b).unwrap()).unwrap();
    assert_eq!(to_a["t"], "my_game");
    assert_eq!(to_a["game"]["you"], "first");
    assert_eq!(to_a["game"]["to_move"], "first");
    assert_eq!(to_b["game"]["you"], "second");
    assert_eq!(text(&mut a), None, "once");
    assert_eq!(text(&mut other), None, "a socket of someone else");
}

#[test]
fn a_change_this_process_made_is_not_applied_twice() {
    let here = People::new();
    let mut a = here.join(&ident(Some("ua"), None)).unwrap();
    let change = PeopleChange::Challenges(vec!["ua".to_owned()]);
    assert!(super::super::hub::carried(&*here, &change, "two", "two").is_none());
    assert_eq!(text(&mut a), None);
    assert!(super::super::hub::carried(&*here, &change, "one", "two").is_some());
    assert_eq!(text(&mut a).as_deref(), Some("challenges"));
}

#[test]
fn after_the_bus_comes_back_every_socket_is_sent_its_whole_list() {
    let people = People::new();
    let mut both = people.join(&ident(Some("u"), Some("g"))).unwrap();
    let full = people.join(&ident(Some("v"), None)).unwrap();
    for _ in 0..QUEUE {
        people.challenges_changed(&["v"]);
    }
    assert!(!full.take_behind());
    people.all_behind();
    assert!(both.take_behind());
    assert!(text(&mut both).is_some(), "woken");
    assert_eq!(text(&mut both), None, "once, though under two ids");
    assert!(full.take_behind(), "a full queue is marked too");
}

#[test]
fn the_spliced_message_is_the_typed_one() {
    let mut one = game(Some(Player::First));
    one.clocks = Some(ClocksView {
        first_ms: 1,
        second_ms: 2,
        running: Some(Player::First),
    });
    for side in Player::BOTH {
        let spliced: serde_json::Value =
            serde_json::from_str(&with_side(&to_text(&one), side)).unwrap();
        let typed = serde_json::to_value(LobbyMessage::MyGame {
            game: Mine {
                you: side,
                game: one.clone(),
            },
        })
        .unwrap();
        assert_eq!(spliced, typed);
    }
}

#[test]
fn a_socket_under_its_user_and_guest_ids_gets_one_copy() {
    let people = People::new();
    let mut both = people.join(&ident(Some("u"), Some("g"))).unwrap();
    // A game the guest began and the user since adopted: the seat names both.
    people.publish(&[seat(Some("u"), Some("g")), seat(Some("x"), None)], || {
        game(None)
    });
    assert!(text(&mut both).is_some());
    assert_eq!(text(&mut both), None);
    assert_eq!(people.online_count(), 1, "one person");
}

#[test]
fn nothing_is_built_for_a_game_nobody_listens_to() {
    let people = People::new();
    let _other = people.join(&ident(Some("someone"), None)).unwrap();
    people.publish(&[seat(Some("u"), None), seat(Some("v"), None)], || {
        panic!("built for nobody")
    });
}

#[test]
fn a_socket_that_does_not_read_is_marked_behind_and_nobody_waits() {
    let people = People::new();
    let mut slow = people.join(&ident(Some("u"), None)).unwrap();
    for _ in 0..QUEUE + 5 {
        people.publish(&[seat(Some("u"), None), seat(Some("v"), None)], || {
            game(None)
        });
    }
    assert!(slow.take_behind());
    assert!(!slow.take_behind(), "cleared once read");
    let mut queued = 0;
    while text(&mut slow).is_some() {
        queued += 1;
    }
    assert_eq!(queued, QUEUE);
}

#[test]
fn sockets_per_person_are_bounded_and_given_back() {
    let people = People::new();
    let me = ident(Some("u"), None);
    let subs: Vec<_> = (0..SOCKETS_PER_PERSON)
        .map(|_| people.join(&me).unwrap())
        .collect();
    assert_eq!(people.join(&me).err(), Some(JoinError::Full));
    assert_eq!(
        people.join(&Ident::default()).err(),
        Some(JoinError::Anonymous)
    );
    assert!(people.is_online("u"));
    drop(subs);
    assert!(!people.is_online("u"));
    assert_eq!(people.online_count(), 0);
    assert!(lock(&people.by_key).is_empty());
    assert!(people.join(&me).is_ok());
}

#[test]
fn the_list_puts_games_waiting_for_you_first_least_time_left_first() {
    let clocks = |first_ms, second_ms| {
        Some(ClocksView {
            first_ms,
            second_ms,
            running: None,
        })
    };
    let mut theirs = game(Some(Player::Second));
    theirs.id = "theirs".into();
    let mut yours_slow = game(Some(Player::First));
    yours_slow.id = "slow".into();
    yours_slow.clocks = clocks(90_000, 1);
    let mut yours_fast = game(Some(Player::First));
    yours_fast.id = "fast".into();
    yours_fast.clocks = clocks(5_000, 1);
    let mut waiting = game(None);
    waiting.id = "waiting".into();
    waiting.status = GameStatusView::Waiting;
    let mut list: Vec<Mine> = [waiting, theirs, yours_slow, yours_fast]
        .into_iter()
        .map(|game| Mine {
            you: Player::First,
            game,
        })
        .collect();
    order(&mut list);
    let ids: Vec<&str> = list.iter().map(|m| m.game.id.as_str()).collect();
    assert_eq!(ids, ["fast", "slow", "theirs", "waiting"]);
}
