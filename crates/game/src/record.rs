//! The text layer of game records, shared by every game: tags, move numbers, comments,
//! results and endings. Each game then reads the move texts with its own notation
//! ([`Game::parse_move`](crate::Game::parse_move)).
//!
//! Two shapes of file are read:
//!
//! - **Scores** (OpenTafl `.otg`, WCF scores, PGN-like files): optional `[tag:value]`,
//!   `[Tag "value"]` or `[Tag value]` lines, then numbered moves (`1. d1-d3 h6-h9`), one or
//!   more per line. A tag line after moves starts the next game. `#` starts a comment to
//!   the end of the line; `{…}` is a comment; OpenTafl's per-turn comments are skipped:
//!   `[a|b]` after the moves of a line or on a line of their own, and after the moves have
//!   begun, a bracket line that is not a tag (`[]`, the clocks `[0 5/3 0i ]`: a tag's
//!   name starts with a letter).
//! - **Move lists**: one game per non-empty line, space-separated moves, move numbers
//!   optional.
//!
//! A file is a score when it has a tag or comment line, or a line that begins with a move
//! number other than 1; otherwise it is a move list.
//!
//! In both, the token `timeout` (the side to move lost on time) or `---` (the side to
//! move resigned) may end a game, and a result token (`1-0`, `0-1`, `1/2-1/2`, `*`) is
//! kept as written.
//!
//! ```
//! use game::record::{parse_records, RecordEnding};
//!
//! let games = parse_records("[event:Demo]\n1. d1-d3 h6-h9\n2. k4-i4 ---\n").unwrap();
//! assert_eq!(games.len(), 1);
//! assert_eq!(games[0].tag("event"), Some("Demo"));
//! assert_eq!(games[0].moves, ["d1-d3", "h6-h9", "k4-i4"]);
//! assert_eq!(games[0].ending, Some(RecordEnding::Resignation));
//! ```

use std::fmt::Write as _;

use crate::{EndReason, Player};

/// How a record says a game ended outside the rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RecordEnding {
    /// `timeout`: the side to move lost on time.
    Timeout,
    /// `---`: the side to move resigned.
    Resignation,
}

/// One game as written in a record: its tags and move texts, not yet checked by any rules.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Record {
    /// The 1-based line where the game starts in its file.
    pub line: usize,
    /// Tags in file order, keys as written.
    pub tags: Vec<(String, String)>,
    /// The move texts, one per ply, as written (move numbers removed).
    pub moves: Vec<String>,
    /// For each move, the 1-based line it was read from.
    pub move_lines: Vec<usize>,
    /// `timeout` or `---` after the last move.
    pub ending: Option<RecordEnding>,
    /// A result token after the moves (`1-0`, `0-1`, `1/2-1/2`, `*`), as written.
    pub result: Option<String>,
    /// True when the first move is marked as the second player's (`1... H11-F9`).
    pub second_player_starts: bool,
}

impl Record {
    /// The result the record states in a `result`/`Result` tag or a result token:
    /// `Some(Some(p))` a win for `p`, `Some(None)` a draw, `None` if it states none.
    /// `1`/`1-0` is a win for the first player (tafl attackers, Camelot White), `-1`/`0-1`
    /// for the second (OpenTafl writes `1`, `-1` and `0`).
    #[must_use]
    pub fn stated_result(&self) -> Option<Option<Player>> {
        let value = self.tag("result").or(self.result.as_deref())?;
        match value.trim() {
            "1" | "1-0" => Some(Some(Player::First)),
            "-1" | "0-1" => Some(Some(Player::Second)),
            "0" | "1/2-1/2" | "½-½" => Some(None),
            _ => None,
        }
    }

    /// The value of the first tag named `key` (case-insensitive).
    #[must_use]
    pub fn tag(&self, key: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.as_str())
    }
}

/// A record that cannot be read, with the 1-based line where reading stopped.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct RecordError {
    /// The 1-based line.
    pub line: usize,
    /// The token at fault, when one is (a move after the end of the game).
    pub token: Option<String>,
    /// What is wrong.
    pub message: String,
}

