//! Tools ▸ Simplify and Tools ▸ Bake.
//!
//! Simplify shows the tolerances and a preview computed on a copy of the
//! motion whenever they change (on a background thread with a progress bar
//! for big motions): keys before → after per section, the worst error per
//! channel kind, and for one track the error at every frame on a graph
//! with the keys before and after. Applying uses the previewed result when
//! it is still current (else runs again, in the background for big motions)
//! and lands as one undo step like every toolbox operation.
//!
//! Opened from a physics bake's result, Simplify is preset to a scope (the
//! baked bones inside the baked range, [`SimplifyScope`]): only those keys
//! are simplified, every other record keeps its bytes.

use std::sync::Arc;

use egui::Color32;
use egui_plot::{HLine, Line, Plot, Points};

use super::applied::Applied;
use crate::app::jobs::{JobKind, JobService, Lane, Polled};
use crate::progress::Progress;
use crate::vmd::ops::simplify::{SimplifyReport, TrackKind};
use crate::vmd::ops::simplify_track::rotation_between;
use crate::vmd::ops::{self, BakeParams, SimplifyParams, SimplifyScope};
use crate::vmd::track::TrackIndex;
use crate::vmd::{EvalCache, Motion, MotionRef};
use crate::workspace::document::Document;

/// A computed simplification: the result and its report.
#[derive(Debug, Clone)]
pub struct SimplifyPreview {
    /// (doc id, revision, parameter bits) it was computed for.
    pub key: PreviewKey,
    pub motion: Arc<Motion>,
    pub report: Arc<SimplifyReport>,
}

/// What a preview depends on: (doc id, revision, tolerance bits, scope hash).
pub type PreviewKey = (u64, u64, [u64; 7], u64);

/// Per-frame error of one track (fractions of the tolerance) and its keys.
#[derive(Debug, Clone, Default)]
pub struct TrackGraph {
    /// Index into the report's tracks.
    pub track: usize,
    /// (label, points (frame, error / tolerance)).
    pub series: Vec<(String, Vec<[f64; 2]>)>,
    pub keys_before: Vec<f64>,
    pub keys_after: Vec<f64>,
}

/// Simplify dialog state.
#[derive(Debug)]
pub struct SimplifyForm {
    pub params: SimplifyParams,
    pub preview: Option<Result<SimplifyPreview, String>>,
    /// The preview job; a result for replaced parameters is dropped.
    preview_job: Lane<Result<SimplifyPreview, String>>,
    preview_for: Option<PreviewKey>,
    /// Progress of the running preview.
    pub progress: Arc<Progress>,
    /// How many times a preview was computed.
    pub preview_runs: u64,
    /// The graphed track (index into the report's tracks) and its series.
    pub graph: Option<TrackGraph>,
    pub graph_track: Option<usize>,
    /// The last Apply, while the document still holds what it made: the
    /// form then shows the result and offers nothing more (a second
    /// Apply would stack a second error bound on the first).
    pub applied: Option<Applied>,
    /// Simplify only these keys (set by a physics bake's offer); `None`:
    /// the whole motion.
    pub scope: Option<SimplifyScope>,
}

impl Default for SimplifyForm {
    fn default() -> Self {
        SimplifyForm {
            params: SimplifyParams::default(),
            preview: None,
            preview_job: Lane::default(),
            preview_for: None,
            progress: Arc::new(Progress::default()),
            preview_runs: 0,
            graph: None,
            graph_track: None,
            applied: None,
            scope: None,
        }
    }
}

impl SimplifyForm {
    pub fn is_computing(&self) -> bool {
        self.preview_job.is_running()
    }

    /// Notes that Apply was pressed on `doc`.
    pub fn mark_applied(&mut self, doc: &Document) {
        self.applied = Some(Applied::on(doc));
    }

    /// Whether `doc` holds what the last Apply made of it (see
    /// [`Applied::holds`]).
    pub fn is_applied(&mut self, doc: &Document, settled: bool) -> bool {
        Applied::holds(&mut self.applied, doc, settled)
    }

    /// The preview, when it is for this document and these parameters.
    pub fn current(&self, doc: &Document) -> Option<&SimplifyPreview> {
        match &self.preview {
            Some(Ok(p)) if p.key == key_of(doc, &self.params, self.scope.as_ref()) => Some(p),
            _ => None,
        }
    }
}

/// Bake dialog state.
#[derive(Debug, Clone)]
pub struct BakeForm {
    /// Bake the whole motion (first key to last) instead of `from..=to`.
    pub whole: bool,
    pub from: u32,
    pub to: u32,
    pub step: u32,
}

impl Default for BakeForm {
    fn default() -> Self {
        BakeForm {
            whole: true,
            from: 0,
            to: 0,
            step: 1,
        }
    }
}

