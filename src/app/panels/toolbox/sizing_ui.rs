//! Tools ▸ Size motion to model…: the form (the target, the source, the
//! options, the preview switch) and the report before Apply (the quality
//! measures of the source, the target unsized and sized, the per-bone key
//! changes), or why sizing refused.

use super::sizing::{ChangeTotals, SizingForm, SizingPreview, SourceChoice};
use crate::app::jobs::JobService;
use crate::sizing::QualityStats;
use crate::workspace::document::Document;

/// The Size motion form on `doc` (the file the selected actor wears): it
/// starts a sizing whenever its inputs change and shows the last report.
pub(super) fn sizing_form(
    ui: &mut egui::Ui,
    doc: &Document,
    docs: &[Document],
    f: &mut SizingForm,
    jobs: &JobService,
) {
    f.refresh(doc, docs, jobs);
    target_ui(ui, f);
    source_ui(ui, f);
    options_ui(ui, f);
    ui.separator();
    if f.is_computing() {
        ui.horizontal(|ui| {
            ui.spinner();
            ui.label("Sizing and measuring every frame…");
        });
        ui.ctx()
            .request_repaint_after(std::time::Duration::from_millis(100));
    }
    let current = f.current().is_some();
    match &f.result {
        None => {}
        Some(Err(e)) => {
            ui.colored_label(ui.visuals().error_fg_color, format!("Cannot size: {e}"));
            ui.label("Nothing can be applied.");
        }
        Some(Ok(p)) => {
            if !current {
                ui.weak("(the report of the previous inputs)");
            } else if f.preview_on {
                ui.colored_label(
                    ui.visuals().warn_fg_color,
                    "The viewport shows the sized motion on the actor: not applied yet.",
                );
            }
            // Scrolled, so Apply below stays in the window at 1280×720.
            let height = (ui.ctx().content_rect().height() - 470.0).clamp(160.0, 520.0);
            // A report taller than that takes the whole height at once (the
            // window grew 32 points a frame towards it, and a click on
            // Apply meanwhile landed where the button had been).
            egui::ScrollArea::vertical()
                .id_salt("sizing-report")
                .max_height(height)
                .min_scrolled_height(height)
                .auto_shrink([false, true])
                .show(ui, |ui| report_ui(ui, p));
        }
    }
}

/// Who wears the motion: the target.
fn target_ui(ui: &mut egui::Ui, f: &SizingForm) {
    match f.wearer.and_then(|i| f.actors.get(i)) {
        Some(a) => {
            ui.label(format!(
                "Target: {} wearing this motion, model {}",
                a.name,
                a.model.describe()
            ));
        }
        None => {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                "No actor wears this motion: open it with a model, or pick the actor's motion.",
            );
        }
    }
}

/// The source: the built-in body, another actor's model, or a file.
fn source_ui(ui: &mut egui::Ui, f: &mut SizingForm) {
    ui.label("Made for (the source model):");
    ui.radio_value(
        &mut f.source,
        SourceChoice::Builtin,
        "Built-in standard body",
    )
    .on_hover_text(
        "VMD Studio's standard-proportion skeleton (about 20 units tall; \
         assets/standard_skeleton.json), for when you do not have the model \
         the motion was made for (the CLI's --from builtin)",
    );
    for (i, a) in f.actors.iter().enumerate() {
        if Some(i) == f.wearer {
            continue;
        }
        ui.radio_value(
            &mut f.source,
            SourceChoice::Actor(i),
            format!("Actor {}: {}", a.name, a.model.describe()),
        );
    }
    ui.radio_value(&mut f.source, SourceChoice::File, "A model file");
    if f.source == SourceChoice::File {
        ui.horizontal(|ui| {
            let l = ui.label("Source model file");
            ui.add(egui::TextEdit::singleline(&mut f.path).desired_width(220.0))
                .labelled_by(l.id)
                .on_hover_text("A PMX or PMD file: the model the motion was made for");
            if ui
                .button("Browse…")
                .on_hover_text("Pick the source model file")
                .clicked()
            {
                f.ask_browse();
            }
        });
    }
}

