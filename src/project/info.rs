//! What a project holds, for people and scripts (`vmd-studio
//! project-info`): models with their paths as stored and as found here,
//! key counts per kind, the song, the background, the settings, the files
//! still missing, what the scene will not use and every warning.

use serde::Serialize;

use super::convert::{Unreached, model_lists};
use super::document::*;
use super::links;
use super::paths::{Found, Resolver};
use crate::model::physics::SimulationMode;

/// A path as stored and where it was found.
#[derive(Debug, Clone, Serialize)]
pub struct FileInfo {
    pub original: String,
    pub resolved: Option<String>,
    pub found: Option<Found>,
}

impl FileInfo {
    fn of(text: &PmmText, r: &Resolver) -> FileInfo {
        let res = r.resolve(&text.text);
        FileInfo {
            original: text.text.clone(),
            resolved: res.path.map(|p| p.display().to_string()),
            found: res.found,
        }
    }
}

/// Keys per kind of a model, as the ordered lists hold them.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct ModelKeyCounts {
    pub bone: usize,
    pub morph: usize,
    /// Display/IK keys (with outside parents in v2).
    pub model: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct ModelInfo {
    pub name: String,
    pub path: FileInfo,
    pub bones: usize,
    pub morphs: usize,
    pub ik_bones: usize,
    pub keys: ModelKeyCounts,
    /// Pool records no list reaches (left over from edits in MMD).
    pub unreached: Unreached,
}

#[derive(Debug, Clone, Serialize)]
pub struct AccessoryInfo {
    pub name: String,
    pub path: FileInfo,
    pub keys: usize,
    pub unreached: usize,
}

/// A background image or video.
#[derive(Debug, Clone, Serialize)]
pub struct Background {
    pub file: FileInfo,
    pub enabled: bool,
    pub offset: [i32; 2],
    pub scale: f32,
}

#[derive(Debug, Clone, Serialize)]
pub struct SettingsInfo {
    pub output_size: [i32; 2],
    pub fps: Option<f32>,
    /// Play range, frames, when set in MMD.
    pub begin_frame: Option<i32>,
    pub end_frame: Option<i32>,
    pub physics: Option<String>,
    pub gravity: Option<GravityInfo>,
    pub self_shadow: Option<(bool, f32)>,
    /// 0..255 each.
    pub edge_color: Option<[i32; 3]>,
    pub ground_shadow: Option<bool>,
    pub ground_shadow_brightness: Option<f32>,
    pub translucent_ground_shadow: Option<bool>,
    pub black_background: Option<bool>,
}

