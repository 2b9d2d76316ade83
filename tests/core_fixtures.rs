//! Hand-built VMD files, one commented field per line (ttf-parser style),
//! for each edge case of the format, plus the edit and save guarantees.
//!
//! Every expected value comes from the spec (`shared/spec/vmd-format.md`)
//! or from the bytes written here; Shift_JIS/GBK byte sequences were
//! looked up in the CP932 and GBK code tables (checked with Python's
//! `str.encode('cp932')` / `'gbk'`).

use vmd_studio::vmd::{
    self, BoneChannel, BoneKey, Curve, Motion, NameEncoding, NameError, ReadErrorKind, Section,
    TrackIndex, Version, evaluate, summary::summarize,
};

// ------------------------------------------------------------ byte helpers

fn u32le(v: u32) -> [u8; 4] {
    v.to_le_bytes()
}
fn f32le(v: f32) -> [u8; 4] {
    v.to_le_bytes()
}
/// A fixed-length field: `text` then NUL padding to `len`.
fn field(text: &[u8], len: usize) -> Vec<u8> {
    assert!(text.len() <= len);
    let mut v = text.to_vec();
    v.resize(len, 0);
    v
}

/// `Vocaloid Motion Data 0002` + NUL padding: 25 + 5 = 30 bytes.
fn header_v2() -> Vec<u8> {
    field(b"Vocaloid Motion Data 0002", 30)
}

/// MMD's default linear block (spec, "Default (linear) block").
const LINEAR_BLOCK: [u8; 64] = [
    20, 20, 0, 0, 20, 20, 20, 20, 107, 107, 107, 107, 107, 107, 107, 107, //
    20, 20, 20, 20, 20, 20, 20, 107, 107, 107, 107, 107, 107, 107, 107, 0, //
    20, 20, 20, 20, 20, 20, 107, 107, 107, 107, 107, 107, 107, 107, 0, 0, //
    20, 20, 20, 20, 20, 107, 107, 107, 107, 107, 107, 107, 107, 0, 0, 0,
];

/// One 111-byte bone record.
fn bone_record(name: &[u8], frame: u32, pos: [f32; 3], rot: [f32; 4], block: &[u8; 64]) -> Vec<u8> {
    let mut r = Vec::new();
    r.extend(field(name, 15)); // name, 15 bytes
    r.extend(u32le(frame)); // frame
    for p in pos {
        r.extend(f32le(p)); // position x, y, z
    }
    for q in rot {
        r.extend(f32le(q)); // rotation x, y, z, w
    }
    r.extend_from_slice(block); // interpolation, 64 bytes
    assert_eq!(r.len(), 111);
    r
}

/// Header + "Mei" model name + one bone key ("センター", frame 0), then the
/// given tail. 30 + 20 + 4 + 111 = 165 bytes before the tail.
fn one_bone_file() -> Vec<u8> {
    let mut f = Vec::new();
    f.extend(header_v2()); // 0: header, 30 bytes
    f.extend(field(b"Mei", 20)); // 30: model name, 20 bytes
    f.extend(u32le(1)); // 50: bone count = 1
    f.extend(bone_record(
        &[0x83, 0x5a, 0x83, 0x93, 0x83, 0x5e, 0x81, 0x5b], // 54: センター (CP932)
        0,
        [1.0, 2.0, 3.0],
        [0.0, 0.0, 0.0, 1.0],
        &LINEAR_BLOCK,
    ));
    assert_eq!(f.len(), 165);
    f
}

fn round_trips(bytes: &[u8]) -> Motion {
    let m = vmd::read(bytes).unwrap_or_else(|e| panic!("fixture must read: {e}"));
    let out = vmd::write(&m).unwrap_or_else(|e| panic!("fixture must write: {e}"));
    assert_eq!(out, bytes, "round trip must be byte-identical");
    m
}

fn warnings(m: &Motion) -> Vec<String> {
    summarize(m, &TrackIndex::build(m)).warnings
}

// ------------------------------------------------------------ reading

