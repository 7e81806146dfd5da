//! The archive: finished games listed and filtered, one game with its moves, a game's
//! record as a download, and records imported for review. Records are read, replayed
//! and written by `games::record` (the one replay path); nothing here knows a rule.

use axum::body::Bytes;
use axum::extract::rejection::QueryRejection;
use axum::extract::{FromRequest, Query, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use games::record::{self, ReplayOptions, TagKey};
use games::{AnyGame, Game, GameKind, MoveInfo, Player, Variations};
use serde::{Deserialize, Serialize};
use session::{Options, Session, Takebacks, TimeControl, Timestamp};

use super::views::GameSummary;
use super::{ApiJson, ApiPath, json_with};
use crate::error::{ApiError, ErrorCode};
use crate::live;
use crate::security::ClientIp;
use crate::state::AppState;
use crate::store::{
    ArchiveFilter, ArchivedGame, GameRecord, ImportedGame, PlayerRef, StoredMove, now_ms,
};

/// Games on one page of the archive.
pub const PAGE_SIZE: u32 = 20;
/// The longest record text an import takes, in bytes.
pub const MAX_RECORD_BYTES: usize = 64 * 1024;
/// The most moves an imported game may have.
pub const MAX_RECORD_PLIES: usize = 2_000;
/// The longest player name kept from an imported record, in characters.
const MAX_NAME_CHARS: usize = 100;

/// The query of `GET /api/archive`: every parameter optional, an empty one ignored.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArchiveQuery {
    kind: Option<String>,
    player: Option<String>,
    result: Option<String>,
    rated: Option<String>,
    since: Option<String>,
    until: Option<String>,
    page: Option<String>,
}

fn bad_request(message: impl Into<String>) -> ApiError {
    ApiError::new(ErrorCode::BadRequest, message)
}

/// A query parameter that is set and not empty.
fn given(value: Option<&String>) -> Option<&str> {
    value.map(|v| v.trim()).filter(|v| !v.is_empty())
}

fn parse_kind(text: &str) -> Result<GameKind, ApiError> {
    text.parse::<GameKind>().map_err(|_| {
        bad_request(format!(
            "unknown game `{text}`: expected fetlar, copenhagen or camelot"
        ))
    })
}

/// A time bound: milliseconds since the Unix epoch, or a day `YYYY-MM-DD` (UTC; what a
/// date field sends), which starts at its midnight, or — for an upper bound (`end`) —
/// takes the whole day in.
fn parse_time(name: &str, text: &str, end: bool) -> Result<i64, ApiError> {
    if let Ok(ms) = text.parse::<i64>() {
        return Ok(ms);
    }
    let day = || {
        let mut parts = text.splitn(3, '-').map(str::parse::<u16>);
        let (Some(Ok(year)), Some(Ok(month)), Some(Ok(day))) =
            (parts.next(), parts.next(), parts.next())
        else {
            return None;
        };
        let month = time::Month::try_from(u8::try_from(month).ok()?).ok()?;
        let date =
            time::Date::from_calendar_date(i32::from(year), month, u8::try_from(day).ok()?).ok()?;
        let date = if end { date.next_day()? } else { date };
        Some(date.midnight().assume_utc().unix_timestamp() * 1000)
    };
    day().ok_or_else(|| {
        bad_request(format!(
            "`{name}` must be a day (YYYY-MM-DD) or a time in milliseconds since the Unix \
             epoch, not `{text}`"
        ))
    })
}

