//! The set through the real renderer (`render::stage::Stage`, what `render`,
//! `storyboard` and the video export draw with): a stage under the dancer, an
//! accessory following the dancer's hand, a skybox beyond the default far
//! plane. Expected pixel positions come from projecting points on the CPU
//! (`ViewParams::project`) and from an independent pose of the same model
//! by the pose engine, never from the picture under test.
//! Needs a GPU adapter (skipped without one, except under CI=true).
#![cfg(feature = "render")]

use std::path::{Path, PathBuf};

use glam::Vec3;
use vmd_studio::model::{LoadedModel, PoseEngine};
use vmd_studio::render::stage::{IndexedMotion, Stage, demo_model};
use vmd_studio::render::{Offscreen, TextureRgba};
use vmd_studio::scene::set::{DrawOrder, Parent, SetAccessory, open_accessory_file};
use vmd_studio::vmd::camera::{DEFAULT_FAR, fitted_far};

fn new_stage() -> Option<Stage> {
    match Offscreen::new() {
        Ok(o) => Some(Stage::new(o)),
        Err(e) => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "CI=true needs a GPU adapter (install mesa-vulkan-drivers): {e}"
            );
            eprintln!("SKIPPED: this test needs a GPU adapter: {e}");
            None
        }
    }
}

/// A DirectX text `.x` with one quad (`corners` in file units, clockwise
/// seen from the side it faces) of one colour; `alpha` < 1 draws both faces
/// (MMD's accessory culling rule).
fn quad_x(corners: [[f32; 3]; 4], rgb: [f32; 3], alpha: f32) -> String {
    let v: Vec<String> = corners
        .iter()
        .map(|c| format!("{};{};{};", c[0], c[1], c[2]))
        .collect();
    format!(
        "xof 0303txt 0032\nMesh {{\n 4;\n {},\n {},\n {},\n {};;\n 1;\n 4;0,1,2,3;;\n\
         MeshMaterialList {{ 1; 1; 0;;\n  Material {{ {r};{g};{b};{alpha};; 5; 0;0;0;; {r};{g};{b};; }}\n }}\n}}\n",
        v[0],
        v[1],
        v[2],
        v[3],
        r = rgb[0],
        g = rgb[1],
        b = rgb[2],
    )
}

/// A floor 60 × 60 MMD units (6 file units ×10) at y = 0, facing up
/// (clockwise seen from above), of one colour.
fn floor_x(rgb: [f32; 3]) -> String {
    quad_x(
        [
            [-3.0, 0.0, -3.0],
            [-3.0, 0.0, 3.0],
            [3.0, 0.0, 3.0],
            [3.0, 0.0, -3.0],
        ],
        rgb,
        1.0,
    )
}

/// A cube of half-size `h` file units centred on the origin, all six faces
/// one colour, drawn from both sides (alpha 0.99).
fn cube_x(h: f32, rgb: [f32; 3]) -> String {
    let p = [
        [-h, -h, -h],
        [h, -h, -h],
        [h, h, -h],
        [-h, h, -h],
        [-h, -h, h],
        [h, -h, h],
        [h, h, h],
        [-h, h, h],
    ];
    let faces = [
        [0, 3, 2, 1],
        [4, 5, 6, 7],
        [0, 4, 7, 3],
        [1, 2, 6, 5],
        [3, 7, 6, 2],
        [0, 1, 5, 4],
    ];
    let verts: Vec<String> = p
        .iter()
        .map(|c| format!("{};{};{};", c[0], c[1], c[2]))
        .collect();
    let fs: Vec<String> = faces
        .iter()
        .map(|f| format!("4;{},{},{},{};", f[0], f[1], f[2], f[3]))
        .collect();
    format!(
        "xof 0302txt 0064\nMesh {{\n 8;\n {};;\n 6;\n {};;\n\
         MeshMaterialList {{ 1; 6; 0,0,0,0,0,0;;\n  Material {{ {r};{g};{b};0.99;; 5; 0;0;0;; {r};{g};{b};; }}\n }}\n}}\n",
        verts.join(",\n "),
        fs.join(",\n "),
        r = rgb[0],
        g = rgb[1],
        b = rgb[2],
    )
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write test file");
    p
}

fn pixel(img: &TextureRgba, x: f32, y: f32) -> [u8; 4] {
    img.pixel(x as u32, y as u32).expect("inside the picture")
}

