//! `-v`/`--v=N` HTTP tracing as kubectl has it, to stderr: at 6 and up one line per request
//! (method, URL, status, time), at 7 and up the request headers, at 8 and up the response
//! headers too; retries of a write at 6 and up. Credentials never reach a line: the
//! `Authorization` header and every header that can carry a token, a password or a cookie are
//! masked (kubectl's `<masked>`), and so is user information in a URL.
//!
//! The layer sits innermost in the client's stack, just above the connection, so it sees the
//! request as sent: the full URL and the headers the auth layer added.

use std::fmt::Write as _;
use std::future::Future;
use std::io::Write as _;
use std::pin::Pin;
use std::sync::atomic::{AtomicU8, Ordering};
use std::task::{Context, Poll};
use std::time::Instant;

use http::{HeaderMap, HeaderName, HeaderValue, Request, Response};

/// The process's `-v` level (klog's is one per process too).
static VERBOSITY: AtomicU8 = AtomicU8::new(0);

/// From this level on, one line per request and the retries.
pub const REQUESTS: u8 = 6;
/// From this level on, the request headers.
pub const REQUEST_HEADERS: u8 = 7;
/// From this level on, the response headers.
pub const RESPONSE_HEADERS: u8 = 8;

/// Sets the `-v` level, once, before any request.
pub fn set_verbosity(level: u8) {
    VERBOSITY.store(level, Ordering::Relaxed);
}

pub fn verbosity() -> u8 {
    VERBOSITY.load(Ordering::Relaxed)
}

/// Writes a block of trace lines at once, so concurrent requests do not interleave.
fn emit(text: &str) {
    let mut e = std::io::stderr().lock();
    let _ = e.write_all(text.as_bytes());
    let _ = e.flush();
}

/// A retry at `-v=6` and up: `retrying WHAT (attempt N of M, budget ...)`.
pub fn retrying(what: &str, attempt: u32, of: u32, budget: &str) {
    if verbosity() >= REQUESTS {
        emit(&format!(
            "retrying {what} (attempt {attempt} of {of}, budget {budget})\n"
        ));
    }
}

/// Headers whose value can be a credential whatever it looks like.
fn is_secret_header(name: &str) -> bool {
    const WORDS: [&str; 9] = [
        "authorization",
        "authenticat",
        "cookie",
        "token",
        "secret",
        "password",
        "key",
        "credential",
        "session",
    ];
    let name = name.to_ascii_lowercase();
    WORDS.iter().any(|w| name.contains(w)) || name.starts_with("x-auth")
}

/// Schemes whose name kubectl keeps in front of `<masked>`.
const SCHEMES: [&str; 4] = ["bearer", "basic", "negotiate", "digest"];

/// What a header's value is shown as: masked when the header can carry a credential, when the
/// value is marked sensitive, or when it looks like an authorization value.
pub fn shown_value(name: &HeaderName, value: &HeaderValue) -> String {
    let text = value.to_str().unwrap_or("<binary>");
    let scheme = text.split_once(' ').map(|(s, _)| s);
    let scheme_known = scheme.is_some_and(|s| SCHEMES.contains(&s.to_ascii_lowercase().as_str()));
    if !is_secret_header(name.as_str()) && !value.is_sensitive() && !scheme_known {
        return text.to_string();
    }
    match scheme {
        Some(s) if scheme_known => format!("{s} <masked>"),
        _ => "<masked>".to_string(),
    }
}

/// The URL without user information (`https://user:password@host` is possible in a server
/// URL).
pub fn shown_url(uri: &http::Uri) -> String {
    // The client library leaves an empty query as a bare `?`; kubectl shows none.
    let text = uri.to_string().trim_end_matches('?').to_string();
    match uri.authority().map(|a| a.as_str()) {
        Some(a) if a.contains('@') => {
            let host = a.rsplit_once('@').map_or(a, |(_, h)| h);
            text.replacen(a, &format!("<masked>@{host}"), 1)
        }
        _ => text,
    }
}

fn headers_block(title: &str, headers: &HeaderMap) -> String {
    let mut out = format!("{title}:\n");
    for (name, value) in headers {
        let _ = writeln!(out, "    {}: {}", canonical(name), shown_value(name, value));
    }
    out
}

/// `user-agent` as Go prints it, `User-Agent`.
fn canonical(name: &HeaderName) -> String {
    name.as_str()
        .split('-')
        .map(|part| {
            let mut c = part.chars();
            c.next().map_or(String::new(), |f| {
                f.to_ascii_uppercase().to_string() + c.as_str()
            })
        })
        .collect::<Vec<_>>()
        .join("-")
}

