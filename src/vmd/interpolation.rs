//! The interpolation blocks: 64 bytes per bone key, 24 per camera key.
//!
//! Bone block: the logical order P[0..16] is
//! `X_x1 Y_x1 Z_x1 R_x1, X_y1 Y_y1 Z_y1 R_y1, X_x2 … R_x2, X_y2 … R_y2`,
//! stored as four 16-byte rows where row k holds P shifted left by k
//! (byte `16k + i` = `P[i + k]`). Channel c is read from its own row c.
//! When bytes 16..64 are all zero (tools that fill only row 0) every channel
//! is read from row 0. Row 0 bytes 2–3 hold MMD's per-key physics flag
//! (`63 0F` = physics off), never curve data in a full block.
//!
//! Camera block: six items × (x1, x2, y1, y2): target X, Y, Z, rotation,
//! distance, field of view.

use super::bezier::Curve;

/// The four curves of a bone key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum BoneChannel {
    X,
    Y,
    Z,
    Rotation,
}

impl BoneChannel {
    pub const ALL: [BoneChannel; 4] = [
        BoneChannel::X,
        BoneChannel::Y,
        BoneChannel::Z,
        BoneChannel::Rotation,
    ];
    pub fn index(self) -> usize {
        self as usize
    }
    pub fn label(self) -> &'static str {
        match self {
            BoneChannel::X => "X move",
            BoneChannel::Y => "Y move",
            BoneChannel::Z => "Z move",
            BoneChannel::Rotation => "Rotation",
        }
    }
}

/// The six curves of a camera key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum CameraChannel {
    TargetX,
    TargetY,
    TargetZ,
    Rotation,
    Distance,
    Fov,
}

impl CameraChannel {
    pub const ALL: [CameraChannel; 6] = [
        CameraChannel::TargetX,
        CameraChannel::TargetY,
        CameraChannel::TargetZ,
        CameraChannel::Rotation,
        CameraChannel::Distance,
        CameraChannel::Fov,
    ];
    pub fn index(self) -> usize {
        self as usize
    }
    pub fn label(self) -> &'static str {
        match self {
            CameraChannel::TargetX => "Target X",
            CameraChannel::TargetY => "Target Y",
            CameraChannel::TargetZ => "Target Z",
            CameraChannel::Rotation => "Rotation",
            CameraChannel::Distance => "Distance",
            CameraChannel::Fov => "Field of view",
        }
    }
}

/// Bytes 2–3 of a bone block when MMD's physics is off for the key.
pub const PHYSICS_OFF: [u8; 2] = [0x63, 0x0F];

/// How a bone block lays out its curves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum BoneLayout {
    /// Four shifted rows (what MMD writes).
    Full,
    /// Only row 0 is filled; bytes 16..64 are zero.
    Row0Only,
}

/// Layout of a 64-byte bone block.
pub fn bone_layout(block: &[u8; 64]) -> BoneLayout {
    if block[16..].iter().all(|&b| b == 0) {
        BoneLayout::Row0Only
    } else {
        BoneLayout::Full
    }
}

/// Index of P[j] in row `k` (valid for k ≤ j).
#[inline]
fn copy_index(j: usize, k: usize) -> usize {
    16 * k + j - k
}

/// Reads channel `c`'s curve.
pub fn bone_curve(block: &[u8; 64], c: BoneChannel) -> Curve {
    bone_curve_in(block, bone_layout(block), c)
}

/// Reads channel `c`'s curve from a block whose layout is already known.
#[inline]
fn bone_curve_in(block: &[u8; 64], layout: BoneLayout, c: BoneChannel) -> Curve {
    let c = c.index();
    let row = match layout {
        BoneLayout::Full => c,
        BoneLayout::Row0Only => 0,
    };
    // In row `row`, byte 16·row + i holds P[i + row]; P[c + 4m] sits at i = c + 4m − row.
    let at = |m: usize| block[copy_index(c + 4 * m, row)];
    Curve {
        x1: at(0),
        y1: at(1),
        x2: at(2),
        y2: at(3),
    }
}

/// All four curves.
pub fn bone_curves(block: &[u8; 64]) -> [Curve; 4] {
    let layout = bone_layout(block);
    BoneChannel::ALL.map(|c| bone_curve_in(block, layout, c))
}

