-- Players come back (issue 21): the rating list and each player's unfinished games.

-- The rating list reads one game's ratings by rating, highest first.
CREATE INDEX ratings_by_kind ON ratings (kind, rating);
-- When a player last played (the rating list's "last active"): their latest game, found
-- from the end of each seat's index instead of by reading all their games.
CREATE INDEX games_by_first_user_updated ON games (first_user_id, updated_at);
CREATE INDEX games_by_second_user_updated ON games (second_user_id, updated_at);
