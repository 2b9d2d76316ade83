//! The `inspect`, `sample` and `rewrite` verbs, run as the built binary.
//!
//! Expected JSON keys are the lists in issue 2 ("CLI, stable, so scripts can
//! rely on it"); expected numbers come from CENSUS.txt (see core_corpus.rs)
//! or from hand-built files.

mod common;
use common::corpus;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_vmd-studio"))
}

fn run(args: &[&str]) -> Output {
    bin()
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run vmd-studio: {e}"))
}

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("vmd-core-cli-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("{e}"));
    d
}

fn json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "exit {:?}, stderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}

fn keys(v: &serde_json::Value) -> BTreeSet<String> {
    v.as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default()
}

fn set(list: &[&str]) -> BTreeSet<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap_or_else(|| panic!("non-UTF-8 path"))
}

#[test]
fn inspect_json_has_exactly_the_documented_keys() {
    let Some(dir) = corpus() else { return };
    let f = dir.join("webmmd__GimmexGimme.vmd");
    let v = json(&run(&["inspect", p(&f), "--json"]));
    assert_eq!(
        keys(&v),
        set(&[
            "version",
            "model_name",
            "kind",
            "counts",
            "last_frame",
            "duration_seconds",
            "bone_tracks",
            "morph_tracks",
            "camera_cuts",
            "cut_frames",
            "linear_bone_keys",
            "physics_off_keys",
            "warnings",
        ])
    );
    assert_eq!(
        keys(&v["counts"]),
        set(&["bones", "morphs", "cameras", "lights", "self_shadows", "ik"])
    );
    // CENSUS.txt: v2, camera, 1693 camera keys, max frame 6579, 163 cuts, model カメラ・照明.
    assert_eq!(v["version"], 2);
    assert_eq!(v["kind"], "camera");
    assert_eq!(v["model_name"], "カメラ・照明");
    assert_eq!(v["counts"]["cameras"], 1693);
    assert_eq!(v["last_frame"], 6579);
    assert!((v["duration_seconds"].as_f64().unwrap_or(0.0) - 6579.0 / 30.0).abs() < 1e-9);
    assert_eq!(v["camera_cuts"], 163);
    assert_eq!(v["cut_frames"].as_array().map(Vec::len), Some(163));
    assert!(v["warnings"].is_array());

    // Track entries are {name, keys}.
    let f = dir.join("vmdsizing__A_animasa_miku_a.vmd");
    let v = json(&run(&["inspect", p(&f), "--json"]));
    let tracks = v["bone_tracks"].as_array().cloned().unwrap_or_default();
    assert_eq!(tracks.len(), 96, "CENSUS: 96 distinct bone names");
    assert!(tracks.iter().all(|t| keys(t) == set(&["name", "keys"])));
    let morphs = v["morph_tracks"].as_array().cloned().unwrap_or_default();
    assert_eq!(morphs.len(), 30, "CENSUS: 30 distinct morph names");
    assert_eq!(
        morphs
            .iter()
            .map(|t| t["keys"].as_u64().unwrap_or(0))
            .sum::<u64>(),
        31
    );
    // Text output works too.
    let out = run(&["inspect", p(&f)]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("kind:        motion"));
}

