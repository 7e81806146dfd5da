//! The archive: finished games listed, filtered and paged, and games imported from
//! records (unrated and finished, for review).

use game::{GameKind, Outcome, Player};
use sqlx::Row;

use super::games::{GAME_SELECT, game_from_row};
use super::{
    Conflict, GameRecord, IdOf, Store, StoreError, TooLarge, is_unique_violation, random_id,
    result_str,
};

/// Which finished games to list; every filter that is set must hold.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ArchiveFilter {
    /// Only this game.
    pub kind: Option<GameKind>,
    /// Only games of this player (a username or guest name, any case; for imported
    /// games, a name the record gives).
    pub player: Option<String>,
    /// Only games with this result: `Some(winner)`, `None` inside for a draw.
    pub result: Option<Option<Player>>,
    /// Only rated (or only unrated) games.
    pub rated: Option<bool>,
    /// Only games finished at or after this time (ms since the Unix epoch).
    pub since: Option<i64>,
    /// Only games finished before this time.
    pub until: Option<i64>,
}

/// A finished game in the archive, with what only the archive knows of it.
#[derive(Clone, Debug, PartialEq)]
pub struct ArchivedGame {
    /// The stored game.
    pub game: GameRecord,
    /// Whether it was imported from a record rather than played here.
    pub imported: bool,
    /// The players' names as an imported record gives them (first player's first).
    pub names: [Option<String>; 2],
}

/// One page of the archive.
#[derive(Clone, Debug, PartialEq)]
pub struct ArchivePage {
    /// The games on the page, the latest finished first.
    pub games: Vec<ArchivedGame>,
    /// How many games match the filter, on all pages.
    pub total: u64,
}

/// A game read from a record, to store as an unrated, finished game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportedGame {
    /// Which game.
    pub kind: GameKind,
    /// The position string it starts from.
    pub start_position: String,
    /// Its moves, in the games crate's notation (with captures).
    pub moves: Vec<String>,
    /// How it ended.
    pub outcome: Outcome,
    /// The players' names as the record gives them (first player's first).
    pub names: [Option<String>; 2],
    /// The finished session, serialised (JSON), as the live layer stores one.
    pub session_state: String,
    /// When it was played, as the record's date tag gives it (ms since the epoch, the
    /// day's midnight UTC); the game is listed at this date instead of the import's.
    pub played_at: Option<i64>,
}

impl ImportedGame {
    /// What makes two imports the same game: a digest (SHA-256, hex) of the game, its
    /// start, its moves, its result, the names and the date the record gives.
    #[must_use]
    pub fn key(&self) -> String {
        use sha2::{Digest, Sha256};
        let mut hash = Sha256::new();
        let mut field = |text: &str| {
            // Length-prefixed, so that no two lists of fields give the same bytes.
            hash.update((text.len() as u64).to_le_bytes());
            hash.update(text.as_bytes());
        };
        field(self.kind.as_str());
        field(&self.start_position);
        field(&self.moves.len().to_string());
        for mv in &self.moves {
            field(mv);
        }
        field(result_str(self.outcome.winner));
        field(self.outcome.reason.as_str());
        for name in &self.names {
            field(name.as_deref().unwrap_or("\u{0}none"));
        }
        field(&self.played_at.map_or_else(String::new, |at| at.to_string()));
        hash.finalize()
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect()
    }
}

/// What an import did.
#[derive(Clone, Debug, PartialEq)]
pub struct Import {
    /// The stored game.
    pub game: GameRecord,
    /// False when the same record had been imported before: `game` is that import.
    pub new: bool,
}

/// A value bound to a query parameter.
enum Bind {
    Text(String),
    Int(i64),
}

