//! The set around the dancers: stages and props, accessories placed as
//! MMD's accessory panel places them (keyable over frames), and the
//! background. Pure: the renderer asks it for matrices and switches.
//!
//! # Accessory placement
//! An accessory's world matrix at a frame is
//! `parent · T(position) · Rz · Ry · Rx · S(scale)` acting on the converted
//! accessory model (whose vertices are already ×10, see
//! [`crate::model::xfile::MMD_SCALE`]); `parent` is the identity for the
//! world or the parent bone's world matrix. This is nanoem's
//! `Accessory::fullWorldTransform` (`emapp/src/Accessory.cc`: bone ·
//! translate · rotateZ · rotateY · rotateX · scale · scale(10)) in MMD's
//! left-handed space. Angles are degrees in the panel and the keys.
//!
//! # Accessory keys
//! As MMD plays them (nanoem `Accessory::synchronizeMotion`): on a key its
//! values; between two keys position, scale and opacity are linear and the
//! rotation is a quaternion slerp, by `(frame − prev) / (next − prev)`;
//! shown, ground shadow and parent come from the previous key (they
//! switch, they do not blend). Before the first key the first applies,
//! after the last the last. No keys: the accessory's own state.

use std::path::PathBuf;

use glam::{EulerRot, Mat4, Quat, Vec3};

/// Whether a stage or accessory is drawn before or after the models
/// (MMD's accessory draw order; "after" suits see-through effects).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DrawOrder {
    #[default]
    BeforeModels,
    AfterModels,
}

/// A stage or prop: a PMX/PMD model (or a `.x`) drawn as part of the set,
/// with no motion needed.
#[derive(Debug, Clone, PartialEq)]
pub struct Prop<H> {
    /// Shown in lists.
    pub name: String,
    /// The PMX, PMD or `.x` file.
    pub path: PathBuf,
    pub shown: bool,
    pub order: DrawOrder,
    /// Its own motion, if its parts move (a handle as in
    /// [`super::Actor::motion`]); none: the rest pose.
    pub motion: Option<H>,
}

impl<H> Prop<H> {
    /// A shown prop drawn before the models, named after its file.
    pub fn new(path: PathBuf) -> Self {
        Prop {
            name: file_stem(&path),
            path,
            shown: true,
            order: DrawOrder::BeforeModels,
            motion: None,
        }
    }
}

/// What an accessory follows.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Parent {
    /// The world.
    #[default]
    World,
    /// A bone of an actor of the scene: `actor` indexes
    /// [`super::Scene::actors`]; `bone` is the bone's name (Japanese, as
    /// motions name bones).
    Bone { actor: usize, bone: String },
}

/// An accessory's panel values at one moment (MMD's accessory panel).
#[derive(Debug, Clone, PartialEq)]
pub struct AccessoryState {
    pub parent: Parent,
    /// X, Y, Z in MMD units, in the parent's space.
    pub position: Vec3,
    /// Rx, Ry, Rz in degrees.
    pub rotation_degrees: Vec3,
    /// Si, uniform scale (1: the `.x` at MMD's ×10); negative reads as 0.
    pub scale: f32,
    /// Tr, opacity 0..1, multiplies every material's alpha.
    pub opacity: f32,
    pub shown: bool,
    /// Casts MMD's ground shadow.
    pub ground_shadow: bool,
}

impl Default for AccessoryState {
    /// MMD's defaults for a newly loaded accessory (nanoem
    /// `Accessory::reset`: no offset, scale 1, opacity 1; ground shadow on).
    fn default() -> Self {
        AccessoryState {
            parent: Parent::World,
            position: Vec3::ZERO,
            rotation_degrees: Vec3::ZERO,
            scale: 1.0,
            opacity: 1.0,
            shown: true,
            ground_shadow: true,
        }
    }
}

/// An accessory key: its state from `frame` on.
#[derive(Debug, Clone, PartialEq)]
pub struct AccessoryKey {
    /// Scene frame (30 per second).
    pub frame: u32,
    pub state: AccessoryState,
}

