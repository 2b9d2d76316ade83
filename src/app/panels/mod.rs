//! The panels. Each reads the workspace's documents and returns what it
//! wants changed — edits through [`PanelCtx::edits`], selection and
//! playhead changes on its working copies ([`PanelCtx::view`],
//! [`Shared::transport`]) — which the shell turns into
//! [`crate::workspace::Event`]s; none mutates a document itself.

use crate::vmd::Curve;
use crate::workspace::document::{DocView, Document, EditRequest};

pub mod beat_cuts;
pub mod curve_editor;
pub mod dope_sheet;
pub mod fields;
pub mod forensics;
pub mod framing;
pub mod gizmo;
pub mod inspector;
pub mod key_panel;
pub mod model_view;
pub mod scene;
pub mod scene_missing;
pub mod scene_set;
pub mod shots;
pub mod timeline;
pub mod toolbox;
pub mod value_graph;
pub mod viewport;
pub mod waveform;

pub use crate::workspace::Transport;

/// State shared by all panels (not part of undo).
#[derive(Debug, Default)]
pub struct Shared {
    /// The panels' working copy of the workspace's transport for this
    /// frame: the shell refreshes it from the workspace before the panels
    /// run and sends what they changed back as transport events.
    pub transport: Transport,
    /// Curve copied in the curve editor.
    pub curve_clipboard: Option<Curve>,
    /// Messages for the status bar: (text, is_error).
    pub messages: Vec<(String, bool)>,
    /// The scene's song: waveform, beat grid, sound.
    pub song: crate::app::song::SongState,
    /// The job service every background task runs on (the app's
    /// [`crate::app::jobs::Jobs`] shares it).
    pub jobs: crate::app::jobs::JobService,
    /// A text or number field had the keyboard when this frame began: the
    /// Enter that ends its edit is not also a command for a panel drawn
    /// after it (the field has let go of the focus by then).
    pub typing: bool,
    /// The viewport's pictures per second while playing (the viewport
    /// counts, the status bar shows).
    pub pictures: crate::app::picture_rate::PictureRate,
}

impl Shared {
    /// A status message (also logged).
    pub fn info(&mut self, text: impl Into<String>) {
        let text = text.into();
        tracing::info!("{text}");
        self.messages.push((text, false));
    }
    /// An error for the status bar (also logged as a warning).
    pub fn error(&mut self, text: impl Into<String>) {
        let text = text.into();
        tracing::warn!("{text}");
        self.messages.push((text, true));
    }
}

/// What a panel gets each frame.
pub struct PanelCtx<'a> {
    pub doc: &'a Document,
    pub view: &'a mut DocView,
    pub edits: &'a mut Vec<EditRequest>,
    pub shared: &'a mut Shared,
}

impl PanelCtx<'_> {
    pub fn push(&mut self, e: EditRequest) {
        self.edits.push(e);
    }
}

/// The panels' working copies of the documents' selections for one frame
/// (cheap: a [`crate::workspace::Selection`] is shared until changed). The
/// shell hands back the ones that changed as [`crate::workspace::Event::Select`].
#[derive(Debug, Default)]
pub struct Views {
    views: std::collections::HashMap<u64, DocView>,
    none: DocView,
}

impl Views {
    /// Copies of every document's view.
    pub fn of(docs: &[Document]) -> Views {
        Views {
            views: docs.iter().map(|d| (d.id, d.view.clone())).collect(),
            none: DocView::default(),
        }
    }

    pub fn get(&self, id: u64) -> &DocView {
        self.views.get(&id).unwrap_or(&self.none)
    }

    pub fn get_mut(&mut self, id: u64) -> &mut DocView {
        self.views.entry(id).or_default()
    }

    pub fn take(&mut self, id: u64) -> DocView {
        self.views.remove(&id).unwrap_or_default()
    }

    pub fn put(&mut self, id: u64, view: DocView) {
        self.views.insert(id, view);
    }

    /// The views that differ from the documents' own.
    pub fn changed(self, docs: &[Document]) -> Vec<(u64, DocView)> {
        let mut out: Vec<(u64, DocView)> = self
            .views
            .into_iter()
            .filter(|(id, v)| docs.iter().any(|d| d.id == *id && d.view != *v))
            .collect();
        out.sort_by_key(|(id, _)| *id);
        out
    }
}