#[test]
fn v1_header_with_a_10_byte_model_name() {
    let mut f = Vec::new();
    f.extend(field(b"Vocaloid Motion Data file", 30)); // 0: v1 header (25 + 5 NUL)
    f.extend(field(b"miku", 10)); // 30: model name, only 10 bytes in v1
    f.extend(u32le(1)); // 40: bone count
    f.extend(bone_record(
        b"bone",
        7,
        [0.0; 3],
        [0.0, 0.0, 0.0, 1.0],
        &LINEAR_BLOCK,
    )); // 44
    f.extend(u32le(0)); // 155: morph count
    let m = round_trips(&f);
    assert_eq!(m.version, Version::V1);
    assert_eq!(m.model_name_field.len(), 10);
    assert_eq!(m.model_name().text, "miku");
    assert_eq!(m.bones.len(), 1);
    assert_eq!(m.bones[0].frame(), 7);
    assert_eq!(m.bones[0].name().text, "bone");
    assert_eq!(m.sections_present, 2, "bone and morph counts present");
    assert!(m.trailing.is_empty());
    assert_eq!(summarize(&m, &TrackIndex::build(&m)).version, 1);
}

#[test]
fn file_ending_after_the_bone_section_is_valid() {
    let f = one_bone_file(); // ends right after the bone record: no morph count
    let m = round_trips(&f);
    assert_eq!(m.sections_present, 1);
    assert!(m.section_present(Section::Bone));
    for s in [
        Section::Morph,
        Section::Camera,
        Section::Light,
        Section::SelfShadow,
        Section::Ik,
    ] {
        assert!(!m.section_present(s), "{s:?} absent");
    }
    assert!(m.trailing.is_empty());
    assert!(warnings(&m).is_empty(), "{:?}", warnings(&m));
}

#[test]
fn one_to_three_stray_bytes_after_a_section_are_kept_as_trailing() {
    for n in 1..=3u8 {
        let mut f = one_bone_file();
        f.extend((0..n).map(|i| 0xA0 + i)); // 165: n stray bytes, fewer than a count
        let m = round_trips(&f);
        assert_eq!(m.sections_present, 1, "{n} stray bytes are not a section");
        assert_eq!(m.trailing.len(), usize::from(n));
        let w = warnings(&m);
        assert!(
            w.iter()
                .any(|w| w.contains(&format!("{n} bytes after the last section"))),
            "{w:?}"
        );
    }
}

#[test]
fn header_only_files() {
    // 50 bytes: header + model name, no sections at all (valid; like vmd2xml's
    // 70-byte empty motion, but even shorter).
    let mut f = header_v2(); // 0: header
    f.extend(field(b"", 20)); // 30: empty model name
    let m = round_trips(&f);
    assert_eq!(m.sections_present, 0);
    assert_eq!(m.last_frame(), None);
    // 49 bytes: ends inside the model name → error at offset 30.
    let e = vmd::read(&f[..49]).expect_err("truncated model name");
    assert_eq!(e.offset, 30);
    assert!(
        matches!(
            e.kind,
            ReadErrorKind::Truncated {
                what: "model name",
                needed: 20,
                remaining: 19
            }
        ),
        "{e}"
    );
}

