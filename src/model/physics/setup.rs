//! From the model's rigid bodies and joints to a description of the world
//! that is safe to simulate: every number finite and in range, every
//! reference valid, each bone driven by at most one body. What had to be
//! changed is listed as a warning; nothing here panics.

use glam::{EulerRot, Mat4, Quat, Vec3};

use crate::model::data::{Joint, Model, PhysicsMode, RigidBody, Shape};
use crate::model::skeleton::Bone;

/// Smallest and largest size (radius, half extent, capsule height) a body
/// may have, model units. Zero-size shapes are legal in Bullet but give a
/// rapier collider no volume and no inertia.
pub const MIN_SIZE: f32 = 1.0e-3;
/// See [`MIN_SIZE`].
pub const MAX_SIZE: f32 = 1.0e3;
/// Largest mass accepted (model masses are 0.1–10; MMD's editor caps far
/// below this).
pub const MAX_MASS: f32 = 1.0e6;
/// Largest joint spring stiffness accepted.
pub const MAX_STIFFNESS: f32 = 1.0e6;
/// Farthest from the origin (model units, about 8 km) that a body, a joint
/// or a bone anchoring a body may sit. Real models stay within a few
/// hundred units; a finite coordinate of 1e30 still overflows the
/// products of poses and the engine's squared distances to infinity.
pub const MAX_COORDINATE: f32 = 1.0e5;

/// How a body moves in the world (after sanitizing and demotion).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyMode {
    /// Kinematic: moved to its bone every step (MMD mode 0, or a dynamic
    /// body that cannot be simulated).
    FollowBone,
    /// Dynamic; drives its bone's whole transform (mode 1).
    Physics,
    /// Dynamic; drives its bone's rotation, the bone keeps its animated
    /// translation (mode 2).
    PhysicsKeepTranslation,
}

impl BodyMode {
    /// Whether the world simulates the body.
    pub fn is_dynamic(self) -> bool {
        !matches!(self, BodyMode::FollowBone)
    }
}

/// Collision shape with sizes in model units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BodyShape {
    Sphere {
        radius: f32,
    },
    Box {
        half_extents: Vec3,
    },
    /// Along the body's Y axis; `height` is the cylinder part.
    Capsule {
        radius: f32,
        height: f32,
    },
}

/// One body ready for the world.
#[derive(Debug, Clone, PartialEq)]
pub struct BodySetup {
    /// Index in `Model::rigid_bodies`.
    pub index: usize,
    pub name: String,
    /// The bone it follows or drives; `None` for a body without a valid bone
    /// (it stays at its bind pose when kinematic and drives nothing when
    /// dynamic).
    pub bone: Option<usize>,
    /// Mode after sanitizing and the mode-2 demotion.
    pub mode: BodyMode,
    /// Mode as the file states it (for listings).
    pub file_mode: PhysicsMode,
    /// Whether this body writes its bone (the first dynamic body naming a
    /// bone does; later ones simulate only).
    pub drives_bone: bool,
    pub shape: BodyShape,
    /// Mass (1 for kinematic bodies, whose mass the world ignores).
    pub mass: f32,
    /// Bullet's per-second damping factors, 0..1.
    pub linear_damping: f32,
    pub angular_damping: f32,
    pub friction: f32,
    pub restitution: f32,
    /// Collision group 0..15 (the body is in group `1 << group`).
    pub group: u8,
    /// Groups it collides with (bit `g` set = collides with group `g`).
    pub mask: u16,
    /// Body → model space at the bind pose.
    pub bind: Mat4,
    /// Body pose relative to its bone: `inverse(bone bind) · bind`, so that
    /// `body = bone_world · offset` (identity-free for a boneless body).
    pub offset: Mat4,
}

/// Which joint axes are locked, limited or free.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AxisLimit {
    /// `lower == upper`: held at that value.
    Locked(f32),
    /// Between the two values.
    Range(f32, f32),
    /// `lower > upper` (Bullet's way of saying "no limit").
    Free,
}

/// One 6DOF spring joint ready for the world.
#[derive(Debug, Clone, PartialEq)]
pub struct JointSetup {
    /// Index in `Model::joints`.
    pub index: usize,
    pub name: String,
    /// Indices into the world's body list (= model body indices).
    pub bodies: [usize; 2],
    /// Joint → model space at the bind pose.
    pub frame: Mat4,
    /// Translation X, Y, Z then rotation X, Y, Z.
    pub limits: [AxisLimit; 6],
    /// Spring stiffness, translation X, Y, Z then rotation X, Y, Z.
    pub springs: [f32; 6],
}

