//! Tools ▸ Size motion to model… (issue 36) in the real app under
//! egui_kittest, driven as a user would: Mei (`mei/mei.pmd`) wears the
//! pose the vmd_sizing author made for his sample model
//! (`frontier/sizing_mmdbase_sample_model/サンプルモーション3.vmd`, one
//! key per bone at frame 0); the dialog is opened from the Tools menu,
//! the source model picked with Browse… in the built-in file browser.
//!
//! What is checked, and where the expected numbers come from:
//! * the report appears before anything is applied, and the viewport
//!   shows the sized motion on Mei while "Preview on the actor" is on
//!   (her left ankle where the independently sized motion puts it), her
//!   own motion when it is off;
//! * Apply is one undo step, and the file's bytes are then exactly those
//!   of `vmd_studio::sizing::size_motion` for the same inputs, differ from
//!   the original, and センター's X and Z (1.3161, 2.4645 in the file) are
//!   scaled by the ratio of the two models' straight hip→ankle lengths,
//!   computed here from their rest positions (VMDサイジング v5's
//!   horizontal leg ratio; グルーブ and 腰 are keyed at zero, so nothing is
//!   folded into センター's X and Z);
//! * Ctrl+Z gives back the original bytes exactly;
//! * with the built-in standard body as the source the result is
//!   `size_motion`'s with `standard_model()`; a source model without
//!   legs (`babylonmmd__bone_hierarchy_test.pmx`) gives a message naming
//!   the missing bones, and Apply changes nothing.
//!
//! Run with `cargo test --test ui sizing::`.

use std::path::{Path, PathBuf};

use crate::common::corpus;
use crate::common::ui::{harness_sized, settle, settle_until};

use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use glam::Vec3;
use vmd_studio::app::panels::toolbox::{ChangeTotals, SourceChoice, Tool};
use vmd_studio::app::{CentralView, StudioApp};
use vmd_studio::model::{Model, PoseEngine};
use vmd_studio::sizing::{self, SizingOptions};
use vmd_studio::vmd::{self, IndexedMotion, Motion};

const SAMPLE: &str = "frontier/sizing_mmdbase_sample_model";
const MOTION: &str = "サンプルモーション3.vmd";
const SOURCE: &str = "サンプルモデル.pmx";

/// Mei wearing the sample pose, in the 3D preview.
fn mei_in_pose(corpus: &Path) -> Harness<'static, StudioApp> {
    let mut app = StudioApp::default();
    app.files.native_dialog = false;
    app.panels.central = CentralView::Preview;
    app.open_paths(vec![
        corpus.join("mei/mei.pmd"),
        corpus.join(SAMPLE).join(MOTION),
    ]);
    let mut h = harness_sized(app, 1600.0, 1000.0);
    settle(&mut h);
    let app = h.state();
    assert!(
        app.scene.loaded(&app.ws.scene().actors[0].model),
        "Mei loaded"
    );
    assert_eq!(app.ws.docs().len(), 1, "the motion is open");
    assert_eq!(
        app.ws.scene().actors[0].motion,
        Some(app.ws.docs()[0].id),
        "Mei wears it"
    );
    h
}

fn bytes(h: &Harness<'static, StudioApp>) -> Vec<u8> {
    vmd::write(&h.state().ws.docs()[0].motion).expect("the motion writes")
}

fn open_tool(h: &mut Harness<'static, StudioApp>) {
    h.get_by_label("Tools").click();
    h.run_steps(2);
    h.get_by_label("Size motion to model…").click();
    h.run_steps(3);
    assert_eq!(h.state().panels.toolbox.open, Some(Tool::Sizing));
}

/// Waits until the dialog's sizing run is done.
fn wait_for_sizing(h: &mut Harness<'static, StudioApp>) {
    settle_until(h, "the sizing run", |app| {
        !app.panels.toolbox.sizing.is_computing() && app.panels.toolbox.sizing.result.is_some()
    });
}

fn type_into(h: &mut Harness<'static, StudioApp>, label: &str, text: &str) {
    h.get_by_label(label).click();
    h.run_steps(1);
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.get_by_label(label).type_text(text);
    h.run_steps(2);
}

