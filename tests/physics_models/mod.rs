//! Generated models that show where our physics and MMD's Bullet part ways
//! (issue 40), shared by the physics golden tests and by the Bullet
//! reference tool (`tools/physics-reference`, which includes this file by
//! path): the golden directions in `tests/data/physics/` were computed by
//! Bullet from exactly these models.
//!
//! Rigged as real models rig chains: one bone per link, each body a capsule
//! spanning its bone (centred halfway to the next bone, its Y axis along
//! the link), each joint at its child bone's head, translation locked,
//! rotation limited, rotation springs. Units are MMD's (about 8 cm).

#![allow(dead_code)]

pub mod fuzz_input;

use glam::{EulerRot, Mat4, Quat, Vec3};
use vmd_studio::model::{Bone, Format, Joint, Model, PhysicsMode, RigidBody, Shape};

/// The names the tests and the reference tool know the models by.
pub const GENERATED: [&str; 2] = ["sleeve", "twintail"];

/// The generated model called `name` (see [`GENERATED`]).
pub fn generated(name: &str) -> Option<Model> {
    match name {
        "sleeve" => Some(sleeve()),
        "twintail" => Some(twin_tail()),
        _ => None,
    }
}

/// The generated motions the in-motion goldens use (see [`motion_pose`]).
pub const MOTIONS: [&str; 2] = ["fast", "sway"];

/// Bone matrices before physics at `seconds` into the generated motion
/// `name`, or `None` for an unknown name. `"fast"` is the fast dance of
/// the physics stretch tests (`benches/support/physics_model.rs`), by time:
/// the whole body spins ±1.5 rad about Y at 1.5 Hz, jumps 3 units at 2 Hz
/// and sways 4 units sideways at 1 Hz; on top of that a bone named 左腕
/// (the sleeve's arm) and the bones below it swing ±0.6 rad about Z at its
/// head at 0.75 Hz, and a bone named 頭 (the twin tails' head) and the
/// bones below it nod ±0.4 rad about X at 1.25 Hz. `"sway"` is a calm
/// dance at a fifth of those amplitudes and half their rates (the body
/// turns ±0.3 rad at 0.75 Hz, bobs 0.6 units at 1 Hz, sways 0.8 units at
/// 0.5 Hz; the arm swings ±0.12 rad, the head nods ±0.08 rad). Shared with
/// the reference tool, so Bullet and our engine see the same bones.
pub fn motion_pose(name: &str, model: &Model, seconds: f32) -> Option<Vec<Mat4>> {
    let (size, rate) = match name {
        "fast" => (1.0, 1.0),
        "sway" => (0.2, 0.5),
        _ => return None,
    };
    let tau = std::f32::consts::TAU;
    let t = seconds * rate;
    let body = Mat4::from_rotation_translation(
        Quat::from_rotation_y(size * 1.5 * (tau * 1.5 * t).sin()),
        size * Vec3::new(
            4.0 * (tau * t).sin(),
            3.0 * (tau * 2.0 * t).sin().abs(),
            0.0,
        ),
    );
    let bones = &model.skeleton.bones;
    let turn = |name: &str| match name {
        "左腕" => Quat::from_rotation_z(size * 0.6 * (tau * 0.75 * t).sin()),
        "頭" => Quat::from_rotation_x(size * 0.4 * (tau * 1.25 * t).sin()),
        _ => Quat::IDENTITY,
    };
    // Forward kinematics: a bone turns about its own head; parents come
    // first in the generated models.
    let mut world: Vec<Mat4> = Vec::with_capacity(bones.len());
    for (b, bone) in bones.iter().enumerate() {
        let (above, offset) = match bone.parent.filter(|&p| p < b) {
            Some(p) => (world[p], bone.rest_position - bones[p].rest_position),
            None => (body, bone.rest_position),
        };
        world.push(above * Mat4::from_rotation_translation(turn(&bone.name), offset));
    }
    Some(world)
}

/// Bone `b`'s own axis in its rest frame (bone matrices carry no rotation
/// at rest): towards its first child, or on from its parent. The twist
/// and axis comparisons of the Bullet tests turn it by each engine's
/// world rotation of the bone.
pub fn rest_axis(model: &Model, b: usize) -> Vec3 {
    let bones = &model.skeleton.bones;
    let head = bones[b].rest_position;
    let child = bones.iter().position(|c| c.parent == Some(b));
    let to = child.map(|c| bones[c].rest_position - head);
    let from = bones[b].parent.map(|p| head - bones[p].rest_position);
    to.filter(|v| v.length() > 1.0e-4)
        .or(from)
        .unwrap_or(Vec3::Y)
        .normalize_or_zero()
}