/// A full v2 file with every section: morph, camera, light, self-shadow and
/// two variable-length IK/show keys, then `tail` trailing bytes.
fn all_sections_file(tail: &[u8]) -> Vec<u8> {
    let mut f = one_bone_file(); // 0..165: header, model, 1 bone key
    f.extend(u32le(1)); // 165: morph count
    f.extend(field(&[0x82, 0xa0], 15)); // 169: morph name あ (CP932 82 A0)
    f.extend(u32le(4)); // 184: frame
    f.extend(f32le(0.25)); // 188: weight
    f.extend(u32le(0)); // 192: camera count 0
    f.extend(u32le(1)); // 196: light count
    f.extend(u32le(30)); // 200: frame
    f.extend(f32le(0.6)); // 204: colour r
    f.extend(f32le(0.5)); // 208: colour g
    f.extend(f32le(0.4)); // 212: colour b
    f.extend(f32le(-0.5)); // 216: direction x
    f.extend(f32le(-1.0)); // 220: direction y
    f.extend(f32le(0.5)); // 224: direction z
    f.extend(u32le(1)); // 228: self-shadow count
    f.extend(u32le(12)); // 232: frame
    f.push(2); // 236: mode 2
    f.extend(f32le(0.0875)); // 237: distance
    f.extend(u32le(2)); // 241: IK/show count
    f.extend(u32le(0)); // 245: key 1 frame 0
    f.push(1); // 249: shown
    f.extend(u32le(2)); // 250: 2 IK entries
    f.extend(field(&[0x89, 0x45, 0x91, 0xab, 0x82, 0x68, 0x82, 0x6a], 20)); // 254: 右足ＩＫ, 20 bytes
    f.push(1); // 274: enabled
    f.extend(field(&[0x8d, 0xb6, 0x91, 0xab, 0x82, 0x68, 0x82, 0x6a], 20)); // 275: 左足ＩＫ
    f.push(0); // 295: disabled
    f.extend(u32le(20)); // 296: key 2 frame 20
    f.push(0); // 300: hidden
    f.extend(u32le(0)); // 301: no IK entries (a 9-byte record)
    assert_eq!(f.len(), 305);
    f.extend_from_slice(tail); // 305: trailing bytes
    f
}

#[test]
fn every_section_with_light_shadow_and_variable_ik_records() {
    let f = all_sections_file(&[]);
    let m = round_trips(&f);
    assert_eq!(m.sections_present, 6);
    assert!(m.trailing.is_empty());
    // Morph
    assert_eq!(m.morphs[0].name().text, "あ");
    assert_eq!(m.morphs[0].frame(), 4);
    assert_eq!(m.morphs[0].weight(), 0.25);
    // Light
    assert_eq!(m.lights.len(), 1);
    assert_eq!(m.lights[0].frame(), 30);
    assert_eq!(m.lights[0].color(), [0.6, 0.5, 0.4]);
    assert_eq!(m.lights[0].direction(), [-0.5, -1.0, 0.5]);
    // Self-shadow
    assert_eq!(m.shadows[0].frame(), 12);
    assert_eq!(m.shadows[0].mode(), 2);
    assert_eq!(m.shadows[0].distance(), 0.0875);
    // IK/show: 9 + 2 × 21 = 51 bytes, then 9 bytes.
    assert_eq!(m.iks.len(), 2);
    assert_eq!(m.iks[0].raw.len(), 51);
    assert_eq!(m.iks[1].raw.len(), 9);
    assert_eq!(m.iks[0].entry_count(), 2);
    assert_eq!(m.iks[0].entry_name(0).text, "右足ＩＫ");
    assert!(m.iks[0].entry_enabled(0));
    assert_eq!(m.iks[0].entry_name(1).text, "左足ＩＫ");
    assert!(!m.iks[0].entry_enabled(1));
    assert!(m.iks[0].show());
    assert!(!m.iks[1].show());
    assert_eq!(m.iks[1].frame(), 20);
    assert_eq!(m.last_frame(), Some(30), "the light key is the last");
    let s = summarize(&m, &TrackIndex::build(&m));
    assert_eq!(
        s.kind.label(),
        "light",
        "1 light key, ≤ 10 bone and camera keys"
    );
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
}

#[test]
fn trailing_bytes_after_the_ik_section_are_kept_and_warned() {
    let tail = [0xde, 0xad, 0xbe, 0xef, 0x00, 0x01, 0x02]; // 7 bytes, more than a count
    let f = all_sections_file(&tail);
    let m = round_trips(&f);
    assert_eq!(m.trailing, tail);
    let w = warnings(&m);
    assert!(
        w.iter()
            .any(|w| w.contains("7 bytes after the last section")),
        "{w:?}"
    );
}

