use std::path::{Path, PathBuf};
use std::time::Duration;

use super::session::is_plain_name;
use super::{
    ActorRecord, DocInfo, INTERVAL_ENV, RecoveryError, Role, SceneRecord, Session, SongRecord,
    format_utc, interval,
};
use crate::vmd;

/// A small valid VMD: a v2 header, model name, one bone key, empty rest.
fn vmd_bytes(frame: u32) -> Vec<u8> {
    let mut b = Vec::new();
    let mut header = b"Vocaloid Motion Data 0002".to_vec();
    header.resize(30, 0);
    b.extend(&header);
    let mut name = b"model".to_vec();
    name.resize(20, 0);
    b.extend(&name);
    b.extend(1u32.to_le_bytes());
    // Bone record: 15 name, frame, pos 3f, rot 4f, 64 interpolation = 111.
    let mut bone = b"center".to_vec();
    bone.resize(15, 0);
    bone.extend(frame.to_le_bytes());
    bone.extend([0u8; 12]);
    bone.extend([0u8; 12]);
    bone.extend(1.0f32.to_le_bytes());
    bone.extend([20u8; 64]);
    assert_eq!(bone.len(), 111);
    b.extend(bone);
    for _ in 0..4 {
        b.extend(0u32.to_le_bytes()); // morphs, cameras, lights, shadows
    }
    b.extend(0u32.to_le_bytes()); // IK
    b
}

fn temp_dir(tag: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("vmd-recovery-{tag}-"))
        .tempdir()
        .expect("temp dir")
}

fn info(doc_id: u64, edits: u64) -> DocInfo {
    DocInfo {
        doc_id,
        original: Some(PathBuf::from("/music/dance.vmd")),
        name: "dance.vmd".into(),
        edits,
        scene: Some(SceneRecord {
            scene_file: None,
            actors: vec![ActorRecord {
                name: "Actor 1".into(),
                model: Some(PathBuf::from("/models/mei.pmd")),
                motion: Some(PathBuf::from("/music/dance.vmd")),
                offset: -12,
                position: [12.5, 0.0, -4.0],
                turn: 30.0,
            }],
            camera: None,
            light: None,
            song: Some(SongRecord {
                path: PathBuf::from("/music/song.wav"),
                offset: 5,
            }),
            roles: vec![Role::Actor { index: 0 }],
            set: None,
        }),
    }
}

#[test]
fn the_test_vmd_is_valid() {
    let m = vmd::read(&vmd_bytes(7)).expect("reads");
    assert_eq!(m.bones.len(), 1);
    assert_eq!(vmd::write(&m).expect("writes"), vmd_bytes(7));
}

#[test]
fn a_dead_sessions_copy_is_listed_read_and_deleted() {
    let dir = temp_dir("cycle");
    let bytes = vmd_bytes(42);
    {
        let crashed = Session::start(dir.path()).expect("session");
        crashed.writer().write(&info(3, 7), &bytes).expect("write");
        // Its own copies are never offered to itself.
        let mut c = crashed;
        assert!(c.orphans().0.is_empty());
        // A second running instance does not see them either.
        let mut other = Session::start(dir.path()).expect("session");
        assert!(other.orphans().0.is_empty());
        // Dropped: lock released, as when the process dies.
    }
    let mut next = Session::start(dir.path()).expect("session");
    let (found, errors) = next.orphans();
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(found.len(), 1);
    let e = &found[0];
    assert_eq!(e.meta.edits, 7);
    assert_eq!(e.meta.doc_id, 3);
    assert_eq!(
        e.meta.original.as_deref(),
        Some(Path::new("/music/dance.vmd"))
    );
    assert_eq!(e.meta.scene, info(3, 7).scene);
    let (read, m) = e.read().expect("read");
    assert_eq!(read, bytes);
    assert_eq!(m.bones[0].frame(), 42);
    e.delete().expect("delete");
    next.release();
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .expect("dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with(next.writer().session()))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn rewriting_keeps_one_generation_and_the_newest_bytes() {
    let dir = temp_dir("gen");
    let s = Session::start(dir.path()).expect("session");
    s.writer().write(&info(1, 1), &vmd_bytes(1)).expect("w1");
    let e = s.writer().write(&info(1, 2), &vmd_bytes(2)).expect("w2");
    let vmds: Vec<_> = std::fs::read_dir(dir.path())
        .expect("dir")
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "vmd"))
        .collect();
    assert_eq!(vmds.len(), 1);
    assert_eq!(e.read().expect("read").0, vmd_bytes(2));
    assert_eq!(e.meta.edits, 2);
    s.writer().delete(1).expect("delete");
    assert!(!e.json.exists() && !e.vmd.exists());
}

