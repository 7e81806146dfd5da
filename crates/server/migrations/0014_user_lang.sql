-- The language an account reads the site in (`en`, `it` or `fr`; NULL: not told yet), as
-- its browser last told the server (`PUT /api/account/language`): mail to the account is
-- written in it (issue 21: everything in English, Italian and French).
ALTER TABLE users ADD COLUMN lang TEXT;