/// The whole world description and what was changed to get it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WorldSetup {
    pub bodies: Vec<BodySetup>,
    pub joints: Vec<JointSetup>,
    /// Each problem found and what was done, naming the body or joint.
    pub warnings: Vec<String>,
}

/// MMD's body/joint orientation: Euler radians applied in YXZ order.
pub fn euler_yxz(r: Vec3) -> Quat {
    Quat::from_euler(EulerRot::YXZ, r.y, r.x, r.z)
}

fn finite3(v: Vec3) -> bool {
    v.is_finite()
}

/// Finite and within [`MAX_COORDINATE`] of the origin on every axis.
pub(crate) fn in_world(v: Vec3) -> bool {
    v.is_finite() && v.abs().max_element() <= MAX_COORDINATE
}

/// Reads the model's bodies and joints into a [`WorldSetup`].
pub fn world_setup(model: &Model) -> WorldSetup {
    let bones = &model.skeleton.bones;
    let mut warnings = Vec::new();
    let mut bodies: Vec<BodySetup> = Vec::with_capacity(model.rigid_bodies.len());

    for (index, rb) in model.rigid_bodies.iter().enumerate() {
        bodies.push(body_setup(index, rb, bones, &mut warnings));
    }

    let driver = assign_drivers(&mut bodies, bones.len(), &mut warnings);
    demote_keep_translation(&mut bodies, bones, &driver);

    let mut joints = Vec::with_capacity(model.joints.len());
    for (index, j) in model.joints.iter().enumerate() {
        if let Some(joint) = joint_setup(index, j, bodies.len(), &mut warnings) {
            joints.push(joint);
        }
    }

    WorldSetup {
        bodies,
        joints,
        warnings,
    }
}

/// One rigid body read and repaired into a [`BodySetup`] (not yet driving
/// its bone: see [`assign_drivers`]).
fn body_setup(
    index: usize,
    rb: &RigidBody,
    bones: &[Bone],
    warnings: &mut Vec<String>,
) -> BodySetup {
    let label = format!("rigid body {index} \"{}\"", rb.name);
    let bone = body_bone(&label, rb, bones, warnings);
    let mut mode = match rb.mode {
        PhysicsMode::FollowBone => BodyMode::FollowBone,
        PhysicsMode::Physics => BodyMode::Physics,
        PhysicsMode::PhysicsWithBone => BodyMode::PhysicsKeepTranslation,
    };
    let shape = body_shape(&label, rb, warnings);

    let mut mass = rb.mass;
    if mode.is_dynamic() && !(mass.is_finite() && mass > 0.0 && mass <= MAX_MASS) {
        warnings.push(format!(
            "{label}: mass {mass} (must be above 0 and at most {MAX_MASS}); the body follows its bone"
        ));
        mode = BodyMode::FollowBone;
    }
    if !mode.is_dynamic() || !mass.is_finite() || mass <= 0.0 {
        mass = 1.0;
    }
    let linear_damping = unit(&label, rb.linear_damping, "linear damping", 0.5, warnings);
    let angular_damping = unit(&label, rb.angular_damping, "angular damping", 0.5, warnings);
    let restitution = unit(&label, rb.restitution, "restitution", 0.0, warnings);
    let friction = if rb.friction.is_finite() {
        rb.friction.clamp(0.0, 10.0)
    } else {
        warnings.push(format!("{label}: friction {}; using 0.5", rb.friction));
        0.5
    };
    let group = if rb.group > 15 {
        warnings.push(format!(
            "{label}: collision group {} (expected 0 to 15); using {}",
            rb.group,
            rb.group & 15
        ));
        rb.group & 15
    } else {
        rb.group
    };
    let (bind, offset) = body_pose(&label, rb, bone, bones, warnings);

    BodySetup {
        index,
        name: rb.name.clone(),
        bone,
        mode,
        file_mode: rb.mode,
        drives_bone: false,
        shape,
        mass,
        linear_damping,
        angular_damping,
        friction,
        restitution,
        group,
        mask: rb.no_collision,
        bind,
        offset,
    }
}