#[test]
fn sample_json_keys_and_values() {
    let Some(dir) = corpus() else { return };
    // Camera file: frame, bones, morphs, camera{target, rotation, distance, fov, eye, perspective}.
    let f = dir.join("webmmd__GimmexGimme.vmd");
    let v = json(&run(&["sample", p(&f), "--frame", "100.5", "--json"]));
    assert_eq!(keys(&v), set(&["frame", "bones", "morphs", "camera"]));
    assert_eq!(v["frame"], 100.5);
    assert_eq!(
        keys(&v["camera"]),
        set(&[
            "target",
            "rotation",
            "distance",
            "fov",
            "eye",
            "perspective"
        ])
    );
    assert_eq!(v["camera"]["eye"].as_array().map(Vec::len), Some(3));

    // Light file: light{color, direction}.
    let f = dir.join("vmd2xml__luminous.vmd");
    let v = json(&run(&["sample", p(&f), "--frame", "3", "--json"]));
    assert_eq!(keys(&v), set(&["frame", "bones", "morphs", "light"]));
    assert_eq!(keys(&v["light"]), set(&["color", "direction"]));

    // Motion: bones {name: {position, rotation}}, morphs {name: weight}.
    let f = dir.join("vmdsizing__A_animasa_miku_a.vmd");
    let v = json(&run(&["sample", p(&f), "--frame", "7.25", "--json"]));
    assert_eq!(keys(&v), set(&["frame", "bones", "morphs"]));
    let bones = v["bones"].as_object().cloned().unwrap_or_default();
    assert_eq!(bones.len(), 96);
    for (name, b) in &bones {
        assert_eq!(keys(b), set(&["position", "rotation"]), "{name}");
        assert_eq!(b["position"].as_array().map(Vec::len), Some(3));
        assert_eq!(b["rotation"].as_array().map(Vec::len), Some(4));
    }
    assert_eq!(v["morphs"].as_object().map(|o| o.len()), Some(30));
    assert!(
        v["morphs"]
            .as_object()
            .is_some_and(|o| o.values().all(serde_json::Value::is_number))
    );

    // Bad frame values are refused cleanly.
    let out = run(&["sample", p(&f), "--frame=-1"]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn rewrite_gives_identical_bytes_for_every_corpus_file() {
    let Some(dir) = corpus() else { return };
    let d = scratch("rewrite");
    let mut n = 0;
    for e in std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{e}"))
        .flatten()
    {
        let path = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if !name.ends_with(".vmd") || name == "mmdbase__result.vmd" {
            continue;
        }
        let out_path = d.join(&name);
        let out = run(&["rewrite", p(&path), "-o", p(&out_path)]);
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let a = std::fs::read(&path).unwrap_or_else(|e| panic!("{e}"));
        let b = std::fs::read(&out_path).unwrap_or_else(|e| panic!("{e}"));
        assert!(a == b, "{name}: rewrite changed the bytes");
        n += 1;
    }
    assert_eq!(n, 15);
    let _ = std::fs::remove_dir_all(&d);
}

fn assert_clean_failure(out: &Output, what: &str) {
    assert_eq!(out.status.code(), Some(1), "{what}: exit status");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "{what}: one line on stderr, got {err:?}"
    );
    assert!(
        !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
        "{what}: {err}"
    );
    assert!(out.stdout.is_empty(), "{what}: nothing on stdout");
}

#[test]
fn bad_input_exits_1_with_one_line() {
    let d = scratch("bad");
    let text = d.join("notes.txt");
    std::fs::write(&text, "just some text, not a motion\n").unwrap_or_else(|e| panic!("{e}"));
    let missing = d.join("missing.vmd");
    let mut cases: Vec<(String, Vec<String>)> = Vec::new();
    for verb in ["inspect", "sample", "rewrite"] {
        for f in [&text, &missing] {
            let mut args = vec![verb.to_string(), p(f).to_string()];
            match verb {
                "sample" => args.extend(["--frame".into(), "1".into()]),
                "rewrite" => args.extend(["-o".into(), p(&d.join("out.vmd")).to_string()]),
                _ => {}
            }
            cases.push((format!("{verb} {}", f.display()), args));
        }
    }
    if let Some(dir) = corpus() {
        let broken = dir.join("mmdbase__result.vmd");
        let out = run(&["inspect", p(&broken)]);
        assert_clean_failure(&out, "inspect broken");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("bone section claims 39564 keys (4391604 bytes) but 20 bytes remain"),
            "{err}"
        );
        assert!(err.contains("offset 50"), "{err}");
        cases.push((
            "sample broken".into(),
            vec![
                "sample".into(),
                p(&broken).into(),
                "--frame".into(),
                "0".into(),
            ],
        ));
        cases.push((
            "rewrite broken".into(),
            vec![
                "rewrite".into(),
                p(&broken).into(),
                "-o".into(),
                p(&d.join("out.vmd")).into(),
            ],
        ));
    }
    for (what, args) in cases {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_clean_failure(&run(&a), &what);
    }
    assert!(
        !d.join("out.vmd").exists(),
        "a failed rewrite writes nothing"
    );
    // The text file is named as not a VMD.
    let out = run(&["inspect", p(&text)]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a VMD file"));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn rewrite_into_a_missing_directory_fails_cleanly() {
    let Some(dir) = corpus() else { return };
    let d = scratch("nodir");
    let out = run(&[
        "rewrite",
        p(&dir.join("vmd2xml__flag.vmd")),
        "-o",
        p(&d.join("nope").join("x.vmd")),
    ]);
    assert_clean_failure(&out, "rewrite to a missing directory");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn help_works_for_each_verb() {
    for verb in ["inspect", "sample", "rewrite"] {
        let out = run(&[verb, "--help"]);
        assert!(out.status.success(), "{verb} --help");
        let s = String::from_utf8_lossy(&out.stdout);
        assert!(s.contains("Usage:") && s.contains(verb), "{verb}: {s}");
    }
    let s = String::from_utf8_lossy(&run(&["sample", "--help"]).stdout).into_owned();
    assert!(s.contains("--frame") && s.contains("--json"));
    let s = String::from_utf8_lossy(&run(&["rewrite", "--help"]).stdout).into_owned();
    assert!(s.contains("--output"));
}

/// `-o` goes through the app's save: a symlink stays a link and the file it
/// points to gets the bytes, with its permissions kept; nothing else is left
/// in the directory.
#[cfg(unix)]
#[test]
fn rewrite_output_through_a_symlink_keeps_the_link_and_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let d = scratch("symlink");
    let input = d.join("in.vmd");
    // A minimal v2 file: 30-byte header, 20-byte model name, five zero counts
    // (bone, morph, camera, light, self-shadow).
    let mut bytes = b"Vocaloid Motion Data 0002".to_vec();
    bytes.resize(30 + 20, 0);
    bytes.extend_from_slice(&[0u8; 4 * 5]);
    std::fs::write(&input, &bytes).unwrap_or_else(|e| panic!("{e}"));
    std::fs::create_dir_all(d.join("store")).unwrap_or_else(|e| panic!("{e}"));
    let real = d.join("store/out.vmd");
    std::fs::write(&real, b"old contents").unwrap_or_else(|e| panic!("{e}"));
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o604))
        .unwrap_or_else(|e| panic!("{e}"));
    let link = d.join("out.vmd");
    std::os::unix::fs::symlink(&real, &link).unwrap_or_else(|e| panic!("{e}"));
    let out = run(&["rewrite", p(&input), "-o", p(&link)]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta = std::fs::symlink_metadata(&link).unwrap_or_else(|e| panic!("{e}"));
    assert!(meta.file_type().is_symlink(), "the link was replaced");
    assert_eq!(
        std::fs::read(&real).unwrap_or_else(|e| panic!("{e}")),
        bytes
    );
    let mode = std::fs::metadata(&real)
        .unwrap_or_else(|e| panic!("{e}"))
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o604);
    let names: Vec<String> = std::fs::read_dir(d.join("store"))
        .unwrap_or_else(|e| panic!("{e}"))
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec!["out.vmd".to_string()]);
}

