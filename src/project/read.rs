//! Bytes → [`Project`]. Never panics; every count is checked against the
//! bytes left before anything is allocated; offsets in every error.
//!
//! The layout follows nanoem's reader (hkrn/nanoem, MIT:
//! `nanoem/ext/document.c`, `nanoemDocumentParse` and the
//! `nanoemDocument*Parse` functions; sizes in `document_p.h`), checked
//! against mmd-anim (yohawing/mmd-anim, MIT:
//! `crates/mmd-anim-format/src/pmm.rs`, `read_document_*`) and
//! MikuMikuMethods (Inwerwm/MikuMikuMethods, MIT:
//! `MikuMikuMethods/Pmm/IO/PmmFileReader.cs`). Field by field in
//! `docs/pmm-format.md`.

use super::cursor::Cursor;
use super::document::*;
use super::error::{PmmError, PmmErrorKind, Warning, WarningKind};

pub const SIGNATURE_V1: &[u8] = b"Polygon Movie maker 0001";
pub const SIGNATURE_V2: &[u8] = b"Polygon Movie maker 0002";
/// Header field length (signature + NUL padding).
pub const HEADER_LEN: usize = 30;
/// Fixed path fields.
pub const PATH_LEN: usize = 256;
/// Fixed accessory-name fields.
pub const ACCESSORY_NAME_LEN: usize = 100;
/// Fixed model-name fields of v1.
pub const V1_MODEL_NAME_LEN: usize = 20;

/// Shared part of every key record: frame, prev, next (`i32` each).
const BASE_LEN: usize = 12;
/// A pool record's id.
const ID_LEN: usize = 4;

/// What a v1 project needs from each model file: v1 stores no bone or
/// morph lists (nanoem `nanoemDocumentModelParsePMMv1` loads the model).
/// Names as Shift_JIS bytes, in the model's order; `ik_bones` are the
/// bone indices of the IK bones in the model's IK order. Morphs include
/// PMD's "base" morph, as nanoem counts them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModelShape {
    pub bone_names: Vec<Vec<u8>>,
    pub morph_names: Vec<Vec<u8>>,
    pub ik_bones: Vec<i32>,
}

/// Reads a project. A v1 project reads up to its first model (see
/// [`read_with`]).
pub fn read(bytes: &[u8]) -> Result<Project, PmmError> {
    read_with(bytes, &mut |_, _| None)
}

/// Reads a project; `shape(model index, model path)` gives a v1 model's
/// bones, morphs and IK bones (v2 never asks). When it gives none, reading
/// stops before that model with a [`WarningKind::V1ModelShapeUnknown`]
/// and the rest of the file is kept in [`Project::trailing`].
pub fn read_with(
    bytes: &[u8],
    shape: &mut dyn FnMut(usize, &PmmText) -> Option<ModelShape>,
) -> Result<Project, PmmError> {
    // Anything that does not start like a PMM header is "not a project",
    // even when shorter than the header; a true prefix reads as truncated.
    let prefix = &SIGNATURE_V1[..SIGNATURE_V1.len() - 1];
    let n = bytes.len().min(prefix.len());
    if bytes[..n] != prefix[..n] {
        return Err(PmmError {
            offset: 0,
            kind: PmmErrorKind::NotPmm,
        });
    }
    let mut c = Cursor::new(bytes);
    let header: [u8; HEADER_LEN] = c.array("header")?;
    let version = if header.starts_with(SIGNATURE_V2) {
        PmmVersion::V2
    } else if header.starts_with(SIGNATURE_V1) {
        PmmVersion::V1
    } else {
        return Err(PmmError {
            offset: 0,
            kind: PmmErrorKind::NotPmm,
        });
    };
    let v2 = version == PmmVersion::V2;
    let output_size = [c.i32("output width")?, c.i32("output height")?];
    let timeline_width = c.i32("timeline width")?;
    let camera_fov = c.f32("camera field of view")?;
    let panel_flags = c.take(if v2 { 7 } else { 6 }, "panel flags")?.to_vec();
    let selected_model = c.u8("selected model")?;
    let model_count_at = c.offset();
    let model_count = c.u8("model count")?;
    let mut p = Project {
        version,
        header,
        output_size,
        timeline_width,
        camera_fov,
        panel_flags,
        selected_model,
        v1_model_names: Vec::new(),
        models: Vec::new(),
        camera: None,
        light: None,
        selected_accessory: 0,
        accessory_scroll: 0,
        accessory_names: Vec::new(),
        accessories: Vec::new(),
        settings: None,
        gravity: None,
        self_shadow: None,
        tail: None,
        trailing: Vec::new(),
        trailing_offset: 0,
        warnings: Vec::new(),
    };
    // A v2 model block is at least ~300 bytes; 1 byte each is a safe floor.
    let n = c.check_count(model_count_at, "model list", i64::from(model_count), 1)?;
    if !v2 {
        for _ in 0..n {
            p.v1_model_names
                .push(PmmText::new(c.take(V1_MODEL_NAME_LEN, "model name")?));
        }
    }
    for i in 0..n {
        let m = if v2 {
            Some(model_v2(&mut c)?)
        } else {
            model_v1(&mut c, i, shape, &mut p.warnings)?
        };
        match m {
            Some(m) => p.models.push(m),
            None => return Ok(stop(p, c)),
        }
    }
    p.camera = Some(camera(&mut c, v2)?);
    p.light = Some(light(&mut c)?);
    p.selected_accessory = c.u8("selected accessory")?;
    p.accessory_scroll = c.i32("accessory scroll")?;
    let count_at = c.offset();
    let count = c.u8("accessory count")?;
    let n = c.check_count(
        count_at,
        "accessory list",
        i64::from(count),
        ACCESSORY_NAME_LEN,
    )?;
    for _ in 0..n {
        p.accessory_names
            .push(PmmText::new(c.take(ACCESSORY_NAME_LEN, "accessory name")?));
    }
    for _ in 0..n {
        p.accessories.push(accessory(&mut c, v2)?);
    }
    p.settings = Some(settings(&mut c, v2)?);
    if v2 {
        p.gravity = Some(gravity(&mut c)?);
        p.self_shadow = Some(self_shadow(&mut c)?);
        p.tail = Some(tail(&mut c, p.models.len())?);
    }
    Ok(stop(p, c))
}

