//! VPD poses: reading a hand-written file, writing MMD's layout, the round
//! trip through a motion, applying (plain and mirrored), hostile files.

mod common;

use std::process::Command;

use vmd_studio::vmd::evaluate::bone_at;
use vmd_studio::vmd::vpd::{self, Vpd, VpdBone, VpdMorph};
use vmd_studio::vmd::{self, BoneKey, MorphKey, Motion, NameEncoding, TrackIndex};

/// Shift_JIS bytes of `text` (which must encode).
fn sjis(text: &str) -> Vec<u8> {
    let (b, _, bad) = encoding_rs::SHIFT_JIS.encode(text);
    assert!(!bad, "test text must be Shift_JIS");
    b.into_owned()
}

/// A small pose written by hand, CRLF, as MMD lays it out (`\x20`: a
/// space the string continuation would otherwise drop).
const HAND: &str = "Vocaloid Pose Data file\r\n\
\r\n\
miku.osm;\t\t// 親ファイル名\r\n\
2;\t\t\t\t// 総ポーズボーン数\r\n\
\r\n\
Bone0{センター\r\n\
\x20\x200.500000,1.250000,-2.000000;\t\t\t\t// trans x,y,z\r\n\
\x20\x200.000000,0.000000,0.000000,1.000000;\t\t// Quaternion x,y,z,w\r\n\
}\r\n\
\r\n\
Bone1{左腕\r\n\
\x20\x200.000000,0.000000,0.000000;\t\t\t\t// trans x,y,z\r\n\
\x20\x200.100000,0.200000,0.300000,0.927362;\t\t// Quaternion x,y,z,w\r\n\
}\r\n\
\r\n\
Morph0{まばたき\r\n\
\x20\x200.750000;\t\t\t\t// weight\r\n\
}\r\n\
\r\n";

fn bone<'a>(m: &'a Motion, name: &str, frame: u32) -> Vec<&'a BoneKey> {
    m.bones
        .iter()
        .filter(|k| k.name().text == name && k.frame() == frame)
        .collect()
}

#[test]
fn a_hand_written_pose_reads_as_written() {
    let v = vpd::read(&sjis(HAND)).expect("reads");
    assert_eq!(v.model, "miku.osm");
    assert_eq!(v.bones.len(), 2);
    assert_eq!(v.bones[0].name, "センター");
    assert_eq!(v.bones[0].position, [0.5, 1.25, -2.0]);
    assert_eq!(v.bones[0].rotation, [0.0, 0.0, 0.0, 1.0]);
    assert_eq!(v.bones[1].name, "左腕");
    assert_eq!(v.bones[1].rotation, [0.1, 0.2, 0.3, 0.927362]);
    assert_eq!(
        v.morphs,
        vec![VpdMorph {
            name: "まばたき".into(),
            weight: 0.75
        }]
    );
}

#[test]
fn writing_gives_mmds_layout_byte_for_byte() {
    let v = vpd::read(&sjis(HAND)).expect("reads");
    assert_eq!(vpd::write(&v).expect("writes"), sjis(HAND));
}

/// A motion made in the test: センター keyed at 0 and 10, 左腕 at 5,
/// まばたき at 0; plus an unrelated bone.
fn small_motion() -> Motion {
    let mut m = Motion::new_v2();
    let sj = NameEncoding::ShiftJis;
    let key = |n: &str, f: u32, p: [f32; 3], q: [f32; 4]| BoneKey::new(n, sj, f, p, q).unwrap();
    m.bones
        .push(key("センター", 0, [0.0; 3], [0.0, 0.0, 0.0, 1.0]));
    m.bones
        .push(key("センター", 10, [1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]));
    m.bones.push(key("左腕", 5, [0.0; 3], [0.0, 0.0, 0.0, 1.0]));
    m.bones.push(key("頭", 0, [0.0; 3], [0.0, 0.0, 0.0, 1.0]));
    m.morphs
        .push(MorphKey::new("まばたき", sj, 0, 0.0).unwrap());
    m
}

