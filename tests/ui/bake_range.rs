//! Tools ▸ Bake physics over a frame range, then the offer to simplify
//! what it wrote, on Mei (`mei/mei.pmd`, 31 rigid bodies) wearing
//! MMDAgent's `mmdagent__mei_wait.vmd`, driven through the dialogs.
//!
//! What is checked comes from the file format (`vmd-format.md`: bone
//! records of 111 bytes after a 30-byte header, a 20-byte model name and a
//! count; the name in bytes 0–14, the frame in 15–18, the interpolation
//! block at 47, whose bytes 2–3 are `63 0F` when physics is off), read
//! here from the saved file with a parser of our own, not the app's:
//! * after the bake, each bone a dynamic body drives has exactly one key on
//!   every frame A..=B, each with `63 0F`; every other bone record, in
//!   order, and every byte after the bone section are those of the
//!   original file;
//! * after "Simplify the baked keys…" and Apply, those bones have fewer
//!   keys in A..=B (all still `63 0F`, the key at A byte-identical: simplify
//!   keeps a track's first key and never rewrites the curve arriving at it),
//!   and every record outside the scope is still the original's;
//! * one Ctrl+Z gives back the baked state exactly (the same saved bytes).
//!
//! Run with `cargo test --test ui bake_range::`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::common::corpus;
use crate::common::ui::{harness_sized, settle, settle_until, temp_dir};

use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use vmd_studio::app::{CentralView, StudioApp};
use vmd_studio::model::PhysicsMode;

const HEADER: usize = 30;
const MODEL_NAME: usize = 20;
const BONE_RECORD: usize = 111;
/// Offset of the physics bytes in a bone record: interpolation block at
/// 47, its bytes 2–3.
const PHYSICS: usize = 47 + 2;

/// A v2 file's bone records and every byte after the bone section.
fn split(bytes: &[u8]) -> (Vec<[u8; BONE_RECORD]>, Vec<u8>) {
    assert!(bytes.starts_with(b"Vocaloid Motion Data 0002"), "a v2 file");
    let at = HEADER + MODEL_NAME;
    let n = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    let start = at + 4;
    let end = start + n * BONE_RECORD;
    assert!(end <= bytes.len(), "{n} bone records fit the file");
    let records = bytes[start..end]
        .chunks_exact(BONE_RECORD)
        .map(|c| c.try_into().unwrap())
        .collect();
    (records, bytes[end..].to_vec())
}

/// The name bytes of a record (up to the first NUL).
fn name(r: &[u8; BONE_RECORD]) -> &[u8] {
    let end = r[..15].iter().position(|&b| b == 0).unwrap_or(15);
    &r[..end]
}

fn frame(r: &[u8; BONE_RECORD]) -> u32 {
    u32::from_le_bytes(r[15..19].try_into().unwrap())
}

/// The name bytes MMD stores for a model bone name: Shift_JIS, at most 15.
fn stored_name(model_name: &str) -> Vec<u8> {
    let (b, _, bad) = encoding_rs::SHIFT_JIS.encode(model_name);
    assert!(!bad, "{model_name} encodes");
    let b = &b[..b.len().min(15)];
    b.to_vec()
}

fn mei_waiting(corpus: &Path) -> Harness<'static, StudioApp> {
    let mut app = StudioApp::default();
    app.files.native_dialog = false;
    app.panels.central = CentralView::Preview;
    app.open_paths(vec![
        corpus.join("mei/mei.pmd"),
        corpus.join("mmdagent__mei_wait.vmd"),
    ]);
    let mut h = harness_sized(app, 1400.0, 1000.0);
    settle(&mut h);
    let app = h.state();
    assert!(
        app.scene.loaded(&app.ws.scene().actors[0].model),
        "Mei loaded"
    );
    assert_eq!(app.ws.docs().len(), 1, "the motion is open");
    h
}

/// Names (as stored in a VMD) of the bones a dynamic body (modes 1 and 2)
/// drives: what a bake keys.
fn driven(app: &StudioApp) -> BTreeSet<Vec<u8>> {
    let rig = app.scene.rig_for(&app.ws.scene().actors[0].model);
    rig.rigid_bodies
        .iter()
        .filter(|b| b.mode != PhysicsMode::FollowBone)
        .filter_map(|b| b.bone)
        .map(|b| stored_name(&rig.skeleton.bones[b].name))
        .collect()
}

/// Types `v` into the number field labelled `label`.
fn set_number(h: &mut Harness<'static, StudioApp>, label: &str, v: u32) {
    h.get_by_label(label).click();
    h.run_steps(2);
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.get_by_label(label).type_text(&v.to_string());
    h.key_press(Key::Enter);
    h.run_steps(2);
}

/// Saves the document to `path` and returns the bytes on disk.
fn saved(h: &mut Harness<'static, StudioApp>, path: &Path) -> Vec<u8> {
    let id = h.state().ws.docs()[0].id;
    h.state_mut().save_doc_to(id, path.to_path_buf());
    settle_until(h, "the save", |app| !app.saves.is_saving(id));
    std::fs::read(path).expect("saved")
}