/// The options (the CLI's --no-arms, --no-feet, --no-hands) and the
/// preview switch.
fn options_ui(ui: &mut egui::Ui, f: &mut SizingForm) {
    ui.checkbox(
        &mut f.options.arms,
        "Arms: turn to the target's rest stance",
    )
    .on_hover_text(
        "腕, ひじ, 手首, the twist bones and the fingers turned by the difference \
             of the two models' rest directions, so an arm that was horizontal stays \
             horizontal on an A-stance model (off: the CLI's --no-arms)",
    );
    ui.checkbox(&mut f.options.feet, "Feet: keep the toes above the floor")
        .on_hover_text(
            "Leg-IK keys whose toe would go below the floor, where the source's toe was \
             on or above it, are lifted (off: the CLI's --no-feet)",
        );
    ui.checkbox(
        &mut f.options.hands,
        "Hands: meet where the source's hands touch",
    )
    .on_hover_text(
        "On the frames where the source's wrists touch (a clap, hands held together), \
             腕 and ひじ are turned so the target's wrists meet as the source's do; where a \
             source wrist touches the head (a hand on the cheek), the target's goes to the \
             same place on its own head; keys are added on those frames where needed \
             (off: the CLI's --no-hands)",
    );
    if let Some((_, name)) = &f.scene_camera {
        ui.checkbox(
            &mut f.size_camera,
            format!("Camera: keep the framing (size {name} too)"),
        )
        .on_hover_text(
            "The scene camera's look-at points are mapped through the floor, hips and head \
             heights and the stance ratio, its distance scaled with the head height, so \
             the target fills the picture as the source did; the same undo step (the \
             CLI's --camera)",
        );
    }
    if f.actors.len() >= 2 {
        let others = f.actors.len() - 1;
        ui.checkbox(
            &mut f.group,
            format!("Group: one horizontal scale with the other {others} actor(s)"),
        )
        .on_hover_text(
            "Steps, stance and the actors' places are scaled by the group's mean leg \
             ratio (capped at 1.2, as VMDサイジング v5) instead of this actor's own, so a \
             formation keeps its spacing; size each actor's motion in turn with this on \
             (the CLI's --group)",
        );
    }
    ui.checkbox(&mut f.preview_on, "Preview on the actor")
        .on_hover_text(
            "The viewport shows the sized motion on the actor while you scrub, through \
             the scene's camera; nothing is applied until Apply. Off: the actor wears \
             the file as it is, to compare.",
        );
    ui.add_enabled(
        f.preview_on,
        egui::Checkbox::new(&mut f.ghost_on, "Ghost: the source, unsized"),
    )
    .on_hover_text(
        "With the preview, the source body wearing the motion as made for it is drawn \
         as a faint skeleton where the actor stands: what the sizing changed shows \
         while you scrub",
    );
}

/// The report of one sizing: ratios, quality measures, key changes.
fn report_ui(ui: &mut egui::Ui, p: &SizingPreview) {
    let o = &p.outcome;
    let r = o.ratios;
    ui.strong(format!("From {} to {}", p.source_name, p.target_name));
    ui.label(format!(
        "Leg ratios: horizontal ×{:.4}, vertical ×{:.4}; hips ×{:.4} {:+.3} units",
        r.horizontal, r.vertical, r.hips, r.hip_offset
    ));
    if p.group > 0 {
        ui.label(format!(
            "Horizontal ratio shared with {} other actor(s) (the group's)",
            p.group
        ));
    }
    quality_ui(ui, &p.quality);
    let t = ChangeTotals::of(o);
    ui.label(format!(
        "Keys: {} changed, {} added, {} byte-identical; {} bone tracks changed, {} untouched",
        t.changed, t.added, t.untouched, t.tracks_touched, t.tracks_untouched
    ));
    egui::CollapsingHeader::new("Changes per bone")
        .id_salt("sizing-per-bone")
        .show(ui, |ui| {
            egui::Grid::new("sizing-per-bone-grid")
                .num_columns(4)
                .striped(true)
                .show(ui, |ui| {
                    for h in ["Bone", "Changed", "Added", "Byte-identical"] {
                        ui.strong(h);
                    }
                    ui.end_row();
                    for c in o.changes.iter().filter(|c| c.changed + c.added > 0) {
                        ui.label(&c.bone);
                        ui.label(c.changed.to_string());
                        ui.label(c.added.to_string());
                        ui.label(c.untouched.to_string());
                        ui.end_row();
                    }
                });
        });
    if o.feet_lifted > 0 {
        ui.label(format!(
            "{} leg-IK keys lifted off the floor",
            o.feet_lifted
        ));
    }
    if !o.missing_in_target.is_empty() {
        let title = egui::RichText::new(format!(
            "The target lacks {} of the motion's bones",
            o.missing_in_target.len()
        ))
        .color(ui.visuals().warn_fg_color);
        egui::CollapsingHeader::new(title)
            .id_salt("sizing-missing")
            .show(ui, |ui| {
                ui.label(o.missing_in_target.join(", "));
                ui.weak("Their keys stay in the file; MMD ignores them on this model.");
            });
    }
    for n in &o.notes {
        ui.weak(format!("Note: {n}"));
    }
    match &p.camera {
        Some((name, Ok(c))) => {
            ui.label(super::sizing::camera_line(name, &c.report));
        }
        Some((name, Err(e))) => {
            ui.colored_label(
                ui.visuals().error_fg_color,
                format!("The camera {name} cannot be sized: {e}"),
            );
        }
        None => {}
    }
}

