//! Bytes → [`Motion`]. Never panics; counts are checked against the bytes
//! left before anything is allocated.

use super::cursor::Cursor;
use super::error::{ReadError, ReadErrorKind};
use super::layout::{self, Section};
use super::motion::{Motion, Version};
use super::records::*;

/// Takes `n` fixed-size records off the cursor and copies each into its
/// key: one pass over one slice, into a vector allocated once. The caller
/// has checked `n × N ≤ remaining`, so `n × N` does not overflow.
fn records<const N: usize, T>(
    c: &mut Cursor,
    n: usize,
    what: &'static str,
    make: impl Fn([u8; N]) -> T,
) -> Result<Vec<T>, ReadError> {
    let body = c.take(n.saturating_mul(N), what)?;
    let (chunks, _) = body.as_chunks::<N>();
    Ok(chunks.iter().map(|&raw| make(raw)).collect())
}

/// Reads a VMD file.
pub fn read(bytes: &[u8]) -> Result<Motion, ReadError> {
    // Anything that does not start like a VMD header is "not a VMD file",
    // even when it is shorter than the header (a text file, an empty file
    // still reads as a truncated header below).
    let n = bytes.len().min(layout::HEADER_PREFIX.len());
    if bytes[..n] != layout::HEADER_PREFIX[..n] {
        return Err(ReadError {
            offset: 0,
            kind: ReadErrorKind::NotVmd,
        });
    }
    let mut c = Cursor::new(bytes);
    let header: [u8; layout::HEADER_LEN] = c.take_array("header")?;
    if !header.starts_with(layout::HEADER_PREFIX) {
        return Err(ReadError {
            offset: 0,
            kind: ReadErrorKind::NotVmd,
        });
    }
    let version = if header.starts_with(layout::HEADER_V1) {
        Version::V1
    } else {
        Version::V2
    };
    let model_name_field = c.take(version.model_name_len(), "model name")?.to_vec();
    let mut m = Motion {
        header,
        version,
        model_name_field,
        sections_present: 0,
        ..Motion::new_v2()
    };

    for section in Section::ALL {
        if c.remaining() < 4 {
            break;
        }
        let count_at = c.offset();
        let count = c.u32("count")?;
        let min = section.record_len() as u64;
        let need = u64::from(count) * min;
        if need > c.remaining() as u64 {
            return Err(ReadError {
                offset: count_at,
                kind: ReadErrorKind::CountTooLarge {
                    section: section.label(),
                    count: u64::from(count),
                    bytes: need,
                    remaining: c.remaining(),
                },
            });
        }
        let n = count as usize;
        match section {
            Section::Bone => m.bones = records(&mut c, n, "bone key", |raw| BoneKey { raw })?,
            Section::Morph => m.morphs = records(&mut c, n, "morph key", |raw| MorphKey { raw })?,
            Section::Camera => {
                m.cameras = records(&mut c, n, "camera key", |raw| CameraKey { raw })?
            }
            Section::Light => m.lights = records(&mut c, n, "light key", |raw| LightKey { raw })?,
            Section::SelfShadow => {
                m.shadows = records(&mut c, n, "self-shadow key", |raw| ShadowKey { raw })?
            }
            Section::Ik => {
                m.iks.reserve_exact(n);
                for _ in 0..n {
                    let start = c.offset();
                    let head = c.take(layout::IK_KEY_HEAD_LEN, "IK/show key")?;
                    let entries = u32::from_le_bytes([head[5], head[6], head[7], head[8]]);
                    let body = u64::from(entries) * layout::IK_ENTRY_LEN as u64;
                    if body > c.remaining() as u64 {
                        return Err(ReadError {
                            offset: start + 5,
                            kind: ReadErrorKind::CountTooLarge {
                                section: "IK/show key's IK",
                                count: u64::from(entries),
                                bytes: body,
                                remaining: c.remaining(),
                            },
                        });
                    }
                    let body = c.take(body as usize, "IK entries")?;
                    let mut raw = Vec::with_capacity(head.len() + body.len());
                    raw.extend_from_slice(head);
                    raw.extend_from_slice(body);
                    m.iks.push(IkKey { raw });
                }
            }
        }
        m.sections_present += 1;
    }
    m.trailing = c.rest().to_vec();
    Ok(m)
}