/// Writes channel `c`'s curve into every copy of each of its values — in a
/// row-0-only block only row 0 — except row 0 bytes 2–3 of a full block,
/// which keep the physics flag. No other byte changes.
pub fn set_bone_curve(block: &mut [u8; 64], c: BoneChannel, curve: Curve) {
    let layout = bone_layout(block);
    let c = c.index();
    let vals = [curve.x1, curve.y1, curve.x2, curve.y2];
    for (m, &v) in vals.iter().enumerate() {
        let j = c + 4 * m;
        match layout {
            BoneLayout::Row0Only => block[j] = v,
            BoneLayout::Full => {
                for k in 0..=j.min(3) {
                    let i = copy_index(j, k);
                    if k == 0 && (i == 2 || i == 3) {
                        continue;
                    }
                    block[i] = v;
                }
            }
        }
    }
}

/// Physics off for this key (row 0 bytes 2–3 are `63 0F` in a full block).
pub fn physics_off(block: &[u8; 64]) -> bool {
    bone_layout(block) == BoneLayout::Full && block[2..4] == PHYSICS_OFF
}

/// Sets the physics flag: `63 0F` for off, `00 00` for on. A row-0-only
/// block has no flag (its bytes 2–3 are curve values) and is left unchanged;
/// returns whether the block changed.
pub fn set_physics_off(block: &mut [u8; 64], off: bool) -> bool {
    if bone_layout(block) == BoneLayout::Row0Only {
        return false;
    }
    let want = if off { PHYSICS_OFF } else { [0, 0] };
    if block[2..4] == want {
        return false;
    }
    block[2..4].copy_from_slice(&want);
    true
}

/// Which copies in a bone block disagree with the value a reader takes.
/// Returns (byte index, value read, value found) for each disagreeing copy.
pub fn bone_copy_disagreements(block: &[u8; 64]) -> Vec<(usize, u8, u8)> {
    let mut out = Vec::new();
    if bone_layout(block) == BoneLayout::Row0Only {
        return out;
    }
    for c in BoneChannel::ALL {
        let curve = bone_curve(block, c);
        let vals = [curve.x1, curve.y1, curve.x2, curve.y2];
        for (m, &v) in vals.iter().enumerate() {
            let j = c.index() + 4 * m;
            for k in 0..=j.min(3) {
                let i = copy_index(j, k);
                if k == 0 && (i == 2 || i == 3) {
                    continue;
                }
                if block[i] != v {
                    out.push((i, v, block[i]));
                }
            }
        }
    }
    out
}

/// What a reader that takes every channel from row 0 (three.js, saba,
/// nanoem) sees: Z and rotation x1 come from bytes 2–3.
pub fn bone_curves_row0_reader(block: &[u8; 64]) -> [Curve; 4] {
    let mut out = [Curve::LINEAR; 4];
    for (c, o) in out.iter_mut().enumerate() {
        *o = Curve {
            x1: block[c],
            y1: block[c + 4],
            x2: block[c + 8],
            y2: block[c + 12],
        };
    }
    out
}

/// The byte indices holding each copy of channel `c`'s values (for the
/// forensics view): `[x1, y1, x2, y2]` → list of byte indices.
pub fn bone_copy_indices(c: BoneChannel) -> [Vec<usize>; 4] {
    std::array::from_fn(|m| {
        let j = c.index() + 4 * m;
        (0..=j.min(3)).map(|k| copy_index(j, k)).collect()
    })
}

/// MMD's default block for a new key (all four curves linear, physics on).
pub const DEFAULT_BONE_BLOCK: [u8; 64] = [
    20, 20, 0, 0, 20, 20, 20, 20, 107, 107, 107, 107, 107, 107, 107, 107, //
    20, 20, 20, 20, 20, 20, 20, 107, 107, 107, 107, 107, 107, 107, 107, 0, //
    20, 20, 20, 20, 20, 20, 107, 107, 107, 107, 107, 107, 107, 107, 0, 0, //
    20, 20, 20, 20, 20, 107, 107, 107, 107, 107, 107, 107, 107, 0, 0, 0,
];

/// Reads camera item `c`: bytes 4c..4c+4 are x1, x2, y1, y2.
pub fn camera_curve(block: &[u8; 24], c: CameraChannel) -> Curve {
    let i = 4 * c.index();
    Curve {
        x1: block[i],
        x2: block[i + 1],
        y1: block[i + 2],
        y2: block[i + 3],
    }
}

pub fn camera_curves(block: &[u8; 24]) -> [Curve; 6] {
    CameraChannel::ALL.map(|c| camera_curve(block, c))
}

pub fn set_camera_curve(block: &mut [u8; 24], c: CameraChannel, curve: Curve) {
    let i = 4 * c.index();
    block[i] = curve.x1;
    block[i + 1] = curve.x2;
    block[i + 2] = curve.y1;
    block[i + 3] = curve.y2;
}

