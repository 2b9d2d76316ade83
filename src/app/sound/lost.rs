//! The slot in which a stream's own thread says why it stopped: shared by
//! [`super::SoundOutput`] and every backend, imports nothing of them.

use std::sync::{Arc, Mutex};

/// Why the stream stopped; `None` while it plays. The first reason is kept.
pub type LostSlot = Arc<Mutex<Option<String>>>;

/// An empty slot.
pub fn new_slot() -> LostSlot {
    Arc::new(Mutex::new(None))
}

/// Keeps the first reason a stream stopped.
pub fn report(lost: &Mutex<Option<String>>, reason: &str) {
    let mut l = match lost.lock() {
        Ok(l) => l,
        Err(poisoned) => poisoned.into_inner(),
    };
    l.get_or_insert_with(|| reason.to_owned());
}

/// Takes the reason out (the slot is empty afterwards).
pub fn take(lost: &Mutex<Option<String>>) -> Option<String> {
    match lost.lock() {
        Ok(mut l) => l.take(),
        Err(poisoned) => poisoned.into_inner().take(),
    }
}

/// Whether a reason is waiting.
pub fn is_set(lost: &Mutex<Option<String>>) -> bool {
    match lost.lock() {
        Ok(l) => l.is_some(),
        Err(poisoned) => poisoned.into_inner().is_some(),
    }
}
