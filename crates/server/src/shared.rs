//! Rate limits and AI quotas shared by every server process through Redis (`--redis`).
//!
//! Without Redis each process keeps its own (governor's buckets, the AI pool's counts):
//! with several processes behind one address a client could then take each limit once
//! per process. With Redis:
//!
//! - **Rate limits** are the same buckets (GCRA: a burst, then one more each period) kept
//!   in Redis, one key per limit and client (`kt:rl:{limit}:{key}`), each expiring when
//!   its bucket is full again, so Redis holds only the clients that are being limited.
//!   Time is Redis's own clock (`TIME`), so the processes' clocks need not agree.
//! - **AI quotas** (games against the AI, analyses, reviews running at once) are counted
//!   in one sorted set per identity (`kt:ai:{quota}:{identity}`): each holding is a member
//!   whose score is when it lapses. Its process renews what it holds every
//!   [`RENEW_EVERY`] and removes a holding when it ends; the holdings of a process that
//!   died lapse after [`HOLD_FOR`].
//!
//! Each check is one script run in Redis (atomic: two processes cannot both take the last
//! token). If Redis does not answer within [`ANSWER_WITHIN`] the process falls back to
//! its own limits (rate limits) or to its own counts only (AI quotas), asks Redis again
//! only [`REST_AFTER_FAILURE`] later, and says so once in its log; nobody is refused, or
//! kept waiting, because Redis is away.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use redis::aio::ConnectionManager;
use tokio::sync::mpsc;

/// How long a check waits for Redis before the process decides alone.
pub const ANSWER_WITHIN: Duration = Duration::from_millis(250);

/// How long a process decides alone after Redis failed to answer, before asking again.
pub const REST_AFTER_FAILURE: Duration = Duration::from_secs(1);

/// How long an AI holding lasts unless its process renews it.
pub const HOLD_FOR: Duration = Duration::from_secs(30);

/// How often a process renews its AI holdings: three times in [`HOLD_FOR`].
pub const RENEW_EVERY: Duration = Duration::from_secs(HOLD_FOR.as_secs() / 3);

/// Most ended holdings waiting to be removed from Redis; past that they lapse on their
/// own within [`HOLD_FOR`].
const RELEASES: usize = 4096;

/// Takes from, looks at, or spends from a bucket (GCRA). `KEYS[1]`: the bucket;
/// `ARGV[1]`: microseconds per token; `ARGV[2]`: the burst; `ARGV[3]`: `take` (spends one
/// if the bucket allows it), `look` (spends nothing) or `spend` (spends one whatever the
/// bucket says).
/// Returns 0 when allowed, else the microseconds to wait.
const BUCKET: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local period = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local wait = tat - now - (burst - 1) * period
if ARGV[3] == 'look' or (ARGV[3] == 'take' and wait > 0) then
  if wait > 0 then return math.ceil(wait) end
  return 0
end
tat = tat + period
redis.call('SET', KEYS[1], string.format('%.0f', tat), 'PX', math.ceil((tat - now) / 1000))
if wait > 0 then return math.ceil(wait) end
return 0
";

/// Takes or renews the holding `ARGV[2]` in every set of `KEYS` for `ARGV[3]`
/// milliseconds. `ARGV[1]`: the most holdings a set may have (lapsed ones not counted),
/// or 0 to renew whatever the sets hold. Returns 1 if held, 0 if one set is full (then
/// nothing is taken).
const HOLD: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local cap = tonumber(ARGV[1])
if cap > 0 then
  for _, key in ipairs(KEYS) do
    redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
    if redis.call('ZCARD', key) >= cap then return 0 end
  end
end
local lapses = now + tonumber(ARGV[3])
for _, key in ipairs(KEYS) do
  redis.call('ZADD', key, lapses, ARGV[2])
  redis.call('PEXPIRE', key, ARGV[3])
end
return 1
";

/// What a bucket check does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bucket {
    /// Spends one token if there is one.
    Take,
    /// Only looks.
    Look,
    /// Spends one token even if there is none (a failure counted after the fact).
    Spend,
}

impl Bucket {
    fn word(self) -> &'static str {
        match self {
            Bucket::Take => "take",
            Bucket::Look => "look",
            Bucket::Spend => "spend",
        }
    }
}

