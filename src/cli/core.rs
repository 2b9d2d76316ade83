//! `inspect`, `sample`, `rewrite`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use clap::Args;
use serde::Serialize;

use super::{CliError, CliResult, load, save};
use crate::vmd::evaluate::{CameraState, LightState};
use crate::vmd::summary::summarize_reader;

#[derive(Debug, Args)]
pub struct InspectArgs {
    /// The VMD file.
    pub file: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct SampleArgs {
    /// The VMD file.
    pub file: PathBuf,
    /// Frame to evaluate (30 fps; fractional allowed, e.g. 12.5).
    #[arg(long, allow_negative_numbers = true)]
    pub frame: f64,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct RewriteArgs {
    /// The VMD file to read.
    pub input: PathBuf,
    /// Where to write it.
    #[arg(short, long)]
    pub output: PathBuf,
}

pub fn inspect(a: InspectArgs) -> CliResult {
    // Streamed: the bone keys are tallied as they are read, never held.
    let cannot = |e: std::io::Error| CliError(format!("cannot read {}: {e}", a.file.display()));
    let mut f = std::fs::File::open(&a.file).map_err(cannot)?;
    let len = f.metadata().map_err(cannot)?.len();
    let s = summarize_reader(&mut f, len)
        .map_err(cannot)?
        .map_err(|e| CliError(format!("{}: {e}", a.file.display())))?;
    if a.json {
        out!("{}", serde_json::to_string_pretty(&s)?);
    } else {
        out_raw!("{}", s.to_text());
    }
    Ok(())
}

#[derive(Debug, Serialize)]
pub struct BoneOut {
    pub position: [f32; 3],
    pub rotation: [f32; 4],
}

#[derive(Debug, Serialize)]
pub struct CameraOut {
    pub target: [f32; 3],
    pub rotation: [f32; 3],
    pub distance: f32,
    pub fov: f32,
    pub eye: [f32; 3],
    pub perspective: bool,
}

impl From<CameraState> for CameraOut {
    fn from(c: CameraState) -> Self {
        CameraOut {
            target: c.target,
            rotation: c.rotation,
            distance: c.distance,
            fov: c.fov,
            eye: c.eye,
            perspective: c.perspective,
        }
    }
}

#[derive(Debug, Serialize)]
pub struct SampleOut {
    pub frame: f64,
    pub bones: BTreeMap<String, BoneOut>,
    pub morphs: BTreeMap<String, f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub camera: Option<CameraOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub light: Option<LightState>,
}

/// A unique display key per track: the decoded name, or name + raw hex on a clash.
fn unique_name<T>(map: &BTreeMap<String, T>, text: String, raw: &[u8]) -> String {
    if !map.contains_key(&text) {
        return text;
    }
    let hex: String = raw.iter().map(|b| format!("{b:02x}")).collect();
    format!("{text} <{hex}>")
}

pub fn sample(a: SampleArgs) -> CliResult {
    if !a.frame.is_finite() || a.frame < 0.0 {
        return Err(CliError(format!(
            "--frame must be a frame number ≥ 0, got {}",
            a.frame
        )));
    }
    let motion = crate::vmd::IndexedMotion::new(load(&a.file)?);
    let idx = &motion.index;
    let s = motion.as_ref().sample(a.frame);
    let mut bones = BTreeMap::new();
    for (t, p) in idx.bones.iter().zip(&s.bones) {
        let key = unique_name(&bones, t.name().text, &t.name_key);
        bones.insert(
            key,
            BoneOut {
                position: p.position,
                rotation: p.rotation,
            },
        );
    }
    let mut morphs = BTreeMap::new();
    for (t, w) in idx.morphs.iter().zip(&s.morphs) {
        let key = unique_name(&morphs, t.name().text, &t.name_key);
        morphs.insert(key, *w);
    }
    let out = SampleOut {
        frame: a.frame,
        bones,
        morphs,
        camera: s.camera.map(CameraOut::from),
        light: s.light,
    };
    if a.json {
        out!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        out!("frame {}", out.frame);
        for (n, b) in &out.bones {
            out!(
                "bone  {n:<16} pos ({:.4}, {:.4}, {:.4})  rot ({:.5}, {:.5}, {:.5}, {:.5})",
                b.position[0],
                b.position[1],
                b.position[2],
                b.rotation[0],
                b.rotation[1],
                b.rotation[2],
                b.rotation[3]
            );
        }
        for (n, w) in &out.morphs {
            out!("morph {n:<16} {w:.4}");
        }
        if let Some(c) = &out.camera {
            out!(
                "camera target ({:.4}, {:.4}, {:.4}) rotation ({:.5}, {:.5}, {:.5}) distance {:.4} fov {:.3} eye ({:.4}, {:.4}, {:.4}) perspective {}",
                c.target[0],
                c.target[1],
                c.target[2],
                c.rotation[0],
                c.rotation[1],
                c.rotation[2],
                c.distance,
                c.fov,
                c.eye[0],
                c.eye[1],
                c.eye[2],
                c.perspective
            );
        }
        if let Some(l) = &out.light {
            out!(
                "light color ({:.4}, {:.4}, {:.4}) direction ({:.4}, {:.4}, {:.4})",
                l.color[0],
                l.color[1],
                l.color[2],
                l.direction[0],
                l.direction[1],
                l.direction[2]
            );
        }
    }
    Ok(())
}

pub fn rewrite(a: RewriteArgs) -> CliResult {
    let m = load(&a.input)?;
    save(&m, &a.output)?;
    Ok(())
}
