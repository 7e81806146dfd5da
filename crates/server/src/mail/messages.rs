//! The text of every message the server mails: plain text, in English, short lines,
//! each with the link that acts on it and a line saying why it came.

use std::time::Duration;

use game::GameKind;

/// A correspondence game waiting for the recipient's move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WaitingGame {
    /// The game's id.
    pub id: String,
    /// Which game.
    pub kind: GameKind,
    /// The opponent's name.
    pub opponent: String,
    /// The recipient's time left for this move.
    pub left: Duration,
}

/// A subject and a text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Text {
    /// The subject line.
    pub subject: String,
    /// The body.
    pub body: String,
}

/// The game's name as players call it.
fn game_name(kind: GameKind) -> &'static str {
    match kind {
        GameKind::Fetlar => "Fetlar Hnefatafl",
        GameKind::Copenhagen => "Copenhagen Hnefatafl",
        GameKind::Camelot => "Camelot",
    }
}

/// `2 days 3 hours`, `5 hours 10 minutes`, `12 minutes` (rounded down; under a minute:
/// `less than a minute`).
#[must_use]
pub fn time_left(left: Duration) -> String {
    let minutes = left.as_secs() / 60;
    let (days, hours, mins) = (minutes / 1440, minutes / 60 % 24, minutes % 60);
    let unit = |n: u64, one: &str| {
        if n == 1 {
            format!("1 {one}")
        } else {
            format!("{n} {one}s")
        }
    };
    match (days, hours, mins) {
        (0, 0, 0) => "less than a minute".to_owned(),
        (0, 0, m) => unit(m, "minute"),
        (0, h, m) => format!("{} {}", unit(h, "hour"), unit(m, "minute")),
        (d, h, _) => format!("{} {}", unit(d, "day"), unit(h, "hour")),
    }
}

fn footer(base: &str, why: &str) -> String {
    format!("\n-- \nKingstable, {base}/\n{why}\nYour mail settings: {base}/settings\n",)
}

/// The link that confirms an address.
#[must_use]
pub fn confirm(base: &str, username: &str, token: &str, valid_for: Duration) -> Text {
    Text {
        subject: "Confirm your e-mail address for Kingstable".into(),
        body: format!(
            "Hello {username},\n\nTo receive mail from Kingstable at this address, open this \
             link within {}:\n\n{base}/confirm?token={token}\n\nIf you did not ask for this, \
             ignore this message: nothing changes.\n{}",
            time_left(valid_for),
            footer(
                base,
                "You get this because someone gave this address for the account above."
            ),
        ),
    }
}

/// The link that sets a new password.
#[must_use]
pub fn reset(base: &str, username: &str, token: &str, valid_for: Duration) -> Text {
    Text {
        subject: "Set a new Kingstable password".into(),
        body: format!(
            "Hello {username},\n\nSomeone (we hope you) asked to set a new password for your \
             account. Open this link within {} to choose one; it works once:\n\n\
             {base}/reset?token={token}\n\nSetting a new password signs you out everywhere \
             else. If you did not ask for this, ignore this message: your password stays as \
             it is.\n{}",
            time_left(valid_for),
            footer(
                base,
                "You get this because this is the confirmed address of the account above."
            ),
        ),
    }
}

/// The daily list of correspondence games waiting for a move.
#[must_use]
pub fn digest(base: &str, username: &str, games: &[WaitingGame]) -> Text {
    let count = games.len();
    let mut body = format!(
        "Hello {username},\n\n{} waiting for your move:\n\n",
        if count == 1 {
            "One correspondence game is".to_owned()
        } else {
            format!("{count} correspondence games are")
        }
    );
    for game in games {
        body.push_str(&format!(
            "- {} against {}: {} left\n  {base}/game/{}\n",
            game_name(game.kind),
            game.opponent,
            time_left(game.left),
            game.id
        ));
    }
    body.push_str(&footer(
        base,
        "You get this at most once a day, when a game waits for you; turn it off in your settings.",
    ));
    Text {
        subject: if count == 1 {
            "Kingstable: a game waits for your move".into()
        } else {
            format!("Kingstable: {count} games wait for your move")
        },
        body,
    }
}

/// The warning that a correspondence clock runs low.
#[must_use]
pub fn clock_warning(base: &str, username: &str, game: &WaitingGame) -> Text {
    Text {
        subject: format!(
            "Kingstable: {} left for your move against {}",
            time_left(game.left),
            game.opponent
        ),
        body: format!(
            "Hello {username},\n\nYour clock in the {} game against {} is running low: {} \
             left for your move. When it runs out, the game is lost on time.\n\n\
             {base}/game/{}\n{}",
            game_name(game.kind),
            game.opponent,
            time_left(game.left),
            game.id,
            footer(
                base,
                "You get this once per move, when less than a quarter of the time is left; \
                 turn it off in your settings."
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_left_read_as_people_say_them() {
        assert_eq!(time_left(Duration::from_secs(30)), "less than a minute");
        assert_eq!(time_left(Duration::from_secs(60)), "1 minute");
        assert_eq!(
            time_left(Duration::from_secs(3 * 3600 + 61)),
            "3 hours 1 minute"
        );
        assert_eq!(
            time_left(Duration::from_secs(2 * 86_400 + 3600 + 59)),
            "2 days 1 hour"
        );
    }

    #[test]
    fn a_digest_lists_each_game_with_its_link() {
        let games = [
            WaitingGame {
                id: "abc12345".into(),
                kind: GameKind::Copenhagen,
                opponent: "bjorn".into(),
                left: Duration::from_secs(86_400 + 7200),
            },
            WaitingGame {
                id: "xyz98765".into(),
                kind: GameKind::Camelot,
                opponent: "Guest-K7QX2M".into(),
                left: Duration::from_secs(600),
            },
        ];
        let text = digest("https://tafl.example.org", "ragnar", &games);
        assert_eq!(text.subject, "Kingstable: 2 games wait for your move");
        assert!(
            text.body
                .contains("Copenhagen Hnefatafl against bjorn: 1 day 2 hours left")
        );
        assert!(text.body.contains("https://tafl.example.org/game/xyz98765"));
        assert!(text.body.is_ascii());
    }
}
