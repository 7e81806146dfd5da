//! The text of every message the server mails: plain text, short lines, each with the
//! link that acts on it and a line saying why it came; in the recipient's language
//! (English, Italian or French: the language their browser last told the server,
//! `PUT /api/account/language`), with plural forms from the Unicode plural rules.

use std::time::Duration;

use game::GameKind;
use intl_pluralrules::{PluralCategory, PluralRuleType, PluralRules};
use unic_langid::LanguageIdentifier;

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

/// The languages mail is written in (those of the web app).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Lang {
    /// English (also for an account whose language is not known).
    #[default]
    En,
    /// Italian.
    It,
    /// French.
    Fr,
}

impl Lang {
    /// Every language, with its code.
    pub const ALL: [(Lang, &'static str); 3] =
        [(Lang::En, "en"), (Lang::It, "it"), (Lang::Fr, "fr")];

    /// The language of this code (`en`, `it`, `fr`), if it is one of ours.
    #[must_use]
    pub fn from_code(code: &str) -> Option<Lang> {
        Lang::ALL.iter().find(|(_, c)| *c == code).map(|(l, _)| *l)
    }

    /// The language stored for an account (English when none, or not one of ours).
    #[must_use]
    pub fn of_stored(code: Option<&str>) -> Lang {
        code.and_then(Lang::from_code).unwrap_or_default()
    }

    fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::It => "it",
            Lang::Fr => "fr",
        }
    }

    /// English, Italian or French, as this language says.
    fn pick<'a>(self, en: &'a str, it: &'a str, fr: &'a str) -> &'a str {
        match self {
            Lang::En => en,
            Lang::It => it,
            Lang::Fr => fr,
        }
    }

    /// Whether `n` takes the singular ("one") form in this language (French: 0 and 1).
    fn is_one(self, n: u64) -> bool {
        let rules = self
            .code()
            .parse::<LanguageIdentifier>()
            .ok()
            .and_then(|id| PluralRules::create(id, PluralRuleType::CARDINAL).ok());
        match rules {
            Some(rules) => rules.select(n) == Ok(PluralCategory::ONE),
            None => n == 1,
        }
    }

    /// `n` and the unit's singular or plural form.
    fn count(self, n: u64, one: &str, other: &str) -> String {
        format!("{n} {}", if self.is_one(n) { one } else { other })
    }
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
/// `less than a minute`), in `lang`.
#[must_use]
pub fn time_left(lang: Lang, left: Duration) -> String {
    let minutes = left.as_secs() / 60;
    let (days, hours, mins) = (minutes / 1440, minutes / 60 % 24, minutes % 60);
    let day = |n| {
        lang.count(
            n,
            lang.pick("day", "giorno", "jour"),
            lang.pick("days", "giorni", "jours"),
        )
    };
    let hour = |n| {
        lang.count(
            n,
            lang.pick("hour", "ora", "heure"),
            lang.pick("hours", "ore", "heures"),
        )
    };
    let minute = |n| {
        lang.count(
            n,
            lang.pick("minute", "minuto", "minute"),
            lang.pick("minutes", "minuti", "minutes"),
        )
    };
    match (days, hours, mins) {
        (0, 0, 0) => lang
            .pick(
                "less than a minute",
                "meno di un minuto",
                "moins d’une minute",
            )
            .to_owned(),
        (0, 0, m) => minute(m),
        (0, h, m) => format!("{} {}", hour(h), minute(m)),
        (d, h, _) => format!("{} {}", day(d), hour(h)),
    }
}

fn footer(lang: Lang, base: &str, why: &str) -> String {
    let settings = lang.pick(
        "Your mail settings",
        "Le tue impostazioni di posta",
        "Vos réglages de courrier",
    );
    format!("\n-- \nKingstable, {base}/\n{why}\n{settings}: {base}/settings\n")
}

fn hello(lang: Lang, username: &str) -> String {
    format!("{} {username},", lang.pick("Hello", "Ciao", "Bonjour"))
}