/// The `WHERE` clause (over `games g`) and its parameters, numbered from `$1`.
fn where_clause(filter: &ArchiveFilter) -> (String, Vec<Bind>) {
    let mut conditions = vec![
        "g.status = 'finished'".to_owned(),
        "g.result IS NOT NULL".to_owned(),
    ];
    let mut binds = Vec::new();
    // Adds a parameter; returns its placeholder.
    let next = |bind: Bind, binds: &mut Vec<Bind>| {
        binds.push(bind);
        format!("${}", binds.len())
    };
    if let Some(kind) = filter.kind {
        let p = next(Bind::Text(kind.as_str().to_owned()), &mut binds);
        conditions.push(format!("g.kind = {p}"));
    }
    if let Some(name) = &filter.player {
        let p = next(Bind::Text(name.to_lowercase()), &mut binds);
        conditions.push(format!(
            "(g.first_user_id IN (SELECT id FROM users WHERE username_key = {p}) \
             OR g.second_user_id IN (SELECT id FROM users WHERE username_key = {p}) \
             OR g.first_guest_id IN (SELECT id FROM guests WHERE LOWER(name) = {p}) \
             OR g.second_guest_id IN (SELECT id FROM guests WHERE LOWER(name) = {p}) \
             OR LOWER(g.first_name) = {p} OR LOWER(g.second_name) = {p})"
        ));
    }
    if let Some(winner) = filter.result {
        let p = next(Bind::Text(result_str(winner).to_owned()), &mut binds);
        conditions.push(format!("g.result = {p}"));
    }
    if let Some(rated) = filter.rated {
        let p = next(Bind::Int(i64::from(rated)), &mut binds);
        conditions.push(format!("g.rated = {p}"));
    }
    if let Some(since) = filter.since {
        let p = next(Bind::Int(since), &mut binds);
        conditions.push(format!("g.finished_at >= {p}"));
    }
    if let Some(until) = filter.until {
        let p = next(Bind::Int(until), &mut binds);
        conditions.push(format!("g.finished_at < {p}"));
    }
    (conditions.join(" AND "), binds)
}

fn bind_all<'q>(
    mut query: sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>>,
    binds: &'q [Bind],
) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>> {
    for bind in binds {
        query = match bind {
            Bind::Text(text) => query.bind(text.as_str()),
            Bind::Int(value) => query.bind(*value),
        };
    }
    query
}

impl Store {
    /// Page `page` (1-based) of the finished games that match `filter`, `per_page` to a
    /// page, the latest finished first.
    ///
    /// # Errors
    /// On a database failure or an unreadable row.
    pub async fn archive(
        &self,
        filter: &ArchiveFilter,
        page: u32,
        per_page: u32,
    ) -> Result<ArchivePage, StoreError> {
        let (condition, binds) = where_clause(filter);
        let count_sql = format!("SELECT COUNT(*) FROM games g WHERE {condition}");
        let total: i64 = bind_all(sqlx::query(&count_sql), &binds)
            .fetch_one(&self.pool)
            .await?
            .try_get(0)?;
        let offset = i64::from(page.saturating_sub(1)) * i64::from(per_page);
        let ids_sql = format!(
            "SELECT g.id FROM games g WHERE {condition} \
             ORDER BY g.finished_at DESC, g.id DESC LIMIT {} OFFSET {offset}",
            per_page
        );
        let ids: Vec<String> = bind_all(sqlx::query(&ids_sql), &binds)
            .fetch_all(&self.pool)
            .await?
            .iter()
            .map(|row| row.try_get(0))
            .collect::<Result<_, _>>()?;
        let mut games = self.archived_games(&ids).await?;
        // In the order of the page.
        games.sort_by_key(|g| ids.iter().position(|id| *id == g.game.id));
        Ok(ArchivePage {
            games,
            total: u64::try_from(total).unwrap_or(0),
        })
    }

    /// The game with this id as the archive shows it (any status).
    ///
    /// # Errors
    /// On a database failure or an unreadable row.
    pub async fn archived_game(&self, id: &str) -> Result<Option<ArchivedGame>, StoreError> {
        Ok(self.archived_games(&[id.to_owned()]).await?.pop())
    }

