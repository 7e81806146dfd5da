//! The messages of the game and lobby sockets, as explicit Rust types: what a client may
//! send ([`client`]), and what the server sends ([`server`], [`lists`], [`lobby`]).
//! `docs/API.md` documents each one.

mod client;
mod lists;
mod lobby;
mod server;
#[cfg(test)]
mod tests;

pub use client::*;
pub use lists::*;
pub use lobby::*;
pub use server::*;
