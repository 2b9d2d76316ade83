//! `project-info` and `export-scene`: an MMD project (`.pmm`) without a
//! window.

use std::path::{Path, PathBuf};

use clap::Args;

use super::{CliError, CliResult};
use crate::project::info::{ProjectInfo, info, physics_mode};
use crate::project::scene::file_stem_safe;
use crate::project::{self, Project, Resolver};
use crate::scene::{self, ModelRef, Scene, Song};

#[derive(Debug, Args)]
pub struct ProjectInfoArgs {
    /// The MMD project (.pmm).
    pub file: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ExportSceneArgs {
    /// The MMD project (.pmm).
    pub file: PathBuf,
    /// Folder to write into (created if missing): each model's motion and
    /// the camera as VMD, the models with their textures, the song, and a
    /// `.vmdscene` with relative paths.
    #[arg(short, long)]
    pub output: PathBuf,
}

/// Reads a project (v1 models' shapes from their files).
pub fn load_project(path: &Path) -> Result<(Project, Resolver), CliError> {
    project::open(path).map_err(CliError)
}

pub fn project_info(a: ProjectInfoArgs) -> CliResult {
    let (p, r) = load_project(&a.file)?;
    let mut i = info(&p, &r);
    // MMD keeps the effects assigned in the project beside it (nanoem
    // `PMM::Context::loadEffectMetadata`): not used by the scene.
    let emm = a.file.with_extension("emm");
    if emm.is_file() {
        i.ignored
            .push(format!("effects ({}): not applied", emm.display()));
    }
    if a.json {
        out!("{}", serde_json::to_string_pretty(&i)?);
    } else {
        out_raw!("{}", text(&i));
    }
    Ok(())
}

fn found(f: &project::info::FileInfo) -> String {
    match &f.resolved {
        Some(p) => format!("{}\n      found: {p}", f.original),
        None => format!("{}\n      NOT FOUND", f.original),
    }
}

/// The text form of [`ProjectInfo`].
pub fn text(i: &ProjectInfo) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = writeln!(s, "MMD project v{}", i.version);
    let _ = writeln!(s, "models: {}", i.models.len());
    for (n, m) in i.models.iter().enumerate() {
        let _ = writeln!(s, "  {n}: {}", m.name);
        let _ = writeln!(s, "    path: {}", found(&m.path));
        let _ = writeln!(
            s,
            "    {} bones, {} morphs, {} IK bones; keys: {} bone, {} morph, {} display/IK",
            m.bones, m.morphs, m.ik_bones, m.keys.bone, m.keys.morph, m.keys.model
        );
    }
    let _ = writeln!(
        s,
        "camera keys: {}, light keys: {}, self-shadow keys: {}, gravity keys: {}",
        i.camera_keys, i.light_keys, i.self_shadow_keys, i.gravity_keys
    );
    let _ = writeln!(s, "accessories: {}", i.accessories.len());
    for a in &i.accessories {
        let _ = writeln!(s, "  {} ({} keys)", a.name, a.keys);
        let _ = writeln!(s, "    path: {}", found(&a.path));
    }
    match &i.song {
        Some(f) => {
            let _ = writeln!(s, "song: {}", found(f));
        }
        None => {
            let _ = writeln!(s, "song: none");
        }
    }
    for (what, b) in [
        ("background image", &i.background_image),
        ("background video", &i.background_video),
    ] {
        if let Some(b) = b {
            let _ = writeln!(s, "{what}: {}", found(&b.file));
        }
    }
    let st = &i.settings;
    let _ = writeln!(
        s,
        "output: {}x{}; fps {}; play range {:?}..{:?}; physics {}",
        st.output_size[0],
        st.output_size[1],
        st.fps.map_or("-".to_owned(), |f| f.to_string()),
        st.begin_frame,
        st.end_frame,
        st.physics.as_deref().unwrap_or("-")
    );
    let list = |s: &mut String, title: &str, items: &[String]| {
        let _ = writeln!(s, "{title}: {}", items.len());
        for x in items {
            let _ = writeln!(s, "  {x}");
        }
    };
    list(&mut s, "missing files", &i.missing_files);
    list(&mut s, "not used by the scene", &i.ignored);
    list(&mut s, "warnings", &i.warnings);
    s
}

/// Copies `from` to `to` through the one save routine (creating folders).
fn copy_file(from: &Path, to: &Path) -> Result<(), CliError> {
    if let Some(d) = to.parent() {
        std::fs::create_dir_all(d)
            .map_err(|e| CliError(format!("cannot create {}: {e}", d.display())))?;
    }
    let bytes = std::fs::read(from)
        .map_err(|e| CliError(format!("cannot read {}: {e}", from.display())))?;
    crate::vmd::save::save_bytes(to, &bytes).map_err(|e| CliError(e.to_string()))?;
    Ok(())
}

