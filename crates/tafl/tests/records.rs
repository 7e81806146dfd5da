//! Real games (`tests/data/`): the 900-game aagenielsen.dk archive, an OpenTafl record and
//! a Fetlar championship record with a known error.

use game::record::{RecordEnding, parse_records};
use game::{EndReason, Game, Outcome, Player};
use tafl::{ATTACKERS, DEFENDERS, Rules, Tafl};

/// Replays move texts strictly; returns the game or the 1-based ply and message of the
/// first error.
fn replay(mut game: Tafl, moves: &[&str]) -> Result<Tafl, (usize, String)> {
    for (i, text) in moves.iter().enumerate() {
        let mv = game
            .parse_recorded_move(text)
            .map_err(|e| (i + 1, e.to_string()))?;
        game.play(mv);
    }
    Ok(game)
}

#[test]
fn archive_900_games_replay_with_every_recorded_ending() {
    let text = include_str!("data/aagenielsen_archive_part1.csv");
    let mut games = 0;
    for line in text.lines().skip(1) {
        let fields: Vec<&str> = line.split(',').collect();
        let (index, moves, ending) = (fields[0], fields[1], fields[3]);
        let mut tokens: Vec<&str> = moves.split_whitespace().collect();
        let timeout = tokens.last() == Some(&"timeout");
        let resigned = tokens.last() == Some(&"---");
        if timeout || resigned {
            tokens.pop();
        }
        let game = replay(Tafl::new(Rules::COPENHAGEN.with_repetition(false)), &tokens)
            .unwrap_or_else(|(ply, e)| panic!("game {index}: ply {ply}: {e}"));
        let mut outcome = game.outcome();
        if outcome.is_none() && timeout {
            outcome = Some(Outcome::loss(game.to_move(), EndReason::Timeout));
        }
        if outcome.is_none() && resigned {
            outcome = Some(Outcome::loss(game.to_move(), EndReason::Resignation));
        }
        let expected = match ending {
            "defenders:corner_escape" => Some(Outcome::win(DEFENDERS, EndReason::CornerEscape)),
            "defenders:exit_fort" => Some(Outcome::win(DEFENDERS, EndReason::ExitFort)),
            "attackers:king_captured" => Some(Outcome::win(ATTACKERS, EndReason::KingCaptured)),
            "attackers:encirclement" => Some(Outcome::win(ATTACKERS, EndReason::Encirclement)),
            "attackers:no_legal_moves" => Some(Outcome::win(ATTACKERS, EndReason::NoLegalMoves)),
            "timeout_by_attackers" => Some(Outcome::loss(ATTACKERS, EndReason::Timeout)),
            "timeout_by_defenders" => Some(Outcome::loss(DEFENDERS, EndReason::Timeout)),
            "resignation_or_adjudication" | "draw_agreed_or_declared" | "unfinished(ongoing)" => {
                None
            }
            other => panic!("game {index}: unknown ending {other}"),
        };
        assert_eq!(outcome, expected, "game {index} ({ending})");
        games += 1;
    }
    assert_eq!(games, 900);
}

#[test]
fn archive_games_are_longer_than_hnefatafl_orgs_draw_limit() {
    // TAFL.md 15: no automatic draw after 140 plies; the archive has longer games.
    let longest = include_str!("data/aagenielsen_archive_part1.csv")
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(1).unwrap().split_whitespace().count())
        .max()
        .unwrap();
    assert!(longest > 140);
}

#[test]
fn millar_vs_schachus_otg_replays_clean() {
    let text = include_str!("data/millar_vs_schachus_2015.otg");
    let records = parse_records(text).unwrap();
    assert_eq!(records.len(), 1);
    let record = &records[0];
    assert_eq!(record.tag("attackers"), Some("Tim Millar"));
    assert_eq!(record.stated_result(), Some(Some(Player::Second)));
    let start = tafl::otg::start_of(record, Rules::COPENHAGEN).unwrap();
    let moves: Vec<&str> = record.moves.iter().map(String::as_str).collect();
    let game = replay(Tafl::from_position(Rules::COPENHAGEN, start), &moves).unwrap();
    assert_eq!(game.ply(), 68);
    assert_eq!(
        game.outcome(),
        None,
        "the attackers resigned; no rule ended it"
    );
    // Its rules tag says Copenhagen: asking for Fetlar is refused with a reason.
    let err = tafl::otg::start_of(record, Rules::FETLAR).unwrap_err();
    assert!(err.to_string().contains("copenhagen"));
}

#[test]
fn fetlar_2014_final_reports_the_wrong_capture_at_ply_23() {
    let text = include_str!("data/fetlar_english_national_championship_2014_final.txt");
    let records = parse_records(text).unwrap();
    assert_eq!(records.len(), 1);
    let moves: Vec<&str> = records[0].moves.iter().map(String::as_str).collect();
    assert_eq!(moves.len(), 24);
    let (ply, message) = replay(Tafl::new(Rules::FETLAR), &moves).unwrap_err();
    assert_eq!(ply, 23);
    assert_eq!(moves[22], "i11-i3xi2");
    assert!(message.contains("captures nothing"), "{message}");
    // Without the false claim the move is legal and the game goes on to its end.
    let mut fixed = moves.clone();
    fixed[22] = "i11-i3";
    let game = replay(Tafl::new(Rules::FETLAR), &fixed).unwrap();
    assert_eq!(
        game.outcome(),
        None,
        "the attackers conceded; no rule ended it"
    );
}

#[test]
fn otg_records_round_trip() {
    use game::record::{TagStyle, write_record};
    let text = include_str!("data/millar_vs_schachus_2015.otg");
    let record = &parse_records(text).unwrap()[0];
    let written = write_record(&record.tags, TagStyle::Colon, &record.moves, false, None);
    let again = &parse_records(&written).unwrap()[0];
    assert_eq!(again.tags, record.tags);
    assert_eq!(again.moves, record.moves);
    assert_eq!(again.ending, None::<RecordEnding>);
}