/// The tower layer of the trace.
#[derive(Clone, Copy, Debug, Default)]
pub struct TraceLayer;

impl<S> tower::Layer<S> for TraceLayer {
    type Service = Trace<S>;

    fn layer(&self, inner: S) -> Trace<S> {
        Trace { inner }
    }
}

#[derive(Clone, Debug)]
pub struct Trace<S> {
    inner: S,
}

type Boxed<T, E> = Pin<Box<dyn Future<Output = Result<T, E>> + Send>>;

impl<S, B, RB> tower::Service<Request<B>> for Trace<S>
where
    S: tower::Service<Request<B>, Response = Response<RB>>,
    S::Future: Send + 'static,
    S::Error: std::fmt::Display + 'static,
    RB: 'static,
{
    type Response = Response<RB>;
    type Error = S::Error;
    type Future = Boxed<Response<RB>, S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request<B>) -> Self::Future {
        let level = verbosity();
        if level < REQUESTS {
            return Box::pin(self.inner.call(req));
        }
        let line = format!("{} {}", req.method(), shown_url(req.uri()));
        if level >= REQUEST_HEADERS {
            emit(&format!(
                "{line}\n{}",
                headers_block("Request Headers", req.headers())
            ));
        }
        let start = Instant::now();
        let answer = self.inner.call(req);
        Box::pin(async move {
            let result = answer.await;
            emit(&outcome(&line, &result, start, level));
            result
        })
    }
}

/// kubectl's line: `GET https://host/path 200 OK in 12 milliseconds` (and the response headers
/// at 8 and up); a request that got no answer says why.
fn outcome<RB, E: std::fmt::Display>(
    line: &str,
    result: &Result<Response<RB>, E>,
    start: Instant,
    level: u8,
) -> String {
    let ms = start.elapsed().as_millis();
    match result {
        Ok(r) => {
            let s = r.status();
            let mut out = format!(
                "{line} {} {} in {ms} milliseconds\n",
                s.as_u16(),
                s.canonical_reason().unwrap_or("")
            );
            if level >= RESPONSE_HEADERS {
                out.push_str(&headers_block("Response Headers", r.headers()));
            }
            out
        }
        Err(e) => format!("{line} failed in {ms} milliseconds: {e}\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(name: &'static str, value: &'static str) -> String {
        shown_value(
            &HeaderName::from_static(name),
            &HeaderValue::from_static(value),
        )
    }

    #[test]
    fn credentials_are_masked_and_the_scheme_kept() {
        assert_eq!(shown("authorization", "Bearer abc"), "Bearer <masked>");
        assert_eq!(shown("authorization", "Basic dTpw"), "Basic <masked>");
        assert_eq!(shown("authorization", "abc"), "<masked>");
        assert_eq!(shown("proxy-authorization", "Basic x"), "Basic <masked>");
        assert_eq!(shown("cookie", "s=1"), "<masked>");
        assert_eq!(shown("set-cookie", "s=1"), "<masked>");
        assert_eq!(shown("x-auth-token", "abc"), "<masked>");
        assert_eq!(shown("x-api-key", "abc"), "<masked>");
        // A value that looks like a credential under any name.
        assert_eq!(shown("x-custom", "Bearer abc"), "Bearer <masked>");
        assert_eq!(shown("accept", "application/json"), "application/json");
        let mut v = HeaderValue::from_static("abc");
        v.set_sensitive(true);
        assert_eq!(
            shown_value(&HeaderName::from_static("x-other"), &v),
            "<masked>"
        );
    }

    #[test]
    fn user_information_in_a_url_is_masked() {
        let u: http::Uri = "https://admin:pw@host:6443/api?x=1".parse().unwrap();
        assert_eq!(shown_url(&u), "https://<masked>@host:6443/api?x=1");
        let u: http::Uri = "https://host/api".parse().unwrap();
        assert_eq!(shown_url(&u), "https://host/api");
        let u: http::Uri = "https://host/apis/x?".parse().unwrap();
        assert_eq!(shown_url(&u), "https://host/apis/x");
    }

    #[test]
    fn header_names_are_printed_as_go_prints_them() {
        assert_eq!(
            canonical(&HeaderName::from_static("user-agent")),
            "User-Agent"
        );
        assert_eq!(canonical(&HeaderName::from_static("accept")), "Accept");
    }
}