/// The twist (degrees, 0..180) of world rotation `ours` relative to
/// `bullet` about the world axis `axis`: the angle of the twist part of
/// the swing–twist split of `ours · bullet⁻¹` (what a comparison of
/// directions cannot see).
pub fn twist_degrees(ours: Quat, bullet: Quat, axis: Vec3) -> f32 {
    let r = ours * bullet.conjugate();
    let axis = axis.normalize_or_zero();
    let along = Vec3::new(r.x, r.y, r.z).dot(axis);
    let len = (along * along + r.w * r.w).sqrt();
    if len < 1.0e-6 {
        return 0.0;
    }
    (2.0 * (r.w.abs() / len).clamp(0.0, 1.0).acos()).to_degrees()
}

/// MMD's Euler angles (radians, applied Y, X, Z) of the rotation taking the
/// Y axis onto `dir`.
fn euler_along(dir: Vec3) -> Vec3 {
    let q = Quat::from_rotation_arc(Vec3::Y, dir.normalize());
    let (y, x, z) = q.to_euler(EulerRot::YXZ);
    Vec3::new(x, y, z)
}

fn body(name: &str, bone: usize, mode: PhysicsMode, group: u8, mask: u16) -> RigidBody {
    RigidBody {
        name: name.to_string(),
        name_en: String::new(),
        bone: Some(bone),
        group,
        no_collision: mask,
        shape: Shape::Capsule,
        size: Vec3::new(0.3, 1.0, 0.0),
        position: Vec3::ZERO,
        rotation: Vec3::ZERO,
        mass: 1.0,
        linear_damping: 0.5,
        angular_damping: 0.5,
        restitution: 0.0,
        friction: 0.5,
        mode,
    }
}

/// A joint at `position` with translation locked and the rotation limits
/// (radians, lower then upper) and springs given.
fn joint(
    a: usize,
    b: usize,
    position: Vec3,
    rotation: Vec3,
    limits: (Vec3, Vec3),
    spring: Vec3,
) -> Joint {
    Joint {
        name: format!("j{a}-{b}"),
        name_en: String::new(),
        kind: 0,
        rigid_bodies: [Some(a), Some(b)],
        position,
        rotation,
        translation_limits: (Vec3::ZERO, Vec3::ZERO),
        rotation_limits: limits,
        spring_translation: Vec3::ZERO,
        spring_rotation: spring,
    }
}

/// Adds a chain of dynamic bodies on the bones `heads` (their parent is
/// `parent_bone`, the first joint hangs from body `anchor`), the last head
/// being the tip (a bone without a body). Returns the chain's bone indices.
#[allow(clippy::too_many_arguments)]
fn chain(
    m: &mut Model,
    tag: &str,
    parent_bone: usize,
    anchor: usize,
    heads: &[Vec3],
    radius: f32,
    group: u8,
    mask: u16,
    joint_rotation: Vec3,
    limits: (Vec3, Vec3),
    spring: Vec3,
) -> Vec<usize> {
    let first_bone = m.skeleton.bones.len();
    for (k, &head) in heads.iter().enumerate() {
        let parent = if k == 0 {
            parent_bone
        } else {
            first_bone + k - 1
        };
        m.skeleton
            .bones
            .push(Bone::new(format!("{tag}{k}"), Some(parent), head));
    }
    let mut previous = anchor;
    for k in 0..heads.len() - 1 {
        let (head, next) = (heads[k], heads[k + 1]);
        let link = next - head;
        let mut rb = body(
            &format!("{tag}{k}"),
            first_bone + k,
            PhysicsMode::Physics,
            group,
            mask,
        );
        rb.size = Vec3::new(radius, (link.length() - 2.0 * radius).max(0.1), 0.0);
        rb.position = head + link * 0.5;
        rb.rotation = euler_along(link);
        let index = m.rigid_bodies.len();
        m.rigid_bodies.push(rb);
        m.joints
            .push(joint(previous, index, head, joint_rotation, limits, spring));
        previous = index;
    }
    (first_bone..first_bone + heads.len()).collect()
}