/// World position of `bone` on `model` wearing `motion` at `frame`,
/// through the pose engine (IK included, no physics).
fn bone_at(model: &Model, motion: &Motion, bone: &str, frame: f64) -> Vec3 {
    let im = IndexedMotion::new(motion.clone());
    let mut e = PoseEngine::new(model);
    e.bind(model, Some(&im.index));
    e.pose_bones(model, Some(im.as_ref()), frame, |_| {});
    let i = model.skeleton.find(bone).expect("bone");
    e.posed.bone_world[i].w_axis.truncate()
}

/// Where the viewport last posed Mei's `bone`.
fn viewport_bone(h: &Harness<'static, StudioApp>, mei: &Model, bone: &str) -> Vec3 {
    let (frame, world) = h.state().panels.viewport.posed_bones(0).expect("posed");
    assert_eq!(frame, 0.0, "posed at frame 0");
    let i = mei.skeleton.find(bone).expect("bone");
    world[i].w_axis.truncate()
}

/// |左足 − 左足首| at rest: the straight hip→ankle length.
fn hip_to_ankle(m: &Model) -> f32 {
    let at = |n: &str| {
        let i = m.skeleton.find(n).expect("leg bone");
        m.skeleton.bones[i].rest_position
    };
    at("左足").distance(at("左足首"))
}

fn centre_key(m: &Motion) -> [f32; 3] {
    let k = m
        .bones
        .iter()
        .find(|k| k.name().text == "センター")
        .expect("センター key");
    k.position()
}

