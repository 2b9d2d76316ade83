//! A tool's last Apply and whether the document still holds what it made
//! (Simplify and Size motion: applying either twice to its own result
//! would stack a second change on the first, so their forms stand down
//! until the file changes again).

use crate::workspace::document::Document;

/// An Apply and the document state it led to, by history state id
/// ([`Document::state`]): an undo goes back to the state before it and a
/// redo to the very state it made, so a redo puts the form down again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Applied {
    pub doc_id: u64,
    /// The document's history state when Apply was pressed.
    pub from_state: u64,
    /// Its state once the result landed (None until then, and when the
    /// result changed nothing).
    pub result_state: Option<u64>,
}

impl Applied {
    /// Apply was pressed on `doc`.
    pub fn on(doc: &Document) -> Applied {
        Applied {
            doc_id: doc.id,
            from_state: doc.state(),
            result_state: None,
        }
    }

    /// Whether `doc` holds what the Apply in `slot` made of it. `settled`:
    /// no run is going and no result waits to be applied. The first change
    /// after Apply is its result; in any other state (an undo, an edit) the
    /// form is live again, and a redo back to the result stands it down.
    pub fn holds(slot: &mut Option<Applied>, doc: &Document, settled: bool) -> bool {
        let Some(a) = slot else {
            return false;
        };
        if a.doc_id != doc.id || !settled {
            return false;
        }
        let now = doc.state();
        match a.result_state {
            None if now == a.from_state => true,
            None => {
                a.result_state = Some(now);
                true
            }
            Some(r) => r == now,
        }
    }
}