/// An accessory's values at a frame, ready for drawing: the rotation as a
/// quaternion (keys slerp between Euler angles' quaternions).
#[derive(Debug, Clone, PartialEq)]
pub struct AccessoryPose {
    pub parent: Parent,
    pub position: Vec3,
    pub rotation: Quat,
    /// Clamped to ≥ 0.
    pub scale: f32,
    /// Clamped to 0..1.
    pub opacity: f32,
    pub shown: bool,
    pub ground_shadow: bool,
}

impl AccessoryPose {
    /// The accessory's world matrix given its parent's: the parent bone's
    /// world matrix (model space of that actor, placed in the world), or
    /// `None` for the world (or a parent bone that cannot be found).
    pub fn world_matrix(&self, parent_world: Option<Mat4>) -> Mat4 {
        parent_world.unwrap_or(Mat4::IDENTITY)
            * Mat4::from_scale_rotation_translation(
                Vec3::splat(self.scale),
                self.rotation,
                self.position,
            )
    }
}

/// What a set piece is drawn with at one frame: its world matrix, opacity
/// (Tr), ground-shadow switch and whether it shows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PiecePlacement {
    pub world: Mat4,
    pub opacity: f32,
    pub ground_shadow: bool,
    pub shown: bool,
}

impl PiecePlacement {
    /// A stage or prop: at its rest pose in the world, opaque, shown.
    pub const STAGE: PiecePlacement = PiecePlacement {
        world: Mat4::IDENTITY,
        opacity: 1.0,
        ground_shadow: true,
        shown: true,
    };
}

impl SetAccessory {
    /// The accessory's placement at scene `frame`: [`SetAccessory::pose_at`]
    /// with its parent bone's world matrix from `bone_world(actor, bone)`
    /// (`None`: the bone cannot be found, the accessory stays in the world).
    pub fn placement_at(
        &self,
        frame: f64,
        bone_world: impl Fn(usize, &str) -> Option<Mat4>,
    ) -> PiecePlacement {
        let pose = self.pose_at(frame);
        let parent = match &pose.parent {
            Parent::World => None,
            Parent::Bone { actor, bone } => bone_world(*actor, bone),
        };
        PiecePlacement {
            world: pose.world_matrix(parent),
            opacity: pose.opacity,
            ground_shadow: pose.ground_shadow,
            shown: pose.shown,
        }
    }
}

/// MMD's accessory rotation from panel degrees: `Rz · Ry · Rx` (X first).
pub fn rotation_from_degrees(d: Vec3) -> Quat {
    Quat::from_euler(
        EulerRot::ZYX,
        d.z.to_radians(),
        d.y.to_radians(),
        d.x.to_radians(),
    )
}

/// Panel degrees (Rx, Ry, Rz) of a rotation: the inverse of
/// [`rotation_from_degrees`] (Z·Y·X), each in −180..180, never −0.
pub fn degrees_from_rotation(q: Quat) -> Vec3 {
    let (z, y, x) = q.to_euler(EulerRot::ZYX);
    Vec3::new(x, y, z) * (180.0 / std::f32::consts::PI) + Vec3::ZERO
}

impl AccessoryState {
    /// A `.vac`'s placement as panel values (the `.vac`'s bone becomes
    /// `parent` once the caller knows which actor has it).
    pub fn from_placement(p: &crate::model::xfile::Placement, parent: Parent) -> Self {
        AccessoryState {
            parent,
            position: p.position,
            rotation_degrees: p.rotation_degrees,
            scale: p.scale,
            ..AccessoryState::default()
        }
    }

    /// This state as a pose (no blending).
    pub fn pose(&self) -> AccessoryPose {
        AccessoryPose {
            parent: self.parent.clone(),
            position: finite_or(self.position, Vec3::ZERO),
            rotation: rotation_from_degrees(finite_or(self.rotation_degrees, Vec3::ZERO)),
            scale: if self.scale.is_finite() {
                self.scale.max(0.0)
            } else {
                1.0
            },
            opacity: if self.opacity.is_finite() {
                self.opacity.clamp(0.0, 1.0)
            } else {
                1.0
            },
            shown: self.shown,
            ground_shadow: self.ground_shadow,
        }
    }
}