fn error(line: usize, message: impl Into<String>) -> RecordError {
    RecordError {
        line,
        token: None,
        message: message.into(),
    }
}

fn token_error(line: usize, token: &str, message: impl Into<String>) -> RecordError {
    RecordError {
        token: Some(token.to_owned()),
        ..error(line, message)
    }
}

/// Reads every game in `text` (see the module documentation for the shapes accepted).
/// Games with neither tags nor moves are skipped. The first game that cannot be read
/// stops the reading; [`read_games`] reads on past it.
pub fn parse_records(text: &str) -> Result<Vec<Record>, RecordError> {
    read_games(text)
        .into_iter()
        .map(|game| match game.error {
            Some(err) => Err(err),
            None => Ok(game.record),
        })
        .collect()
}

/// One game of a file as read: the record as far as it could be read, and what stopped
/// the reading of this game, if anything.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadGame {
    /// The game's tags and the moves before any error.
    pub record: Record,
    /// Why the rest of the game could not be read.
    pub error: Option<RecordError>,
}

/// Reads every game in `text` like [`parse_records`], but a game that cannot be read
/// does not stop the others: its error is kept with it, and reading goes on with the
/// next game (the next line of a move list, the next tag line after moves in a score).
///
/// ```
/// use game::record::read_games;
///
/// let games = read_games("d1-d3 --- h6-h9\nd1-d3 h6-h9\n");
/// assert_eq!(games.len(), 2);
/// assert!(games[0].error.as_ref().unwrap().message.contains("after the end"));
/// assert_eq!(games[0].record.moves, ["d1-d3"]);
/// assert_eq!(games[1].error, None);
/// ```
#[must_use]
pub fn read_games(text: &str) -> Vec<ReadGame> {
    if is_score(text) {
        read_score(text)
    } else {
        text.lines()
            .enumerate()
            .filter(|(_, line)| !line.trim().is_empty())
            .map(|(i, line)| {
                let mut record = Record {
                    line: i + 1,
                    ..Record::default()
                };
                let error = read_moves(line, i + 1, &mut record).err();
                ReadGame { record, error }
            })
            .collect()
    }
}

/// Whether `text` is a score (tags, comments or move numbers past 1) rather than a move
/// list with one game per line.
#[must_use]
pub fn is_score(text: &str) -> bool {
    text.lines().map(str::trim).any(|line| {
        line.starts_with('[')
            || line.starts_with('#')
            || line.starts_with('{')
            || move_number(line.split_whitespace().next().unwrap_or(""))
                .is_some_and(|(n, _)| n != 1)
    })
}

/// Splits a leading move number off a token: `"12."` → `(12, "")`, `"3...H11-F9"` →
/// `(3, "H11-F9")` with the dots counted. Returns `None` when the token has none.
fn move_number(token: &str) -> Option<(u32, &str)> {
    let digits = token.bytes().take_while(u8::is_ascii_digit).count();
    let dots = token[digits..].bytes().take_while(|&b| b == b'.').count();
    if digits == 0 || dots == 0 {
        return None;
    }
    let n = token[..digits].parse().ok()?;
    Some((n, &token[digits + dots..]))
}

fn parse_tag(line: &str, line_no: usize) -> Result<(String, String), RecordError> {
    let inner = line
        .strip_prefix('[')
        .and_then(|l| l.strip_suffix(']'))
        .ok_or_else(|| error(line_no, format!("unterminated tag {line:?}")))?;
    let split = inner
        .find(|c: char| c == ':' || c.is_whitespace())
        .ok_or_else(|| error(line_no, format!("tag {line:?} has no value")))?;
    let key = inner[..split].trim();
    if key.is_empty() {
        return Err(error(line_no, format!("tag {line:?} has no name")));
    }
    let value = inner[split + 1..].trim();
    let value = value
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .unwrap_or(value);
    Ok((key.to_owned(), value.to_owned()))
}

