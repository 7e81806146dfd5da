//! UGI lines parsed into commands (engine side) and written back (client side).

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use engine::{Clock, Limits};
use game::Player;

/// A line a UGI engine understands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `ugi` (or `uci`): identify, list options, then `ugiok` (`uciok`).
    Ugi {
        /// Whether it was asked as `uci`, to be answered `uciok`.
        uci: bool,
    },
    /// `isready`: answered `readyok`.
    IsReady,
    /// `uginewgame` (or `ucinewgame`): the next position belongs to a new game.
    NewGame,
    /// `setoption name <name> [value <value>]`.
    SetOption {
        /// The option's name (may contain spaces).
        name: String,
        /// Its value, if given.
        value: Option<String>,
    },
    /// `position startpos|fen <position> [moves <move>…]`.
    Position {
        /// The position string, or `None` for the start position.
        fen: Option<String>,
        /// Moves to play from there.
        moves: Vec<String>,
    },
    /// `go …`: search and answer `bestmove`.
    Go(Go),
    /// `stop`: end the search now.
    Stop,
    /// `quit`.
    Quit,
    /// `query <question>`: a rules question about the current position.
    Query(Query),
}

/// What `query` asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Query {
    /// `gameover`: `true` or `false`.
    GameOver,
    /// `p1turn`: whether the first player is to move.
    P1Turn,
    /// `result`: `p1win`, `p2win`, `draw` or `none`.
    Result,
    /// `moves` (extension): the legal moves, space-separated.
    Moves,
    /// `position` (extension): the current position string.
    Position,
    /// `reason` (extension): why the game ended (`corner_escape`…) or `none`.
    Reason,
}

impl Query {
    /// Every query, in declaration order.
    pub const ALL: [Query; 6] = [
        Query::GameOver,
        Query::P1Turn,
        Query::Result,
        Query::Moves,
        Query::Position,
        Query::Reason,
    ];

    /// The word after `query`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Query::GameOver => "gameover",
            Query::P1Turn => "p1turn",
            Query::Result => "result",
            Query::Moves => "moves",
            Query::Position => "position",
            Query::Reason => "reason",
        }
    }
}

/// The limits of a `go` command. Times are milliseconds; `p1` is the player who moves
/// first (tafl attackers, Camelot White).
///
/// ```
/// use protocol::ugi::Go;
/// let go: Go = "p1time 60000 p2time 58000 p1inc 1000 p2inc 1000".parse().unwrap();
/// assert_eq!(go.p2time, Some(58000));
/// assert_eq!(go.to_string(), "p1time 60000 p2time 58000 p1inc 1000 p2inc 1000");
/// assert_eq!(Go::depth(4).to_string(), "depth 4");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Go {
    /// First player's time left (`p1time`, alias `wtime`).
    pub p1time: Option<u64>,
    /// Second player's time left (`p2time`, alias `btime`).
    pub p2time: Option<u64>,
    /// First player's increment (`p1inc`, alias `winc`).
    pub p1inc: Option<u64>,
    /// Second player's increment (`p2inc`, alias `binc`).
    pub p2inc: Option<u64>,
    /// Moves to the next time control (`movestogo`).
    pub movestogo: Option<u32>,
    /// Time for this move (`movetime`).
    pub movetime: Option<u64>,
    /// Depth in plies (`depth`).
    pub depth: Option<u32>,
    /// Node budget (`nodes`).
    pub nodes: Option<u64>,
    /// Search until `stop` (`infinite`).
    pub infinite: bool,
}

impl Go {
    /// `go depth <plies>`.
    #[must_use]
    pub fn depth(plies: u32) -> Go {
        Go {
            depth: Some(plies),
            ..Go::default()
        }
    }

    /// `go movetime <ms>`.
    #[must_use]
    pub fn movetime(time: Duration) -> Go {
        Go {
            movetime: Some(time.as_millis().try_into().unwrap_or(u64::MAX)),
            ..Go::default()
        }
    }

    /// `go nodes <n>`.
    #[must_use]
    pub fn nodes(nodes: u64) -> Go {
        Go {
            nodes: Some(nodes),
            ..Go::default()
        }
    }