impl ArchiveQuery {
    /// The filter and the page asked for.
    fn parse(&self) -> Result<(ArchiveFilter, u32), ApiError> {
        let result = given(self.result.as_ref())
            .map(|text| match text {
                "first" => Ok(Some(Player::First)),
                "second" => Ok(Some(Player::Second)),
                "draw" => Ok(None),
                other => Err(bad_request(format!(
                    "unknown result `{other}`: expected first, second or draw"
                ))),
            })
            .transpose()?;
        let rated = given(self.rated.as_ref())
            .map(|text| match text {
                "true" | "1" => Ok(true),
                "false" | "0" => Ok(false),
                other => Err(bad_request(format!(
                    "`rated` must be true or false, not `{other}`"
                ))),
            })
            .transpose()?;
        let page = given(self.page.as_ref())
            .map(|text| {
                text.parse::<u32>()
                    .ok()
                    .filter(|&page| page >= 1)
                    .ok_or_else(|| {
                        bad_request(format!("`page` must be a number from 1, not `{text}`"))
                    })
            })
            .transpose()?
            .unwrap_or(1);
        let filter = ArchiveFilter {
            kind: given(self.kind.as_ref()).map(parse_kind).transpose()?,
            player: given(self.player.as_ref()).map(str::to_owned),
            result,
            rated,
            since: given(self.since.as_ref())
                .map(|t| parse_time("since", t, false))
                .transpose()?,
            until: given(self.until.as_ref())
                .map(|t| parse_time("until", t, true))
                .transpose()?,
        };
        Ok((filter, page))
    }
}

/// The names an imported record gives its players.
#[derive(Clone, Debug, Serialize)]
pub struct RecordNames {
    first: Option<String>,
    second: Option<String>,
}

/// A game as the archive lists it: its summary, and for an imported game the names
/// its record gives.
#[derive(Clone, Debug, Serialize)]
pub struct ArchiveEntry {
    #[serde(flatten)]
    summary: GameSummary,
    /// Whether it was imported from a record.
    imported: bool,
    /// The players' names as an imported record gives them.
    #[serde(skip_serializing_if = "Option::is_none")]
    names: Option<RecordNames>,
}

impl From<&ArchivedGame> for ArchiveEntry {
    fn from(archived: &ArchivedGame) -> ArchiveEntry {
        let [first, second] = archived.names.clone();
        ArchiveEntry {
            summary: GameSummary::from(&archived.game),
            imported: archived.imported,
            names: archived.imported.then_some(RecordNames { first, second }),
        }
    }
}

/// `GET /api/archive`.
#[derive(Serialize)]
pub struct ArchiveView {
    games: Vec<ArchiveEntry>,
    page: u32,
    pages: u64,
    total: u64,
}

/// `GET /api/archive`: finished games, filtered, the latest first, [`PAGE_SIZE`] to a
/// page.
pub async fn list(
    State(state): State<AppState>,
    query: Result<Query<ArchiveQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let Query(query) = query.map_err(|rejection| bad_request(rejection.body_text()))?;
    let (filter, page) = query.parse()?;
    let found = state.store.archive(&filter, page, PAGE_SIZE).await?;
    let pages = found.total.div_ceil(u64::from(PAGE_SIZE)).max(1);
    Ok(json_with(
        StatusCode::OK,
        &ArchiveView {
            games: found.games.iter().map(ArchiveEntry::from).collect(),
            page,
            pages,
            total: found.total,
        },
    ))
}

/// One move of a stored game, with what a board needs to show it.
#[derive(Serialize)]
pub struct MoveView {
    ply: u32,
    player: Player,
    #[serde(flatten)]
    info: MoveInfo,
    first_clock_ms: Option<i64>,
    second_clock_ms: Option<i64>,
    played_at: i64,
}

/// `GET /api/archive/{id}`.
#[derive(Serialize)]
pub struct GameView {
    #[serde(flatten)]
    entry: ArchiveEntry,
    start_position: String,
    position: String,
    moves: Vec<MoveView>,
    record_url: String,
}

/// A stored game rebuilt from its start position and moves, with each move's geometry.
/// Stored games were checked when they were played or imported: one that does not
/// rebuild is a server fault.
fn rebuild(game: &GameRecord, moves: &[StoredMove]) -> Result<(AnyGame, Vec<MoveInfo>), ApiError> {
    let mut any = AnyGame::from_position(game.kind, &game.start_position)
        .map_err(|error| ApiError::internal(&error))?;
    let texts: Vec<&str> = moves.iter().map(|m| m.text.as_str()).collect();
    let infos = any
        .play_texts(&texts)
        .map_err(|error| ApiError::internal(&error))?;
    Ok((any, infos))
}

