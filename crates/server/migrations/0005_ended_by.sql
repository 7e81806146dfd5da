-- Who ended a game outside the rules: the player who resigned, whose flag fell, or who
-- left and was claimed against (`first` or `second`; NULL for an ending by the rules, an
-- agreement, an imported record, and games finished before this column). Results say
-- who did what from it in every list (docs/API.md, "Results").
ALTER TABLE games ADD COLUMN ended_by TEXT;
