-- Chat with moderation (issue 21, item 5): the messages of games' rooms, reports of
-- messages and the sanctions an administrator or moderator laid on an
-- account.

-- One message. `game_id`: the game whose room it was said in. `room`: `players` (the two
-- players; read by others once the game is over) or `spectators` (everyone but the
-- players while the game goes on). The author is an account (`user_id`) or a guest
-- (`guest_id`); `author` is the name shown, as it was when the message was said.
CREATE TABLE chat_messages (
    id         TEXT PRIMARY KEY,
    game_id    TEXT NOT NULL REFERENCES games (id),
    room       TEXT NOT NULL,
    user_id    TEXT REFERENCES users (id),
    guest_id   TEXT,
    author     TEXT NOT NULL,
    body       TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX chat_messages_game ON chat_messages (game_id, created_at);

-- A message reported by a reader, once per reader (an account or a guest: `reporter`
-- is `u:ID` or `g:ID`), for a moderator to read.
CREATE TABLE chat_reports (
    message_id TEXT NOT NULL REFERENCES chat_messages (id),
    reporter   TEXT NOT NULL,
    reason     TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (message_id, reporter)
);
CREATE INDEX chat_reports_time ON chat_reports (created_at);

-- What an account may not do: `banned` (1: no chat at all until unbanned), `muted_until`
-- (no chat until this time, ms since the Unix epoch; NULL: not muted).
CREATE TABLE chat_sanctions (
    user_id     TEXT PRIMARY KEY REFERENCES users (id),
    banned      BIGINT NOT NULL DEFAULT 0,
    muted_until BIGINT,
    updated_at  BIGINT NOT NULL
);