/// The body's bone when it is one that can anchor a body, warning when it
/// is missing or unusable.
fn body_bone(
    label: &str,
    rb: &RigidBody,
    bones: &[Bone],
    warnings: &mut Vec<String>,
) -> Option<usize> {
    let bone = rb.bone.filter(|&b| b < bones.len());
    if rb.bone.is_some() && bone.is_none() {
        warnings.push(format!(
            "{label}: bone index out of range; treated as boneless"
        ));
    }
    // A bone whose rest position is not a point of the world cannot
    // anchor a body: the body's offset from it would not be finite
    // (the fuzz finding physics-body-non-finite.bin: a NaN bone).
    let bone = match bone {
        Some(b) if !in_world(bones[b].rest_position) => {
            warnings.push(format!(
                "{label}: bone {b}'s rest position {} is not finite or too far; treated as boneless",
                bones[b].rest_position
            ));
            None
        }
        other => other,
    };
    if bone.is_none() {
        warnings.push(format!(
            "{label}: no bone; {}",
            if rb.mode == PhysicsMode::FollowBone {
                "it stays at its bind pose"
            } else {
                "it is simulated but drives no bone"
            }
        ));
    }
    bone
}

/// The body's collision shape with every size brought into range.
fn body_shape(label: &str, rb: &RigidBody, warnings: &mut Vec<String>) -> BodyShape {
    match rb.shape {
        Shape::Sphere => BodyShape::Sphere {
            radius: size(label, rb.size.x, "radius", warnings),
        },
        Shape::Box => BodyShape::Box {
            half_extents: Vec3::new(
                size(label, rb.size.x, "half extent x", warnings),
                size(label, rb.size.y, "half extent y", warnings),
                size(label, rb.size.z, "half extent z", warnings),
            ),
        },
        Shape::Capsule => BodyShape::Capsule {
            radius: size(label, rb.size.x, "radius", warnings),
            height: size(label, rb.size.y, "height", warnings),
        },
    }
}

/// A shape size within [`MIN_SIZE`]..=[`MAX_SIZE`], warning unless it was 0.
fn size(label: &str, v: f32, what: &str, warnings: &mut Vec<String>) -> f32 {
    if !v.is_finite() || !(MIN_SIZE..=MAX_SIZE).contains(&v) {
        let fixed = if v.is_finite() {
            v.clamp(MIN_SIZE, MAX_SIZE)
        } else {
            MIN_SIZE
        };
        // A zero size is common and harmless in MMD: no warning.
        if v != 0.0 {
            warnings.push(format!("{label}: {what} {v} out of range; using {fixed}"));
        }
        fixed
    } else {
        v
    }
}

/// A factor clamped to 0..1, or `fallback` (with a warning) when not finite.
fn unit(label: &str, v: f32, what: &str, fallback: f32, warnings: &mut Vec<String>) -> f32 {
    if v.is_finite() {
        v.clamp(0.0, 1.0)
    } else {
        warnings.push(format!("{label}: {what} {v}; using {fallback}"));
        fallback
    }
}

/// The body's bind pose (body → model space) and its offset from its bone.
fn body_pose(
    label: &str,
    rb: &RigidBody,
    bone: Option<usize>,
    bones: &[Bone],
    warnings: &mut Vec<String>,
) -> (Mat4, Mat4) {
    let bone_bind = bone.map(|b| Mat4::from_translation(bones[b].rest_position));
    let bone_origin = bone.map(|b| bones[b].rest_position).unwrap_or(Vec3::ZERO);
    let position = if in_world(rb.position) {
        rb.position
    } else {
        warnings.push(format!(
            "{label}: position not finite or past {MAX_COORDINATE} units ({}); placed at its bone",
            rb.position
        ));
        bone_origin
    };
    let rotation = if finite3(rb.rotation) {
        euler_yxz(rb.rotation)
    } else {
        warnings.push(format!("{label}: rotation not finite; using none"));
        Quat::IDENTITY
    };
    let rotation = if rotation.is_finite() && rotation.length_squared() > 0.5 {
        rotation.normalize()
    } else {
        Quat::IDENTITY
    };
    let bind = Mat4::from_rotation_translation(rotation, position);
    let offset = bone_bind.map(|b| b.inverse() * bind).unwrap_or(bind);
    (bind, offset)
}

