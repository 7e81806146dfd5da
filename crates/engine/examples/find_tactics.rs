//! Finds positions for the tactics suites (`crates/engine/tests/tactics/*.txt`): random
//! sparse positions in which the side to move has a forced win in exactly N plies, proved
//! by brute force (`game::shortest_forced_win`), printed as suite lines with every
//! winning first move. The suite test then checks that the engine finds them too.
//!
//! ```sh
//! cargo run --release -p engine --example find_tactics -- --game copenhagen --side defenders --plies 5
//! cargo run --release -p engine --example find_tactics -- --game fetlar --side attackers --plies 3
//! cargo run --release -p engine --example find_tactics -- --game camelot --side white --plies 3
//! ```
//!
//! Options: `--game`, `--side` (the side to move), `--plies N`, `--count N` (positions to
//! print, default 1), `--seed N`, `--tries N` (give up after), `--max-moves N` (at most
//! this many winning first moves, default 2), `--defend` (instead: positions where the
//! side to move loses within N plies after every move but one, printed as `holds N`).
//! Tafl positions: the king with 3–8 attackers (mostly within three squares of him) and
//! up to 3 defenders. Camelot: 2–5 pieces of the winner and 1–4 of the other side, in the
//! half of the board where the winner's target castle is.

use game::{Game, GameKind, Player, forced_win_within, shortest_forced_win, splitmix64};

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        let (state, value) = splitmix64(self.0);
        self.0 = state;
        value % n
    }
}

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn random_tafl(kind: GameKind, winner: Player, rng: &mut Rng) -> Option<tafl::Tafl> {
    use tafl::{Bitboard, Position, Rules, Square};
    let rules = if kind == GameKind::Fetlar {
        Rules::FETLAR
    } else {
        Rules::COPENHAGEN
    };
    let square = |rng: &mut Rng| Square::new(rng.below(11) as u8, rng.below(11) as u8);
    let king = square(rng);
    if king.is_corner() {
        return None;
    }
    let mut taken = Bitboard::from_square(king);
    let mut place = |count: u64, near: bool, rng: &mut Rng| {
        let mut set = Bitboard::EMPTY;
        for _ in 0..count {
            let sq = if near && rng.below(10) < 7 {
                let f = i32::from(king.file()) + rng.below(7) as i32 - 3;
                let r = i32::from(king.rank()) + rng.below(7) as i32 - 3;
                if !(0..11).contains(&f) || !(0..11).contains(&r) {
                    continue;
                }
                Square::new(f as u8, r as u8)
            } else {
                square(rng)
            };
            if !taken.contains(sq) && !sq.is_restricted() {
                taken = taken.with(sq);
                set = set.with(sq);
            }
        }
        set
    };
    let attackers = place(3 + rng.below(6), true, rng);
    let defenders = place(rng.below(4), false, rng);
    let position = Position::from_pieces(attackers, defenders, king, winner).ok()?;
    Some(tafl::Tafl::from_position(rules, position))
}

fn random_camelot(winner: Player, rng: &mut Rng) -> Option<camelot::Camelot> {
    use camelot::{Bitboard, Position, Setup, Square};
    // The half of the board holding the castle the winner is going for.
    let half: Vec<Square> = Square::ALL
        .into_iter()
        .filter(|sq| match winner {
            Player::First => sq.rank() >= 9,
            Player::Second => sq.rank() <= 6,
        })
        .filter(|sq| {
            !(camelot::castle(Player::First) | camelot::castle(Player::Second)).contains(*sq)
        })
        .collect();
    let mut taken = Bitboard::EMPTY;
    let mut knights = Bitboard::EMPTY;
    let mut place = |count: u64, rng: &mut Rng| {
        let mut set = Bitboard::EMPTY;
        for _ in 0..count {
            let sq = half[rng.below(half.len() as u64) as usize];
            if !taken.contains(sq) {
                taken = taken.with(sq);
                set = set.with(sq);
                if rng.below(2) == 0 {
                    knights = knights.with(sq);
                }
            }
        }
        set
    };
    let mine = place(2 + rng.below(4), rng);
    let theirs = place(1 + rng.below(4), rng);
    let (white, black) = match winner {
        Player::First => (mine, theirs),
        Player::Second => (theirs, mine),
    };
    let setup = Setup {
        white,
        black,
        knights,
        side_to_move: winner,
        castle_moves: [0, 0],
        clock: 0,
    };
    Some(camelot::Camelot::new(Position::from_setup(setup).ok()?))
}

