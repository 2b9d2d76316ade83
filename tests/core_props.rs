//! Property tests of the reader and writer.
//!
//! * For every representable [`Motion`] (see `arb_motion` for which ones
//!   are), `read(write(m)) == m` and `write(read(write(m))) == write(m)`.
//! * Arbitrary bytes, truncations of every corpus file and random values in
//!   the count fields never panic, and a successful read always writes back
//!   the input.
//! * `read_vec` (the reader that keeps the file's buffer) gives what `read`
//!   gives, motion or error, everywhere `read` is checked.
//! * `TrackIndex::build` groups keys exactly like a naive grouping written
//!   here (name = bytes before the first NUL, tracks in order of first
//!   appearance, keys stably sorted by frame), for random interleavings and
//!   every corpus file.
//! * Memory stays bounded: a counting allocator checks the peak heap use of
//!   `read` against the input size (counts are checked before allocating).
//! * `fuzz_smoke_*` (ignored; run by hand, preferably with `--release`):
//!   millions of random mutations of corpus files through read and
//!   read → write — a stand-in for the cargo-fuzz targets in `fuzz/`.

mod common;
use common::corpus;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use proptest::prelude::*;
use vmd_studio::vmd::{
    self, BoneKey, CameraKey, IkKey, LightKey, MorphKey, Motion, ShadowKey, Track, TrackIndex,
    Version, layout,
};

// ------------------------------------------------------------ peak-heap meter

/// Wraps the system allocator and tracks, per thread, the bytes currently
/// allocated and their peak since the last reset.
struct Meter;

thread_local! {
    static CURRENT: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn account(delta: isize) {
    let _ = CURRENT.try_with(|c| {
        let v = c.get() + delta;
        c.set(v);
        let _ = PEAK.try_with(|p| {
            if v > p.get() {
                p.set(v)
            }
        });
    });
}

// SAFETY: every call is forwarded unchanged to `System`; the bookkeeping
// touches only `const`-initialised thread-locals (no allocation).
unsafe impl GlobalAlloc for Meter {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        account(l.size() as isize);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        account(-(l.size() as isize));
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        account(l.size() as isize);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        account(new as isize - l.size() as isize);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(p, l, new) }
    }
}

#[global_allocator]
static GLOBAL: Meter = Meter;

/// Peak extra heap bytes used by `f` on this thread.
fn peak_heap<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = CURRENT.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let out = f();
    let peak = PEAK.with(Cell::get);
    (out, (peak - base).max(0) as usize)
}

/// The bound we promise: a small multiple of the input (IK/show records of
/// 9 bytes cost a 24-byte `Vec` header each + their 9 bytes ≈ 3.7×) plus a
/// constant.
fn heap_bound(input_len: usize) -> usize {
    4 * input_len + 4096
}

/// Reads `bytes`; asserts bounded memory and, on success, an exact round trip.
fn read_checked(bytes: &[u8], what: &str) -> bool {
    let (r, peak) = peak_heap(|| vmd::read(bytes));
    assert!(
        peak <= heap_bound(bytes.len()),
        "{what}: read of {} bytes used {peak} heap bytes",
        bytes.len()
    );
    // The reader that keeps the file's buffer: the same motion or the
    // same error (offset included), within the same memory bound.
    let owned = bytes.to_vec();
    let (r_vec, peak) = peak_heap(|| vmd::read_vec(owned));
    assert!(
        peak <= heap_bound(bytes.len()),
        "{what}: read_vec of {} bytes used {peak} heap bytes beyond its input",
        bytes.len()
    );
    assert!(r_vec == r, "{what}: read_vec differs from read");
    match r {
        Ok(m) => {
            let out = vmd::write(&m).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert!(
                out == bytes,
                "{what}: read → write differs ({} vs {} bytes)",
                out.len(),
                bytes.len()
            );
            true
        }
        Err(e) => {
            assert!(
                e.offset <= bytes.len(),
                "{what}: error offset {} past the end ({})",
                e.offset,
                bytes.len()
            );
            assert!(!e.to_string().is_empty());
            false
        }
    }
}

// ------------------------------------------------------------ generators

fn arb_bytes<const N: usize>() -> impl Strategy<Value = [u8; N]> {
    proptest::collection::vec(any::<u8>(), N).prop_map(|v| {
        let mut a = [0u8; N];
        a.copy_from_slice(&v);
        a
    })
}

