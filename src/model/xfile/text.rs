//! The `.x` text tokenizer: names, numbers, strings, braces and separators,
//! with the line each starts on. Strings and names may hold Shift_JIS; a
//! Shift_JIS lead byte always takes its trail byte with it, so a trail byte
//! that looks like `{`, `}` or `\` never ends a name.

use super::XError;

/// One token. Byte slices point into the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Tok<'a> {
    /// An identifier (object kind, object or template name, keyword).
    Name(&'a [u8]),
    /// A number as written (`12`, `-0.5`, `1e-3`, `1.#QNAN0`).
    Number(&'a [u8]),
    /// A quoted string, without its quotes.
    Str(&'a [u8]),
    /// `{`
    Open,
    /// `}`
    Close,
    /// `<...>`: a GUID (skipped by every reader).
    Guid,
    /// `;` or `,`.
    Separator,
    /// Any other single byte (`[`, `]`, `.` in templates).
    Other(u8),
    /// End of the file.
    End,
}

impl Tok<'_> {
    /// The token as shown in messages.
    pub(super) fn describe(&self) -> String {
        let short = |b: &[u8]| {
            let s = String::from_utf8_lossy(&b[..b.len().min(40)]).into_owned();
            if b.len() > 40 { format!("{s}…") } else { s }
        };
        match self {
            Tok::Name(b) => format!("`{}`", short(b)),
            Tok::Number(b) => format!("`{}`", short(b)),
            Tok::Str(b) => format!("\"{}\"", short(b)),
            Tok::Open => "`{`".to_owned(),
            Tok::Close => "`}`".to_owned(),
            Tok::Guid => "a GUID".to_owned(),
            Tok::Separator => "a separator".to_owned(),
            Tok::Other(c) => format!("`{}`", char::from(*c)),
            Tok::End => "the end of the file".to_owned(),
        }
    }
}

/// Whether `b` starts a two-byte Shift_JIS (CP932) character.
fn is_sjis_lead(b: u8) -> bool {
    (0x81..=0x9F).contains(&b) || (0xE0..=0xFC).contains(&b)
}

/// Reads tokens from the text after the 16-byte header.
pub(super) struct Lexer<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// 1-based line of `pos`.
    line: usize,
    /// A token pushed back by [`Lexer::unread`], with its line.
    peeked: Option<(Tok<'a>, usize)>,
}

impl<'a> Lexer<'a> {
    /// A lexer over `bytes` starting at byte `start`, which is on line
    /// `line`.
    pub(super) fn new(bytes: &'a [u8], start: usize, line: usize) -> Self {
        Lexer {
            bytes,
            pos: start.min(bytes.len()),
            line,
            peeked: None,
        }
    }

    /// Bytes not yet read: a bound on how many more tokens there can be.
    pub(super) fn remaining(&self) -> usize {
        self.bytes.len().saturating_sub(self.pos)
    }

    /// Gives `tok` (read on `line`) back: the next [`Lexer::next`] returns
    /// it again.
    pub(super) fn unread(&mut self, tok: Tok<'a>, line: usize) {
        self.peeked = Some((tok, line));
    }

    /// The next token and the line it starts on.
    pub(super) fn next(&mut self) -> Result<(Tok<'a>, usize), XError> {
        if let Some(p) = self.peeked.take() {
            return Ok(p);
        }
        self.skip_space_and_comments();
        let line = self.line;
        let Some(&c) = self.bytes.get(self.pos) else {
            return Ok((Tok::End, line));
        };
        let start = self.pos;
        let tok = match c {
            b'{' => {
                self.pos += 1;
                Tok::Open
            }
            b'}' => {
                self.pos += 1;
                Tok::Close
            }
            b';' | b',' => {
                self.pos += 1;
                Tok::Separator
            }
            b'"' => self.string(line)?,
            b'<' => {
                // A GUID: up to the closing `>` on the same line.
                while let Some(&b) = self.bytes.get(self.pos) {
                    self.pos += 1;
                    if b == b'>' {
                        return Ok((Tok::Guid, line));
                    }
                    if b == b'\n' || b == b'\r' {
                        break;
                    }
                }
                return Err(XError::Syntax {
                    line,
                    what: "a GUID `<…` without its closing `>`".to_owned(),
                });
            }
            b'0'..=b'9' | b'-' | b'+' | b'.' => {
                while self.bytes.get(self.pos).is_some_and(|&b| {
                    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'+' | b'#')
                }) {
                    self.pos += 1;
                }
                Tok::Number(&self.bytes[start..self.pos])
            }
            c if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 => {
                while let Some(&b) = self.bytes.get(self.pos) {
                    if is_sjis_lead(b) {
                        self.pos = (self.pos + 2).min(self.bytes.len());
                    } else if b.is_ascii_alphanumeric()
                        || b >= 0x80
                        || matches!(b, b'_' | b'-' | b'.')
                    {
                        self.pos += 1;
                    } else {
                        break;
                    }
                }
                Tok::Name(&self.bytes[start..self.pos])
            }
            other => {
                self.pos += 1;
                Tok::Other(other)
            }
        };
        Ok((tok, line))
    }

    /// A quoted string (the opening `"` is at `pos`).
    fn string(&mut self, line: usize) -> Result<Tok<'a>, XError> {
        self.pos += 1;
        let start = self.pos;
        while let Some(&b) = self.bytes.get(self.pos) {
            if b == b'"' {
                let s = &self.bytes[start..self.pos];
                self.pos += 1;
                return Ok(Tok::Str(s));
            }
            if is_sjis_lead(b) {
                self.pos += 2;
                continue;
            }
            self.count_newline(b);
            self.pos += 1;
        }
        Err(XError::Syntax {
            line,
            what: "a string `\"…` without its closing quote".to_owned(),
        })
    }

    /// Counts a line break at `pos` (LF, CR LF, or a lone CR).
    fn count_newline(&mut self, b: u8) {
        let lone_cr = b == b'\r' && self.bytes.get(self.pos + 1) != Some(&b'\n');
        if b == b'\n' || lone_cr {
            self.line += 1;
        }
    }

    fn skip_space_and_comments(&mut self) {
        while let Some(&b) = self.bytes.get(self.pos) {
            if b.is_ascii_whitespace() {
                self.count_newline(b);
                self.pos += 1;
            } else if b == b'#' || (b == b'/' && self.bytes.get(self.pos + 1) == Some(&b'/')) {
                while self
                    .bytes
                    .get(self.pos)
                    .is_some_and(|&c| c != b'\n' && c != b'\r')
                {
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
    }
}

/// Parses a number token as a finite `f32`; `None` for anything else
/// (`1.#QNAN0`, `inf`, a value beyond `f32`).
pub(super) fn parse_float(text: &[u8]) -> Option<f32> {
    let s = std::str::from_utf8(text).ok()?;
    let v: f32 = s.parse().ok()?;
    v.is_finite().then_some(v)
}

/// Parses a number token as a non-negative integer that fits in `u32`.
pub(super) fn parse_u32(text: &[u8]) -> Option<u32> {
    std::str::from_utf8(text).ok()?.parse().ok()
}

/// Decodes a Shift_JIS (CP932) name or string; valid UTF-8 that is not
/// valid Shift_JIS is taken as UTF-8.
pub(super) fn decode(bytes: &[u8]) -> String {
    if bytes.is_ascii() {
        return String::from_utf8_lossy(bytes).into_owned();
    }
    let (s, had_errors) = encoding_rs::SHIFT_JIS.decode_without_bom_handling(bytes);
    if had_errors && let Ok(u) = std::str::from_utf8(bytes) {
        return u.to_owned();
    }
    s.into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &str) -> Vec<(Tok<'_>, usize)> {
        let mut lx = Lexer::new(text.as_bytes(), 0, 1);
        let mut out = Vec::new();
        loop {
            let t = lx.next().expect("token");
            if t.0 == Tok::End {
                return out;
            }
            out.push(t);
        }
    }

    #[test]
    fn tokens_carry_their_line_for_lf_crlf_and_cr() {
        for nl in ["\n", "\r\n", "\r"] {
            let text = format!("Mesh m {{{nl}4;{nl}// note{nl}-1.5e-2,\"a b\"}}");
            let t = all(&text);
            assert_eq!(t[0], (Tok::Name(b"Mesh"), 1));
            assert_eq!(t[3], (Tok::Number(b"4"), 2));
            assert_eq!(t[5], (Tok::Number(b"-1.5e-2"), 4));
            assert_eq!(t[7], (Tok::Str(b"a b"), 4));
            assert_eq!(t[8], (Tok::Close, 4));
        }
    }

    #[test]
    fn a_shift_jis_trail_byte_like_a_brace_stays_in_the_name() {
        // "マ" in Shift_JIS is 0x83 0x7D: its trail byte is `}`.
        let bytes = b"Material \x83\x7D {";
        let mut lx = Lexer::new(bytes, 0, 1);
        assert_eq!(lx.next().expect("t").0, Tok::Name(b"Material"));
        let (name, _) = lx.next().expect("t");
        assert_eq!(name, Tok::Name(b"\x83\x7D"));
        assert_eq!(decode(b"\x83\x7D"), "マ");
        assert_eq!(lx.next().expect("t").0, Tok::Open);
    }

    #[test]
    fn unterminated_strings_and_guids_are_errors_with_the_line() {
        let e = Lexer::new(b"\n\n\"abc", 0, 1).next().unwrap_err();
        assert_eq!(
            e,
            XError::Syntax {
                line: 3,
                what: "a string `\"…` without its closing quote".to_owned()
            }
        );
        assert!(Lexer::new(b"<abc\n>", 0, 1).next().is_err());
    }

    #[test]
    fn floats_must_be_finite() {
        assert_eq!(parse_float(b"-0.25"), Some(-0.25));
        assert_eq!(parse_float(b"1e39"), None);
        assert_eq!(parse_float(b"1.#QNAN0"), None);
        assert_eq!(parse_float(b"nan"), None);
        assert_eq!(parse_u32(b"4294967296"), None);
        assert_eq!(parse_u32(b"-1"), None);
    }
}