/// Keeps what is left as trailing bytes (with a warning when non-empty).
fn stop(mut p: Project, mut c: Cursor) -> Project {
    p.trailing_offset = c.offset();
    p.trailing = c.rest().to_vec();
    if !p.trailing.is_empty() {
        p.warnings.push(Warning {
            offset: p.trailing_offset,
            kind: WarningKind::TrailingBytes {
                len: p.trailing.len(),
            },
        });
    }
    p
}

/// A length-prefixed (`u8`) Shift_JIS string.
fn short_text(c: &mut Cursor, what: &'static str) -> Result<PmmText, PmmError> {
    let n = c.u8(what)?;
    Ok(PmmText::new(c.take(usize::from(n), what)?))
}

/// `count` (an `i32`) length-prefixed names, each at least 1 byte.
fn names(c: &mut Cursor, what: &'static str) -> Result<Vec<PmmText>, PmmError> {
    let n = c.count(what, 1)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        out.push(short_text(c, what)?);
    }
    Ok(out)
}

/// `count` (an `i32`) bone indices.
fn indices(c: &mut Cursor, what: &'static str) -> Result<Vec<i32>, PmmError> {
    let n = c.count(what, 4)?;
    (0..n).map(|_| c.i32(what)).collect()
}

/// One record: id (read for a pool record, `initial_id` otherwise),
/// frame, prev, next, then the kind's body, which returns the value and
/// the selection flag (its place in the record differs by kind).
fn record<T>(
    c: &mut Cursor,
    initial_id: Option<i32>,
    what: &'static str,
    body: &mut impl FnMut(&mut Cursor) -> Result<(T, bool), PmmError>,
) -> Result<Record<T>, PmmError> {
    let offset = c.offset();
    let id = match initial_id {
        Some(id) => id,
        None => c.i32(what)?,
    };
    let frame = c.i32(what)?;
    let prev = c.i32(what)?;
    let next = c.i32(what)?;
    let (value, selected) = body(c)?;
    Ok(Record {
        id,
        frame,
        prev,
        next,
        selected,
        value,
        offset,
    })
}

/// `n` initial records (ids 0..n) of `len` bytes each, checked first.
fn initial<T>(
    c: &mut Cursor,
    n: usize,
    len: usize,
    what: &'static str,
    mut body: impl FnMut(&mut Cursor) -> Result<(T, bool), PmmError>,
) -> Result<Vec<Record<T>>, PmmError> {
    c.check_count(c.offset(), what, n as i64, len)?;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        out.push(record(c, Some(i as i32), what, &mut body)?);
    }
    Ok(out)
}

