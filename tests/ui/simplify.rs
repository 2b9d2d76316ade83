//! Tools ▸ Simplify and Tools ▸ Bake in the real app under egui_kittest:
//! opened from the Tools menu, the preview shows keys before → after and
//! changes nothing, applying is one undo step, undo gives back the original
//! bytes. Run with `env -u DISPLAY cargo test --test ui simplify::`.
//!
//! Golden numbers come from the construction: a motion of 2 bones × 120
//! frames with a key on every frame (240 keys), smooth enough that default
//! tolerances must drop most keys; the demo dance ends on frame 120
//! (README/`inspect`).

use crate::common;
use common::ui::harness_sized;

use std::time::Duration;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use vmd_studio::app::StudioApp;
use vmd_studio::app::command::UiCommand;
use vmd_studio::vmd::evaluate::bone_at;
use vmd_studio::vmd::{self, BoneKey, Motion, NameEncoding, TrackIndex};

/// 2 bones × 120 frames, a key on every frame: a slow swing and a drift.
fn baked() -> Motion {
    let mut m = Motion::new_v2();
    for f in 0..120u32 {
        for (b, name) in ["左腕", "右腕"].iter().enumerate() {
            let t = f64::from(f) / 30.0 + b as f64;
            let a = 0.5 * (1.1 * t).sin();
            let (s, c) = (0.5 * a).sin_cos();
            let p = [(0.3 * t.cos()) as f32, 0.0, 0.0];
            let k = BoneKey::new(
                name,
                NameEncoding::ShiftJis,
                f,
                p,
                [0.0, 0.0, s as f32, c as f32],
            );
            m.bones.push(k.expect("names fit"));
        }
    }
    m
}

fn with_baked() -> Harness<'static, StudioApp> {
    let mut h = harness_sized(StudioApp::with_demo(), 1600.0, 1000.0);
    h.run_steps(3);
    // The dance file reopened with other keys (it keeps its place).
    let id = h.state().ws.docs()[0].id;
    let mut new = vmd_studio::workspace::NewDocument::new(baked(), None, "baked.vmd");
    new.replace = Some(id);
    h.state_mut()
        .apply(vmd_studio::workspace::Event::Open(Box::new(new)));
    h.run_steps(3);
    h
}

fn tools(h: &mut Harness<'static, StudioApp>, entry: &str) {
    h.get_by_label("Tools").click();
    h.run_steps(2);
    h.get_by_label(entry).click();
    h.run_steps(3);
}