#[test]
fn junk_after_nul_is_kept_and_not_shown() {
    let mut f = header_v2(); // 0: header
    // 30: model name "Mei" NUL then 0xFD filler, as MMDAgent writes it.
    f.extend([0x4d, 0x65, 0x69, 0x00, 0xfd, 0xfd, 0xfd, 0xfd, 0xfd, 0xfd]);
    f.extend([0xfd; 10]);
    f.extend(u32le(1)); // 50: bone count
    // 54: bone name 頭 (93 AA), NUL, then garbage left over from an older name.
    let name = [
        0x93, 0xaa, 0x00, 0x83, 0x5a, 0x83, 0x93, 0xfd, 0xfd, 0xfd, 0xfd, 0xfd, 0xfd, 0xfd, 0xfd,
    ];
    f.extend(bone_record(
        &name,
        0,
        [0.0; 3],
        [0.0, 0.0, 0.0, 1.0],
        &LINEAR_BLOCK,
    ));
    let m = round_trips(&f);
    assert_eq!(m.model_name().text, "Mei");
    assert!(m.model_name().junk_after_nul);
    let d = m.bones[0].name();
    assert_eq!(d.text, "頭");
    assert!(d.junk_after_nul);
    assert_eq!(m.bones[0].name_key(), &[0x93, 0xaa]);
    assert_eq!(m.bones[0].name_field(), &name);
    assert!(
        warnings(&m).is_empty(),
        "junk after NUL is normal: {:?}",
        warnings(&m)
    );
}

#[test]
fn a_name_cut_mid_character_shows_without_the_dangling_byte() {
    let mut f = header_v2(); // 0
    f.extend(field(b"m", 20)); // 30
    f.extend(u32le(1)); // 50: bone count
    // 54: 15 bytes, no NUL: センターセンタ (7 × 2 bytes) + 0x81, the first byte of ー.
    let name = [
        0x83, 0x5a, 0x83, 0x93, 0x83, 0x5e, 0x81, 0x5b, 0x83, 0x5a, 0x83, 0x93, 0x83, 0x5e, 0x81,
    ];
    f.extend(bone_record(
        &name,
        0,
        [0.0; 3],
        [0.0, 0.0, 0.0, 1.0],
        &LINEAR_BLOCK,
    ));
    let m = round_trips(&f);
    let d = m.bones[0].name();
    assert_eq!(d.text, "センターセンタ");
    assert!(d.cut_mid_char && d.unterminated);
    assert!(!d.text.contains('\u{FFFD}'));
    let w = warnings(&m);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains("センターセンタ") && w[0].contains("cut in the middle"),
        "{w:?}"
    );
}

#[test]
fn two_cut_names_that_show_the_same_are_a_collision_warning() {
    let mut f = header_v2(); // 0
    f.extend(field(b"m", 20)); // 30
    f.extend(u32le(2)); // 50: bone count 2
    // 54: センターセンタ + 0x81 (cut ー)
    let a = [
        0x83, 0x5a, 0x83, 0x93, 0x83, 0x5e, 0x81, 0x5b, 0x83, 0x5a, 0x83, 0x93, 0x83, 0x5e, 0x81,
    ];
    // 165: センターセンタ + 0x83 (cut another katakana): a different track, same display text
    let b = [
        0x83, 0x5a, 0x83, 0x93, 0x83, 0x5e, 0x81, 0x5b, 0x83, 0x5a, 0x83, 0x93, 0x83, 0x5e, 0x83,
    ];
    f.extend(bone_record(
        &a,
        0,
        [0.0; 3],
        [0.0, 0.0, 0.0, 1.0],
        &LINEAR_BLOCK,
    ));
    f.extend(bone_record(
        &b,
        0,
        [0.0; 3],
        [0.0, 0.0, 0.0, 1.0],
        &LINEAR_BLOCK,
    ));
    let m = round_trips(&f);
    let idx = TrackIndex::build(&m);
    assert_eq!(idx.bones.len(), 2, "raw names differ: two tracks");
    let w = warnings(&m);
    assert!(
        w.iter()
            .any(|w| w.contains("2 different bone names show as")),
        "{w:?}"
    );
}