/// The first moves after which `side` can still force a win within `plies` plies (more
/// than `limit` of them: `None`).
fn moves_where<G: Game>(
    game: &mut G,
    side: Player,
    plies: u32,
    wins: bool,
    limit: usize,
) -> Option<Vec<String>> {
    let mut moves = Vec::new();
    game.legal_moves(&mut moves);
    let mut chosen = Vec::new();
    for mv in moves {
        game.play(mv);
        let won = forced_win_within(game, side, plies);
        game.undo();
        if won == wins {
            chosen.push(game.format_move(mv));
            if chosen.len() > limit {
                return None;
            }
        }
    }
    Some(chosen)
}

/// The suite line for `game`: the side to move wins in exactly `plies` with at most
/// `limit` winning first moves, or (`defend`) every move but at most `limit` loses within
/// `plies`.
fn tactic<G: Game>(
    game: &mut G,
    kind: GameKind,
    plies: u32,
    limit: usize,
    defend: bool,
) -> Option<String> {
    let me = game.to_move();
    if game.outcome().is_some() {
        return None;
    }
    let (moves, result) = if defend {
        // The opponent threatens a win (it would win within `plies` if it could pass),
        // and exactly the listed moves hold.
        let holding = moves_where(game, me.other(), plies - 1, false, limit)?;
        if holding.is_empty() || shortest_forced_win(game, me, plies).is_some() {
            return None;
        }
        (holding, format!("holds {plies}"))
    } else {
        if shortest_forced_win(game, me, plies) != Some(plies) {
            return None;
        }
        let winning = moves_where(game, me, plies - 1, true, limit)?;
        (winning, format!("win in {plies}"))
    };
    let position = game.position_string();
    let board = if kind.is_tafl() {
        position
            .rsplit_once(' ')
            .map_or(position.as_str(), |(b, _)| b)
    } else {
        &position
    };
    Some(format!(
        "{kind} | {board} | {} | {} | {} | {result} | ",
        kind.side_name(me),
        plies + 1,
        moves.join(",")
    ))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let kind: GameKind = arg(&args, "--game")
        .unwrap_or_else(|| "copenhagen".into())
        .parse()
        .expect("--game fetlar|copenhagen|camelot");
    let winner = kind
        .parse_side(&arg(&args, "--side").unwrap_or_else(|| kind.side_name(Player::Second).into()))
        .expect("--side names a side of the game");
    let plies: u32 = arg(&args, "--plies").map_or(3, |n| n.parse().expect("--plies N"));
    let defend = args.iter().any(|a| a == "--defend");
    assert!(
        defend || plies % 2 == 1,
        "--plies must be odd: the winner is to move"
    );
    let limit: usize = arg(&args, "--max-moves").map_or(2, |n| n.parse().expect("--max-moves N"));
    let count: usize = arg(&args, "--count").map_or(1, |n| n.parse().expect("--count N"));
    let tries: u64 = arg(&args, "--tries").map_or(1_000_000, |n| n.parse().expect("--tries N"));
    let mut rng = Rng(arg(&args, "--seed").map_or(1, |n| n.parse().expect("--seed N")));
    let mut found = 0;
    for attempt in 1..=tries {
        let line = if kind.is_tafl() {
            random_tafl(kind, winner, &mut rng)
                .and_then(|mut g| tactic(&mut g, kind, plies, limit, defend))
        } else {
            random_camelot(winner, &mut rng)
                .and_then(|mut g| tactic(&mut g, kind, plies, limit, defend))
        };
        if let Some(line) = line {
            println!("{line}found by find_tactics");
            found += 1;
            if found == count {
                return;
            }
        }
        if attempt % 1000 == 0 {
            eprintln!("{attempt} positions tried, {found} found");
        }
    }
    eprintln!("gave up after {tries} positions");
    std::process::exit(1);
}