fn finite_or(v: Vec3, or: Vec3) -> Vec3 {
    if v.is_finite() { v } else { or }
}

/// An accessory in the set.
#[derive(Debug, Clone, PartialEq)]
pub struct SetAccessory {
    /// Shown in lists (a `.vac`'s first line, else the file name).
    pub name: String,
    /// The `.x` file.
    pub path: PathBuf,
    pub order: DrawOrder,
    /// The state when there are no keys (the panel's values).
    pub state: AccessoryState,
    /// Keys sorted by frame, one per frame at most.
    pub keys: Vec<AccessoryKey>,
}

impl SetAccessory {
    /// An accessory at MMD's defaults, named after its file.
    pub fn new(path: PathBuf) -> Self {
        SetAccessory {
            name: file_stem(&path),
            path,
            order: DrawOrder::BeforeModels,
            state: AccessoryState::default(),
            keys: Vec::new(),
        }
    }

    /// Sets (or replaces) the key at `key.frame`, keeping keys sorted.
    pub fn set_key(&mut self, key: AccessoryKey) {
        match self.keys.binary_search_by_key(&key.frame, |k| k.frame) {
            Ok(i) => self.keys[i] = key,
            Err(i) => self.keys.insert(i, key),
        }
    }

    /// Removes the key at `frame`; returns it if there was one.
    pub fn remove_key(&mut self, frame: u32) -> Option<AccessoryKey> {
        let i = self.keys.binary_search_by_key(&frame, |k| k.frame).ok()?;
        Some(self.keys.remove(i))
    }

    /// Moves the key at `from` to frame `to`, replacing a key there (as
    /// MMD's timeline does); returns whether a key moved.
    pub fn move_key(&mut self, from: u32, to: u32) -> bool {
        if from == to || self.keys.binary_search_by_key(&from, |k| k.frame).is_err() {
            return false;
        }
        if let Some(mut k) = self.remove_key(from) {
            k.frame = to;
            self.set_key(k);
        }
        true
    }

    /// The panel values the accessory plays at scene frame `frame`: with no
    /// keys its own, on a key (or before the first, after the last) that
    /// key's exactly; between two keys the blended pose with its rotation
    /// read back as Rx, Ry, Rz (what MMD registers for an in-between frame).
    pub fn state_at(&self, frame: u32) -> AccessoryState {
        let (Some(first), Some(last)) = (self.keys.first(), self.keys.last()) else {
            return self.state.clone();
        };
        if let Ok(i) = self.keys.binary_search_by_key(&frame, |k| k.frame) {
            return self.keys[i].state.clone();
        }
        if frame < first.frame {
            return first.state.clone();
        }
        if frame > last.frame {
            return last.state.clone();
        }
        let p = self.pose_at(f64::from(frame));
        AccessoryState {
            parent: p.parent,
            position: p.position,
            rotation_degrees: degrees_from_rotation(p.rotation),
            scale: p.scale,
            opacity: p.opacity,
            shown: p.shown,
            ground_shadow: p.ground_shadow,
        }
    }

    /// The accessory's values at scene frame `frame` (fractions allowed),
    /// as MMD plays accessory keys (see the module documentation).
    pub fn pose_at(&self, frame: f64) -> AccessoryPose {
        let (first, last) = match (self.keys.first(), self.keys.last()) {
            (Some(f), Some(l)) => (f, l),
            _ => return self.state.pose(),
        };
        if frame.is_nan() || frame <= f64::from(first.frame) {
            return first.state.pose();
        }
        if frame >= f64::from(last.frame) {
            return last.state.pose();
        }
        // The last key at or before `frame`; a later one exists.
        let next = self.keys.partition_point(|k| f64::from(k.frame) <= frame);
        let (a, b) = (&self.keys[next - 1], &self.keys[next]);
        let t = ((frame - f64::from(a.frame)) / f64::from(b.frame - a.frame)) as f32;
        let (pa, pb) = (a.state.pose(), b.state.pose());
        AccessoryPose {
            position: pa.position.lerp(pb.position, t),
            rotation: pa.rotation.slerp(pb.rotation, t),
            scale: pa.scale + (pb.scale - pa.scale) * t,
            opacity: pa.opacity + (pb.opacity - pa.opacity) * t,
            ..pa
        }
    }
}

