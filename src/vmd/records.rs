//! Key records over their raw bytes.
//!
//! Each key holds exactly the bytes it was read from; getters decode fields,
//! setters rewrite only that field's bytes. Frames are MMD frames (30 fps),
//! positions in MMD units (left-handed, Y up), camera angles in radians,
//! field of view in degrees.

use super::bezier::Curve;
use super::error::NameError;
use super::interpolation::{self, BoneChannel, CameraChannel};
use super::layout::*;
use super::name::{DecodedName, NameEncoding, decode_name, encode_name, name_bytes};

#[inline]
fn get_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}
#[inline]
fn get_f32(b: &[u8], at: usize) -> f32 {
    f32::from_bits(get_u32(b, at))
}
#[inline]
fn put_u32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}
#[inline]
fn put_f32(b: &mut [u8], at: usize, v: f32) {
    put_u32(b, at, v.to_bits())
}
fn get_f32s<const N: usize>(b: &[u8], at: usize) -> [f32; N] {
    std::array::from_fn(|i| get_f32(b, at + 4 * i))
}
fn put_f32s(b: &mut [u8], at: usize, v: &[f32]) {
    for (i, x) in v.iter().enumerate() {
        put_f32(b, at + 4 * i, *x);
    }
}

/// What every key record has: a frame number (MMD frames, 30 fps).
pub trait FrameKey {
    fn frame(&self) -> u32;
    fn set_frame(&mut self, f: u32);
}

macro_rules! frame_key {
    ($($t:ty),*) => {$(
        impl FrameKey for $t {
            fn frame(&self) -> u32 {
                <$t>::frame(self)
            }
            fn set_frame(&mut self, f: u32) {
                <$t>::set_frame(self, f)
            }
        }
    )*};
}
frame_key!(BoneKey, MorphKey, CameraKey, LightKey, ShadowKey, IkKey);

/// Writes `text` into a name field, refusing (never cutting) names that do not fit.
fn set_name_field(field: &mut [u8], text: &str, enc: NameEncoding) -> Result<(), NameError> {
    let bytes = encode_name(text, field.len(), enc)?;
    field.copy_from_slice(&bytes);
    Ok(())
}

/// A bone key (111 bytes).
///
/// Exactly its raw bytes (a transparent wrapper, alignment 1): a file's
/// buffer of bone records becomes a `Vec<BoneKey>` without a copy
/// ([`super::read::read_vec`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash, bytemuck::TransparentWrapper)]
#[repr(transparent)]
pub struct BoneKey {
    pub raw: [u8; BONE_KEY_LEN],
}

impl std::fmt::Debug for BoneKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BoneKey")
            .field("name", &self.name().text)
            .field("frame", &self.frame())
            .field("position", &self.position())
            .field("rotation", &self.rotation())
            .finish()
    }
}