impl BakeForm {
    pub fn params(&self) -> BakeParams {
        BakeParams {
            from: (!self.whole).then_some(self.from),
            to: (!self.whole).then_some(self.to),
            step: self.step.max(1),
        }
    }
}

pub fn key_of(doc: &Document, p: &SimplifyParams, scope: Option<&SimplifyScope>) -> PreviewKey {
    let bits = [
        p.pos_tol,
        p.rot_tol_deg,
        p.morph_tol,
        p.camera.target,
        p.camera.angle_deg,
        p.camera.distance,
        p.camera.fov_deg,
    ]
    .map(f64::to_bits);
    let scope_hash = {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        scope.hash(&mut h);
        h.finish()
    };
    (doc.id, doc.revision, bits, scope_hash)
}

/// Runs simplify for a preview (on the scope's keys only, with one).
pub fn compute(
    m: &Motion,
    p: &SimplifyParams,
    scope: Option<&SimplifyScope>,
    key: PreviewKey,
    progress: &Progress,
) -> Result<SimplifyPreview, String> {
    let (motion, report) = match scope {
        Some(s) => ops::simplify_scoped(m, p, s, progress),
        None => ops::simplify_with_progress(m, p, progress),
    }
    .map_err(|e| e.to_string())?;
    Ok(SimplifyPreview {
        key,
        motion: Arc::new(motion),
        report: Arc::new(report),
    })
}

fn tol_row(ui: &mut egui::Ui, label: &str, v: &mut f64, speed: f64, unit: &str) {
    ui.horizontal(|ui| {
        let l = ui.label(label);
        ui.add(
            egui::DragValue::new(v)
                .speed(speed)
                .range(0.0..=1000.0)
                .max_decimals(4)
                .suffix(unit),
        )
        .labelled_by(l.id)
        .on_hover_text(label);
    });
}

/// The Simplify form: tolerances, live preview, graph.
pub fn simplify_form(
    ui: &mut egui::Ui,
    doc: &Document,
    background: bool,
    f: &mut SimplifyForm,
    jobs: &JobService,
) {
    let mut clear_scope = false;
    if let Some(s) = &f.scope {
        ui.strong("Only the baked keys:");
        ui.label(s.describe());
        ui.weak("Every other key keeps its bytes.");
        clear_scope = ui.button("Simplify the whole motion instead").clicked();
        ui.separator();
    }
    if clear_scope {
        f.scope = None;
    }
    tolerances_ui(ui, f);
    let key = key_of(doc, &f.params, f.scope.as_ref());
    run_preview(ui, doc, background, f, jobs, key);
    preview_report(ui, doc, f, key);
}

/// The tolerance fields (camera distance follows the target's).
fn tolerances_ui(ui: &mut egui::Ui, f: &mut SimplifyForm) {
    ui.label("Tolerances (every integer frame stays within them):");
    tol_row(ui, "Bone position", &mut f.params.pos_tol, 0.001, " units");
    tol_row(ui, "Bone rotation", &mut f.params.rot_tol_deg, 0.01, "°");
    tol_row(ui, "Morph weight", &mut f.params.morph_tol, 0.001, "");
    tol_row(
        ui,
        "Camera target/distance",
        &mut f.params.camera.target,
        0.001,
        " units",
    );
    f.params.camera.distance = f.params.camera.target;
    tol_row(
        ui,
        "Camera angle",
        &mut f.params.camera.angle_deg,
        0.01,
        "°",
    );
    tol_row(
        ui,
        "Camera field of view",
        &mut f.params.camera.fov_deg,
        0.01,
        "°",
    );
    ui.weak("First/last keys, physics-flag changes, camera cuts, light, self-shadow and IK keys are kept.");
}

/// Collects a finished preview and starts one for new tolerances `key`
/// (a job when `background`, else at once); the job's progress and Cancel.
fn run_preview(
    ui: &mut egui::Ui,
    doc: &Document,
    background: bool,
    f: &mut SimplifyForm,
    jobs: &JobService,
    key: PreviewKey,
) {
    match f.preview_job.poll(jobs) {
        Some(Polled::Done(p)) => {
            f.preview = Some(p.value);
            f.graph = None;
        }
        Some(Polled::Lost(_)) => {
            f.preview = Some(Err("the preview stopped unexpectedly".to_owned()));
        }
        None => {}
    }
    if f.preview_for != Some(key) && !f.preview_job.is_running() {
        f.preview_for = Some(key);
        f.preview_runs += 1;
        let p = f.params;
        let scope = f.scope.clone();
        if background {
            let m = doc.motion.clone();
            let progress = Arc::new(Progress::default());
            f.progress = progress.clone();
            let label = format!("Simplify preview on {} keys", m.key_count());
            f.preview_job
                .start(jobs, JobKind::Preview, label, true, move |ctx| {
                    ctx.follow(progress.clone(), "simplifying tracks");
                    compute(&m, &p, scope.as_ref(), key, &progress)
                });
        } else {
            f.preview = Some(compute(
                &doc.motion,
                &p,
                scope.as_ref(),
                key,
                &Progress::default(),
            ));
            f.graph = None;
        }
    }
    if f.preview_job.is_running() {
        ui.horizontal(|ui| {
            ui.spinner();
            ui.add(
                egui::ProgressBar::new(f.progress.fraction())
                    .show_percentage()
                    .desired_width(200.0),
            );
            if ui.button("Cancel preview").clicked() {
                f.progress.cancel();
            }
        });
        ui.ctx()
            .request_repaint_after(std::time::Duration::from_millis(100));
    }
}