fn arb_ik() -> impl Strategy<Value = IkKey> {
    (arb_bytes::<5>(), 0usize..4, any::<u64>()).prop_map(|(head, n, seed)| {
        let mut raw = head.to_vec(); // frame 4 + show 1
        raw.extend((n as u32).to_le_bytes()); // entry count, consistent with the body
        let mut s = seed | 1;
        for _ in 0..n * layout::IK_ENTRY_LEN {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            raw.push(s as u8);
        }
        IkKey { raw }
    })
}

/// Representable motions: what `read` can give back.
///
/// * The header starts with `Vocaloid Motion Data`; it is v1 exactly when
///   it continues with ` file` (the reader's rule), and the model-name field
///   has the version's length (10 / 20).
/// * `sections_present` = p ∈ 0..=6 and only the first p sections have keys
///   (a non-empty later section would be written, and read back, as present).
/// * Trailing bytes: any when all six sections are present; otherwise fewer
///   than 4 (4 or more would be read as the next section's count).
fn arb_motion() -> impl Strategy<Value = Motion> {
    let header = (any::<bool>(), arb_bytes::<10>()).prop_map(|(v1, tail)| {
        let mut h = [0u8; 30];
        h[..20].copy_from_slice(layout::HEADER_PREFIX);
        h[20..].copy_from_slice(&tail);
        if v1 {
            h[20..25].copy_from_slice(b" file");
        } else if &h[20..25] == b" file" {
            h[24] = b'F';
        }
        h
    });
    (
        header,
        proptest::collection::vec(any::<u8>(), 20),
        0usize..=6,
        proptest::collection::vec(arb_bytes::<111>().prop_map(|raw| BoneKey { raw }), 0..6),
        proptest::collection::vec(arb_bytes::<23>().prop_map(|raw| MorphKey { raw }), 0..6),
        proptest::collection::vec(arb_bytes::<61>().prop_map(|raw| CameraKey { raw }), 0..4),
        proptest::collection::vec(arb_bytes::<28>().prop_map(|raw| LightKey { raw }), 0..4),
        proptest::collection::vec(arb_bytes::<9>().prop_map(|raw| ShadowKey { raw }), 0..4),
        proptest::collection::vec(arb_ik(), 0..4),
        proptest::collection::vec(any::<u8>(), 0..12),
    )
        .prop_map(
            |(header, name, present, bones, morphs, cameras, lights, shadows, iks, trailing)| {
                let version = if header.starts_with(layout::HEADER_V1) {
                    Version::V1
                } else {
                    Version::V2
                };
                let mut m = Motion {
                    header,
                    version,
                    model_name_field: name[..version.model_name_len()].to_vec(),
                    bones,
                    morphs,
                    cameras,
                    lights,
                    shadows,
                    iks,
                    sections_present: present,
                    trailing,
                };
                // Sections at or after `present` are absent: no keys.
                if present < 1 {
                    m.bones.clear()
                }
                if present < 2 {
                    m.morphs.clear()
                }
                if present < 3 {
                    m.cameras.clear()
                }
                if present < 4 {
                    m.lights.clear()
                }
                if present < 5 {
                    m.shadows.clear()
                }
                if present < 6 {
                    m.iks.clear();
                    m.trailing.truncate(3);
                }
                m
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn read_of_write_is_identity(m in arb_motion()) {
        let bytes = vmd::write(&m).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(bytes.len(), m.byte_len());
        let back = vmd::read(&bytes).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&back, &m);
        let again = vmd::write(&back).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(again, bytes);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        read_checked(&bytes, "arbitrary bytes");
    }

    #[test]
    fn arbitrary_bodies_after_a_valid_header_never_panic(
        v1 in any::<bool>(),
        body in proptest::collection::vec(any::<u8>(), 0..600),
        counts in proptest::collection::vec(0u32..6, 6),
    ) {
        // A real header, then small counts interleaved with random bytes so
        // the reader goes deep into the sections.
        let mut f = if v1 { b"Vocaloid Motion Data file\0\0\0\0\0".to_vec() } else { b"Vocaloid Motion Data 0002\0\0\0\0\0".to_vec() };
        f.extend(std::iter::repeat_n(0x41, if v1 { 10 } else { 20 }));
        let sizes = [111usize, 23, 61, 28, 9, 30];
        let mut at = 0;
        for (i, c) in counts.iter().enumerate() {
            f.extend(c.to_le_bytes());
            let take = (*c as usize * sizes[i]).min(body.len() - at);
            f.extend(&body[at..at + take]);
            at += take;
        }
        f.extend(&body[at..]);
        read_checked(&f, "header + random body");
    }
}

// ------------------------------------------------------------ track index

/// A naive track: its name and its (frame, index) pairs.
type NaiveTrack = (Vec<u8>, Vec<(u32, u32)>);

/// The naive grouping: (name before the first NUL, [(frame, index)]) per
/// track in order of first appearance, each stably sorted by frame.
fn naive_tracks<'a>(fields: impl Iterator<Item = (&'a [u8], u32)>) -> Vec<NaiveTrack> {
    let mut tracks: Vec<NaiveTrack> = Vec::new();
    for (i, (field, frame)) in fields.enumerate() {
        let name = field.split(|&b| b == 0).next().unwrap_or(&[]).to_vec();
        match tracks.iter_mut().find(|(n, _)| *n == name) {
            Some((_, keys)) => keys.push((frame, i as u32)),
            None => tracks.push((name, vec![(frame, i as u32)])),
        }
    }
    for (_, keys) in &mut tracks {
        keys.sort_by_key(|&(f, _)| f);
    }
    tracks
}

