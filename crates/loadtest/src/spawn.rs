//! Starting the server under test: `kingstable serve` on 127.0.0.1 (a port the system
//! picks) with a fresh SQLite file in a temporary directory, trusting `X-Forwarded-For`
//! so that the generated players count as different clients (unless `--direct`).

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// A server this program started; stopped (SIGTERM) by [`Spawned::stop`].
pub struct Spawned {
    child: Child,
    /// Its process id.
    pub pid: u32,
    /// The URL it printed.
    pub url: String,
    dir: tempfile::TempDir,
}

/// Starts `binary serve` with `extra` arguments (and `--trust-proxy` if `trust_proxy`)
/// and waits for the URL it prints.
///
/// # Errors
/// When it cannot start, or exits or stays silent for 60 s before printing its URL.
pub async fn spawn(binary: &Path, extra: &[String], trust_proxy: bool) -> Result<Spawned> {
    let dir = tempfile::tempdir().context("a temporary directory for the database")?;
    let log = std::fs::File::create(dir.path().join("serve.log"))?;
    let mut child = Command::new(binary)
        .arg("serve")
        .arg("--addr")
        .arg("127.0.0.1:0")
        .arg("--database")
        .arg(dir.path().join("kingstable.db"))
        .args(trust_proxy.then_some("--trust-proxy"))
        .arg("--log")
        .arg("warn")
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(log)
        .kill_on_drop(true)
        .spawn()
        .with_context(|| format!("starting {}", binary.display()))?;
    let pid = child
        .id()
        .ok_or_else(|| anyhow!("the server exited at once"))?;
    let stdout = child.stdout.take().ok_or_else(|| anyhow!("no stdout"))?;
    let mut lines = BufReader::new(stdout).lines();
    let found = tokio::time::timeout(Duration::from_secs(60), async {
        while let Some(line) = lines.next_line().await? {
            if let Some(url) = line
                .split_whitespace()
                .find(|word| word.starts_with("http://"))
            {
                return Ok::<_, anyhow::Error>(Some(
                    url.trim_end_matches(['/', ',', '.']).to_owned(),
                ));
            }
        }
        Ok(None)
    })
    .await;
    let log_tail = || {
        std::fs::read_to_string(dir.path().join("serve.log"))
            .unwrap_or_default()
            .lines()
            .rev()
            .take(20)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect::<Vec<_>>()
            .join("\n")
    };
    let url = match found {
        Ok(Ok(Some(url))) => url,
        Ok(Ok(None) | Err(_)) => bail!(
            "the server stopped before printing its URL:\n{}",
            log_tail()
        ),
        Err(_) => bail!("the server printed no URL within 60 s:\n{}", log_tail()),
    };
    // Keep reading (and dropping) what it prints, so that it never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    Ok(Spawned {
        child,
        pid,
        url,
        dir,
    })
}

impl Spawned {
    /// Stops the server with SIGTERM and waits (30 s at most) for a clean exit.
    ///
    /// # Errors
    /// When it does not exit 0 in time (it is then killed).
    pub async fn stop(mut self) -> Result<()> {
        // SIGTERM through kill(1): the graceful stop the server implements.
        let sent = Command::new("kill")
            .arg("-TERM")
            .arg(self.pid.to_string())
            .status()
            .await;
        if !sent.is_ok_and(|s| s.success()) {
            self.child.kill().await.ok();
            bail!("could not send SIGTERM to the server (pid {})", self.pid);
        }
        match tokio::time::timeout(Duration::from_secs(30), self.child.wait()).await {
            Ok(Ok(status)) if status.success() => Ok(()),
            Ok(Ok(status)) => bail!(
                "the server exited with {status}; its log: {}",
                self.log_path()
            ),
            Ok(Err(error)) => Err(error.into()),
            Err(_) => {
                self.child.kill().await.ok();
                bail!("the server did not stop within 30 s of SIGTERM")
            }
        }
    }

    /// Where its log is (removed with the temporary directory at the end of the run).
    #[must_use]
    pub fn log_path(&self) -> String {
        self.dir.path().join("serve.log").display().to_string()
    }

    /// The last lines of its log.
    #[must_use]
    pub fn log_tail(&self, lines: usize) -> String {
        let text = std::fs::read_to_string(self.dir.path().join("serve.log")).unwrap_or_default();
        let all: Vec<&str> = text.lines().collect();
        all[all.len().saturating_sub(lines)..].join("\n")
    }
}
