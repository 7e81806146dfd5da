//! The rules pages' diagrams (`web/data/rules-diagrams.json`) checked with the real
//! rules: every position is legal, every move is legal and captures exactly what its
//! text says (tafl: the squares after `x`; Camelot: the square in the middle of each
//! `x` leap), the game ends as the diagram says after its last move, and the squares a
//! diagram marks as a piece's destinations are exactly that piece's legal moves.

use std::collections::BTreeSet;

use games::{AnyGame, Game, GameKind, Player, Variations};
use serde_json::{Value, json};

const DIAGRAMS: &str = include_str!("../../../web/data/rules-diagrams.json");

/// The squares that exist on each Camelot rank, as (first file, last file), rank 1 first.
const CAMELOT_RANKS: [(u8, u8); 16] = [
    (5, 6),
    (2, 9),
    (1, 10),
    (0, 11),
    (0, 11),
    (0, 11),
    (0, 11),
    (0, 11),
    (0, 11),
    (0, 11),
    (0, 11),
    (0, 11),
    (0, 11),
    (1, 10),
    (2, 9),
    (5, 6),
];

/// A square's (file, rank), both from 0, from its name (`e5`, `F16`).
fn square(name: &str) -> (u8, u8) {
    let mut chars = name.chars();
    let file = chars
        .next()
        .expect("a square has a file")
        .to_ascii_lowercase() as u8
        - b'a';
    let rank: u8 = chars.as_str().parse().expect("a square has a rank");
    (file, rank - 1)
}

/// Writes a rank of `letters` (None: empty) the way position strings do.
fn rank_text(cells: &[Option<char>]) -> String {
    let mut out = String::new();
    let mut empty = 0;
    for cell in cells {
        match cell {
            Some(c) => {
                if empty > 0 {
                    out.push_str(&empty.to_string());
                    empty = 0;
                }
                out.push(*c);
            }
            None => empty += 1,
        }
    }
    if empty > 0 {
        out.push_str(&empty.to_string());
    }
    out
}

/// The board part of a position string for `kind` with `pieces` ("Xb6 Kh9", "MD5 mE6").
fn board_text(kind: GameKind, pieces: &str) -> String {
    let mut placed = Vec::new();
    for item in pieces.split_whitespace() {
        let letter = item.chars().next().expect("a piece letter");
        placed.push((letter, square(&item[1..])));
    }
    let at = |file: u8, rank: u8| {
        placed
            .iter()
            .find(|(_, sq)| *sq == (file, rank))
            .map(|(letter, _)| *letter)
    };
    if kind == GameKind::Camelot {
        let ranks: Vec<String> = (0..16u8)
            .rev()
            .map(|rank| {
                let (lo, hi) = CAMELOT_RANKS[rank as usize];
                let cells: Vec<Option<char>> = (lo..=hi).map(|file| at(file, rank)).collect();
                rank_text(&cells)
            })
            .collect();
        ranks.join("/")
    } else {
        let ranks: Vec<String> = (0..11u8)
            .map(|rank| {
                let cells: Vec<Option<char>> = (0..11u8)
                    .map(|file| {
                        at(file, rank).map(|c| match c {
                            'X' => 't',
                            'O' => 'T',
                            'K' => 'K',
                            other => panic!("no tafl piece {other}"),
                        })
                    })
                    .collect();
                rank_text(&cells)
            })
            .collect();
        format!("/{}/", ranks.join("/"))
    }
}

/// The squares a move's text says it captures.
fn captures_in_text(kind: GameKind, text: &str) -> BTreeSet<String> {
    if kind != GameKind::Camelot {
        return text.split('x').skip(1).map(str::to_owned).collect();
    }
    // Camelot: each `x` leap captures the square between its two ends.
    let mut out = BTreeSet::new();
    let mut squares = Vec::new();
    let mut leaps = Vec::new();
    let mut current = String::new();
    let mut jump = false;
    for c in text.chars().chain(std::iter::once('-')) {
        if c == '-' || c == 'x' {
            squares.push(square(&current));
            leaps.push(jump);
            current.clear();
            jump = c == 'x';
        } else {
            current.push(c);
        }
    }
    for i in 1..squares.len() {
        if leaps[i] {
            let (a, b) = (squares[i - 1], squares[i]);
            let mid = ((a.0 + b.0) / 2, (a.1 + b.1) / 2);
            out.insert(format!("{}{}", (b'A' + mid.0) as char, mid.1 + 1));
        }
    }
    out
}

