//! What a `.pmm` file holds, field by field, as read (see
//! `docs/pmm-format.md`). Keys are kept as MMD stores them: per track an
//! initial key and a pool of records linked by `prev`/`next` ids; turning
//! them into ordered lists is [`super::links`]' job.
//!
//! Units: frames are MMD frames (30 fps); positions in MMD units
//! (left-handed, Y up); bone rotations are quaternions x, y, z, w; camera
//! and accessory angles are radians; field of view in degrees.

/// Which MMD wrote the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum PmmVersion {
    /// `Polygon Movie maker 0001` (MMD 7.x; PMD models only).
    V1,
    /// `Polygon Movie maker 0002` (MMD 9.x).
    V2,
}

impl PmmVersion {
    /// The MMD versions that write it (`7.x`, `9.x`).
    pub fn mmd(self) -> &'static str {
        match self {
            PmmVersion::V1 => "7.x",
            PmmVersion::V2 => "9.x",
        }
    }

    pub fn number(self) -> u8 {
        match self {
            PmmVersion::V1 => 1,
            PmmVersion::V2 => 2,
        }
    }
}

/// A Shift_JIS text field: its bytes as stored (a fixed field keeps its
/// padding and junk after the NUL) and the text up to the first NUL.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PmmText {
    pub raw: Vec<u8>,
    pub text: String,
}

impl PmmText {
    /// Decodes `raw` (CP932) up to its first NUL.
    pub fn new(raw: &[u8]) -> PmmText {
        let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
        let (text, _, _) = encoding_rs::SHIFT_JIS.decode(&raw[..end]);
        PmmText {
            raw: raw.to_vec(),
            text: text.into_owned(),
        }
    }

    /// The bytes before the first NUL: what MMD matches and what a VMD
    /// name field receives.
    pub fn bytes(&self) -> &[u8] {
        let end = self
            .raw
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(self.raw.len());
        &self.raw[..end]
    }
}

/// One key record as stored: an id (pool records carry theirs in the
/// file; an initial key's id is its index in its list, 0 for a single
/// track), its frame, the ids of its neighbours (`0` = none), the
/// selection flag and the kind's own fields.
#[derive(Debug, Clone, PartialEq)]
pub struct Record<T> {
    pub id: i32,
    pub frame: i32,
    pub prev: i32,
    pub next: i32,
    pub selected: bool,
    pub value: T,
    /// Byte offset of the record in the file.
    pub offset: usize,
}

/// The keys of one kind of a model or of the scene: the initial keys (one
/// per bone for bones, one per morph for morphs, one for the others) and
/// the pool of later keys, in file order.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyPool<T> {
    pub initial: Vec<Record<T>>,
    pub pool: Vec<Record<T>>,
}

impl<T> Default for KeyPool<T> {
    fn default() -> Self {
        KeyPool {
            initial: Vec::new(),
            pool: Vec::new(),
        }
    }
}

/// A bone key.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PmmBoneKey {
    /// Four curves, X move, Y move, Z move, rotation, each `x1 y1 x2 y2`
    /// (0..127 in MMD's own files; kept as stored).
    pub curves: [u8; 16],
    pub position: [f32; 3],
    /// Quaternion x, y, z, w.
    pub rotation: [f32; 4],
    /// v2: MMD's physics is off for this key (v1: always `false`).
    pub physics_off: bool,
}

/// A morph key: weight 0..1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PmmMorphKey {
    pub weight: f32,
}

/// A model key ("表示・IK"): shown, IK on/off per IK bone, outside parents.
#[derive(Debug, Clone, PartialEq)]
pub struct PmmModelKey {
    pub visible: bool,
    /// One per entry of the model's [`PmmModel::ik_bones`].
    pub ik_enabled: Vec<bool>,
    /// v2: one (model index, bone index) per entry of the model's
    /// [`PmmModel::outside_parent_bones`]; `-1` = none.
    pub outside_parents: Vec<(i32, i32)>,
}

/// A camera key.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PmmCameraKey {
    /// Distance from the target (MMD's usual values are negative).
    pub distance: f32,
    pub target: [f32; 3],
    /// Euler angles x, y, z, radians.
    pub angles: [f32; 3],
    /// v2: the model and bone the camera follows (`-1`: none).
    pub follow: Option<(i32, i32)>,
    /// Six curves, target X, Y, Z, rotation, distance, field of view, each
    /// `x1 y1 x2 y2`.
    pub curves: [u8; 24],
    /// The stored byte is 0 when perspective is on.
    pub perspective: bool,
    /// Degrees.
    pub fov: i32,
}