/// A pool: an `i32` count, then that many records with ids; `len` is a
/// pool record's length (id included).
fn pool<T>(
    c: &mut Cursor,
    len: usize,
    what: &'static str,
    mut body: impl FnMut(&mut Cursor) -> Result<(T, bool), PmmError>,
) -> Result<Vec<Record<T>>, PmmError> {
    let n = c.count(what, len)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        out.push(record(c, None, what, &mut body)?);
    }
    Ok(out)
}

/// A pool of one track: one initial record, then the pool.
fn single_track<T>(
    c: &mut Cursor,
    len: usize,
    what: &'static str,
    mut body: impl FnMut(&mut Cursor) -> Result<(T, bool), PmmError>,
) -> Result<KeyPool<T>, PmmError> {
    let first = record(c, Some(0), what, &mut body)?;
    let pool = pool(c, len + ID_LEN, what, body)?;
    Ok(KeyPool {
        initial: vec![first],
        pool,
    })
}

fn bone_key(c: &mut Cursor, v2: bool) -> Result<(PmmBoneKey, bool), PmmError> {
    let what = "bone key";
    let curves = c.array::<16>(what)?;
    let position = c.f32s::<3>(what)?;
    let rotation = c.f32s::<4>(what)?;
    let selected = c.bool(what)?;
    let physics_off = if v2 { c.bool(what)? } else { false };
    let k = PmmBoneKey {
        curves,
        position,
        rotation,
        physics_off,
    };
    Ok((k, selected))
}

fn bone_key_len(v2: bool) -> usize {
    BASE_LEN + 16 + 12 + 16 + 1 + usize::from(v2)
}

fn morph_key(c: &mut Cursor) -> Result<(PmmMorphKey, bool), PmmError> {
    let weight = c.f32("morph key")?;
    Ok((PmmMorphKey { weight }, c.bool("morph key")?))
}

const MORPH_KEY_LEN: usize = BASE_LEN + 4 + 1;

fn model_key(
    c: &mut Cursor,
    iks: usize,
    ops: usize,
    v2: bool,
) -> Result<(PmmModelKey, bool), PmmError> {
    let what = "model key";
    let visible = c.bool(what)?;
    let ik_enabled = c.take(iks, what)?.iter().map(|&b| b != 0).collect();
    let mut outside_parents = Vec::new();
    if v2 {
        outside_parents.reserve_exact(ops);
        for _ in 0..ops {
            outside_parents.push((c.i32(what)?, c.i32(what)?));
        }
    }
    let selected = c.bool(what)?;
    Ok((
        PmmModelKey {
            visible,
            ik_enabled,
            outside_parents,
        },
        selected,
    ))
}

/// The model's key pools and editor states, common to v1 and v2 from the
/// initial bone keys on.
fn model_keys_and_states(c: &mut Cursor, m: &mut PmmModel, v2: bool) -> Result<(), PmmError> {
    let bones = m.bone_names.len();
    let morphs = m.morph_names.len();
    let iks = m.ik_bones.len();
    let ops = if v2 { m.outside_parent_bones.len() } else { 0 };
    let blen = bone_key_len(v2);
    m.bones = KeyPool {
        initial: initial(c, bones, blen, "initial bone keys", |c| bone_key(c, v2))?,
        pool: pool(c, blen + ID_LEN, "bone keys", |c| bone_key(c, v2))?,
    };
    m.morphs = KeyPool {
        initial: initial(c, morphs, MORPH_KEY_LEN, "initial morph keys", morph_key)?,
        pool: pool(c, MORPH_KEY_LEN + ID_LEN, "morph keys", morph_key)?,
    };
    let mlen = BASE_LEN + 1 + iks + 8 * ops + 1;
    m.model_keys = single_track(c, mlen, "model keys", |c| model_key(c, iks, ops, v2))?;
    let slen = if v2 { 31 } else { 34 };
    c.check_count(c.offset(), "bone states", bones as i64, slen)?;
    m.bone_states = (0..bones)
        .map(|_| bone_state(c, v2))
        .collect::<Result<_, _>>()?;
    c.check_count(c.offset(), "morph states", morphs as i64, 4)?;
    m.morph_states = (0..morphs)
        .map(|_| c.f32("morph state"))
        .collect::<Result<_, _>>()?;
    m.ik_states = c.take(iks, "IK states")?.iter().map(|&b| b != 0).collect();
    if v2 {
        c.check_count(c.offset(), "outside-parent states", ops as i64, 16)?;
        for _ in 0..ops {
            let what = "outside-parent state";
            m.outside_parent_states.push(OutsideParentState {
                begin: c.i32(what)?,
                end: c.i32(what)?,
                parent: (c.i32(what)?, c.i32(what)?),
            });
        }
    }
    Ok(())
}

