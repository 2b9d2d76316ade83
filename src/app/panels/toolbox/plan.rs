//! Job planning: checks a dialog's parameters, prepares the run
//! ([`Planned`]) and launches it inline or on the job service.

use std::path::PathBuf;
use std::time::Instant;

use super::done::Done;
use super::run::{file_name, label_of, op_error, run_op};
use super::scope_ui;
use super::simplify;
use super::sizing;
use super::state::{Job, JobOutput, State};
use super::{AlsoChanged, JoinSecond, Request, SceneSpan, Tool};
use crate::app::jobs::{JobCtx, JobKind};
use crate::app::panels::Shared;
use crate::vmd;
use crate::vmd::ops::{
    self, FillRestParams, JoinParams, JoinPlacement, Report, SimplifyScope, SpeedParams, TrimParams,
};
use crate::workspace::document::Document;

/// A toolbox run, ready to go inline or on the job service.
type Work = Box<dyn FnOnce(&JobCtx) -> JobOutput + Send>;

/// A prepared run of a tool.
struct Planned {
    work: Work,
    /// Keys beyond the active document's (a join's second tab).
    extra_keys: usize,
    /// Always in the background: it reads a file or simulates.
    background: bool,
}

impl Planned {
    fn inline(work: Work) -> Planned {
        Planned {
            work,
            extra_keys: 0,
            background: false,
        }
    }

    fn background(work: Work) -> Planned {
        Planned {
            work,
            extra_keys: 0,
            background: true,
        }
    }
}

/// Starts `tool` with the dialog's parameters: inline, or on a thread for
/// big motions and for files of unknown size.
pub(super) fn start(
    tool: Tool,
    docs: &[Document],
    active: usize,
    shared: &mut Shared,
    state: &mut State,
) {
    let doc = docs.get(active);
    let (doc_id, revision) = doc.map(|d| (d.id, d.revision)).unwrap_or((0, 0));
    let keys = doc.map(|d| d.motion.key_count()).unwrap_or(0);
    match plan(tool, docs, doc, state) {
        Ok(p) => launch(
            tool,
            (doc_id, revision),
            keys + p.extra_keys,
            p,
            shared,
            state,
        ),
        Err(e) => state.finish(tool, doc_id, revision, Err(e), shared),
    }
}

/// Checks the dialog's parameters and prepares the run of `tool` on `doc`.
fn plan(
    tool: Tool,
    docs: &[Document],
    doc: Option<&Document>,
    state: &mut State,
) -> Result<Planned, String> {
    if tool == Tool::ImportJson {
        return plan_import_json(state);
    }
    let doc = doc.ok_or_else(|| "open a file first".to_owned())?;
    match tool {
        Tool::ExportJson => plan_export_json(state, doc),
        Tool::BakePhysics => plan_bake_physics(state, doc),
        Tool::Simplify => Ok(plan_simplify(state, doc)),
        Tool::Sizing => plan_sizing(state, doc),
        _ => plan_op(op_request(tool, docs, doc, state)?, docs, doc),
    }
}