/// The link that confirms an address.
#[must_use]
pub fn confirm(lang: Lang, base: &str, username: &str, token: &str, valid_for: Duration) -> Text {
    let within = time_left(lang, valid_for);
    let link = format!("{base}/confirm?token={token}");
    let body = match lang {
        Lang::En => format!(
            "To receive mail from Kingstable at this address, open this link within \
             {within}:\n\n{link}\n\nIf you did not ask for this, ignore this message: nothing \
             changes."
        ),
        Lang::It => format!(
            "Per ricevere la posta di Kingstable a questo indirizzo, apri questo link entro \
             {within}:\n\n{link}\n\nSe non l’hai chiesto tu, ignora questo messaggio: non cambia \
             nulla."
        ),
        Lang::Fr => format!(
            "Pour recevoir le courrier de Kingstable à cette adresse, ouvrez ce lien d’ici \
             {within} :\n\n{link}\n\nSi vous ne l’avez pas demandé, ignorez ce message : rien ne \
             change."
        ),
    };
    let why = lang.pick(
        "You get this because someone gave this address for the account above.",
        "Ricevi questo messaggio perché qualcuno ha indicato questo indirizzo per l’account qui sopra.",
        "Vous recevez ce message parce que quelqu’un a donné cette adresse pour le compte ci-dessus.",
    );
    Text {
        subject: lang
            .pick(
                "Confirm your e-mail address for Kingstable",
                "Conferma il tuo indirizzo e-mail per Kingstable",
                "Confirmez votre adresse e-mail pour Kingstable",
            )
            .into(),
        body: format!(
            "{}\n\n{body}\n{}",
            hello(lang, username),
            footer(lang, base, why)
        ),
    }
}

/// The link that sets a new password.
#[must_use]
pub fn reset(lang: Lang, base: &str, username: &str, token: &str, valid_for: Duration) -> Text {
    let within = time_left(lang, valid_for);
    let link = format!("{base}/reset?token={token}");
    let body = match lang {
        Lang::En => format!(
            "Someone (we hope you) asked to set a new password for your account. Open this \
             link within {within} to choose one; it works once:\n\n{link}\n\nSetting a new \
             password signs you out everywhere else. If you did not ask for this, ignore this \
             message: your password stays as it is."
        ),
        Lang::It => format!(
            "Qualcuno (speriamo tu) ha chiesto una nuova password per il tuo account. Apri \
             questo link entro {within} per sceglierla; funziona una sola volta:\n\n{link}\n\n\
             Con la nuova password esci da tutti gli altri dispositivi. Se non l’hai chiesto tu, \
             ignora questo messaggio: la password resta quella di prima."
        ),
        Lang::Fr => format!(
            "Quelqu’un (vous, nous l’espérons) a demandé un nouveau mot de passe pour votre \
             compte. Ouvrez ce lien d’ici {within} pour le choisir ; il ne sert qu’une \
             fois :\n\n{link}\n\nUn nouveau mot de passe vous déconnecte partout ailleurs. Si \
             vous ne l’avez pas demandé, ignorez ce message : votre mot de passe reste le même."
        ),
    };
    let why = lang.pick(
        "You get this because this is the confirmed address of the account above.",
        "Ricevi questo messaggio perché è l’indirizzo confermato dell’account qui sopra.",
        "Vous recevez ce message parce que c’est l’adresse confirmée du compte ci-dessus.",
    );
    Text {
        subject: lang
            .pick(
                "Set a new Kingstable password",
                "Scegli una nuova password per Kingstable",
                "Choisissez un nouveau mot de passe Kingstable",
            )
            .into(),
        body: format!(
            "{}\n\n{body}\n{}",
            hello(lang, username),
            footer(lang, base, why)
        ),
    }
}

