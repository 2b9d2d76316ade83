//! `render --physics-collide-actors` (and `storyboard`'s): listed in the
//! help, refused with `--no-physics` or without two models with bodies,
//! and changing the pictures of two Meis standing in each other. The
//! pictures need a GPU adapter (skipped without one, except under CI=true)
//! and the corpus.
#![cfg(feature = "render")]

mod common;
mod render_support;

use std::path::PathBuf;
use std::process::Output;

fn run(args: &[&str]) -> Output {
    common::run_cli(args)
}

fn scratch(tag: &str) -> PathBuf {
    common::scratch_dir(&format!("physics-actors-{tag}"))
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn the_flag_is_in_the_help_of_render_and_storyboard() {
    for verb in ["render", "storyboard"] {
        let out = run(&[verb, "--help"]);
        assert!(out.status.success(), "{verb}: {}", stderr(&out));
        let help = String::from_utf8_lossy(&out.stdout);
        assert!(help.contains("--physics-collide-actors"), "{verb}: {help}");
    }
}

#[test]
fn the_flag_is_refused_with_no_physics() {
    let out = run(&[
        "render",
        "--no-physics",
        "--physics-collide-actors",
        "-o",
        "/tmp/none",
        "x.vmd",
    ]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("--physics-collide-actors") && err.contains("--no-physics"),
        "{err}"
    );
}

#[test]
fn the_flag_needs_two_models_with_bodies() {
    let Some(_) = render_support::offscreen() else {
        return;
    };
    // The demo mannequin has no rigid bodies.
    let dir = scratch("demo");
    let demo = format!("{}/assets/demo_model.pmx", env!("CARGO_MANIFEST_DIR"));
    let out = run(&[
        "render",
        "--frames",
        "0..0",
        "--size",
        "64x48",
        "--physics-collide-actors",
        "-o",
        dir.to_str().unwrap(),
        &demo,
    ]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("0 of the 1 models have rigid bodies; it needs two"),
        "{err}"
    );
}

#[test]
fn two_meis_in_one_place_look_different_when_their_bodies_collide() {
    let Some(_) = render_support::offscreen() else {
        return;
    };
    let Some(corpus) = common::corpus() else {
        return;
    };
    let mei = corpus.join("mmdagent__mei.pmd");
    let mei = mei.to_str().unwrap();
    let picture = |tag: &str, flags: &[&str]| {
        let dir = scratch(tag);
        let mut args = vec![
            "render",
            "--frames",
            "0..20",
            "--size",
            "160x240",
            "-o",
            dir.to_str().unwrap(),
        ];
        args.extend_from_slice(flags);
        args.extend([mei, mei]);
        let out = run(&args);
        assert!(out.status.success(), "{tag}: {}", stderr(&out));
        let img = image::open(dir.join("00020.png"))
            .unwrap_or_else(|e| panic!("{tag}: {e}"))
            .to_rgba8();
        let _ = std::fs::remove_dir_all(&dir);
        img
    };
    let apart = picture("apart", &[]);
    let again = picture("apart-again", &[]);
    let together = picture("together", &["--physics-collide-actors"]);
    let differ = |a: &image::RgbaImage, b: &image::RgbaImage| {
        a.pixels()
            .zip(b.pixels())
            .filter(|(x, y)| x.0.iter().zip(y.0).any(|(p, q)| p.abs_diff(q) > 8))
            .count()
    };
    assert_eq!(differ(&apart, &again), 0, "the same run, the same picture");
    let changed = differ(&apart, &together);
    eprintln!("colliding bodies change {changed} of {} pixels", 160 * 240);
    assert!(changed > 20, "{changed}");
}
