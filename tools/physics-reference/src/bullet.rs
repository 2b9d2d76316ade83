//! A model's rigid bodies and joints as a Bullet 3.25 world (through the
//! `mmd-anim-physics-bullet` crate), fed with bone matrices, stepped, and
//! read back as bone matrices after physics.

use glam::{EulerRot, Mat4, Quat, Vec3};
use mmd_anim_physics_bullet::{
    PhysicsJointDescriptor, PhysicsJointKind, PhysicsRigidBodyDescriptor, PmxBulletWorld,
    PmxRigidBodyBinding, PmxRigidBodyMode, RigidBodyDesc, RigidBodyShape, Transform,
    build_bullet_world_from_descriptors,
};
use vmd_studio::model::{Model, PhysicsMode, Shape};

/// MMD's body/joint Euler angles (radians, YXZ) as the (x, y, z) angles
/// whose `setEulerZYX(z, y, x)` gives the same rotation.
fn bullet_euler(r: Vec3) -> [f32; 3] {
    let q = Quat::from_euler(EulerRot::YXZ, r.y, r.x, r.z);
    let (z, y, x) = q.to_euler(EulerRot::ZYX);
    [x, y, z]
}

pub fn to_transform(m: Mat4) -> Transform {
    let (_, q, t) = m.to_scale_rotation_translation();
    Transform {
        position: t.to_array(),
        rotation_xyzw: q.to_array(),
    }
}

pub fn to_mat4(t: Transform) -> Mat4 {
    Mat4::from_rotation_translation(
        Quat::from_array(t.rotation_xyzw).normalize(),
        Vec3::from_array(t.position),
    )
}

/// A body's or joint's bind pose in model space (MMD's YXZ Euler angles).
pub fn bind_pose(position: Vec3, rotation: Vec3) -> Mat4 {
    Mat4::from_rotation_translation(
        Quat::from_euler(EulerRot::YXZ, rotation.y, rotation.x, rotation.z),
        position,
    )
}

/// The Bullet world of one model, with the bindings of its bodies to bones.
pub struct Reference {
    pub world: PmxBulletWorld,
    pub descriptors: Vec<PhysicsRigidBodyDescriptor>,
    /// Per bone, the first dynamic body naming it (it drives the bone).
    pub driver: Vec<Option<usize>>,
    /// Bone indices, parents before children.
    order: Vec<usize>,
}

fn body_descriptor(model: &Model, i: usize) -> PhysicsRigidBodyDescriptor {
    let bones = &model.skeleton.bones;
    let rb = &model.rigid_bodies[i];
    let bone = rb.bone.filter(|&b| b < bones.len());
    let bind = bind_pose(rb.position, rb.rotation);
    let body_from_bone = bone
        .map(|b| Mat4::from_translation(bones[b].rest_position).inverse() * bind)
        .unwrap_or(bind);
    let mode = match rb.mode {
        PhysicsMode::FollowBone => PmxRigidBodyMode::Static,
        PhysicsMode::Physics => PmxRigidBodyMode::Dynamic,
        PhysicsMode::PhysicsWithBone => PmxRigidBodyMode::DynamicBone,
    };
    let shape = match rb.shape {
        Shape::Sphere => RigidBodyShape::Sphere { radius: rb.size.x },
        Shape::Box => RigidBodyShape::Box {
            half_extents: rb.size.to_array(),
        },
        Shape::Capsule => RigidBodyShape::Capsule {
            radius: rb.size.x,
            height: rb.size.y,
        },
    };
    PhysicsRigidBodyDescriptor {
        rigidbody: RigidBodyDesc {
            shape,
            position: rb.position.to_array(),
            rotation_euler: bullet_euler(rb.rotation),
            mass: if mode == PmxRigidBodyMode::Static {
                0.0
            } else {
                rb.mass
            },
            linear_damping: rb.linear_damping,
            angular_damping: rb.angular_damping,
            friction: rb.friction,
            restitution: rb.restitution,
            collision_group: u16::from(rb.group.min(15)),
            collision_mask: rb.no_collision,
        },
        binding: PmxRigidBodyBinding {
            bone_index: bone,
            mode,
            body_from_bone: to_transform(body_from_bone),
            bone_from_body: to_transform(body_from_bone.inverse()),
        },
    }
}