fn greenish(p: [u8; 4]) -> bool {
    p[1] > 100 && p[1] > p[0].saturating_add(60) && p[1] > p[2].saturating_add(60)
}

fn reddish(p: [u8; 4]) -> bool {
    p[0] > 120 && p[0] > p[1].saturating_add(60) && p[0] > p[2].saturating_add(60)
}

#[test]
fn a_stage_floor_is_drawn_under_the_dancer_before_the_models() {
    let Some(mut stage) = new_stage() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    // A floor 60 × 60 MMD units (6 file units ×10) at y = 0, facing up
    // (clockwise seen from above), green.
    let floor = write(dir.path(), "floor.x", &floor_x([0.0, 0.8, 0.0]));
    stage.ground_shadow = false;
    stage.self_shadow = false;
    stage
        .add_actor(demo_model().expect("demo"), None, 0.0)
        .expect("actor");
    let target = stage.target(160, 90).expect("target");
    let before = stage.picture(&target, 0.0).expect("picture");
    let lm = LoadedModel::open_set_piece(&floor).expect("the floor reads");
    assert_eq!(lm.model.positions.len(), 4);
    stage.add_prop(lm, DrawOrder::BeforeModels).expect("prop");
    let after = stage.picture(&target, 0.0).expect("picture");
    assert!(stage.props[0].visible() && stage.props[0].placed());
    let view = stage.view_at(0.0, 160.0 / 90.0);
    // A floor point in front of the dancer, 12 units to the side: floor
    // colour with the stage, the background (white) without.
    let (x, y, _) = view
        .project(Vec3::new(12.0, 0.0, 10.0), 160, 90)
        .expect("in view");
    assert_eq!(
        pixel(&before, x, y),
        [255, 255, 255, 255],
        "no floor before"
    );
    assert!(
        greenish(pixel(&after, x, y)),
        "floor {:?}",
        pixel(&after, x, y)
    );
    // The dancer (drawn after the floor) still shows at its chest.
    let (cx, cy, _) = view
        .project(Vec3::new(0.0, 14.0, 0.0), 160, 90)
        .expect("in view");
    assert_eq!(
        pixel(&before, cx, cy),
        pixel(&after, cx, cy),
        "the dancer is drawn over the floor"
    );
    // Hidden: the floor is gone again.
    stage.props[0].shown = false;
    let hidden = stage.picture(&target, 0.0).expect("picture");
    assert!(!stage.props[0].visible());
    assert_eq!(pixel(&hidden, x, y), [255, 255, 255, 255]);
}

#[test]
fn an_accessory_on_the_right_wrist_moves_with_the_hand() {
    let Some(mut stage) = new_stage() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let cube = write(dir.path(), "cube.x", &cube_x(0.08, [0.9, 0.0, 0.0]));
    let demo = demo_model().expect("demo");
    let dance =
        vmd_studio::vmd::read(include_bytes!("../assets/demo_dance.vmd")).expect("demo dance");
    let motion = IndexedMotion::new(dance.clone());
    let reference = IndexedMotion::new(dance);
    stage.ground_shadow = false;
    stage.self_shadow = false;
    stage
        .add_actor(demo.clone(), Some(motion), 0.0)
        .expect("actor");
    let mut acc = SetAccessory::new(cube.clone());
    acc.state.parent = Parent::Bone {
        actor: 0,
        bone: "右手首".into(),
    };
    stage
        .add_accessory(LoadedModel::open_set_piece(&cube).expect("cube"), acc)
        .expect("accessory");
    let (w, h) = (320, 180);
    let target = stage.target(w, h).expect("target");
    // The wrist's position from an independent pose of the same model.
    let wrist = demo
        .model
        .skeleton
        .bones
        .iter()
        .position(|b| b.name == "右手首")
        .expect("the demo model has a right wrist");
    let mut seen = Vec::new();
    for frame in [0.0, 45.0] {
        let img = stage.picture(&target, frame).expect("picture");
        let mut engine = PoseEngine::new(&demo.model);
        engine.bind(&demo.model, Some(&reference.index));
        engine.pose(&demo.model, Some(reference.as_ref()), frame);
        let at = engine.posed.bone_position(wrist).expect("wrist posed");
        let view = stage.view_at(frame, w as f32 / h as f32);
        let (x, y, _) = view.project(at, w, h).expect("the hand is in view");
        let p = pixel(&img, x, y);
        assert!(
            reddish(p),
            "frame {frame}: the cube at the wrist ({x:.0},{y:.0}) is {p:?}"
        );
        seen.push((x, y));
    }
    // Hidden, the wrist shows the hand's own colour.
    stage.props[0].shown = false;
    let img = stage.picture(&target, 45.0).expect("picture");
    let p = pixel(&img, seen[1].0, seen[1].1);
    assert!(!reddish(p), "without the accessory the wrist is {p:?}");
    let moved = ((seen[0].0 - seen[1].0).powi(2) + (seen[0].1 - seen[1].1).powi(2)).sqrt();
    assert!(
        moved > 8.0,
        "the hand moved only {moved:.1} px between the frames"
    );
}