async fn load(state: &AppState, id: &str) -> Result<(ArchivedGame, Vec<StoredMove>), ApiError> {
    let archived = state
        .store
        .archived_game(id)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no game {id}")))?;
    let moves = state.store.moves(id).await?;
    Ok((archived, moves))
}

/// `GET /api/archive/{id}`: one game (any status) with its players, moves and position.
pub async fn game(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<String>,
) -> Result<Response, ApiError> {
    let (archived, moves) = load(&state, &id).await?;
    let (any, infos) = rebuild(&archived.game, &moves)?;
    let mut player = game_start_side(&archived.game)?;
    let moves = moves
        .into_iter()
        .zip(infos)
        .map(|(stored, info)| {
            let view = MoveView {
                ply: stored.ply,
                player,
                info,
                first_clock_ms: stored.first_clock_ms,
                second_clock_ms: stored.second_clock_ms,
                played_at: stored.played_at,
            };
            player = player.other();
            view
        })
        .collect();
    Ok(json_with(
        StatusCode::OK,
        &GameView {
            entry: ArchiveEntry::from(&archived),
            start_position: archived.game.start_position.clone(),
            position: any.position_string(),
            moves,
            record_url: format!("/api/games/{}/record", archived.game.id),
        },
    ))
}

/// The side to move in a stored game's start position.
fn game_start_side(game: &GameRecord) -> Result<Player, ApiError> {
    AnyGame::from_position(game.kind, &game.start_position)
        .map(|start| start.to_move())
        .map_err(|error| ApiError::internal(&error))
}

/// How a seat is named in a record.
fn record_name(player: &PlayerRef) -> String {
    match player {
        PlayerRef::User { name } | PlayerRef::Guest { name } => name.clone(),
        PlayerRef::Ai { level } => format!("kingstable AI (level {level})"),
    }
}

/// `YYYY.MM.DD` (the form records use), in UTC, of a time in ms since the Unix epoch.
fn date_tag(ms: i64) -> String {
    let t = time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .unwrap_or(time::OffsetDateTime::UNIX_EPOCH);
    format!("{:04}.{:02}.{:02}", t.year(), u8::from(t.month()), t.day())
}

/// A player's name from a record, as shown and stored: without control characters or
/// the invisible marks that reorder text (bidirectional embeddings, overrides,
/// isolates and marks, which could make a name read as another), spaces trimmed, at
/// most [`MAX_NAME_CHARS`] characters.
#[must_use]
pub fn clean_name(name: &str) -> String {
    let is_bidi = |c: char| matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}');
    name.chars()
        .map(|c| if c.is_whitespace() { ' ' } else { c })
        .filter(|&c| !c.is_control() && !is_bidi(c))
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(MAX_NAME_CHARS)
        .collect()
}

/// The record of a stored game: `.otg` for tafl, a WCF score for Camelot, with its
/// players, date, time control and result (and how it ended when the rules did not end
/// it).
fn record_text(archived: &ArchivedGame, game: &AnyGame) -> String {
    let stored = &archived.game;
    let tag = |key| record::tag_name(stored.kind, key).to_owned();
    let mut tags = vec![
        (
            tag(TagKey::Event),
            format!("kingstable serve, game {}", stored.id),
        ),
        (tag(TagKey::Date), date_tag(stored.created_at)),
    ];
    for (player, name) in Player::BOTH.into_iter().zip(&archived.names) {
        let name = stored
            .seat(player)
            .player()
            .map(|p| record_name(&p))
            .or_else(|| name.clone());
        // Names imported before they were cleaned are cleaned on the way out too.
        if let Some(name) = name.as_deref().map(clean_name).filter(|n| !n.is_empty()) {
            tags.push((tag(TagKey::player(player)), name));
        }
    }
    if stored.time_control != "untimed" {
        tags.push((tag(TagKey::TimeControl), stored.time_control.clone()));
    }
    record::write(game, &tags, stored.outcome)
}