/// The game being read in a score.
#[derive(Default)]
struct Reading {
    record: Record,
    error: Option<RecordError>,
    /// Whether the error came from the moves (so the game's moves are over).
    error_in_moves: bool,
}

impl Reading {
    fn has_moves(&self) -> bool {
        !self.record.moves.is_empty()
            || self.record.ending.is_some()
            || self.record.result.is_some()
            || self.error_in_moves
    }

    fn fail(&mut self, err: RecordError, in_moves: bool) {
        if self.error.is_none() {
            self.error = Some(err);
            self.error_in_moves = in_moves;
        }
    }

    fn finish(self, games: &mut Vec<ReadGame>) {
        if !self.record.moves.is_empty() || !self.record.tags.is_empty() || self.error.is_some() {
            games.push(ReadGame {
                record: self.record,
                error: self.error,
            });
        }
    }
}

/// Whether a line is one of OpenTafl's per-turn comments rather than a tag: brackets
/// around nothing, around `first|second`, or around text that does not start with a tag
/// name (OpenTafl writes the clocks after each turn: `[0 5/3 0i |0 5/3 0i ]`).
fn is_opentafl_comment(line: &str) -> bool {
    let Some(inner) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) else {
        return false;
    };
    let inner = inner.trim();
    inner.is_empty() || inner.contains('|') || !inner.starts_with(|c: char| c.is_alphabetic())
}

fn read_score(text: &str) -> Vec<ReadGame> {
    let mut games = Vec::new();
    let mut current = Reading::default();
    let mut in_brace: Option<usize> = None;
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let mut line = raw.trim();
        if in_brace.is_some() {
            match line.find('}') {
                Some(end) => {
                    line = line[end + 1..].trim();
                    in_brace = None;
                }
                None => continue,
            }
        }
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if current.has_moves() && is_opentafl_comment(line) {
            continue;
        }
        if line.starts_with('[') && !line.contains('|') {
            if current.has_moves() {
                std::mem::take(&mut current).finish(&mut games);
            }
            if current.record.line == 0 {
                current.record.line = line_no;
            }
            match parse_tag(line, line_no) {
                Ok(tag) => current.record.tags.push(tag),
                Err(err) => current.fail(err, false),
            }
            continue;
        }
        if current.record.line == 0 {
            current.record.line = line_no;
        }
        // Brace comments may open on this line and close on a later one.
        let mut kept = String::new();
        let mut rest = line;
        while let Some(open) = rest.find('{') {
            kept.push_str(&rest[..open]);
            kept.push(' ');
            match rest[open..].find('}') {
                Some(close) => rest = &rest[open + close + 1..],
                None => {
                    in_brace = Some(line_no);
                    rest = "";
                }
            }
        }
        kept.push_str(rest);
        if current.error_in_moves {
            continue;
        }
        if let Err(err) = read_moves(&kept, line_no, &mut current.record) {
            current.fail(err, true);
        }
    }
    if let Some(start) = in_brace {
        current.fail(error(start, "comment opened with { is never closed"), true);
    }
    current.finish(&mut games);
    games
}

fn read_moves(line: &str, line_no: usize, record: &mut Record) -> Result<(), RecordError> {
    for token in line.split_whitespace() {
        if token.starts_with('#') {
            break;
        }
        // OpenTafl's per-move comments `[first|second]` follow the moves of a line.
        if token.starts_with('[') {
            break;
        }
        let token = match move_number(token) {
            Some((_, rest)) => {
                if record.moves.is_empty() && token.contains("...") {
                    record.second_player_starts = true;
                }
                rest
            }
            None => token,
        };
        if token.is_empty() {
            continue;
        }
        if record.ending.is_some() || record.result.is_some() {
            return Err(token_error(
                line_no,
                token,
                format!("{token:?} after the end of the game"),
            ));
        }
        match token {
            "timeout" => record.ending = Some(RecordEnding::Timeout),
            "---" => record.ending = Some(RecordEnding::Resignation),
            "1-0" | "0-1" | "1/2-1/2" | "½-½" | "*" => record.result = Some(token.to_owned()),
            _ => {
                let text = token.trim_end_matches(['!', '?']);
                if text.is_empty() {
                    return Err(token_error(
                        line_no,
                        token,
                        format!("{token:?} is not a move"),
                    ));
                }
                record.moves.push(text.to_owned());
                record.move_lines.push(line_no);
            }
        }
    }
    Ok(())
}