/// A camera block with all six curves linear.
pub const DEFAULT_CAMERA_BLOCK: [u8; 24] = [
    20, 107, 20, 107, 20, 107, 20, 107, 20, 107, 20, 107, //
    20, 107, 20, 107, 20, 107, 20, 107, 20, 107, 20, 107,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_block_reads_linear_and_physics_on() {
        for c in BoneChannel::ALL {
            assert_eq!(bone_curve(&DEFAULT_BONE_BLOCK, c), Curve::LINEAR);
        }
        assert!(!physics_off(&DEFAULT_BONE_BLOCK));
        assert!(bone_copy_disagreements(&DEFAULT_BONE_BLOCK).is_empty());
    }

    #[test]
    fn each_channel_is_read_from_its_own_row_not_bytes_2_3() {
        let mut b = DEFAULT_BONE_BLOCK;
        b[2] = 0x63;
        b[3] = 0x0F;
        // Z x1 lives at row 1 byte 1 (17) and row 2 byte 0 (32).
        b[17] = 90;
        b[32] = 90;
        // R x1 at 18, 33, 48.
        b[18] = 5;
        b[33] = 5;
        b[48] = 5;
        assert_eq!(bone_curve(&b, BoneChannel::Z).x1, 90);
        assert_eq!(bone_curve(&b, BoneChannel::Rotation).x1, 5);
        assert!(physics_off(&b));
        // A row-0 reader would take x1 = 0x63 and 0x0F.
        let r0 = bone_curves_row0_reader(&b);
        assert_eq!((r0[2].x1, r0[3].x1), (0x63, 0x0F));
    }

    #[test]
    fn set_curve_writes_every_copy_but_bytes_2_3() {
        let mut b = DEFAULT_BONE_BLOCK;
        b[2] = 0x63;
        b[3] = 0x0F;
        b[31] = 0xAB; // filler
        let before = b;
        let curve = Curve::new(1, 2, 3, 4);
        set_bone_curve(&mut b, BoneChannel::Rotation, curve);
        assert_eq!(bone_curve(&b, BoneChannel::Rotation), curve);
        // Rotation values are P[3], P[7], P[11], P[15].
        // Copies: P[3] → 18, 33, 48 (row 0 byte 3 skipped); P[7] → 7, 22, 37, 52;
        // P[11] → 11, 26, 41, 56; P[15] → 15, 30, 45, 60.
        let expected: Vec<usize> = vec![7, 11, 15, 18, 22, 26, 30, 33, 37, 41, 45, 48, 52, 56, 60];
        let changed: Vec<usize> = (0..64).filter(|&i| b[i] != before[i]).collect();
        assert_eq!(changed, expected);
        assert_eq!(&b[2..4], &PHYSICS_OFF);
        assert_eq!(b[31], 0xAB);
        for c in [BoneChannel::X, BoneChannel::Y, BoneChannel::Z] {
            assert_eq!(bone_curve(&b, c), Curve::LINEAR);
        }
    }

    #[test]
    fn row0_only_block_reads_and_writes_row_0() {
        let mut b = [0u8; 64];
        // X (10,11,12,13) at 0,4,8,12; Z x1 at 2; R x1 at 3.
        b[..16].copy_from_slice(&[
            10, 20, 30, 40, 11, 21, 31, 41, 12, 22, 32, 42, 13, 23, 33, 43,
        ]);
        assert_eq!(bone_layout(&b), BoneLayout::Row0Only);
        assert_eq!(bone_curve(&b, BoneChannel::X), Curve::new(10, 11, 12, 13));
        assert_eq!(
            bone_curve(&b, BoneChannel::Rotation),
            Curve::new(40, 41, 42, 43)
        );
        set_bone_curve(&mut b, BoneChannel::Z, Curve::new(1, 2, 3, 4));
        assert_eq!(&b[16..], &[0u8; 48][..]);
        assert_eq!((b[2], b[6], b[10], b[14]), (1, 2, 3, 4));
        assert!(!physics_off(&b));
    }

    #[test]
    fn camera_order_is_x1_x2_y1_y2() {
        let mut b = DEFAULT_CAMERA_BLOCK;
        set_camera_curve(&mut b, CameraChannel::Distance, Curve::new(1, 2, 3, 4));
        assert_eq!(&b[16..20], &[1, 3, 2, 4]);
        assert_eq!(
            camera_curve(&b, CameraChannel::Distance),
            Curve::new(1, 2, 3, 4)
        );
        assert_eq!(camera_curve(&b, CameraChannel::Fov), Curve::LINEAR);
    }
}
