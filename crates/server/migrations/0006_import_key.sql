-- An imported game is stored once: `import_key` is a digest of what the record says (the
-- game, its start, its moves, its result, its players' names and its date). Importing the
-- same record again answers the game already stored instead of adding a copy, so that
-- re-imports (a script run twice, a page sent again) do not fill the archive. NULL for
-- games played here.
ALTER TABLE games ADD COLUMN import_key TEXT;
CREATE UNIQUE INDEX games_import_key ON games (import_key);