#[test]
fn a_wall_beyond_the_default_far_plane_is_drawn_when_a_stage_reaches_it() {
    let Some(mut stage) = new_stage() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    // A wall 15,000 units ahead (1,500 file units ×10), facing the camera,
    // 2 × 1,000 units of file space: far beyond the default far plane.
    let wall = write(
        dir.path(),
        "wall.x",
        &quad_x(
            [
                [-2000.0, -2000.0, 1500.0],
                [-2000.0, 2000.0, 1500.0],
                [2000.0, 2000.0, 1500.0],
                [2000.0, -2000.0, 1500.0],
            ],
            [0.0, 0.0, 0.9],
            0.99,
        ),
    );
    stage.ground_shadow = false;
    stage.self_shadow = false;
    stage
        .add_prop(
            LoadedModel::open_set_piece(&wall).expect("wall"),
            DrawOrder::BeforeModels,
        )
        .expect("prop");
    let target = stage.target(64, 36).expect("target");
    let img = stage.picture(&target, 0.0).expect("picture");
    let p = pixel(&img, 32.0, 18.0);
    assert!(
        p[2] > 120 && p[0] < 60 && p[1] < 60,
        "the far wall is {p:?}"
    );
    // The far plane the view used reaches it (hand: the wall's farthest
    // corner from the default eye (0, 10, −45) is (±20000, ±20000, 15000)).
    let d = (20000.0f32.powi(2) + 20010.0f32.powi(2) + 15045.0f32.powi(2)).sqrt() * 1.05;
    let (min, max) = stage.set_bounds().expect("bounds");
    assert!((fitted_far(Vec3::new(0.0, 10.0, -45.0), min, max) - d).abs() < 1.0);
}

#[test]
fn fitted_far_keeps_the_default_for_small_sets_and_reaches_big_ones() {
    let eye = Vec3::new(0.0, 10.0, -45.0);
    assert_eq!(
        fitted_far(eye, Vec3::splat(-50.0), Vec3::splat(50.0)),
        DEFAULT_FAR
    );
    // A skybox of ±10,000: the farthest corner is (±10000, −10000, 10000)
    // from the eye: √(10000² + 10010² + 10045²) · 1.05.
    let d = (10000.0f32.powi(2) + 10010.0f32.powi(2) + 10045.0f32.powi(2)).sqrt() * 1.05;
    let f = fitted_far(eye, Vec3::splat(-10000.0), Vec3::splat(10000.0));
    assert!((f - d).abs() < 1.0, "{f} vs {d}");
    assert_eq!(
        fitted_far(eye, Vec3::splat(f32::NAN), Vec3::ONE),
        DEFAULT_FAR
    );
}

#[test]
fn a_vac_places_its_accessory_and_names_its_bone() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "Negi.x", &cube_x(0.1, [0.0, 0.9, 0.0]));
    // Six Shift_JIS lines; the .x named in another letter case.
    let mut vac = Vec::new();
    vac.extend_from_slice(b"\x83\x6c\x83\x4d\r\n"); // ネギ
    vac.extend_from_slice(b"negi.x\r\n1.5\r\n0,1,2\r\n0,90,0\r\n");
    vac.extend_from_slice(b"\x89\x45\x8e\xe8\x8e\xf1\r\n"); // 右手首
    let vac_path = dir.path().join("negi.vac");
    std::fs::write(&vac_path, &vac).expect("write");
    let (a, bone) = open_accessory_file(&vac_path).expect("the .vac opens");
    assert_eq!(a.name, "ネギ");
    assert_eq!(bone.as_deref(), Some("右手首"));
    assert_eq!(a.state.scale, 1.5);
    assert_eq!(a.state.position, Vec3::new(0.0, 1.0, 2.0));
    assert_eq!(a.state.rotation_degrees, Vec3::new(0.0, 90.0, 0.0));
    assert!(a.path.ends_with("Negi.x"), "{}", a.path.display());
    // Its .x gone: an error naming the .vac and the missing file.
    std::fs::remove_file(dir.path().join("Negi.x")).expect("remove");
    let e = open_accessory_file(&vac_path).expect_err("no .x");
    assert!(e.contains("negi.vac") && e.contains("negi.x"), "{e}");
}

