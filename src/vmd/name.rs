//! Fixed-length names: raw bytes are kept, text is shown decoded.
//!
//! VMD names are NUL-terminated Shift_JIS (CP932) in practice. Bytes after
//! the first NUL are left-over garbage from the writer: kept, never shown.
//! Some Chinese-locale tools write GBK instead; those names are detected and
//! shown as GBK. A name that was cut in the middle of a double-byte character
//! shows without the dangling byte (never U+FFFD).

use encoding_rs::{EncoderResult, Encoding, GBK, SHIFT_JIS};

use super::error::NameError;

/// Which encoding a name decodes with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum NameEncoding {
    /// Shift_JIS as Windows writes it (CP932). What MMD writes.
    ShiftJis,
    /// GBK, from Chinese-locale tools.
    Gbk,
}

impl NameEncoding {
    pub fn label(self) -> &'static str {
        match self {
            NameEncoding::ShiftJis => "Shift_JIS",
            NameEncoding::Gbk => "GBK",
        }
    }
    fn encoding(self) -> &'static Encoding {
        match self {
            NameEncoding::ShiftJis => SHIFT_JIS,
            NameEncoding::Gbk => GBK,
        }
    }
}

/// A name field, decoded for display.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodedName {
    /// The text to show (without padding or junk).
    pub text: String,
    pub encoding: NameEncoding,
    /// The field ended inside a double-byte character; the dangling byte is not shown.
    pub cut_mid_char: bool,
    /// Some bytes did not decode in either encoding (shown as U+FFFD).
    pub undecodable: bool,
    /// Non-zero bytes follow the terminating NUL.
    pub junk_after_nul: bool,
    /// No NUL: the name fills its whole field.
    pub unterminated: bool,
}

impl DecodedName {
    /// True when the summary should warn about this name.
    pub fn is_odd(&self) -> bool {
        self.cut_mid_char || self.undecodable || self.encoding != NameEncoding::ShiftJis
    }
}

/// The bytes of a name field up to (not including) the first NUL.
pub fn name_bytes(field: &[u8]) -> &[u8] {
    match field.iter().position(|&b| b == 0) {
        Some(n) => &field[..n],
        None => field,
    }
}

/// The name key a VMD stores for a bone named `name`: Shift_JIS, cut to
/// the 15-byte field as MMD matches names; `None` when Shift_JIS cannot
/// hold the name.
pub fn bone_name_key(name: &str) -> Option<Vec<u8>> {
    let (bytes, _, unmappable) = encoding_rs::SHIFT_JIS.encode(name);
    if unmappable {
        return None;
    }
    let field = &bytes[..bytes.len().min(15)];
    Some(name_bytes(field).to_vec())
}

fn is_sjis_lead(b: u8) -> bool {
    (0x81..=0x9F).contains(&b) || (0xE0..=0xFC).contains(&b)
}

fn is_gbk_lead(b: u8) -> bool {
    (0x81..=0xFE).contains(&b)
}

/// Decodes `bytes` strictly; `None` if anything is malformed.
fn strict(enc: &'static Encoding, bytes: &[u8]) -> Option<String> {
    enc.decode_without_bom_handling_and_without_replacement(bytes)
        .map(|c| c.into_owned())
}

/// Strict decode that tolerates one dangling lead byte at the end.
fn strict_allow_cut(
    enc: &'static Encoding,
    bytes: &[u8],
    is_lead: fn(u8) -> bool,
) -> Option<(String, bool)> {
    if let Some(s) = strict(enc, bytes) {
        return Some((s, false));
    }
    let (&last, head) = bytes.split_last()?;
    if is_lead(last) && lead_dangles(head, is_lead) {
        return strict(enc, head).map(|s| (s, true));
    }
    None
}

/// True when `head` ends on a character boundary, so a following lead byte
/// would start a new (cut) character.
fn lead_dangles(head: &[u8], is_lead: fn(u8) -> bool) -> bool {
    let mut i = 0;
    while i < head.len() {
        if is_lead(head[i]) {
            i += 2;
        } else {
            i += 1;
        }
    }
    i == head.len()
}

