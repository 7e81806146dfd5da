-- The lobby chat on the home page (issue 21, item 5): its messages and their reports.
-- Only signed-in accounts write there, so every message has an author account.

-- One message: `author` is the name shown, as it was when the message was said.
CREATE TABLE lobby_messages (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id),
    author     TEXT NOT NULL,
    body       TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX lobby_messages_time ON lobby_messages (created_at);

-- A message reported by a reader, once per reader (`u:ID` or `g:ID`), as for games'
-- rooms (chat_reports).
CREATE TABLE lobby_reports (
    message_id TEXT NOT NULL REFERENCES lobby_messages (id),
    reporter   TEXT NOT NULL,
    reason     TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (message_id, reporter)
);
CREATE INDEX lobby_reports_time ON lobby_reports (created_at);