/// Copies a model and the textures it names (found as the renderer finds
/// them; [`crate::scene::collect::model_files`]) into `dir`, keeping their
/// paths relative to the model; a texture left out is named. Returns the
/// copied model's path and the files copied.
fn copy_model(model: &Path, dir: &Path) -> Result<(PathBuf, Vec<PathBuf>), CliError> {
    let (to, copies, left_out) = crate::scene::collect::model_files(model, dir);
    for l in left_out {
        eprintln!("warning: {l}");
    }
    let mut copied = Vec::new();
    for (dst, src) in copies {
        copy_file(&src, &dst)?;
        copied.push(dst);
    }
    Ok((to, copied))
}

pub fn export_scene(a: ExportSceneArgs) -> CliResult {
    let (p, r) = load_project(&a.file)?;
    let out = &a.output;
    std::fs::create_dir_all(out)
        .map_err(|e| CliError(format!("cannot create {}: {e}", out.display())))?;
    let stem = file_stem_safe(
        &a.file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
    );
    let mut scene: Scene<PathBuf> = Scene::default();
    let mut written = Vec::new();
    let mut notes = Vec::new();
    let mut taken = std::collections::HashSet::new();
    for (i, m) in p.models.iter().enumerate() {
        let mm = project::model_motion(m, i);
        notes.extend(mm.warnings.iter().map(ToString::to_string));
        let mut base = format!("{stem}_{}", file_stem_safe(&m.name.text));
        if !taken.insert(base.clone()) {
            base = format!("{base}_{i}");
            taken.insert(base.clone());
        }
        let vmd = out.join(format!("{base}.vmd"));
        super::save(&mm.motion, &vmd)?;
        written.push(vmd.clone());
        let mut actor = scene::Actor::new(m.name.text.clone());
        actor.motion = Some(vmd);
        match r.resolve(&m.path.text).path {
            Some(src) => {
                let (model, files) = copy_model(&src, &out.join("models").join(&base))?;
                actor.model = ModelRef::File(model);
                written.extend(files);
            }
            None => notes.push(format!("model {i}: {} not found", m.path.text)),
        }
        scene.actors.push(actor);
    }
    let cm = project::camera_motion(&p);
    notes.extend(cm.warnings.iter().map(ToString::to_string));
    let cam = out.join(format!("{stem}_camera.vmd"));
    super::save(&cm.motion, &cam)?;
    written.push(cam.clone());
    scene.camera = Some(cam.clone());
    scene.light = Some(cam);
    if let Some(s) = &p.settings {
        if !s.audio_path.text.is_empty() {
            match r.resolve(&s.audio_path.text).path {
                Some(src) => {
                    let to = out.join(src.file_name().unwrap_or_default());
                    copy_file(&src, &to)?;
                    written.push(to.clone());
                    scene.song = Some(Song {
                        path: to,
                        offset: 0,
                    });
                }
                None => notes.push(format!("song: {} not found", s.audio_path.text)),
            }
        }
        scene.preview.frame = u32::try_from(s.current_frame).unwrap_or(0);
        if p.version == project::PmmVersion::V2 {
            scene.preview.physics = physics_mode(s.physics_mode);
        }
    }
    // The accessories with their placement and keys; each file (with the
    // textures it names) copied under accessories/.
    let accs = project::set::accessories(&p, &r);
    for (i, (mut acc, found)) in accs.accessories.into_iter().zip(accs.found).enumerate() {
        if found {
            let dir = out.join("accessories").join(format!("{i}"));
            let (to, files) = copy_model(&acc.path, &dir)?;
            acc.path = to;
            written.extend(files);
        }
        scene.set.accessories.push(acc);
    }
    for (name, stored) in &accs.missing {
        notes.push(format!(
            "accessory {name}: {stored} not found (kept in the scene under that path)"
        ));
    }
    notes.extend(accs.warnings.iter().map(ToString::to_string));
    let scene_path = out.join(format!("{stem}.vmdscene"));
    scene::file::save(&scene, &scene_path).map_err(|e| CliError(e.to_string()))?;
    written.push(scene_path);
    out!("wrote {} files:", written.len());
    for w in &written {
        out!("  {}", w.display());
    }
    for n in &notes {
        out!("note: {n}");
    }
    Ok(())
}