fn assert_tracks_match(got: &[Track], want: &[NaiveTrack], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: track count");
    for (t, (name, keys)) in got.iter().zip(want) {
        assert_eq!(&t.name_key, name, "{what}: track name");
        let ks: Vec<u32> = keys.iter().map(|k| k.1).collect();
        let fs: Vec<u32> = keys.iter().map(|k| k.0).collect();
        assert_eq!(t.keys, ks, "{what}: keys of {name:?}");
        assert_eq!(t.frames, fs, "{what}: frames of {name:?}");
    }
}

fn assert_index_is_naive(m: &Motion, what: &str) {
    let idx = TrackIndex::build(m);
    let bones = naive_tracks(m.bones.iter().map(|k| (k.name_field(), k.frame())));
    let morphs = naive_tracks(m.morphs.iter().map(|k| (k.name_field(), k.frame())));
    assert_tracks_match(&idx.bones, &bones, what);
    assert_tracks_match(&idx.morphs, &morphs, what);
    for (name, _) in &bones {
        assert_eq!(
            idx.bone(name).map(|t| &t.name_key),
            Some(name),
            "{what}: lookup"
        );
    }
    for (name, _) in &morphs {
        assert_eq!(
            idx.morph(name).map(|t| &t.name_key),
            Some(name),
            "{what}: lookup"
        );
    }
}

/// Name fields from a small pool: empty, 1..15 bytes, the same name with
/// junk after its NUL, names that are prefixes of each other, bytes ≥ 0x80.
fn arb_name_field() -> impl Strategy<Value = [u8; 15]> {
    let pool: [&[u8]; 9] = [
        b"",
        b"a",
        b"ab",
        b"ab\0junk",
        b"abcdefghijklmno",
        b"abcdefghijklmn",
        b"\x81\x40\x80\xff",
        b"\0a",
        b"\x01",
    ];
    (0..pool.len(), any::<u8>()).prop_map(move |(i, junk)| {
        let mut f = [0u8; 15];
        f[..pool[i].len()].copy_from_slice(pool[i]);
        // Junk after the NUL (never before it) keeps the name.
        if pool[i].len() < 14 {
            f[14] = junk;
        }
        f
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    /// Random names and frames, interleaved: up to 400 keys, so tracks hold
    /// more keys than the index stages at a time.
    #[test]
    fn the_track_index_is_the_naive_grouping(
        keys in proptest::collection::vec((arb_name_field(), 0u32..40), 0..400),
        baked in any::<bool>(),
    ) {
        let mut m = Motion::new_v2();
        // `baked`: every name once per frame, in the same order (MMD's layout).
        let keys: Vec<([u8; 15], u32)> = if baked {
            let names: Vec<[u8; 15]> = keys.iter().take(7).map(|k| k.0).collect();
            (0..keys.len() as u32 / 7 + 1).flat_map(|f| names.iter().map(move |n| (*n, f))).collect()
        } else {
            keys
        };
        for (field, frame) in &keys {
            let mut k = BoneKey { raw: [0; 111] };
            k.set_name_field(field);
            k.set_frame(*frame);
            m.bones.push(k);
            let mut mk = MorphKey { raw: [0; 23] };
            mk.set_name_field(field);
            mk.set_frame(frame ^ 5);
            m.morphs.push(mk);
        }
        assert_index_is_naive(&m, "random keys");
    }
}

#[test]
fn the_track_index_of_every_corpus_file_is_the_naive_grouping() {
    let mut n = 0;
    for (name, bytes) in corpus_files() {
        if let Ok(m) = vmd::read(&bytes) {
            assert_index_is_naive(&m, &name);
            n += 1;
        }
    }
    if corpus().is_some() {
        assert_eq!(n, 15, "15 readable corpus VMDs");
    }
}

// ------------------------------------------------------------ corpus-based

fn corpus_files() -> Vec<(String, Vec<u8>)> {
    let Some(dir) = corpus() else {
        return Vec::new();
    };
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "vmd"))
                .filter_map(|p| {
                    let name = p.file_name()?.to_string_lossy().into_owned();
                    Some((name, std::fs::read(&p).ok()?))
                })
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// Offsets of every u32 count field (six section counts, IK entry counts),
/// found by walking the file with the spec's sizes.
fn count_offsets(b: &[u8]) -> Vec<usize> {
    let mut out = Vec::new();
    let v1 = b.len() >= 25 && &b[..25] == b"Vocaloid Motion Data file";
    let mut o = 30 + if v1 { 10 } else { 20 };
    for (i, size) in [111usize, 23, 61, 28, 9, 0].into_iter().enumerate() {
        if b.len() < o + 4 {
            return out;
        }
        out.push(o);
        let n = u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]) as usize;
        o += 4;
        if i < 5 {
            o += n * size;
        } else {
            for _ in 0..n {
                if b.len() < o + 9 {
                    return out;
                }
                out.push(o + 5);
                let e = u32::from_le_bytes([b[o + 5], b[o + 6], b[o + 7], b[o + 8]]) as usize;
                o += 9 + 21 * e;
            }
        }
    }
    out
}

