-- Ended sign-ins, told across processes (issue 21: "the moderator's actions take effect
-- on open sockets at once"): a password changed or reset, or every sign-in ended, by
-- this server, another server process, or `kingstable admin reset-password`. Each server
-- reads the new rows every two seconds and closes that account's sockets whose sign-in
-- has ended. Rows older than an hour are deleted.
CREATE TABLE revocations (
    user_id TEXT NOT NULL,
    at      BIGINT NOT NULL
);
CREATE INDEX revocations_at ON revocations (at);
