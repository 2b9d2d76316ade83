//! The one job service in the real app under egui_kittest: a long
//! toolbox run reports progress in the status bar (a bar with what it is
//! doing), its Cancel button stops it and the document keeps its bytes; a
//! model load replaced by another for the same actor is stale even when it
//! finishes last. Run with `env -u DISPLAY cargo test --test ui jobs::`.

use crate::common;
use common::ui::harness_sized;

use std::time::{Duration, Instant};

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use vmd_studio::app::StudioApp;
use vmd_studio::app::jobs::{JobKind, JobResult};
use vmd_studio::app::scene_ops::Intent;
use vmd_studio::scene::ModelRef;
use vmd_studio::vmd::{self, BoneKey, Motion, NameEncoding};

/// `bones` bones × `frames` frames, a key on every frame, each bone
/// swinging at its own rate (nothing to merge between neighbours, so the
/// simplifier has real work on every track).
fn baked(bones: usize, frames: u32) -> Motion {
    let mut m = Motion::new_v2();
    for f in 0..frames {
        for b in 0..bones {
            let t = f64::from(f) / 30.0;
            let a = 0.5 * ((1.0 + b as f64 * 0.37) * t).sin() + 0.1 * (7.3 * t).cos();
            let (s, c) = (0.5 * a).sin_cos();
            let k = BoneKey::new(
                &format!("b{b}"),
                NameEncoding::ShiftJis,
                f,
                [(0.3 * t.cos()) as f32, 0.0, 0.0],
                [0.0, 0.0, s as f32, c as f32],
            );
            m.bones.push(k.expect("names fit"));
        }
    }
    m
}