impl BoneKey {
    /// A new key with MMD's default (linear, physics on) interpolation block.
    pub fn new(
        name: &str,
        enc: NameEncoding,
        frame: u32,
        position: [f32; 3],
        rotation: [f32; 4],
    ) -> Result<BoneKey, NameError> {
        let mut k = BoneKey {
            raw: [0; BONE_KEY_LEN],
        };
        k.set_name(name, enc)?;
        k.set_frame(frame);
        k.set_position(position);
        k.set_rotation(rotation);
        k.set_interpolation_block(interpolation::DEFAULT_BONE_BLOCK);
        Ok(k)
    }
    /// The 15-byte name field as stored (including padding/junk).
    pub fn name_field(&self) -> &[u8] {
        &self.raw[BONE_NAME..BONE_NAME + NAME_LEN]
    }
    /// The name's bytes up to the first NUL: the track identity.
    pub fn name_key(&self) -> &[u8] {
        name_bytes(self.name_field())
    }
    pub fn name(&self) -> DecodedName {
        decode_name(self.name_field())
    }
    pub fn set_name(&mut self, text: &str, enc: NameEncoding) -> Result<(), NameError> {
        set_name_field(&mut self.raw[BONE_NAME..BONE_NAME + NAME_LEN], text, enc)
    }
    /// Replaces the whole name field with raw bytes (kept as given).
    pub fn set_name_field(&mut self, field: &[u8; NAME_LEN]) {
        self.raw[BONE_NAME..BONE_NAME + NAME_LEN].copy_from_slice(field);
    }
    pub fn frame(&self) -> u32 {
        get_u32(&self.raw, BONE_FRAME)
    }
    pub fn set_frame(&mut self, f: u32) {
        put_u32(&mut self.raw, BONE_FRAME, f)
    }
    /// Offset from the rest pose, MMD units.
    pub fn position(&self) -> [f32; 3] {
        get_f32s(&self.raw, BONE_POSITION)
    }
    pub fn set_position(&mut self, p: [f32; 3]) {
        put_f32s(&mut self.raw, BONE_POSITION, &p)
    }
    /// Quaternion x, y, z, w as stored.
    pub fn rotation(&self) -> [f32; 4] {
        get_f32s(&self.raw, BONE_ROTATION)
    }
    pub fn set_rotation(&mut self, q: [f32; 4]) {
        put_f32s(&mut self.raw, BONE_ROTATION, &q)
    }
    pub fn interpolation_block(&self) -> [u8; 64] {
        let mut b = [0; 64];
        b.copy_from_slice(&self.raw[BONE_INTERPOLATION..BONE_INTERPOLATION + 64]);
        b
    }
    pub fn set_interpolation_block(&mut self, b: [u8; 64]) {
        self.raw[BONE_INTERPOLATION..BONE_INTERPOLATION + 64].copy_from_slice(&b);
    }
    pub fn curve(&self, c: BoneChannel) -> Curve {
        interpolation::bone_curve(&self.interpolation_block(), c)
    }
    pub fn curves(&self) -> [Curve; 4] {
        interpolation::bone_curves(&self.interpolation_block())
    }
    /// Sets one channel's curve: every copy, never the physics bytes.
    pub fn set_curve(&mut self, c: BoneChannel, curve: Curve) {
        let mut b = self.interpolation_block();
        interpolation::set_bone_curve(&mut b, c, curve);
        self.set_interpolation_block(b);
    }
    /// MMD's physics is off for this key (bytes 2–3 = 63 0F).
    pub fn physics_off(&self) -> bool {
        interpolation::physics_off(&self.interpolation_block())
    }
    pub fn set_physics_off(&mut self, off: bool) -> bool {
        let mut b = self.interpolation_block();
        let changed = interpolation::set_physics_off(&mut b, off);
        self.set_interpolation_block(b);
        changed
    }
    /// All four channels are straight lines.
    pub fn is_linear(&self) -> bool {
        self.curves().iter().all(Curve::is_linear)
    }
}

/// A morph (facial) key (23 bytes). Linear, no curve.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct MorphKey {
    pub raw: [u8; MORPH_KEY_LEN],
}

impl std::fmt::Debug for MorphKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MorphKey")
            .field("name", &self.name().text)
            .field("frame", &self.frame())
            .field("weight", &self.weight())
            .finish()
    }
}

impl MorphKey {
    pub fn new(name: &str, enc: NameEncoding, frame: u32, weight: f32) -> Result<Self, NameError> {
        let mut k = MorphKey {
            raw: [0; MORPH_KEY_LEN],
        };
        k.set_name(name, enc)?;
        k.set_frame(frame);
        k.set_weight(weight);
        Ok(k)
    }
    pub fn name_field(&self) -> &[u8] {
        &self.raw[..NAME_LEN]
    }
    pub fn name_key(&self) -> &[u8] {
        name_bytes(self.name_field())
    }
    pub fn name(&self) -> DecodedName {
        decode_name(self.name_field())
    }
    pub fn set_name(&mut self, text: &str, enc: NameEncoding) -> Result<(), NameError> {
        set_name_field(&mut self.raw[..NAME_LEN], text, enc)
    }
    pub fn set_name_field(&mut self, field: &[u8; NAME_LEN]) {
        self.raw[..NAME_LEN].copy_from_slice(field);
    }
    pub fn frame(&self) -> u32 {
        get_u32(&self.raw, MORPH_FRAME)
    }
    pub fn set_frame(&mut self, f: u32) {
        put_u32(&mut self.raw, MORPH_FRAME, f)
    }
    /// Weight, 0.0–1.0.
    pub fn weight(&self) -> f32 {
        get_f32(&self.raw, MORPH_WEIGHT)
    }
    pub fn set_weight(&mut self, w: f32) {
        put_f32(&mut self.raw, MORPH_WEIGHT, w)
    }
}