/// Marks which body drives each bone and returns the driver per bone.
fn assign_drivers(
    bodies: &mut [BodySetup],
    bone_count: usize,
    warnings: &mut Vec<String>,
) -> Vec<Option<usize>> {
    // Which body drives each bone: the first dynamic body (file order)
    // naming it. Later dynamic bodies on the same bone simulate only.
    let mut driver: Vec<Option<usize>> = vec![None; bone_count];
    for (i, b) in bodies.iter_mut().enumerate() {
        let Some(bone) = b.bone else { continue };
        if !b.mode.is_dynamic() {
            continue;
        }
        match driver[bone] {
            None => {
                driver[bone] = Some(i);
                b.drives_bone = true;
            }
            Some(first) => warnings.push(format!(
                "rigid body {i} \"{}\": bone {} is already driven by rigid body {first}; this body simulates without writing it",
                b.name, bone
            )),
        }
    }
    driver
}

/// Turns mode-2 bodies whose bone's parent is physics-driven into mode 1.
fn demote_keep_translation(bodies: &mut [BodySetup], bones: &[Bone], driver: &[Option<usize>]) {
    // Demotion (babylon-mmd): a mode-2 body whose bone's parent is driven by
    // a dynamic body behaves as mode 1 (the direct parent bone only).
    for body in bodies.iter_mut() {
        if body.mode != BodyMode::PhysicsKeepTranslation {
            continue;
        }
        let Some(bone) = body.bone else { continue };
        let parent_driven = bones[bone]
            .parent
            .filter(|&p| p < bones.len())
            .and_then(|p| driver[p])
            .is_some();
        if parent_driven {
            body.mode = BodyMode::Physics;
        }
    }
}

/// One joint read and repaired into a [`JointSetup`], or `None` (with a
/// warning) when it cannot be simulated.
fn joint_setup(
    index: usize,
    j: &Joint,
    body_count: usize,
    warnings: &mut Vec<String>,
) -> Option<JointSetup> {
    let label = format!("joint {index} \"{}\"", j.name);
    let [Some(a), Some(b)] = j.rigid_bodies else {
        warnings.push(format!("{label}: names a missing rigid body; dropped"));
        return None;
    };
    if a >= body_count || b >= body_count {
        warnings.push(format!("{label}: rigid body index out of range; dropped"));
        return None;
    }
    if a == b {
        warnings.push(format!("{label}: joins rigid body {a} to itself; dropped"));
        return None;
    }
    if !in_world(j.position) || !finite3(j.rotation) {
        warnings.push(format!(
            "{label}: position or rotation not finite, or position past {MAX_COORDINATE} units; dropped"
        ));
        return None;
    }
    if j.kind != 0 {
        warnings.push(format!(
            "{label}: joint type {} simulated as a 6DOF spring",
            j.kind
        ));
    }
    let frame = Mat4::from_rotation_translation(euler_yxz(j.rotation).normalize(), j.position);
    let limits = joint_limits(&label, j, warnings);
    let springs = joint_springs(&label, j, warnings);
    Some(JointSetup {
        index,
        name: j.name.clone(),
        bodies: [a, b],
        frame,
        limits,
        springs,
    })
}

/// The joint's six axis limits; a non-finite limit locks its axis.
fn joint_limits(label: &str, j: &Joint, warnings: &mut Vec<String>) -> [AxisLimit; 6] {
    let mut limits = [AxisLimit::Free; 6];
    let (tmin, tmax) = j.translation_limits;
    let (rmin, rmax) = j.rotation_limits;
    for k in 0..6 {
        let (lo, hi, what) = if k < 3 {
            (tmin[k], tmax[k], "translation")
        } else {
            (rmin[k - 3], rmax[k - 3], "rotation")
        };
        limits[k] = if !lo.is_finite() || !hi.is_finite() {
            warnings.push(format!(
                "{label}: {what} limit {} not finite; axis locked",
                ["x", "y", "z"][k % 3]
            ));
            AxisLimit::Locked(0.0)
        } else if lo == hi {
            AxisLimit::Locked(lo)
        } else if lo < hi {
            AxisLimit::Range(lo, hi)
        } else {
            AxisLimit::Free
        };
    }
    limits
}

/// The joint's six spring stiffnesses; one out of range becomes 0.
fn joint_springs(label: &str, j: &Joint, warnings: &mut Vec<String>) -> [f32; 6] {
    let mut springs = [0.0; 6];
    for (k, spring) in springs.iter_mut().enumerate() {
        let s = if k < 3 {
            j.spring_translation[k]
        } else {
            j.spring_rotation[k - 3]
        };
        *spring = if s.is_finite() && (0.0..=MAX_STIFFNESS).contains(&s) {
            s
        } else {
            warnings.push(format!("{label}: spring stiffness {s}; using 0"));
            0.0
        };
    }
    springs
}
