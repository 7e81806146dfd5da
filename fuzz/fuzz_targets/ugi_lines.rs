//! UGI: each input line is read as a command (`Command::from_str`), and the whole input
//! is fed to a UGI session as an engine's standard input would be, less the lines that
//! start a search (`go`), so that one input stays fast.
#![no_main]

use libfuzzer_sys::fuzz_target;
use protocol::ugi::{Command, UgiSession};
use protocol::{EngineSettings, Flow, LineProtocol, Output};

fuzz_target!(|data: &[u8]| {
    let text = kingstable_fuzz::text(data);
    // A small table: the default 64 MiB would be allocated for every input.
    let settings = EngineSettings {
        hash_mb: 1,
        ..EngineSettings::default()
    };
    let mut session = UgiSession::with_settings(Output::new(|_| {}), settings);
    session.start();
    for line in text.lines().take(64) {
        match line.parse::<Command>() {
            // A search, the engine's start (`isready` sets up its 64 MiB table and
            // threads), or a bigger table or more threads, would make one input slow.
            Ok(Command::Go(_) | Command::IsReady) => continue,
            Ok(Command::SetOption { name, .. })
                if name.eq_ignore_ascii_case("hash") || name.eq_ignore_ascii_case("threads") =>
            {
                continue;
            }
            _ => {}
        }
        if session.handle_line(line) == Flow::Quit {
            return;
        }
    }
    session.end_of_input();
});