fn wait_until(
    h: &mut Harness<'static, StudioApp>,
    what: &str,
    mut ok: impl FnMut(&mut Harness<'static, StudioApp>) -> bool,
) {
    let start = Instant::now();
    while !ok(h) {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "timed out: {what}"
        );
        h.step();
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_long_simplify_shows_progress_and_cancel_leaves_the_document_untouched() {
    let mut h = harness_sized(StudioApp::with_demo(), 1600.0, 1000.0);
    h.run_steps(3);
    // The dance file reopened with other keys (it keeps its place).
    let id = h.state().ws.docs()[0].id;
    let mut new = vmd_studio::workspace::NewDocument::new(baked(120, 1500), None, "big.vmd");
    new.replace = Some(id);
    h.state_mut()
        .apply(vmd_studio::workspace::Event::Open(Box::new(new)));
    h.state_mut().panels.toolbox.background_keys = 0;
    h.run_steps(2);
    let original = vmd::write(&h.state().ws.docs()[0].motion).expect("writes");

    // The dialog's live preview is a job too; stop it so Apply runs anew.
    h.get_by_label("Tools").click();
    h.run_steps(2);
    h.get_by_label("Simplify…").click();
    h.run_steps(2);
    wait_until(&mut h, "the preview job", |h| {
        h.state()
            .shared
            .jobs
            .running()
            .iter()
            .any(|j| j.kind == JobKind::Preview)
    });
    h.get_by_label("Cancel preview").click();
    wait_until(&mut h, "the preview stops", |h| {
        !h.state().panels.toolbox.simplify.is_computing() && !h.state().shared.jobs.is_busy()
    });

    h.get_by_label("Apply the simplification").click();
    h.run_steps(1);
    assert!(
        h.state().panels.toolbox.is_busy(),
        "the run is a background job"
    );
    // Progress: a fraction above 0 and what it is doing, in the service …
    wait_until(&mut h, "progress reported", |h| {
        h.state().shared.jobs.running().iter().any(|j| {
            j.kind == JobKind::Toolbox
                && j.what == "simplifying tracks"
                && j.fraction.is_some_and(|f| f > 0.0 && f < 1.0)
        })
    });
    // … and as a bar in the status bar (shown once a job runs 0.25 s).
    wait_until(&mut h, "the progress bar", |h| {
        h.query_by_label_contains("Simplify keys on 180000 keys: simplifying tracks")
            .is_some()
    });
    let info = h.state().shared.jobs.running();
    let job = info
        .iter()
        .find(|j| j.kind == JobKind::Toolbox)
        .expect("running");
    assert!(job.cancellable);
    let id = job.id;

    h.get_by_label("Cancel").click();
    let cancelled_at = Instant::now();
    wait_until(&mut h, "the run stops", |h| {
        !h.state().shared.jobs.is_running(id) && !h.state().panels.toolbox.is_busy()
    });
    // Stopped soon after the click (the whole run takes far longer).
    assert!(
        cancelled_at.elapsed() < Duration::from_secs(10),
        "cancel took {:?}",
        cancelled_at.elapsed()
    );
    h.run_steps(3);
    let doc = &h.state().ws.docs()[0];
    assert_eq!(doc.history().len(), 0, "no undo step");
    assert!(!doc.is_modified());
    assert_eq!(vmd::write(&doc.motion).expect("writes"), original);
    assert!(
        h.query_by_label_contains("Not run:").is_some(),
        "the dialog says it did not run"
    );
    assert!(!h.state().shared.jobs.is_busy());
}

/// Loads two models for actor 0 (the second asked for after the first),
/// takes both results without applying them, and delivers the second
/// first: the actor shows it at once, and the first, arriving later, is
/// stale — dropped without a message, its model not kept.
#[test]
fn a_replaced_model_load_is_dropped_even_when_it_arrives_last() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let first = corpus.join("mei/mei.pmd");
    let second = corpus.join("pmx-babylonmmd/bone_hierarchy_test.pmx");
    let mut app = StudioApp::with_demo();
    assert!(!app.ws.scene().actors.is_empty(), "the demo has an actor");
    let messages_before = app.shared.messages.len();
    let seq_first = app.jobs.next_open_seq();
    app.open_for(first.clone(), Intent::ActorModel(0));
    let seq_second = app.jobs.next_open_seq();
    app.open_for(second.clone(), Intent::ActorModel(0));
    assert_eq!(seq_second, seq_first + 1);

    let mut results: Vec<(u64, JobResult)> = Vec::new();
    let start = Instant::now();
    while results.len() < 2 {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "loads never finished"
        );
        for r in app.jobs.poll() {
            match r {
                JobResult::Model { seq, .. } => results.push((seq, r)),
                _ => panic!("only model loads were asked for"),
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let take = |results: &mut Vec<(u64, JobResult)>, seq: u64| {
        let i = results.iter().position(|(s, _)| *s == seq).expect("result");
        results.remove(i).1
    };
    let r_second = take(&mut results, seq_second);
    let r_first = take(&mut results, seq_first);
    let JobResult::Model { result, .. } = &r_second else {
        unreachable!()
    };
    assert!(result.is_ok(), "{:?}", result.as_ref().err());

    app.queue_loaded(seq_second, r_second);
    assert_eq!(
        app.ws.scene().actors[0].model,
        ModelRef::File(second.clone()),
        "the current load applies as soon as it arrives"
    );
    assert!(app.scene.loaded(&app.ws.scene().actors[0].model));
    let after_second = app.shared.messages.len();
    assert!(after_second > messages_before, "\"Loaded …\" was said");

    app.queue_loaded(seq_first, r_first);
    assert_eq!(
        app.ws.scene().actors[0].model,
        ModelRef::File(second.clone()),
        "the stale load changes nothing"
    );
    assert!(
        !app.scene.models.contains_key(&first),
        "its model is not kept"
    );
    assert_eq!(app.shared.messages.len(), after_second, "and says nothing");
    // The skeleton shown is the second model's.
    let bones = app
        .scene
        .skeleton_for(&app.ws.scene().actors[0].model)
        .bones
        .len();
    let expected = app.scene.models[&second].loaded.model.skeleton.bones.len();
    assert_eq!(bones, expected);
    assert_ne!(bones, 142, "not Mei's 142 bones");
}
