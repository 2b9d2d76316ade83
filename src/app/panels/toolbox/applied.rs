//! A tool's last Apply and whether the document still holds what it made
//! (Simplify and Size motion: applying either twice to its own result
//! would stack a second change on the first, so their forms stand down
//! until the file changes again).

use crate::workspace::document::Document;

/// An Apply and the document state it led to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Applied {
    pub doc_id: u64,
    /// The document's revision when Apply was pressed.
    pub from_revision: u64,
    /// Its revision once the result landed (None until then, and when the
    /// result changed nothing).
    pub result_revision: Option<u64>,
}

impl Applied {
    /// Apply was pressed on `doc`.
    pub fn on(doc: &Document) -> Applied {
        Applied {
            doc_id: doc.id,
            from_revision: doc.revision,
            result_revision: None,
        }
    }

    /// Whether `doc` holds what the Apply in `slot` made of it. `settled`:
    /// no run is going and no result waits to be applied. The first change
    /// after Apply is its result; any later one (an undo, an edit) is new
    /// input: `slot` is cleared and the form is live again.
    pub fn holds(slot: &mut Option<Applied>, doc: &Document, settled: bool) -> bool {
        let Some(a) = slot else {
            return false;
        };
        if a.doc_id != doc.id || !settled {
            return false;
        }
        let now = doc.revision;
        match a.result_revision {
            None if now == a.from_revision => true,
            None => {
                a.result_revision = Some(now);
                true
            }
            Some(r) if r == now => true,
            Some(_) => {
                *slot = None;
                false
            }
        }
    }
}
