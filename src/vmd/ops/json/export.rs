//! VMD → JSON, in MMD coordinates with raw bytes, or right-handed.

use super::document::{
    BoneCurves, BoneJson, CameraCurves, CameraJson, F32, IkEntryJson, IkJson, LightJson, MorphJson,
    ShadowJson, VmdJson, f3, f4, neg, to_hex,
};
use super::{COORDS_MMD, COORDS_RH, FORMAT};
use crate::vmd::camera::{camera_orientation, eye_position};
use crate::vmd::evaluate::is_cut;
use crate::vmd::layout::{self, HEADER_LEN, IK_NAME_LEN};
use crate::vmd::motion::Motion;
use crate::vmd::ops::report::{OpError, Report};
use crate::vmd::records::{BoneKey, CameraKey, IkKey};
use crate::vmd::track::TrackIndex;

/// Options of [`export_json`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ExportOptions {
    /// Convert to right-handed coordinates (three.js style).
    pub right_handed: bool,
    /// Indented output.
    pub pretty: bool,
}

fn z_flip(v: [f32; 3]) -> [f32; 3] {
    [v[0], v[1], neg(v[2])]
}
fn quat_rh(q: [f32; 4]) -> [f32; 4] {
    [neg(q[0]), neg(q[1]), q[2], q[3]]
}

/// Builds the document (for the GUI and [`export_json`]).
pub fn export_document(m: &Motion, opts: ExportOptions) -> VmdJson {
    let rh = opts.right_handed;
    let idx = TrackIndex::build(m);
    let mut cut = vec![false; m.cameras.len()];
    for w in idx.camera.windows(2) {
        let (a, b) = (&m.cameras[w[0] as usize], &m.cameras[w[1] as usize]);
        if is_cut(a.frame(), b.frame()) {
            cut[w[1] as usize] = true;
        }
    }
    let header_end = m.header.iter().position(|&b| b == 0).unwrap_or(HEADER_LEN);
    VmdJson {
        format: FORMAT.into(),
        format_version: 1,
        coordinates: if rh { COORDS_RH } else { COORDS_MMD }.into(),
        version: m.version.number(),
        header_text: String::from_utf8_lossy(&m.header[..header_end]).into_owned(),
        header_hex: Some(to_hex(&m.header)),
        model_name: m.model_name().text,
        model_name_hex: Some(to_hex(&m.model_name_field)),
        sections_present: m.sections_present,
        trailing_hex: to_hex(&m.trailing),
        bones: m.bones.iter().map(|k| export_bone(k, rh)).collect(),
        morphs: m
            .morphs
            .iter()
            .map(|k| MorphJson {
                name: k.name().text,
                name_hex: Some(to_hex(k.name_field())),
                frame: k.frame(),
                weight: F32(k.weight()),
            })
            .collect(),
        cameras: m
            .cameras
            .iter()
            .enumerate()
            .map(|(i, k)| export_camera(k, cut[i], rh))
            .collect(),
        lights: m
            .lights
            .iter()
            .map(|k| LightJson {
                frame: k.frame(),
                color: f3(k.color()),
                direction: f3(if rh {
                    z_flip(k.direction())
                } else {
                    k.direction()
                }),
            })
            .collect(),
        shadows: m
            .shadows
            .iter()
            .map(|k| ShadowJson {
                frame: k.frame(),
                mode: k.mode(),
                distance: F32(k.distance()),
            })
            .collect(),
        iks: m.iks.iter().map(export_ik).collect(),
    }
}

/// One bone key (converted when `rh`).
fn export_bone(k: &BoneKey, rh: bool) -> BoneJson {
    let c = k.curves();
    let (p, q) = (k.position(), k.rotation());
    BoneJson {
        name: k.name().text,
        name_hex: Some(to_hex(k.name_field())),
        frame: k.frame(),
        position: f3(if rh { z_flip(p) } else { p }),
        rotation: f4(if rh { quat_rh(q) } else { q }),
        curves: BoneCurves {
            x: c[0],
            y: c[1],
            z: c[2],
            rotation: c[3],
        },
        interpolation_hex: Some(to_hex(&k.interpolation_block())),
        physics_off: k.physics_off(),
    }
}

/// One camera key (converted when `rh`); `cut`: it starts a cut.
fn export_camera(k: &CameraKey, cut: bool, rh: bool) -> CameraJson {
    let c = k.curves();
    let (t, r, d) = (k.target(), k.rotation(), k.distance());
    let eye = eye_position(t, r, d);
    let q = camera_orientation(r).to_array();
    CameraJson {
        frame: k.frame(),
        distance: F32(d),
        target: f3(if rh { z_flip(t) } else { t }),
        rotation: (!rh).then(|| f3(r)),
        orientation: if rh { quat_rh(q) } else { q },
        eye: if rh { z_flip(eye) } else { eye },
        cut,
        curves: CameraCurves {
            target_x: c[0],
            target_y: c[1],
            target_z: c[2],
            rotation: c[3],
            distance: c[4],
            fov: c[5],
        },
        interpolation_hex: Some(to_hex(&k.interpolation_block())),
        fov: k.fov(),
        perspective: k.perspective(),
        perspective_byte: Some(k.perspective_byte()),
    }
}

/// One IK/show key, with the raw show and enabled bytes.
fn export_ik(k: &IkKey) -> IkJson {
    IkJson {
        frame: k.frame(),
        show: k.show(),
        show_byte: Some(k.raw[4]),
        entries: (0..k.entry_count())
            .map(|i| IkEntryJson {
                name: k.entry_name(i).text,
                name_hex: Some(to_hex(k.entry_name_field(i))),
                enabled: k.entry_enabled(i),
                enabled_byte: Some(
                    k.raw[layout::IK_KEY_HEAD_LEN + i * layout::IK_ENTRY_LEN + IK_NAME_LEN],
                ),
            })
            .collect(),
    }
}

/// Exports as JSON text; see the module docs.
pub fn export_json(m: &Motion, opts: ExportOptions) -> Result<(String, Report), OpError> {
    let doc = export_document(m, opts);
    let text = if opts.pretty {
        serde_json::to_string_pretty(&doc)
    } else {
        serde_json::to_string(&doc)
    }
    .map_err(|e| OpError::BadInput(format!("JSON export failed: {e}")))?;
    let mut r = Report::new();
    r.note(format!(
        "exported {} bone, {} morph, {} camera, {} light, {} self-shadow and {} IK/show keys",
        m.bones.len(),
        m.morphs.len(),
        m.cameras.len(),
        m.lights.len(),
        m.shadows.len(),
        m.iks.len()
    ));
    if opts.right_handed {
        r.note("right-handed: positions and eye/target (x, y, −z), quaternions (−x, −y, z, w), camera orientation from Ry(−ry)·Rx(−rx)·Rz(−rz) conjugated by the z-flip (looks along local −Z); this file cannot be imported back");
    } else {
        r.note("MMD coordinates with raw bytes: import-json gives back the identical VMD");
    }
    Ok((text, r))
}
