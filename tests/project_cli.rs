//! `project-info` and `export-scene`, run as the built binary on the
//! corpus' synthetic project (1 model, 5 bone keys, found beside it).

mod common;
#[cfg(feature = "render")]
mod project_support;
#[cfg(feature = "render")]
#[path = "render_support/mod.rs"]
mod render_support;
use common::corpus;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vmd-studio"))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run vmd-studio: {e}"))
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}, stderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap_or_else(|| panic!("non-UTF-8 path"))
}

fn synthetic() -> Option<PathBuf> {
    Some(corpus()?.join("frontier/pmm_v2_mmdanim_synthetic/ik_multi_bone_from_pmx_vmd.pmm"))
}

#[test]
fn project_info_json_names_models_paths_counts_and_settings() {
    let Some(f) = synthetic() else { return };
    let v: serde_json::Value = serde_json::from_str(&ok(&run(&["project-info", p(&f), "--json"])))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(v["version"], 2);
    let m = &v["models"][0];
    assert_eq!(m["name"], "ik_multi_axis_limit_fixture");
    assert_eq!(m["path"]["original"], r"..\pmx\ik_multi_axis_limit.pmx");
    assert_eq!(m["path"]["found"], "searched");
    assert!(
        m["path"]["resolved"]
            .as_str()
            .unwrap()
            .ends_with("ik_multi_axis_limit.pmx")
    );
    // 3 bones, each with its frame-0 key, plus keys at 15 and 30.
    assert_eq!(m["bones"], 3);
    assert_eq!(m["keys"]["bone"], 5);
    assert_eq!(m["keys"]["model"], 1);
    assert_eq!(v["camera_keys"], 1);
    assert_eq!(v["light_keys"], 1);
    assert_eq!(v["missing_files"].as_array().unwrap().len(), 0);
    assert_eq!(
        v["settings"]["output_size"],
        serde_json::json!([1024, 1024])
    );
    for key in [
        "accessories",
        "song",
        "ignored",
        "warnings",
        "gravity_keys",
        "self_shadow_keys",
    ] {
        assert!(v.get(key).is_some(), "{key}");
    }
    let text = ok(&run(&["project-info", p(&f)]));
    assert!(text.contains("MMD project v2"), "{text}");
    assert!(text.contains("5 bone"), "{text}");
}

#[test]
fn export_scene_writes_the_motions_the_model_and_a_scene() {
    let Some(f) = synthetic() else { return };
    let out = std::env::temp_dir().join(format!("vmd-pmm-export-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let listing = ok(&run(&["export-scene", p(&f), "-o", p(&out)]));
    let motion = out.join("ik_multi_bone_from_pmx_vmd_ik_multi_axis_limit_fixture.vmd");
    let camera = out.join("ik_multi_bone_from_pmx_vmd_camera.vmd");
    let scene = out.join("ik_multi_bone_from_pmx_vmd.vmdscene");
    for w in [&motion, &camera, &scene] {
        assert!(w.is_file(), "{} missing; listing:\n{listing}", w.display());
        assert!(listing.contains(p(w)), "{listing}");
    }
    let m = vmd_studio::vmd::read(&std::fs::read(&motion).unwrap()).unwrap();
    assert_eq!(m.bones.len(), 5);
    let c = vmd_studio::vmd::read(&std::fs::read(&camera).unwrap()).unwrap();
    assert_eq!(c.cameras.len(), 1);
    let copied = out
        .join("models")
        .join("ik_multi_bone_from_pmx_vmd_ik_multi_axis_limit_fixture")
        .join("ik_multi_axis_limit.pmx");
    assert!(copied.is_file(), "{listing}");
    let loaded = vmd_studio::scene::file::load(&scene).unwrap_or_else(|e| panic!("{e}"));
    assert!(loaded.missing.is_empty(), "{:?}", loaded.missing);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_file_that_is_not_a_project_is_one_line_with_the_offset() {
    let Some(dir) = corpus() else { return };
    let f = dir.join("frontier/pmm_v2_mmdanim_synthetic/ik_multi_bone_nondefault.vmd");
    let out = run(&["project-info", p(&f)]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not an MMD project") && err.contains("offset 0"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

/// `render` on a project: only with the renderer built.
#[cfg(feature = "render")]
mod with_render {
    use super::*;

    /// A big translucent red plane (±10 file units: ±100 MMD units at Si 1),
    /// so MMD draws both its faces.
    const PLANE_X: &str = "xof 0303txt 0032\nMesh {\n 4;\n -10;-10;0;,\n -10;10;0;,\n 10;10;0;,\n 10;-10;0;;\n 1;\n 4;0,1,2,3;;\n\
     MeshMaterialList { 1; 1; 0;;\n  Material { 0.9;0;0;0.99;; 5; 0;0;0;; 0.9;0;0;; }\n }\n}\n";

    /// `render PROJECT.pmm`: the hand-built v2 project (its model missing: the
    /// demo mannequin wears its keys) with its accessory found below
    /// `UserFile\Accessory`: the accessory shows (the picture differs from the
    /// one without its file), and `export-scene`'s `.vmdscene` (the accessory
    /// copied, with its placement and keys) draws the same picture byte for
    /// byte.
    #[test]
    fn render_takes_a_project_with_its_accessory_and_export_scene_keeps_it() {
        if render_support::offscreen().is_none() {
            return;
        }
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let pmm = dir.join("hand built.pmm");
        std::fs::write(&pmm, project_support::project_bytes(true)).unwrap();
        let render = |input: &Path, out: &str| {
            let o = dir.join(out);
            let r = run(&[
                "render",
                p(input),
                "--frames",
                "0..0",
                "--size",
                "96x54",
                "-o",
                p(&o),
            ]);
            let err = String::from_utf8_lossy(&r.stderr).into_owned();
            ok(&r);
            (
                image::open(o.join("00000.png")).expect("png").to_rgba8(),
                err,
            )
        };
        let (without, err) = render(&pmm, "without");
        assert!(err.contains("accessory ステージ not found"), "{err}");
        assert!(err.contains("demo mannequin wears its keys"), "{err}");
        let x = dir.join("UserFile").join("Accessory").join("stage.x");
        std::fs::create_dir_all(x.parent().unwrap()).unwrap();
        std::fs::write(&x, PLANE_X).unwrap();
        let (with, err) = render(&pmm, "with");
        assert!(!err.contains("accessory ステージ not found"), "{err}");
        let red =
            |img: &image::RgbaImage| img.pixels().filter(|px| px[0] > 150 && px[1] < 80).count();
        assert!(
            red(&with) > red(&without) + 1000,
            "the plane shows: {} red pixels with it, {} without",
            red(&with),
            red(&without)
        );
        let out = dir.join("collected");
        ok(&run(&["export-scene", p(&pmm), "-o", p(&out)]));
        let (from_scene, _) = render(&out.join("hand built.vmdscene"), "scene");
        assert!(
            from_scene.as_raw() == with.as_raw(),
            "the collected scene draws what the project draws"
        );
    }
}