fn is_private_use(c: char) -> bool {
    ('\u{E000}'..='\u{F8FF}').contains(&c)
}
fn is_halfwidth_katakana(c: char) -> bool {
    ('\u{FF61}'..='\u{FF9F}').contains(&c)
}
fn is_cjk_ideograph(c: char) -> bool {
    ('\u{4E00}'..='\u{9FFF}').contains(&c) || ('\u{3400}'..='\u{4DBF}').contains(&c)
}

/// Looks like a GBK name mis-read as CP932: private-use characters, or
/// half-width katakana mixed with kanji (real names do not mix those).
fn sjis_looks_like_garbage(s: &str) -> bool {
    let pua = s.chars().any(is_private_use);
    let hw = s.chars().any(is_halfwidth_katakana);
    let kanji = s.chars().any(is_cjk_ideograph);
    pua || (hw && kanji)
}

fn gbk_looks_plausible(s: &str) -> bool {
    s.chars().all(|c| {
        c.is_ascii()
            || is_cjk_ideograph(c)
            || ('\u{3000}'..='\u{303F}').contains(&c)
            || ('\u{FF01}'..='\u{FF5E}').contains(&c)
    })
}

/// True when every double-byte pair lies in GB2312 (lead A1–F7, trail
/// A1–FE), the part of GBK that Chinese-locale tools write for ordinary
/// names. A dangling lead byte at the end (a cut name) is allowed.
///
/// This is the evidence needed to overrule a *valid* Shift_JIS reading:
/// Japanese names made of half-width katakana plus full-width characters
/// (e.g. `ｳｨﾝｸ２右`, B3 A8 DD B8 82 51 89 45) are valid GBK too, but their
/// full-width characters have Shift_JIS lead bytes 81–9F, never GB2312 leads.
fn is_gb2312_pairs(bytes: &[u8]) -> bool {
    let lead = |b: u8| (0xA1..=0xF7).contains(&b);
    let trail = |b: u8| (0xA1..=0xFE).contains(&b);
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            i += 1;
        } else if lead(b) && i + 1 < bytes.len() && trail(bytes[i + 1]) {
            i += 2;
        } else {
            return lead(b) && i + 1 == bytes.len();
        }
    }
    true
}

/// Decodes a fixed-length name field for display.
///
/// Shift_JIS (CP932) first. GBK is chosen when Shift_JIS fails and the GBK
/// text is plausible, or when the Shift_JIS text looks like mis-read GBK
/// (private-use characters, half-width katakana mixed with kanji) and the
/// bytes are GB2312 pairs giving plausible text. A name of half-width
/// katakana only (`ｳｨﾝｸ`) stays Shift_JIS: it is common in real models,
/// and its bytes are valid GB2312 too, so they prove nothing.
pub fn decode_name(field: &[u8]) -> DecodedName {
    let text_bytes = name_bytes(field);
    let unterminated = text_bytes.len() == field.len();
    let junk_after_nul = !unterminated && field[text_bytes.len()..].iter().any(|&b| b != 0);
    let mk = |text: String, encoding, cut_mid_char, undecodable| DecodedName {
        text,
        encoding,
        cut_mid_char,
        undecodable,
        junk_after_nul,
        unterminated,
    };
    let gbk = |need_gb2312: bool| {
        if need_gb2312 && !is_gb2312_pairs(text_bytes) {
            return None;
        }
        strict_allow_cut(GBK, text_bytes, is_gbk_lead).filter(|(g, _)| gbk_looks_plausible(g))
    };
    match strict_allow_cut(SHIFT_JIS, text_bytes, is_sjis_lead) {
        // A dangling lead byte right before the NUL is no cut by the field's
        // length: that Shift_JIS reading is broken. GB2312 pairs that decode
        // whole (e.g. 连衣裙刻晴, which ends in C7 E7) are the better reading.
        Some((s, true)) if !unterminated => match gbk(true).filter(|(_, gcut)| !gcut) {
            Some((g, _)) => mk(g, NameEncoding::Gbk, false, false),
            None => mk(s, NameEncoding::ShiftJis, true, false),
        },
        Some((s, cut)) if !sjis_looks_like_garbage(&s) => mk(s, NameEncoding::ShiftJis, cut, false),
        Some((s, cut)) => match gbk(true) {
            Some((g, gcut)) => mk(g, NameEncoding::Gbk, gcut, false),
            None => mk(s, NameEncoding::ShiftJis, cut, false),
        },
        None => match gbk(false) {
            Some((g, gcut)) => mk(g, NameEncoding::Gbk, gcut, false),
            None => {
                let (s, _) = SHIFT_JIS.decode_without_bom_handling(text_bytes);
                mk(s.into_owned(), NameEncoding::ShiftJis, false, true)
            }
        },
    }
}