#[test]
fn size_from_a_model_file_preview_apply_and_undo() {
    let Some(corpus) = corpus() else { return };
    let sample_dir: PathBuf = corpus.join(SAMPLE);
    let original = std::fs::read(sample_dir.join(MOTION)).expect("corpus motion");
    let motion = vmd::read_vec(original.clone()).expect("vmd");
    let source = Model::open(&sample_dir.join(SOURCE)).expect("sample model");
    let mei = Model::open(&corpus.join("mei/mei.pmd")).expect("Mei");
    let expected = sizing::size_motion(&motion, &source, &mei, &SizingOptions::default())
        .expect("sized")
        .motion;

    let mut h = mei_in_pose(&corpus);
    assert_eq!(bytes(&h), original, "the file as it was read");
    open_tool(&mut h);
    // The built-in body's report first (the default source): the dialog
    // then keeps its size while the source is picked.
    wait_for_sizing(&mut h);
    // The source from a file, picked in the built-in browser (no system
    // dialog here), which starts in the motion's folder.
    h.get_by_label("A model file").click();
    h.run_steps(2);
    assert_eq!(
        h.state().panels.toolbox.sizing.source,
        SourceChoice::File,
        "the source is a file"
    );
    h.get_by_label("Browse…").click();
    h.run_steps(3);
    let browser = h.state().files.file_browser.as_ref().expect("a browser");
    assert_eq!(browser.purpose, vmd_studio::app::jobs::Pick::SizingSource);
    h.get_by_label(SOURCE).click();
    h.run_steps(2);
    h.get_by_label("Open").click();
    h.run_steps(3);
    assert!(h.state().files.file_browser.is_none(), "the browser closed");
    let sizing = &h.state().panels.toolbox.sizing;
    assert_eq!(sizing.source, SourceChoice::File);
    let canonical = |p: PathBuf| std::fs::canonicalize(p).expect("the path exists");
    assert_eq!(
        canonical(PathBuf::from(&sizing.path)),
        canonical(sample_dir.join(SOURCE))
    );
    wait_for_sizing(&mut h);

    // The report, before anything is applied.
    let preview = h
        .state()
        .panels
        .toolbox
        .sizing
        .current()
        .expect("a report for these inputs")
        .clone();
    assert_eq!(preview.sized.motion, expected, "the dialog's sizing");
    assert_eq!(preview.quality.source.frames, 1, "one frame measured");
    h.get_by_label("Leg IK reach");
    h.get_by_label("Hand contacts kept");
    h.get_by_label("Hands: meet where the source's hands touch");
    h.get_by_label("Changes per bone");
    assert_eq!(bytes(&h), original, "nothing applied yet");
    assert_eq!(h.state().ws.docs()[0].history().len(), 0);

    // The preview: the viewport poses the sized motion; off, the file's.
    h.run_steps(3);
    let sized_ankle = bone_at(&mei, &expected, "左足首", 0.0);
    let own_ankle = bone_at(&mei, &motion, "左足首", 0.0);
    assert!(
        sized_ankle.distance(own_ankle) > 0.05,
        "sizing moves Mei's ankle: {own_ankle} → {sized_ankle}"
    );
    let shown = viewport_bone(&h, &mei, "左足首");
    assert!(
        shown.distance(sized_ankle) < 1e-3,
        "preview on: viewport {shown} vs sized {sized_ankle}"
    );
    // The ghost: the source body wearing the motion unsized, where Mei
    // stands; its left ankle where the sample model's ankle is on the
    // unsized motion (posed here through the pose engine).
    let ghost_ankle = bone_at(&source, &motion, "左足首", 0.0);
    let near = |h: &Harness<'static, StudioApp>| {
        let lines = vmd_studio::app::panels::viewport::last_source_ghost(&h.ctx)?;
        lines
            .iter()
            .flatten()
            .map(|p| p.distance(ghost_ankle))
            .reduce(f32::min)
    };
    let d = near(&h).expect("the ghost is drawn");
    assert!(d < 1e-3, "the ghost's ankle is {d} from the source's");
    assert!(
        ghost_ankle.distance(sized_ankle) > 0.05,
        "the ghost and the sized actor differ where sizing moved the foot"
    );
    h.get_by_label("Ghost: the source, unsized").click();
    h.run_steps(3);
    assert!(near(&h).is_none(), "no ghost when unticked");
    h.get_by_label("Ghost: the source, unsized").click();
    h.run_steps(3);
    assert!(near(&h).is_some());
    h.get_by_label("Preview on the actor").click();
    h.run_steps(3);
    let shown = viewport_bone(&h, &mei, "左足首");
    assert!(
        shown.distance(own_ankle) < 1e-3,
        "preview off: viewport {shown} vs the file's {own_ankle}"
    );
    h.get_by_label("Preview on the actor").click();
    h.run_steps(3);

    // Apply: one undo step; the file is the sized motion.
    h.get_by_label("Apply the sizing").click();
    h.run_steps(4);
    let doc = &h.state().ws.docs()[0];
    assert_eq!(doc.history().len(), 1, "one undo step");
    let applied = bytes(&h);
    assert_ne!(applied, original, "the motion changed");
    assert_eq!(
        applied,
        vmd::write(&expected).expect("writes"),
        "the file holds size_motion's result"
    );
    let ratio = hip_to_ankle(&mei) / hip_to_ankle(&source);
    assert!((ratio - 1.0).abs() > 0.02, "the legs differ: ×{ratio}");
    let before = centre_key(&motion);
    let after = centre_key(&h.state().ws.docs()[0].motion);
    for axis in [0, 2] {
        let want = before[axis] * ratio;
        assert!(
            (after[axis] - want).abs() <= 1e-4 * want.abs().max(1.0),
            "センター axis {axis}: {} × {ratio} = {want}, got {}",
            before[axis],
            after[axis]
        );
    }
    // The dialog's summary counts what the report said.
    let totals = ChangeTotals::of(&preview.outcome);
    assert!(totals.changed > 0, "{totals:?}");
    h.get_by_label(&format!(
        "Done: {} added, {} changed, 0 dropped, 0 refused, 0 warnings",
        totals.added, totals.changed
    ));
    h.get_by_label("Sized: the file now holds the result (the report is below).");

    // Ctrl+Z: the original bytes exactly.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run_steps(3);
    assert_eq!(bytes(&h), original, "undo restores the bytes");
    assert_eq!(h.state().ws.docs()[0].history().len(), 0);

    // Ctrl+Y: the sized file again, and the dialog stands down again
    // (it offered to size the sized motion a second time, and previewed
    // that on Mei).
    h.key_press_modifiers(Modifiers::COMMAND, Key::Y);
    h.run_steps(4);
    assert_eq!(bytes(&h), applied, "redo gives the sized bytes back");
    h.get_by_label("Sized: the file now holds the result (the report is below).");
}

