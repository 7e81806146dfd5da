//! E-mail, optional: with `kingstable serve --smtp URL --mail-from ADDRESS` the server
//! sends mail through that SMTP server (`lettre`, over TLS where the URL asks for it):
//! address confirmations, password resets, a daily digest of the correspondence games
//! waiting for a player's move, and a warning when one of their correspondence clocks
//! runs low ([`reminders`]). Without it nothing is sent and the site says so.
//!
//! Nothing waits for mail: a request or the reminders put a message in a bounded queue
//! ([`Mailer::send`], which never blocks) and one worker task sends them in turn, trying
//! again with a growing pause when the SMTP server fails, and logging the message it
//! gives up on. A full queue refuses the message at once (logged), so a slow or dead
//! SMTP server can cost mail, never a game or a request.

pub mod messages;
pub mod reminders;
mod smtp;

use std::sync::Mutex;
use std::time::Duration;

use lettre::message::header::ContentType;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

pub use lettre::message::Mailbox;
pub use smtp::{SmtpUrl, SmtpUrlError};

/// The most messages waiting to be sent; more are refused (and logged) until the worker
/// catches up.
pub const QUEUE: usize = 1024;
/// Tries per message before it is given up (logged).
pub const ATTEMPTS: u32 = 4;
/// The pause after the first failed try; doubled after each.
pub const FIRST_BACKOFF: Duration = Duration::from_secs(2);
/// How long one conversation with the SMTP server may take.
pub const SMTP_TIMEOUT: Duration = Duration::from_secs(30);
/// The longest address accepted (RFC 5321's limit on a path).
pub const ADDRESS_MAX: usize = 254;

/// How the server sends mail.
#[derive(Clone, Debug)]
pub struct MailConfig {
    /// The SMTP server (`smtp://HOST:PORT`, `smtp://…?tls=required` for STARTTLS,
    /// `smtps://HOST:PORT`), with its user and password if it wants them.
    pub smtp: SmtpUrl,
    /// The sender of every message (`Kingstable <noreply@tafl.example.org>`).
    pub from: Mailbox,
    /// How often the reminders look for games waiting and clocks running low.
    pub reminder_interval: Duration,
}

impl MailConfig {
    /// Mail through `smtp` from `from`, reminders looked for every ten minutes.
    #[must_use]
    pub fn new(smtp: SmtpUrl, from: Mailbox) -> MailConfig {
        MailConfig {
            smtp,
            from,
            reminder_interval: reminders::DEFAULT_INTERVAL,
        }
    }
}

/// Checks an address a player typed: one address (`name@example.org`, no display name),
/// at most [`ADDRESS_MAX`] characters, as lettre's parser reads it.
///
/// # Errors
/// Why it is refused, in a sentence for the player.
pub fn parse_address(text: &str) -> Result<lettre::Address, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("give an e-mail address".into());
    }
    if text.chars().count() > ADDRESS_MAX {
        return Err(format!(
            "an e-mail address has at most {ADDRESS_MAX} characters"
        ));
    }
    text.parse::<lettre::Address>()
        .map_err(|e| format!("this is not an e-mail address ({e})"))
}

/// One message to send: plain text, to one recipient.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outgoing {
    /// The recipient.
    pub to: lettre::Address,
    /// The subject line.
    pub subject: String,
    /// The text.
    pub body: String,
    /// What it is, for the log (`confirm`, `reset`, `digest`, `clock_warning`).
    pub kind: &'static str,
}

/// The sending side of mail: a bounded queue to the worker. Cheap to share.
#[derive(Debug)]
pub struct Mailer {
    config: MailConfig,
    /// Where links in messages point (`https://tafl.example.org`, no trailing slash).
    base_url: String,
    queue: mpsc::Sender<Outgoing>,
    /// Taken by [`Mailer::spawn_worker`].
    waiting: Mutex<Option<mpsc::Receiver<Outgoing>>>,
}

impl Mailer {
    /// A mailer whose links start with `base_url`; nothing is sent until
    /// [`Mailer::spawn_worker`].
    #[must_use]
    pub fn new(config: MailConfig, base_url: &str) -> Mailer {
        let (queue, waiting) = mpsc::channel(QUEUE);
        Mailer {
            config,
            base_url: base_url.trim_end_matches('/').to_owned(),
            queue,
            waiting: Mutex::new(Some(waiting)),
        }
    }

