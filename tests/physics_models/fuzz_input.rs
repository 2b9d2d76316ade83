//! The physics fuzz target's input decoding and checks, shared by
//! `fuzz/fuzz_targets/physics.rs` (libFuzzer), the regression tests in
//! `tests/physics_fuzz.rs` and the mutation loop in
//! `examples/physics_fuzz_loop.rs`, so that all three run the same code
//! path on the same bytes.
//!
//! The input is read as a small skeleton, rigid bodies and joints with any
//! numbers (NaN, infinities, huge or negative masses and sizes, indices out
//! of range or repeated, parent cycles), then bone poses per frame (also
//! any numbers). `PhysicsWorld::new`, `reset`, `step` and `write_back` must
//! not panic, every bone matrix that went in finite must come out finite,
//! and every body must stay finite.

#![allow(dead_code)]

use glam::{Mat4, Quat, Vec3};
use vmd_studio::model::physics::PhysicsWorld;
use vmd_studio::model::{Bone, Format, Joint, Model, PhysicsMode, RigidBody, Shape};

/// Reads the fuzzer's bytes; past the end everything reads as zero.
pub struct Bytes<'a>(pub &'a [u8]);

impl Bytes<'_> {
    fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }
    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }
    /// A float: mostly ordinary model-sized values, sometimes raw bits
    /// (NaN, infinities, subnormals, huge).
    fn f32(&mut self) -> f32 {
        let tag = self.u8();
        let bits = u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()]);
        if tag & 7 == 0 {
            f32::from_bits(bits)
        } else {
            (bits % 20_001) as f32 / 1000.0 - 10.0
        }
    }
    fn vec3(&mut self) -> Vec3 {
        Vec3::new(self.f32(), self.f32(), self.f32())
    }
    fn index(&mut self, n: usize) -> Option<usize> {
        let v = self.u8() as usize;
        // 0xFF: none; otherwise sometimes out of range on purpose.
        (v != 0xFF).then(|| if v & 0x80 != 0 { v } else { v % n.max(1) })
    }
}

/// The model the bytes describe.
pub fn model(b: &mut Bytes) -> Model {
    let mut m = Model::empty(Format::Pmx { version: 2.0 });
    let bones = 1 + b.u8() as usize % 12;
    for i in 0..bones {
        let parent = b.index(bones).filter(|&p| p != i);
        m.skeleton
            .bones
            .push(Bone::new(format!("b{i}"), parent, b.vec3()));
    }
    let bodies = b.u8() as usize % 16;
    for i in 0..bodies {
        let flags = b.u8();
        m.rigid_bodies.push(RigidBody {
            name: format!("r{i}"),
            name_en: String::new(),
            bone: b.index(bones),
            group: b.u8(),
            no_collision: b.u16(),
            shape: [Shape::Sphere, Shape::Box, Shape::Capsule][(flags % 3) as usize],
            size: b.vec3(),
            position: b.vec3(),
            rotation: b.vec3(),
            mass: b.f32(),
            linear_damping: b.f32(),
            angular_damping: b.f32(),
            restitution: b.f32(),
            friction: b.f32(),
            mode: [
                PhysicsMode::FollowBone,
                PhysicsMode::Physics,
                PhysicsMode::PhysicsWithBone,
            ][(flags / 3 % 3) as usize],
        });
    }
    let joints = b.u8() as usize % 16;
    for i in 0..joints {
        m.joints.push(Joint {
            name: format!("j{i}"),
            name_en: String::new(),
            kind: b.u8() % 4,
            rigid_bodies: [b.index(bodies), b.index(bodies)],
            position: b.vec3(),
            rotation: b.vec3(),
            translation_limits: (b.vec3(), b.vec3()),
            rotation_limits: (b.vec3(), b.vec3()),
            spring_translation: b.vec3(),
            spring_rotation: b.vec3(),
        });
    }
    m
}

/// Builds the world from `data`, resets it and steps it for up to 8
/// fuzzed frames; panics (with the invariant's message) when a bone that
/// went in finite comes out non-finite or a body becomes non-finite.
pub fn run(data: &[u8]) {
    let mut b = Bytes(data);
    let m = model(&mut b);
    let rest: Vec<Mat4> = m
        .skeleton
        .bones
        .iter()
        .map(|bone| Mat4::from_translation(bone.rest_position))
        .collect();
    let mut world = PhysicsWorld::new(&m);
    world.reset(&rest);
    let frames = 1 + b.u8() % 8;
    for _ in 0..frames {
        // Each bone moved by a fuzzed rotation and translation.
        let bones: Vec<Mat4> = rest
            .iter()
            .map(|r| {
                let q = Quat::from_xyzw(b.f32(), b.f32(), b.f32(), b.f32());
                Mat4::from_rotation_translation(q.normalize(), b.vec3()) * *r
            })
            .collect();
        let dt = b.f32();
        if b.u8() & 1 == 1 {
            let off: Vec<bool> = (0..bones.len()).map(|_| b.u8() & 1 == 1).collect();
            world.set_physics_off(&off);
        }
        world.step(&bones, dt);
        let mut out = bones.clone();
        world.write_back(&mut out);
        for (i, (before, after)) in bones.iter().zip(&out).enumerate() {
            assert!(
                !before.is_finite() || after.is_finite(),
                "bone {i} went non-finite"
            );
        }
        for i in 0..m.rigid_bodies.len() {
            if let Some((q, t)) = world.body_pose(i) {
                // A body may only be non-finite if the world reset it
                // away... which it never leaves so: always finite.
                assert!(q.is_finite() && t.is_finite(), "body {i} non-finite");
            }
        }
    }
}