fn bone_state(c: &mut Cursor, v2: bool) -> Result<BoneState, PmmError> {
    let what = "bone state";
    let position = c.f32s::<3>(what)?;
    let rotation = c.f32s::<4>(what)?;
    let mut s = BoneState {
        position,
        rotation,
        dirty: false,
        physics_off: false,
        selected_tracks: 0,
        v1_unknown: 0,
    };
    if v2 {
        s.dirty = c.bool(what)?;
        s.physics_off = c.bool(what)?;
    } else {
        s.v1_unknown = c.i32(what)?;
        s.dirty = c.bool(what)?;
    }
    s.selected_tracks = c.u8(what)?;
    Ok(s)
}

fn empty_model(offset: usize, index: u8) -> PmmModel {
    PmmModel {
        offset,
        index,
        name: PmmText::default(),
        name_en: PmmText::default(),
        path: PmmText::default(),
        fixed_tracks: 0,
        bone_names: Vec::new(),
        morph_names: Vec::new(),
        ik_bones: Vec::new(),
        outside_parent_bones: Vec::new(),
        draw_order: 0,
        visible: true,
        selected_bone: -1,
        selected_morphs: [-1; 4],
        expanded: Vec::new(),
        vertical_scroll: 0,
        last_frame: 0,
        bones: KeyPool::default(),
        morphs: KeyPool::default(),
        model_keys: KeyPool::default(),
        bone_states: Vec::new(),
        morph_states: Vec::new(),
        ik_states: Vec::new(),
        outside_parent_states: Vec::new(),
        blend: false,
        edge_width: 1.0,
        self_shadow: true,
        transform_order: 0,
    }
}

/// Display fields shared by v1 and v2, after the lists.
fn model_display(c: &mut Cursor, m: &mut PmmModel) -> Result<(), PmmError> {
    let what = "model";
    m.draw_order = c.u8(what)?;
    m.visible = c.bool(what)?;
    m.selected_bone = c.i32(what)?;
    for s in &mut m.selected_morphs {
        *s = c.i32(what)?;
    }
    let n = c.u8("display frame flags")?;
    m.expanded = c.take(usize::from(n), "display frame flags")?.to_vec();
    m.vertical_scroll = c.i32(what)?;
    m.last_frame = c.i32(what)?;
    Ok(())
}

/// A v2 model (nanoem `nanoemDocumentModelParsePMMv2`).
fn model_v2(c: &mut Cursor) -> Result<PmmModel, PmmError> {
    let offset = c.offset();
    let mut m = empty_model(offset, c.u8("model index")?);
    m.name = short_text(c, "model name")?;
    m.name_en = short_text(c, "model English name")?;
    m.path = PmmText::new(c.take(PATH_LEN, "model path")?);
    m.fixed_tracks = c.u8("model")?;
    m.bone_names = names(c, "bone names")?;
    m.morph_names = names(c, "morph names")?;
    m.ik_bones = indices(c, "IK bone indices")?;
    m.outside_parent_bones = indices(c, "outside-parent bone indices")?;
    model_display(c, &mut m)?;
    model_keys_and_states(c, &mut m, true)?;
    m.blend = c.bool("model")?;
    m.edge_width = c.f32("model")?;
    m.self_shadow = c.bool("model")?;
    m.transform_order = c.u8("model")?;
    Ok(m)
}