    /// `go infinite`.
    #[must_use]
    pub fn infinite() -> Go {
        Go {
            infinite: true,
            ..Go::default()
        }
    }

    /// The engine's limits for a search by `mover`. The clocks apply when the mover's own
    /// time is given; every other limit given applies as well.
    #[must_use]
    pub fn limits(&self, mover: Player) -> Limits {
        // Absurd times (a u64 of milliseconds) are capped far beyond any real game, so
        // the engine's time arithmetic cannot overflow.
        let ms = |v: u64| Duration::from_millis(v.min(MAX_MILLIS));
        let own = match mover {
            Player::First => self.p1time,
            Player::Second => self.p2time,
        };
        let clock = own.map(|_| Clock {
            remaining: [ms(self.p1time.unwrap_or(0)), ms(self.p2time.unwrap_or(0))],
            increment: [ms(self.p1inc.unwrap_or(0)), ms(self.p2inc.unwrap_or(0))],
            moves_to_go: self.movestogo,
        });
        Limits {
            depth: self.depth,
            nodes: self.nodes,
            move_time: self.movetime.map(ms),
            clock,
            infinite: self.infinite,
        }
    }
}

impl fmt::Display for Go {
    /// The arguments of `go`, in a fixed order (empty for a bare `go`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<String> = Vec::new();
        let mut num = |name: &str, value: Option<u64>| {
            if let Some(v) = value {
                parts.push(format!("{name} {v}"));
            }
        };
        num("p1time", self.p1time);
        num("p2time", self.p2time);
        num("p1inc", self.p1inc);
        num("p2inc", self.p2inc);
        num("movestogo", self.movestogo.map(u64::from));
        num("movetime", self.movetime);
        num("depth", self.depth.map(u64::from));
        num("nodes", self.nodes);
        if self.infinite {
            parts.push("infinite".to_owned());
        }
        f.write_str(&parts.join(" "))
    }
}

impl FromStr for Go {
    type Err = ParseCommandError;

    /// Reads the arguments of `go` (without the word `go`).
    fn from_str(text: &str) -> Result<Go, ParseCommandError> {
        let mut go = Go::default();
        let mut words = text.split_whitespace();
        while let Some(word) = words.next() {
            if word == "infinite" {
                go.infinite = true;
                continue;
            }
            if word == "ponder" {
                return Err(error("go ponder is not supported"));
            }
            let mut value = || {
                words
                    .next()
                    .ok_or_else(|| error(format!("go {word}: missing number")))
            };
            match word {
                "p1time" | "wtime" => go.p1time = Some(millis(word, value()?)?),
                "p2time" | "btime" => go.p2time = Some(millis(word, value()?)?),
                "p1inc" | "winc" => go.p1inc = Some(millis(word, value()?)?),
                "p2inc" | "binc" => go.p2inc = Some(millis(word, value()?)?),
                "movetime" => go.movetime = Some(millis(word, value()?)?),
                "movestogo" => go.movestogo = Some(count(word, value()?)?),
                "depth" => go.depth = Some(count(word, value()?)?),
                "nodes" => go.nodes = Some(count(word, value()?)?),
                other => {
                    return Err(error(format!(
                        "go: unknown limit {other:?} (expected p1time, p2time, p1inc, p2inc, \
                         movestogo, movetime, depth, nodes or infinite)"
                    )));
                }
            }
        }
        Ok(go)
    }
}

/// A time in milliseconds; a negative one (a clock already past zero) counts as 0.
fn millis(name: &str, text: &str) -> Result<u64, ParseCommandError> {
    let value: i128 = text.parse().map_err(|_| {
        error(format!(
            "go {name}: {text:?} is not a number of milliseconds"
        ))
    })?;
    Ok(u64::try_from(value.max(0)).unwrap_or(u64::MAX))
}

fn count<T: FromStr>(name: &str, text: &str) -> Result<T, ParseCommandError> {
    text.parse().map_err(|_| {
        error(format!(
            "go {name}: {text:?} is not a non-negative whole number"
        ))
    })
}