fn joint_descriptor(j: &vmd_studio::model::Joint) -> PhysicsJointDescriptor {
    let [a, b] = j.rigid_bodies;
    PhysicsJointDescriptor {
        kind: PhysicsJointKind::Generic6DofSpring,
        rigidbody_a: a.unwrap_or(usize::MAX),
        rigidbody_b: b.unwrap_or(usize::MAX),
        position: j.position.to_array(),
        rotation_euler: bullet_euler(j.rotation),
        translation_lower_limit: j.translation_limits.0.to_array(),
        translation_upper_limit: j.translation_limits.1.to_array(),
        rotation_lower_limit: j.rotation_limits.0.to_array(),
        rotation_upper_limit: j.rotation_limits.1.to_array(),
        spring_translation_factor: j.spring_translation.to_array(),
        spring_rotation_factor: j.spring_rotation.to_array(),
    }
}

impl Reference {
    /// Builds `model`'s world with its bodies at their bind poses, at rest.
    pub fn new(model: &Model) -> Reference {
        let bones = &model.skeleton.bones;
        let descriptors: Vec<_> = (0..model.rigid_bodies.len())
            .map(|i| body_descriptor(model, i))
            .collect();
        let joints: Vec<_> = model.joints.iter().map(joint_descriptor).collect();
        let mut world = build_bullet_world_from_descriptors(&descriptors, &joints)
            .unwrap_or_else(|e| panic!("building the Bullet world: {e}"));
        world.settle_to_current().expect("settle");
        let mut driver: Vec<Option<usize>> = vec![None; bones.len()];
        for (i, d) in descriptors.iter().enumerate() {
            if let (true, Some(b)) = (d.binding.mode.writes_back_to_bone(), d.binding.bone_index) {
                driver[b].get_or_insert(i);
            }
        }
        let depth = |mut b: usize| {
            let mut d = 0;
            while let Some(p) = bones[b]
                .parent
                .filter(|&p| p < bones.len() && d < bones.len())
            {
                b = p;
                d += 1;
            }
            d
        };
        let mut order: Vec<usize> = (0..bones.len()).collect();
        order.sort_by_key(|&b| depth(b));
        Reference {
            world,
            descriptors,
            driver,
            order,
        }
    }

    /// Every body (dynamic ones too) to its bone in `bone_world`, with zero
    /// velocity.
    pub fn snap(&mut self, bone_world: &[Mat4]) {
        let t: Vec<Transform> = bone_world.iter().map(|&m| to_transform(m)).collect();
        self.world.seed_rigidbodies_from_bones(&t).expect("seed");
        self.world.settle_to_current().expect("settle");
    }

    /// Zeroes every body's velocity where it is.
    pub fn stop(&mut self) {
        self.world.settle_to_current().expect("settle");
    }

    /// Moves the follow-bone bodies to `bone_world` (before physics) and
    /// steps one frame of 1/60 s in `substeps` fixed Bullet steps.
    pub fn frame(&mut self, bone_world: &[Mat4], substeps: u32) {
        let t: Vec<Transform> = bone_world.iter().map(|&m| to_transform(m)).collect();
        self.world
            .feed_kinematic_rigidbodies_with_options(&t, false)
            .expect("feed");
        let step = 1.0 / 60.0;
        self.world
            .world
            .step_with_fixed_substep(step, substeps as i32, step / substeps as f32)
            .expect("step");
    }

    /// A body's world transform now.
    pub fn body(&self, i: usize) -> Mat4 {
        to_mat4(
            self.world
                .world
                .rigidbody_transform(self.world.rigidbody_handles[i])
                .expect("transform"),
        )
    }

    /// The bones after physics: a bone driven by a dynamic body takes its
    /// body's transform (mode 2: the rotation only, its translation where
    /// its parent and its animated local transform put it); any other bone
    /// follows its parent with its animated local transform (`animated`:
    /// the bone matrices fed before the step).
    pub fn posed(&self, model: &Model, animated: &[Mat4]) -> Vec<Mat4> {
        let bones = &model.skeleton.bones;
        let mut posed = animated.to_vec();
        for &b in &self.order {
            let parent = bones[b].parent.filter(|&p| p < bones.len());
            let local = parent
                .map(|p| animated[p].inverse() * animated[b])
                .unwrap_or(animated[b]);
            if let Some(i) = self.driver[b] {
                let mut m = self.body(i) * to_mat4(self.descriptors[i].binding.bone_from_body);
                if self.descriptors[i].binding.mode == PmxRigidBodyMode::DynamicBone {
                    let keep = parent.map(|p| posed[p] * local).unwrap_or(local);
                    m.w_axis = keep.w_axis;
                }
                posed[b] = m;
            } else if let Some(p) = parent {
                posed[b] = posed[p] * local;
            }
        }
        posed
    }
}