/// An accessory file as the user opens it (Add accessory…, `--accessory`):
/// a `.x` at MMD's defaults, or a `.vac` named, placed and attached as it
/// says, its `.x` resolved beside it. The second value is the bone the
/// accessory should follow (the `.vac`'s sixth line), which the caller
/// turns into [`Parent::Bone`] on the first actor whose model has it; the
/// accessory's parent is the world until then. Errors name the file and,
/// for a `.vac`, the line.
pub fn open_accessory_file(
    path: &std::path::Path,
) -> Result<(SetAccessory, Option<String>), String> {
    use crate::model::xfile::VacFile;
    let is_vac = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("vac"));
    if !is_vac {
        return Ok((SetAccessory::new(path.to_owned()), None));
    }
    let vac = VacFile::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let dir = path.parent().unwrap_or(std::path::Path::new("."));
    let x = vac.resolve_x(dir).ok_or_else(|| {
        format!(
            "{}: its accessory file {} is not there (looked beside the .vac)",
            path.display(),
            vac.x_file
        )
    })?;
    let mut a = SetAccessory::new(x);
    if !vac.name.trim().is_empty() {
        a.name = vac.name.trim().to_owned();
    }
    a.state = AccessoryState::from_placement(&vac.placement, Parent::World);
    Ok((a, vac.bone.clone()))
}

/// How a background image fits the picture. MMD itself stretches its
/// 背景画像 and 背景AVI to the screen ([`ImageFit::Stretch`]); `Fit` (the
/// default here) keeps the image's shape instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ImageFit {
    /// Scaled until it reaches the picture's height or width (whichever
    /// comes first: the whole image shows), aspect kept, centred; the
    /// colour shows in the bands left over (letterbox or pillarbox).
    #[default]
    Fit,
    /// Stretched to the picture, aspect not kept (MMD's way).
    Stretch,
    /// At its own pixel size, centred (its left and top edges on whole
    /// pixels: the offset is rounded down); larger than the picture it is
    /// cropped.
    Original,
}

impl ImageFit {
    /// The three modes in the order the panel offers them.
    pub const ALL: [ImageFit; 3] = [ImageFit::Fit, ImageFit::Stretch, ImageFit::Original];

    /// What the panel calls the mode.
    pub fn label(self) -> &'static str {
        match self {
            ImageFit::Fit => "Fit",
            ImageFit::Stretch => "Stretch",
            ImageFit::Original => "Original size",
        }
    }

    /// Where an image of `image` pixels (width, height) lands in a picture
    /// of `picture` pixels: `[left, top, right, bottom]` in pixels from the
    /// picture's top-left corner (edges may lie outside the picture).
    /// An empty image or picture gives the whole picture; the result is
    /// always finite.
    pub fn placement(self, image: (u32, u32), picture: (u32, u32)) -> [f32; 4] {
        let (pw, ph) = (picture.0 as f32, picture.1 as f32);
        let whole = [0.0, 0.0, pw, ph];
        if image.0 == 0 || image.1 == 0 || picture.0 == 0 || picture.1 == 0 {
            return whole;
        }
        let (iw, ih) = (image.0 as f32, image.1 as f32);
        let (w, h, left, top) = match self {
            ImageFit::Stretch => return whole,
            ImageFit::Fit => {
                let s = (pw / iw).min(ph / ih);
                let (w, h) = (iw * s, ih * s);
                (w, h, (pw - w) / 2.0, (ph - h) / 2.0)
            }
            ImageFit::Original => {
                let left = ((pw - iw) / 2.0).floor();
                let top = ((ph - ih) / 2.0).floor();
                (iw, ih, left, top)
            }
        };
        let r = [left, top, left + w, top + h];
        if r.iter().all(|v| v.is_finite()) {
            r
        } else {
            whole
        }
    }
}

