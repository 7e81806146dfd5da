//! The browser client: the repository's `web/` directory, embedded in the binary and
//! served at `/`.

use std::collections::HashMap;
use std::sync::OnceLock;

use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use include_dir::{Dir, File, include_dir};
use sha2::{Digest, Sha256};

use crate::error::{ApiError, ErrorCode};

static WEB: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/../../web");

/// The embedded file at `path` (relative, `/`-separated), if any.
#[must_use]
pub fn embedded(path: &str) -> Option<&'static [u8]> {
    WEB.get_file(path).map(File::contents)
}

/// ETags of the embedded files, computed once. Weak (`W/"…"`): the same file is sent
/// brotli, gzip or plain as the client accepts, byte-different but the same content.
fn etag(file: &'static File<'static>) -> &'static str {
    static TAGS: OnceLock<HashMap<&'static str, String>> = OnceLock::new();
    let tags = TAGS.get_or_init(|| {
        let mut tags = HashMap::new();
        let mut pending = vec![&WEB];
        while let Some(dir) = pending.pop() {
            pending.extend(dir.dirs());
            for file in dir.files() {
                let digest = Sha256::digest(file.contents());
                let hex: String = digest[..12].iter().map(|b| format!("{b:02x}")).collect();
                if let Some(path) = file.path().to_str() {
                    tags.insert(path, format!("W/\"{hex}\""));
                }
            }
        }
        tags
    });
    file.path()
        .to_str()
        .and_then(|path| tags.get(path))
        .map_or("", String::as_str)
}

/// The text files (scripts, styles, pages, images drawn in SVG, data) that are sent
/// compressed.
fn compressible(path: &str) -> bool {
    [".js", ".css", ".html", ".svg", ".json", ".txt", ".md"]
        .iter()
        .any(|ext| path.ends_with(ext))
}

/// The embedded text files compressed with brotli at its best quality (11), made once by
/// [`precompress`]; a file that compression does not shrink is left out. Served as they
/// are to every client that accepts brotli, so a crowd costs no compression work, and
/// each file is smaller than the fast level the compression layer uses on the fly.
static BROTLI: OnceLock<HashMap<&'static str, Vec<u8>>> = OnceLock::new();

/// Compresses the embedded files for [`BROTLI`] (about a second of one core for the
/// whole client; run it on a blocking thread at start). Until it is done, files go out
/// compressed on the fly.
pub fn precompress() {
    BROTLI.get_or_init(|| {
        let mut out = HashMap::new();
        let mut pending = vec![&WEB];
        while let Some(dir) = pending.pop() {
            pending.extend(dir.dirs());
            for file in dir.files() {
                let Some(path) = file.path().to_str() else {
                    continue;
                };
                if !compressible(path) {
                    continue;
                }
                let mut packed = Vec::new();
                {
                    let mut writer = brotli::CompressorWriter::new(&mut packed, 4096, 11, 22);
                    if std::io::Write::write_all(&mut writer, file.contents()).is_err() {
                        continue;
                    }
                }
                if packed.len() < file.contents().len() {
                    out.insert(path, packed);
                }
            }
        }
        out
    });
}

/// Whether an `Accept-Encoding` value accepts `coding` (named, or `*`, with a quality
/// above 0; RFC 9110 12.5.3).
fn accepts(value: &str, coding: &str) -> bool {
    let mut named = None;
    let mut any = None;
    for item in value.split(',') {
        let mut parts = item.split(';');
        let name = parts.next().unwrap_or("").trim();
        let quality = parts
            .find_map(|p| p.trim().strip_prefix("q=").map(str::trim))
            .map_or(1.0, |q| q.parse::<f32>().unwrap_or(0.0));
        if name.eq_ignore_ascii_case(coding) {
            named = Some(quality > 0.0);
        } else if name == "*" {
            any = Some(quality > 0.0);
        }
    }
    named.or(any).unwrap_or(false)
}