#[test]
fn a_stage_floor_receives_the_dancers_self_shadow() {
    let Some(mut stage) = new_stage() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let floor = write(dir.path(), "floor.x", &floor_x([0.5, 0.5, 0.5]));
    stage.ground_shadow = false;
    stage.self_shadow = true;
    stage
        .add_actor(demo_model().expect("demo"), None, 0.0)
        .expect("actor");
    stage
        .add_prop(
            LoadedModel::open_set_piece(&floor).expect("floor"),
            DrawOrder::BeforeModels,
        )
        .expect("prop");
    let (w, h) = (320, 180);
    let target = stage.target(w, h).expect("target");
    let img = stage.picture(&target, 0.0).expect("picture");
    let view = stage.view_at(0.0, w as f32 / h as f32);
    // MMD's default light shines along (−0.5, −1, 0.5): the chest at
    // (0, 12, 0) throws its shadow 12 units down that line, onto (−6, 0, 6);
    // the floor at (8, 0, 6), as far from the camera, is lit.
    let luma = |p: Vec3| {
        let (x, y, _) = view.project(p, w, h).expect("in view");
        let c = pixel(&img, x, y);
        u32::from(c[0]) + u32::from(c[1]) + u32::from(c[2])
    };
    if let Ok(p) = std::env::var("SET_RENDER_SAVE") {
        img.save_png(std::path::Path::new(&p)).expect("save");
    }
    let shaded = luma(Vec3::new(-6.0, 0.0, 6.0));
    let lit = luma(Vec3::new(8.0, 0.0, 6.0));
    assert!(
        shaded + 60 < lit,
        "the floor in the dancer's shadow ({shaded}) is darker than the lit floor ({lit})"
    );
}

/// MMD lights an accessory by Lambert (MME full.fx with use_toon off):
/// ambient + max(0, N·L) · diffuse · light. Hand computation for MMD's
/// default light (colour 154/255, direction (−0.5, −1, 0.5)), diffuse 0.5,
/// ambient (the `.x` emissive) 0.2: a floor facing up has N·(−L) = 1/√1.5
/// = 0.816 → 0.2 + 0.816 · 0.5 · 0.604 = 0.446 (114); a wall facing the
/// camera (N = −Z) has N·(−L) = 0.5/√1.5 = 0.408 → 0.323 (82).
#[test]
fn an_accessory_is_lit_by_lambert_as_mmd_lights_accessories() {
    let Some(mut stage) = new_stage() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let grey = |name: &str, corners| {
        let text =
            quad_x(corners, [0.5, 0.5, 0.5], 1.0).replace("0.5;0.5;0.5;; }", "0.2;0.2;0.2;; }");
        write(dir.path(), name, &text)
    };
    // Floor (y = 0, facing up) in front, wall (z = 2, facing −Z) above it.
    let floor = grey(
        "floor.x",
        [
            [-3.0, 0.0, -3.0],
            [-3.0, 0.0, 1.0],
            [3.0, 0.0, 1.0],
            [3.0, 0.0, -3.0],
        ],
    );
    let wall = grey(
        "wall.x",
        [
            [-3.0, 0.0, 2.0],
            [-3.0, 3.0, 2.0],
            [3.0, 3.0, 2.0],
            [3.0, 0.0, 2.0],
        ],
    );
    stage.ground_shadow = false;
    stage.self_shadow = false;
    for p in [&floor, &wall] {
        stage
            .add_prop(
                LoadedModel::open_set_piece(p).expect("x"),
                DrawOrder::BeforeModels,
            )
            .expect("prop");
    }
    let (w, h) = (160, 90);
    let target = stage.target(w, h).expect("target");
    let img = stage.picture(&target, 0.0).expect("picture");
    let view = stage.view_at(0.0, w as f32 / h as f32);
    let at = |p: Vec3| {
        let (x, y, _) = view.project(p, w, h).expect("in view");
        pixel(&img, x, y)
    };
    let f = at(Vec3::new(5.0, 0.0, -5.0));
    let wl = at(Vec3::new(5.0, 15.0, 20.0));
    for (c, want, what) in [(f, 114u8, "floor"), (wl, 82, "wall")] {
        assert!(
            c[..3].iter().all(|&v| v.abs_diff(want) <= 4),
            "{what}: {c:?}, want about {want}"
        );
    }
}