/// Import JSON: reads the file in the background into a new tab.
fn plan_import_json(state: &State) -> Result<Planned, String> {
    let path = PathBuf::from(state.import.path.trim());
    if path.as_os_str().is_empty() {
        return Err("give the path of a JSON file".to_owned());
    }
    Ok(Planned::background(Box::new(move |_: &JobCtx| {
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let (motion, report) =
            ops::import_json(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let name = PathBuf::from(file_name(&path))
            .with_extension("vmd")
            .display()
            .to_string();
        Ok(Done::NewDocument {
            motion,
            name,
            report,
        })
    })))
}

/// Export JSON: writes the document's motion to the dialog's path.
fn plan_export_json(state: &State, doc: &Document) -> Result<Planned, String> {
    let path = PathBuf::from(state.export.path.trim());
    if path.as_os_str().is_empty() {
        return Err("give an output path".to_owned());
    }
    let opts = ops::ExportOptions {
        right_handed: state.export.right_handed,
        pretty: true,
    };
    let m = doc.motion.clone();
    Ok(Planned::inline(Box::new(move |_: &JobCtx| {
        let (text, report) = ops::export_json(&m, opts).map_err(op_error)?;
        vmd::write::save_bytes_atomic(&path, text.as_bytes()).map_err(|e| e.to_string())?;
        Ok(Done::Wrote { path, report })
    })))
}

/// Bake physics: simulates the wearer model over the dialog's range,
/// always in the background; the result carries the baked bones and range
/// for the offer to simplify them.
fn plan_bake_physics(state: &State, doc: &Document) -> Result<Planned, String> {
    let (_, asset) = state
        .wearer_model
        .clone()
        .ok_or_else(|| "no loaded model wears this motion".to_owned())?;
    let first = doc.motion.clone();
    if let Some(p) = state
        .bake_physics
        .range_problem(first.last_frame().unwrap_or(0))
    {
        return Err(p);
    }
    let (from, to) = (state.bake_physics.from, state.bake_physics.to);
    let start = state.bake_physics.simulate_from;
    Ok(Planned::background(Box::new(move |ctx: &JobCtx| {
        let model = &asset.loaded.model;
        let (motion, baked) =
            crate::model::physics::bake_physics_from(model, &first, from..=to, start, |f| {
                ctx.progress(f, "simulating physics");
                !ctx.cancelled()
            })
            .map_err(|e| e.to_string())?;
        let scope = SimplifyScope {
            // The bake names only bones Shift_JIS can hold (the rest are
            // left out and named).
            bones: (baked.bones.iter())
                .filter_map(|b| crate::vmd::name::bone_name_key(b))
                .collect(),
            frames: Some((from, to)),
        };
        let mut report = Report::default();
        report.lines.push(format!(
            "baked {} bones over frames {from}–{to} ({} frames, simulated from frame {}): {} keys written, {} replaced",
            baked.bones.len(),
            baked.frames,
            baked.simulated_from,
            baked.keys_written,
            baked.keys_replaced
        ));
        if baked.keys_restoring > 0 {
            report.lines.push(format!(
                "{} keys at frame {} turn physics back on after the range",
                baked.keys_restoring,
                to.saturating_add(1)
            ));
        }
        report.lines.extend(baked.resets.iter().cloned());
        report.lines.extend(baked.warnings.iter().cloned());
        report
            .lines
            .extend(baked.left_out.iter().map(ToString::to_string));
        report.added = baked.keys_written.saturating_sub(baked.keys_replaced);
        report.changed = baked.keys_replaced;
        report.warnings = baked.resets.len() + baked.warnings.len() + baked.left_out.len();
        Ok(
            Done::replace(motion, &first, format!("Bake physics {from}–{to}"), report)
                .with_baked(scope),
        )
    })))
}

/// Simplify: the previewed result when it is current; else runs it now.
fn plan_simplify(state: &mut State, doc: &Document) -> Planned {
    let first = doc.motion.clone();
    let ready = state.simplify.current(doc).cloned();
    let p = state.simplify.params;
    let scope = state.simplify.scope.clone();
    let key = simplify::key_of(doc, &p, scope.as_ref());
    let progress = crate::progress::Progress::new();
    state.simplify.progress = progress.clone();
    Planned::inline(Box::new(move |ctx: &JobCtx| {
        let pv = match ready {
            Some(pv) => pv,
            None => {
                ctx.follow(progress.clone(), "simplifying tracks");
                simplify::compute(&first, &p, scope.as_ref(), key, &progress)?
            }
        };
        let report = pv.report.report.clone();
        let motion = (*pv.motion).clone();
        let label = match &scope {
            Some(_) => "Simplify baked keys",
            None => "Simplify keys",
        };
        Ok(Done::replace(motion, &first, label.to_owned(), report))
    }))
}

/// Size motion: the sized motion the report was made from (only a result
/// for the inputs the dialog shows; Apply is disabled without one).
fn plan_sizing(state: &State, doc: &Document) -> Result<Planned, String> {
    let p = state
        .sizing
        .current()
        .ok_or_else(|| "the sizing of these inputs is not ready; wait for its report".to_owned())?
        .clone();
    let first = doc.motion.clone();
    Ok(Planned::inline(Box::new(move |_: &JobCtx| {
        let report = sizing::report_of(&p);
        let label = format!("Size motion to {}", p.target_name);
        let mut done = Done::replace(p.sized.motion.clone(), &first, label, report);
        match (&p.camera, p.key.camera()) {
            (Some((_, Ok(c))), Some((id, revision))) => done.also(AlsoChanged {
                id,
                revision,
                motion: c.motion.clone(),
            }),
            (Some((name, Err(e))), _) => {
                return Err(format!("the camera {name} cannot be sized: {e}"));
            }
            _ => {}
        }
        Ok(done)
    })))
}

/// Change speed: the keys in the dialog's scope and, when asked (and the
/// scope is every track), the scene's other motions over the same scene
/// frames.
fn speed_request(docs: &[Document], doc: &Document, state: &State) -> Result<Request, String> {
    let f = &state.speed;
    let scope = scope_ui::key_scope(doc, &f.scope)?;
    let mut scene = Vec::new();
    if f.whole_scene && scope.bones.is_none() {
        for m in &state.scene_motions {
            let Some(d) = docs.iter().find(|d| d.id == m.id) else {
                continue;
            };
            scene.push(SceneSpan {
                id: d.id,
                name: m.name.clone(),
                revision: d.revision,
                motion: d.motion.clone(),
                span: scope_ui::span_for(&scope, state.wearer_offset, m.offset),
            });
        }
    }
    Ok(Request::Speed {
        params: SpeedParams { factor: f.factor },
        scope,
        scene,
    })
}

/// The request of a motion-changing tool, from its dialog.
fn op_request(
    tool: Tool,
    docs: &[Document],
    doc: &Document,
    state: &State,
) -> Result<Request, String> {
    Ok(match tool {
        Tool::Mirror => Request::Mirror(scope_ui::key_scope(doc, &state.mirror.scope)?),
        Tool::Trim => Request::Trim(TrimParams {
            from: state.trim.from,
            to: state.trim.to,
            rebase: state.trim.rebase,
        }),
        Tool::Join => {
            let f = &state.join;
            let second = if f.use_path {
                let p = PathBuf::from(f.path.trim());
                if p.as_os_str().is_empty() {
                    return Err("give the path of the second VMD file".to_owned());
                }
                JoinSecond::Path(p)
            } else {
                JoinSecond::Tab(f.tab.ok_or_else(|| {
                    "open a second file in another tab, or give a path".to_owned()
                })?)
            };
            let placement = if f.use_at {
                JoinPlacement::At(f.at)
            } else {
                JoinPlacement::Gap(f.gap)
            };
            Request::Join {
                second,
                params: JoinParams { placement },
            }
        }
        Tool::Speed => speed_request(docs, doc, state)?,
        Tool::FillRest => {
            let mut extra_bones = Vec::new();
            if let Some(other) = docs.iter().find(|d| Some(d.id) == state.fill.union_with) {
                for k in &other.motion.bones {
                    let n = k.name().text;
                    if !extra_bones.contains(&n) {
                        extra_bones.push(n);
                    }
                }
            }
            Request::FillRest(FillRestParams { extra_bones })
        }
        Tool::Rename => {
            let map = ops::parse_rename_map(&state.rename.map_text).map_err(op_error)?;
            if map.pairs.is_empty() {
                return Err("the map is empty: write old<TAB>new lines".to_owned());
            }
            Request::Rename(map)
        }
        Tool::Bake => Request::Bake(state.bake.params()),
        Tool::Simplify | Tool::BakePhysics | Tool::Sizing | Tool::ExportJson | Tool::ImportJson => {
            return Err(format!("{} does not change the motion", tool.title()));
        }
    })
}

/// Runs `req` on `doc`'s motion; a join's second motion comes from its tab
/// (its keys count toward the size) or from a file (read in the background).
fn plan_op(req: Request, docs: &[Document], doc: &Document) -> Result<Planned, String> {
    let mut extra_keys = 0;
    let mut background = false;
    let (second, second_name) = match &req {
        Request::Join {
            second: JoinSecond::Tab(id),
            ..
        } => {
            let other = docs
                .iter()
                .find(|d| d.id == *id)
                .ok_or_else(|| "the second tab is no longer open".to_owned())?;
            extra_keys = other.motion.key_count();
            (Some(other.motion.clone()), other.title())
        }
        Request::Join {
            second: JoinSecond::Path(p),
            ..
        } => {
            background = true;
            (None, file_name(p))
        }
        _ => (None, String::new()),
    };
    let label = label_of(&req, &second_name);
    let first = doc.motion.clone();
    let work: Work = Box::new(move |_: &JobCtx| {
        run_op(&req, &first, second.as_ref(), label).map(|(outcome, report)| {
            let changed = outcome.motion != first;
            Done::Replace {
                outcome,
                report,
                changed,
                baked: None,
            }
        })
    });
    Ok(Planned {
        work,
        extra_keys,
        background,
    })
}

/// Runs a planned tool: on the job service when the motion has more than
/// [`State::background_keys`] keys or the run must be in the background,
/// else now.
fn launch(
    tool: Tool,
    (doc_id, revision): (u64, u64),
    keys: usize,
    planned: Planned,
    shared: &mut Shared,
    state: &mut State,
) {
    let work = planned.work;
    if keys > state.background_keys || planned.background {
        let what = format!("{} on {keys} keys", tool.title());
        state.lane.start(
            &shared.jobs,
            JobKind::Toolbox,
            what.clone(),
            true,
            move |ctx: &JobCtx| {
                let r = work(ctx);
                // Cancelled (from the status bar): nothing is applied.
                if ctx.cancelled() {
                    Err("cancelled: nothing was changed".to_owned())
                } else {
                    r
                }
            },
        );
        state.summary = None;
        state.job = Some(Job {
            tool,
            doc_id,
            revision,
            what,
            started: Instant::now(),
        });
    } else {
        let result = work(&JobCtx::detached());
        state.finish(tool, doc_id, revision, result, shared);
    }
}
