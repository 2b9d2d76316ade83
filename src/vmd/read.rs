//! Bytes → [`Motion`]. Never panics; counts are checked against the bytes
//! left before anything is allocated.

use std::io::Read;
use std::ops::Range;

use bytemuck::allocation::TransparentWrapperAlloc;

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
    let (mut m, bones) = parse(bytes)?;
    m.bones = bone_keys(&bytes[bones]);
    Ok(m)
}

/// [`read`] of a file's bytes that the caller gives away (what the app does
/// with a file it has just read): the bone keys, the bulk of a dance, stay
/// in `bytes`' memory, moved to its start, instead of being copied into a
/// new allocation. Same motion and same errors as [`read`].
///
/// A fresh allocation of a big file's size costs more than the copy itself
/// (every page is faulted in on first touch), so this is what keeps a load
/// near memory speed.
pub fn read_vec(bytes: Vec<u8>) -> Result<Motion, ReadError> {
    let (mut m, bones) = parse(&bytes)?;
    let mut buf = bytes;
    let len = bones.len();
    buf.copy_within(bones, 0);
    buf.truncate(len);
    buf.shrink_to_fit();
    // `BoneKey` is its 111 raw bytes (alignment 1), so the buffer is the
    // records; the cast fails only if the allocator left a capacity that is
    // not a whole number of records, and then the keys are copied.
    m.bones = match bytemuck::allocation::try_cast_vec::<u8, [u8; layout::BONE_KEY_LEN]>(buf) {
        Ok(raws) => BoneKey::wrap_vec(raws),
        Err((_, buf)) => bone_keys(&buf),
    };
    Ok(m)
}

/// Copies whole bone records (`bytes.len()` is a multiple of their size).
fn bone_keys(bytes: &[u8]) -> Vec<BoneKey> {
    let (chunks, _) = bytes.as_chunks::<{ layout::BONE_KEY_LEN }>();
    chunks.iter().map(|&raw| BoneKey { raw }).collect()
}

/// Everything but the bone keys, and where those are in `bytes` (checked:
/// whole records, all there). Never panics.
fn parse(bytes: &[u8]) -> Result<(Motion, Range<usize>), ReadError> {
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
    let mut bones = 0..0;

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
            Section::Bone => {
                let start = c.offset();
                let body = c.take(n.saturating_mul(layout::BONE_KEY_LEN), "bone key")?;
                bones = start..start + body.len();
            }
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
    Ok((m, bones))
}

/// Bone keys per read of [`read_streaming_bones`] (about 450 KB).
const STREAM_KEYS: usize = 4096;

/// [`read`] for a file too big to hold twice: its bone keys (the bulk of a
/// dance) are handed to `on_bone` one at a time, in file order, out of a
/// buffer of a few hundred kilobytes, and the motion returned has none;
/// everything else is what [`read`] gives, errors included (same kind, same
/// offset). `len` is how many bytes `r` yields (the file's size).
///
/// Only a file whose header and bone count read and whose bone keys are all
/// there is streamed; any other input is read whole and given to [`read`]
/// (then `on_bone` sees the bone keys of its result). The outer error is
/// the input's (e.g. the file shrank while it was read).
pub fn read_streaming_bones(
    r: &mut impl Read,
    len: u64,
    mut on_bone: impl FnMut(&BoneKey),
) -> std::io::Result<Result<Motion, ReadError>> {
    // Header, the longer (v2) model name and the bone count.
    let longest = layout::HEADER_LEN + layout::MODEL_NAME_LEN_V2 + 4;
    let mut head = Vec::with_capacity(longest);
    r.by_ref().take(longest as u64).read_to_end(&mut head)?;
    let model_name_len = if head.starts_with(layout::HEADER_V1) {
        Some(layout::MODEL_NAME_LEN_V1)
    } else if head.starts_with(layout::HEADER_PREFIX) {
        Some(layout::MODEL_NAME_LEN_V2)
    } else {
        None
    };
    let count_at = model_name_len.map(|n| layout::HEADER_LEN + n);
    let count = count_at
        .and_then(|at| head.get(at..at + 4))
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    let (Some(count_at), Some(count)) = (count_at, count) else {
        return whole(r, head, on_bone);
    };
    let after_count = count_at + 4;
    let bones_len = u64::from(count) * layout::BONE_KEY_LEN as u64;
    if bones_len > len.saturating_sub(after_count as u64) {
        return whole(r, head, on_bone);
    }
    // A v1 header leaves the first bytes of the bone section in `head`.
    let early = head.split_off(after_count);
    let mut rest = early.as_slice().chain(r);
    let mut buf = vec![0u8; layout::BONE_KEY_LEN * STREAM_KEYS];
    let mut left = count as usize;
    while left > 0 {
        let n = left.min(STREAM_KEYS);
        let chunk = &mut buf[..n * layout::BONE_KEY_LEN];
        rest.read_exact(chunk)?;
        for &raw in chunk.as_chunks::<{ layout::BONE_KEY_LEN }>().0 {
            on_bone(&BoneKey { raw });
        }
        left -= n;
    }
    // The other sections, read as a file whose bone section is empty;
    // offsets past it are moved back to where they are in the real file.
    head[count_at..after_count].fill(0);
    rest.read_to_end(&mut head)?;
    Ok(read(&head).map_err(|mut e| {
        if e.offset >= after_count {
            e.offset = e.offset.saturating_add(bones_len as usize);
        }
        e
    }))
}

/// The fallback of [`read_streaming_bones`]: `head` and the rest of `r`,
/// through [`read`].
fn whole(
    r: &mut impl Read,
    mut head: Vec<u8>,
    mut on_bone: impl FnMut(&BoneKey),
) -> std::io::Result<Result<Motion, ReadError>> {
    r.read_to_end(&mut head)?;
    Ok(read(&head).map(|mut m| {
        m.bones.iter().for_each(&mut on_bone);
        m.bones.clear();
        m
    }))
}