#[test]
fn bytes_that_do_not_read_back_are_never_written() {
    let dir = temp_dir("bad");
    let s = Session::start(dir.path()).expect("session");
    let mut b = vmd_bytes(1);
    b.truncate(60);
    assert!(matches!(
        s.writer().write(&info(1, 1), &b),
        Err(RecoveryError::Damaged { .. })
    ));
    assert!(!s.writer().json_path(1).exists());
}

#[test]
fn damaged_copies_are_reported_not_trusted() {
    let dir = temp_dir("damaged");
    {
        let s = Session::start(dir.path()).expect("session");
        let e = s.writer().write(&info(1, 1), &vmd_bytes(1)).expect("w");
        // Bytes cut short after writing (a disk problem).
        let mut b = std::fs::read(&e.vmd).expect("read");
        b.truncate(b.len() - 5);
        std::fs::write(&e.vmd, &b).expect("cut");
        // A sidecar that is not JSON, and one pointing out of the folder.
        std::fs::write(dir.path().join("junk.json"), b"{not json").expect("junk");
        let mut m = e.meta.clone();
        m.session = "s0-0-0".into();
        m.vmd_file = "../etc/passwd".into();
        std::fs::write(
            dir.path().join("escape.json"),
            serde_json::to_vec(&m).expect("json"),
        )
        .expect("escape");
    }
    let mut s = Session::start(dir.path()).expect("session");
    let (found, errors) = s.orphans();
    assert_eq!(found.len(), 1);
    assert_eq!(errors.len(), 2, "{errors:?}");
    let err = found[0].read().expect_err("cut short");
    assert!(err.to_string().contains("sidecar says"), "{err}");
}

#[test]
fn sidecars_naming_a_drive_or_stream_are_refused_on_every_system() {
    let dir = temp_dir("names");
    {
        let s = Session::start(dir.path()).expect("session");
        let e = s.writer().write(&info(1, 1), &vmd_bytes(1)).expect("w");
        // On Windows `dir.join("C:evil.vmd")` is a file in the current
        // folder of drive C, and `x.vmd:s` an alternate data stream; on
        // Linux all three are plain names, so make them exist there: only
        // the check keeps them from being offered.
        for (i, bad) in ["C:evil.vmd", "copy.vmd:stream", "a|b.vmd"]
            .iter()
            .enumerate()
        {
            // (Never created on Windows: there they are not names.)
            if cfg!(unix) {
                std::fs::copy(&e.vmd, dir.path().join(bad)).expect("copy");
            }
            let mut m = e.meta.clone();
            m.session = format!("s0-0-{i}");
            m.vmd_file = (*bad).to_owned();
            std::fs::write(
                dir.path().join(format!("bad{i}.json")),
                serde_json::to_vec(&m).expect("json"),
            )
            .expect("sidecar");
        }
        // A session name that would put its lock file on another drive.
        let mut m = e.meta.clone();
        m.session = "D:s1".into();
        std::fs::write(
            dir.path().join("bad-session.json"),
            serde_json::to_vec(&m).expect("json"),
        )
        .expect("sidecar");
    }
    let mut s = Session::start(dir.path()).expect("session");
    let (found, errors) = s.orphans();
    // Only the good copy (its session is dead) is offered.
    let offered: Vec<&str> = found.iter().map(|e| e.meta.vmd_file.as_str()).collect();
    assert_eq!(found.len(), 1, "{offered:?}");
    assert!(offered[0].ends_with(".vmd") && !offered[0].contains(':'));
    let bad: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
    assert_eq!(bad.len(), 4, "{bad:?}");
    for name in ["C:evil.vmd", "copy.vmd:stream", "a|b.vmd", "D:s1"] {
        assert!(bad.iter().any(|m| m.contains(name)), "{name}: {bad:?}");
    }
}

