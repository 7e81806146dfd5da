-- How games start and end (docs/API.md, "How games start and end").

-- The server's last sign of life: written every few seconds and at shutdown, read at
-- start to give the time the server was down back to the clocks (one row, id 1).
CREATE TABLE heartbeat (
    id      BIGINT PRIMARY KEY,
    beat_at BIGINT NOT NULL
);

-- The expiry job looks up unjoined and idle games by status and age.
CREATE INDEX games_by_status_updated ON games (status, updated_at);