/// The preview's key counts, worst errors and graph (or its error).
fn preview_report(ui: &mut egui::Ui, doc: &Document, f: &mut SimplifyForm, key: PreviewKey) {
    match &f.preview {
        None => {}
        Some(Err(e)) => {
            ui.colored_label(ui.visuals().warn_fg_color, e);
        }
        Some(Ok(p)) => {
            let stale = p.key != key;
            let r = &p.report;
            if stale {
                ui.weak("(preview of the previous tolerances)");
            }
            ui.label(format!(
                "Preview: bone keys {} → {}, morph keys {} → {}, camera keys {} → {}",
                r.before.bones,
                r.after.bones,
                r.before.morphs,
                r.after.morphs,
                r.before.cameras,
                r.after.cameras
            ));
            for w in &r.worst {
                ui.label(format!(
                    "Worst {}: {:.4}{} at frame {}",
                    w.kind.label(),
                    w.error,
                    w.kind.unit(),
                    w.frame
                ));
            }
            let preview = p.clone();
            graph_ui(ui, doc, &preview, f);
        }
    }
}

/// Track picker and the error graph of the chosen track.
fn graph_ui(ui: &mut egui::Ui, doc: &Document, p: &SimplifyPreview, f: &mut SimplifyForm) {
    let tracks = &p.report.tracks;
    let graphable: Vec<usize> = (0..tracks.len())
        .filter(|&i| tracks[i].kind != TrackKind::Camera)
        .collect();
    if graphable.is_empty() {
        return;
    }
    // Default: the track that lost the most keys.
    let chosen = f
        .graph_track
        .filter(|t| graphable.contains(t))
        .unwrap_or_else(|| {
            graphable
                .iter()
                .copied()
                .max_by_key(|&i| tracks[i].before - tracks[i].after)
                .unwrap_or(graphable[0])
        });
    let name = |i: usize| {
        let t = &tracks[i];
        format!("{} ({} → {} keys)", t.name, t.before, t.after)
    };
    let mut pick = chosen;
    egui::ComboBox::from_label("Track on the graph")
        .selected_text(name(chosen))
        .show_ui(ui, |ui| {
            for &i in &graphable {
                ui.selectable_value(&mut pick, i, name(i));
            }
        });
    f.graph_track = Some(pick);
    if f.graph.as_ref().is_none_or(|g| g.track != pick) {
        f.graph = Some(track_graph(doc.source(), p, pick));
    }
    let Some(g) = &f.graph else { return };
    ui.label("Error per frame as a fraction of the tolerance (1 = the tolerance):");
    // The legend is a row above the graph, never over it.
    ui.horizontal_wrapped(|ui| {
        ui.spacing_mut().item_spacing.x = 10.0;
        let mut entry = |text: &str, c: Color32| {
            ui.label(egui::RichText::new(format!("■ {text}")).color(c).small());
        };
        entry("tolerance", TOLERANCE_COLOR);
        for (label, _) in &g.series {
            entry(label, series_color(label));
        }
        entry("keys before", Color32::GRAY);
        entry("keys after", KEYS_AFTER_COLOR);
    });
    Plot::new("simplify-error-graph")
        .height(160.0)
        .allow_scroll(false)
        .show(ui, |pu| {
            pu.hline(HLine::new("tolerance", 1.0).color(TOLERANCE_COLOR));
            for (label, pts) in &g.series {
                pu.line(Line::new(label.clone(), pts.clone()).color(series_color(label)));
            }
            let before: Vec<[f64; 2]> = g.keys_before.iter().map(|&f| [f, -0.08]).collect();
            let after: Vec<[f64; 2]> = g.keys_after.iter().map(|&f| [f, -0.16]).collect();
            pu.points(
                Points::new("keys before", before)
                    .color(Color32::GRAY)
                    .radius(1.5),
            );
            pu.points(
                Points::new("keys after", after)
                    .color(KEYS_AFTER_COLOR)
                    .radius(3.0),
            );
        });
}