/// Issue 38.3: a second dancer placed 5 units along X and turned half
/// round stands there in the picture, and an accessory on its wrist goes
/// with it. The wrist is posed here without a placement and moved by the
/// placement's matrix built in the test.
#[test]
fn a_placed_dancer_and_the_accessory_on_its_wrist_stand_where_placed() {
    let Some(mut stage) = new_stage() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let cube = write(dir.path(), "cube.x", &cube_x(0.08, [0.9, 0.0, 0.0]));
    let demo = demo_model().expect("demo");
    let dance =
        vmd_studio::vmd::read(include_bytes!("../assets/demo_dance.vmd")).expect("demo dance");
    let reference = IndexedMotion::new(dance.clone());
    stage.ground_shadow = false;
    stage.self_shadow = false;
    let placed = glam::Mat4::from_rotation_translation(
        glam::Quat::from_rotation_y(std::f32::consts::PI),
        Vec3::new(5.0, 0.0, 0.0),
    );
    for placement in [None, Some(placed)] {
        stage
            .add_actor(demo.clone(), Some(IndexedMotion::new(dance.clone())), 0.0)
            .expect("actor");
        stage.place_last_actor(placement);
    }
    let mut acc = SetAccessory::new(cube.clone());
    acc.state.parent = Parent::Bone {
        actor: 1,
        bone: "右手首".into(),
    };
    stage
        .add_accessory(LoadedModel::open_set_piece(&cube).expect("cube"), acc)
        .expect("accessory");
    let (w, h) = (320, 180);
    let target = stage.target(w, h).expect("target");
    let wrist = demo
        .model
        .skeleton
        .bones
        .iter()
        .position(|b| b.name == "右手首")
        .expect("right wrist");
    let frame = 30.0;
    let img = stage.picture(&target, frame).expect("picture");
    let mut engine = PoseEngine::new(&demo.model);
    engine.bind(&demo.model, Some(&reference.index));
    engine.pose(&demo.model, Some(reference.as_ref()), frame);
    let here = engine.posed.bone_position(wrist).expect("wrist");
    let there = placed.transform_point3(here);
    let view = stage.view_at(frame, w as f32 / h as f32);
    let (x, y, _) = view
        .project(there, w, h)
        .expect("the placed hand is in view");
    assert!(
        reddish(pixel(&img, x, y)),
        "the cube at the placed wrist ({x:.0},{y:.0}) is {:?}",
        pixel(&img, x, y)
    );
    // Where that wrist would be unplaced, actor 0's own hand: no cube.
    let (ux, uy, _) = view.project(here, w, h).expect("the hand is in view");
    assert!(
        ((ux - x).powi(2) + (uy - y).powi(2)).sqrt() > 10.0,
        "the check tells the two places apart"
    );
    assert!(
        !reddish(pixel(&img, ux, uy)),
        "no cube at the unplaced wrist: {:?}",
        pixel(&img, ux, uy)
    );
}

