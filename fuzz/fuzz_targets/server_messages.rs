//! The game socket's client messages (`server::live::messages::ClientMessage`) read from
//! JSON as the server reads them, a move's text then tried on each game's start as the
//! game's owner tries it. (The server's HTTP request bodies are private types; imports
//! go through `games::record`, fuzzed by the `records` target.)
#![no_main]

use game::GameKind;
use games::AnyGame;
use libfuzzer_sys::fuzz_target;
use server::live::messages::ClientMessage;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(ClientMessage::Move { text, .. }) = serde_json::from_str::<ClientMessage>(text) {
        for kind in GameKind::ALL {
            let _ = AnyGame::start(kind).try_play(&text);
        }
    }
});