const TOLERANCE_COLOR: Color32 = Color32::from_rgb(230, 80, 60);
const KEYS_AFTER_COLOR: Color32 = Color32::from_rgb(80, 160, 240);

/// A graph series' colour, by its label.
fn series_color(label: &str) -> Color32 {
    match label {
        "position" => Color32::from_rgb(100, 200, 100),
        "rotation" => Color32::from_rgb(230, 190, 60),
        _ => Color32::from_rgb(190, 120, 230),
    }
}

/// What the Simplify dialog shows after Apply, while the document holds
/// the result: no tolerances, no preview, no second Apply.
pub fn applied_ui(ui: &mut egui::Ui) {
    ui.strong("Simplified: the file now holds the result (the report is below).");
    ui.label(
        "Simplifying the result again would add a second error on top of the first. \
         Undo (Ctrl+Z) to try other tolerances; after any other change to the file \
         the tolerances come back.",
    );
}

/// Evaluates the original (the document's evaluation cache) and the
/// preview (a cache built for it) of one track at every frame.
pub fn track_graph(orig: MotionRef<'_>, p: &SimplifyPreview, track: usize) -> TrackGraph {
    let Some(t) = p.report.tracks.get(track) else {
        return TrackGraph::default();
    };
    let res = &*p.motion;
    let ir = TrackIndex::build(res);
    let res_cache = EvalCache::build(res, &ir);
    let mut g = TrackGraph {
        track,
        ..TrackGraph::default()
    };
    let find = |idx: &TrackIndex, bone: bool| {
        let list = if bone { &idx.bones } else { &idx.morphs };
        list.iter().position(|tr| tr.name().text == t.name)
    };
    let bone = t.kind == TrackKind::Bone;
    let (Some(ai), Some(bi)) = (find(orig.index, bone), find(&ir, bone)) else {
        return g;
    };
    fn list(idx: &TrackIndex, bone: bool) -> &[crate::vmd::Track] {
        if bone { &idx.bones } else { &idx.morphs }
    }
    let (Some(a), Some(b)) = (list(orig.index, bone).get(ai), list(&ir, bone).get(bi)) else {
        return g;
    };
    let (Some(&f0), Some(&f1)) = (a.frames.first(), a.frames.last()) else {
        return g;
    };
    g.keys_before = a.frames.iter().map(|&f| f64::from(f)).collect();
    g.keys_after = b.frames.iter().map(|&f| f64::from(f)).collect();
    let prm = &p.report.params;
    if bone {
        let (mut pos, mut rot) = (Vec::new(), Vec::new());
        for f in f0..=f1 {
            let x = f64::from(f);
            let (pa, pb) = (orig.cache.bone_at(ai, x), res_cache.bone_at(bi, x));
            let dp = (0..3)
                .map(|i| (f64::from(pa.position[i]) - f64::from(pb.position[i])).abs())
                .fold(0.0, f64::max);
            let dr = rotation_between(pa.rotation, pb.rotation).to_degrees();
            pos.push([x, dp / prm.pos_tol.max(1e-12)]);
            rot.push([x, dr / prm.rot_tol_deg.max(1e-12)]);
        }
        g.series = vec![("position".into(), pos), ("rotation".into(), rot)];
    } else {
        let mut w = Vec::new();
        for f in f0..=f1 {
            let x = f64::from(f);
            let d = (f64::from(orig.cache.morph_at(ai, x)) - f64::from(res_cache.morph_at(bi, x)))
                .abs();
            w.push([x, d / prm.morph_tol.max(1e-12)]);
        }
        g.series = vec![("weight".into(), w)];
    }
    g
}

/// The Bake form.
pub fn bake_form(ui: &mut egui::Ui, f: &mut BakeForm, last: Option<u32>) {
    ui.checkbox(&mut f.whole, "Whole motion (first key to last)");
    if !f.whole {
        if f.to == 0
            && let Some(l) = last
        {
            f.to = l;
        }
        ui.horizontal(|ui| {
            let l = ui.label("From frame");
            ui.add(egui::DragValue::new(&mut f.from)).labelled_by(l.id);
            let l = ui.label("to");
            ui.add(egui::DragValue::new(&mut f.to)).labelled_by(l.id);
        });
    }
    ui.horizontal(|ui| {
        let l = ui.label("A key every");
        ui.add(egui::DragValue::new(&mut f.step).range(1..=1000))
            .labelled_by(l.id);
        ui.label("frame(s)");
    });
    ui.weak(
        "Straight-line curves on every baked key. A camera baked every frame is all cuts \
         (keys one frame apart), which Simplify keeps: bake the camera every 2+ frames \
         to simplify it later.",
    );
}