#[test]
fn a_hand_written_pose_applies_the_expected_keys() {
    let m = small_motion();
    let before = vmd::write(&m).unwrap();
    let idx = TrackIndex::build(&m);
    let v = vpd::read(&sjis(HAND)).unwrap();

    // At frame 5: センター has no key there → a new key; 左腕 has one →
    // its values replaced; まばたき → a new morph key.
    let r = vpd::apply_vpd(&m, &idx, &v, 5, false).unwrap();
    assert_eq!((r.added, r.changed, r.unchanged), (2, 1, 0));
    let out = &r.edit.as_ref().expect("an edit").motion;
    let c = bone(out, "センター", 5);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].position(), [0.5, 1.25, -2.0]);
    assert_eq!(c[0].rotation(), [0.0, 0.0, 0.0, 1.0]);
    assert_eq!(
        c[0].interpolation_block(),
        BoneKey::new("x", NameEncoding::ShiftJis, 0, [0.0; 3], [0.0; 4])
            .unwrap()
            .interpolation_block(),
        "a new key gets MMD's default block"
    );
    let a = bone(out, "左腕", 5);
    assert_eq!(a.len(), 1);
    assert_eq!(a[0].rotation(), [0.1, 0.2, 0.3, 0.927362]);
    // The replaced key kept everything but its values: name, frame, block.
    assert_eq!(a[0].raw[..19], m.bones[2].raw[..19]);
    assert_eq!(a[0].raw[47..], m.bones[2].raw[47..]);
    let w: Vec<f32> = out
        .morphs
        .iter()
        .filter(|k| k.frame() == 5)
        .map(|k| k.weight())
        .collect();
    assert_eq!(w, vec![0.75]);
    // Every other record is byte-identical; new ones are appended.
    assert_eq!(out.bones.len(), 5);
    for i in [0, 1, 3] {
        assert_eq!(out.bones[i].raw, m.bones[i].raw);
    }
    assert_eq!(out.morphs[0].raw, m.morphs[0].raw);
    // The input motion is untouched.
    assert_eq!(vmd::write(&m).unwrap(), before);
}

#[test]
fn a_mirrored_pose_keys_the_other_side_with_mirrored_values() {
    let m = small_motion();
    let idx = TrackIndex::build(&m);
    let v = Vpd {
        model: "m.osm".into(),
        bones: vec![VpdBone {
            name: "左腕".into(),
            position: [1.0, 2.0, 3.0],
            rotation: [0.1, 0.2, 0.3, 0.927362],
        }],
        morphs: vec![],
    };
    let r = vpd::apply_vpd(&m, &idx, &v, 7, true).unwrap();
    let out = &r.edit.expect("an edit").motion;
    assert!(bone(out, "左腕", 7).is_empty());
    let k = bone(out, "右腕", 7);
    assert_eq!(k.len(), 1);
    // The mirror on the YZ plane: (−x, y, z) and (x, −y, −z, w).
    assert_eq!(k[0].position(), [-1.0, 2.0, 3.0]);
    assert_eq!(k[0].rotation(), [0.1, -0.2, -0.3, 0.927362]);
}