#[test]
fn truncations_of_every_corpus_file_never_panic() {
    let mut ok = 0usize;
    let mut err = 0usize;
    for (name, bytes) in corpus_files() {
        // Every length for small files; for large ones the first 4 KiB, the
        // last 4 KiB, ~3000 evenly spaced lengths and every count boundary ± 2.
        let n = bytes.len();
        let mut lens: Vec<usize> = if n <= 20_000 {
            (0..=n).collect()
        } else {
            let mut v: Vec<usize> = (0..4096).chain(n - 4096..=n).collect();
            v.extend((0..3000).map(|i| i * n / 3000));
            v
        };
        for o in count_offsets(&bytes) {
            lens.extend(o.saturating_sub(2)..=(o + 6).min(n));
        }
        lens.sort_unstable();
        lens.dedup();
        for len in lens {
            if read_checked(&bytes[..len], &format!("{name} cut at {len}")) {
                ok += 1
            } else {
                err += 1
            }
        }
    }
    eprintln!("truncations: {ok} read, {err} refused");
}

#[test]
fn random_values_in_count_fields_never_panic() {
    let mut s: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    for (name, bytes) in corpus_files() {
        let offsets = count_offsets(&bytes);
        if offsets.is_empty() {
            continue;
        }
        let rounds = if bytes.len() > 1_000_000 { 40 } else { 400 };
        for _ in 0..rounds {
            let mut f = bytes.clone();
            let o = offsets[(next() % offsets.len() as u64) as usize];
            match next() % 4 {
                0 => f[o + (next() % 4) as usize] = next() as u8, // one random byte
                1 => f[o..o + 4].copy_from_slice(&u32::MAX.to_le_bytes()),
                2 => {
                    let v = u32::from_le_bytes([f[o], f[o + 1], f[o + 2], f[o + 3]]);
                    let d = (next() % 5) as u32;
                    let v = if next() % 2 == 0 {
                        v.wrapping_add(d)
                    } else {
                        v.wrapping_sub(d)
                    };
                    f[o..o + 4].copy_from_slice(&v.to_le_bytes());
                }
                _ => f[o + (next() % 4) as usize] ^= 1 << (next() % 8), // one bit
            }
            read_checked(&f, &format!("{name} count at {o} changed"));
        }
    }
}

#[test]
fn the_heap_meter_sees_a_successful_read() {
    // Positive control for the meter: 1000 bone keys = 111 000 bytes of records.
    let mut m = Motion::new_v2();
    m.bones = vec![BoneKey { raw: [7; 111] }; 1000];
    let bytes = vmd::write(&m).unwrap_or_else(|e| panic!("{e}"));
    let (r, peak) = peak_heap(|| vmd::read(&bytes));
    assert!(r.is_ok());
    assert!(peak >= 111_000, "meter saw only {peak} bytes");
    assert!(peak <= heap_bound(bytes.len()));
}