#[test]
fn the_builtin_body_as_source_and_a_source_without_legs() {
    let Some(corpus) = corpus() else { return };
    let original = std::fs::read(corpus.join(SAMPLE).join(MOTION)).expect("corpus motion");
    let motion = vmd::read_vec(original.clone()).expect("vmd");
    let mei = Model::open(&corpus.join("mei/mei.pmd")).expect("Mei");
    let builtin = vmd_studio::model::standard_model();
    let expected = sizing::size_motion(&motion, &builtin, &mei, &SizingOptions::default())
        .expect("sized from the built-in body")
        .motion;

    let mut h = mei_in_pose(&corpus);
    open_tool(&mut h);
    // The built-in standard body is the default source.
    assert_eq!(
        h.state().panels.toolbox.sizing.source,
        SourceChoice::Builtin
    );
    wait_for_sizing(&mut h);
    let p = h
        .state()
        .panels
        .toolbox
        .sizing
        .current()
        .expect("a report")
        .clone();
    assert_eq!(p.sized.motion, expected, "sized from the built-in body");
    assert_ne!(p.sized.motion, motion);

    // A source without legs: a message naming the bones; nothing applies.
    let legless = corpus.join("babylonmmd__bone_hierarchy_test.pmx");
    h.get_by_label("A model file").click();
    h.run_steps(2);
    type_into(&mut h, "Source model file", &legless.display().to_string());
    wait_for_sizing(&mut h);
    let sizing = &h.state().panels.toolbox.sizing;
    assert!(sizing.current().is_none(), "no sizing to apply");
    let message = match &sizing.result {
        Some(Err(e)) => e.clone(),
        other => panic!("expected a refusal, got {other:?}"),
    };
    assert!(
        message.contains("source model lacks the standard bone") && message.contains("左足"),
        "{message}"
    );
    h.get_by_label(&format!("Cannot size: {message}"));
    h.get_by_label("Apply the sizing").click();
    h.run_steps(4);
    assert_eq!(bytes(&h), original, "nothing applied");
    assert_eq!(h.state().ws.docs()[0].history().len(), 0);
}

/// With a scene camera open, the dialog offers to keep its framing (on by
/// default); Apply sizes the motion and the camera in one undo step: each
/// camera key's distance × the target's 頭 height over the source's (read
/// here from the two skeletons' rest positions), and Ctrl+Z gives both
/// files back byte for byte.
#[test]
fn sizing_keeps_the_scene_camera_framed_in_the_same_undo_step() {
    let Some(corpus) = corpus() else { return };
    let tmp = tempfile::tempdir().expect("tmp");
    let cam_path = tmp.path().join("demo_camera.vmd");
    std::fs::write(&cam_path, vmd_studio::app::DEMO_CAMERA).expect("camera");
    let mut app = StudioApp::default();
    app.files.native_dialog = false;
    app.panels.central = CentralView::Preview;
    app.open_paths(vec![
        corpus.join("mei/mei.pmd"),
        corpus.join(SAMPLE).join(MOTION),
        cam_path.clone(),
    ]);
    let mut h = harness_sized(app, 1600.0, 1000.0);
    settle(&mut h);
    let ws = &h.state().ws;
    let camera = ws
        .scene()
        .camera
        .expect("the camera file is the scene camera");
    let dance = ws.scene().actors[0].motion.expect("Mei wears the motion");
    let doc_bytes = |h: &Harness<'static, StudioApp>, id: u64| {
        vmd::write(&h.state().ws.doc(id).expect("open").motion).expect("writes")
    };
    let (dance0, camera0) = (doc_bytes(&h, dance), doc_bytes(&h, camera));
    h.state_mut().activate(dance);
    h.run_steps(2);
    open_tool(&mut h);
    wait_for_sizing(&mut h);
    h.get_by_label("Camera: keep the framing (size demo_camera.vmd too)");
    assert!(h.state().panels.toolbox.sizing.size_camera, "on by default");
    // The dialog holds still: the button is where the click lands.
    h.run_steps(2);
    h.get_by_label("Apply the sizing").click();
    h.run_steps(4);
    assert!(doc_bytes(&h, dance) != dance0, "the motion is sized");
    let sized = h.state().ws.doc(camera).expect("open").motion.clone();
    let before = vmd::read_vec(camera0.clone()).expect("camera");
    let head = |m: &Model| {
        let sk = &m.skeleton;
        sk.bones[sk.find("頭").expect("頭")].rest_position.y
    };
    let mei = Model::open(&corpus.join("mei/mei.pmd")).expect("Mei");
    let ratio = head(&mei) / head(&vmd_studio::model::standard_model());
    assert!((ratio - 1.0).abs() > 0.01, "the bodies differ: ×{ratio}");
    assert_eq!(sized.cameras.len(), before.cameras.len());
    for (a, b) in before.cameras.iter().zip(&sized.cameras) {
        let want = a.distance() * ratio;
        assert!(
            (b.distance() - want).abs() <= 1e-3 * want.abs().max(1.0),
            "frame {}: distance {} × {ratio} = {want}, got {}",
            a.frame(),
            a.distance(),
            b.distance()
        );
    }
    // One undo step takes both back.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run_steps(3);
    assert_eq!(doc_bytes(&h, dance), dance0);
    assert_eq!(doc_bytes(&h, camera), camera0);
}