/// Options with a fixed set of values: a typo gets clap's possible values
/// and its "similar value" tip, still on one line with exit 1.
#[test]
fn a_mistyped_option_value_shows_the_possible_values_and_a_suggestion() {
    let cases: [(&[&str], &[&str]); 4] = [
        (
            &["--panel", "preveiw"],
            &[
                "'preveiw'",
                "possible values: dope, curves, graph, forensics, preview",
                "'preview'",
            ],
        ),
        (
            &["--view", "camra"],
            &["possible values: camera, free", "'camera'"],
        ),
        (&["--view", "free:1,2"], &["RX,RY,DISTANCE"]),
        (
            &[
                "set-curve",
                "in.vmd",
                "-o",
                "out.vmd",
                "--camera",
                "--channel",
                "fov",
                "--preset",
                "ease-inn",
            ],
            &[
                "'ease-inn'",
                "possible values: linear",
                "a similar value exists",
            ],
        ),
    ];
    for (args, wanted) in cases {
        let out = run(args);
        assert_clean_failure(&out, &args.join(" "));
        let err = String::from_utf8_lossy(&out.stderr);
        for w in wanted {
            assert!(err.contains(w), "{args:?}: {w:?} missing from {err:?}");
        }
    }
    let out = run(&["--size", "100x100"]);
    assert_clean_failure(&out, "--size 100x100");
    assert!(String::from_utf8_lossy(&out.stderr).contains("width '100'"));
    // --help lists the values.
    let help = run(&["--help"]);
    let text = String::from_utf8_lossy(&help.stdout);
    assert!(
        text.contains("free:RX,RY,DISTANCE") && text.contains("forensics"),
        "{text}"
    );
}

/// `inspect --json F | head -c 1` must not panic: the reader closes the pipe
/// (here before the verb writes anything), the write fails with a broken
/// pipe, and the verb ends quietly with success as `cat` does. Before the
/// fix `println!` panicked ("failed printing to stdout"), exit code 101.
#[test]
fn a_closed_stdout_pipe_ends_the_verb_quietly() {
    let Some(c) = corpus() else { return };
    let file = c.join("webmmd__GimmeGimme_with_emotion.vmd");
    let mut child = bin()
        .args(["inspect", "--json"])
        .arg(&file)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start vmd-studio");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "stderr: {err}");
    assert_eq!(out.status.code(), Some(0), "stderr: {err}");
}