    /// The settings.
    #[must_use]
    pub const fn config(&self) -> &MailConfig {
        &self.config
    }

    /// The site's address for links (no trailing slash).
    #[must_use]
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// Queues a message; never waits. False (and a log line) when the queue is full or
    /// the worker has stopped.
    pub fn send(&self, message: Outgoing) -> bool {
        let kind = message.kind;
        match self.queue.try_send(message) {
            Ok(()) => true,
            Err(mpsc::error::TrySendError::Full(_)) => {
                tracing::warn!(kind, "mail queue full: message dropped");
                false
            }
            Err(mpsc::error::TrySendError::Closed(_)) => {
                tracing::warn!(kind, "mail worker stopped: message dropped");
                false
            }
        }
    }

    /// Starts the worker that sends the queued messages, until `shutdown`. Once only:
    /// later calls return `None`.
    pub fn spawn_worker(
        &self,
        tasks: &tokio_util::task::TaskTracker,
        shutdown: CancellationToken,
    ) -> Option<tokio::task::JoinHandle<()>> {
        let receiver = self
            .waiting
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()?;
        let transport = match self.config.smtp.transport(SMTP_TIMEOUT) {
            Ok(transport) => transport,
            Err(error) => {
                // The URL was checked when read: only TLS set-up can fail here.
                tracing::error!(%error, smtp = %self.config.smtp, "cannot set up the SMTP transport: no mail will be sent");
                return None;
            }
        };
        let from = self.config.from.clone();
        Some(tasks.spawn(work(receiver, transport, from, shutdown)))
    }
}

/// Sends the queued messages one after another until `shutdown`.
async fn work(
    mut receiver: mpsc::Receiver<Outgoing>,
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
    shutdown: CancellationToken,
) {
    loop {
        let message = tokio::select! {
            () = shutdown.cancelled() => break,
            next = receiver.recv() => match next {
                Some(message) => message,
                None => break,
            },
        };
        deliver(&transport, &from, message, &shutdown).await;
    }
    let left = receiver.len();
    if left > 0 {
        tracing::warn!(messages = left, "shutting down with mail not sent");
    }
}

/// Sends one message, trying again after a growing pause while the failure may pass.
async fn deliver(
    transport: &AsyncSmtpTransport<Tokio1Executor>,
    from: &Mailbox,
    message: Outgoing,
    shutdown: &CancellationToken,
) {
    let kind = message.kind;
    let email = match Message::builder()
        .from(from.clone())
        .to(Mailbox::new(None, message.to))
        .subject(message.subject)
        .header(ContentType::TEXT_PLAIN)
        .body(message.body)
    {
        Ok(email) => email,
        Err(error) => {
            tracing::error!(kind, %error, "mail not sent: the message cannot be built");
            return;
        }
    };
    let mut pause = FIRST_BACKOFF;
    for attempt in 1..=ATTEMPTS {
        match transport.send(email.clone()).await {
            Ok(_) => {
                tracing::info!(kind, "mail sent");
                return;
            }
            Err(error) if error.is_permanent() || attempt == ATTEMPTS => {
                tracing::warn!(kind, attempt, %error, "mail not sent: giving up");
                return;
            }
            Err(error) => {
                tracing::warn!(kind, attempt, %error, retry_in_s = pause.as_secs(), "mail not sent: will try again");
            }
        }
        tokio::select! {
            () = shutdown.cancelled() => {
                tracing::warn!(kind, "mail not sent: shutting down");
                return;
            }
            () = tokio::time::sleep(pause) => {}
        }
        pause *= 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_checked_by_lettres_parser() {
        assert!(parse_address("ragnar@example.org").is_ok());
        assert!(parse_address("  Ragnar.L+tafl@mail.example.org ").is_ok());
        for bad in [
            "",
            "ragnar",
            "ragnar@",
            "@example.org",
            "Ragnar <ragnar@example.org>",
            "a@b@c",
            "ragnar@exa mple.org",
        ] {
            assert!(parse_address(bad).is_err(), "{bad:?}");
        }
        let long = format!("{}@example.org", "a".repeat(250));
        assert!(parse_address(&long).unwrap_err().contains("at most"));
    }
}
