//! Inspector: everything `inspect` knows about the active file, and the
//! searchable track list.

use super::PanelCtx;
use crate::vmd::summary::{Summary, summarize};
use crate::workspace::document::{Document, KeyRef};

/// Cached summary (recomputed when the document changes).
#[derive(Debug, Default)]
pub struct State {
    cache: Option<(u64, u64, Summary)>,
    pub search: String,
}

/// `n` of `d` as a percentage that never reads 100% unless all, nor 0%
/// unless none: whole percents, one decimal near the ends (453 of 454 is
/// 99.8%, not 100%).
pub fn percent(n: usize, d: usize) -> String {
    if d == 0 {
        return "–".to_owned();
    }
    let p = 100.0 * n as f64 / d as f64;
    let whole = p.round();
    if (whole >= 100.0 && n < d) || (whole <= 0.0 && n > 0) {
        // One decimal, kept strictly inside (0, 100).
        let p = (p * 10.0).round() / 10.0;
        let p = p.clamp(0.1, 99.9);
        format!("{p:.1}%")
    } else {
        format!("{whole:.0}%")
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The inspector: the file's summary, its warnings, and its bone and
/// morph tracks (find, click to select a track's first key).
pub fn ui(ui: &mut egui::Ui, cx: &mut PanelCtx, state: &mut State) {
    let doc = cx.doc;
    let fresh = matches!(&state.cache, Some((id, rev, _)) if *id == doc.id && *rev == doc.revision);
    if !fresh {
        state.cache = Some((doc.id, doc.revision, summarize(&doc.motion, &doc.index)));
    }
    let Some((_, _, s)) = &state.cache else {
        return;
    };
    summary_grid(ui, s, doc);
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
    let jump = track_list(ui, s, doc, &needle);
    if let Some(k) = jump {
        cx.view.selection.clear();
        cx.view.selection.insert(k);
        cx.view.active = Some(k);
        cx.view.reveal = Some(k);
    }
}

/// The summary grid: kind, header, model, length, key counts, cuts, linear
/// curves, physics-off keys.
fn summary_grid(ui: &mut egui::Ui, s: &Summary, doc: &Document) {
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
                    "{} of {} bone keys ({})",
                    s.linear_bone_keys,
                    c.bones,
                    percent(s.linear_bone_keys, c.bones)
                ));
            } else {
                ui.label("–");
            }
            ui.end_row();
            ui.label("Physics off");
            ui.label(format!("{} keys", s.physics_off_keys));
            ui.end_row();
        });
}

/// The bone and morph tracks whose names contain `needle`; the first key
/// of the one clicked.
fn track_list(ui: &mut egui::Ui, s: &Summary, doc: &Document, needle: &str) -> Option<KeyRef> {
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
                            if !needle.is_empty() && !t.name.to_lowercase().contains(needle) {
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
    jump
}

#[cfg(test)]
mod tests {
    use super::percent;

    #[test]
    fn percent_never_claims_all_or_none_wrongly() {
        assert_eq!(percent(453, 454), "99.8%");
        assert_eq!(percent(454, 454), "100%");
        assert_eq!(percent(0, 454), "0%");
        assert_eq!(percent(1, 2000), "0.1%");
        assert_eq!(percent(99_999, 100_000), "99.9%");
        assert_eq!(percent(1, 3), "33%");
        assert_eq!(percent(0, 0), "–");
    }
}
