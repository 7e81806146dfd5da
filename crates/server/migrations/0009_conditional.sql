-- Conditional moves of correspondence games (issue 21): while the opponent is to move, a
-- player may enter lines of expected replies and their answers; the server plays the
-- answer when the expected reply comes and drops the lines when another comes. Private
-- to that player. `ply`: the moves played when the lines were entered (the first move of
-- each line is the opponent's reply, ply `ply + 1`). `lines`: JSON, a list of lists of
-- move texts as the game writes them (reply, answer, reply, answer…).
CREATE TABLE conditional_moves (
    game_id    TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    side       TEXT NOT NULL,
    ply        BIGINT NOT NULL,
    lines      TEXT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (game_id, side)
);
