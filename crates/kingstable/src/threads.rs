//! The `--threads` and `--hash` values the commands that search take.

/// Reads a thread count: 1 up to the engine protocols' limit.
pub fn parse_threads(text: &str) -> Result<usize, String> {
    let max = protocol::MAX_THREADS;
    match text.trim().parse::<usize>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(format!("expected a number of threads from 1 to {max}")),
    }
}

/// Reads a transposition table size in MB: 1 up to the engine's limit. (Whether the
/// machine can give that much is known only when the table is made.)
pub fn parse_hash(text: &str) -> Result<usize, String> {
    let max = engine::MAX_HASH_MB;
    match text.trim().parse::<usize>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(format!("expected a table size in MB from 1 to {max}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_sizes_are_checked() {
        assert_eq!(parse_hash("64"), Ok(64));
        assert_eq!(parse_hash("65536"), Ok(65_536));
        for bad in ["0", "65537", "99999999", "-1", "big", ""] {
            assert!(parse_hash(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn thread_counts_are_checked() {
        assert_eq!(parse_threads("2"), Ok(2));
        assert_eq!(parse_threads("1"), Ok(1));
        assert!(parse_threads("0").is_err());
        assert!(parse_threads("two").is_err());
        assert!(parse_threads(&(protocol::MAX_THREADS + 1).to_string()).is_err());
    }
}