    /// The games with these ids, in no particular order (missing ones left out).
    async fn archived_games(&self, ids: &[String]) -> Result<Vec<ArchivedGame>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let list = (1..=ids.len())
            .map(|i| format!("${i}"))
            .collect::<Vec<_>>()
            .join(", ");
        let games_sql = format!("{GAME_SELECT} WHERE g.id IN ({list})");
        let extra_sql =
            format!("SELECT id, imported, first_name, second_name FROM games WHERE id IN ({list})");
        let mut games_query = sqlx::query(&games_sql);
        let mut extra_query = sqlx::query(&extra_sql);
        for id in ids {
            games_query = games_query.bind(id.as_str());
            extra_query = extra_query.bind(id.as_str());
        }
        let rows = games_query.fetch_all(&self.pool).await?;
        let extras = extra_query.fetch_all(&self.pool).await?;
        let mut games = Vec::with_capacity(rows.len());
        for row in &rows {
            let game = game_from_row(row)?;
            let extra = extras
                .iter()
                .find(|extra| extra.try_get::<String, _>(0).is_ok_and(|id| id == game.id))
                .ok_or(StoreError::NotFound("game"))?;
            games.push(ArchivedGame {
                imported: extra.try_get::<i64, _>(1)? != 0,
                names: [extra.try_get(2)?, extra.try_get(3)?],
                game,
            });
        }
        Ok(games)
    }

    /// Stores a game read from a record as an unrated, finished game with no seats
    /// (the record's names are kept), untimed, with its moves and finished session,
    /// dated as the record dates it (else `now`).
    ///
    /// # Errors
    /// On a database failure.
    pub async fn import_game(&self, game: &ImportedGame, now: i64) -> Result<Import, StoreError> {
        let plies = i64::try_from(game.moves.len())
            .map_err(|_| StoreError::Conflict(TooLarge::Moves.into()))?;
        let key = game.key();
        for _ in 0..8 {
            if let Some(stored) = self.imported_as(&key).await? {
                return Ok(Import {
                    game: stored,
                    new: false,
                });
            }
            let id = random_id(8);
            let mut tx = self.pool.begin().await?;
            let inserted = sqlx::query(
                "INSERT INTO games (id, kind, time_control, rated, status, result, reason, \
                 start_position, session_state, ply_count, created_at, updated_at, \
                 finished_at, imported, first_name, second_name, import_key) \
                 VALUES ($1, $2, 'untimed', 0, 'finished', $3, $4, $5, $10, $6, $11, $7, $11, \
                 1, $8, $9, $12)",
            )
            .bind(&id)
            .bind(game.kind.as_str())
            .bind(result_str(game.outcome.winner))
            .bind(game.outcome.reason.as_str())
            .bind(&game.start_position)
            .bind(plies)
            .bind(now)
            .bind(game.names[0].as_deref())
            .bind(game.names[1].as_deref())
            .bind(&game.session_state)
            .bind(game.played_at.unwrap_or(now))
            .bind(&key)
            .execute(&mut *tx)
            .await;
            match inserted {
                Ok(_) => {}
                // An id clash is retried with another id; the same record imported at
                // the same moment is found by its key on the next turn.
                Err(e) if is_unique_violation(&e) => continue,
                Err(e) => return Err(e.into()),
            }
            for (ply, text) in (1_i64..).zip(&game.moves) {
                sqlx::query(
                    "INSERT INTO moves (game_id, ply, text, first_clock_ms, second_clock_ms, \
                     played_at) VALUES ($1, $2, $3, NULL, NULL, $4)",
                )
                .bind(&id)
                .bind(ply)
                .bind(text)
                .bind(now)
                .execute(&mut *tx)
                .await?;
            }
            tx.commit().await?;
            let stored = self.game(&id).await?.ok_or(StoreError::NotFound("game"))?;
            return Ok(Import {
                game: stored,
                new: true,
            });
        }
        Err(StoreError::Conflict(Conflict::NoFreeId(IdOf::Game)))
    }

    /// The game an earlier import of the record with `key` stored, if any.
    async fn imported_as(&self, key: &str) -> Result<Option<GameRecord>, StoreError> {
        let id: Option<String> = sqlx::query_scalar("SELECT id FROM games WHERE import_key = $1")
            .bind(key)
            .fetch_optional(&self.pool)
            .await?;
        match id {
            Some(id) => self.game(&id).await,
            None => Ok(None),
        }
    }
}