/// A light key: colour 0..1 and direction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PmmLightKey {
    pub color: [f32; 3],
    pub direction: [f32; 3],
}

/// A self-shadow key: mode (0 off, 1, 2) and distance as VMD stores it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PmmShadowKey {
    pub mode: u8,
    pub distance: f32,
}

/// A gravity key (v2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PmmGravityKey {
    pub noise_on: bool,
    pub noise: i32,
    pub acceleration: f32,
    pub direction: [f32; 3],
}

/// An accessory key.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PmmAccessoryKey {
    /// Bit 0: shown; bits 1..7: (1 − opacity) × 100.
    pub opacity_and_visible: u8,
    /// The model and bone it hangs on (`-1`: none).
    pub parent: (i32, i32),
    pub position: [f32; 3],
    /// Euler angles, radians.
    pub rotation: [f32; 3],
    pub scale: f32,
    pub shadow: bool,
}

impl PmmAccessoryKey {
    pub fn visible(&self) -> bool {
        self.opacity_and_visible & 1 != 0
    }
    /// 0..1 (nanoem `nanoemDocumentAccessoryUnpackOpacityAndVisible`).
    pub fn opacity(&self) -> f32 {
        (100.0 - f32::from(self.opacity_and_visible >> 1)) * 0.01
    }
}

/// A bone's current (unkeyed) state in the editor.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoneState {
    pub position: [f32; 3],
    pub rotation: [f32; 4],
    pub dirty: bool,
    /// v2 only.
    pub physics_off: bool,
    pub selected_tracks: u8,
    /// v1 only: four bytes nobody has named.
    pub v1_unknown: i32,
}

/// An outside-parent state of a model (v2): the frame range and the
/// (model, bone) the subject bone hangs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutsideParentState {
    pub begin: i32,
    pub end: i32,
    pub parent: (i32, i32),
}

/// One model of the project.
#[derive(Debug, Clone, PartialEq)]
pub struct PmmModel {
    /// Byte offset of the model's block.
    pub offset: usize,
    pub index: u8,
    pub name: PmmText,
    /// v2 only.
    pub name_en: PmmText,
    /// The 256-byte path field (an absolute Windows path, Shift_JIS).
    pub path: PmmText,
    /// v2: rows the timeline keeps for the model's fixed tracks.
    pub fixed_tracks: u8,
    /// v2: stored in the project; v1: from the model file.
    pub bone_names: Vec<PmmText>,
    pub morph_names: Vec<PmmText>,
    /// Bone indices of the IK bones, in the order of the model keys' IK flags.
    pub ik_bones: Vec<i32>,
    /// v2: bone indices that may take an outside parent (the first is `-1`).
    pub outside_parent_bones: Vec<i32>,
    pub draw_order: u8,
    pub visible: bool,
    pub selected_bone: i32,
    /// Selected morph per panel: eyebrows, eyes, lips, other.
    pub selected_morphs: [i32; 4],
    /// One flag per display frame: expanded in the timeline.
    pub expanded: Vec<u8>,
    pub vertical_scroll: i32,
    pub last_frame: i32,
    pub bones: KeyPool<PmmBoneKey>,
    pub morphs: KeyPool<PmmMorphKey>,
    pub model_keys: KeyPool<PmmModelKey>,
    pub bone_states: Vec<BoneState>,
    pub morph_states: Vec<f32>,
    pub ik_states: Vec<bool>,
    pub outside_parent_states: Vec<OutsideParentState>,
    /// v2: alpha blending, edge width, self-shadow, transform order.
    pub blend: bool,
    pub edge_width: f32,
    pub self_shadow: bool,
    pub transform_order: u8,
}

/// The camera: keys and the editor's current (unkeyed) camera.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PmmCamera {
    pub keys: KeyPool<PmmCameraKey>,
    /// Three vectors as stored: nanoem reads look-at, position, angle;
    /// MikuMikuMethods eye, target, rotation.
    pub current: [[f32; 3]; 3],
    pub current_perspective: bool,
}

/// The light: keys and the current colour and direction.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PmmLight {
    pub keys: KeyPool<PmmLightKey>,
    pub color: [f32; 3],
    pub direction: [f32; 3],
}