/// The "starched sleeve": a horizontal arm (a kinematic capsule along X)
/// with a sleeve chain of four links hanging from it, laid out along the
/// arm and a little below it. Its joints allow ±60° about Z (the bend that
/// lets it fall), ±20° about X and ±10° about Y, with weak springs; the
/// sleeve collides with the arm but not with itself.
pub fn sleeve() -> Model {
    let mut m = Model::empty(Format::Pmx { version: 2.0 });
    m.name = "generated sleeve".to_string();
    let bones = &mut m.skeleton.bones;
    bones.push(Bone::new(
        "センター".to_string(),
        None,
        Vec3::new(0.0, 8.0, 0.0),
    ));
    bones.push(Bone::new(
        "左腕".to_string(),
        Some(0),
        Vec3::new(1.5, 14.0, 0.0),
    ));
    bones.push(Bone::new(
        "左ひじ".to_string(),
        Some(1),
        Vec3::new(6.0, 14.0, 0.0),
    ));
    // The arm: a kinematic capsule along +X from the shoulder to the elbow.
    let mut arm = body("左腕", 1, PhysicsMode::FollowBone, 0, 0xFFFF);
    arm.size = Vec3::new(0.6, 3.3, 0.0);
    arm.position = Vec3::new(3.75, 14.0, 0.0);
    arm.rotation = euler_along(Vec3::X);
    m.rigid_bodies.push(arm);
    let heads = [
        Vec3::new(2.5, 13.4, 0.3),
        Vec3::new(4.0, 13.1, 0.5),
        Vec3::new(5.5, 12.8, 0.7),
        Vec3::new(7.0, 12.5, 0.9),
        Vec3::new(8.5, 12.2, 1.1),
    ];
    let deg = std::f32::consts::PI / 180.0;
    chain(
        &mut m,
        "左袖",
        1,
        0,
        &heads,
        0.35,
        3,
        !(1 << 3),
        Vec3::ZERO,
        (
            Vec3::new(-20.0 * deg, -10.0 * deg, -60.0 * deg),
            Vec3::new(20.0 * deg, 10.0 * deg, 60.0 * deg),
        ),
        Vec3::splat(5.0),
    );
    m
}

/// Twin tails: a kinematic head sphere with two chains of five links
/// leaving it sideways and falling down, their joints turned (YXZ Euler
/// (0.1, 0.3, 0.2) on the left, mirrored on the right), with asymmetric
/// rotation limits and springs: the limits hold the tails out, the springs
/// pull them back towards their rest shape.
pub fn twin_tail() -> Model {
    let mut m = Model::empty(Format::Pmx { version: 2.0 });
    m.name = "generated twin tails".to_string();
    let bones = &mut m.skeleton.bones;
    bones.push(Bone::new(
        "センター".to_string(),
        None,
        Vec3::new(0.0, 8.0, 0.0),
    ));
    bones.push(Bone::new(
        "頭".to_string(),
        Some(0),
        Vec3::new(0.0, 18.0, 0.0),
    ));
    let mut head = body("頭", 1, PhysicsMode::FollowBone, 0, 0xFFFF);
    head.shape = Shape::Sphere;
    head.size = Vec3::new(1.6, 0.0, 0.0);
    head.position = Vec3::new(0.0, 19.5, 0.0);
    m.rigid_bodies.push(head);
    let deg = std::f32::consts::PI / 180.0;
    for side in [1.0f32, -1.0] {
        let heads: Vec<Vec3> = [
            (1.6, 20.6, 0.6),
            (3.0, 19.6, 1.0),
            (4.0, 17.8, 1.3),
            (4.6, 15.8, 1.5),
            (4.9, 13.8, 1.6),
            (5.0, 11.8, 1.6),
        ]
        .iter()
        .map(|&(x, y, z)| Vec3::new(side * x, y, z))
        .collect();
        let tag = if side > 0.0 { "左髪" } else { "右髪" };
        // Mirrored across X = 0: X stays, Y and Z turn the other way.
        chain(
            &mut m,
            tag,
            1,
            0,
            &heads,
            0.4,
            2,
            !(1 << 2),
            Vec3::new(0.1, 0.3 * side, 0.2 * side),
            (
                Vec3::new(-15.0 * deg, -10.0 * deg, -40.0 * deg),
                Vec3::new(30.0 * deg, 10.0 * deg, 20.0 * deg),
            ),
            Vec3::new(20.0, 10.0, 20.0),
        );
    }
    m
}
