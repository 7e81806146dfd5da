//! OpenTafl engine protocol: each input line is read as a message and as a clock, and
//! the whole input is fed to an OTEP session as OpenTafl would send it, less the lines
//! that start a search (`play`, `analyze`), so that one input stays fast.
#![no_main]

use libfuzzer_sys::fuzz_target;
use protocol::otep::{Message, OtepClock, OtepSession, OtepSettings};
use protocol::{EngineSettings, Flow, LineProtocol, Output};

fuzz_target!(|data: &[u8]| {
    let text = kingstable_fuzz::text(data);
    let settings = OtepSettings {
        engine: EngineSettings {
            hash_mb: 1,
            ..EngineSettings::default()
        },
        ..OtepSettings::default()
    };
    let mut session = OtepSession::new(Output::new(|_| {}), settings);
    session.start();
    for line in text.lines().take(64) {
        let _ = OtepClock::parse(line);
        if let Ok(Some(Message::Play(_) | Message::Analyze { .. })) = Message::parse(line) {
            continue;
        }
        if session.handle_line(line) == Flow::Quit {
            return;
        }
    }
    session.end_of_input();
});