fn side(text: &str) -> Player {
    match text {
        "first" => Player::First,
        "second" => Player::Second,
        other => panic!("no side {other}"),
    }
}

#[test]
fn every_diagram_of_the_rules_pages_is_what_the_rules_say() {
    let data: Value = serde_json::from_str(DIAGRAMS).expect("rules-diagrams.json is JSON");
    let diagrams = data["diagrams"].as_object().expect("a diagrams object");
    assert!(diagrams.len() >= 30, "only {} diagrams", diagrams.len());
    let mut problems = Vec::new();
    for (id, d) in diagrams {
        let kind: GameKind = d["rules"]
            .as_str()
            .expect("rules")
            .parse()
            .expect("a game kind");
        let board = board_text(kind, d["pieces"].as_str().expect("pieces"));
        let to_move = side(d["to_move"].as_str().expect("to_move"));
        let mut game = match AnyGame::from_position_and_side(
            kind,
            &board,
            Some(to_move),
            Variations::default(),
        ) {
            Ok(game) => game,
            Err(e) => {
                problems.push(format!("{id}: position {board}: {e}"));
                continue;
            }
        };
        // The view holds every piece, destination and move drawn.
        let view: Vec<(u8, u8)> = d["view"]
            .as_str()
            .expect("view")
            .split(':')
            .map(square)
            .collect();
        let inside = |sq: (u8, u8)| {
            (view[0].0..=view[1].0).contains(&sq.0) && (view[0].1..=view[1].1).contains(&sq.1)
        };
        if let Some(dests) = d.get("dests").and_then(Value::as_object) {
            let legal = game.legal_moves_info();
            for (from, listed) in dests {
                let want: BTreeSet<String> = legal
                    .iter()
                    .filter(|m| game.square_name(m.from) == *from)
                    .map(|m| game.square_name(m.to))
                    .collect();
                let got: BTreeSet<String> = listed
                    .as_str()
                    .expect("destinations")
                    .split_whitespace()
                    .map(str::to_owned)
                    .collect();
                if want != got {
                    let want: Vec<String> = want.into_iter().collect();
                    problems.push(format!("{id}: {from} goes to \"{}\"", want.join(" ")));
                }
                for sq in &got {
                    if !inside(square(sq)) {
                        problems.push(format!("{id}: destination {sq} outside the view"));
                    }
                }
            }
        }
        for text in d
            .get("moves")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let text = text.as_str().expect("a move");
            let before = game.clone();
            match game.try_play(text) {
                Ok(info) => {
                    let got: BTreeSet<String> = info
                        .captures
                        .iter()
                        .map(|sq| before.square_name(*sq))
                        .collect();
                    let want = captures_in_text(kind, text);
                    if got != want {
                        problems.push(format!("{id}: {text} captures {got:?}, its text {want:?}"));
                    }
                    if info.text != text {
                        problems.push(format!("{id}: {text} is written {}", info.text));
                    }
                    for sq in info.path.iter().chain(&info.captures) {
                        if !inside(square(&before.square_name(*sq))) {
                            problems.push(format!("{id}: {text} goes outside the view"));
                        }
                    }
                }
                Err(e) => {
                    problems.push(format!("{id}: {text}: {e}"));
                    break;
                }
            }
        }
        let outcome = game
            .outcome()
            .map(|o| json!({ "winner": o.winner, "reason": o.reason }));
        let want = d.get("outcome").cloned();
        if outcome != want {
            problems.push(format!("{id}: ends {outcome:?}, the diagram says {want:?}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
