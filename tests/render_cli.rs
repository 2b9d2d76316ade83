//! The `render` and `storyboard` verbs, run as the built binary. They need a
//! GPU adapter (skipped without one, except under CI=true).
#![cfg(feature = "render")]

mod common;
mod render_support;

use std::path::{Path, PathBuf};
use std::process::Output;

fn run(args: &[&str]) -> Output {
    common::run_cli(args)
}

fn scratch(tag: &str) -> PathBuf {
    common::scratch_dir(&format!("render-cli-{tag}"))
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

fn png_size(path: &Path) -> (u32, u32) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(
        &bytes[..8],
        b"\x89PNG\r\n\x1a\n",
        "{} is a PNG",
        path.display()
    );
    let be = |i: usize| u32::from_be_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
    (be(16), be(20))
}

fn asset(name: &str) -> String {
    format!("{}/assets/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn storyboard_of_the_long_corpus_camera_has_164_shots() {
    let (Some(_), Some(corpus)) = (render_support::offscreen(), common::corpus()) else {
        return;
    };
    let dir = scratch("storyboard");
    let sheet = dir.join("sheet.png");
    let cam = corpus.join("webmmd__GimmexGimme.vmd");
    let out = run(&[
        "storyboard",
        cam.to_str().unwrap(),
        "--size",
        "48x27",
        "--columns",
        "10",
        "-o",
        sheet.to_str().unwrap(),
    ]);
    let stdout = ok(&out);
    // CENSUS: 163 cuts → 164 shots.
    assert!(stdout.lines().any(|l| l == "164 shots"), "{stdout}");
    // 10 columns, 17 rows of 48×27 tiles with 4 px gaps and a 15 px label
    // strip (7 px font + 8): 10·52 + 4 = 524 wide, 17·(27 + 15 + 4) + 4 = 786 high.
    assert_eq!(png_size(&sheet), (524, 786));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn render_writes_a_numbered_sequence_through_the_camera() {
    let Some(_) = render_support::offscreen() else {
        return;
    };
    let dir = scratch("render");
    let out = run(&[
        "render",
        &asset("demo_model.pmx"),
        &asset("demo_dance.vmd"),
        &asset("demo_camera.vmd"),
        "--frames",
        "10..14",
        "--size",
        "96x54",
        "--fps",
        "60",
        "-o",
        dir.to_str().unwrap(),
    ]);
    let stdout = ok(&out);
    // Frames 10..14 at 60 fps: 10, 10.5, …, 14 → 9 pictures.
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let expect: Vec<String> = (0..9).map(|i| format!("{i:05}.png")).collect();
    assert_eq!(names, expect);
    for n in &names {
        assert_eq!(png_size(&dir.join(n)), (96, 54));
    }
    assert!(
        stdout.contains("wrote 9 pictures") && stdout.contains("per second"),
        "{stdout}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("rendered 9 of 9"),
        "progress on stderr: {stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_arguments_exit_1_with_one_line() {
    for args in [
        vec!["render", "x.vmd", "--frames", "9..3", "-o", "/tmp/none"],
        vec![
            "render",
            "x.vmd",
            "--frames",
            "0..3",
            "--size",
            "big",
            "-o",
            "/tmp/none",
        ],
        vec![
            "render",
            "x.vmd",
            "--frames",
            "0..3",
            "--fps",
            "24",
            "-o",
            "/tmp/none",
        ],
        vec![
            "storyboard",
            "/definitely/missing.vmd",
            "-o",
            "/tmp/none.png",
        ],
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let lines: Vec<&str> = stderr
            .lines()
            .filter(|l| l.starts_with("error: ") && !l.contains("XDG_RUNTIME_DIR"))
            .collect();
        assert_eq!(lines.len(), 1, "{args:?}: {stderr}");
    }
}

/// `render` draws MMD's ground shadow (opaque, the default light's colour
/// 154/255 on the white background) unless `--no-ground-shadow`, and the
/// self-shadow changes the picture unless `--no-self-shadow`.
#[test]
fn render_shadow_flags_turn_the_shadows_off() {
    let Some(_) = render_support::offscreen() else {
        return;
    };
    let picture = |tag: &str, flags: &[&str]| {
        let dir = scratch(tag);
        let mut args = vec![
            "render",
            "--frames",
            "0..0",
            "--size",
            "160x120",
            "-o",
            dir.to_str().unwrap(),
        ];
        args.extend_from_slice(flags);
        let model = asset("demo_model.pmx");
        args.push(&model);
        ok(&run(&args));
        let img = image::open(dir.join("00000.png"))
            .unwrap_or_else(|e| panic!("{tag}: {e}"))
            .to_rgba8();
        let _ = std::fs::remove_dir_all(&dir);
        img
    };
    let grey = |img: &image::RgbaImage| {
        img.pixels()
            .filter(|p| p.0[..3].iter().all(|c| c.abs_diff(154) <= 2))
            .count()
    };
    let both = picture("shadows-on", &[]);
    let no_ground = picture("no-ground", &["--no-ground-shadow"]);
    let no_self = picture("no-self", &["--no-self-shadow"]);
    let (g_on, g_off) = (grey(&both), grey(&no_ground));
    eprintln!("shadow-grey pixels: {g_on} with the ground shadow, {g_off} without");
    assert!(g_on > 40, "{g_on}");
    assert!(g_off < g_on / 10, "{g_off} vs {g_on}");
    let changed = both
        .pixels()
        .zip(no_self.pixels())
        .filter(|(a, b)| a.0.iter().zip(b.0).any(|(x, y)| x.abs_diff(y) > 8))
        .count();
    eprintln!("self-shadow changes {changed} pixels");
    assert!(changed > 20, "{changed}");
}

/// `render --stage` and `--accessory`: the corpus skybox (whose corners lie
/// 17,000 units out, past the default far plane) fills the background the
/// demo dancer stood on; a missing accessory, or an accessory given as a
/// model, is refused with its name.
#[test]
fn render_draws_a_stage_around_the_dancer_and_names_bad_set_files() {
    let (Some(_), Some(corpus)) = (render_support::offscreen(), common::corpus()) else {
        return;
    };
    let sky = corpus.join("frontier/skydome_raymmd_sky_hemisphere/Sky with box.pmx");
    if !sky.is_file() {
        eprintln!("SKIPPED: {} is not in the corpus", sky.display());
        return;
    }
    let dir = scratch("set");
    let (plain, set) = (dir.join("plain"), dir.join("set"));
    let dance = asset("demo_dance.vmd");
    let base = [
        "render",
        dance.as_str(),
        "--frames",
        "0..0",
        "--size",
        "96x54",
    ];
    let mut a: Vec<&str> = base.to_vec();
    a.extend(["-o", plain.to_str().unwrap()]);
    ok(&run(&a));
    let mut a: Vec<&str> = base.to_vec();
    a.extend([
        "--stage",
        sky.to_str().unwrap(),
        "-o",
        set.to_str().unwrap(),
    ]);
    ok(&run(&a));
    let load = |p: PathBuf| image::open(p).expect("png").to_rgba8();
    let (p, s) = (load(plain.join("00000.png")), load(set.join("00000.png")));
    // MMD's white background without a set; the skybox's grey in every
    // corner (beyond the default far plane in the corners' directions).
    for (x, y) in [(1, 1), (94, 1), (1, 52), (94, 52)] {
        assert_eq!(
            p.get_pixel(x, y).0,
            [255, 255, 255, 255],
            "plain corner {x},{y}"
        );
        let c = s.get_pixel(x, y).0;
        assert!(
            c[0] < 230 && c[3] == 255,
            "the skybox at corner {x},{y} is {c:?}"
        );
    }
    let missing = dir.join("nope.vac");
    let mut a: Vec<&str> = base.to_vec();
    a.extend([
        "--accessory",
        missing.to_str().unwrap(),
        "-o",
        set.to_str().unwrap(),
    ]);
    let out = run(&a);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("nope.vac"), "{err}");
    let x = corpus.join("frontier/x_raymmd_controller/ray.x");
    let out = run(&[
        "render",
        x.to_str().unwrap(),
        "--frames",
        "0..0",
        "-o",
        set.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--accessory"), "{err}");
}

/// `render SCENE.vmdscene`: the scene file's actor, camera, stage and
/// accessory give the same picture as the same things named as flags
/// (`--stage`, `--accessory FILE@BONE`, checked pixel by pixel in
/// tests/set_render.rs), and a different one from the scene without its set.
#[test]
fn render_takes_a_scene_file_with_its_set() {
    use vmd_studio::scene::set::{Parent, Prop, SetAccessory};
    use vmd_studio::scene::{Actor, Scene};
    if render_support::offscreen().is_none() {
        return;
    }
    let dir = scratch("scene");
    let floor = dir.join("floor.x");
    std::fs::write(
        &floor,
        "xof 0303txt 0032\nMesh {\n 4;\n -3;0;-3;,\n -3;0;3;,\n 3;0;3;,\n 3;0;-3;;\n 1;\n 4;0,1,2,3;;\n\
         MeshMaterialList { 1; 1; 0;;\n  Material { 0;0.8;0;1;; 5; 0;0;0;; 0;0.8;0;; }\n }\n}\n",
    )
    .unwrap();
    let (dance, camera) = (
        PathBuf::from(asset("demo_dance.vmd")),
        PathBuf::from(asset("demo_camera.vmd")),
    );
    let mut s: Scene<PathBuf> = Scene::default();
    let mut a = Actor::new("Dancer");
    a.motion = Some(dance.clone());
    s.actors.push(a);
    s.camera = Some(camera.clone());
    s.set.props.push(Prop::new(floor.clone()));
    // A small red square (0.2 file units: 2 MMD units), both faces drawn.
    let square = dir.join("square.x");
    std::fs::write(
        &square,
        "xof 0303txt 0032\nMesh {\n 4;\n -0.1;-0.1;0;,\n -0.1;0.1;0;,\n 0.1;0.1;0;,\n 0.1;-0.1;0;;\n 1;\n 4;0,1,2,3;;\n\
         MeshMaterialList { 1; 1; 0;;\n  Material { 0.9;0;0;0.99;; 5; 0;0;0;; 0.9;0;0;; }\n }\n}\n",
    )
    .unwrap();
    let mut acc = SetAccessory::new(square.clone());
    acc.state.parent = Parent::Bone {
        actor: 0,
        bone: "右手首".into(),
    };
    s.set.accessories.push(acc);
    let with_set = dir.join("with set.vmdscene");
    vmd_studio::scene::file::save(&s, &with_set).unwrap();
    s.set = Default::default();
    let bare = dir.join("bare.vmdscene");
    vmd_studio::scene::file::save(&s, &bare).unwrap();

    let render = |inputs: &[&str], out: &str| {
        let o = dir.join(out);
        let mut a = vec!["render"];
        a.extend_from_slice(inputs);
        a.extend([
            "--frames",
            "45..45",
            "--size",
            "96x54",
            "-o",
            o.to_str().unwrap(),
        ]);
        ok(&run(&a));
        image::open(o.join("00000.png")).expect("png").to_rgba8()
    };
    let from_scene = render(&[with_set.to_str().unwrap()], "a");
    let spec = format!("{}@右手首", square.display());
    let from_flags = render(
        &[
            dance.to_str().unwrap(),
            camera.to_str().unwrap(),
            "--stage",
            floor.to_str().unwrap(),
            "--accessory",
            &spec,
        ],
        "b",
    );
    let without = render(&[bare.to_str().unwrap()], "c");
    assert_ne!(from_scene.as_raw(), without.as_raw(), "the set shows");
    assert!(
        from_scene.as_raw() == from_flags.as_raw(),
        "the scene file draws what the flags draw"
    );
    let out = run(&[
        "render",
        with_set.to_str().unwrap(),
        dance.to_str().unwrap(),
        "--frames",
        "0..0",
        "-o",
        "x",
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("give it alone"));
}

/// The background colour (issue 34.5): a scene file's colour clears the
/// picture `render` makes from it, and `--background` (R,G,B or #RRGGBB)
/// sets it from the command line, over the scene's. A bad colour is
/// refused with the flag named, nothing written.
#[test]
fn render_clears_with_the_scene_or_flag_background() {
    use vmd_studio::scene::{Actor, Scene};
    if render_support::offscreen().is_none() {
        return;
    }
    let dir = scratch("background");
    let mut s: Scene<PathBuf> = Scene::default();
    let mut a = Actor::new("Dancer");
    a.motion = Some(PathBuf::from(asset("demo_dance.vmd")));
    s.actors.push(a);
    // (51, 102, 153) as 0..1.
    s.set.background.colour = [0.2, 0.4, 0.6];
    let scene = dir.join("blue.vmdscene");
    vmd_studio::scene::file::save(&s, &scene).unwrap();
    let corner = |args: &[&str], out: &str| {
        let o = dir.join(out);
        let mut a = vec!["render"];
        a.extend_from_slice(args);
        a.extend([
            "--frames",
            "0..0",
            "--size",
            "64x36",
            "-o",
            o.to_str().unwrap(),
        ]);
        ok(&run(&a));
        let img = image::open(o.join("00000.png")).expect("png").to_rgba8();
        // The top-left corner: sky, no model there.
        img.get_pixel(0, 0).0
    };
    assert_eq!(
        corner(&[scene.to_str().unwrap()], "scene"),
        [51, 102, 153, 255]
    );
    let model = asset("demo_model.pmx");
    assert_eq!(
        corner(&[&model, "--background", "10,20,30"], "rgb"),
        [10, 20, 30, 255]
    );
    assert_eq!(
        corner(&[scene.to_str().unwrap(), "--background", "#FF8000"], "hex"),
        [255, 128, 0, 255],
        "the flag over the scene's"
    );
    // Without either: MMD's white.
    assert_eq!(corner(&[&model], "white"), [255, 255, 255, 255]);
    let o = dir.join("bad");
    let out = run(&[
        "render",
        &model,
        "--background",
        "blue",
        "--frames",
        "0..0",
        "-o",
        o.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--background blue"));
    assert!(!o.join("00000.png").exists());
    let _ = std::fs::remove_dir_all(&dir);
}