/// A v1 model (nanoem `nanoemDocumentModelParsePMMv1`): `None` when its
/// shape is not known (reading stops; a warning says why).
fn model_v1(
    c: &mut Cursor,
    i: usize,
    shape: &mut dyn FnMut(usize, &PmmText) -> Option<ModelShape>,
    warnings: &mut Vec<Warning>,
) -> Result<Option<PmmModel>, PmmError> {
    let offset = c.offset();
    let mut m = empty_model(offset, c.u8("model index")?);
    m.name = PmmText::new(c.take(V1_MODEL_NAME_LEN, "model name")?);
    m.path = PmmText::new(c.take(PATH_LEN, "model path")?);
    model_display(c, &mut m)?;
    let Some(s) = shape(i, &m.path) else {
        // The whole model block stays in the raw rest.
        c.rewind_to(offset);
        warnings.push(Warning {
            offset,
            kind: WarningKind::V1ModelShapeUnknown {
                model: i,
                path: m.path.text.clone(),
            },
        });
        return Ok(None);
    };
    m.bone_names = s.bone_names.iter().map(|b| PmmText::new(b)).collect();
    m.morph_names = s.morph_names.iter().map(|b| PmmText::new(b)).collect();
    m.ik_bones = s.ik_bones;
    model_keys_and_states(c, &mut m, false)?;
    Ok(Some(m))
}

fn camera_key(c: &mut Cursor, v2: bool) -> Result<(PmmCameraKey, bool), PmmError> {
    let what = "camera key";
    let distance = c.f32(what)?;
    let target = c.f32s::<3>(what)?;
    let angles = c.f32s::<3>(what)?;
    let follow = if v2 {
        Some((c.i32(what)?, c.i32(what)?))
    } else {
        None
    };
    let curves = c.array::<24>(what)?;
    let perspective = c.u8(what)? == 0;
    let fov = c.i32(what)?;
    let selected = c.bool(what)?;
    let k = PmmCameraKey {
        distance,
        target,
        angles,
        follow,
        curves,
        perspective,
        fov,
    };
    Ok((k, selected))
}

fn camera(c: &mut Cursor, v2: bool) -> Result<PmmCamera, PmmError> {
    let len = BASE_LEN + 4 + 12 + 12 + if v2 { 8 } else { 0 } + 24 + 1 + 4 + 1;
    let keys = single_track(c, len, "camera keys", |c| camera_key(c, v2))?;
    let what = "camera";
    Ok(PmmCamera {
        keys,
        current: [c.f32s(what)?, c.f32s(what)?, c.f32s(what)?],
        current_perspective: c.u8(what)? == 0,
    })
}

fn light_key(c: &mut Cursor) -> Result<(PmmLightKey, bool), PmmError> {
    let what = "light key";
    let k = PmmLightKey {
        color: c.f32s(what)?,
        direction: c.f32s(what)?,
    };
    Ok((k, c.bool(what)?))
}

fn light(c: &mut Cursor) -> Result<PmmLight, PmmError> {
    let keys = single_track(c, BASE_LEN + 25, "light keys", light_key)?;
    Ok(PmmLight {
        keys,
        color: c.f32s("light")?,
        direction: c.f32s("light")?,
    })
}

fn accessory_key(c: &mut Cursor) -> Result<(PmmAccessoryKey, bool), PmmError> {
    let what = "accessory key";
    let k = PmmAccessoryKey {
        opacity_and_visible: c.u8(what)?,
        parent: (c.i32(what)?, c.i32(what)?),
        position: c.f32s(what)?,
        rotation: c.f32s(what)?,
        scale: c.f32(what)?,
        shadow: c.bool(what)?,
    };
    Ok((k, c.bool(what)?))
}

/// nanoem `nanoemDocumentAccessoryParse`. The current state stores
/// position, scale, rotation (nanoem and mmd-anim; MikuMikuMethods reads
/// position, rotation, scale).
fn accessory(c: &mut Cursor, v2: bool) -> Result<PmmAccessory, PmmError> {
    let offset = c.offset();
    let index = c.u8("accessory index")?;
    let name = PmmText::new(c.take(ACCESSORY_NAME_LEN, "accessory name")?);
    let path = PmmText::new(c.take(PATH_LEN, "accessory path")?);
    let draw_order = c.u8("accessory")?;
    let keys = single_track(c, BASE_LEN + 39, "accessory keys", accessory_key)?;
    let what = "accessory";
    let opacity_and_visible = c.u8(what)?;
    let parent = (c.i32(what)?, c.i32(what)?);
    let position = c.f32s(what)?;
    let scale = c.f32(what)?;
    let rotation = c.f32s(what)?;
    let shadow = c.bool(what)?;
    let add_blend = if v2 { c.bool(what)? } else { false };
    Ok(PmmAccessory {
        offset,
        index,
        name,
        path,
        draw_order,
        keys,
        current: PmmAccessoryKey {
            opacity_and_visible,
            parent,
            position,
            rotation,
            scale,
            shadow,
        },
        add_blend,
    })
}

