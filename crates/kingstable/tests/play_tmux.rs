//! The full-screen `kingstable play` in a real terminal: tmux runs it in a detached
//! 80x24 window, keys are sent to it and the screen is read back.
//!
//! Needs tmux. Where tmux is missing the test says so and passes, except under CI
//! (`CI` set), whose script installs tmux, so there it fails instead of hiding.

use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// A tmux server of our own (its own socket), killed when the test ends.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .expect("tmux runs")
    }

    /// `kingstable play --game GAME --vs human` in a detached tmux session of
    /// `width`x`height`; `None` (the test skipped, outside CI only) without tmux.
    fn start(test: &str, game: &str, width: u16, height: u16) -> Option<Tmux> {
        if !tmux_available() {
            assert!(
                std::env::var_os("CI").is_none(),
                "tmux is missing, but CI must run this test (.ci/run installs tmux)"
            );
            eprintln!("SKIPPED {test}: tmux is not installed");
            return None;
        }
        let tmux = Tmux {
            socket: format!("kingstable-test-{game}-{}", std::process::id()),
        };
        let command = format!(
            "{} play --game {game} --vs human",
            env!("CARGO_BIN_EXE_kingstable")
        );
        let (width, height) = (width.to_string(), height.to_string());
        let out = tmux.run(&[
            "new-session",
            "-d",
            "-s",
            "play",
            "-x",
            &width,
            "-y",
            &height,
            &command,
        ]);
        assert!(out.status.success(), "tmux new-session failed: {out:?}");
        Some(tmux)
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "play"];
        args.extend_from_slice(keys);
        let out = self.run(&args);
        assert!(out.status.success(), "send-keys failed: {out:?}");
    }

    fn screen(&self) -> String {
        let out = self.run(&["capture-pane", "-p", "-t", "play"]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Waits until the screen shows `text` and has stopped changing, returning the
    /// screen.
    fn wait_for(&self, text: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let screen = self.screen();
            // The text can show before the rest of the frame is drawn (a capture in
            // the middle of a redraw): take the screen once two captures agree.
            if screen.contains(text) {
                std::thread::sleep(Duration::from_millis(50));
                if self.screen() == screen || Instant::now() >= deadline {
                    return screen;
                }
                continue;
            }
            assert!(
                Instant::now() < deadline,
                "the screen never showed {text:?}; it shows:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

fn tmux_available() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The screen line of a rank of the tafl board (` 3  .  .  .  X …`).
fn rank_line(screen: &str, rank: u8) -> String {
    let label = format!("{rank:>3} ");
    screen
        .lines()
        .find(|l| l.starts_with(&label))
        .unwrap_or_else(|| panic!("no rank {rank} on the screen:\n{screen}"))
        .chars()
        .take(4 + 3 * 11)
        .collect()
}

#[test]
fn full_screen_game_in_80x24_takes_typed_and_arrow_key_moves() {
    let Some(tmux) = Tmux::start("full_screen_game_in_80x24…", "fetlar", 80, 24) else {
        return;
    };

    let start = tmux.wait_for("attackers to move");
    assert!(start.contains(" Kingstable · fetlar"), "{start}");
    // The legend says what the letters and colours mean.
    assert!(start.contains("X attacker  O defender  K king"), "{start}");
    assert!(start.contains("last move"), "{start}");
    assert_eq!(
        rank_line(&start, 1),
        "  1  +  .  .  X  X  X  X  X  .  .  + "
    );
    assert_eq!(
        rank_line(&start, 3),
        "  3  .  .  .  .  .  .  .  .  .  .  . "
    );
    // The cursor starts on the throne, where the king stands.
    assert!(rank_line(&start, 6).contains("[K]"), "{start}");

    // A typed move.
    tmux.keys(&["d1-d3", "Enter"]);
    let after = tmux.wait_for("Last: d1-d3");
    assert_eq!(
        rank_line(&after, 1),
        "  1  +  .  .  .  X  X  X  X  .  .  + "
    );
    assert_eq!(
        rank_line(&after, 3),
        "  3  .  .  .  X  .  .  .  .  .  .  . "
    );
    assert!(after.contains("defenders to move"), "{after}");

    // An illegal one is explained and changes nothing.
    tmux.keys(&["e5-e1", "Enter"]);
    let refused = tmux.wait_for("is illegal");
    assert!(
        refused.contains("e5-e1 is illegal: the way is blocked at e1"),
        "{refused}"
    );
    assert_eq!(rank_line(&refused, 5), rank_line(&after, 5));

    // The arrow keys: from the throne down to f5 and left to e5, select it; its
    // destinations are marked; down twice to e3 and play there.
    tmux.keys(&["Down", "Left", "Enter"]);
    let selected = tmux.wait_for("e5 selected");
    assert!(rank_line(&selected, 4).contains(" · "), "{selected}");
    tmux.keys(&["Down", "Down", "Enter"]);
    let moved = tmux.wait_for("Last: e5-e3");
    assert_eq!(
        rank_line(&moved, 3),
        "  3  .  .  .  X [O] .  .  .  .  .  . "
    );
    assert!(
        rank_line(&moved, 5).starts_with("  5  X  .  .  .  .  O"),
        "{moved}"
    );

    // Undo takes the move back.
    tmux.keys(&["C-u"]);
    let undone = tmux.wait_for("Took back 1 move");
    assert!(undone.contains("Last: d1-d3"), "{undone}");

    // Quitting an unsaved game warns first; a second Ctrl-C leaves and gives the
    // terminal back.
    tmux.keys(&["C-c"]);
    tmux.wait_for("The game is not saved");
    tmux.keys(&["C-c"]);
    let deadline = Instant::now() + Duration::from_secs(10);
    while tmux.run(&["has-session", "-t", "play"]).status.success() {
        assert!(
            Instant::now() < deadline,
            "kingstable play did not quit on Ctrl-C"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_terminal_too_small_for_the_board_says_the_size_it_needs() {
    let Some(tmux) = Tmux::start("a_terminal_too_small…", "camelot", 60, 18) else {
        return;
    };
    let small = tmux.wait_for("needs a terminal");
    // The message is wrapped to the width: read it as one line.
    let words = small.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains("The camelot board needs a terminal of at least 75x22; this one is 60x18."),
        "{small}"
    );
    assert!(small.contains("--plain"), "{small}");
    // Made big enough, the board appears.
    let out = tmux.run(&["resize-window", "-t", "play", "-x", "80", "-y", "24"]);
    assert!(out.status.success(), "tmux resize-window failed: {out:?}");
    let board = tmux.wait_for("white to move");
    assert!(board.contains("N/M white knight/man"), "{board}");
    assert!(!board.contains("needs a terminal"), "{board}");
}
