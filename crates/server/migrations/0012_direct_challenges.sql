-- A challenge to one player (issue 21, item 2: "a challenge to you"). `to_user_id`: the
-- only account that may accept it, or decline it (status `declined`); such a challenge is
-- not shown in the lobby but on its two players' pages. NULL: an open challenge in the
-- lobby, as before.
ALTER TABLE challenges ADD COLUMN to_user_id TEXT REFERENCES users (id);
CREATE INDEX challenges_to ON challenges (to_user_id, status);