fn settle(h: &mut Harness<'static, StudioApp>) {
    for _ in 0..4000 {
        h.step();
        if !h.state().panels.toolbox.is_busy() && !h.state().panels.toolbox.simplify.is_computing()
        {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(
        !h.state().panels.toolbox.is_busy(),
        "toolbox job did not finish"
    );
    h.run_steps(3);
}

fn bytes(m: &Motion) -> Vec<u8> {
    vmd::write(m).expect("the motion writes")
}

/// Worst position (units) and rotation (degrees) difference at every frame.
fn worst(a: &Motion, b: &Motion) -> (f64, f64) {
    let (ia, ib) = (TrackIndex::build(a), TrackIndex::build(b));
    let (mut dp, mut dr) = (0.0f64, 0.0f64);
    for ta in &ia.bones {
        let tb = ib.bone(&ta.name_key).expect("track kept");
        for f in 0..120 {
            let (pa, pb) = (bone_at(a, ta, f64::from(f)), bone_at(b, tb, f64::from(f)));
            for i in 0..3 {
                dp = dp.max((f64::from(pa.position[i]) - f64::from(pb.position[i])).abs());
            }
            let d: f64 = (0..4)
                .map(|i| f64::from(pa.rotation[i]) * f64::from(pb.rotation[i]))
                .sum();
            dr = dr.max((2.0 * d.abs().min(1.0).acos()).to_degrees());
        }
    }
    (dp, dr)
}

#[test]
fn simplify_previews_then_applies_as_one_undo_step() {
    let mut h = with_baked();
    let original = h.state().ws.docs()[0].motion.clone();
    let original_bytes = bytes(&original);
    tools(&mut h, "Simplify…");
    settle(&mut h);
    assert!(
        h.query_by_label_contains("Preview: bone keys 240 →")
            .is_some(),
        "the preview shows keys before → after"
    );
    assert!(h.query_by_label_contains("Worst bone rotation").is_some());
    assert!(h.query_by_label("Track on the graph").is_some());
    assert_eq!(
        h.state().ws.docs()[0].history().len(),
        0,
        "a preview changes nothing"
    );
    let runs = h.state().panels.toolbox.simplify.preview_runs;
    h.run_steps(5);
    assert_eq!(
        h.state().panels.toolbox.simplify.preview_runs,
        runs,
        "not every frame"
    );
    let previewed = match &h.state().panels.toolbox.simplify.preview {
        Some(Ok(p)) => p.report.after.bones,
        other => panic!("no preview: {other:?}"),
    };
    assert!(previewed < 60, "{previewed} of 240 keys kept");

    h.get_by_label("Apply the simplification").click();
    settle(&mut h);
    let m = h.state().ws.docs()[0].motion.clone();
    assert_eq!(m.bones.len(), previewed, "the previewed result was applied");
    assert_eq!(h.state().ws.docs()[0].history().len(), 1, "one undo step");
    let (dp, dr) = worst(&original, &m);
    assert!(dp <= 0.01 + 1e-6 && dr <= 0.1 + 1e-3, "{dp} {dr}");
    assert!(h.query_by_label_contains("Done:").is_some());

    h.state_mut().run_command(UiCommand::Undo);
    h.run_steps(3);
    assert_eq!(bytes(&h.state().ws.docs()[0].motion), original_bytes);
}

#[test]
fn a_big_motion_previews_on_a_thread_and_changing_a_tolerance_recomputes() {
    let mut h = with_baked();
    h.state_mut().panels.toolbox.background_keys = 0;
    tools(&mut h, "Simplify…");
    settle(&mut h);
    let first = match &h.state().panels.toolbox.simplify.preview {
        Some(Ok(p)) => p.report.after.bones,
        other => panic!("no preview: {other:?}"),
    };
    // A looser rotation tolerance keeps no more keys.
    h.state_mut().panels.toolbox.simplify.params.rot_tol_deg = 1.0;
    h.state_mut().panels.toolbox.simplify.params.pos_tol = 0.1;
    h.run_steps(2);
    settle(&mut h);
    let second = match &h.state().panels.toolbox.simplify.preview {
        Some(Ok(p)) => {
            assert_eq!(p.report.params.rot_tol_deg, 1.0);
            p.report.after.bones
        }
        other => panic!("no preview: {other:?}"),
    };
    assert!(second <= first, "{second} > {first}");
    assert_eq!(h.state().ws.docs()[0].history().len(), 0);
}

#[test]
fn bake_from_the_tools_menu_keys_every_frame_and_undoes() {
    let mut h = harness_sized(StudioApp::with_demo(), 1600.0, 1000.0);
    h.run_steps(3);
    let original = h.state().ws.docs()[0].motion.clone();
    let original_bytes = bytes(&original);
    tools(&mut h, "Bake…");
    h.get_by_label("Bake the motion").click();
    settle(&mut h);
    let m = h.state().ws.docs()[0].motion.clone();
    assert_eq!(h.state().ws.docs()[0].history().len(), 1);
    // Every bone track: one key per frame from its first key to its last.
    let idx = TrackIndex::build(&original);
    let out = TrackIndex::build(&m);
    for t in &idx.bones {
        let (a, b) = (t.frames[0], *t.frames.last().expect("keys"));
        let got = &out.bone(&t.name_key).expect("track").frames;
        assert_eq!(got, &(a..=b).collect::<Vec<u32>>(), "{}", t.name().text);
    }
    assert!(m.bones.iter().all(|k| k.is_linear()));
    h.state_mut().run_command(UiCommand::Undo);
    h.run_steps(3);
    assert_eq!(bytes(&h.state().ws.docs()[0].motion), original_bytes);
}
