-- Play as players expect it (issue 20).

-- Who ended a game outside the rules: the player who resigned, whose flag fell, or who
-- left and was claimed against (`first` or `second`; NULL for an ending by the rules, an
-- agreement, an imported record, and games finished before this column). Results say
-- who did what from it in every list (docs/API.md, "Conventions").
ALTER TABLE games ADD COLUMN ended_by TEXT;

-- A finished game's computer review, computed once (every position searched for a fixed
-- number of nodes, so that it is the same for everyone) and served from here afterwards.
-- `plies`: the reviewed moves as JSON, as the analysis socket sends them. `nodes`: the
-- budget per position it was computed with (a review made with another is made again).
CREATE TABLE reviews (
    game_id    TEXT PRIMARY KEY REFERENCES games (id),
    nodes      BIGINT NOT NULL,
    plies      TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