#[test]
fn a_pose_round_trips_to_1e6_and_applying_it_back_changes_no_byte() {
    let Some(dir) = common::corpus() else { return };
    for (file, frames) in [
        ("mmdagent__mei_wait.vmd", [0.0, 37.0, 120.5]),
        ("webmmd__GimmeGimme_with_emotion.vmd", [0.0, 1000.0, 2345.0]),
    ] {
        let bytes = std::fs::read(dir.join(file)).unwrap();
        let m = vmd::read(&bytes).unwrap();
        let idx = TrackIndex::build(&m);
        for frame in frames {
            let (pose, left_out) = vpd::pose_at(&m, &idx, frame, "model.osm");
            // Names a VPD cannot hold (cut inside a character) are left out.
            let writable = |t: &vmd::Track| {
                encoding_rs::SHIFT_JIS
                    .decode_without_bom_handling_and_without_replacement(&t.name_key)
                    .is_some()
            };
            let bones: Vec<&vmd::Track> = idx.bones.iter().filter(|t| writable(t)).collect();
            let morphs = idx.morphs.iter().filter(|t| writable(t)).count();
            assert_eq!(pose.bones.len(), bones.len());
            assert_eq!(pose.morphs.len(), morphs);
            assert_eq!(
                left_out.len(),
                idx.bones.len() + idx.morphs.len() - bones.len() - morphs
            );
            let text = vpd::write(&pose).unwrap();
            let back = vpd::read(&text).unwrap();
            assert_eq!(back.bones.len(), pose.bones.len());
            let mut worst = 0f32;
            for (t, b) in bones.iter().zip(&back.bones) {
                assert_eq!(b.name, t.name().text);
                // The motion's own value, evaluated here from the records.
                let want = bone_at(&m, t, frame);
                for (x, y) in want.position.iter().zip(&b.position) {
                    worst = worst.max((x - y).abs());
                }
                for (x, y) in want.rotation.iter().zip(&b.rotation) {
                    worst = worst.max((x - y).abs());
                }
            }
            assert!(worst <= 1e-6, "{file} @ {frame}: worst {worst}");
            if frame.fract() == 0.0 {
                let r = vpd::apply_vpd(&m, &idx, &back, frame as u32, false).unwrap();
                assert!(r.edit.is_none(), "{file} @ {frame}: {r:?}");
                assert_eq!(r.unchanged, bones.len() + morphs);
            }
        }
    }
}

/// `HAND` with one line replaced (1-based), or lines removed.
fn hand_with(line: usize, text: Option<&str>) -> Vec<u8> {
    let mut lines: Vec<&str> = HAND.split("\r\n").collect();
    match text {
        Some(t) => lines[line - 1] = t,
        None => {
            lines.remove(line - 1);
        }
    }
    sjis(&lines.join("\r\n"))
}

#[test]
fn hostile_poses_are_refused_with_their_line() {
    let long = "左右左右左右左右"; // 8 two-byte characters: 16 bytes
    let cases: Vec<(&str, Vec<u8>, usize)> = vec![
        ("not a VPD", b"Vocaloid Motion Data 0002\r\n".to_vec(), 1),
        ("empty", Vec::new(), 1),
        ("missing '{'", hand_with(6, Some("Bone0 センター")), 6),
        ("missing '}'", hand_with(9, None), 10),
        ("'}' missing at the end", sjis(&HAND[..HAND.len() - 6]), 17),
        ("count too high", hand_with(4, Some("3;")), 4),
        ("count too low", hand_with(4, Some("1;")), 4),
        ("count not a number", hand_with(4, Some("two;")), 4),
        ("bad number", hand_with(7, Some("  0.5,1.2x,0;")), 7),
        ("NaN", hand_with(8, Some("  NaN,0,0,1;")), 8),
        ("infinity", hand_with(7, Some("  inf,0,0;")), 7),
        ("too few numbers", hand_with(7, Some("  0.5,1.0;")), 7),
        ("no ';'", hand_with(13, Some("  0,0,0,1")), 13),
        ("zero quaternion", hand_with(13, Some("  0,0,0,0;")), 13),
        (
            "name too long",
            hand_with(11, Some(&format!("Bone1{{{long}"))),
            11,
        ),
        (
            "bone numbered out of order",
            hand_with(11, Some("Bone2{左腕")),
            11,
        ),
        (
            "bone posed twice",
            hand_with(11, Some("Bone1{センター")),
            11,
        ),
        ("bad morph weight", hand_with(17, Some("  heavy;")), 17),
        ("junk between blocks", hand_with(15, Some("hello")), 15),
    ];
    for (what, bytes, line) in cases {
        match vpd::read(&bytes) {
            Ok(v) => panic!("{what}: accepted {v:?}"),
            Err(e) => {
                assert_eq!(e.line, Some(line), "{what}: {e}");
                assert!(e.to_string().starts_with(&format!("line {line}: ")), "{e}");
            }
        }
    }
    // Bytes that are not Shift_JIS text, on line 6.
    let mut bad = sjis(HAND);
    let at = bad.windows(6).position(|w| w == b"Bone0{").unwrap() + 6;
    bad[at] = 0x81;
    bad[at + 1] = 0x0D; // 0x81 needs a trail byte ≥ 0x40
    assert_eq!(vpd::read(&bad).unwrap_err().line, Some(6));
}

