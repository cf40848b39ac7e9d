//! Server-sent events parser (WHATWG `text/event-stream`), fed with arbitrary
//! byte chunks: lines may be split anywhere, including inside a UTF-8
//! character or between the CR and LF of a line ending.

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field; empty means the default type `message`.
    pub event: String,
    /// The `data:` lines joined with `\n`.
    pub data: String,
    pub id: Option<String>,
}

#[derive(Default)]
pub struct SseParser {
    buf: Vec<u8>,
    /// The previous chunk ended with CR: a leading LF in the next one belongs to it.
    pending_cr: bool,
    started: bool,
    event: String,
    data: String,
    has_data: bool,
    id: Option<String>,
}

impl SseParser {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds bytes, returning the events they complete.
    pub fn feed(&mut self, chunk: &[u8]) -> Vec<SseEvent> {
        let mut out = Vec::new();
        let mut bytes = chunk;
        if self.pending_cr {
            self.pending_cr = false;
            if let Some(rest) = bytes.strip_prefix(b"\n") {
                bytes = rest;
            }
        }
        let mut start = 0;
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if b == b'\n' || b == b'\r' {
                self.buf.extend_from_slice(&bytes[start..i]);
                let line = std::mem::take(&mut self.buf);
                self.line(&line, &mut out);
                if b == b'\r' {
                    if i + 1 < bytes.len() {
                        if bytes[i + 1] == b'\n' {
                            i += 1;
                        }
                    } else {
                        self.pending_cr = true;
                    }
                }
                start = i + 1;
            }
            i += 1;
        }
        self.buf.extend_from_slice(&bytes[start.min(bytes.len())..]);
        out
    }

    /// Ends the stream: an event without its closing blank line is dropped,
    /// as the specification says, but a final unterminated line is processed.
    pub fn finish(&mut self) -> Vec<SseEvent> {
        let mut out = Vec::new();
        if !self.buf.is_empty() {
            let line = std::mem::take(&mut self.buf);
            self.line(&line, &mut out);
        }
        out
    }

    /// True when bytes of an incomplete event are buffered (a stream that ends
    /// here was cut in the middle of an event).
    pub fn has_partial(&self) -> bool {
        !self.buf.is_empty() || self.has_data
    }

    fn line(&mut self, raw: &[u8], out: &mut Vec<SseEvent>) {
        let mut line = String::from_utf8_lossy(raw).into_owned();
        if !self.started {
            self.started = true;
            if let Some(rest) = line.strip_prefix('\u{feff}') {
                line = rest.to_string();
            }
        }
        if line.is_empty() {
            if self.has_data {
                out.push(SseEvent {
                    event: std::mem::take(&mut self.event),
                    data: std::mem::take(&mut self.data),
                    id: self.id.clone(),
                });
            } else {
                self.event.clear();
            }
            self.has_data = false;
            return;
        }
        if line.starts_with(':') {
            return; // comment
        }
        let (field, value) = match line.find(':') {
            Some(p) => {
                let v = &line[p + 1..];
                (&line[..p], v.strip_prefix(' ').unwrap_or(v))
            }
            None => (line.as_str(), ""),
        };
        match field {
            "event" => self.event = value.to_string(),
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "id" if !value.contains('\0') => self.id = Some(value.to_string()),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_all(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut p = SseParser::new();
        let mut out = Vec::new();
        for c in chunks {
            out.extend(p.feed(c));
        }
        out.extend(p.finish());
        out
    }

    const STREAM: &str = "\u{feff}: keep-alive comment\r\n\
        event: message_start\r\n\
        data: {\"a\":1}\r\n\r\n\
        data: line one\n\
        data: line two\n\
        \n\
        data:no-space é 漢字 🎉\r\r\
        id: 7\n\
        data: [DONE]\n\n";

    fn expected() -> Vec<SseEvent> {
        vec![
            SseEvent {
                event: "message_start".into(),
                data: "{\"a\":1}".into(),
                id: None,
            },
            SseEvent {
                event: String::new(),
                data: "line one\nline two".into(),
                id: None,
            },
            SseEvent {
                event: String::new(),
                data: "no-space é 漢字 🎉".into(),
                id: None,
            },
            SseEvent {
                event: String::new(),
                data: "[DONE]".into(),
                id: Some("7".into()),
            },
        ]
    }

    #[test]
    fn parses_whole_stream() {
        assert_eq!(parse_all(&[STREAM.as_bytes()]), expected());
    }

    #[test]
    fn every_split_point_gives_same_events() {
        let bytes = STREAM.as_bytes();
        for cut in 0..=bytes.len() {
            let (a, b) = bytes.split_at(cut);
            assert_eq!(parse_all(&[a, b]), expected(), "split at byte {cut}");
        }
    }

    #[test]
    fn byte_by_byte_and_two_splits() {
        let bytes = STREAM.as_bytes();
        let singles: Vec<&[u8]> = bytes.chunks(1).collect();
        assert_eq!(parse_all(&singles), expected());
        for i in (0..bytes.len()).step_by(3) {
            for j in i..bytes.len() {
                let parts = [&bytes[..i], &bytes[i..j], &bytes[j..]];
                assert_eq!(parse_all(&parts), expected(), "splits at {i},{j}");
            }
        }
    }

    #[test]
    fn unterminated_event_is_dropped_and_reported() {
        let mut p = SseParser::new();
        assert!(p.feed(b"data: {\"partial\"").is_empty());
        assert!(p.has_partial());
        assert!(p.finish().is_empty());
    }

    #[test]
    fn blank_lines_without_data_emit_nothing() {
        assert!(parse_all(&[b"\n\n: only comments\n\nevent: x\n\n"]).is_empty());
    }
}