#[test]
fn huge_counts_are_refused_before_allocating() {
    // Header + name, then a count of u32::MAX in each section in turn.
    for i in 0..6 {
        let mut f = b"Vocaloid Motion Data 0002\0\0\0\0\0".to_vec(); // header
        f.extend([0u8; 20]); // model name
        f.extend(std::iter::repeat_n(0u8, 4 * i)); // earlier sections empty
        f.extend(u32::MAX.to_le_bytes()); // hostile count
        f.extend([0u8; 64]);
        let (r, peak) = peak_heap(|| vmd::read(&f));
        assert!(r.is_err());
        assert!(peak <= heap_bound(f.len()), "section {i}: {peak} bytes");
    }
}

// ------------------------------------------------------------ fuzz smoke (ignored)

/// Random mutations of corpus files through read and read → write.
/// `FUZZ_ITERS` (default 2 000 000) sets the count.
#[test]
#[ignore = "long: run by hand with --release -- --ignored"]
fn fuzz_smoke_mutated_corpus() {
    let iters: u64 = std::env::var("FUZZ_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000_000);
    // Small files are mutated whole; the big ones through a prefix cut at a
    // section boundary (same structure, cheaper per iteration).
    let mut seeds: Vec<(String, Vec<u8>)> = Vec::new();
    for (name, bytes) in corpus_files() {
        if bytes.len() > 200_000 {
            let offs = count_offsets(&bytes);
            // First 200 records of the bone section, then the rest cut away.
            let cut = (offs.first().copied().unwrap_or(50) + 4 + 200 * 111).min(bytes.len());
            let mut b = bytes[..cut].to_vec();
            if let Some(&o) = offs.first() {
                let n = ((cut - o - 4) / 111) as u32;
                b[o..o + 4].copy_from_slice(&n.to_le_bytes());
                b.truncate(o + 4 + n as usize * 111);
            }
            seeds.push((format!("{name}[prefix]"), b));
        } else {
            seeds.push((name, bytes));
        }
    }
    assert!(!seeds.is_empty() || corpus().is_none());
    if seeds.is_empty() {
        return;
    }
    let mut s: u64 = std::env::var("FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0xD1B5_4A32_D192_ED03);
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let (mut ok, mut err) = (0u64, 0u64);
    for it in 0..iters {
        let (name, base) = &seeds[(next() % seeds.len() as u64) as usize];
        let mut f = base.clone();
        let offs = count_offsets(&f);
        for _ in 0..1 + next() % 4 {
            let len = f.len().max(1);
            match next() % 8 {
                0 | 1 => {
                    if !f.is_empty() {
                        let i = (next() % len as u64) as usize;
                        f[i] = next() as u8;
                    }
                }
                2 if !offs.is_empty() => {
                    let o = offs[(next() % offs.len() as u64) as usize];
                    if o + 4 <= f.len() {
                        let v = match next() % 3 {
                            0 => next() as u32,
                            1 => u32::from_le_bytes([f[o], f[o + 1], f[o + 2], f[o + 3]])
                                .wrapping_add((next() % 3) as u32)
                                .wrapping_sub(1),
                            _ => (next() % 64) as u32,
                        };
                        f[o..o + 4].copy_from_slice(&v.to_le_bytes());
                    }
                }
                3 => f.truncate((next() % (len as u64 + 1)) as usize),
                4 => {
                    let i = (next() % (f.len() as u64 + 1)) as usize;
                    let n = (next() % 32) as usize;
                    let ins: Vec<u8> = (0..n).map(|_| next() as u8).collect();
                    f.splice(i..i, ins);
                }
                5 => {
                    if !f.is_empty() {
                        let i = (next() % len as u64) as usize;
                        let n = ((next() % 32) as usize).min(f.len() - i);
                        f.drain(i..i + n);
                    }
                }
                6 => {
                    // Copy a chunk of another seed in.
                    let (_, other) = &seeds[(next() % seeds.len() as u64) as usize];
                    if !other.is_empty() && !f.is_empty() {
                        let a = (next() % other.len() as u64) as usize;
                        let n = ((next() % 200) as usize).min(other.len() - a);
                        let i = (next() % len as u64) as usize;
                        let end = (i + n).min(f.len());
                        f.splice(i..end, other[a..a + n].iter().copied());
                    }
                }
                _ => {
                    if !f.is_empty() {
                        let i = (next() % len as u64) as usize;
                        f[i] ^= 1 << (next() % 8);
                    }
                }
            }
        }
        if read_checked(&f, &format!("iteration {it} from {name}")) {
            ok += 1
        } else {
            err += 1
        }
    }
    eprintln!("fuzz smoke: {iters} inputs, {ok} read (all round-tripped), {err} refused, no panic");
}
