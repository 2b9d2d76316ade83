//! The viewport's shot list: the camera document's shots (computed by
//! [`crate::scene::shots`], cached per document revision), the current one
//! highlighted and scrolled to, a click jumps to a shot; near-cuts under a
//! collapsed header. UI only: the shots themselves are pure.

use egui::Sense;

use super::Shared;
use crate::scene::shots::{self, NearCut, Shot};
use crate::workspace::document::Document;

/// The shots of one camera document at one revision.
#[derive(Debug)]
struct Cached {
    doc_id: u64,
    revision: u64,
    shots: Vec<Shot>,
    near: Vec<NearCut>,
}

/// The shot list's state: the cached shots and the shot shown last frame
/// (to scroll only when it changes).
#[derive(Debug, Default)]
pub struct ShotList {
    cache: Option<Cached>,
    last_shot: Option<usize>,
    /// The off-beat filter over the listed cuts.
    off_beat: super::beat_cuts::OffBeatFilter,
}

impl ShotList {
    /// Recomputes the shots when the camera document or its revision changed.
    pub fn refresh(&mut self, doc: Option<&Document>) {
        let Some(doc) = doc else {
            self.cache = None;
            return;
        };
        if self
            .cache
            .as_ref()
            .is_some_and(|s| s.doc_id == doc.id && s.revision == doc.revision)
        {
            return;
        }
        self.cache = Some(Cached {
            doc_id: doc.id,
            revision: doc.revision,
            shots: shots::shots(&doc.motion, &doc.index),
            near: shots::near_cuts(&doc.motion, &doc.index),
        });
    }

    /// The shot showing at `frame` and the number of shots.
    pub fn current(&self, frame: f64) -> Option<(&Shot, usize)> {
        let c = self.cache.as_ref()?;
        let i = shots::shot_at(&c.shots, frame)?;
        Some((c.shots.get(i)?, c.shots.len()))
    }

    /// The list (with the off-beat filter and the near-cuts) for the
    /// camera document `camera` at evaluated frame `eval`; a click moves
    /// the playhead.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        camera: Option<&Document>,
        eval: f64,
        shared: &mut Shared,
    ) {
        let (Some(cache), Some(doc)) = (&self.cache, camera) else {
            ui.strong("Shots");
            ui.weak("No open file has camera keys.");
            return;
        };
        ui.strong(format!("Shots ({})", cache.shots.len()));
        ui.weak(format!("camera: {}", doc.title()));
        let current = shots::shot_at(&cache.shots, eval);
        let changed = current != self.last_shot;
        super::beat_cuts::filter_ui(ui, &shared.song, &mut self.off_beat);
        egui::ScrollArea::vertical()
            .id_salt("viewport-shots")
            .max_height(320.0)
            .show(ui, |ui| {
                for (i, s) in cache.shots.iter().enumerate() {
                    if !super::beat_cuts::keep(&shared.song, self.off_beat, s) {
                        continue;
                    }
                    let is_current = Some(i) == current;
                    let r =
                        ui.selectable_label(is_current, super::beat_cuts::label(&shared.song, s));
                    if r.clicked() {
                        shared.transport.frame = f64::from(s.first);
                    }
                    if is_current && changed {
                        r.scroll_to_me(None);
                    }
                }
            });
        self.last_shot = current;
        ui.add_space(4.0);
        ui.weak("? Cuts at other rates").on_hover_text(
            "Cuts stay hard at every preview rate: between keys A and A+1 the \
             camera holds key A for every sub-frame.",
        );
        if cache.near.is_empty() {
            return;
        }
        ui.add_space(4.0);
        egui::CollapsingHeader::new(format!("Near-cuts ({})", cache.near.len()))
            .id_salt("viewport-near-cuts")
            .default_open(false)
            .show(ui, |ui| {
                for n in &cache.near {
                    let r = ui.add(
                        egui::Label::new(
                            egui::RichText::new(format!("near-cut at frame {}", n.from))
                                .color(ui.visuals().warn_fg_color),
                        )
                        .sense(Sense::click()),
                    );
                    if r.on_hover_text(n.message()).clicked() {
                        shared.transport.frame = f64::from(n.from);
                    }
                }
            });
    }
}