/// A stage 500 units wide under the dancer with MMD's self-shadow on: the
/// floor is lit everywhere but where the dancer's shadow falls, up to the
/// horizon (no band where the shadow map's depth range ends darkens the
/// floor), and the dancer's shadow is still on it.
#[test]
fn a_floor_500_units_wide_is_lit_to_the_horizon_with_the_dancers_shadow() {
    let dir = tempfile::tempdir().expect("tempdir");
    let small = write(dir.path(), "small.x", &floor_x([0.5, 0.5, 0.5]));
    let big = write(
        dir.path(),
        "big.x",
        &quad_x(
            [
                [-25.0, 0.0, -25.0],
                [-25.0, 0.0, 25.0],
                [25.0, 0.0, 25.0],
                [25.0, 0.0, -25.0],
            ],
            [0.5, 0.5, 0.5],
            1.0,
        ),
    );
    let (w, h) = (320, 180);
    let shoot = |floor: &Path| {
        let mut stage = new_stage()?;
        stage.ground_shadow = false;
        stage.self_shadow = true;
        stage
            .add_actor(demo_model().expect("demo"), None, 0.0)
            .expect("actor");
        stage
            .add_prop(
                LoadedModel::open_set_piece(floor).expect("floor"),
                DrawOrder::BeforeModels,
            )
            .expect("prop");
        let target = stage.target(w, h).expect("target");
        let img = stage.picture(&target, 0.0).expect("picture");
        Some((img, stage.view_at(0.0, w as f32 / h as f32)))
    };
    let Some((img, view)) = shoot(&big) else {
        return;
    };
    if let Ok(p) = std::env::var("SET_RENDER_SAVE") {
        img.save_png(std::path::Path::new(&p)).expect("save");
    }
    let luma = |p: Vec3| {
        let (x, y, _) = view.project(p, w, h).expect("in view");
        let c = pixel(&img, x, y);
        u32::from(c[0]) + u32::from(c[1]) + u32::from(c[2])
    };
    let lit = luma(Vec3::new(8.0, 0.0, 6.0));
    assert!(
        luma(Vec3::new(-6.0, 0.0, 6.0)) + 60 < lit,
        "the dancer's shadow is on the floor"
    );
    // Along the floor away from the camera, beside the dancer (x = 0 is
    // behind her legs) and off the shadow's line, to 2° under the horizon.
    for z in [20.0, 40.0, 80.0, 120.0, 160.0, 200.0] {
        for x in [-15.0f32, 15.0] {
            let l = luma(Vec3::new(x, 0.0, z));
            assert!(
                l.abs_diff(lit) <= 24,
                "the floor at ({x}, 0, {z}): {l} vs lit {lit}"
            );
        }
    }
    // The shadow is as sharp as on a 60-unit floor: MMD's shadow map
    // follows the camera and the self-shadow distance, not the set's size,
    // so the pixels around the shadow are the same.
    let (small_img, _) = shoot(&small).expect("adapter");
    let (cx, cy, _) = view
        .project(Vec3::new(-6.0, 0.0, 6.0), w, h)
        .expect("in view");
    let mut differ = 0;
    for y in (cy as u32 - 12)..(cy as u32 + 12) {
        for x in (cx as u32 - 30)..(cx as u32 + 30) {
            let (a, b) = (img.pixel(x, y).unwrap(), small_img.pixel(x, y).unwrap());
            if a.iter().zip(b).any(|(p, q)| p.abs_diff(q) > 2) {
                differ += 1;
            }
        }
    }
    assert_eq!(differ, 0, "pixels around the shadow that differ");
}

/// A stage with its own motion (moving parts) is drawn as the same model
/// worn as an actor with that motion is (no physics on either): the two
/// pictures are equal at frame 15, and the stage's picture changes between
/// frames 0 and 15.
#[test]
fn a_stage_with_its_own_motion_moves_as_an_actor_would() {
    let dance = vmd_studio::vmd::read_vec(
        std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/assets/demo_dance.vmd"
        ))
        .expect("demo dance"),
    )
    .expect("vmd");
    let (w, h) = (160, 90);
    let shoot = |as_stage: bool, frame: f64| {
        let mut stage = new_stage()?;
        stage.self_shadow = false;
        let m = Some(IndexedMotion::new(dance.clone()));
        let demo = demo_model().expect("demo");
        if as_stage {
            stage
                .add_stage(demo, DrawOrder::BeforeModels, m)
                .expect("stage");
        } else {
            stage.add_actor(demo, m, 0.0).expect("actor");
        }
        let target = stage.target(w, h).expect("target");
        Some(stage.picture(&target, frame).expect("picture"))
    };
    let Some(stage15) = shoot(true, 15.0) else {
        return;
    };
    let actor15 = shoot(false, 15.0).expect("adapter");
    let stage0 = shoot(true, 0.0).expect("adapter");
    let differ = |a: &TextureRgba, b: &TextureRgba, tol: u8| {
        let mut n = 0;
        for y in 0..h {
            for x in 0..w {
                let (p, q) = (a.pixel(x, y).unwrap(), b.pixel(x, y).unwrap());
                if p.iter().zip(q).any(|(u, v)| u.abs_diff(v) > tol) {
                    n += 1;
                }
            }
        }
        n
    };
    assert_eq!(
        differ(&stage15, &actor15, 2),
        0,
        "the stage is drawn as the actor"
    );
    let moved = differ(&stage0, &stage15, 10);
    assert!(
        moved > 100,
        "its parts move between frames 0 and 15: {moved} pixels"
    );
}
