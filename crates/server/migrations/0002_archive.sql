-- The archive: games imported from records, and indexes for listing finished games.

-- 1 for a game imported from a record (unrated, finished, for review); 0 for a game
-- played here.
ALTER TABLE games ADD COLUMN imported BIGINT NOT NULL DEFAULT 0;
-- The players' names as an imported record gives them (NULL for games played here:
-- their seats name the players).
ALTER TABLE games ADD COLUMN first_name TEXT;
ALTER TABLE games ADD COLUMN second_name TEXT;

-- The archive lists finished games newest first, by game kind or not.
CREATE INDEX games_archive ON games (status, finished_at);
CREATE INDEX games_archive_by_kind ON games (kind, status, finished_at);
