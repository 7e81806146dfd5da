-- Kingstable's schema. One file for SQLite and PostgreSQL: only types and syntax both
-- read the same way (TEXT, BIGINT, DOUBLE PRECISION; no autoincrement: ids are random
-- text made by the server; booleans are BIGINT 0/1; times are BIGINT milliseconds since
-- the Unix epoch, UTC; JSON is TEXT).

-- Accounts. `username` as the player typed it; `username_key` its lowercase form, so
-- names are unique regardless of case.
CREATE TABLE users (
    id            TEXT PRIMARY KEY,
    username      TEXT NOT NULL,
    username_key  TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,          -- argon2id, PHC string format
    created_at    BIGINT NOT NULL
);

-- Signed-in sessions. The cookie holds a random token; only its SHA-256 is stored.
CREATE TABLE sessions (
    token_hash   TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at   BIGINT NOT NULL,
    expires_at   BIGINT NOT NULL
);
CREATE INDEX sessions_by_user ON sessions (user_id);

-- Players without an account: a generated name and a secret token (stored hashed) in a
-- cookie. `user_id` is set when the guest signs up; their games then carry the user too.
CREATE TABLE guests (
    id           TEXT PRIMARY KEY,
    name         TEXT NOT NULL UNIQUE,
    token_hash   TEXT NOT NULL UNIQUE,
    user_id      TEXT REFERENCES users (id) ON DELETE SET NULL,
    created_at   BIGINT NOT NULL
);

-- Games, live and finished. Each side (first = tafl attackers / Camelot White, second =
-- tafl defenders / Camelot Black) is a user, a guest (or a guest who became a user: both
-- set), an AI level (1-6), or nobody yet (a seat open to whoever follows the link).
CREATE TABLE games (
    id              TEXT PRIMARY KEY,      -- short random id, the shareable link
    kind            TEXT NOT NULL,         -- fetlar | copenhagen | camelot
    first_user_id   TEXT REFERENCES users (id),
    first_guest_id  TEXT REFERENCES guests (id),
    first_ai_level  BIGINT,
    second_user_id  TEXT REFERENCES users (id),
    second_guest_id TEXT REFERENCES guests (id),
    second_ai_level BIGINT,
    time_control    TEXT NOT NULL,         -- the session crate's TimeControl as text
    rated           BIGINT NOT NULL,       -- 0 | 1
    status          TEXT NOT NULL,         -- waiting | playing | finished | aborted
    result          TEXT,                  -- first | second | draw (NULL until finished)
    reason          TEXT,                  -- game::EndReason as text (NULL until finished)
    start_position  TEXT NOT NULL,         -- position string the game started from
    session_state   TEXT,                  -- the live session serialised as JSON
    ply_count       BIGINT NOT NULL,       -- moves stored in `moves`
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL,
    finished_at     BIGINT
);
CREATE INDEX games_by_status ON games (status);
CREATE INDEX games_by_first_user ON games (first_user_id);
CREATE INDEX games_by_second_user ON games (second_user_id);
CREATE INDEX games_by_first_guest ON games (first_guest_id);
CREATE INDEX games_by_second_guest ON games (second_guest_id);
CREATE INDEX games_by_finished ON games (finished_at);

-- Every move, written before it is acknowledged. Ply 1 is the first move. Clocks are
-- each side's time left after the move (NULL when the game is untimed).
CREATE TABLE moves (
    game_id         TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    ply             BIGINT NOT NULL,
    text            TEXT NOT NULL,
    first_clock_ms  BIGINT,
    second_clock_ms BIGINT,
    played_at       BIGINT NOT NULL,
    PRIMARY KEY (game_id, ply)
);

-- Glicko-2 ratings, one row per user and game kind. `revision` counts updates: an update
-- changes a row only if the revision it read is still there (no lost updates when two
-- games of one player finish at once, on either database).
CREATE TABLE ratings (
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind       TEXT NOT NULL,
    rating     DOUBLE PRECISION NOT NULL,
    deviation  DOUBLE PRECISION NOT NULL,
    volatility DOUBLE PRECISION NOT NULL,
    games      BIGINT NOT NULL,
    wins       BIGINT NOT NULL,
    losses     BIGINT NOT NULL,
    draws      BIGINT NOT NULL,
    revision   BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (user_id, kind)
);

-- Each user's rating after each rated game. `game_number` counts the user's rated games
-- of that kind (1 for the first): it orders the history even when games end in the same
-- millisecond.
CREATE TABLE rating_history (
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    game_id     TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    kind        TEXT NOT NULL,
    game_number BIGINT NOT NULL,
    rating      DOUBLE PRECISION NOT NULL,
    deviation   DOUBLE PRECISION NOT NULL,
    volatility  DOUBLE PRECISION NOT NULL,
    recorded_at BIGINT NOT NULL,
    PRIMARY KEY (user_id, game_id)
);
CREATE INDEX rating_history_by_user ON rating_history (user_id, recorded_at, game_number);

-- Open challenges in the lobby. The creator is a user or a guest; `side` is the side the
-- creator plays (first | second | random). Accepting one creates a game.
CREATE TABLE challenges (
    id               TEXT PRIMARY KEY,
    kind             TEXT NOT NULL,
    time_control     TEXT NOT NULL,
    side             TEXT NOT NULL,
    rated            BIGINT NOT NULL,
    creator_user_id  TEXT REFERENCES users (id) ON DELETE CASCADE,
    creator_guest_id TEXT REFERENCES guests (id) ON DELETE CASCADE,
    status           TEXT NOT NULL,        -- open | accepted | cancelled
    game_id          TEXT REFERENCES games (id),
    created_at       BIGINT NOT NULL
);
CREATE INDEX challenges_by_status ON challenges (status, created_at);