/// Group sizing in the dialog: with a second actor in the scene (the
/// built-in standard body, whose horizontal ratio to the built-in source is
/// 1), "Group" sizes Mei's motion with the group's one horizontal ratio:
/// the mean of Mei's own (her straight hip→ankle length over the standard
/// body's, read from the two skeletons here) and 1, capped at 1.2 (v5);
/// センター's X and Z in the applied file are the original's × that ratio.
#[test]
fn group_sizing_shares_one_horizontal_ratio_with_the_other_actor() {
    use vmd_studio::app::panels::scene::Action;
    let Some(corpus) = corpus() else { return };
    let original = std::fs::read(corpus.join(SAMPLE).join(MOTION)).expect("corpus motion");
    let motion = vmd::read_vec(original).expect("vmd");
    let mei = Model::open(&corpus.join("mei/mei.pmd")).expect("Mei");
    let own = hip_to_ankle(&mei) / hip_to_ankle(&vmd_studio::model::standard_model());
    let shared = ((own + 1.0) / 2.0).min(1.2);
    assert!((own - shared).abs() > 0.01, "the test tells them apart");

    let mut h = mei_in_pose(&corpus);
    h.state_mut().scene_action(Action::AddActor);
    settle(&mut h);
    assert_eq!(h.state().ws.scene().actors.len(), 2);
    // The motion stays Mei's (the new actor wears none).
    h.state_mut().scene_action(Action::SelectActor(0));
    h.run_steps(2);
    open_tool(&mut h);
    wait_for_sizing(&mut h);
    let alone = h
        .state()
        .panels
        .toolbox
        .sizing
        .current()
        .expect("report")
        .outcome
        .ratios;
    assert!(
        (alone.horizontal - own).abs() < 1e-4,
        "{} vs {own}",
        alone.horizontal
    );

    h.get_by_label("Group: one horizontal scale with the other 1 actor(s)")
        .click();
    h.run_steps(2);
    assert!(h.state().panels.toolbox.sizing.group);
    wait_for_sizing(&mut h);
    let p = h
        .state()
        .panels
        .toolbox
        .sizing
        .current()
        .expect("report")
        .clone();
    assert_eq!(p.group, 1);
    let r = p.outcome.ratios;
    assert!(
        (r.horizontal - shared).abs() < 1e-4,
        "{} vs {shared}",
        r.horizontal
    );
    assert!(
        (r.vertical - alone.vertical).abs() < 1e-6,
        "her own vertical ratio"
    );
    h.get_by_label("Horizontal ratio shared with 1 other actor(s) (the group's)");

    h.get_by_label("Apply the sizing").click();
    h.run_steps(4);
    let sized = vmd::read_vec(bytes(&h)).expect("vmd");
    let (before, after) = (centre_key(&motion), centre_key(&sized));
    for k in [0, 2] {
        assert!(
            (after[k] - before[k] * shared).abs() < 1e-3,
            "センター[{k}]: {} vs {} × {shared}",
            after[k],
            before[k]
        );
    }
}
