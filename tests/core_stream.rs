//! `inspect` streams: `summary::summarize_reader` tallies the bone keys as
//! they are read instead of holding them. It must give exactly what
//! `summarize(read(bytes))` gives — the same summary, or the same error
//! (kind and offset) — for every corpus file, every truncation of small
//! files, hostile counts in every section, a v1 header, and a reader that
//! hands over a few bytes at a time.

mod common;
use common::corpus;
use std::io::Read;

use vmd_studio::vmd::{
    self, BoneChannel, BoneKey, Curve, Motion, NameEncoding, ReadError, TrackIndex,
    summary::{Summary, summarize, summarize_reader},
};

/// What the non-streaming path gives.
fn whole(bytes: &[u8]) -> Result<Summary, ReadError> {
    vmd::read(bytes).map(|m| summarize(&m, &TrackIndex::build(&m)))
}

/// A reader that yields at most `step` bytes per call.
struct Dribble<'a> {
    bytes: &'a [u8],
    step: usize,
}

impl Read for Dribble<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.step).min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

fn streamed(bytes: &[u8], step: usize) -> Result<Summary, ReadError> {
    let mut r = Dribble { bytes, step };
    match summarize_reader(&mut r, bytes.len() as u64) {
        Ok(s) => s,
        Err(e) => panic!("a slice reader cannot fail: {e}"),
    }
}

fn same(bytes: &[u8], what: &str) {
    let want = whole(bytes);
    for step in [usize::MAX, 7] {
        assert_eq!(
            streamed(bytes, step),
            want,
            "{what} (reads of {step} bytes)"
        );
    }
}

#[test]
fn every_corpus_file_summarizes_the_same_streamed() {
    let Some(dir) = corpus() else { return };
    let mut n = 0;
    let mut rd: Vec<_> = std::fs::read_dir(&dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    rd.sort();
    for p in rd {
        if !p.extension().is_some_and(|e| e.eq_ignore_ascii_case("vmd")) {
            continue;
        }
        let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        same(&bytes, &p.display().to_string());
        // The file itself, as inspect opens it.
        let mut f = std::fs::File::open(&p).unwrap_or_else(|e| panic!("{e}"));
        let s = summarize_reader(&mut f, bytes.len() as u64).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s, whole(&bytes), "{}", p.display());
        n += 1;
    }
    assert!(n >= 16, "only {n} corpus VMDs");
}

#[test]
fn every_truncation_of_small_files_fails_or_reads_the_same() {
    let Some(dir) = corpus() else { return };
    for name in [
        "vmd2xml__flag.vmd",
        "vmd2xml__camera.vmd",
        "vmd2xml__newvmd.vmd",
        "vmd2xml__allShadow.vmd",
        "vmd2xml__minmotion.vmd",
        "mmdbase__result.vmd",
        "vmdsizing__A_animasa_miku_a.vmd",
    ] {
        let bytes = std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        for end in 0..=bytes.len() {
            same(&bytes[..end], &format!("{name} cut to {end} bytes"));
        }
    }
}

/// A motion with bones (interleaved, a duplicate frame, a name filling all
/// 15 bytes, eased and physics-off keys), morphs, cameras (with a cut) and
/// a light, optionally written with a v1 header.
fn mixed(v1: bool) -> Vec<u8> {
    let mut m = Motion::new_v2();
    for f in 0..40u32 {
        for (b, name) in ["センター", "上半身", "abcdefghijklmno", "左足ＩＫ"]
            .iter()
            .enumerate()
        {
            let frame = if b == 2 && f == 7 { 6 } else { f };
            let mut k = BoneKey::new(
                name,
                NameEncoding::ShiftJis,
                frame,
                [f as f32, 0.5, -1.0],
                [0.0, 0.0, 0.0, 1.0],
            )
            .unwrap_or_else(|e| panic!("{e}"));
            if (f + b as u32).is_multiple_of(3) {
                k.set_curve(BoneChannel::Y, Curve::new(20, 0, 100, 127));
            }
            if f.is_multiple_of(5) {
                k.set_physics_off(true);
            }
            m.bones.push(k);
        }
    }
    for f in 0..12 {
        m.morphs.push(
            vmd::MorphKey::new("あ", NameEncoding::ShiftJis, f * 2, 0.5)
                .unwrap_or_else(|e| panic!("{e}")),
        );
    }
    let mut bytes = vmd::write(&m).unwrap_or_else(|e| panic!("{e}"));
    if v1 {
        // "Vocaloid Motion Data file" and a 10-byte model name.
        bytes[..25].copy_from_slice(b"Vocaloid Motion Data file");
        bytes.drain(40..50);
    }
    bytes
}

#[test]
fn mixed_files_and_hostile_counts_give_the_same_summary_or_error() {
    for v1 in [false, true] {
        let bytes = mixed(v1);
        let s = whole(&bytes).unwrap_or_else(|e| panic!("{e}"));
        // Not a vacuous comparison: the file has what the tally gathers.
        assert_eq!(s.counts.bones, 160);
        assert_eq!(s.bone_tracks.len(), 4);
        assert!(s.warnings.iter().any(|w| w.contains("fills all 15 bytes")));
        same(&bytes, &format!("mixed v1={v1}"));
        // Every cut in the first 1000 bytes and around the section ends.
        let count_at = if v1 { 40 } else { 50 };
        let bones_end = count_at + 4 + 160 * 111;
        let cuts = (0..1000).chain(bones_end - 300..bytes.len() + 1);
        for end in cuts.filter(|&e| e <= bytes.len()) {
            same(&bytes[..end], &format!("mixed v1={v1} cut to {end}"));
        }
        // Bone counts around the truth and absurd ones.
        for count in [0u32, 1, 159, 161, 1000, u32::MAX] {
            let mut b = bytes.clone();
            b[count_at..count_at + 4].copy_from_slice(&count.to_le_bytes());
            same(&b, &format!("mixed v1={v1} bone count {count}"));
        }
        // The morph count (right after the bones) claiming too much.
        let mut b = bytes.clone();
        b[bones_end..bones_end + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        let e = streamed(&b, usize::MAX).expect_err("a morph count past the end");
        assert_eq!(e.offset, bones_end, "offset in the real file");
        same(&b, &format!("mixed v1={v1} morph count too large"));
        // Junk after the last section.
        let mut b = bytes.clone();
        b.extend_from_slice(&[1, 2, 3]);
        same(&b, &format!("mixed v1={v1} trailing"));
    }
}

#[test]
fn a_file_that_shrinks_while_read_is_an_input_error() {
    let bytes = mixed(false);
    // Claims more bytes than the reader yields, with a bone count that fits the claim.
    let mut r = &bytes[..bytes.len() / 2];
    let got = summarize_reader(&mut r, bytes.len() as u64);
    assert!(got.is_err(), "{got:?}");
}