/// Serves an embedded file for GET and HEAD: `/` and directories give their
/// `index.html`; a path without a file extension that names no file gives `/index.html`
/// (the client's own routes, such as `/game/abc123`); anything else is `not_found`.
pub async fn static_file(method: Method, uri: Uri, headers: HeaderMap) -> Response {
    if method != Method::GET && method != Method::HEAD {
        return ApiError::new(ErrorCode::MethodNotAllowed, "only GET and HEAD serve files")
            .into_response();
    }
    let path = uri.path().trim_start_matches('/');
    let wanted = if path.is_empty() || path.ends_with('/') {
        format!("{path}index.html")
    } else {
        path.to_owned()
    };
    let last_segment = wanted.rsplit('/').next().unwrap_or("");
    let file = WEB.get_file(&wanted).or_else(|| {
        (!last_segment.contains('.'))
            .then(|| WEB.get_file("index.html"))
            .flatten()
    });
    let Some(file) = file else {
        return ApiError::not_found(format!("no file /{path}")).into_response();
    };
    let tag = etag(file);
    let mime = mime_guess::from_path(file.path()).first_or_octet_stream();
    let mut response = if headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|wanted| matches_etag(wanted, tag))
    {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let packed = file
            .path()
            .to_str()
            .and_then(|path| BROTLI.get()?.get(path));
        match packed {
            Some(packed)
                if headers
                    .get(header::ACCEPT_ENCODING)
                    .and_then(|v| v.to_str().ok())
                    .is_some_and(|v| accepts(v, "br")) =>
            {
                // Already compressed: the compression layer leaves an encoded answer alone.
                let mut response = packed.as_slice().into_response();
                response
                    .headers_mut()
                    .insert(header::CONTENT_ENCODING, HeaderValue::from_static("br"));
                response
            }
            _ => file.contents().into_response(),
        }
    };
    let out = response.headers_mut();
    out.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    if let Ok(value) = HeaderValue::from_str(mime.as_ref()) {
        out.insert(header::CONTENT_TYPE, value);
    }
    if let Ok(value) = HeaderValue::from_str(tag) {
        out.insert(header::ETAG, value);
    }
    // Revalidate every time: the ETag makes that a cheap 304.
    out.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// Whether an `If-None-Match` value names `tag` (`*`, or a list compared weakly, as
/// RFC 9110 asks for `If-None-Match`).
fn matches_etag(wanted: &str, tag: &str) -> bool {
    let opaque = |t: &str| t.trim().trim_start_matches("W/").to_owned();
    wanted.trim() == "*" || wanted.split(',').any(|t| opaque(t) == opaque(tag))
}

#[cfg(test)]
mod tests {
    #[test]
    fn if_none_match_is_compared_weakly() {
        let tag = r#"W/"abc""#;
        assert!(super::matches_etag(r#"W/"abc""#, tag));
        assert!(super::matches_etag(r#""abc""#, tag));
        assert!(super::matches_etag(r#""x", W/"abc""#, tag));
        assert!(super::matches_etag("*", tag));
        assert!(!super::matches_etag(r#""abd""#, tag));
        assert!(!super::matches_etag("", tag));
    }

    #[test]
    fn accept_encoding_is_read_with_its_qualities() {
        use super::accepts;
        assert!(accepts("gzip, deflate, br, zstd", "br"));
        assert!(accepts("br;q=0.5", "br"));
        assert!(accepts("*", "br"));
        assert!(!accepts("gzip", "br"));
        assert!(!accepts("br;q=0, *", "br"));
        assert!(!accepts("*;q=0", "br"));
        assert!(!accepts("", "br"));
        assert!(!accepts("brotli", "br"));
    }

    #[test]
    fn precompressed_files_read_back_as_the_files() {
        super::precompress();
        let packed = super::BROTLI.get().unwrap();
        assert!(packed.contains_key("js/app.js") && packed.contains_key("index.html"));
        for (path, bytes) in packed {
            let mut plain = Vec::new();
            brotli::BrotliDecompress(&mut bytes.as_slice(), &mut plain).unwrap();
            assert_eq!(plain, super::embedded(path).unwrap(), "{path}");
        }
        assert!(
            !packed
                .keys()
                .any(|p| p.ends_with(".png") || p.ends_with(".woff2"))
        );
    }

    #[test]
    fn index_page_is_embedded() {
        let index = super::embedded("index.html").expect("web/index.html");
        assert!(String::from_utf8_lossy(index).contains("<title>Kingstable"));
    }
}