#[test]
fn archive_games_round_trip_through_otg_records() {
    let text = include_str!("data/aagenielsen_archive_part1.csv");
    let rules = Rules::COPENHAGEN.with_repetition(false);
    for line in text.lines().skip(1) {
        let fields: Vec<&str> = line.split(',').collect();
        let tokens: Vec<&str> = fields[1]
            .split_whitespace()
            .filter(|t| *t != "timeout" && *t != "---")
            .collect();
        let game = replay(Tafl::new(rules), &tokens).unwrap();
        let tags = vec![("index".to_owned(), fields[0].to_owned())];
        let written = tafl::otg::write_game(&game, &tags, None);
        let records = parse_records(&written).unwrap();
        assert_eq!(records.len(), 1, "game {}", fields[0]);
        let record = &records[0];
        assert_eq!(record.tag("index"), Some(fields[0]));
        assert_eq!(record.moves, game.move_texts(), "game {}", fields[0]);
        let start = tafl::otg::start_of(record, rules).unwrap();
        let moves: Vec<&str> = record.moves.iter().map(String::as_str).collect();
        let again = replay(Tafl::from_position(rules, start), &moves).unwrap();
        assert_eq!(again.position(), game.position(), "game {}", fields[0]);
        assert_eq!(again.outcome(), game.outcome(), "game {}", fields[0]);
    }
}

#[test]
fn fetlar_final_record_text_round_trips() {
    use game::record::{TagStyle, write_record};
    let text = include_str!("data/fetlar_english_national_championship_2014_final.txt");
    let record = &parse_records(text).unwrap()[0];
    assert_eq!(record.tag("variant"), Some("Fetlar"));
    let written = write_record(&record.tags, TagStyle::Colon, &record.moves, false, None);
    let again = &parse_records(&written).unwrap()[0];
    assert_eq!(again.tags, record.tags);
    assert_eq!(again.moves, record.moves);
}

/// Reads an OpenTafl-written record and replays it under the rules its rules tag states.
fn replay_opentafl_record(text: &str, rules: Rules) -> (game::record::Record, Tafl) {
    let records = parse_records(text).unwrap();
    assert_eq!(records.len(), 1, "{records:?}");
    let record = records.into_iter().next().unwrap();
    let (rules, start) = tafl::otg::setup_of(&record, rules).unwrap();
    let moves: Vec<&str> = record.moves.iter().map(String::as_str).collect();
    let game = replay(Tafl::from_position(rules, start), &moves)
        .unwrap_or_else(|(ply, e)| panic!("ply {ply}: {e}"));
    (record, game)
}

#[test]
fn opentafl_written_untimed_record_ends_by_its_own_repetition_rule() {
    let text = include_str!("data/opentafl-written-untimed.otg");
    let (record, game) = replay_opentafl_record(text, Rules::COPENHAGEN);
    assert_eq!(record.tag("compiler"), Some("OpenTafl"));
    assert_eq!(record.moves.len(), 159);
    assert_eq!(game.rules().repetition, tafl::Repetition::MoverLoses);
    // The attackers made the third occurrence (tfr:w): the defenders win, as stated.
    assert_eq!(
        game.outcome(),
        Some(Outcome::win(DEFENDERS, EndReason::Repetition))
    );
    assert_eq!(record.stated_result(), Some(Some(DEFENDERS)));
    // Under TAFL.md's Copenhagen rule the same repetition wins for the attackers.
    let moves: Vec<&str> = record.moves.iter().map(String::as_str).collect();
    let ours = replay(Tafl::new(Rules::COPENHAGEN), &moves).unwrap();
    assert_eq!(
        ours.outcome(),
        Some(Outcome::win(ATTACKERS, EndReason::Repetition))
    );
    // Switched off, repetition stays off whatever the record says.
    let (_, off) = replay_opentafl_record(text, Rules::COPENHAGEN.with_repetition(false));
    assert_eq!(off.outcome(), None);
}

#[test]
fn opentafl_written_timed_record_reads_as_one_game() {
    let text = include_str!("data/opentafl-written-timed.otg");
    let (record, game) = replay_opentafl_record(text, Rules::COPENHAGEN);
    assert_eq!(record.tag("time-control"), Some("60 5/3 0i"));
    assert_eq!(record.moves.len(), 131);
    assert_eq!(record.stated_result(), Some(Some(DEFENDERS)));
    assert_eq!(
        game.outcome(),
        Some(Outcome::win(DEFENDERS, EndReason::Repetition))
    );
}

#[test]
fn opentafl_written_fetlar_record_ends_with_the_king_captured() {
    let text = include_str!("data/opentafl-written-fetlar-king-captured.otg");
    let (record, game) = replay_opentafl_record(text, Rules::FETLAR);
    assert_eq!(record.moves.last().map(String::as_str), Some("j9-j7xKi7"));
    assert_eq!(record.stated_result(), Some(Some(ATTACKERS)));
    assert_eq!(
        game.outcome(),
        Some(Outcome::win(ATTACKERS, EndReason::KingCaptured))
    );
    // A king capture the move does not make is refused.
    let mut moves: Vec<&str> = record.moves.iter().map(String::as_str).collect();
    moves.pop();
    let before = replay(Tafl::new(Rules::FETLAR), &moves).unwrap();
    for wrong in ["j9-j8xKi7", "j9-j7xKi8"] {
        let err = before.parse_recorded_move(wrong).unwrap_err();
        assert!(
            err.to_string().contains("does not capture the king"),
            "{err}"
        );
    }
}
