//! OpenTafl records (todo in this commit)