fn wait_for_toolbox(h: &mut Harness<'static, StudioApp>) {
    settle_until(h, "the toolbox run", |app| {
        !app.panels.toolbox.is_busy() && !app.jobs.is_busy()
    });
}

#[test]
fn a_bake_over_a_range_then_simplify_of_the_baked_keys() {
    let Some(corpus) = corpus() else { return };
    let original = std::fs::read(corpus.join("mmdagent__mei_wait.vmd")).expect("corpus file");
    let (orig_records, orig_tail) = split(&original);
    let dir = temp_dir("bake-range");
    let mut h = mei_waiting(&corpus);
    let baked_names = driven(h.state());
    assert!(!baked_names.is_empty(), "Mei has dynamic bodies");
    let last = h.state().ws.docs()[0].motion.last_frame().expect("keys");
    let (a, b) = (10u32, 70u32.min(last));
    assert!(a < b, "the motion runs past frame {a}");

    // The dialog, a backwards range refused, then A..=B.
    h.get_by_label("Tools").click();
    h.run_steps(2);
    h.get_by_label("Bake physics…").click();
    h.run_steps(3);
    assert_eq!(
        (
            h.state().panels.toolbox.bake_physics.from,
            h.state().panels.toolbox.bake_physics.to
        ),
        (0, last),
        "the whole motion by default"
    );
    set_number(&mut h, "From frame", b);
    set_number(&mut h, "To frame", a);
    h.get_by_label(&format!(
        "From ({b}) is after To ({a}): the range must run forwards."
    ));
    assert!(
        h.get_by_label("Bake the physics")
            .accesskit_node()
            .is_disabled(),
        "no run on a backwards range"
    );
    set_number(&mut h, "To frame", last + 5);
    assert!(
        h.get_by_label("Bake the physics")
            .accesskit_node()
            .is_disabled(),
        "no run past the motion"
    );
    set_number(&mut h, "From frame", a);
    set_number(&mut h, "To frame", b);
    assert_eq!(
        (
            h.state().panels.toolbox.bake_physics.from,
            h.state().panels.toolbox.bake_physics.to
        ),
        (a, b)
    );
    h.get_by_label("Bake the physics").click();
    wait_for_toolbox(&mut h);
    assert_eq!(
        h.state().ws.docs()[0].history().len(),
        1,
        "the bake is one undo step: {:?}",
        h.state().shared.messages
    );
    let baked_motion = h.state().ws.docs()[0].motion.clone();
    let baked_bytes = saved(&mut h, &dir.join("baked.vmd"));
    let (baked_records, baked_tail) = split(&baked_bytes);

    let in_scope =
        |r: &[u8; BONE_RECORD]| (a..=b).contains(&frame(r)) && baked_names.contains(name(r));
    // Inside: one key per frame per baked bone, physics off.
    let mut frames: BTreeMap<&[u8], Vec<u32>> = BTreeMap::new();
    for r in baked_records.iter().filter(|r| in_scope(r)) {
        assert_eq!(&r[PHYSICS..PHYSICS + 2], &[0x63, 0x0F], "physics off");
        frames.entry(name(r)).or_default().push(frame(r));
    }
    assert_eq!(frames.len(), baked_names.len(), "every driven bone baked");
    for (n, mut f) in frames {
        f.sort_unstable();
        assert_eq!(f, (a..=b).collect::<Vec<_>>(), "{n:?}: one key a frame");
    }
    // Just after the range: MMD keeps a bone's physics off from its last
    // flagged key on, so each baked bone gets one key at B + 1 with the
    // flag clear (the original has none of its own there), or its hair
    // would freeze to the end of the motion.
    let restoring = |r: &[u8; BONE_RECORD]| frame(r) == b + 1 && baked_names.contains(name(r));
    assert!(!orig_records.iter().any(&restoring));
    let restored: Vec<[u8; BONE_RECORD]> = baked_records
        .iter()
        .filter(|r| restoring(r))
        .copied()
        .collect();
    assert_eq!(
        restored.len(),
        baked_names.len(),
        "one key at {} each",
        b + 1
    );
    for r in &restored {
        assert_ne!(&r[PHYSICS..PHYSICS + 2], &[0x63, 0x0F], "physics back on");
    }
    // Outside: the original's records, in order, and its later sections.
    let outside = |rs: &[[u8; BONE_RECORD]]| -> Vec<[u8; BONE_RECORD]> {
        rs.iter()
            .filter(|r| !in_scope(r) && !restoring(r))
            .copied()
            .collect()
    };
    assert_eq!(
        outside(&baked_records),
        outside(&orig_records),
        "records outside the range untouched"
    );
    assert_eq!(baked_tail, orig_tail, "morphs and later sections untouched");
    let baked_in = baked_records.iter().filter(|r| in_scope(r)).count();
    assert_eq!(baked_in, baked_names.len() * (b - a + 1) as usize);
    eprintln!(
        "bake {a}..={b}: {} bones, bone records {} -> {} ({} in scope), file {} -> {} bytes",
        baked_names.len(),
        orig_records.len(),
        baked_records.len(),
        baked_in,
        original.len(),
        baked_bytes.len()
    );

    // The offer: Simplify, preset to the baked bones and range.
    h.get_by_label("Simplify the baked keys…").click();
    h.run_steps(3);
    {
        let tb = &h.state().panels.toolbox;
        assert_eq!(
            tb.open,
            Some(vmd_studio::app::panels::toolbox::Tool::Simplify)
        );
        let scope = tb.simplify.scope.as_ref().expect("a scope");
        assert_eq!(scope.frames, Some((a, b)));
        assert_eq!(scope.bones, baked_names);
    }
    h.get_by_label("Apply the simplification").click();
    wait_for_toolbox(&mut h);
    assert_eq!(
        h.state().ws.docs()[0].history().len(),
        2,
        "bake, then simplify: two undo steps: {:?}",
        h.state().shared.messages
    );
    let simple_bytes = saved(&mut h, &dir.join("simplified.vmd"));
    let (simple_records, simple_tail) = split(&simple_bytes);
    let simple_in: Vec<&[u8; BONE_RECORD]> =
        simple_records.iter().filter(|r| in_scope(r)).collect();
    assert!(
        simple_in.len() < baked_in,
        "fewer keys: {} -> {}",
        baked_in,
        simple_in.len()
    );
    for r in &simple_in {
        assert_eq!(&r[PHYSICS..PHYSICS + 2], &[0x63, 0x0F], "still physics off");
    }
    for n in &baked_names {
        let first = |rs: &[&[u8; BONE_RECORD]]| {
            rs.iter()
                .find(|r| name(r) == n.as_slice() && frame(r) == a)
                .map(|r| **r)
        };
        let baked_in_refs: Vec<&[u8; BONE_RECORD]> =
            baked_records.iter().filter(|r| in_scope(r)).collect();
        assert_eq!(
            first(&simple_in),
            first(&baked_in_refs),
            "{n:?}: the key at {a} kept as it was"
        );
        assert!(
            simple_in
                .iter()
                .any(|r| name(r) == n.as_slice() && frame(r) == b),
            "{n:?}: the key at {b} kept"
        );
    }
    assert_eq!(
        outside(&simple_records),
        outside(&orig_records),
        "records outside the scope untouched by simplify"
    );
    let simple_restored: Vec<[u8; BONE_RECORD]> = simple_records
        .iter()
        .filter(|r| restoring(r))
        .copied()
        .collect();
    assert_eq!(simple_restored, restored, "the keys after the range kept");
    assert_eq!(simple_tail, orig_tail);
    eprintln!(
        "simplify of the baked keys: {} -> {} keys in scope, bone records {} -> {}, file {} -> {} bytes",
        baked_in,
        simple_in.len(),
        baked_records.len(),
        simple_records.len(),
        baked_bytes.len(),
        simple_bytes.len()
    );

    // One Ctrl+Z: the baked state exactly.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run_steps(3);
    assert_eq!(h.state().ws.docs()[0].history().len(), 1, "one step undone");
    assert!(
        h.state().ws.docs()[0].motion == baked_motion,
        "undo gives the baked motion back"
    );
    let undone = saved(&mut h, &dir.join("undone.vmd"));
    assert!(undone == baked_bytes, "the same bytes as after the bake");
}

