//! `model-info` on accessories, run as the built binary: a `.x` in the
//! same JSON shape as a model, a `.vac` with its placement and bone. Counts
//! are read off the corpus files by hand (see `xfile_read.rs`).

mod common;

use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vmd-studio"))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run vmd-studio: {e}"))
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

#[test]
fn model_info_describes_an_x_accessory_like_a_model() {
    let Some(dir) = common::corpus() else { return };
    let x = dir.join("frontier/x_raymmd_dummyscreen/DummyScreen.x");
    let v = json(&run(&["model-info", x.to_str().expect("utf-8"), "--json"]));
    assert_eq!(v["format"], "DirectX .x (0303txt)");
    let c = &v["counts"];
    assert_eq!(c["vertices"], 4);
    assert_eq!(c["faces"], 2);
    assert_eq!(c["materials"], 1);
    assert_eq!(c["textures"], 0, "screen.bmp is not a texture file");
    assert_eq!(c["bones"], 1);
    assert_eq!(v["missing_textures"], serde_json::json!([]));
    let w = v["warnings"].to_string();
    assert!(w.contains("screen.bmp"), "{w}");
    assert_eq!(v["materials"][0]["screen"], true);
    assert!(v.get("vac").is_none());
    // The cube with its two frames.
    let x = dir.join("frontier/x_negative_binary_assimp/test_cube_text.x");
    let v = json(&run(&["model-info", x.to_str().expect("utf-8"), "--json"]));
    assert_eq!(
        (
            v["counts"]["vertices"].as_u64(),
            v["counts"]["faces"].as_u64()
        ),
        (Some(24), Some(12))
    );
}

#[test]
fn model_info_refuses_a_binary_x_naming_its_format() {
    let Some(dir) = common::corpus() else { return };
    let x = dir.join("frontier/x_negative_binary_assimp/test_cube_binary.x");
    let out = run(&["model-info", x.to_str().expect("utf-8"), "--json"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("0303bin") && err.contains("not supported"),
        "{err}"
    );
}

#[test]
fn model_info_on_a_vac_adds_placement_bone_and_missing_textures() {
    let dir = std::env::temp_dir().join(format!("vmd_xfile_cli_{}", std::process::id()));
    std::fs::create_dir_all(dir.join("Mic")).expect("dir");
    // A quad with a texture that is not there and a sphere map split.
    std::fs::write(
        dir.join("Mic/mic.x"),
        "xof 0302txt 0064\r\nMesh {\r\n 4; 0;0;0;, 0;1;0;, 1;1;0;, 1;0;0;;\r\n 1; 4;0,1,2,3;;\r\n\
         MeshMaterialList { 1; 1; 0;; Material { 1;1;1;1;; 5; 0;0;0;; 0.5;0.5;0.5;;\r\n\
         TextureFilename { \"mic.png*shine.spa\"; } } }\r\n}\r\n",
    )
    .expect("x");
    // 右手首 in Shift_JIS.
    let mut vac = b"Mic\r\nmic\\MIC.X\r\n1.5\r\n0,2.5,-1\r\n10,20,30\r\n".to_vec();
    vac.extend_from_slice(b"\x89\x45\x8E\xE8\x8E\xF1\r\n");
    std::fs::write(dir.join("mic.vac"), vac).expect("vac");
    let v = json(&run(&[
        "model-info",
        dir.join("mic.vac").to_str().expect("utf-8"),
        "--json",
    ]));
    assert_eq!(v["name"], "Mic");
    assert_eq!(v["counts"]["vertices"], 4);
    assert_eq!(v["counts"]["faces"], 2, "a quad is two triangles");
    assert_eq!(v["counts"]["polygons"], 1);
    assert_eq!(v["counts"]["materials"], 1);
    assert_eq!(v["counts"]["textures"], 2);
    assert_eq!(
        v["missing_textures"],
        serde_json::json!(["mic.png", "shine.spa"])
    );
    assert_eq!(v["materials"][0]["sphere_mode"], "add");
    assert_eq!(
        v["materials"][0]["ambient"],
        serde_json::json!([0.5, 0.5, 0.5])
    );
    let p = &v["vac"];
    assert_eq!(p["x_file"], "mic\\MIC.X");
    assert_eq!(p["scale"], 1.5);
    assert_eq!(p["position"], serde_json::json!([0.0, 2.5, -1.0]));
    assert_eq!(p["rotation_degrees"], serde_json::json!([10.0, 20.0, 30.0]));
    assert_eq!(p["bone"], "右手首");
    assert!(
        p["x_resolved"]
            .as_str()
            .is_some_and(|s| s.ends_with("mic.x")),
        "{p}"
    );
    // The text form names the placement.
    let out = run(&["model-info", dir.join("mic.vac").to_str().expect("utf-8")]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("bone 右手首"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
