//! Pretty JSON written as it is produced. A report's document is a
//! `serde_json::Value` except its long arrays (a residual per measurement:
//! a million rows are 440 MB of text), which stand in it as placeholders
//! and are generated one row at a time while the document is written. The
//! bytes are exactly `serde_json::to_string_pretty` of the whole document.

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use serde_json::Value;
use std::io::Write;

fn placeholder_index(s: &str) -> Option<usize> {
    s.strip_prefix("\u{0}errband-stream-")?.parse().ok()
}

/// A long array: its length, and its `i`-th element on demand.
pub(crate) struct LongArray<'a> {
    /// How many elements.
    pub len: usize,
    /// The `i`-th element.
    pub row: Box<dyn Fn(usize) -> Value + 'a>,
}

/// Writes `doc` as pretty JSON with a final newline, each placeholder
/// replaced by its long array, generated while it is written.
pub(crate) fn write_pretty(doc: &Value, arrays: &[LongArray<'_>], w: &mut dyn Write) -> std::io::Result<()> {
    write_with(doc, arrays, w, serde_json::ser::PrettyFormatter::new())
}

/// [`write_pretty`] on one line (JSON Lines): the same document, compact,
/// with a final newline.
pub(crate) fn write_line(doc: &Value, arrays: &[LongArray<'_>], w: &mut dyn Write) -> std::io::Result<()> {
    write_with(doc, arrays, w, serde_json::ser::CompactFormatter)
}

fn write_with(
    doc: &Value,
    arrays: &[LongArray<'_>],
    w: &mut dyn Write,
    format: impl serde_json::ser::Formatter,
) -> std::io::Result<()> {
    let mut out = std::io::BufWriter::with_capacity(1 << 16, w);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, format);
    // serde_json hands a writer's error back as its own; `From` returns the
    // writer's error itself, so that a closed pipe stays a closed pipe
    // (quiet success) once a document outgrows the buffer.
    Streamed { value: doc, arrays }.serialize(&mut ser).map_err(std::io::Error::from)?;
    out.write_all(b"\n")?;
    out.flush()
}

/// The whole document as one `Value` (placeholders filled in), for callers
/// that want it in memory.
pub(crate) fn fill(doc: &mut Value, arrays: &[LongArray<'_>]) {
    match doc {
        Value::String(s) => {
            if let Some(a) = placeholder_index(s).and_then(|i| arrays.get(i)) {
                *doc = Value::Array((0..a.len).map(|i| (a.row)(i)).collect());
            }
        }
        Value::Array(v) => v.iter_mut().for_each(|x| fill(x, arrays)),
        Value::Object(m) => m.values_mut().for_each(|x| fill(x, arrays)),
        _ => {}
    }
}

struct Streamed<'v, 'a> {
    value: &'v Value,
    arrays: &'v [LongArray<'a>],
}

impl Serialize for Streamed<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.value {
            Value::String(text) => match placeholder_index(text).and_then(|i| self.arrays.get(i)) {
                Some(a) => {
                    let mut seq = s.serialize_seq(Some(a.len))?;
                    for i in 0..a.len {
                        seq.serialize_element(&(a.row)(i))?;
                    }
                    seq.end()
                }
                None => s.serialize_str(text),
            },
            Value::Array(v) => {
                let mut seq = s.serialize_seq(Some(v.len()))?;
                for x in v {
                    seq.serialize_element(&Streamed { value: x, arrays: self.arrays })?;
                }
                seq.end()
            }
            Value::Object(m) => {
                let mut map = s.serialize_map(Some(m.len()))?;
                for (k, x) in m {
                    map.serialize_entry(k, &Streamed { value: x, arrays: self.arrays })?;
                }
                map.end()
            }
            other => other.serialize(s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn placeholder(n: usize) -> Value {
        Value::String(crate::document::analysis::placeholder(n))
    }

    #[test]
    fn streamed_bytes_equal_the_whole_document_pretty() {
        let arrays = [
            LongArray { len: 3, row: Box::new(|i| json!({ "row": i, "v": [i, "x"] })) },
            LongArray { len: 0, row: Box::new(|_| json!(null)) },
        ];
        let doc =
            json!({ "b": placeholder(0), "a": { "empty": placeholder(1), "n": 1.5 }, "s": "\u{0}plain" });
        let mut streamed = Vec::new();
        write_pretty(&doc, &arrays, &mut streamed).unwrap();
        let mut whole = doc.clone();
        fill(&mut whole, &arrays);
        assert_eq!(
            String::from_utf8(streamed).unwrap(),
            serde_json::to_string_pretty(&whole).unwrap() + "\n"
        );
        assert_eq!(whole["b"][2]["row"], 2);
    }

    /// A writer that takes `room` bytes and then fails as a closed pipe.
    struct ClosedAfter {
        room: usize,
    }

    impl Write for ClosedAfter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.room == 0 {
                return Err(std::io::ErrorKind::BrokenPipe.into());
            }
            let n = buf.len().min(self.room);
            self.room -= n;
            Ok(n)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_closed_pipe_stays_a_closed_pipe_past_the_buffer() {
        // Ten times the buffer: the error reaches serde_json mid-document.
        let arrays =
            [LongArray { len: 20_000, row: Box::new(|i| json!({ "row": i, "text": "x".repeat(30) })) }];
        let doc = json!({ "rows": placeholder(0) });
        let e = write_pretty(&doc, &arrays, &mut ClosedAfter { room: 1000 }).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe);
        let e = write_line(&doc, &arrays, &mut ClosedAfter { room: 0 }).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe);
    }
}