/// The loop range offered in the dialog is in the motion's own frames: the
/// demo actor shifted 10 frames later on the timeline and a loop over
/// scene frames 30..=60 give motion frames 20..=50 (30 − 10, 60 − 10).
#[test]
fn the_loop_range_button_gives_motion_frames() {
    use vmd_studio::workspace::{Event, SceneEvent, TransportEvent};
    let mut h = crate::common::ui::harness(StudioApp::with_demo());
    settle(&mut h);
    let last = h.state().ws.docs()[0].motion.last_frame().expect("keys");
    assert!(last > 60, "the demo dance runs past frame 60");
    h.state_mut()
        .apply(Event::Scene(SceneEvent::SetOffset(0, 10)));
    h.state_mut()
        .transport(TransportEvent::SetLoop(Some((30, 60))));
    h.run_steps(2);
    h.get_by_label("Tools").click();
    h.run_steps(2);
    h.get_by_label("Bake physics…").click();
    h.run_steps(3);
    assert_eq!(
        (
            h.state().panels.toolbox.bake_physics.from,
            h.state().panels.toolbox.bake_physics.to
        ),
        (0, last)
    );
    h.get_by_label("Loop range 20–50").click();
    h.run_steps(2);
    assert_eq!(
        (
            h.state().panels.toolbox.bake_physics.from,
            h.state().panels.toolbox.bake_physics.to
        ),
        (20, 50)
    );
    h.get_by_label("Whole motion").click();
    h.run_steps(2);
    assert_eq!(
        (
            h.state().panels.toolbox.bake_physics.from,
            h.state().panels.toolbox.bake_physics.to
        ),
        (0, last)
    );
}
