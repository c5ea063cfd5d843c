//! Which format a data file is in, decided from its first bytes and, where
//! the content cannot tell, its extension.
//!
//! The content decides first, because users rename files: a zip archive is
//! an Extra-P experiment whatever it is called. Only where two formats look
//! alike (a one-line JSON Lines file is also a JSON document) does the
//! extension decide. Text that is none of the JSON family is CSV or Extra-P
//! text; [`super::read_parts`] tells those two apart.

use std::path::Path;

/// What a data file holds, as far as its first bytes and name tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// CSV (any dialect) or Extra-P's text format.
    Text,
    /// A JSON document (Extra-P's JSON input, either schema).
    Json,
    /// One JSON object per line (Extra-P's JSON Lines input).
    JsonLines,
    /// TaLPas: JSON-like objects whose fields are separated by `;`.
    Talpas,
    /// A zip archive: an Extra-P experiment (`.extra-p`).
    ExtrapArchive,
    /// A tar archive: one Score-P CUBE profile (`profile.cubex`).
    CubeProfile,
    /// Extra-P 3's binary experiment format.
    Extrap3,
    /// A gzip-compressed file (not read; the message says to unpack it).
    Gzip,
}

impl Kind {
    /// The kind as named in messages.
    pub fn describe(self) -> &'static str {
        match self {
            Kind::Text => "text",
            Kind::Json => "Extra-P JSON",
            Kind::JsonLines => "Extra-P JSON Lines",
            Kind::Talpas => "TaLPas measurements",
            Kind::ExtrapArchive => "an Extra-P experiment (a zip archive)",
            Kind::CubeProfile => "a Score-P CUBE profile (a tar archive)",
            Kind::Extrap3 => "an Extra-P 3 binary experiment",
            Kind::Gzip => "a gzip-compressed file",
        }
    }
}

/// The kind of the data in `bytes`, read from `path` (which may be `-`).
pub fn sniff(bytes: &[u8], path: &str) -> Kind {
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if body.starts_with(b"PK\x03\x04") || body.starts_with(b"PK\x05\x06") {
        return Kind::ExtrapArchive;
    }
    if bytes.get(257..262) == Some(b"ustar".as_slice()) {
        return Kind::CubeProfile;
    }
    if bytes.starts_with(&[0x1f, 0x8b]) {
        return Kind::Gzip;
    }
    if bytes.get(6..23) == Some(b"EXTRAP_EXPERIMENT".as_slice()) {
        return Kind::Extrap3;
    }
    let ext = Path::new(path).extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    let Some(start) = body.iter().position(|b| !b.is_ascii_whitespace()) else {
        return Kind::Text;
    };
    if body[start] != b'{' && body[start] != b'[' {
        return Kind::Text;
    }
    let rest = &body[start..];
    let first = rest.split(|&b| b == b'\n').next().unwrap_or(b"").trim_ascii();
    // TaLPas writes `{"parameters":{…};"metric":…}`: a `;` where JSON has `,`.
    if first.starts_with(b"{") && (first.windows(2).any(|w| w == b";\"") || first.ends_with(b"};")) {
        return Kind::Talpas;
    }
    match ext.as_deref() {
        Some("jsonl" | "ndjson") => return Kind::JsonLines,
        Some("json") => return Kind::Json,
        _ => {}
    }
    // A complete object on the first line, followed by another: JSON Lines.
    let more = rest.split(|&b| b == b'\n').skip(1).any(|l| l.trim_ascii().starts_with(b"{"));
    if first.starts_with(b"{") && first.ends_with(b"}") && more {
        Kind::JsonLines
    } else {
        Kind::Json
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_decides_before_the_extension() {
        assert_eq!(sniff(b"PK\x03\x04rest", "data.csv"), Kind::ExtrapArchive);
        assert_eq!(sniff(b"\x1f\x8b\x08", "data.csv"), Kind::Gzip);
        let mut tar = vec![0u8; 512];
        tar[257..262].copy_from_slice(b"ustar");
        assert_eq!(sniff(&tar, "profile.cubex"), Kind::CubeProfile);
        let mut x3 = b"\x01\x00\x11\x00\x00\x00".to_vec();
        x3.extend_from_slice(b"EXTRAP_EXPERIMENT\x03");
        assert_eq!(sniff(&x3, "experiment_3"), Kind::Extrap3);
        assert_eq!(sniff(b"p,T\n1,2\n", "d.json"), Kind::Text);
        assert_eq!(sniff(b"PARAMETER p\n", "d.txt"), Kind::Text);
        assert_eq!(sniff(b"", "d.json"), Kind::Text);
    }

    #[test]
    fn the_json_family_is_told_apart() {
        let lines = b"{\"params\":{\"x\":4},\"value\":1}\n{\"params\":{\"x\":8},\"value\":2}\n";
        assert_eq!(sniff(lines, "m.jsonl"), Kind::JsonLines);
        assert_eq!(sniff(lines, "m.txt"), Kind::JsonLines);
        assert_eq!(sniff(lines, "-"), Kind::JsonLines);
        assert_eq!(sniff(b"{\"params\":{\"x\":4},\"value\":1}\n", "m.jsonl"), Kind::JsonLines);
        assert_eq!(sniff(b"{\n  \"parameters\": [\"x\"]\n}\n", "m.txt"), Kind::Json);
        assert_eq!(sniff(b"\xEF\xBB\xBF  [1]", "-"), Kind::Json);
        let talpas = b"{\"parameters\":{\"x\":20};\"metric\":\"time\";\"value\":82.0}\n";
        assert_eq!(sniff(talpas, "talpas_1.txt"), Kind::Talpas);
        assert_eq!(sniff(talpas, "t.json"), Kind::Talpas);
    }
}