/// A camera key (61 bytes).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct CameraKey {
    pub raw: [u8; CAMERA_KEY_LEN],
}

impl std::fmt::Debug for CameraKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CameraKey")
            .field("frame", &self.frame())
            .field("distance", &self.distance())
            .field("target", &self.target())
            .field("rotation", &self.rotation())
            .field("fov", &self.fov())
            .finish()
    }
}

impl CameraKey {
    pub fn new(
        frame: u32,
        distance: f32,
        target: [f32; 3],
        rotation: [f32; 3],
        fov: u32,
        perspective: bool,
    ) -> Self {
        let mut k = CameraKey {
            raw: [0; CAMERA_KEY_LEN],
        };
        k.set_frame(frame);
        k.set_distance(distance);
        k.set_target(target);
        k.set_rotation(rotation);
        k.set_interpolation_block(interpolation::DEFAULT_CAMERA_BLOCK);
        k.set_fov(fov);
        k.set_perspective(perspective);
        k
    }
    pub fn frame(&self) -> u32 {
        get_u32(&self.raw, CAMERA_FRAME)
    }
    pub fn set_frame(&mut self, f: u32) {
        put_u32(&mut self.raw, CAMERA_FRAME, f)
    }
    /// Distance from the target; MMD's usual values are negative (pulled back).
    pub fn distance(&self) -> f32 {
        get_f32(&self.raw, CAMERA_DISTANCE)
    }
    pub fn set_distance(&mut self, d: f32) {
        put_f32(&mut self.raw, CAMERA_DISTANCE, d)
    }
    /// Look-at point, MMD coordinates.
    pub fn target(&self) -> [f32; 3] {
        get_f32s(&self.raw, CAMERA_TARGET)
    }
    pub fn set_target(&mut self, t: [f32; 3]) {
        put_f32s(&mut self.raw, CAMERA_TARGET, &t)
    }
    /// Euler angles x, y, z in radians.
    pub fn rotation(&self) -> [f32; 3] {
        get_f32s(&self.raw, CAMERA_ROTATION)
    }
    pub fn set_rotation(&mut self, r: [f32; 3]) {
        put_f32s(&mut self.raw, CAMERA_ROTATION, &r)
    }
    pub fn interpolation_block(&self) -> [u8; 24] {
        let mut b = [0; 24];
        b.copy_from_slice(&self.raw[CAMERA_INTERPOLATION..CAMERA_INTERPOLATION + 24]);
        b
    }
    pub fn set_interpolation_block(&mut self, b: [u8; 24]) {
        self.raw[CAMERA_INTERPOLATION..CAMERA_INTERPOLATION + 24].copy_from_slice(&b);
    }
    pub fn curve(&self, c: CameraChannel) -> Curve {
        interpolation::camera_curve(&self.interpolation_block(), c)
    }
    pub fn curves(&self) -> [Curve; 6] {
        interpolation::camera_curves(&self.interpolation_block())
    }
    pub fn set_curve(&mut self, c: CameraChannel, curve: Curve) {
        let mut b = self.interpolation_block();
        interpolation::set_camera_curve(&mut b, c, curve);
        self.set_interpolation_block(b);
    }
    /// Field of view in degrees.
    pub fn fov(&self) -> u32 {
        get_u32(&self.raw, CAMERA_FOV)
    }
    pub fn set_fov(&mut self, v: u32) {
        put_u32(&mut self.raw, CAMERA_FOV, v)
    }
    /// Perspective on (stored byte is 0 when on).
    pub fn perspective(&self) -> bool {
        self.raw[CAMERA_PERSPECTIVE] == 0
    }
    pub fn perspective_byte(&self) -> u8 {
        self.raw[CAMERA_PERSPECTIVE]
    }
    pub fn set_perspective(&mut self, on: bool) {
        self.raw[CAMERA_PERSPECTIVE] = if on { 0 } else { 1 };
    }
}

