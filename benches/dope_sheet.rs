//! One timeline frame (the dope sheet as the app draws it: one section) on
//! a generated 1 M-key motion (400 bones × 2500 keys, a key every 4
//! frames: frames 0..9996), run through egui's
//! `Context::run_ui` without a renderer, at fit-all zoom and at a close
//! zoom; with and without tessellation; with nothing and with everything
//! selected. Target: ≤ 4 ms of CPU per frame (issue 3).

use criterion::{Criterion, criterion_group, criterion_main};
use vmd_studio::app::panels::{Shared, Views, timeline};
use vmd_studio::vmd::{BoneKey, Motion, NameEncoding};
use vmd_studio::workspace::document::{DocView, KeyRef};
use vmd_studio::workspace::{Event, NewDocument, Workspace};

const BONES: usize = 400;
const KEYS_PER_BONE: u32 = 2500;

fn big_motion() -> Motion {
    let mut m = Motion::new_v2();
    m.bones.reserve(BONES * KEYS_PER_BONE as usize);
    // File order: frame-major, like MMD writes (keys of one frame together).
    for k in 0..KEYS_PER_BONE {
        for b in 0..BONES {
            let name = format!("bone{b:03}");
            let key = BoneKey::new(
                &name,
                NameEncoding::ShiftJis,
                k * 4,
                [0.0; 3],
                [0.0, 0.0, 0.0, 1.0],
            )
            .expect("ASCII name fits");
            m.bones.push(key);
        }
    }
    m
}

/// The timeline with one section: the 1 M-key file, outside the scene.
struct Setup {
    ctx: egui::Context,
    ws: Workspace,
    id: u64,
    shared: Shared,
    state: timeline::State,
}

impl Setup {
    fn frame(&mut self, tessellate: bool) -> usize {
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(1600.0, 1000.0),
            )),
            ..Default::default()
        };
        let sections = [timeline::Section {
            doc_id: self.id,
            role: "Not in the scene".to_owned(),
            offset: 0,
            camera_or_light: false,
            worn: false,
        }];
        let last = self.ws.scene_end();
        let out = self.ctx.run_ui(input, |ui| {
            egui::CentralPanel::default().show(ui, |ui| {
                let mut views = Views::of(self.ws.docs());
                timeline::ui(
                    ui,
                    self.ws.docs(),
                    &mut views,
                    &sections,
                    &[],
                    Some(self.id),
                    last,
                    &mut self.shared,
                    &mut self.state,
                );
            });
        });
        if tessellate {
            self.ctx.tessellate(out.shapes, out.pixels_per_point).len()
        } else {
            out.shapes.len()
        }
    }
}

fn bench(c: &mut Criterion) {
    let mut ws = Workspace::new();
    let new = NewDocument::new(big_motion(), None, "bench");
    let id = ws.apply(Event::Open(Box::new(new))).opened.expect("opened");
    let mut s = Setup {
        ctx: egui::Context::default(),
        ws,
        id,
        shared: Shared::default(),
        state: timeline::State::default(),
    };
    assert_eq!(s.ws.docs()[0].motion.bones.len(), 1_000_000);
    for _ in 0..3 {
        s.frame(true);
    }
    let fit_zoom = s.state.px_per_frame;
    let mut g = c.benchmark_group("dope_sheet_1M");
    g.sample_size(30);
    g.bench_function("fit_all", |b| b.iter(|| s.frame(false)));
    g.bench_function("fit_all_tessellated", |b| b.iter(|| s.frame(true)));
    // 1.6 points per frame: a diamond every 6.4 points, the most diamonds
    // drawn (closer keys are drawn as runs).
    s.state.px_per_frame = 1.6;
    s.state.left_frame = 3000.0;
    s.frame(false);
    g.bench_function("mid_zoom_tessellated", |b| b.iter(|| s.frame(true)));
    s.state.px_per_frame = 12.0;
    s.state.left_frame = 5000.0;
    s.frame(false);
    g.bench_function("close_zoom", |b| b.iter(|| s.frame(false)));
    g.bench_function("close_zoom_tessellated", |b| b.iter(|| s.frame(true)));
    // Everything selected (1 M entries in the selection set).
    let view = DocView {
        selection: (0..1_000_000u32).map(KeyRef::Bone).collect(),
        ..DocView::default()
    };
    s.ws.apply(Event::Select { doc: id, view });
    s.state.fit_pending = true;
    s.frame(false);
    assert!((s.state.px_per_frame - fit_zoom).abs() < 1e-6);
    g.bench_function("fit_all_all_selected_tessellated", |b| {
        b.iter(|| s.frame(true))
    });
    s.state.px_per_frame = 12.0;
    s.state.left_frame = 5000.0;
    g.bench_function("close_zoom_all_selected_tessellated", |b| {
        b.iter(|| s.frame(true))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