#[test]
fn a_gbk_name_is_shown_as_gbk_and_warned() {
    let mut f = header_v2(); // 0
    f.extend(field(b"m", 20)); // 30
    f.extend(u32le(1)); // 50: bone count
    // 54: 左腿 in GBK = D7 F3 CD C8. In CP932 this is ﾗ, the user-defined
    // (private-use) F3 CD, ﾈ: garbage, so the name is GBK.
    f.extend(bone_record(
        &[0xd7, 0xf3, 0xcd, 0xc8],
        0,
        [0.0; 3],
        [0.0, 0.0, 0.0, 1.0],
        &LINEAR_BLOCK,
    ));
    let m = round_trips(&f);
    let d = m.bones[0].name();
    assert_eq!(d.text, "左腿");
    assert_eq!(d.encoding, NameEncoding::Gbk);
    let w = warnings(&m);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains("左腿") && w[0].contains("GBK"), "{w:?}");
}

#[test]
fn duplicate_keys_and_a_camera_in_a_model_file_are_warned() {
    let mut f = header_v2(); // 0
    f.extend(field(b"Mei", 20)); // 30: not カメラ・照明
    f.extend(u32le(2)); // 50: bone count 2, same bone, same frame 5
    f.extend(bone_record(
        b"a",
        5,
        [0.0; 3],
        [0.0, 0.0, 0.0, 1.0],
        &LINEAR_BLOCK,
    )); // 54
    f.extend(bone_record(
        b"a",
        5,
        [1.0; 3],
        [0.0, 0.0, 0.0, 1.0],
        &LINEAR_BLOCK,
    )); // 165
    f.extend(u32le(0)); // 276: morph count
    f.extend(u32le(1)); // 280: camera count
    f.extend(u32le(0)); // 284: frame
    f.extend(f32le(-45.0)); // 288: distance
    f.extend([f32le(0.0), f32le(10.0), f32le(0.0)].concat()); // 292: target
    f.extend([0u8; 12]); // 304: rotation 0, 0, 0
    f.extend([20, 107, 20, 107].repeat(6)); // 316: six linear curves (x1 x2 y1 y2)
    f.extend(u32le(30)); // 340: fov
    f.push(0); // 344: perspective on
    let m = round_trips(&f);
    let w = warnings(&m);
    assert!(
        w.iter()
            .any(|w| w.starts_with("1 bone keys share a (bone, frame)")),
        "{w:?}"
    );
    assert!(w.iter().any(|w| w.contains("not カメラ・照明")), "{w:?}");
    // The later key in the file wins when evaluating.
    let idx = TrackIndex::build(&m);
    let p = evaluate::bone_at(&m, &idx.bones[0], 5.0);
    assert_eq!(p.position, [1.0; 3]);
}

// ------------------------------------------------------------ errors

#[test]
fn count_too_large_in_each_section_names_the_section_and_offset() {
    // Build a file whose sections before `bad` are present and empty, then
    // a count of 1000 for `bad` with 8 bytes left.
    for (i, section) in Section::ALL.iter().enumerate() {
        let mut f = header_v2(); // 0: header
        f.extend(field(b"m", 20)); // 30: model name
        for _ in 0..i {
            f.extend(u32le(0)); // earlier sections: count 0
        }
        let count_at = f.len(); // 50 + 4i
        f.extend(u32le(1000)); // the hostile count
        f.extend([0u8; 8]); // 8 bytes left
        let e = vmd::read(&f).expect_err("count too large");
        assert_eq!(e.offset, 50 + 4 * i, "{section:?}");
        assert_eq!(e.offset, count_at);
        let size = [111u64, 23, 61, 28, 9, 9][i]; // record sizes from the spec (IK: the 9-byte head)
        match &e.kind {
            ReadErrorKind::CountTooLarge {
                section: s,
                count,
                bytes,
                remaining,
            } => {
                assert_eq!(*s, section.label());
                assert_eq!(*count, 1000);
                assert_eq!(*bytes, 1000 * size);
                assert_eq!(*remaining, 8);
            }
            k => panic!("{section:?}: {k:?}"),
        }
        let msg = e.to_string();
        assert!(
            msg.contains(section.label()) && msg.contains(&format!("offset {count_at}")),
            "{msg}"
        );
    }
}