#[test]
fn writing_refuses_what_cannot_be_a_vpd() {
    let ok = VpdBone {
        name: "センター".into(),
        position: [0.0; 3],
        rotation: [0.0, 0.0, 0.0, 1.0],
    };
    let with = |b: VpdBone| Vpd {
        model: "m.osm".into(),
        bones: vec![b],
        morphs: vec![],
    };
    assert!(vpd::write(&with(ok.clone())).is_ok());
    for bad in [
        VpdBone {
            name: "左右左右左右左右".into(),
            ..ok.clone()
        },
        VpdBone {
            name: "Ω😀".into(),
            ..ok.clone()
        },
        VpdBone {
            position: [f32::NAN, 0.0, 0.0],
            ..ok.clone()
        },
        VpdBone {
            rotation: [0.0, f32::INFINITY, 0.0, 1.0],
            ..ok.clone()
        },
    ] {
        assert!(vpd::write(&with(bad.clone())).is_err(), "{bad:?}");
    }
    // Large values keep their exact f32 (six decimals would stray > 1e-6).
    let big = 1234.5679_f32;
    let v = with(VpdBone {
        position: [big, -big, 16.000_002],
        ..ok
    });
    let back = vpd::read(&vpd::write(&v).unwrap()).unwrap();
    assert_eq!(back.bones[0].position, [big, -big, 16.000_002]);
}

fn cli(args: &[&std::ffi::OsStr]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_vmd-studio"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn the_cli_writes_a_pose_and_applies_it_and_refuses_a_hostile_one() {
    let Some(dir) = common::corpus() else { return };
    let tmp = std::env::temp_dir().join(format!("vpd-cli-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let motion = dir.join("mmdagent__mei_wait.vmd");
    let pose = tmp.join("p.vpd");
    let o = cli(&[
        "pose".as_ref(),
        dir.join("mmdagent__mei.pmd").as_os_str(),
        motion.as_os_str(),
        "--frame".as_ref(),
        "30".as_ref(),
        "--vpd".as_ref(),
        pose.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v = vpd::read(&std::fs::read(&pose).unwrap()).unwrap();
    assert_eq!(v.model, "mmdagent__mei.osm");

    // Applied back at its own frame: the same file, byte for byte.
    let out = tmp.join("same.vmd");
    let o = cli(&[
        "apply-vpd".as_ref(),
        motion.as_os_str(),
        pose.as_os_str(),
        "--frame".as_ref(),
        "30".as_ref(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        std::fs::read(&out).unwrap(),
        std::fs::read(&motion).unwrap()
    );

    // A hostile pose: exit 1, the line named, no file written.
    let bad = tmp.join("bad.vpd");
    std::fs::write(&bad, hand_with(4, Some("9;"))).unwrap();
    let none = tmp.join("none.vmd");
    let o = cli(&[
        "apply-vpd".as_ref(),
        motion.as_os_str(),
        bad.as_os_str(),
        "--frame".as_ref(),
        "0".as_ref(),
        "-o".as_ref(),
        none.as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("line 4: the file says 9 bones but holds 2"),
        "{err}"
    );
    assert!(!none.exists());
    let _ = std::fs::remove_dir_all(&tmp);
}