/// One accessory (`.x` or `.vac`) and its keys.
#[derive(Debug, Clone, PartialEq)]
pub struct PmmAccessory {
    pub offset: usize,
    pub index: u8,
    /// 100-byte name field.
    pub name: PmmText,
    /// 256-byte path field.
    pub path: PmmText,
    pub draw_order: u8,
    pub keys: KeyPool<PmmAccessoryKey>,
    /// The current (unkeyed) state.
    pub current: PmmAccessoryKey,
    /// v2: additive blending.
    pub add_blend: bool,
}

/// Gravity (v2): current values and keys.
#[derive(Debug, Clone, PartialEq)]
pub struct PmmGravity {
    pub acceleration: f32,
    pub noise: i32,
    pub direction: [f32; 3],
    pub noise_on: bool,
    pub keys: KeyPool<PmmGravityKey>,
}

/// Self-shadow (v2): current values and keys.
#[derive(Debug, Clone, PartialEq)]
pub struct PmmSelfShadow {
    pub enabled: bool,
    pub distance: f32,
    pub keys: KeyPool<PmmShadowKey>,
}

/// The scene settings after the accessories.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PmmSettings {
    pub current_frame: i32,
    pub horizontal_scroll: i32,
    pub horizontal_scroll_thumb: i32,
    pub editing_mode: i32,
    pub camera_look_mode: u8,
    pub loop_playback: bool,
    pub begin_enabled: bool,
    pub end_enabled: bool,
    /// Play range, frames.
    pub begin_frame: i32,
    pub end_frame: i32,
    pub audio_enabled: bool,
    pub audio_path: PmmText,
    pub video_offset: [i32; 2],
    pub video_scale: f32,
    pub video_path: PmmText,
    /// Stored as an `i32` (MikuMikuMethods sees 64 when on).
    pub video_enabled: i32,
    pub image_offset: [i32; 2],
    pub image_scale: f32,
    pub image_path: PmmText,
    pub image_enabled: bool,
    pub show_info: bool,
    pub show_grid_and_axis: bool,
    pub ground_shadow: bool,
    pub fps: f32,
    pub screen_capture_mode: i32,
    pub accessory_after_models: i32,
    pub ground_shadow_brightness: f32,
    /// v2 only.
    pub translucent_ground_shadow: bool,
    /// v2: 0 off, 1 always, 2 while playing, 3 tracing (nanoem's names).
    pub physics_mode: u8,
}

/// What follows gravity and self-shadow in v2.
#[derive(Debug, Clone, PartialEq)]
pub struct PmmTail {
    /// 0..255 each.
    pub edge_color: [i32; 3],
    pub black_background: bool,
    /// The model and bone the current camera follows.
    pub camera_follow: (i32, i32),
    /// 16 floats nobody has named (an identity matrix in new files), raw.
    pub unknown_matrix: [u8; 64],
    pub follow_camera: bool,
    pub unknown_byte: u8,
    pub ground_physics: bool,
    pub frame_in_text_field: i32,
    /// MMD 9.24+: per model its index and range-selection target.
    pub range_selection: Option<Vec<(u8, i32)>>,
}

/// A whole project as read.
#[derive(Debug, Clone, PartialEq)]
pub struct Project {
    pub version: PmmVersion,
    /// The 30 header bytes as read.
    pub header: [u8; 30],
    pub output_size: [i32; 2],
    pub timeline_width: i32,
    pub camera_fov: f32,
    /// Editing camera/light/accessories, then the panels' expanded flags
    /// (camera, light, accessory, bone, morph; v2 also self-shadow).
    pub panel_flags: Vec<u8>,
    pub selected_model: u8,
    /// v1: the model names listed before the models (20 bytes each).
    pub v1_model_names: Vec<PmmText>,
    pub models: Vec<PmmModel>,
    /// `None` when reading stopped before it (see the warnings).
    pub camera: Option<PmmCamera>,
    pub light: Option<PmmLight>,
    pub selected_accessory: u8,
    pub accessory_scroll: i32,
    /// The names listed before the accessories (100 bytes each).
    pub accessory_names: Vec<PmmText>,
    pub accessories: Vec<PmmAccessory>,
    pub settings: Option<PmmSettings>,
    pub gravity: Option<PmmGravity>,
    pub self_shadow: Option<PmmSelfShadow>,
    pub tail: Option<PmmTail>,
    /// Bytes after the last field read, kept raw.
    pub trailing: Vec<u8>,
    /// Offset of [`Project::trailing`].
    pub trailing_offset: usize,
    pub warnings: Vec<super::error::Warning>,
}
