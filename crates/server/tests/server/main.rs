//! The server's integration tests, one binary (one link) for all of them:
//! `cargo test -p server --test server` runs them all, `… --test server chat::` one file.

#[macro_use]
mod common;

mod accounts;
mod analysis;
mod archive;
mod broadcast;
mod chat;
mod cluster;
mod cluster_hubs;
mod conn;
mod docs;
mod fair;
mod http;
mod leases;
mod live;
mod lobby_chat;
mod mail;
mod people;
mod play;
mod storage;
mod store;
