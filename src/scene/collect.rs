//! Collect a scene into one folder (File ▸ Collect scene into folder…,
//! `export-scene`): every motion written as a VMD under `motions/`, every
//! model, stage and accessory copied with the textures it names (kept at
//! their paths relative to the model, as the renderer finds them) under
//! `models/` and `set/`, the song under `song/`, the background under
//! `background/`, and a `.vmdscene` whose paths are relative to it — so the
//! folder opens on any machine. Nothing is written when a file it would
//! write is there already; what cannot be copied is named.

use std::collections::{HashMap, HashSet};
use std::hash::Hash;
use std::path::{Component, Path, PathBuf};

use super::{ModelRef, Scene};

/// Where a collected file's bytes come from.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// A file on disk, copied as it is.
    File(PathBuf),
    /// Bytes made here (a motion with unsaved edits, written as VMD).
    Bytes(Vec<u8>),
}

/// What collecting will write: the scene as it will read from the folder,
/// each file to write, and what is left out (named).
#[derive(Debug, Clone)]
pub struct CollectPlan {
    /// The scene with every path pointing into the folder (paths of files
    /// not found are kept as they were).
    pub scene: Scene<PathBuf>,
    /// `<folder>/<stem>.vmdscene`.
    pub scene_path: PathBuf,
    /// Target path and source, in writing order.
    pub files: Vec<(PathBuf, Source)>,
    /// What is not collected, one line each (a file not found, a texture
    /// outside its model's folder, a motion with no bytes).
    pub left_out: Vec<String>,
}

/// A file name made safe on every system (`\ / : * ? " < > |` and control
/// characters become `_`); `fallback` when nothing is left.
pub fn safe_file_name(name: &str, fallback: &str) -> String {
    let s: String = name
        .trim()
        .chars()
        .map(|c| {
            if c.is_control() || "\\/:*?\"<>|".contains(c) {
                '_'
            } else {
                c
            }
        })
        .collect();
    let s = s.trim_matches(['.', ' ']).to_owned();
    if s.is_empty() { fallback.to_owned() } else { s }
}

/// `base` or, when it is taken, `base_2`, `base_3`, … (with `ext` after).
fn unique(taken: &mut HashSet<PathBuf>, dir: &Path, base: &str, ext: &str) -> PathBuf {
    let mut n = 1;
    loop {
        let name = if n == 1 {
            format!("{base}{ext}")
        } else {
            format!("{base}_{n}{ext}")
        };
        let p = dir.join(name);
        if taken.insert(p.clone()) {
            return p;
        }
        n += 1;
    }
}

/// A model (PMX, PMD or `.x`) and the textures it names, as copies into
/// `dir`: the model file at `dir/<its file name>`, each texture found (by
/// [`crate::model::texture::resolve_texture_path`]) at its relative path
/// below `dir`, or by its file name when the model names it by an absolute
/// path (the renderer looks there too). Returns the model's new path, the
/// copies (target, source), and the textures left out.
pub fn model_files(model: &Path, dir: &Path) -> (PathBuf, Vec<(PathBuf, PathBuf)>, Vec<String>) {
    let to = dir.join(model.file_name().unwrap_or_default());
    let mut copies = vec![(to.clone(), model.to_path_buf())];
    let mut left_out = Vec::new();
    let read = std::fs::read(model)
        .ok()
        .and_then(|b| crate::model::read_set_piece(model, &b).ok());
    let Some(m) = read else {
        return (to, copies, left_out);
    };
    let from_dir = model.parent().unwrap_or(Path::new("."));
    let mut seen = HashSet::new();
    for t in &m.textures {
        if t.trim().is_empty() || !seen.insert(t.clone()) {
            continue;
        }
        let Some(src) = crate::model::texture::resolve_texture_path(from_dir, t) else {
            left_out.push(format!("{}: texture {t} not found", model.display()));
            continue;
        };
        let normal = t.trim().replace('\\', "/");
        let rel = Path::new(&normal);
        let drive = normal.as_bytes().get(1) == Some(&b':');
        let below = rel
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
        let dst = if rel.is_absolute() || drive {
            dir.join(src.file_name().unwrap_or_default())
        } else if below {
            dir.join(rel)
        } else {
            left_out.push(format!(
                "{}: texture {t} is outside the model's folder; not copied",
                model.display()
            ));
            continue;
        };
        if !copies.iter().any(|(d, _)| *d == dst) {
            copies.push((dst, src));
        }
    }
    (to, copies, left_out)
}