/// `GET /api/games/{id}/record`: the game's record as a download.
pub async fn download(
    State(state): State<AppState>,
    ApiPath(id): ApiPath<String>,
) -> Result<Response, ApiError> {
    let (archived, moves) = load(&state, &id).await?;
    let (any, _) = rebuild(&archived.game, &moves)?;
    let text = record_text(&archived, &any);
    let kind = archived.game.kind;
    let filename = format!(
        "kingstable-{kind}-{}.{}",
        archived.game.id,
        record::extension(kind)
    );
    let disposition = HeaderValue::from_str(&format!("attachment; filename=\"{filename}\""))
        .map_err(|error| ApiError::internal(&error))?;
    Ok((
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/plain; charset=utf-8"),
            ),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        text,
    )
        .into_response())
}

/// The JSON body of `POST /api/import`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImportBody {
    kind: GameKind,
    record: String,
}

/// The query of `POST /api/import` with a plain-text body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImportQuery {
    kind: Option<String>,
}

/// `POST /api/import`: `{"id"}` of the new game.
#[derive(Serialize)]
struct Imported {
    id: String,
}

fn invalid_record(message: impl Into<String>) -> ApiError {
    ApiError::new(ErrorCode::InvalidRecord, message)
}

/// Reads a pasted or uploaded record into a game to store (imported at `now`), or says
/// what is wrong with it (naming the line and the move).
pub fn read_import(kind: GameKind, text: &str, now: i64) -> Result<ImportedGame, ApiError> {
    if text.len() > MAX_RECORD_BYTES {
        return Err(invalid_record(format!(
            "the record is longer than {MAX_RECORD_BYTES} bytes"
        )));
    }
    let options = ReplayOptions {
        variations: Variations::default(),
        // Records typed by hand often leave captures out; the stored moves have them.
        lenient_captures: true,
    };
    let mut read = record::read(kind, text, options);
    let first = match read.len() {
        0 => return Err(invalid_record("the record holds no game")),
        1 => read.remove(0),
        n => {
            return Err(invalid_record(format!(
                "the record holds {n} games: import one at a time"
            )));
        }
    };
    let replay = first
        .replay
        .map_err(|fault| invalid_record(format!("{kind} game 1, {fault}")))?;
    if let Some(fault) = replay.fault {
        return Err(invalid_record(format!("{kind} game 1, {fault}")));
    }
    if replay.start.variations() != Variations::default() {
        return Err(invalid_record(format!(
            "the record's rules tag names another repetition rule than {kind}'s own: \
             only games under the standard rules can be imported"
        )));
    }
    let plies = replay.game.ply();
    if plies > MAX_RECORD_PLIES {
        return Err(invalid_record(format!(
            "the game has {plies} moves; at most {MAX_RECORD_PLIES} can be imported"
        )));
    }
    let outcome = replay.outcome.ok_or_else(|| {
        invalid_record(
            "the record does not say how the game ended: give its result (a result tag, \
             or `timeout`/`---` after the last move)",
        )
    })?;
    let name = |player| {
        first
            .record
            .tag(record::tag_name(kind, TagKey::player(player)))
            .map(clean_name)
            .filter(|name| !name.is_empty())
    };
    let played_at = first
        .record
        .tag(record::tag_name(kind, TagKey::Date))
        .and_then(record_date_ms);
    // The game as the live layer stores a finished one, so that its game page shows it.
    let session = Session::with_ending(
        replay.game.clone(),
        Some(outcome),
        Options {
            control: TimeControl::Untimed,
            takebacks: Takebacks::Never,
            ..Options::default()
        },
        Timestamp::from_millis(live::millis(now)),
    );
    Ok(ImportedGame {
        kind,
        start_position: replay.start.start_position_string(),
        moves: replay.game.move_texts(),
        outcome,
        names: [name(Player::First), name(Player::Second)],
        session_state: live::session_json(&session),
        played_at,
    })
}