fn settings(c: &mut Cursor, v2: bool) -> Result<PmmSettings, PmmError> {
    let w = "settings";
    let mut s = PmmSettings {
        current_frame: c.i32(w)?,
        horizontal_scroll: c.i32(w)?,
        horizontal_scroll_thumb: c.i32(w)?,
        editing_mode: c.i32(w)?,
        camera_look_mode: c.u8(w)?,
        loop_playback: c.bool(w)?,
        begin_enabled: c.bool(w)?,
        end_enabled: c.bool(w)?,
        begin_frame: c.i32(w)?,
        end_frame: c.i32(w)?,
        audio_enabled: c.bool(w)?,
        audio_path: PmmText::new(c.take(PATH_LEN, "song path")?),
        video_offset: [c.i32(w)?, c.i32(w)?],
        video_scale: c.f32(w)?,
        video_path: PmmText::new(c.take(PATH_LEN, "background video path")?),
        video_enabled: c.i32(w)?,
        image_offset: [c.i32(w)?, c.i32(w)?],
        image_scale: c.f32(w)?,
        image_path: PmmText::new(c.take(PATH_LEN, "background image path")?),
        image_enabled: c.bool(w)?,
        show_info: c.bool(w)?,
        show_grid_and_axis: c.bool(w)?,
        ground_shadow: c.bool(w)?,
        fps: c.f32(w)?,
        screen_capture_mode: c.i32(w)?,
        accessory_after_models: c.i32(w)?,
        ground_shadow_brightness: c.f32(w)?,
        ..PmmSettings::default()
    };
    if v2 {
        s.translucent_ground_shadow = c.bool(w)?;
        s.physics_mode = c.u8(w)?;
    }
    Ok(s)
}

fn gravity_key(c: &mut Cursor) -> Result<(PmmGravityKey, bool), PmmError> {
    let what = "gravity key";
    let k = PmmGravityKey {
        noise_on: c.bool(what)?,
        noise: c.i32(what)?,
        acceleration: c.f32(what)?,
        direction: c.f32s(what)?,
    };
    Ok((k, c.bool(what)?))
}

fn gravity(c: &mut Cursor) -> Result<PmmGravity, PmmError> {
    let what = "gravity";
    let acceleration = c.f32(what)?;
    let noise = c.i32(what)?;
    let direction = c.f32s(what)?;
    let noise_on = c.bool(what)?;
    let keys = single_track(c, BASE_LEN + 22, "gravity keys", gravity_key)?;
    Ok(PmmGravity {
        acceleration,
        noise,
        direction,
        noise_on,
        keys,
    })
}

fn shadow_key(c: &mut Cursor) -> Result<(PmmShadowKey, bool), PmmError> {
    let what = "self-shadow key";
    let k = PmmShadowKey {
        mode: c.u8(what)?,
        distance: c.f32(what)?,
    };
    Ok((k, c.bool(what)?))
}

fn self_shadow(c: &mut Cursor) -> Result<PmmSelfShadow, PmmError> {
    let enabled = c.bool("self-shadow")?;
    let distance = c.f32("self-shadow")?;
    let keys = single_track(c, BASE_LEN + 6, "self-shadow keys", shadow_key)?;
    Ok(PmmSelfShadow {
        enabled,
        distance,
        keys,
    })
}

/// nanoem `nanoemDocumentParse`, after self-shadow. The range-selection
/// list (MMD 9.24+) is read only when bytes remain.
fn tail(c: &mut Cursor, models: usize) -> Result<PmmTail, PmmError> {
    let w = "settings";
    let mut t = PmmTail {
        edge_color: [c.i32(w)?, c.i32(w)?, c.i32(w)?],
        black_background: c.bool(w)?,
        camera_follow: (c.i32(w)?, c.i32(w)?),
        unknown_matrix: c.array::<64>(w)?,
        follow_camera: c.bool(w)?,
        unknown_byte: c.u8(w)?,
        ground_physics: c.bool(w)?,
        frame_in_text_field: c.i32(w)?,
        range_selection: None,
    };
    if c.remaining() > 5 * models && c.u8("range selection")? != 0 {
        let mut v = Vec::with_capacity(models);
        for _ in 0..models {
            v.push((c.u8("range selection")?, c.i32("range selection")?));
        }
        t.range_selection = Some(v);
    }
    Ok(t)
}
