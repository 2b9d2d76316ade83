//! A bounds-checked little-endian reader over a byte slice: every read
//! names what it expected and fails with a [`ModelError`] instead of
//! panicking.

use glam::{Vec2, Vec3, Vec4};

use super::error::ModelError;

/// A little-endian reader over a byte slice that returns [`ModelError`]s
/// instead of panicking. Every read names what it expected.
pub(crate) struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Cursor { bytes, pos: 0 }
    }

    /// Current byte offset from the start of the file.
    pub(crate) fn offset(&self) -> usize {
        self.pos
    }

    /// Bytes left after the current offset.
    pub(crate) fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    fn truncated(&self, expected: &str, needed: u64) -> ModelError {
        ModelError::Truncated {
            offset: self.pos,
            expected: expected.to_owned(),
            needed,
            available: self.remaining(),
        }
    }

    /// A [`ModelError::Invalid`] at `offset`.
    pub(crate) fn invalid_at(offset: usize, what: String) -> ModelError {
        ModelError::Invalid { offset, what }
    }

    /// Takes `n` bytes.
    pub(crate) fn bytes(&mut self, n: usize, what: &str) -> Result<&'a [u8], ModelError> {
        if n > self.remaining() {
            return Err(self.truncated(what, n as u64));
        }
        let out = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    /// Skips `n` bytes (`n` may come from the file, hence `u64`).
    pub(crate) fn skip(&mut self, n: u64, what: &str) -> Result<(), ModelError> {
        match usize::try_from(n) {
            Ok(n) if n <= self.remaining() => {
                self.pos += n;
                Ok(())
            }
            _ => Err(self.truncated(what, n)),
        }
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], ModelError> {
        let slice = self.bytes(N, what)?;
        let mut out = [0u8; N];
        out.copy_from_slice(slice);
        Ok(out)
    }

    pub(crate) fn u8(&mut self, what: &str) -> Result<u8, ModelError> {
        Ok(self.array::<1>(what)?[0])
    }

    pub(crate) fn i8(&mut self, what: &str) -> Result<i8, ModelError> {
        Ok(i8::from_le_bytes(self.array(what)?))
    }

    pub(crate) fn u16(&mut self, what: &str) -> Result<u16, ModelError> {
        Ok(u16::from_le_bytes(self.array(what)?))
    }

    pub(crate) fn i16(&mut self, what: &str) -> Result<i16, ModelError> {
        Ok(i16::from_le_bytes(self.array(what)?))
    }

    pub(crate) fn u32(&mut self, what: &str) -> Result<u32, ModelError> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }

    pub(crate) fn i32(&mut self, what: &str) -> Result<i32, ModelError> {
        Ok(i32::from_le_bytes(self.array(what)?))
    }

    pub(crate) fn f32(&mut self, what: &str) -> Result<f32, ModelError> {
        Ok(f32::from_le_bytes(self.array(what)?))
    }

    pub(crate) fn vec2(&mut self, what: &str) -> Result<Vec2, ModelError> {
        let raw: [u8; 8] = self.array(what)?;
        let f = |i: usize| f32::from_le_bytes([raw[i], raw[i + 1], raw[i + 2], raw[i + 3]]);
        Ok(Vec2::new(f(0), f(4)))
    }

    pub(crate) fn vec4(&mut self, what: &str) -> Result<Vec4, ModelError> {
        let raw: [u8; 16] = self.array(what)?;
        let f = |i: usize| f32::from_le_bytes([raw[i], raw[i + 1], raw[i + 2], raw[i + 3]]);
        Ok(Vec4::new(f(0), f(4), f(8), f(12)))
    }

    pub(crate) fn vec3(&mut self, what: &str) -> Result<Vec3, ModelError> {
        let raw: [u8; 12] = self.array(what)?;
        let f = |i: usize| f32::from_le_bytes([raw[i], raw[i + 1], raw[i + 2], raw[i + 3]]);
        Ok(Vec3::new(f(0), f(4), f(8)))
    }

    /// Checks that `count` records of at least `min_size` bytes each can fit
    /// in what is left, before anything is allocated or looped over.
    pub(crate) fn check_count(
        &self,
        count: u64,
        min_size: u64,
        what: &str,
    ) -> Result<(), ModelError> {
        let needed = count.saturating_mul(min_size);
        if needed > self.remaining() as u64 {
            return Err(ModelError::Truncated {
                offset: self.pos,
                expected: format!("{count} × {what} (at least {min_size} bytes each)"),
                needed,
                available: self.remaining(),
            });
        }
        Ok(())
    }
}

/// The first few bytes as hex plus their printable-ASCII rendering.
pub(crate) fn describe_start(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "an empty file".to_owned();
    }
    let head = &bytes[..bytes.len().min(8)];
    let hex: Vec<String> = head.iter().map(|b| format!("{b:02X}")).collect();
    let ascii: String = head
        .iter()
        .map(|&b| {
            if b.is_ascii_graphic() || b == b' ' {
                char::from(b)
            } else {
                '.'
            }
        })
        .collect();
    format!("{} \"{}\"", hex.join(" "), ascii)
}