/// An MMD archive unzipped on Linux keeps its Shift_JIS names as raw
/// bytes: such paths are no UTF-8, and the copy must still be written
/// and point back at the same files.
#[cfg(unix)]
#[test]
fn paths_that_are_not_utf8_are_kept_byte_for_byte() {
    use std::os::unix::ffi::OsStrExt;
    // 83 5F 83 93 83 58 is ダンス in Shift_JIS (not UTF-8).
    let sjis: &[u8] = b"\x83\x5f\x83\x93\x83\x58";
    let (text, _, bad) = encoding_rs::SHIFT_JIS.decode(sjis);
    assert!(!bad && text == "ダンス");
    let mut raw = b"/mmd/".to_vec();
    raw.extend_from_slice(sjis);
    let folder = PathBuf::from(std::ffi::OsStr::from_bytes(&raw));
    assert!(folder.to_str().is_none(), "not UTF-8");
    let mut doc = info(4, 2);
    doc.original = Some(folder.join("dance.vmd"));
    if let Some(scene) = &mut doc.scene {
        scene.actors[0].model = Some(folder.join("model.pmx"));
        scene.scene_file = Some(folder.join("show.vmdscene"));
    }
    let dir = temp_dir("sjis");
    {
        let s = Session::start(dir.path()).expect("session");
        let e = s.writer().write(&doc, &vmd_bytes(3)).expect("written");
        let json = std::fs::read_to_string(&e.json).expect("sidecar");
        // UTF-8 paths stay plain strings; the others are their bytes.
        assert!(json.contains("\"/music/song.wav\""), "{json}");
        assert!(json.contains("os_bytes"), "{json}");
    }
    let mut next = Session::start(dir.path()).expect("session");
    let (found, errors) = next.orphans();
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].meta.original, doc.original);
    assert_eq!(found[0].meta.scene, doc.scene);
}

#[test]
fn plain_names_are_told_from_paths() {
    for good in ["s12-1700000000000-0-doc3-g7.vmd", "s1-2-3", "ダンス.vmd"] {
        assert!(is_plain_name(good), "{good}");
    }
    for bad in [
        "",
        ".hidden.vmd",
        "..",
        "../x.vmd",
        "a\\b.vmd",
        "C:x.vmd",
        "x.vmd:s",
        "a*b",
        "a\nb",
    ] {
        assert!(!is_plain_name(bad), "{bad:?}");
    }
}

#[test]
fn utc_times_match_known_dates() {
    assert_eq!(format_utc(0), "1970-01-01 00:00:00 UTC");
    // 2000-02-29 12:34:56 UTC = 951827696 s (leap day).
    assert_eq!(format_utc(951_827_696_000), "2000-02-29 12:34:56 UTC");
    // 2026-11-30 10:00:00 UTC = 1796032800 s.
    assert_eq!(format_utc(1_796_032_800_999), "2026-11-30 10:00:00 UTC");
}

#[test]
fn interval_defaults_to_thirty_seconds() {
    if std::env::var_os(INTERVAL_ENV).is_none() {
        assert_eq!(interval(), Duration::from_secs(30));
    }
}

#[test]
fn leftover_temporary_files_are_swept_and_live_ones_kept() {
    let dir = temp_dir("tmp-sweep");
    let old = dir.path().join(".recovery-abc123.tmp");
    let fresh = dir.path().join(".recovery-def456.tmp");
    let other = dir.path().join("notes.tmp");
    for p in [&old, &fresh, &other] {
        std::fs::write(p, b"partial").expect("write");
    }
    // Left by a crash an hour ago.
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(&old)
        .and_then(|f| f.set_modified(hour_ago))
        .expect("set mtime");
    let mut s = Session::start(dir.path()).expect("session");
    let _ = s.orphans();
    assert!(!old.exists(), "the stale temporary is swept");
    assert!(
        fresh.exists(),
        "a temporary written just now may be a live write"
    );
    assert!(other.exists(), "other files are not touched");
    // The rule itself: ten minutes.
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(601);
    assert_eq!(
        super::session::sweep_stale_temporaries(dir.path(), later),
        1
    );
    assert!(!fresh.exists() && other.exists());
}
