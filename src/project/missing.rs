//! What a project named that this machine does not have, and fixing it
//! by hand: the user points one slot (an actor's model, an accessory's
//! `.x`) at a file (Locate…), and the other missing files are looked for
//! where that one was found.
//!
//! The other files are looked for, in order:
//! 1. **The same move**: the stored path and the located file share a
//!    tail (`…\Model\ミク\ミク.pmx` ↔ `…/Model/ミク/ミク.pmx`); the folders
//!    before that tail are where the project's files were and are now.
//!    Another stored path that began with the old folders is tried with
//!    the new ones (names compared as [`fold`] compares them).
//! 2. The [`Resolver`] rules from the located file's folder, then from
//!    the folder above it (its `UserFile` rule and its file-name search).
//!
//! A slot stays listed until it is filled: an actor's model is found once
//! the actor (the same name at the same place) wears a model file; an
//! accessory once its path is no longer the stored one.

use std::path::{Path, PathBuf};

use crate::scene::{ModelRef, Scene};
use crate::winpath::{Resolver, fold, split, walk};
use crate::workspace::{DocId, Intent, SceneEvent};

/// Where a missing file belongs in the scene a project opened as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// Actor `n`'s model.
    ActorModel(usize),
    /// Accessory `n` of the set.
    Accessory(usize),
}

/// A file the project names that was not found.
#[derive(Debug, Clone, PartialEq)]
pub struct MissingFile {
    pub slot: Slot,
    /// The actor's or accessory's name (as the scene lists it).
    pub name: String,
    /// The path as the project stores it (Windows, as MMD wrote it).
    pub stored: String,
    /// What the slot holds while the file is missing (an accessory keeps
    /// its stored path; an actor the built-in skeleton).
    pub placeholder: PathBuf,
}

/// What opening a project left for the user to see: the files not found,
/// and what the project holds that the scene does not use.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProjectReport {
    /// The project file.
    pub project: PathBuf,
    pub missing: Vec<MissingFile>,
    /// Held by the project, not used by the scene (one line each).
    pub ignored: Vec<String>,
}

/// The steps that put located files into their slots.
#[derive(Debug, Default)]
pub struct Located {
    /// Apply in order (each an undo step).
    pub events: Vec<SceneEvent>,
    /// Files to load, for the role given.
    pub opens: Vec<(PathBuf, Intent)>,
    /// The other slots found beside the located file: (name, path).
    pub also_found: Vec<(String, PathBuf)>,
}

impl MissingFile {
    /// What the user is told when the project opens.
    pub fn message(&self) -> String {
        match self.slot {
            Slot::ActorModel(i) => format!(
                "model {} not found ({}); the actor keeps its motion on the built-in skeleton \
                 (Locate… in the scene panel)",
                i + 1,
                self.stored
            ),
            Slot::Accessory(_) => format!(
                "accessory {} not found ({}); it stays in the set with its keys, not drawn \
                 (Locate… in the scene panel)",
                self.name, self.stored
            ),
        }
    }

    /// Whether the slot still waits for its file in `scene`.
    pub fn still_missing(&self, scene: &Scene<DocId>) -> bool {
        match self.slot {
            Slot::ActorModel(i) => scene
                .actors
                .get(i)
                .is_some_and(|a| a.name == self.name && a.model == ModelRef::Builtin),
            Slot::Accessory(i) => scene
                .set
                .accessories
                .get(i)
                .is_some_and(|a| a.path == self.placeholder),
        }
    }

    /// The events and loads that put `file` into this slot.
    fn fill(&self, file: PathBuf, out: &mut Located) {
        match self.slot {
            Slot::ActorModel(i) => out.opens.push((file, Intent::ActorModel(i))),
            Slot::Accessory(i) => {
                out.events
                    .push(SceneEvent::SetAccessoryFile(i, file.clone()));
                out.opens.push((file, Intent::SetPiece));
            }
        }
    }
}

impl ProjectReport {
    /// The files still missing in `scene`.
    pub fn open_items<'a>(
        &'a self,
        scene: &'a Scene<DocId>,
    ) -> impl Iterator<Item = &'a MissingFile> + 'a {
        self.missing.iter().filter(move |m| m.still_missing(scene))
    }

    /// The user located `file` for `slot`: the steps that put it there and
    /// every other still-missing file found beside it (module docs).
    pub fn located(&self, scene: &Scene<DocId>, slot: Slot, file: &Path) -> Located {
        let mut out = Located::default();
        let Some(this) = self.missing.iter().find(|m| m.slot == slot) else {
            return out;
        };
        this.fill(file.to_path_buf(), &mut out);
        let moved = Move::between(&this.stored, file);
        let near = Resolver::for_file(file);
        let above = file
            .parent()
            .and_then(Path::parent)
            .filter(|d| !d.as_os_str().is_empty())
            .map(|d| Resolver::in_folder(d.to_path_buf()));
        for other in self.open_items(scene).filter(|m| m.slot != slot) {
            let found = moved
                .as_ref()
                .and_then(|mv| mv.apply(&other.stored))
                .or_else(|| near.resolve(&other.stored).path)
                .or_else(|| above.as_ref().and_then(|r| r.resolve(&other.stored).path));
            if let Some(f) = found {
                out.also_found.push((other.name.clone(), f.clone()));
                other.fill(f, &mut out);
            }
        }
        out
    }
}

/// Where the project's folders went: the stored prefix and the real one.
struct Move {
    old: Vec<String>,
    new: PathBuf,
}

impl Move {
    /// From a stored path and the file the user located for it: the
    /// folders before their common tail (at least the file name).
    fn between(stored: &str, located: &Path) -> Option<Move> {
        let old = split(stored);
        let real: Vec<String> = located
            .iter()
            .map(|c| c.to_string_lossy().into_owned())
            .collect();
        let shared = old
            .iter()
            .rev()
            .zip(real.iter().rev())
            .take_while(|(a, b)| fold(a) == fold(b))
            .count();
        if shared == 0 {
            return None;
        }
        let new: PathBuf = real[..real.len() - shared].iter().collect();
        Some(Move {
            old: old[..old.len() - shared].iter().map(|s| fold(s)).collect(),
            new,
        })
    }

    /// `stored` with the old folders replaced by the new ones, if it began
    /// with them and the result is a file.
    fn apply(&self, stored: &str) -> Option<PathBuf> {
        let parts = split(stored);
        if parts.len() <= self.old.len() || !parts.iter().zip(&self.old).all(|(a, b)| fold(a) == *b)
        {
            return None;
        }
        walk(&self.new, &parts[self.old.len()..])
    }
}