/// A light key (28 bytes). Linear, no curve.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct LightKey {
    pub raw: [u8; LIGHT_KEY_LEN],
}

impl std::fmt::Debug for LightKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LightKey")
            .field("frame", &self.frame())
            .field("color", &self.color())
            .field("direction", &self.direction())
            .finish()
    }
}

impl LightKey {
    pub fn new(frame: u32, color: [f32; 3], direction: [f32; 3]) -> Self {
        let mut k = LightKey {
            raw: [0; LIGHT_KEY_LEN],
        };
        k.set_frame(frame);
        k.set_color(color);
        k.set_direction(direction);
        k
    }
    pub fn frame(&self) -> u32 {
        get_u32(&self.raw, LIGHT_FRAME)
    }
    pub fn set_frame(&mut self, f: u32) {
        put_u32(&mut self.raw, LIGHT_FRAME, f)
    }
    /// RGB, 0–1.
    pub fn color(&self) -> [f32; 3] {
        get_f32s(&self.raw, LIGHT_COLOR)
    }
    pub fn set_color(&mut self, c: [f32; 3]) {
        put_f32s(&mut self.raw, LIGHT_COLOR, &c)
    }
    /// Direction of the parallel light (length means nothing).
    pub fn direction(&self) -> [f32; 3] {
        get_f32s(&self.raw, LIGHT_DIRECTION)
    }
    pub fn set_direction(&mut self, d: [f32; 3]) {
        put_f32s(&mut self.raw, LIGHT_DIRECTION, &d)
    }
}

/// A self-shadow key (9 bytes). Holds until the next key.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ShadowKey {
    pub raw: [u8; SHADOW_KEY_LEN],
}

impl std::fmt::Debug for ShadowKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShadowKey")
            .field("frame", &self.frame())
            .field("mode", &self.mode())
            .field("distance", &self.distance())
            .finish()
    }
}

impl ShadowKey {
    pub fn new(frame: u32, mode: u8, distance: f32) -> Self {
        let mut k = ShadowKey {
            raw: [0; SHADOW_KEY_LEN],
        };
        k.set_frame(frame);
        k.set_mode(mode);
        k.set_distance(distance);
        k
    }
    pub fn frame(&self) -> u32 {
        get_u32(&self.raw, SHADOW_FRAME)
    }
    pub fn set_frame(&mut self, f: u32) {
        put_u32(&mut self.raw, SHADOW_FRAME, f)
    }
    /// 0 = off, 1 = mode 1, 2 = mode 2.
    pub fn mode(&self) -> u8 {
        self.raw[SHADOW_MODE]
    }
    pub fn set_mode(&mut self, m: u8) {
        self.raw[SHADOW_MODE] = m
    }
    pub fn distance(&self) -> f32 {
        get_f32(&self.raw, SHADOW_DISTANCE)
    }
    pub fn set_distance(&mut self, d: f32) {
        put_f32(&mut self.raw, SHADOW_DISTANCE, d)
    }
}

/// An IK/show key: frame, model shown, and IK on/off per IK bone.
/// Variable length: 9 + 21 × entries bytes, kept raw.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct IkKey {
    pub raw: Vec<u8>,
}