/// Reads a name field as GBK when that is a sound reading on its own: the
/// bytes are GB2312 pairs and decode (strictly, a cut last character
/// allowed) into plausible Chinese text. `None` otherwise. Used where other
/// names of the same file show it was written by a GBK tool.
pub fn decode_name_as_gbk(field: &[u8]) -> Option<DecodedName> {
    let text_bytes = name_bytes(field);
    if text_bytes.is_ascii() || !is_gb2312_pairs(text_bytes) {
        return None;
    }
    let (text, cut_mid_char) = strict_allow_cut(GBK, text_bytes, is_gbk_lead)?;
    if !gbk_looks_plausible(&text) {
        return None;
    }
    let unterminated = text_bytes.len() == field.len();
    Some(DecodedName {
        text,
        encoding: NameEncoding::Gbk,
        cut_mid_char,
        undecodable: false,
        junk_after_nul: !unterminated && field[text_bytes.len()..].iter().any(|&b| b != 0),
        unterminated,
    })
}

/// Display text of a name field (see [`decode_name`]).
pub fn name_text(field: &[u8]) -> String {
    decode_name(field).text
}

/// Encodes `text` into a field of `len` bytes (NUL padded). Refuses, never cuts.
pub fn encode_name(text: &str, len: usize, encoding: NameEncoding) -> Result<Vec<u8>, NameError> {
    if text.contains('\0') {
        return Err(NameError::ContainsNul {
            name: text.to_owned(),
        });
    }
    let enc = encoding.encoding();
    let mut encoder = enc.new_encoder();
    let cap = encoder
        .max_buffer_length_from_utf8_without_replacement(text.len())
        .unwrap_or(text.len() * 4 + 16);
    let mut out = vec![0u8; cap];
    let (result, _read, written) =
        encoder.encode_from_utf8_without_replacement(text, &mut out, true);
    match result {
        EncoderResult::InputEmpty => {}
        EncoderResult::Unmappable(_) | EncoderResult::OutputFull => {
            return Err(NameError::Unencodable {
                name: text.to_owned(),
                encoding: encoding.label(),
            });
        }
    }
    out.truncate(written);
    if out.len() > len {
        return Err(NameError::TooLong {
            name: text.to_owned(),
            len: out.len(),
            max: len,
            encoding: encoding.label(),
        });
    }
    out.resize(len, 0);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shift_jis_name_with_junk_after_nul() {
        // "Mei" NUL then 0xFD garbage, as MMDAgent files have.
        let field = [0x4d, 0x65, 0x69, 0x00, 0xfd, 0xfd, 0xfd];
        let d = decode_name(&field);
        assert_eq!(d.text, "Mei");
        assert!(d.junk_after_nul);
        assert!(!d.is_odd());
    }

    #[test]
    fn cut_mid_character_drops_the_dangling_byte() {
        // センター in CP932 is 83 5A 83 93 83 5E 81 5B; cut after the first byte of ー.
        let field = [0x83, 0x5a, 0x83, 0x93, 0x83, 0x5e, 0x81];
        let d = decode_name(&field);
        assert_eq!(d.text, "センタ");
        assert!(d.cut_mid_char);
        assert!(!d.text.contains('\u{FFFD}'));
    }

    #[test]
    fn gbk_name_is_detected() {
        // 左手 in GBK: D7 F3 CA D6. In CP932 D7 F3 is not a valid pair... either way it is GBK.
        let field = [0xd7, 0xf3, 0xca, 0xd6, 0, 0];
        let d = decode_name(&field);
        assert_eq!(d.encoding, NameEncoding::Gbk);
        assert_eq!(d.text, "左手");
    }

    #[test]
    fn half_width_katakana_with_kanji_stays_shift_jis() {
        // ｳｨﾝｸ２右 (a real morph name in babylon-mmd's physics test file):
        // B3 A8 DD B8 = ｳｨﾝｸ, 82 51 = ２, 89 45 = 右. Valid GBK as well
        // (敞莞俀塃), but 82 and 89 are not GB2312 lead bytes.
        let d = decode_name(&[0xb3, 0xa8, 0xdd, 0xb8, 0x82, 0x51, 0x89, 0x45, 0]);
        assert_eq!(d.encoding, NameEncoding::ShiftJis);
        assert_eq!(d.text, "ｳｨﾝｸ２右");
        assert!(!d.is_odd());
        // Half-width only: Shift_JIS.
        let d = decode_name(&[0xb3, 0xa8, 0xdd, 0xb8, 0]);
        assert_eq!(
            (d.encoding, d.text.as_str()),
            (NameEncoding::ShiftJis, "ｳｨﾝｸ")
        );
    }

    #[test]
    fn a_gbk_name_ending_in_a_shift_jis_lead_byte_is_gbk() {
        // 连衣裙刻晴 in GBK: C1 AC D2 C2 C8 B9 BF CC C7 E7 (Python's gbk codec).
        // As CP932 the first nine bytes are half-width katakana and E7 is a
        // lead byte left dangling before the NUL: no valid Shift_JIS name.
        let mut field = vec![0xc1, 0xac, 0xd2, 0xc2, 0xc8, 0xb9, 0xbf, 0xcc, 0xc7, 0xe7];
        field.resize(20, 0);
        let d = decode_name(&field);
        assert_eq!(
            (d.encoding, d.text.as_str()),
            (NameEncoding::Gbk, "连衣裙刻晴")
        );
        assert!(!d.cut_mid_char);
        // The same bytes filling the whole field without a NUL really are a
        // Shift_JIS name cut by the field: that reading stays.
        let d = decode_name(&field[..10]);
        assert_eq!(d.encoding, NameEncoding::ShiftJis);
        assert!(d.cut_mid_char);
    }

    #[test]
    fn gb2312_pairs() {
        assert!(is_gb2312_pairs(&[0xd7, 0xf3, 0xcd, 0xc8])); // 左腿
        assert!(is_gb2312_pairs(b"IK"));
        assert!(is_gb2312_pairs(&[0xd7, 0xf3, 0xcd])); // cut after a lead byte
        assert!(!is_gb2312_pairs(&[0x82, 0x51]));
        assert!(!is_gb2312_pairs(&[0xd7, 0x41]));
    }

    #[test]
    fn encode_refuses_long_names_and_never_cuts() {
        // 8 kanji = 16 bytes in CP932 > 15.
        let e = encode_name("左人差指先端ＩＫ", 15, NameEncoding::ShiftJis).unwrap_err();
        assert!(
            matches!(
                e,
                NameError::TooLong {
                    len: 16,
                    max: 15,
                    ..
                }
            ),
            "{e}"
        );
        let ok = encode_name("左腕", 15, NameEncoding::ShiftJis).unwrap();
        assert_eq!(&ok[..4], &[0x8d, 0xb6, 0x98, 0x72]);
        assert!(ok[4..].iter().all(|&b| b == 0));
        assert_eq!(ok.len(), 15);
    }

    #[test]
    fn encode_refuses_unmappable() {
        assert!(matches!(
            encode_name("😀", 15, NameEncoding::ShiftJis),
            Err(NameError::Unencodable { .. })
        ));
    }
}
