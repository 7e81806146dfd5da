//! `kingstable serve` as a user runs it: options, the printed URL, the SQLite file it
//! creates, and a graceful stop on SIGTERM.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("kingstable-serve-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Starts `kingstable serve ARGS` in `dir`; returns the child and the URL it printed.
fn serve(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (Child, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_kingstable"));
    command
        .arg("serve")
        .args(args)
        .current_dir(dir)
        .env_remove("KINGSTABLE_DATABASE")
        .env_remove("KINGSTABLE_ADDR")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (key, value) in env {
        command.env(key, value);
    }
    let mut child = command.spawn().expect("kingstable serve starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .split_whitespace()
        .find(|word| word.starts_with("http://"))
        .unwrap_or_else(|| panic!("no URL in {line:?}"))
        .to_owned();
    (child, url)
}

/// A plain HTTP/1.1 GET; the status line and body.
fn get(url: &str, path: &str) -> (String, String) {
    request(url, "GET", path, None)
}

/// A plain HTTP/1.1 request, with a body of a content type if given; the status line and
/// body.
fn request(url: &str, method: &str, path: &str, body: Option<(&str, &str)>) -> (String, String) {
    let authority = url.trim_start_matches("http://").trim_end_matches('/');
    let mut stream = TcpStream::connect(authority).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let content = body.map_or(String::new(), |(content_type, body)| {
        format!(
            "Content-Type: {content_type}\r\nContent-Length: {}\r\n",
            body.len()
        )
    });
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {authority}\r\n{content}Connection: close\r\n\r\n{}",
        body.map_or("", |(_, body)| body)
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    (
        head.lines().next().unwrap_or("").to_owned(),
        body.to_owned(),
    )
}

/// Sends SIGTERM and waits (at most 20 s) for the process to end; its exit status and
/// stderr.
fn terminate(mut child: Child) -> (std::process::ExitStatus, String) {
    let pid = child.id().to_string();
    let killed = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert!(killed.success());
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "serve did not stop on SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    (status, stderr)
}

#[cfg(unix)]
#[test]
fn serve_creates_sqlite_file_prints_url_and_stops_on_sigterm() {
    let dir = temp_dir("default");
    let (child, url) = serve(&dir, &["--addr", "127.0.0.1:0"], &[]);
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    assert!(
        dir.join("kingstable.db").exists(),
        "kingstable.db created in the working directory"
    );
    let (status, body) = get(&url, "/health");
    assert!(status.contains("200"), "{status}");
    assert!(body.contains("\"database\":\"sqlite\""), "{body}");
    let (status, page) = get(&url, "/");
    assert!(
        status.contains("200") && page.contains("<title>Kingstable"),
        "{status}"
    );
    let (status, stderr) = terminate(child);
    assert!(status.success(), "{status:?}\n{stderr}");
    assert!(
        stderr.contains("shutting down") && stderr.contains("stopped"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn serve_reads_its_options_from_the_environment() {
    let dir = temp_dir("env");
    let (child, url) = serve(
        &dir,
        &[],
        &[
            ("KINGSTABLE_ADDR", "127.0.0.1:0"),
            ("KINGSTABLE_DATABASE", "sqlite:games.sqlite"),
            ("KINGSTABLE_LOG", "warn"),
        ],
    );
    assert!(dir.join("games.sqlite").exists());
    assert!(!dir.join("kingstable.db").exists());
    assert!(get(&url, "/health").0.contains("200"));
    let (status, stderr) = terminate(child);
    assert!(status.success());
    assert!(!stderr.contains("INFO"), "log level warn: {stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--log-format json` (here by its variable): every line on stderr is one JSON object,
/// the request log lines among them with the request's method and path.
#[cfg(unix)]
#[test]
fn serve_writes_json_logs_when_asked() {
    let dir = temp_dir("json-log");
    let (child, url) = serve(
        &dir,
        &["--addr", "127.0.0.1:0"],
        &[("KINGSTABLE_LOG_FORMAT", "json")],
    );
    assert!(get(&url, "/health").0.contains("200"));
    let (status, stderr) = terminate(child);
    assert!(status.success(), "{status:?}\n{stderr}");
    let events: Vec<serde_json::Value> = stderr
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}")))
        .collect();
    assert!(
        events
            .iter()
            .all(|e| e["level"].is_string() && e["timestamp"].is_string()),
        "{stderr}"
    );
    assert!(
        events.iter().any(|e| e["span"]["uri"] == "/health"
            && e["span"]["method"] == "GET"
            && e["status"] == 200),
        "no request line for /health in\n{stderr}"
    );
    assert!(events.iter().any(|e| e["message"] == "stopped"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn serve_help_documents_every_option_and_variable() {
    let output = Command::new(env!("CARGO_BIN_EXE_kingstable"))
        .args(["serve", "--help"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let help = String::from_utf8(output.stdout).unwrap();
    for option in [
        "--addr",
        "--database",
        "--db-connections",
        "--secure-cookies",
        "--public-url",
        "--trust-proxy",
        "--body-limit",
        "--log",
        "--log-format",
        "--smtp",
        "--smtp-user",
        "--smtp-password",
        "--mail-from",
        "--mail-reminder-interval",
    ] {
        assert!(help.contains(option), "{option} missing from\n{help}");
    }
    for variable in [
        "KINGSTABLE_ADDR",
        "KINGSTABLE_DATABASE",
        "KINGSTABLE_DB_CONNECTIONS",
        "KINGSTABLE_SECURE_COOKIES",
        "KINGSTABLE_PUBLIC_URL",
        "KINGSTABLE_TRUST_PROXY",
        "KINGSTABLE_SMTP",
        "KINGSTABLE_SMTP_USER",
        "KINGSTABLE_SMTP_PASSWORD",
        "KINGSTABLE_MAIL_FROM",
        "KINGSTABLE_BODY_LIMIT",
        "KINGSTABLE_LOG",
        "KINGSTABLE_LOG_FORMAT",
    ] {
        assert!(help.contains(variable), "{variable} missing from\n{help}");
    }
}

#[test]
fn serve_refuses_bad_options() {
    for args in [
        &["serve", "--database", "mysql://x/y"][..],
        &["serve", "--addr", "not-an-address"],
        &["serve", "--log-format", "yaml", "--addr", "127.0.0.1:0"],
        &[
            "serve",
            "--public-url",
            "tafl.example.org",
            "--addr",
            "127.0.0.1:0",
        ],
        // Mail: a bad URL, a bad sender, one without the other, half the credentials.
        &[
            "serve",
            "--smtp",
            "http://mail.example.org",
            "--mail-from",
            "a@example.org",
        ],
        &[
            "serve",
            "--smtp",
            "smtp://127.0.0.1:25",
            "--mail-from",
            "not an address",
        ],
        &["serve", "--smtp", "smtp://127.0.0.1:25"],
        &["serve", "--mail-from", "a@example.org"],
        &[
            "serve",
            "--smtp",
            "smtp://127.0.0.1:25",
            "--mail-from",
            "a@example.org",
            "--smtp-user",
            "kt",
        ],
        &[
            "serve",
            "--smtp",
            "smtp://127.0.0.1:25",
            "--mail-from",
            "a@example.org",
            "--mail-reminder-interval",
            "2h",
        ],
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_kingstable"))
            .args(args)
            .current_dir(std::env::temp_dir())
            .output()
            .unwrap();
        assert!(!output.status.success(), "{args:?}");
        assert!(!output.stderr.is_empty(), "{args:?}: says why");
    }
}

/// A record imported into `kingstable serve` comes back as a download that the real
/// `kingstable replay` replays to the same game and ending: a Copenhagen grandmaster game
/// (OpenTafl record) and a Camelot world championship game (a WCF score, lost on time).
#[cfg(unix)]
#[test]
fn serve_exports_records_that_kingstable_replay_accepts() {
    let dir = temp_dir("archive");
    let (child, url) = serve(&dir, &["--addr", "127.0.0.1:0"], &[]);
    let data = |path: &str| {
        std::fs::read_to_string(format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"))).unwrap()
    };
    let camelot = data("camelot/tests/data/wcf_2009_wc_game5.txt") + "timeout\n";
    for (kind, record, extension, plies, status, reason) in [
        (
            "copenhagen",
            data("tafl/tests/data/millar_vs_schachus_2015.otg"),
            "otg",
            68,
            "defenders_win",
            "resignation",
        ),
        ("camelot", camelot, "txt", 31, "white_win", "timeout"),
    ] {
        let (status_line, body) = request(
            &url,
            "POST",
            &format!("/api/import?kind={kind}"),
            Some(("text/plain", &record)),
        );
        assert!(status_line.contains("201"), "{status_line}: {body}");
        let id = body
            .split('"')
            .nth(3)
            .unwrap_or_else(|| panic!("no id in {body}"))
            .to_owned();
        let (status_line, exported) = get(&url, &format!("/api/games/{id}/record"));
        assert!(status_line.contains("200"), "{status_line}: {exported}");
        let file = dir.join(format!("exported.{extension}"));
        std::fs::write(&file, &exported).unwrap();
        let output = Command::new(env!("CARGO_BIN_EXE_kingstable"))
            .args(["replay", "--game", kind, "--json"])
            .arg(&file)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{stdout}\n{exported}");
        let want = format!(
            "\"plies\":{plies},\"status\":\"{status}\",\"reason\":\"{reason}\",\"error\":null"
        );
        assert!(stdout.contains(&want), "{stdout} lacks {want}\n{exported}");
    }
    let (status, stderr) = terminate(child);
    assert!(status.success(), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