/// The longest time a `go` command can mean (about 34 years).
const MAX_MILLIS: u64 = 1 << 40;

/// Why a line is not a UGI command.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ParseCommandError(pub String);

fn error(message: impl Into<String>) -> ParseCommandError {
    ParseCommandError(message.into())
}

impl FromStr for Command {
    type Err = ParseCommandError;

    /// Reads one line (surrounding white space ignored).
    ///
    /// ```
    /// use protocol::ugi::{Command, Query};
    /// let cmd: Command = "position startpos moves d1-d3 e5-e2".parse().unwrap();
    /// assert_eq!(cmd, Command::Position { fen: None, moves: vec!["d1-d3".into(), "e5-e2".into()] });
    /// assert_eq!("query p1turn".parse(), Ok(Command::Query(Query::P1Turn)));
    /// assert!("position sideways".parse::<Command>().is_err());
    /// ```
    fn from_str(line: &str) -> Result<Command, ParseCommandError> {
        let line = line.trim();
        let (word, rest) = line
            .split_once(char::is_whitespace)
            .map_or((line, ""), |(w, r)| (w, r.trim()));
        let no_arguments = |cmd: Command| {
            if rest.is_empty() {
                Ok(cmd)
            } else {
                Err(error(format!("{word} takes no arguments, got {rest:?}")))
            }
        };
        match word {
            "" => Err(error("empty line")),
            "ugi" => no_arguments(Command::Ugi { uci: false }),
            "uci" => no_arguments(Command::Ugi { uci: true }),
            "isready" => no_arguments(Command::IsReady),
            "uginewgame" | "ucinewgame" => no_arguments(Command::NewGame),
            "stop" => no_arguments(Command::Stop),
            "quit" => no_arguments(Command::Quit),
            "setoption" => parse_setoption(rest),
            "position" => parse_position(rest),
            "go" => rest.parse().map(Command::Go),
            "query" => Query::ALL
                .into_iter()
                .find(|q| q.as_str() == rest)
                .map(Command::Query)
                .ok_or_else(|| {
                    error(format!(
                        "query: unknown question {rest:?} (expected gameover, p1turn, result, \
                         moves, position or reason)"
                    ))
                }),
            other => Err(error(format!("unknown command {other:?}"))),
        }
    }
}

fn parse_setoption(rest: &str) -> Result<Command, ParseCommandError> {
    let usage = "expected setoption name <name> [value <value>]";
    let words: Vec<&str> = rest.split_whitespace().collect();
    if words.first() != Some(&"name") {
        return Err(error(format!("setoption: {usage}")));
    }
    let value_at = words.iter().position(|w| *w == "value");
    let name_words = &words[1..value_at.unwrap_or(words.len())];
    if name_words.is_empty() {
        return Err(error(format!("setoption: missing option name; {usage}")));
    }
    let value = value_at.map(|i| words[i + 1..].join(" "));
    if value.as_deref() == Some("") {
        return Err(error(format!("setoption: missing value; {usage}")));
    }
    Ok(Command::SetOption {
        name: name_words.join(" "),
        value,
    })
}

fn parse_position(rest: &str) -> Result<Command, ParseCommandError> {
    let words: Vec<&str> = rest.split_whitespace().collect();
    let moves_at = words.iter().position(|w| *w == "moves");
    let head = &words[..moves_at.unwrap_or(words.len())];
    let moves: Vec<String> = moves_at
        .map(|i| words[i + 1..].iter().map(|m| (*m).to_owned()).collect())
        .unwrap_or_default();
    let fen = match head {
        ["startpos"] => None,
        ["fen", fen @ ..] if !fen.is_empty() => Some(fen.join(" ")),
        ["fen"] => return Err(error("position fen: missing position string")),
        _ => {
            return Err(error(
                "expected position startpos [moves …] or position fen <position> [moves …]",
            ));
        }
    };
    Ok(Command::Position { fen, moves })
}