/// The tags Kingstable writes in the records of every game; each game's record code
/// spells them in its own style (OpenTafl `event`, `attackers`; WCF `Event`, `White`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TagKey {
    /// Where the game was played.
    Event,
    /// When (`YYYY.MM.DD`).
    Date,
    /// The first player's name (tafl attackers, Camelot White).
    FirstPlayer,
    /// The second player's name (tafl defenders, Camelot Black).
    SecondPlayer,
    /// The time control.
    TimeControl,
    /// How the game ended when the rules did not end it (see [`termination_text`]).
    Termination,
    /// The result.
    Result,
}

impl TagKey {
    /// The tag naming `player`.
    #[must_use]
    pub const fn player(player: Player) -> TagKey {
        match player {
            Player::First => TagKey::FirstPlayer,
            Player::Second => TagKey::SecondPlayer,
        }
    }
}

/// The termination tag's words for an ending outside the rules: `time forfeit`,
/// `resignation`, `draw agreed`, `adjudication`, `abandoned`; `None` for an ending by
/// the rules.
#[must_use]
pub const fn termination_text(reason: EndReason) -> Option<&'static str> {
    match reason {
        EndReason::Timeout => Some("time forfeit"),
        EndReason::Resignation => Some("resignation"),
        EndReason::Agreement => Some("draw agreed"),
        EndReason::Adjudication => Some("adjudication"),
        EndReason::Abandonment => Some("abandoned"),
        _ => None,
    }
}

/// Whether the rules know nothing of `reason`: a game ended by time, resignation,
/// agreement or a referee.
#[must_use]
pub const fn outside_rules(reason: EndReason) -> bool {
    termination_text(reason).is_some()
}

/// The ending a termination tag names (what [`termination_text`] writes, any case, and
/// `timeout`), if it names one outside the rules.
#[must_use]
pub fn termination_reason(text: &str) -> Option<EndReason> {
    let text = text.trim().to_ascii_lowercase();
    if text == "timeout" {
        return Some(EndReason::Timeout);
    }
    EndReason::ALL
        .into_iter()
        .find(|&reason| termination_text(reason) == Some(text.as_str()))
}

/// Writes a move list line: the moves, then `timeout` or `---` when `ending` says the
/// side to move lost that way.
#[must_use]
pub fn write_move_list(moves: &[String], ending: Option<RecordEnding>) -> String {
    let mut line = moves.join(" ");
    if let Some(ending) = ending {
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(match ending {
            RecordEnding::Timeout => "timeout",
            RecordEnding::Resignation => "---",
        });
    }
    line.push('\n');
    line
}

/// How tags are written by [`write_record`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TagStyle {
    /// OpenTafl: `[key:value]`.
    Colon,
    /// PGN and WCF: `[Key "value"]`.
    Quoted,
}

