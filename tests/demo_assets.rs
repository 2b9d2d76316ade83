//! The bundled demo files (assets/) are valid VMDs that show what the app is
//! for: a dance on the standard skeleton and a camera with cuts.

use vmd_studio::vmd::{self, TrackIndex, summary};

fn load(name: &str) -> vmd::Motion {
    let path = format!("{}/assets/{name}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let m = vmd::read(&bytes).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert_eq!(vmd::write(&m).unwrap(), bytes, "{name} round-trips");
    m
}

#[test]
fn demo_dance_is_a_motion_on_the_standard_skeleton() {
    let m = load("demo_dance.vmd");
    let idx = TrackIndex::build(&m);
    let s = summary::summarize(&m, &idx);
    assert_eq!(s.kind, summary::Kind::Motion);
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    // The demo is 4 seconds at 30 fps.
    assert_eq!(s.last_frame, Some(120));
    let rig = vmd_studio::model::standard_model();
    let missing = vmd_studio::model::missing_names(&rig, &idx).bones;
    assert!(
        missing.is_empty(),
        "bones missing from the built-in skeleton: {missing:?}"
    );
    // Hand-tuned curves, not MMD's linear default.
    assert_eq!(s.linear_bone_keys, 0);
}

#[test]
fn demo_camera_has_cuts_where_the_shot_table_puts_them() {
    let m = load("demo_camera.vmd");
    let idx = TrackIndex::build(&m);
    let s = summary::summarize(&m, &idx);
    assert_eq!(s.kind, summary::Kind::Camera);
    assert_eq!(s.model_name, "カメラ・照明");
    // examples/make_demo.rs keys 29→30, 59→60 and 119→120 one frame apart;
    // 90→92 is a two-frame gap (a near-cut, not a cut).
    assert_eq!(s.cut_frames, vec![29, 59, 119]);
}