impl std::fmt::Debug for IkKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IkKey")
            .field("frame", &self.frame())
            .field("show", &self.show())
            .field(
                "entries",
                &(0..self.entry_count())
                    .map(|i| (self.entry_name(i).text, self.entry_enabled(i)))
                    .collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl IkKey {
    pub fn new(frame: u32, show: bool) -> Self {
        let mut raw = vec![0u8; IK_KEY_HEAD_LEN];
        put_u32(&mut raw, 0, frame);
        raw[4] = u8::from(show);
        IkKey { raw }
    }
    pub fn frame(&self) -> u32 {
        get_u32(&self.raw, 0)
    }
    pub fn set_frame(&mut self, f: u32) {
        put_u32(&mut self.raw, 0, f)
    }
    pub fn show(&self) -> bool {
        self.raw[4] != 0
    }
    pub fn set_show(&mut self, s: bool) {
        self.raw[4] = u8::from(s)
    }
    /// Number of IK entries (from the record length, which the reader checked).
    pub fn entry_count(&self) -> usize {
        self.raw.len().saturating_sub(IK_KEY_HEAD_LEN) / IK_ENTRY_LEN
    }
    fn entry_at(&self, i: usize) -> usize {
        IK_KEY_HEAD_LEN + i * IK_ENTRY_LEN
    }
    /// The 20-byte name field of entry `i`.
    pub fn entry_name_field(&self, i: usize) -> &[u8] {
        let at = self.entry_at(i);
        &self.raw[at..at + IK_NAME_LEN]
    }
    pub fn entry_name_key(&self, i: usize) -> &[u8] {
        name_bytes(self.entry_name_field(i))
    }
    pub fn entry_name(&self, i: usize) -> DecodedName {
        decode_name(self.entry_name_field(i))
    }
    pub fn entry_enabled(&self, i: usize) -> bool {
        self.raw[self.entry_at(i) + IK_NAME_LEN] != 0
    }
    pub fn set_entry_enabled(&mut self, i: usize, on: bool) {
        let at = self.entry_at(i) + IK_NAME_LEN;
        self.raw[at] = u8::from(on);
    }
    pub fn set_entry_name(
        &mut self,
        i: usize,
        text: &str,
        enc: NameEncoding,
    ) -> Result<(), NameError> {
        let at = self.entry_at(i);
        set_name_field(&mut self.raw[at..at + IK_NAME_LEN], text, enc)
    }
    /// Appends an entry (name checked against the 20-byte field).
    pub fn push_entry(
        &mut self,
        name: &str,
        enc: NameEncoding,
        enabled: bool,
    ) -> Result<(), NameError> {
        let field = encode_name(name, IK_NAME_LEN, enc)?;
        self.raw.extend_from_slice(&field);
        self.raw.push(u8::from(enabled));
        let n = self.entry_count() as u32;
        put_u32(&mut self.raw, 5, n);
        Ok(())
    }
    /// IK enabled for the bone named by `name_key` (raw bytes before NUL), if listed.
    pub fn enabled_for(&self, name_key: &[u8]) -> Option<bool> {
        (0..self.entry_count())
            .find(|&i| self.entry_name_key(i) == name_key)
            .map(|i| self.entry_enabled(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bone_setters_touch_only_their_bytes() {
        let mut k = BoneKey::new(
            "センター",
            NameEncoding::ShiftJis,
            7,
            [1.0, 2.0, 3.0],
            [0.0, 0.0, 0.0, 1.0],
        )
        .unwrap();
        let before = k.raw;
        k.set_frame(8);
        let changed: Vec<usize> = (0..111).filter(|&i| k.raw[i] != before[i]).collect();
        assert_eq!(changed, vec![15]);
        assert_eq!(k.frame(), 8);
        assert_eq!(k.name().text, "センター");
    }

    #[test]
    fn perspective_byte_zero_means_on() {
        let mut k = CameraKey::new(0, -45.0, [0.0, 10.0, 0.0], [0.0; 3], 30, true);
        assert_eq!(k.raw[60], 0);
        k.set_perspective(false);
        assert_eq!(k.raw[60], 1);
        assert!(!k.perspective());
    }
}
