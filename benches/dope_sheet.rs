//! One dope-sheet frame on a generated 1 M-key motion (400 bones × 2500
//! keys, a key every 4 frames: frames 0..9996), run through egui's
//! `Context::run_ui` without a renderer, at fit-all zoom and at a close
//! zoom; with and without tessellation; with nothing and with everything
//! selected. Target: ≤ 4 ms of CPU per frame (issue 3).

use criterion::{Criterion, criterion_group, criterion_main};
use vmd_studio::app::document::{DocView, Document, KeyRef};
use vmd_studio::app::panels::{PanelCtx, Shared, dope_sheet};
use vmd_studio::vmd::{BoneKey, Motion, NameEncoding};

const BONES: usize = 400;
const KEYS_PER_BONE: u32 = 2500;

fn big_doc() -> Document {
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
    Document::new(m, None, "bench")
}

struct Setup {
    ctx: egui::Context,
    doc: Document,
    view: DocView,
    shared: Shared,
    state: dope_sheet::State,
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
        let mut edits = Vec::new();
        let out = self.ctx.run_ui(input, |ui| {
            egui::CentralPanel::default().show(ui, |ui| {
                let mut cx = PanelCtx {
                    doc: &self.doc,
                    view: &mut self.view,
                    edits: &mut edits,
                    shared: &mut self.shared,
                };
                dope_sheet::ui(ui, &mut cx, &mut self.state);
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
    let mut s = Setup {
        ctx: egui::Context::default(),
        doc: big_doc(),
        view: DocView::default(),
        shared: Shared::default(),
        state: dope_sheet::State::default(),
    };
    assert_eq!(s.doc.motion.bones.len(), 1_000_000);
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
    s.view.selection = (0..1_000_000u32).map(KeyRef::Bone).collect();
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
