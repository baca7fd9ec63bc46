//! The request side of the small HTTP/1.1 stubs that tests answer by hand (failing servers,
//! TLS servers): one request at a time off a connection.

use std::io::BufRead;

/// The next request on `reader`: its head (request line and headers, as sent, ending with the
/// blank line) and its body (`content-length` bytes). `None` once the connection closes.
pub fn read_request<R: BufRead>(reader: &mut R) -> Option<(String, Vec<u8>)> {
    let mut head = String::new();
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return None;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
        let end = line == "\r\n";
        head.push_str(&line);
        if end {
            break;
        }
    }
    let mut body = vec![0; length];
    let _ = reader.read_exact(&mut body);
    Some((head, body))
}

/// The method and path of a request head.
pub fn method_and_path(head: &str) -> (&str, &str) {
    let mut words = head.split_whitespace();
    (words.next().unwrap_or(""), words.next().unwrap_or(""))
}