#[derive(Debug, Clone, Serialize)]
pub struct GravityInfo {
    pub acceleration: f32,
    pub direction: [f32; 3],
    pub noise: Option<i32>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ProjectInfo {
    pub version: u8,
    pub models: Vec<ModelInfo>,
    pub camera_keys: usize,
    pub light_keys: usize,
    pub self_shadow_keys: usize,
    pub gravity_keys: usize,
    pub accessories: Vec<AccessoryInfo>,
    pub song: Option<FileInfo>,
    pub background_image: Option<Background>,
    pub background_video: Option<Background>,
    pub settings: SettingsInfo,
    /// Stored paths that point at no file here.
    pub missing_files: Vec<String>,
    /// What the project holds that the scene does not use.
    pub ignored: Vec<String>,
    pub warnings: Vec<String>,
}

/// The scene's physics mode for MMD's stored one (nanoem's
/// `nanoem_document_physics_simulation_mode_t` order).
pub fn physics_mode(stored: u8) -> Option<SimulationMode> {
    match stored {
        0 => Some(SimulationMode::Off),
        1 => Some(SimulationMode::Always),
        2 => Some(SimulationMode::Play),
        3 => Some(SimulationMode::Trace),
        _ => None,
    }
}

fn non_empty(t: &PmmText) -> bool {
    !t.text.trim().is_empty()
}

/// Warnings and "not used" notes gathered while summarizing.
#[derive(Default)]
struct Notes {
    ignored: Vec<String>,
    warnings: Vec<String>,
}

impl Notes {
    fn lists(&mut self, l: &links::Lists) {
        self.warnings
            .extend(l.warnings.iter().map(ToString::to_string));
    }
}

fn model_infos(p: &Project, r: &Resolver, n: &mut Notes) -> Vec<ModelInfo> {
    let mut models = Vec::new();
    for (i, m) in p.models.iter().enumerate() {
        let [b, mo, k] = model_lists(m, i);
        [&b, &mo, &k].into_iter().for_each(|l| n.lists(l));
        let op = k
            .lists
            .iter()
            .flatten()
            .filter_map(|&at| m.model_keys.get(at))
            .filter(|r| r.value.outside_parents.iter().any(|&(mi, _)| mi >= 0))
            .count();
        if op > 0 {
            n.ignored.push(format!(
                "model {i} ({}): {op} display/IK keys set outside parents (not kept in VMD)",
                m.name.text
            ));
        }
        let stale = b.unreached + mo.unreached + k.unreached;
        if stale > 0 {
            n.ignored.push(format!(
                "model {i} ({}): {stale} stale key records no list reaches",
                m.name.text
            ));
        }
        models.push(ModelInfo {
            name: m.name.text.clone(),
            path: FileInfo::of(&m.path, r),
            bones: m.bone_names.len(),
            morphs: m.morph_names.len(),
            ik_bones: m.ik_bones.len(),
            keys: ModelKeyCounts {
                bone: b.key_count(),
                morph: mo.key_count(),
                model: k.key_count(),
            },
            unreached: Unreached {
                bone: b.unreached,
                morph: mo.unreached,
                model: k.unreached,
                ..Unreached::default()
            },
        });
    }
    models
}

/// Keys in the ordered lists of a scene track (`None`: not read).
fn track_keys<T>(k: Option<&KeyPool<T>>, what: &str, n: &mut Notes) -> usize {
    let Some(k) = k else { return 0 };
    let l = links::follow(k, |_| what.to_owned());
    n.lists(&l);
    if l.unreached > 0 {
        n.ignored.push(format!(
            "{what}: {} stale key records no list reaches",
            l.unreached
        ));
    }
    l.key_count()
}

fn settings_info(p: &Project) -> SettingsInfo {
    let s = p.settings.as_ref();
    let v2 = p.version == PmmVersion::V2;
    SettingsInfo {
        output_size: p.output_size,
        fps: s.map(|s| s.fps),
        begin_frame: s.filter(|s| s.begin_enabled).map(|s| s.begin_frame),
        end_frame: s.filter(|s| s.end_enabled).map(|s| s.end_frame),
        physics: s
            .filter(|_| v2)
            .map(|s| match physics_mode(s.physics_mode) {
                Some(m) => format!("{m:?}"),
                None => format!("unknown ({})", s.physics_mode),
            }),
        gravity: p.gravity.as_ref().map(|g| GravityInfo {
            acceleration: g.acceleration,
            direction: g.direction,
            noise: g.noise_on.then_some(g.noise),
        }),
        self_shadow: p.self_shadow.as_ref().map(|s| (s.enabled, s.distance)),
        edge_color: p.tail.as_ref().map(|t| t.edge_color),
        ground_shadow: s.map(|s| s.ground_shadow),
        ground_shadow_brightness: s.map(|s| s.ground_shadow_brightness),
        translucent_ground_shadow: s.filter(|_| v2).map(|s| s.translucent_ground_shadow),
        black_background: p.tail.as_ref().map(|t| t.black_background),
    }
}

fn background(
    path: &PmmText,
    enabled: bool,
    offset: [i32; 2],
    scale: f32,
    r: &Resolver,
) -> Option<Background> {
    non_empty(path).then(|| Background {
        file: FileInfo::of(path, r),
        enabled,
        offset,
        scale,
    })
}

/// Summarizes `p`; paths are resolved with `r` (the project's folder).
pub fn info(p: &Project, r: &Resolver) -> ProjectInfo {
    let mut n = Notes {
        warnings: p.warnings.iter().map(ToString::to_string).collect(),
        ..Notes::default()
    };
    let models = model_infos(p, r, &mut n);
    let camera_keys = track_keys(p.camera.as_ref().map(|c| &c.keys), "camera", &mut n);
    let light_keys = track_keys(p.light.as_ref().map(|c| &c.keys), "light", &mut n);
    let self_shadow_keys = track_keys(
        p.self_shadow.as_ref().map(|c| &c.keys),
        "self-shadow",
        &mut n,
    );
    let gravity_keys = track_keys(p.gravity.as_ref().map(|c| &c.keys), "gravity", &mut n);
    if let Some(c) = &p.camera {
        let follow = c
            .keys
            .initial
            .iter()
            .chain(&c.keys.pool)
            .filter(|r| r.value.follow.is_some_and(|(mi, _)| mi >= 0))
            .count();
        if follow > 0 {
            n.ignored.push(format!(
                "camera: {follow} key records follow a model's bone (not kept in VMD)"
            ));
        }
    }
    if gravity_keys > 1 {
        n.ignored.push(format!(
            "gravity: {gravity_keys} keys (the scene has one gravity)"
        ));
    }
    let mut accessories = Vec::new();
    for a in &p.accessories {
        let l = links::follow(&a.keys, |_| format!("accessory {}", a.name.text));
        n.lists(&l);
        accessories.push(AccessoryInfo {
            name: a.name.text.clone(),
            path: FileInfo::of(&a.path, r),
            keys: l.key_count(),
            unreached: l.unreached,
        });
    }
    let s = p.settings.as_ref();
    let song = s
        .filter(|s| non_empty(&s.audio_path))
        .map(|s| FileInfo::of(&s.audio_path, r));
    let background_image = s.and_then(|s| {
        background(
            &s.image_path,
            s.image_enabled,
            s.image_offset,
            s.image_scale,
            r,
        )
    });
    let background_video = s.and_then(|s| {
        background(
            &s.video_path,
            s.video_enabled != 0,
            s.video_offset,
            s.video_scale,
            r,
        )
    });
    if background_image.is_some() || background_video.is_some() {
        n.ignored
            .push("background image/video (the scene has no background yet)".to_owned());
    }
    if let Some(s) = s {
        n.ignored.push(view_settings(p, s));
    }
    if !p.trailing.is_empty() {
        n.ignored.push(format!(
            "{} bytes after the last known field",
            p.trailing.len()
        ));
    }
    let mut missing_files = Vec::new();
    let files = models
        .iter()
        .map(|m| &m.path)
        .chain(accessories.iter().map(|a| &a.path))
        .chain(song.iter())
        .chain(background_image.iter().map(|b| &b.file))
        .chain(background_video.iter().map(|b| &b.file));
    for f in files {
        if f.resolved.is_none() && !f.original.is_empty() {
            missing_files.push(f.original.clone());
        }
    }
    ProjectInfo {
        version: p.version.number(),
        models,
        camera_keys,
        light_keys,
        self_shadow_keys,
        gravity_keys,
        accessories,
        song,
        background_image,
        background_video,
        settings: settings_info(p),
        missing_files,
        ignored: n.ignored,
        warnings: n.warnings,
    }
}

/// The project's look settings, which the scene does not take (the
/// preview and exports use their own): one line naming their values.
fn view_settings(p: &Project, s: &PmmSettings) -> String {
    let [w, h] = p.output_size;
    let shadow = if s.ground_shadow {
        format!(
            "on at {:.0} % brightness{}",
            s.ground_shadow_brightness * 100.0,
            if s.translucent_ground_shadow {
                ", translucent"
            } else {
                ""
            }
        )
    } else {
        "off".to_owned()
    };
    let mut out = format!(
        "look settings: output {w}x{h} at {} fps, ground shadow {shadow}, grid {}",
        s.fps,
        if s.show_grid_and_axis {
            "shown"
        } else {
            "hidden"
        }
    );
    if let Some(t) = &p.tail {
        let [r, g, b] = t.edge_color;
        out.push_str(&format!(", edge colour {r},{g},{b}"));
        if t.black_background {
            out.push_str(", black background");
        }
    }
    out.push_str(" (the preview and exports use their own)");
    out
}