impl fmt::Display for Command {
    /// The command as a line (without newline), as a client sends it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::Ugi { uci: false } => f.write_str("ugi"),
            Command::Ugi { uci: true } => f.write_str("uci"),
            Command::IsReady => f.write_str("isready"),
            Command::NewGame => f.write_str("uginewgame"),
            Command::SetOption { name, value } => {
                write!(f, "setoption name {name}")?;
                if let Some(value) = value {
                    write!(f, " value {value}")?;
                }
                Ok(())
            }
            Command::Position { fen, moves } => {
                match fen {
                    None => f.write_str("position startpos")?,
                    Some(fen) => write!(f, "position fen {fen}")?,
                }
                if !moves.is_empty() {
                    write!(f, " moves {}", moves.join(" "))?;
                }
                Ok(())
            }
            Command::Go(go) => {
                let args = go.to_string();
                if args.is_empty() {
                    f.write_str("go")
                } else {
                    write!(f, "go {args}")
                }
            }
            Command::Stop => f.write_str("stop"),
            Command::Quit => f.write_str("quit"),
            Command::Query(q) => write!(f, "query {}", q.as_str()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_reads_every_limit_and_aliases() {
        let go: Go = "wtime 1000 btime -50 winc 10 binc 20 movestogo 5 movetime 300 depth 7 \
                      nodes 1234 infinite"
            .parse()
            .unwrap();
        assert_eq!(
            go,
            Go {
                p1time: Some(1000),
                p2time: Some(0),
                p1inc: Some(10),
                p2inc: Some(20),
                movestogo: Some(5),
                movetime: Some(300),
                depth: Some(7),
                nodes: Some(1234),
                infinite: true,
            }
        );
    }

    #[test]
    fn go_rejects_bad_numbers_and_words() {
        for bad in [
            "depth",
            "depth -1",
            "nodes x",
            "movetime 1.5",
            "sideways 3",
            "ponder",
        ] {
            assert!(bad.parse::<Go>().is_err(), "{bad}");
        }
    }

    #[test]
    fn clocks_apply_only_with_the_movers_time() {
        let go: Go = "p1time 10000 p1inc 100".parse().unwrap();
        let first = go.limits(Player::First);
        assert_eq!(
            first.clock.unwrap().remaining[0],
            Duration::from_millis(10_000)
        );
        assert_eq!(go.limits(Player::Second).clock, None);
    }

    #[test]
    fn absurd_times_are_capped_before_the_engine_sees_them() {
        let go: Go = format!(
            "p1time {max} p2time {max} p1inc {max} p2inc {max} movetime {max}",
            max = u64::MAX
        )
        .parse()
        .unwrap();
        for player in Player::BOTH {
            let budget = go.limits(player).budget(player);
            assert!(budget.hard.unwrap() <= Duration::from_millis(MAX_MILLIS));
        }
    }

    #[test]
    fn setoption_names_and_values_may_have_spaces() {
        let cmd: Command = "setoption name Move Overhead value 10 ms".parse().unwrap();
        assert_eq!(
            cmd,
            Command::SetOption {
                name: "Move Overhead".into(),
                value: Some("10 ms".into())
            }
        );
        assert!("setoption name".parse::<Command>().is_err());
        assert!("setoption name Level value".parse::<Command>().is_err());
        assert!("setoption Level 3".parse::<Command>().is_err());
    }

    #[test]
    fn position_fen_keeps_every_field() {
        let cmd: Command = format!("position fen {} moves E7-E8", camelot::START_FEN)
            .parse()
            .unwrap();
        assert_eq!(
            cmd,
            Command::Position {
                fen: Some(camelot::START_FEN.into()),
                moves: vec!["E7-E8".into()]
            }
        );
        assert!("position fen".parse::<Command>().is_err());
        assert!("position".parse::<Command>().is_err());
        assert!("position startpos extra".parse::<Command>().is_err());
    }

    #[test]
    fn commands_write_back_as_they_read() {
        for line in [
            "ugi",
            "isready",
            "uginewgame",
            "setoption name Variant value camelot",
            "position startpos",
            "position fen a b moves c d",
            "go",
            "go movetime 100",
            "stop",
            "quit",
            "query result",
        ] {
            let cmd: Command = line.parse().unwrap();
            assert_eq!(cmd.to_string(), line);
        }
    }
}
