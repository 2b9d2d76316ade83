//! A little-endian reader over a PMM file that returns errors, never panics.

use super::error::{PmmError, PmmErrorKind};

pub struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Cursor { bytes, pos: 0 }
    }

    /// Byte offset from the start of the file.
    pub fn offset(&self) -> usize {
        self.pos
    }

    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    pub fn error(&self, kind: PmmErrorKind) -> PmmError {
        PmmError {
            offset: self.pos,
            kind,
        }
    }

    /// Takes `n` bytes, or reports what was being read.
    pub fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], PmmError> {
        if n > self.remaining() {
            return Err(self.error(PmmErrorKind::Truncated {
                what,
                needed: n,
                remaining: self.remaining(),
            }));
        }
        let s = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    pub fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], PmmError> {
        let s = self.take(N, what)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    pub fn u8(&mut self, what: &'static str) -> Result<u8, PmmError> {
        Ok(self.array::<1>(what)?[0])
    }

    pub fn bool(&mut self, what: &'static str) -> Result<bool, PmmError> {
        Ok(self.u8(what)? != 0)
    }

    pub fn i32(&mut self, what: &'static str) -> Result<i32, PmmError> {
        Ok(i32::from_le_bytes(self.array::<4>(what)?))
    }

    pub fn f32(&mut self, what: &'static str) -> Result<f32, PmmError> {
        Ok(f32::from_le_bytes(self.array::<4>(what)?))
    }

    pub fn f32s<const N: usize>(&mut self, what: &'static str) -> Result<[f32; N], PmmError> {
        let mut out = [0f32; N];
        for o in &mut out {
            *o = self.f32(what)?;
        }
        Ok(out)
    }

    /// A record count (`i32`) checked against the bytes left: `count ×
    /// min_len` must fit before anything is allocated. Returns the count.
    pub fn count(&mut self, what: &'static str, min_len: usize) -> Result<usize, PmmError> {
        let at = self.pos;
        let n = self.i32(what)?;
        self.check_count(at, what, i64::from(n), min_len)
    }

    /// Checks a count read elsewhere (a `u8`, or a count fixed by the
    /// model's bone list) against the bytes left.
    pub fn check_count(
        &self,
        at: usize,
        what: &'static str,
        n: i64,
        min_len: usize,
    ) -> Result<usize, PmmError> {
        if n < 0 {
            return Err(PmmError {
                offset: at,
                kind: PmmErrorKind::NegativeCount {
                    what,
                    count: n as i32,
                },
            });
        }
        let bytes = (n as u64).saturating_mul(min_len as u64);
        if bytes > self.remaining() as u64 {
            return Err(PmmError {
                offset: at,
                kind: PmmErrorKind::CountTooLarge {
                    what,
                    count: n,
                    bytes,
                    remaining: self.remaining(),
                },
            });
        }
        Ok(n as usize)
    }

    /// Goes back to an offset already read past (never forward).
    pub fn rewind_to(&mut self, pos: usize) {
        self.pos = pos.min(self.pos);
    }

    /// The rest of the input.
    pub fn rest(&mut self) -> &'a [u8] {
        let s = &self.bytes[self.pos..];
        self.pos = self.bytes.len();
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_past_the_end_is_refused_before_allocating() {
        // count 1000 of 57-byte records, 4 bytes left
        let mut b = 1000i32.to_le_bytes().to_vec();
        b.extend_from_slice(&[0; 4]);
        let mut c = Cursor::new(&b);
        let e = c.count("bone keys", 57).unwrap_err();
        assert_eq!(e.offset, 0);
        assert!(e.to_string().contains("57000 bytes"), "{e}");
    }

    #[test]
    fn a_negative_count_is_an_error_with_its_offset() {
        let b = (-1i32).to_le_bytes();
        let mut c = Cursor::new(&b);
        let e = c.count("keys", 4).unwrap_err();
        assert_eq!(
            e.kind,
            PmmErrorKind::NegativeCount {
                what: "keys",
                count: -1
            }
        );
    }
}