/// The daily list of correspondence games waiting for a move.
#[must_use]
pub fn digest(lang: Lang, base: &str, username: &str, games: &[WaitingGame]) -> Text {
    let count = games.len() as u64;
    let one = lang.is_one(count);
    let head = match (lang, one) {
        (Lang::En, true) => "One correspondence game is waiting for your move:".to_owned(),
        (Lang::En, false) => format!("{count} correspondence games are waiting for your move:"),
        (Lang::It, true) => "Una partita per corrispondenza aspetta la tua mossa:".to_owned(),
        (Lang::It, false) => format!("{count} partite per corrispondenza aspettano la tua mossa:"),
        (Lang::Fr, true) => "Une partie par correspondance attend votre coup :".to_owned(),
        (Lang::Fr, false) => {
            format!("{count} parties par correspondance attendent votre coup :")
        }
    };
    let mut body = format!("{}\n\n{head}\n\n", hello(lang, username));
    for game in games {
        let line = match lang {
            Lang::En => format!(
                "{} against {}: {} left",
                game_name(game.kind),
                game.opponent,
                time_left(lang, game.left)
            ),
            Lang::It => format!(
                "{} contro {}: mancano {}",
                game_name(game.kind),
                game.opponent,
                time_left(lang, game.left)
            ),
            Lang::Fr => format!(
                "{} contre {} : il reste {}",
                game_name(game.kind),
                game.opponent,
                time_left(lang, game.left)
            ),
        };
        body.push_str(&format!("- {line}\n  {base}/game/{}\n", game.id));
    }
    body.push_str(&footer(
        lang,
        base,
        lang.pick(
            "You get this at most once a day, when a game waits for you; turn it off in your settings.",
            "Lo ricevi al massimo una volta al giorno, quando una partita ti aspetta; puoi disattivarlo nelle impostazioni.",
            "Vous le recevez au plus une fois par jour, quand une partie vous attend ; désactivez-le dans vos réglages.",
        ),
    ));
    let subject = match (lang, one) {
        (Lang::En, true) => "Kingstable: a game waits for your move".to_owned(),
        (Lang::En, false) => format!("Kingstable: {count} games wait for your move"),
        (Lang::It, true) => "Kingstable: una partita aspetta la tua mossa".to_owned(),
        (Lang::It, false) => format!("Kingstable: {count} partite aspettano la tua mossa"),
        (Lang::Fr, true) => "Kingstable : une partie attend votre coup".to_owned(),
        (Lang::Fr, false) => format!("Kingstable : {count} parties attendent votre coup"),
    };
    Text { subject, body }
}

