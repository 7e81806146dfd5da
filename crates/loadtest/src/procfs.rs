//! A process's CPU time and memory, from `/proc/PID/stat` and `/proc/PID/status`.

use std::time::Duration;

use anyhow::{Context, Result, anyhow};

/// What `/proc` says of a process at one moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Usage {
    /// User and system CPU time so far.
    pub cpu: Duration,
    /// Resident memory now, in KiB.
    pub rss_kib: u64,
    /// Peak resident memory, in KiB.
    pub peak_kib: u64,
}

/// Reads `pid`'s usage.
///
/// # Errors
/// When the process is gone or `/proc` cannot be read.
pub fn usage(pid: u32) -> Result<Usage> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .with_context(|| format!("reading /proc/{pid}/stat (is the server running?)"))?;
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .with_context(|| format!("reading /proc/{pid}/status"))?;
    let ticks = cpu_ticks(&stat)?;
    let per_second = clock_ticks_per_second();
    Ok(Usage {
        cpu: Duration::from_secs_f64(ticks as f64 / per_second as f64),
        rss_kib: status_kib(&status, "VmRSS:").unwrap_or(0),
        peak_kib: status_kib(&status, "VmHWM:").unwrap_or(0),
    })
}

/// utime + stime (fields 14 and 15) of a `/proc/PID/stat` line, in clock ticks. The
/// command name (field 2) may hold spaces and parentheses: fields are counted after its
/// last `)`.
fn cpu_ticks(stat: &str) -> Result<u64> {
    let after = stat
        .rfind(')')
        .map(|i| &stat[i + 1..])
        .ok_or_else(|| anyhow!("unexpected /proc stat line"))?;
    let fields: Vec<&str> = after.split_whitespace().collect();
    // `after` starts at field 3 (state): utime is field 14, stime 15.
    let field = |n: usize| -> Result<u64> {
        fields
            .get(n - 3)
            .ok_or_else(|| anyhow!("short /proc stat line"))?
            .parse()
            .context("a /proc stat field")
    };
    Ok(field(14)? + field(15)?)
}

fn status_kib(status: &str, key: &str) -> Option<u64> {
    status
        .lines()
        .find_map(|line| line.strip_prefix(key))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
}

/// The kernel's clock ticks per second (`AT_CLKTCK` of this process's auxiliary
/// vector), 100 when it cannot be read.
fn clock_ticks_per_second() -> u64 {
    const AT_CLKTCK: u64 = 17;
    let Ok(auxv) = std::fs::read("/proc/self/auxv") else {
        return 100;
    };
    auxv.chunks_exact(16)
        .find_map(|pair| {
            let key = u64::from_ne_bytes(pair[..8].try_into().ok()?);
            let value = u64::from_ne_bytes(pair[8..].try_into().ok()?);
            (key == AT_CLKTCK && value > 0).then_some(value)
        })
        .unwrap_or(100)
}

/// Waits until `pid` has settled: no more than [`SETTLED_CPU`] of CPU over the last
/// `quiet`, so that the work a server does once at start (compressing its web files,
/// migrating its database) is not counted against the moves measured after it. Gives
/// up after `limit` (a server busy on its own is measured as it is). Returns the CPU
/// time the process had used when it settled, and whether it did.
///
/// # Errors
/// When the process is gone or `/proc` cannot be read.
pub async fn settle(pid: u32, quiet: Duration, limit: Duration) -> Result<(Duration, bool)> {
    const STEP: Duration = Duration::from_millis(100);
    let started = std::time::Instant::now();
    let mut samples = std::collections::VecDeque::from([usage(pid)?.cpu]);
    let window = (quiet.as_millis() / STEP.as_millis()).max(1) as usize;
    loop {
        tokio::time::sleep(STEP).await;
        let now = usage(pid)?.cpu;
        samples.push_back(now);
        if samples.len() > window + 1 {
            samples.pop_front();
        }
        if samples.len() == window + 1
            && samples
                .front()
                .is_some_and(|&first| now - first <= SETTLED_CPU)
        {
            return Ok((now, true));
        }
        if started.elapsed() >= limit {
            return Ok((now, false));
        }
    }
}

/// The CPU a settled process may still use over the quiet time (one clock tick).
pub const SETTLED_CPU: Duration = Duration::from_millis(10);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_cpu_ticks_past_a_name_with_spaces() {
        let stat = "4242 (kings table) S 1 2 3 4 5 6 7 8 9 10 250 50 0 0 20 0 9 0";
        assert_eq!(cpu_ticks(stat).unwrap(), 300);
        assert!(cpu_ticks("garbage").is_err());
    }

    #[test]
    fn reads_memory_lines() {
        let status = "Name:\tk\nVmHWM:\t  2048 kB\nVmRSS:\t  1024 kB\n";
        assert_eq!(status_kib(status, "VmRSS:"), Some(1024));
        assert_eq!(status_kib(status, "VmHWM:"), Some(2048));
        assert_eq!(status_kib(status, "VmSwap:"), None);
    }

    #[test]
    fn reads_this_process() {
        let me = usage(std::process::id()).unwrap();
        assert!(me.rss_kib > 0 && me.peak_kib >= me.rss_kib);
        assert!((10..=10_000).contains(&clock_ticks_per_second()));
    }

    #[tokio::test]
    async fn waits_for_a_busy_process_to_settle() {
        // A shell that spins (about half a second of CPU here), then sleeps: it settles
        // once its spinning is over, not before.
        let mut child = std::process::Command::new("bash")
            .args(["-c", "for ((i = 0; i < 400000; i++)); do :; done; sleep 30"])
            .spawn()
            .unwrap();
        let started = std::time::Instant::now();
        let (cpu, settled) = settle(
            child.id(),
            Duration::from_millis(300),
            Duration::from_secs(20),
        )
        .await
        .unwrap();
        assert!(settled);
        assert!(started.elapsed() >= Duration::from_millis(300));
        assert!(cpu >= Duration::from_millis(100), "{cpu:?}");
        let after = usage(child.id()).unwrap().cpu;
        assert!(
            after.saturating_sub(cpu) <= SETTLED_CPU * 2,
            "{cpu:?} then {after:?}"
        );
        // One that never stops spinning is given up on at the limit.
        child.kill().unwrap();
        child.wait().unwrap();
        let mut spinner = std::process::Command::new("sh")
            .args(["-c", "while :; do :; done"])
            .spawn()
            .unwrap();
        let (_, settled) = settle(
            spinner.id(),
            Duration::from_millis(300),
            Duration::from_secs(1),
        )
        .await
        .unwrap();
        assert!(!settled);
        spinner.kill().unwrap();
        spinner.wait().unwrap();
        // A process that is gone is an error, not a wait.
        assert!(
            settle(
                spinner.id(),
                Duration::from_millis(300),
                Duration::from_secs(1)
            )
            .await
            .is_err()
        );
    }
}
