-- Each live game has one owner process at a time (issue 23): `owner` names it as
-- `INSTANCE#INCARNATION` (the instance's name, e.g. `host:8080`, and a random word drawn
-- at each start), and `lease_until` (ms since the Unix epoch) says until when its claim
-- holds unless renewed. Every write of a live game checks `owner`, so a process that
-- lost a game (its lease lapsed and another took it) can no longer change it.
ALTER TABLE games ADD COLUMN owner TEXT;
ALTER TABLE games ADD COLUMN lease_until BIGINT NOT NULL DEFAULT 0;
CREATE INDEX games_owner ON games (owner) WHERE status IN ('waiting', 'playing');