/// Plans collecting `scene` into `dir` as `<stem>.vmdscene`. `motion` gives
/// each motion handle's name (the VMD's file name is made from it) and its
/// bytes; `None` leaves that motion out (named).
pub fn plan<H: Clone + Eq + Hash>(
    scene: &Scene<H>,
    dir: &Path,
    stem: &str,
    mut motion: impl FnMut(&H) -> Option<(String, Source)>,
) -> CollectPlan {
    let stem = safe_file_name(stem, "scene");
    let mut taken = HashSet::new();
    let mut files: Vec<(PathBuf, Source)> = Vec::new();
    let mut left_out = Vec::new();

    // Motions: the camera, the light, the actors' and props' motions.
    let mut handles = scene.motions();
    for p in &scene.set.props {
        if let Some(h) = &p.motion
            && !handles.contains(h)
        {
            handles.push(h.clone());
        }
    }
    let mut motion_paths: HashMap<H, PathBuf> = HashMap::new();
    let motions_dir = dir.join("motions");
    for h in handles {
        let Some((name, src)) = motion(&h) else {
            left_out.push("a motion the scene names is not open; left out".to_owned());
            continue;
        };
        let base = name
            .strip_suffix(".vmd")
            .or_else(|| name.strip_suffix(".VMD"))
            .unwrap_or(name.as_str());
        let to = unique(
            &mut taken,
            &motions_dir,
            &safe_file_name(base, "motion"),
            ".vmd",
        );
        files.push((to.clone(), src));
        motion_paths.insert(h, to);
    }
    let mut out = scene.map(|h| motion_paths.get(h).cloned());

    // Models, stages and accessories: each source file copied once.
    let mut copied: HashMap<PathBuf, PathBuf> = HashMap::new();
    let mut copy_model = |path: &Path,
                          under: &str,
                          files: &mut Vec<(PathBuf, Source)>,
                          left_out: &mut Vec<String>|
     -> PathBuf {
        if let Some(p) = copied.get(path) {
            return p.clone();
        }
        if !path.is_file() {
            left_out.push(format!(
                "{} not found; the scene keeps its path",
                path.display()
            ));
            return path.to_path_buf();
        }
        let base = path
            .file_stem()
            .map(|s| safe_file_name(&s.to_string_lossy(), "model"))
            .unwrap_or_else(|| "model".to_owned());
        let folder = unique(&mut taken, &dir.join(under), &base, "");
        let (to, copies, lost) = model_files(path, &folder);
        files.extend(copies.into_iter().map(|(t, s)| (t, Source::File(s))));
        left_out.extend(lost);
        copied.insert(path.to_path_buf(), to.clone());
        to
    };
    for a in &mut out.actors {
        if let ModelRef::File(p) = &a.model {
            a.model = ModelRef::File(copy_model(p, "models", &mut files, &mut left_out));
        }
    }
    for p in &mut out.set.props {
        p.path = copy_model(&p.path, "set", &mut files, &mut left_out);
    }
    for a in &mut out.set.accessories {
        a.path = copy_model(&a.path, "set", &mut files, &mut left_out);
    }

    // The song and the background: one file each.
    let copy_one = |path: &Path,
                    under: &str,
                    files: &mut Vec<(PathBuf, Source)>,
                    left_out: &mut Vec<String>|
     -> PathBuf {
        if !path.is_file() {
            left_out.push(format!(
                "{} not found; the scene keeps its path",
                path.display()
            ));
            return path.to_path_buf();
        }
        let to = dir.join(under).join(path.file_name().unwrap_or_default());
        if !files.iter().any(|(t, _)| *t == to) {
            files.push((to.clone(), Source::File(path.to_path_buf())));
        }
        to
    };
    if let Some(s) = &mut out.song {
        s.path = copy_one(&s.path, "song", &mut files, &mut left_out);
    }
    if let Some(i) = &mut out.set.background.image {
        i.path = copy_one(&i.path, "background", &mut files, &mut left_out);
    }
    if let Some(v) = &mut out.set.background.video {
        v.path = copy_one(&v.path, "background", &mut files, &mut left_out);
    }

    CollectPlan {
        scene: out,
        scene_path: dir.join(format!("{stem}.vmdscene")),
        files,
        left_out,
    }
}

impl CollectPlan {
    /// Writes every file, then the scene file, each through the one save
    /// routine (a file is whole or absent). Refuses, writing nothing, when
    /// any of them exists already. Returns the files written (the scene
    /// file last). On a failed write, says which files were written before.
    pub fn write(&self) -> Result<Vec<PathBuf>, String> {
        let targets = self
            .files
            .iter()
            .map(|(t, _)| t)
            .chain(std::iter::once(&self.scene_path));
        for t in targets {
            if t.exists() {
                return Err(format!(
                    "nothing collected: {} exists already; choose an empty folder",
                    t.display()
                ));
            }
        }
        let mut written = Vec::new();
        let failed = |written: &[PathBuf], what: String| {
            if written.is_empty() {
                what
            } else {
                format!("{what} (after writing {} files)", written.len())
            }
        };
        for (to, src) in &self.files {
            if let Some(d) = to.parent() {
                std::fs::create_dir_all(d)
                    .map_err(|e| failed(&written, format!("cannot create {}: {e}", d.display())))?;
            }
            let bytes = match src {
                Source::File(f) => std::fs::read(f)
                    .map_err(|e| failed(&written, format!("cannot read {}: {e}", f.display())))?,
                Source::Bytes(b) => b.clone(),
            };
            crate::vmd::write::save_bytes_atomic(to, &bytes)
                .map_err(|e| failed(&written, format!("{}: {e}", to.display())))?;
            written.push(to.clone());
        }
        super::file::save(&self.scene, &self.scene_path)
            .map_err(|e| failed(&written, e.to_string()))?;
        written.push(self.scene_path.clone());
        Ok(written)
    }
}