/// The warning that a correspondence clock runs low.
#[must_use]
pub fn clock_warning(lang: Lang, base: &str, username: &str, game: &WaitingGame) -> Text {
    let left = time_left(lang, game.left);
    let (name, opponent, id) = (game_name(game.kind), &game.opponent, &game.id);
    let (subject, body) = match lang {
        Lang::En => (
            format!("Kingstable: {left} left for your move against {opponent}"),
            format!(
                "Your clock in the {name} game against {opponent} is running low: {left} left \
                 for your move. When it runs out, the game is lost on time."
            ),
        ),
        Lang::It => (
            format!("Kingstable: mancano {left} per la tua mossa contro {opponent}"),
            format!(
                "Il tuo orologio nella partita di {name} contro {opponent} sta per scadere: \
                 mancano {left} per la tua mossa. Allo scadere, la partita è persa per tempo."
            ),
        ),
        Lang::Fr => (
            format!("Kingstable : il reste {left} pour votre coup contre {opponent}"),
            format!(
                "Votre pendule dans la partie de {name} contre {opponent} arrive à sa fin : il \
                 reste {left} pour votre coup. Quand elle tombe, la partie est perdue au temps."
            ),
        ),
    };
    let why = lang.pick(
        "You get this once per move, when less than a quarter of the time is left; turn it off in your settings.",
        "Lo ricevi una volta per mossa, quando resta meno di un quarto del tempo; puoi disattivarlo nelle impostazioni.",
        "Vous le recevez une fois par coup, quand il reste moins d’un quart du temps ; désactivez-le dans vos réglages.",
    );
    Text {
        subject,
        body: format!(
            "{}\n\n{body}\n\n{base}/game/{id}\n{}",
            hello(lang, username),
            footer(lang, base, why)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_left_read_as_people_say_them() {
        let en = Lang::En;
        assert_eq!(time_left(en, Duration::from_secs(30)), "less than a minute");
        assert_eq!(time_left(en, Duration::from_secs(60)), "1 minute");
        assert_eq!(
            time_left(en, Duration::from_secs(3 * 3600 + 61)),
            "3 hours 1 minute"
        );
        assert_eq!(
            time_left(en, Duration::from_secs(2 * 86_400 + 3600 + 59)),
            "2 days 1 hour"
        );
        assert_eq!(
            time_left(Lang::It, Duration::from_secs(86_400 + 2 * 3600)),
            "1 giorno 2 ore"
        );
        assert_eq!(
            time_left(Lang::Fr, Duration::from_secs(2 * 86_400)),
            "2 jours 0 heure",
            "French: 0 takes the singular"
        );
        assert_eq!(time_left(Lang::Fr, Duration::from_secs(120)), "2 minutes");
    }

    #[test]
    fn a_language_is_one_of_ours_or_english() {
        assert_eq!(Lang::from_code("it"), Some(Lang::It));
        assert_eq!(Lang::from_code("de"), None);
        assert_eq!(Lang::of_stored(Some("fr")), Lang::Fr);
        assert_eq!(Lang::of_stored(Some("xx")), Lang::En);
        assert_eq!(Lang::of_stored(None), Lang::En);
    }

    fn games() -> [WaitingGame; 2] {
        [
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
        ]
    }

    #[test]
    fn a_digest_lists_each_game_with_its_link() {
        let text = digest(Lang::En, "https://tafl.example.org", "ragnar", &games());
        assert_eq!(text.subject, "Kingstable: 2 games wait for your move");
        assert!(
            text.body
                .contains("Copenhagen Hnefatafl against bjorn: 1 day 2 hours left")
        );
        assert!(text.body.contains("https://tafl.example.org/game/xyz98765"));
        assert!(text.body.is_ascii());
    }

    #[test]
    fn every_message_is_in_the_recipients_language() {
        let base = "https://tafl.example.org";
        let it = digest(Lang::It, base, "ragnar", &games());
        assert_eq!(it.subject, "Kingstable: 2 partite aspettano la tua mossa");
        assert!(it.body.starts_with("Ciao ragnar,"), "{}", it.body);
        assert!(
            it.body.contains("contro bjorn: mancano 1 giorno 2 ore"),
            "{}",
            it.body
        );
        let fr = digest(Lang::Fr, base, "ragnar", &games()[..1]);
        assert_eq!(fr.subject, "Kingstable : une partie attend votre coup");
        assert!(fr.body.contains("Vos réglages de courrier"), "{}", fr.body);
        let week = Duration::from_secs(7 * 86_400);
        for lang in [Lang::En, Lang::It, Lang::Fr] {
            let confirm = confirm(lang, base, "ragnar", "TOKEN", week);
            assert!(confirm.body.contains("/confirm?token=TOKEN"));
            let reset = reset(lang, base, "ragnar", "TOKEN", week);
            assert!(reset.body.contains("/reset?token=TOKEN"));
            let warning = clock_warning(lang, base, "ragnar", &games()[0]);
            assert!(warning.body.contains("/game/abc12345"));
            assert!(warning.subject.contains("bjorn"));
        }
        assert!(
            reset(Lang::Fr, base, "r", "T", week)
                .subject
                .contains("mot de passe")
        );
        assert!(
            clock_warning(Lang::It, base, "r", &games()[0])
                .body
                .contains("persa per tempo")
        );
    }
}