/// Why Redis gave no answer.
#[derive(Debug, thiserror::Error)]
pub enum SharedError {
    /// Redis answered with an error, or the connection failed.
    #[error("redis: {0}")]
    Redis(#[from] redis::RedisError),
    /// Redis did not answer in time.
    #[error("redis did not answer within {ANSWER_WITHIN:?}")]
    Slow,
    /// Redis failed a moment ago: not asked again yet.
    #[error("redis failed less than {REST_AFTER_FAILURE:?} ago")]
    Resting,
}

/// The limits and quotas this process shares with the others (see the
/// [module documentation](self)).
pub struct Shared {
    connection: ConnectionManager,
    token: String,
    bucket: redis::Script,
    hold: redis::Script,
    /// What this process holds: holding → its keys.
    held: Mutex<HashMap<String, Vec<String>>>,
    released: mpsc::Sender<(String, Vec<String>)>,
    next: AtomicU64,
    /// When Redis last failed, while it fails.
    failed: Mutex<Option<Instant>>,
    /// Checks Redis did not answer, since start.
    failures: AtomicU64,
    /// How long a holding lasts unless renewed.
    hold_for: Duration,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("token", &self.token)
            .finish_non_exhaustive()
    }
}

/// An AI quota held in Redis, given back when dropped (from any thread).
#[derive(Debug)]
pub struct Hold {
    shared: Arc<Shared>,
    member: String,
}

impl Drop for Hold {
    fn drop(&mut self) {
        let keys = self
            .shared
            .held
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.member);
        if let Some(keys) = keys {
            // Full: the holding lapses on its own, as it is no longer renewed.
            let _ = self
                .shared
                .released
                .try_send((std::mem::take(&mut self.member), keys));
        }
    }
}

impl Shared {
    /// Limits and quotas shared over `connection`, for the process whose lease token is
    /// `token`; starts the task that renews and gives back its AI holdings.
    #[must_use]
    pub fn start(connection: ConnectionManager, token: &str) -> Arc<Shared> {
        Shared::start_holding(connection, token, HOLD_FOR)
    }

    /// As [`Shared::start`], with holdings that last `hold_for` unless renewed (renewed
    /// three times in that).
    #[must_use]
    pub fn start_holding(
        connection: ConnectionManager,
        token: &str,
        hold_for: Duration,
    ) -> Arc<Shared> {
        let (released, gone) = mpsc::channel(RELEASES);
        let shared = Arc::new(Shared {
            connection,
            token: token.to_owned(),
            bucket: redis::Script::new(BUCKET),
            hold: redis::Script::new(HOLD),
            held: Mutex::default(),
            released,
            next: AtomicU64::new(1),
            failed: Mutex::default(),
            failures: AtomicU64::new(0),
            hold_for,
        });
        tokio::spawn(keep(Arc::downgrade(&shared), gone, hold_for / 3));
        shared
    }