/// A background image (MMD's 背景画像).
#[derive(Debug, Clone, PartialEq)]
pub struct BackgroundImage {
    pub path: PathBuf,
    pub fit: ImageFit,
}

/// A background video (MMD's 背景AVI), stretched to the picture as MMD
/// does.
#[derive(Debug, Clone, PartialEq)]
pub struct BackgroundVideo {
    pub path: PathBuf,
    /// Scene frame at which the video's first frame shows (may be negative).
    pub frame_offset: i32,
}

/// The video's own frame rate as it is read: 30 per second, MMD's scene
/// rate, whatever rate the file has (ffmpeg repeats or drops frames to
/// make it), so video frame n is the picture at n / 30 s into the file.
pub const VIDEO_READ_FPS: u32 = 30;

impl BackgroundVideo {
    /// The video frame (at [`VIDEO_READ_FPS`]) shown at scene frame
    /// `frame` (fractions allowed: 60 pictures per second): the one at
    /// time `(frame − frame_offset) / 30` s, i.e. `floor(frame −
    /// frame_offset)`; `None` before the offset or for a non-finite frame.
    /// Whether the video is that long is for its reader to say.
    pub fn video_frame(&self, frame: f64) -> Option<u64> {
        let t = frame - f64::from(self.frame_offset);
        // A hair of slack: 59.999999 from a 60-picture export is frame 60.
        let n = (t + 1e-6).floor();
        (0.0..1e15).contains(&n).then_some(n as u64)
    }
}

/// What is behind everything: a colour, over which an image, over which a
/// video (the topmost present one shows; the colour fills what they leave).
#[derive(Debug, Clone, PartialEq)]
pub struct Background {
    /// RGB 0..1 as written to the picture (sRGB-encoded, like MMD's colour
    /// fields); one setting for the preview and every export.
    pub colour: [f32; 3],
    pub image: Option<BackgroundImage>,
    pub video: Option<BackgroundVideo>,
}

impl Default for Background {
    /// MMD's white, as the renderer clears today.
    fn default() -> Self {
        Background {
            colour: [1.0, 1.0, 1.0],
            image: None,
            video: None,
        }
    }
}

/// The set: stages/props, accessories, background.
#[derive(Debug, Clone, PartialEq)]
pub struct Set<H> {
    pub props: Vec<Prop<H>>,
    pub accessories: Vec<SetAccessory>,
    pub background: Background,
}

impl<H> Default for Set<H> {
    fn default() -> Self {
        Set {
            props: Vec::new(),
            accessories: Vec::new(),
            background: Background::default(),
        }
    }
}

impl<H> Set<H> {
    /// The same set with every prop's motion handle mapped (see
    /// [`super::Scene::map`]); a handle that maps to `None` leaves the prop
    /// without a motion.
    pub fn map<G>(&self, mut f: impl FnMut(&H) -> Option<G>) -> Set<G> {
        Set {
            props: self
                .props
                .iter()
                .map(|p| Prop {
                    name: p.name.clone(),
                    path: p.path.clone(),
                    shown: p.shown,
                    order: p.order,
                    motion: p.motion.as_ref().and_then(&mut f),
                })
                .collect(),
            accessories: self.accessories.clone(),
            background: self.background.clone(),
        }
    }

    /// Whether the set holds nothing and the background is the default.
    pub fn is_empty(&self) -> bool {
        self.props.is_empty()
            && self.accessories.is_empty()
            && self.background == Background::default()
    }
}

fn file_stem(p: &std::path::Path) -> String {
    p.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}
