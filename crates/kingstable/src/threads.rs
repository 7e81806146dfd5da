//! The `--threads` value every command that searches takes.

/// Reads a thread count: 1 up to the engine protocols' limit.
pub fn parse_threads(text: &str) -> Result<usize, String> {
    let max = protocol::MAX_THREADS;
    match text.trim().parse::<usize>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(format!("expected a number of threads from 1 to {max}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_counts_are_checked() {
        assert_eq!(parse_threads("2"), Ok(2));
        assert_eq!(parse_threads("1"), Ok(1));
        assert!(parse_threads("0").is_err());
        assert!(parse_threads("two").is_err());
        assert!(parse_threads(&(protocol::MAX_THREADS + 1).to_string()).is_err());
    }
}