    /// Waits for `answer` from Redis at most [`ANSWER_WITHIN`]; fails at once for
    /// [`REST_AFTER_FAILURE`] after a failure (so that, while Redis is away, requests
    /// are not each delayed). Notes in the log when Redis stops and starts answering.
    async fn ask<T>(
        &self,
        answer: impl std::future::Future<Output = redis::RedisResult<T>>,
    ) -> Result<T, SharedError> {
        if self.resting() {
            self.failures.fetch_add(1, Ordering::Relaxed);
            return Err(SharedError::Resting);
        }
        let result = match tokio::time::timeout(ANSWER_WITHIN, answer).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(error)) => Err(SharedError::Redis(error)),
            Err(_) => Err(SharedError::Slow),
        };
        let mut failed = self.failed.lock().unwrap_or_else(PoisonError::into_inner);
        match &result {
            Ok(_) => {
                if failed.take().is_some() {
                    tracing::info!("shared limits: Redis answers again");
                }
            }
            Err(error) => {
                self.failures.fetch_add(1, Ordering::Relaxed);
                if failed.replace(Instant::now()).is_none() {
                    tracing::warn!(%error, "shared limits: Redis does not answer; each process limits alone meanwhile");
                }
            }
        }
        result
    }

    /// How many checks Redis did not answer (in time) since start, those not asked
    /// while resting after a failure included.
    #[must_use]
    pub fn failures(&self) -> u64 {
        self.failures.load(Ordering::Relaxed)
    }

    /// Whether Redis failed less than [`REST_AFTER_FAILURE`] ago.
    fn resting(&self) -> bool {
        self.failed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some_and(|at| at.elapsed() < REST_AFTER_FAILURE)
    }

    /// Runs a script invocation (see [`Shared::ask`]).
    async fn run<T: redis::FromRedisValue>(
        &self,
        invocation: &redis::ScriptInvocation<'_>,
    ) -> Result<T, SharedError> {
        let mut connection = self.connection.clone();
        self.ask(invocation.invoke_async::<T>(&mut connection))
            .await
    }

    /// Checks the bucket `limit` of `key`: a burst of `burst`, one more each `period`.
    /// `Ok(None)`: allowed (and spent, unless `what` is [`Bucket::Look`]); `Ok(Some(wait))`:
    /// empty for `wait` more.
    ///
    /// # Errors
    /// When Redis does not answer in time.
    pub async fn bucket(
        &self,
        limit: &str,
        key: &str,
        burst: u32,
        period: Duration,
        what: Bucket,
    ) -> Result<Option<Duration>, SharedError> {
        let period = u64::try_from(period.as_micros()).unwrap_or(u64::MAX).max(1);
        let mut invocation = self.bucket.prepare_invoke();
        invocation
            .key(format!("kt:rl:{limit}:{key}"))
            .arg(period)
            .arg(burst.max(1))
            .arg(what.word());
        let wait: u64 = self.run(&invocation).await?;
        Ok((wait > 0).then(|| Duration::from_micros(wait)))
    }

    /// Forgets the bucket `limit` of `key` (full again).
    ///
    /// # Errors
    /// When Redis does not answer in time.
    pub async fn forget(&self, limit: &str, key: &str) -> Result<(), SharedError> {
        let mut connection = self.connection.clone();
        let mut command = redis::cmd("DEL");
        command.arg(format!("kt:rl:{limit}:{key}"));
        self.ask(command.exec_async(&mut connection)).await
    }

    /// Takes one of quota `quota` (at most `cap` at once) for every identity in
    /// `identities`, or none if one of them holds `cap` already. `Ok(None)`: refused.
    ///
    /// # Errors
    /// When Redis does not answer in time.
    pub async fn acquire(
        self: &Arc<Self>,
        quota: &str,
        identities: &[String],
        cap: usize,
    ) -> Result<Option<Hold>, SharedError> {
        let keys: Vec<String> = identities
            .iter()
            .map(|identity| format!("kt:ai:{quota}:{identity}"))
            .collect();
        let member = format!(
            "{}:{}",
            self.token,
            self.next.fetch_add(1, Ordering::Relaxed)
        );
        let invocation = self.hold_invocation(&keys, cap.max(1), &member);
        // Registered first: a holding taken but answered too late is still given back.
        self.held
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(member.clone(), keys);
        let hold = Hold {
            shared: Arc::clone(self),
            member,
        };
        let taken: u8 = self.run(&invocation).await?;
        if taken == 1 {
            Ok(Some(hold))
        } else {
            // Nothing to give back.
            self.held
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&hold.member);
            Ok(None)
        }
    }

    /// How many holdings of `quota` `identity` has now (lapsed ones not counted).
    ///
    /// # Errors
    /// When Redis does not answer in time.
    pub async fn holding(&self, quota: &str, identity: &str) -> Result<usize, SharedError> {
        let mut connection = self.connection.clone();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        let mut command = redis::cmd("ZCOUNT");
        command
            .arg(format!("kt:ai:{quota}:{identity}"))
            .arg(millis(now))
            .arg("+inf");
        self.ask(command.query_async::<usize>(&mut connection))
            .await
    }

    /// The script that takes (at most `cap` a set) or, for a `cap` of 0, renews the
    /// holding `member` in the sets `keys`.
    fn hold_invocation(
        &self,
        keys: &[String],
        cap: usize,
        member: &str,
    ) -> redis::ScriptInvocation<'_> {
        let mut invocation = self.hold.prepare_invoke();
        for key in keys {
            invocation.key(key);
        }
        invocation.arg(cap).arg(member).arg(millis(self.hold_for));
        invocation
    }

    /// Renews every holding of this process.
    async fn renew_all(&self) {
        let held: Vec<(String, Vec<String>)> = self
            .held
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .map(|(member, keys)| (member.clone(), keys.clone()))
            .collect();
        for (member, keys) in held {
            let invocation = self.hold_invocation(&keys, 0, &member);
            if self.run::<u8>(&invocation).await.is_err() {
                return;
            }
        }
    }

    /// Removes an ended holding.
    async fn release(&self, member: &str, keys: &[String]) {
        let mut connection = self.connection.clone();
        let mut pipe = redis::pipe();
        for key in keys {
            pipe.cmd("ZREM").arg(key).arg(member).ignore();
        }
        let _ = self.ask(pipe.exec_async(&mut connection)).await;
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// Gives back ended holdings as they come and renews the others every `every`,
/// until the process's [`Shared`] is dropped.
async fn keep(
    shared: std::sync::Weak<Shared>,
    mut gone: mpsc::Receiver<(String, Vec<String>)>,
    every: Duration,
) {
    let mut renew = tokio::time::interval(every.max(Duration::from_millis(10)));
    renew.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            ended = gone.recv() => {
                let Some((member, keys)) = ended else { return };
                let Some(shared) = shared.upgrade() else { return };
                shared.release(&member, &keys).await;
            }
            _ = renew.tick() => {
                let Some(shared) = shared.upgrade() else { return };
                shared.renew_all().await;
            }
        }
    }
}
