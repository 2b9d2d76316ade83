//! Inspector: everything `inspect` knows about the active file, and the
//! searchable track list.

use super::PanelCtx;
use crate::app::document::KeyRef;
use crate::vmd::summary::{Summary, summarize};

/// Cached summary (recomputed when the document changes).
#[derive(Debug, Default)]
pub struct State {
    cache: Option<(u64, u64, Summary)>,
    pub search: String,
}

fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn ui(ui: &mut egui::Ui, cx: &mut PanelCtx, state: &mut State) {
    let doc = cx.doc;
    let fresh = matches!(&state.cache, Some((id, rev, _)) if *id == doc.id && *rev == doc.revision);
    if !fresh {
        state.cache = Some((doc.id, doc.revision, summarize(&doc.motion, &doc.index)));
    }
    let Some((_, _, s)) = &state.cache else {
        return;
    };
    egui::Grid::new("inspector-grid")
        .num_columns(2)
        .striped(true)
        .show(ui, |ui| {
            ui.label("Kind");
            ui.strong(s.kind.label());
            ui.end_row();
            ui.label("Header");
            ui.label(format!("version {}", s.version));
            ui.end_row();
            ui.label("Model");
            ui.label(&s.model_name)
                .on_hover_text(format!("raw bytes: {}", hex(&doc.motion.model_name_field)));
            ui.end_row();
            ui.label("Length");
            match s.last_frame {
                Some(f) => ui.label(format!("{f} frames · {:.2} s", s.duration_seconds)),
                None => ui.label("no keys"),
            };
            ui.end_row();
            let c = &s.counts;
            for (label, n) in [
                ("Bone keys", c.bones),
                ("Morph keys", c.morphs),
                ("Camera keys", c.cameras),
                ("Light keys", c.lights),
                ("Self-shadow keys", c.self_shadows),
                ("IK/show keys", c.ik),
            ] {
                ui.label(label);
                ui.label(n.to_string());
                ui.end_row();
            }
            ui.label("Camera cuts");
            let cuts = ui.label(s.camera_cuts.to_string());
            if !s.cut_frames.is_empty() {
                let list: Vec<String> = s.cut_frames.iter().map(u32::to_string).collect();
                cuts.on_hover_text(format!("cut frames: {}", list.join(", ")));
            }
            ui.end_row();
            ui.label("Linear curves");
            if c.bones > 0 {
                ui.label(format!(
                    "{} of {} bone keys ({:.0}%)",
                    s.linear_bone_keys,
                    c.bones,
                    100.0 * s.linear_bone_keys as f64 / c.bones as f64
                ));
            } else {
                ui.label("–");
            }
            ui.end_row();
            ui.label("Physics off");
            ui.label(format!("{} keys", s.physics_off_keys));
            ui.end_row();
        });
    if !s.warnings.is_empty() {
        ui.add_space(4.0);
        egui::CollapsingHeader::new(format!("Warnings ({})", s.warnings.len()))
            .default_open(true)
            .show(ui, |ui| {
                for w in &s.warnings {
                    ui.colored_label(ui.visuals().warn_fg_color, w);
                }
            });
    }
    ui.separator();
    ui.horizontal(|ui| {
        ui.add(
            egui::TextEdit::singleline(&mut state.search)
                .hint_text("Find bone or morph")
                .desired_width(f32::INFINITY),
        );
    });
    let needle = state.search.trim().to_lowercase();
    let mut jump: Option<KeyRef> = None;
    egui::ScrollArea::vertical()
        .id_salt("inspector-tracks")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            for (title, tracks, is_bone) in [
                ("Bones", &s.bone_tracks, true),
                ("Morphs", &s.morph_tracks, false),
            ] {
                if tracks.is_empty() {
                    continue;
                }
                egui::CollapsingHeader::new(format!("{title} ({})", tracks.len()))
                    .default_open(true)
                    .show(ui, |ui| {
                        for (i, t) in tracks.iter().enumerate() {
                            if !needle.is_empty() && !t.name.to_lowercase().contains(&needle) {
                                continue;
                            }
                            let r = ui.selectable_label(false, format!("{}  ({})", t.name, t.keys));
                            if r.clicked() {
                                let list = if is_bone {
                                    &doc.index.bones
                                } else {
                                    &doc.index.morphs
                                };
                                if let Some(first) = list.get(i).and_then(|t| t.keys.first()) {
                                    jump = Some(if is_bone {
                                        KeyRef::Bone(*first)
                                    } else {
                                        KeyRef::Morph(*first)
                                    });
                                }
                            }
                        }
                    });
            }
        });
    if let Some(k) = jump {
        cx.view.selection.clear();
        cx.view.selection.insert(k);
        cx.view.active = Some(k);
        cx.view.reveal = Some(k);
    }
}