/// Writes a score: tags, a blank line, then one numbered line per full move
/// (`1. d1-d3 h6-h9`). When `second_player_starts`, the first line is `1... <move>`.
/// `trailer` (`timeout`, `---`, `1-0`…) is written after the last move if given.
#[must_use]
pub fn write_record(
    tags: &[(String, String)],
    style: TagStyle,
    moves: &[String],
    second_player_starts: bool,
    trailer: Option<&str>,
) -> String {
    let mut out = String::new();
    for (key, value) in tags {
        match style {
            TagStyle::Colon => writeln!(out, "[{key}:{value}]"),
            TagStyle::Quoted => writeln!(out, "[{key} \"{value}\"]"),
        }
        .expect("writing to a String cannot fail");
    }
    if !tags.is_empty() {
        out.push('\n');
    }
    let mut number = 1;
    let mut rest = moves;
    if second_player_starts && !rest.is_empty() {
        out.push_str(&format!("1... {}\n", rest[0]));
        rest = &rest[1..];
        number = 2;
    }
    for pair in rest.chunks(2) {
        out.push_str(&format!("{number}. {}\n", pair.join(" ")));
        number += 1;
    }
    if let Some(trailer) = trailer {
        if out.ends_with('\n') && !moves.is_empty() {
            out.pop();
            out.push(' ');
        }
        out.push_str(trailer);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_lists_are_one_game_per_line() {
        let games = parse_records("d1-d3 e5-e2\n\nh1-h3 f8-i8 timeout\n").unwrap();
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].line, 1);
        assert_eq!(games[1].line, 3);
        assert_eq!(games[1].moves, ["h1-h3", "f8-i8"]);
        assert_eq!(games[1].ending, Some(RecordEnding::Timeout));
    }

    #[test]
    fn numbered_move_lists_stay_move_lists() {
        let games = parse_records("1. D6-F8 H11-F9 2. C6-E8-G8 J11-H11\n1. E6-G8\n").unwrap();
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].moves, ["D6-F8", "H11-F9", "C6-E8-G8", "J11-H11"]);
    }

    #[test]
    fn scores_with_comments_and_several_games() {
        let text = "# a comment\n[Opening A]\n1. F7-F8 F11-F9\n2. D7-F7 {note} E11-E9\n\
                    [Opening B]\n1. H7-J7 H11-H9\n";
        let games = parse_records(text).unwrap();
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].tag("opening"), Some("A"));
        assert_eq!(games[0].moves, ["F7-F8", "F11-F9", "D7-F7", "E11-E9"]);
        assert_eq!(games[0].move_lines, [3, 3, 4, 4]);
        assert_eq!(games[1].tag("Opening"), Some("B"));
        assert_eq!(games[1].line, 5);
    }

    #[test]
    fn tag_styles_are_read() {
        let text = "[rules:dim:11 atkf:y]\n[White \"Dan Troyka\"]\n1. a b\n";
        let games = parse_records(text).unwrap();
        assert_eq!(games[0].tag("rules"), Some("dim:11 atkf:y"));
        assert_eq!(games[0].tag("white"), Some("Dan Troyka"));
    }

    #[test]
    fn opentafl_move_comments_are_skipped() {
        let games = parse_records("[a:b]\n1. d1-d3 h6-h9 [good|bad]\n").unwrap();
        assert_eq!(games[0].moves, ["d1-d3", "h6-h9"]);
    }

    #[test]
    fn opentafl_comment_lines_are_skipped() {
        let text = "[result:1]\n[rules:dim:11]\n\n1. d1-d3 h6-h9 \n[|]\n\n2. k4-i4 \n[]\n";
        let games = parse_records(text).unwrap();
        assert_eq!(games.len(), 1);
        assert_eq!(games[0].moves, ["d1-d3", "h6-h9", "k4-i4"]);
        let timed = "[time-control:60 5/3 0i]\n[rules:dim:11]\n\n1. d1-d3 h6-h9 \n\
                     [0 5/3 0i |0 5/3 0i ]\n\n2. k4-i4 \n[0 5/3 0i ]\n";
        let games = parse_records(timed).unwrap();
        assert_eq!(games.len(), 1, "{games:?}");
        assert_eq!(games[0].moves, ["d1-d3", "h6-h9", "k4-i4"]);
        assert_eq!(games[0].tag("time-control"), Some("60 5/3 0i"));
        // A tag after the moves still starts the next game.
        let two = "[a:b]\n1. d1-d3\n[]\n[a:c]\n1. d1-d2\n";
        let games = parse_records(two).unwrap();
        assert_eq!(games.len(), 2);
        // Before any move, an empty bracket is no tag.
        assert!(parse_records("[]\n1. d1-d3\n").is_err());
    }

    #[test]
    fn black_first_and_results() {
        let games = parse_records("[x:y]\n1... H11-F9 2. D6-F8 1-0\n").unwrap();
        assert!(games[0].second_player_starts);
        assert_eq!(games[0].moves, ["H11-F9", "D6-F8"]);
        assert_eq!(games[0].result.as_deref(), Some("1-0"));
    }

    #[test]
    fn bad_records_name_the_line() {
        let err = parse_records("[a:b]\n1. d1-d3 --- h6-h9\n").unwrap_err();
        assert_eq!(err.line, 2);
        assert!(err.message.contains("after the end"));
        let err = parse_records("[a:b\n").unwrap_err();
        assert_eq!(err.line, 1);
        let err = parse_records("[a:b]\n1. x {open\n").unwrap_err();
        assert!(err.message.contains("never closed"));
    }

    #[test]
    fn a_bad_game_does_not_stop_the_games_after_it() {
        let text = "[Round 1]\n1. d1-d3 ---\n2. h6-h9\n3. k4-i4\n[Round 2]\n1. d1-d3 h6-h9\n";
        let games = read_games(text);
        assert_eq!(games.len(), 2);
        let err = games[0].error.as_ref().unwrap();
        assert_eq!(err.line, 3);
        assert!(err.message.contains("\"h6-h9\" after the end"), "{err}");
        assert_eq!(err.token.as_deref(), Some("h6-h9"));
        assert_eq!(games[0].record.moves, ["d1-d3"]);
        assert_eq!(games[1].error, None);
        assert_eq!(games[1].record.tag("Round"), Some("2"));
        assert_eq!(games[1].record.moves, ["d1-d3", "h6-h9"]);
        assert_eq!(parse_records(text).unwrap_err(), err.clone());

        let games = read_games("[a:b\n[c:d]\n1. x y\n");
        assert_eq!(games.len(), 1, "a bad tag keeps its game together");
        assert_eq!(games[0].record.moves, ["x", "y"]);
        assert!(games[0].error.is_some());
    }

    #[test]
    fn terminations_outside_the_rules_read_back() {
        for reason in EndReason::ALL {
            match termination_text(reason) {
                Some(text) => {
                    assert!(outside_rules(reason));
                    assert_eq!(termination_reason(&text.to_uppercase()), Some(reason));
                }
                None => assert!(!outside_rules(reason)),
            }
        }
        assert_eq!(termination_reason("timeout"), Some(EndReason::Timeout));
        assert_eq!(termination_reason("corner_escape"), None);
    }

    #[test]
    fn move_lists_are_written_with_their_ending() {
        let moves = vec!["d1-d3".to_owned(), "h6-h9".to_owned()];
        let line = write_move_list(&moves, Some(RecordEnding::Timeout));
        assert_eq!(line, "d1-d3 h6-h9 timeout\n");
        let games = parse_records(&line).unwrap();
        assert_eq!(games[0].moves, moves);
        assert_eq!(games[0].ending, Some(RecordEnding::Timeout));
        assert_eq!(
            write_move_list(&[], Some(RecordEnding::Resignation)),
            "---\n"
        );
        assert_eq!(write_move_list(&moves, None), "d1-d3 h6-h9\n");
    }

    #[test]
    fn written_records_read_back() {
        let tags = vec![("event".to_owned(), "Test".to_owned())];
        let moves: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        for style in [TagStyle::Colon, TagStyle::Quoted] {
            let text = write_record(&tags, style, &moves, false, Some("---"));
            let games = parse_records(&text).unwrap();
            assert_eq!(games[0].moves, moves);
            assert_eq!(games[0].tag("event"), Some("Test"));
            assert_eq!(games[0].ending, Some(RecordEnding::Resignation));
        }
        let text = write_record(&tags, TagStyle::Quoted, &moves, true, None);
        assert!(text.contains("1... a\n2. b c\n"));
        let games = parse_records(&text).unwrap();
        assert!(games[0].second_player_starts);
    }
}
