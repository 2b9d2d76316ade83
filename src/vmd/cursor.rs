//! A little-endian reader over a byte slice that returns errors, never panics.

use super::error::{ReadError, ReadErrorKind};

pub struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Cursor { bytes, pos: 0 }
    }

    /// Current byte offset from the start of the file.
    pub fn offset(&self) -> usize {
        self.pos
    }

    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    /// Takes `n` bytes, or reports what was being read.
    pub fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], ReadError> {
        if n > self.remaining() {
            return Err(ReadError {
                offset: self.pos,
                kind: ReadErrorKind::Truncated {
                    what,
                    needed: n,
                    remaining: self.remaining(),
                },
            });
        }
        let s = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    pub fn take_array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], ReadError> {
        let s = self.take(N, what)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    pub fn u32(&mut self, what: &'static str) -> Result<u32, ReadError> {
        Ok(u32::from_le_bytes(self.take_array::<4>(what)?))
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
    fn reading_past_the_end_is_an_error_with_the_offset() {
        let mut c = Cursor::new(&[1, 0, 0, 0, 9]);
        assert_eq!(c.u32("count").unwrap(), 1);
        let e = c.u32("count").unwrap_err();
        assert_eq!(e.offset, 4);
        assert!(e.to_string().contains("needs 4 bytes, 1 remain"), "{e}");
    }
}