/// The measures side by side: the source wearing the motion, the target
/// wearing it unsized and sized.
fn quality_ui(ui: &mut egui::Ui, q: &crate::sizing::QualityReport) {
    ui.label(format!("Measured over {} frames:", q.source.frames));
    type Cell = fn(&QualityStats) -> String;
    fn deg(v: Option<f64>) -> String {
        v.map_or_else(|| "–".to_owned(), |d| format!("{d:.1}°"))
    }
    fn kept(n: usize, v: Option<f64>) -> String {
        v.map_or_else(
            || format!("– of {n}"),
            |k| format!("{:.0} % of {n}", k * 100.0),
        )
    }
    let rows: [(&str, &str, Cell); 11] = [
        (
            "Leg IK reach",
            "Share of frames where each ankle reaches its IK target within 5 % of the leg's length",
            |s| format!("{:.1} %", s.ik_reach * 100.0),
        ),
        (
            "Stance / leg",
            "Mean foot-to-foot distance divided by the leg's length",
            |s| format!("{:.3}", s.stance),
        ),
        (
            "Stance error",
            "Mean difference from the source's stance at the same frame",
            |s| format!("{:.3}", s.stance_error),
        ),
        (
            "Hip height / leg",
            "Mean height of the hip joints above the ankles' rest height, divided by the leg's length",
            |s| format!("{:.3}", s.hip_height),
        ),
        (
            "Hip error",
            "Mean difference from the source's hip height at the same frame",
            |s| format!("{:.3}", s.hip_error),
        ),
        (
            "Frames toe below floor",
            "Frames with a toe more than 1 % of the leg's length below the floor (for the target: where the source's was not)",
            |s| s.floor_frames.to_string(),
        ),
        (
            "Deepest toe",
            "The deepest such toe below the floor, model units",
            |s| format!("{:.3}", s.floor_depth),
        ),
        (
            "Arm direction, mean",
            "Angle between the upper arm's world direction and the source's, mean over frames and arms",
            |s| deg(s.arm_angle_mean),
        ),
        ("Arm direction, max", "The largest such angle", |s| {
            deg(s.arm_angle_max)
        }),
        (
            "Hand contacts kept",
            "Frames where the source's wrists touch (closer than 20 % of its arm's length), \
             and the share of them where this model's wrists touch (20 % of its own arm)",
            |s| kept(s.hand_contacts, s.hand_contacts_kept),
        ),
        (
            "Hand–head contacts kept",
            "Frames × hands where the source's wrist touches its head (within 25 % of its \
             arm's length of 頭), and the share this model keeps",
            |s| kept(s.head_contacts, s.head_contacts_kept),
        ),
    ];
    egui::Grid::new("sizing-quality")
        .num_columns(4)
        .striped(true)
        .show(ui, |ui| {
            for h in ["Measure", "Source", "Unsized", "Sized"] {
                ui.strong(h);
            }
            ui.end_row();
            for (name, tip, cell) in rows {
                ui.label(name).on_hover_text(tip);
                ui.label(cell(&q.source));
                ui.label(cell(&q.before));
                ui.strong(cell(&q.after));
                ui.end_row();
            }
        });
}

/// What the dialog shows after Apply, while the file holds the result.
pub(super) fn applied_ui(ui: &mut egui::Ui) {
    ui.strong("Sized: the file now holds the result (the report is below).");
    ui.label(
        "Sizing the result again would size an already sized motion. Undo (Ctrl+Z) \
         to try other inputs; after any other change to the file the form comes back.",
    );
}
