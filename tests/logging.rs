//! Logging: the app's rotating log file receives messages, and a verb
//! accepts `--verbose` / `-v`.

use std::process::Command;

#[test]
fn messages_reach_the_rotating_log_file() {
    let dir = std::env::temp_dir().join(format!("vmd-logging-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let guard = vmd_studio::logging::init(false, false, Some(&dir));
    tracing::info!("saved /tmp/example.vmd");
    tracing::debug!("not kept without --verbose");
    drop(guard); // flushes the background writer
    let files: Vec<_> = std::fs::read_dir(&dir)
        .expect("log dir")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let name = files[0].file_name().and_then(|n| n.to_str()).unwrap_or("");
    assert!(
        name.starts_with("vmd-studio.") && name.ends_with(".log"),
        "{name}"
    );
    let text = std::fs::read_to_string(&files[0]).expect("log");
    assert!(text.contains("saved /tmp/example.vmd"), "{text}");
    assert!(!text.contains("not kept"), "{text}");
}

#[test]
fn a_verb_accepts_verbose() {
    let bin = env!("CARGO_BIN_EXE_vmd-studio");
    let demo = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo_dance.vmd");
    for args in [["inspect", demo, "--verbose"], ["inspect", demo, "-v"]] {
        let out = Command::new(bin).args(args).output().expect("run");
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