#[test]
fn ik_entry_count_too_large_and_truncated_ik_record() {
    // An IK key claiming 1000 entries with 21 bytes left.
    let mut f = header_v2(); // 0
    f.extend(field(b"m", 20)); // 30
    f.extend([0u8; 20]); // 50: bone, morph, camera, light, shadow counts = 0
    f.extend(u32le(1)); // 70: IK count 1
    f.extend(u32le(0)); // 74: frame
    f.push(1); // 78: show
    f.extend(u32le(1000)); // 79: IK entries = 1000
    f.extend([0u8; 21]); // 83: one entry's worth
    let e = vmd::read(&f).expect_err("IK entry count");
    assert_eq!(e.offset, 79);
    assert!(
        matches!(
            e.kind,
            ReadErrorKind::CountTooLarge {
                count: 1000,
                bytes: 21000,
                remaining: 21,
                ..
            }
        ),
        "{e}"
    );

    // Two IK keys: the first has 1 entry (30 bytes), the second is cut after 5 bytes.
    let mut f = header_v2(); // 0
    f.extend(field(b"m", 20)); // 30
    f.extend([0u8; 20]); // 50: five empty sections
    f.extend(u32le(2)); // 70: IK count 2 (2 × 9 = 18 ≤ 35 left, passes the count check)
    f.extend(u32le(0)); // 74: key 1 frame
    f.push(1); // 78: show
    f.extend(u32le(1)); // 79: 1 entry
    f.extend(field(b"ik", 20)); // 83: name
    f.push(1); // 103: enabled
    f.extend([9, 0, 0, 0, 1]); // 104: key 2: frame 9, show — then the file ends
    let e = vmd::read(&f).expect_err("truncated IK record");
    assert_eq!(e.offset, 104);
    assert!(
        matches!(
            e.kind,
            ReadErrorKind::Truncated {
                needed: 9,
                remaining: 5,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn non_vmd_input_is_refused_at_offset_0() {
    for bytes in [
        &b"PMX \x00\x00\x00\x40 this is a model, not a motion file......"[..],
        b"hello",
        b"VOCALOID MOTION DATA 0002",
        b"Vocaloid Motion Dat\x00 0002\x00\x00\x00\x00\x00model name here....",
    ] {
        let e = vmd::read(bytes).expect_err("not a VMD");
        assert_eq!(e.offset, 0, "{bytes:?}");
        assert_eq!(e.kind, ReadErrorKind::NotVmd, "{bytes:?}: {e}");
    }
    // Input that matches the prefix as far as it goes but ends inside the
    // 30-byte header is a truncation (an empty file included).
    for bytes in [&b"Vocaloid Motion Data 0002"[..], b"Vocaloid Motion", b""] {
        let e = vmd::read(bytes).expect_err("short header");
        assert_eq!(e.offset, 0);
        assert!(
            matches!(
                e.kind,
                ReadErrorKind::Truncated {
                    what: "header",
                    needed: 30,
                    ..
                }
            ),
            "{e}"
        );
    }
}

// ------------------------------------------------------------ edits

/// Record offsets of channel `c`'s copies, computed by hand from the spec
/// (block at record offset 47; P[j] at block byte 16k + j − k for rows
/// k = 0..=min(j, 3), row 0 bytes 2–3 excluded):
///  X (P0, P4, P8, P12):  0 | 4 19 34 49 | 8 23 38 53 | 12 27 42 57
///  Y (P1, P5, P9, P13):  1 16 | 5 20 35 50 | 9 24 39 54 | 13 28 43 58
///  Z (P2, P6, P10, P14): (2) 17 32 | 6 21 36 51 | 10 25 40 55 | 14 29 44 59
///  R (P3, P7, P11, P15): (3) 18 33 48 | 7 22 37 52 | 11 26 41 56 | 15 30 45 60
fn hand_offsets(c: BoneChannel) -> Vec<usize> {
    let block: &[usize] = match c {
        BoneChannel::X => &[0, 4, 19, 34, 49, 8, 23, 38, 53, 12, 27, 42, 57],
        BoneChannel::Y => &[1, 16, 5, 20, 35, 50, 9, 24, 39, 54, 13, 28, 43, 58],
        BoneChannel::Z => &[17, 32, 6, 21, 36, 51, 10, 25, 40, 55, 14, 29, 44, 59],
        BoneChannel::Rotation => &[18, 33, 48, 7, 22, 37, 52, 11, 26, 41, 56, 15, 30, 45, 60],
    };
    let mut v: Vec<usize> = block.iter().map(|b| 47 + b).collect();
    v.sort();
    v
}

#[test]
fn setting_a_curve_changes_exactly_the_spec_offsets_and_never_bytes_2_3() {
    for c in BoneChannel::ALL {
        let mut k = match BoneKey::new(
            "左腕",
            NameEncoding::ShiftJis,
            3,
            [1.0, 2.0, 3.0],
            [0.0, 0.0, 0.0, 1.0],
        ) {
            Ok(k) => k,
            Err(e) => panic!("{e}"),
        };
        k.set_physics_off(true); // bytes 2–3 = 63 0F
        k.raw[47 + 31] = 0xAB; // filler at the end of row 1
        let before = k.raw;
        // Values differ from 20/107 and from each other, so each copy shows.
        let curve = Curve::new(1, 2, 3, 4);
        k.set_curve(c, curve);
        let changed: Vec<usize> = (0..111).filter(|&i| k.raw[i] != before[i]).collect();
        assert_eq!(changed, hand_offsets(c), "{c:?}");
        assert_eq!(&k.raw[49..51], &[0x63, 0x0F], "physics bytes kept");
        assert!(k.physics_off());
        assert_eq!(k.raw[47 + 31], 0xAB, "filler kept");
        assert_eq!(k.curve(c), curve);
        // The value at each changed offset is the right control value.
        let want = |off: usize| {
            let b = off - 47;
            let j = b % 16 + b / 16; // P index: byte 16k + j − k
            [1, 2, 3, 4][j / 4] // P[j] belongs to x1, y1, x2, y2 by j / 4
        };
        for &off in &changed {
            assert_eq!(k.raw[off], want(off), "{c:?} offset {off}");
        }
    }
}

#[test]
fn set_name_refuses_16_bytes_and_leaves_the_record_unchanged() {
    let mut k = match BoneKey::new(
        "左腕",
        NameEncoding::ShiftJis,
        0,
        [0.0; 3],
        [0.0, 0.0, 0.0, 1.0],
    ) {
        Ok(k) => k,
        Err(e) => panic!("{e}"),
    };
    let before = k.raw;
    // 8 double-byte characters = 16 bytes in CP932 (one more than the field).
    let long = "左人差指先端ＩＫ";
    let e = k
        .set_name(long, NameEncoding::ShiftJis)
        .expect_err("16 bytes do not fit 15");
    assert!(
        matches!(
            &e,
            NameError::TooLong {
                len: 16,
                max: 15,
                ..
            }
        ),
        "{e:?}"
    );
    let msg = e.to_string();
    assert!(msg.contains(long) && msg.contains("16"), "{msg}");
    assert_eq!(k.raw, before, "refused edit leaves the record unchanged");
    // 15 bytes fit exactly (7 double-byte + 1 ASCII), no NUL needed.
    k.set_name("左人差指先端Ｉ1", NameEncoding::ShiftJis)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(k.name().text, "左人差指先端Ｉ1");
    assert_eq!(&k.raw[15..], &before[15..], "only the name bytes changed");
}

fn scratch_dir(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("vmd-core-fixtures-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
    d
}

#[test]
fn saving_into_a_missing_directory_fails_and_leaves_nothing() {
    let d = scratch_dir("missing");
    let m = round_trips(&one_bone_file());
    let target = d.join("no-such-dir").join("out.vmd");
    let e = vmd::save(&m, &target).expect_err("missing directory");
    let msg = e.to_string();
    assert!(
        msg.contains("cannot save") && msg.contains("out.vmd"),
        "{msg}"
    );
    assert!(!d.join("no-such-dir").exists());
    let left: Vec<_> = std::fs::read_dir(&d)
        .map(|r| r.filter_map(|e| e.ok()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "{left:?}");

    // A target that is a directory: the rename fails after the temp file
    // was written; the temp file must be gone and the directory untouched.
    let target = d.join("is-a-dir.vmd");
    std::fs::create_dir(&target).unwrap_or_else(|e| panic!("{e}"));
    assert!(vmd::save(&m, &target).is_err());
    let left: Vec<String> = std::fs::read_dir(&d)
        .map(|r| {
            r.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(left, vec!["is-a-dir.vmd".to_string()], "no temp file left");
    assert!(target.is_dir());
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn saving_over_an_existing_file_replaces_it_completely() {
    let d = scratch_dir("over");
    let target = d.join("motion.vmd");
    // An old, longer file.
    let old = all_sections_file(&[0x55; 1000]);
    std::fs::write(&target, &old).unwrap_or_else(|e| panic!("{e}"));
    let new = one_bone_file();
    let m = round_trips(&new);
    vmd::save(&m, &target).unwrap_or_else(|e| panic!("{e}"));
    let disk = std::fs::read(&target).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(disk, new, "exactly the new bytes, nothing of the old tail");
    let names: Vec<String> = std::fs::read_dir(&d)
        .map(|r| {
            r.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(names, vec!["motion.vmd".to_string()]);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn an_edit_rewrites_only_its_field() {
    let f = all_sections_file(&[1, 2]);
    let mut m = round_trips(&f);
    m.lights[0].set_frame(31);
    let out = vmd::write(&m).unwrap_or_else(|e| panic!("{e}"));
    let diff: Vec<usize> = (0..f.len()).filter(|&i| out[i] != f[i]).collect();
    assert_eq!(
        diff,
        vec![200],
        "light frame at offset 200: 30 → 31 changes one byte"
    );
    m.morphs[0].set_weight(0.5);
    let out = vmd::write(&m).unwrap_or_else(|e| panic!("{e}"));
    let diff: Vec<usize> = (0..f.len()).filter(|&i| out[i] != f[i]).collect();
    // 0.25 = 0x3E800000, 0.5 = 0x3F000000: bytes 190 and 191 (LE) change.
    assert_eq!(diff, vec![190, 191, 200]);
}

#[test]
fn names_cut_to_the_same_15_bytes_are_a_collision_warning() {
    // Two bones "middle_04_leaf_L" and "middle_04_leaf_R" (16 bytes) cut by
    // their writer to the same 15 bytes "middle_04_leaf_": one track with
    // two keys on each frame (as in the corpus file mcmmdrust__Drink.vmd).
    let mut f = header_v2(); // 0
    f.extend(field(b"m", 20)); // 30
    f.extend(u32le(4)); // 50: bone count 4
    f.extend(bone_record(
        b"middle_04_leaf_",
        0,
        [0.0; 3],
        [0.0, 0.0, 0.0, 1.0],
        &LINEAR_BLOCK,
    )); // 54: "L", frame 0
    f.extend(bone_record(
        b"middle_04_leaf_",
        9,
        [0.0; 3],
        [0.0, 0.0, 0.0, 1.0],
        &LINEAR_BLOCK,
    )); // 165: "L", frame 9
    f.extend(bone_record(
        b"middle_04_leaf_",
        0,
        [2.0; 3],
        [0.0, 0.0, 0.0, 1.0],
        &LINEAR_BLOCK,
    )); // 276: "R", frame 0
    f.extend(bone_record(
        b"middle_04_leaf_",
        9,
        [4.0; 3],
        [0.0, 0.0, 0.0, 1.0],
        &LINEAR_BLOCK,
    )); // 387: "R", frame 9
    let m = round_trips(&f);
    let idx = TrackIndex::build(&m);
    assert_eq!(idx.bones.len(), 1);
    let w = warnings(&m);
    assert!(
        w.iter().any(|w| w.contains(
            "\"middle_04_leaf_\" fills all 15 bytes and has 2 frames keyed more than once"
        )),
        "{w:?}"
    );
    // Evaluation uses the later keys ("R") consistently, at both ends of a segment.
    let p = evaluate::bone_at(&m, &idx.bones[0], 4.5);
    assert_eq!(p.position, [3.0; 3], "half-way between R's 2.0 and 4.0");
    assert_eq!(evaluate::bone_at(&m, &idx.bones[0], 0.0).position, [2.0; 3]);
}
