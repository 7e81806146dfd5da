//! The SMTP server's address: `smtp://HOST:PORT` (plain, for a mail server on the same
//! machine or network), `smtp://HOST:PORT?tls=required` (STARTTLS, refused without it),
//! `smtp://HOST:PORT?tls=opportunistic` (STARTTLS when offered), `smtps://HOST:PORT`
//! (TLS from the start). A user and password may be given in the URL
//! (`smtp://user:pass@host`, percent-encoded) or apart ([`SmtpUrl::with_credentials`]).

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use lettre::transport::smtp::authentication::Credentials;
use lettre::{AsyncSmtpTransport, Tokio1Executor};

/// A checked SMTP address. Shown (`Display`, `Debug`) with the password as `***`.
#[derive(Clone, PartialEq, Eq)]
pub struct SmtpUrl {
    /// The URL without user and password.
    url: url::Url,
    user: Option<String>,
    password: Option<String>,
}

/// Why an SMTP address is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SmtpUrlError {
    /// Not a URL.
    #[error("not a URL ({0}); write smtp://HOST:PORT or smtps://HOST:PORT")]
    Syntax(String),
    /// A scheme other than `smtp` and `smtps`.
    #[error("unsupported scheme `{0}:` (use smtp:// or smtps://)")]
    Scheme(String),
    /// No host.
    #[error("the SMTP URL names no host")]
    NoHost,
    /// A query other than `tls=required` or `tls=opportunistic` on `smtp://`.
    #[error(
        "unknown option `{0}` (smtp:// takes `?tls=required` or `?tls=opportunistic`; smtps:// none)"
    )]
    Option(String),
    /// A user or password that is not valid UTF-8 once decoded.
    #[error("the user or password in the SMTP URL is not valid UTF-8 once decoded")]
    Credentials,
    /// A user without a password, or a password without a user.
    #[error("give both an SMTP user and a password, or neither")]
    HalfCredentials,
}

impl SmtpUrl {
    /// The same server with this user and password (replacing any in the URL).
    ///
    /// # Errors
    /// [`SmtpUrlError::HalfCredentials`] when only one of them is given.
    pub fn with_credentials(
        mut self,
        user: Option<String>,
        password: Option<String>,
    ) -> Result<SmtpUrl, SmtpUrlError> {
        if user.is_some() || password.is_some() {
            self.user = user.or(self.user);
            self.password = password.or(self.password);
        }
        if self.user.is_some() != self.password.is_some() {
            return Err(SmtpUrlError::HalfCredentials);
        }
        Ok(self)
    }

    /// Whether the connection is encrypted (from the start, or by required STARTTLS).
    #[must_use]
    pub fn is_encrypted(&self) -> bool {
        self.url.scheme() == "smtps" || self.url.query() == Some("tls=required")
    }

    /// A lettre transport for this server.
    ///
    /// # Errors
    /// When lettre refuses the URL or cannot set up TLS.
    pub fn transport(
        &self,
        timeout: Duration,
    ) -> Result<AsyncSmtpTransport<Tokio1Executor>, lettre::transport::smtp::Error> {
        let mut builder = AsyncSmtpTransport::<Tokio1Executor>::from_url(self.url.as_str())?
            .timeout(Some(timeout));
        if let (Some(user), Some(password)) = (&self.user, &self.password) {
            builder = builder.credentials(Credentials::new(user.clone(), password.clone()));
        }
        Ok(builder.build())
    }
}

impl FromStr for SmtpUrl {
    type Err = SmtpUrlError;

    fn from_str(text: &str) -> Result<SmtpUrl, SmtpUrlError> {
        let mut url =
            url::Url::parse(text.trim()).map_err(|e| SmtpUrlError::Syntax(e.to_string()))?;
        let scheme = url.scheme().to_owned();
        if scheme != "smtp" && scheme != "smtps" {
            return Err(SmtpUrlError::Scheme(scheme));
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err(SmtpUrlError::NoHost);
        }
        if let Some(query) = url.query() {
            let allowed = scheme == "smtp" && matches!(query, "tls=required" | "tls=opportunistic");
            if !allowed {
                return Err(SmtpUrlError::Option(query.to_owned()));
            }
        }
        let decode = |s: &str| {
            percent_encoding::percent_decode_str(s)
                .decode_utf8()
                .map(std::borrow::Cow::into_owned)
                .map_err(|_| SmtpUrlError::Credentials)
        };
        let user = (!url.username().is_empty())
            .then(|| decode(url.username()))
            .transpose()?;
        let password = url.password().map(decode).transpose()?;
        // Kept apart, so the URL can be shown and handed to lettre without them.
        let _ = url.set_username("");
        let _ = url.set_password(None);
        SmtpUrl {
            url,
            user: None,
            password: None,
        }
        .with_credentials(user, password)
    }
}

impl fmt::Display for SmtpUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut shown = self.url.clone();
        if let Some(user) = &self.user {
            let _ = shown.set_username(user);
            let _ = shown.set_password(Some("***"));
        }
        f.write_str(shown.as_str())
    }
}

impl fmt::Debug for SmtpUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SmtpUrl({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smtp_urls_are_checked_and_shown_without_the_password() {
        let plain: SmtpUrl = "smtp://127.0.0.1:2525".parse().unwrap();
        assert_eq!(plain.to_string(), "smtp://127.0.0.1:2525");
        assert!(!plain.is_encrypted());
        let secret: SmtpUrl = "smtps://kt:s3cr%40t@mail.example.org:465".parse().unwrap();
        assert!(secret.is_encrypted());
        assert_eq!(secret.password.as_deref(), Some("s3cr@t"));
        assert_eq!(secret.to_string(), "smtps://kt:***@mail.example.org:465");
        assert!(!format!("{secret:?}").contains("s3cr"));
        let starttls: SmtpUrl = "smtp://mail.example.org:587?tls=required".parse().unwrap();
        assert!(starttls.is_encrypted());
        for (bad, why) in [
            ("mail.example.org", "URL"),
            ("http://mail.example.org", "scheme"),
            ("smtp://mail.example.org?tls=maybe", "option"),
            ("smtps://mail.example.org?tls=required", "option"),
            ("smtp://user@mail.example.org", "both"),
        ] {
            let error = bad.parse::<SmtpUrl>().unwrap_err().to_string();
            assert!(error.contains(why), "{bad}: {error}");
        }
        let apart = plain
            .clone()
            .with_credentials(Some("kt".into()), Some("pw".into()))
            .unwrap();
        assert_eq!(apart.to_string(), "smtp://kt:***@127.0.0.1:2525");
        assert!(plain.with_credentials(None, Some("pw".into())).is_err());
    }

    #[tokio::test]
    async fn lettre_takes_every_accepted_form() {
        for url in [
            "smtp://127.0.0.1:2525",
            "smtp://u:p@127.0.0.1:2525?tls=opportunistic",
            "smtp://mail.example.org:587?tls=required",
            "smtps://mail.example.org",
        ] {
            let smtp: SmtpUrl = url.parse().unwrap();
            assert!(smtp.transport(Duration::from_secs(1)).is_ok(), "{url}");
        }
    }
}
