-- Each live game has one owner process at a time (issue 23). A process is a row of
-- `instances`: its token `INSTANCE#INCARNATION` (the instance's name, e.g. `host:8080`,
-- and a random word drawn at each start) and until when its lease holds unless renewed
-- (ms since the Unix epoch; one row renewed every few seconds, whatever the number of its
-- games). A live game's `owner` names the process that runs it; every write of a live
-- game checks it, so a process whose games were taken (its lease lapsed) can no longer
-- change them.
CREATE TABLE instances (
    token TEXT PRIMARY KEY,
    lease_until BIGINT NOT NULL
);
ALTER TABLE games ADD COLUMN owner TEXT;
CREATE INDEX games_owner ON games (owner) WHERE status IN ('waiting', 'playing');
