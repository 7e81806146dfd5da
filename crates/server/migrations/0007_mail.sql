-- E-mail (docs/OPERATIONS.md, "E-mail") and the moderator role.

-- An account's confirmed address (NULL: none), as typed, and its lowercase form for
-- finding the account by it; one account per confirmed address. Only confirmed addresses
-- get mail, and no answer about another player ever holds one.
ALTER TABLE users ADD COLUMN email TEXT;
ALTER TABLE users ADD COLUMN email_key TEXT;
CREATE UNIQUE INDEX users_email_key ON users (email_key);
-- Which mail the player wants (1 = yes): the daily digest of correspondence games
-- waiting for their move, and the warning when a correspondence clock runs low.
ALTER TABLE users ADD COLUMN mail_digest BIGINT NOT NULL DEFAULT 1;
ALTER TABLE users ADD COLUMN mail_clock_warning BIGINT NOT NULL DEFAULT 1;
-- The UTC day (days since the Unix epoch) of the last digest sent: at most one a day,
-- also across restarts and between servers sharing one database.
ALTER TABLE users ADD COLUMN mail_digest_day BIGINT;
-- Moderators (granted with `kingstable admin grant moderator USER`).
ALTER TABLE users ADD COLUMN moderator BIGINT NOT NULL DEFAULT 0;

-- Single-use links sent by mail: `confirm` (an address to confirm, in `address`) and
-- `reset` (a new password). The link holds a random token; only its SHA-256 is stored.
-- A link used is deleted; an expired one is refused and cleared by the maintenance job.
CREATE TABLE mail_tokens (
    token_hash TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    purpose    TEXT NOT NULL,              -- confirm | reset
    address    TEXT,                       -- confirm: the address to confirm
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX mail_tokens_by_user ON mail_tokens (user_id, purpose);
CREATE INDEX mail_tokens_by_expiry ON mail_tokens (expires_at);

-- Clock warnings sent: one per player, game and turn (the turn named by the number of
-- moves played when it began), kept so that a restart does not send one again.
CREATE TABLE mail_clock_warnings (
    game_id TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    ply     BIGINT NOT NULL,
    sent_at BIGINT NOT NULL,
    PRIMARY KEY (game_id, user_id, ply)
);