/// The day a record's date tag names (`2015.01.07`, `2015-01-07`, `2015/01/07`), at its
/// midnight UTC in milliseconds; `None` when the tag gives no whole date (PGN writes
/// unknown parts as `??`) or a day after today.
fn record_date_ms(text: &str) -> Option<i64> {
    let mut parts = text.trim().split(['.', '-', '/']);
    let year: i32 = parts.next()?.trim().parse().ok()?;
    let month: u8 = parts.next()?.trim().parse().ok()?;
    let day: u8 = parts.next()?.trim().parse().ok()?;
    if parts.next().is_some() {
        return None;
    }
    let date =
        time::Date::from_calendar_date(year, time::Month::try_from(month).ok()?, day).ok()?;
    let ms = date.midnight().assume_utc().unix_timestamp() * 1000;
    (ms <= crate::store::now_ms()).then_some(ms)
}

/// `POST /api/import`: stores a record (JSON `{"kind","record"}`, or the record itself
/// as `text/plain` with `?kind=`) as an unrated, finished game for review.
pub async fn import(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    query: Result<Query<ImportQuery>, QueryRejection>,
    request: Request,
) -> Result<Response, ApiError> {
    state.limiters.import.check(&ip).await?;
    let Query(query) = query.map_err(|rejection| bad_request(rejection.body_text()))?;
    let content_type = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    let (kind, text) = if content_type.starts_with("text/plain") {
        let kind = given(query.kind.as_ref())
            .ok_or_else(|| bad_request("say which game the record is: `?kind=copenhagen`"))
            .and_then(parse_kind)?;
        let bytes = Bytes::from_request(request, &())
            .await
            .map_err(|rejection| {
                if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                    ApiError::new(
                        ErrorCode::BodyTooLarge,
                        "the request body is larger than the server accepts",
                    )
                } else {
                    bad_request("the body could not be read")
                }
            })?;
        let text = String::from_utf8(bytes.to_vec())
            .map_err(|_| invalid_record("the record is not UTF-8 text"))?;
        if let Some(control) = text.chars().find(|&c| super::is_refused_control(c)) {
            return Err(super::control_character_error(control, "the record"));
        }
        (kind, text)
    } else {
        let ApiJson(body) = ApiJson::<ImportBody>::from_request(request, &()).await?;
        (body.kind, body.record)
    };
    let now = now_ms();
    let game = read_import(kind, &text, now)?;
    let import = state.store.import_game(&game, now).await?;
    // The same record again: the game stored the first time, not a copy.
    let status = if import.new {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok(json_with(status, &Imported { id: import.game.id }))
}

#[cfg(test)]
mod date_tests {
    use super::record_date_ms;

    #[test]
    fn record_dates_read_in_the_usual_forms() {
        let jan_7_2015 = Some(1_420_588_800_000);
        assert_eq!(record_date_ms("2015.01.07"), jan_7_2015);
        assert_eq!(record_date_ms("2015-01-07"), jan_7_2015);
        assert_eq!(record_date_ms(" 2015/1/7 "), jan_7_2015);
        for bad in [
            "2015.??.??",
            "2015",
            "2015.13.01",
            "2015.02.30",
            "",
            "9999.01.01",
            "2015.01.07.1",
        ] {
            assert_eq!(record_date_ms(bad), None, "{bad}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_names_lose_control_and_reordering_characters() {
        assert_eq!(
            clean_name("  Ragnar\u{0} Lodbrok\u{1b}[31m "),
            "Ragnar Lodbrok[31m"
        );
        assert_eq!(clean_name("evil\u{202E}gnp.exe"), "evilgnp.exe");
        assert_eq!(clean_name("\u{2066}Björn\u{2069}\u{200F}"), "Björn");
        assert_eq!(clean_name("a\tb\nc"), "a b c");
        assert_eq!(clean_name("\u{202D}\u{0}"), "");
        assert_eq!(clean_name(&"x".repeat(300)).len(), MAX_NAME_CHARS);
    }
}
