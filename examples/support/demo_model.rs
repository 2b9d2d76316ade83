//! The demo mannequin: VMD Studio's own PMX 2.0 model, built from capsules
//! and ellipsoids around the standard MMD skeleton
//! (`assets/standard_skeleton.json`), so real dances drive it. Skinned
//! (BDEF1 inside a limb, BDEF2 across joints), one generated texture
//! (`demo_model.bmp`), MMD's shared toon 2, edges on the body, and the
//! vertex morphs あ (mouth open) and まばたき (blink).
//!
//! The PMX writer here is the minimal one this model needs: UTF-16LE text,
//! no additional UVs, 2-byte vertex indices (unsigned) and 2-byte other
//! indices (signed), no rigid bodies or joints.

use std::collections::HashMap;

use glam::{Vec2, Vec3};

/// One vertex before writing.
struct Vertex {
    position: Vec3,
    normal: Vec3,
    uv: Vec2,
    /// (bone, weight) pairs; one or two.
    bones: Vec<(usize, f32)>,
}

struct Part {
    first_vertex: usize,
    vertex_count: usize,
}

#[derive(Default)]
struct Builder {
    vertices: Vec<Vertex>,
    /// Per material, its triangles (vertex indices).
    triangles: Vec<Vec<[u32; 3]>>,
    parts: Vec<Part>,
}

/// Texture bands (v ranges) of the generated texture.
const BAND_SKIN: (f32, f32) = (0.0, 0.25);
const BAND_SUIT: (f32, f32) = (0.25, 0.5);
const BAND_LEGS: (f32, f32) = (0.5, 0.75);
const BAND_SHOES: (f32, f32) = (0.75, 1.0);

/// Materials, in drawing order.
const MAT_BODY: usize = 0;
const MAT_EYES: usize = 1;
const MAT_MOUTH: usize = 2;

impl Builder {
    fn new() -> Self {
        Builder {
            triangles: vec![Vec::new(), Vec::new(), Vec::new()],
            ..Default::default()
        }
    }

    /// Adds a grid of vertices (`rows`+1 × `cols`+1) and its triangles,
    /// wound clockwise seen from outside (MMD's front faces): each
    /// triangle is flipped if its face normal points inwards.
    fn grid(
        &mut self,
        material: usize,
        rows: usize,
        cols: usize,
        mut f: impl FnMut(usize, usize) -> Vertex,
    ) {
        let base = self.vertices.len();
        for r in 0..=rows {
            for c in 0..=cols {
                self.vertices.push(f(r, c));
            }
        }
        let row = cols + 1;
        for r in 0..rows {
            for c in 0..cols {
                let a = base + r * row + c;
                let b = a + 1;
                let cc = a + row;
                let d = cc + 1;
                for t in [[a, b, cc], [b, d, cc]] {
                    self.push_triangle(material, t);
                }
            }
        }
        self.parts.push(Part {
            first_vertex: base,
            vertex_count: self.vertices.len() - base,
        });
    }

    fn push_triangle(&mut self, material: usize, t: [usize; 3]) {
        let [a, b, c] = t.map(|i| self.vertices[i].position);
        let face = (b - a).cross(c - a);
        if face.length_squared() < 1e-12 {
            return; // degenerate at a pole
        }
        let outward: Vec3 = t.iter().map(|&i| self.vertices[i].normal).sum();
        // Clockwise seen from outside ⇔ (b−a)×(c−a) points outwards.
        let t = if face.dot(outward) >= 0.0 {
            t
        } else {
            [t[0], t[2], t[1]]
        };
        self.triangles[material].push(t.map(|i| i as u32));
    }

    /// An ellipsoid of radii `r` around `centre`, skinned to `bone`.
    fn ellipsoid(&mut self, material: usize, centre: Vec3, r: Vec3, bone: usize, band: (f32, f32)) {
        let (rings, segs) = (12, 20);
        self.grid(material, rings, segs, |i, j| {
            let theta = std::f32::consts::PI * i as f32 / rings as f32;
            let phi = std::f32::consts::TAU * j as f32 / segs as f32;
            let unit = Vec3::new(
                theta.sin() * phi.sin(),
                theta.cos(),
                -theta.sin() * phi.cos(),
            );
            let position = centre + unit * r;
            let normal = (unit / r).normalize_or_zero();
            Vertex {
                position,
                normal,
                uv: Vec2::new(
                    j as f32 / segs as f32,
                    band.0 + (band.1 - band.0) * i as f32 / rings as f32,
                ),
                bones: vec![(bone, 1.0)],
            }
        });
    }

    /// A capsule from `a` to `b` with radius `ra` at `a` and `rb` at `b`
    /// (`flat` < 1 squashes the cross-section front to back). Skinned to
    /// `bone`, blended half-and-half with `start_bone` at `a` and `end_bone`
    /// at `b` where given.
    #[allow(clippy::too_many_arguments)]
    fn capsule(
        &mut self,
        a: Vec3,
        b: Vec3,
        ra: f32,
        rb: f32,
        flat: f32,
        bone: usize,
        start_bone: Option<usize>,
        end_bone: Option<usize>,
        band: (f32, f32),
    ) {
        let axis = b - a;
        let len = axis.length().max(1e-4);
        let dir = axis / len;
        // A frame around the axis: `side` as close to world X as possible,
        // `front` towards −Z for limbs that hang down.
        let side = {
            let x = Vec3::X - dir * dir.dot(Vec3::X);
            if x.length_squared() > 1e-4 {
                x.normalize()
            } else {
                (Vec3::Z - dir * dir.dot(Vec3::Z)).normalize()
            }
        };
        let front = dir.cross(side).normalize();
        let cap = 4usize;
        let body = 8usize;
        let rings = cap * 2 + body;
        let segs = 16usize;
        self.grid(MAT_BODY, rings, segs, |i, j| {
            // Ring i: a hemisphere at a, the tube, a hemisphere at b.
            let (centre, radius, slope, t) = if i <= cap {
                let phi = std::f32::consts::FRAC_PI_2 * i as f32 / cap as f32; // 0 at the pole
                (a - dir * ra * phi.cos(), ra * phi.sin(), -phi.cos(), 0.0)
            } else if i <= cap + body {
                let t = (i - cap) as f32 / body as f32;
                (a + axis * t, ra + (rb - ra) * t, 0.0, t)
            } else {
                let phi = std::f32::consts::FRAC_PI_2 * (rings - i) as f32 / cap as f32;
                (b + dir * rb * phi.cos(), rb * phi.sin(), phi.cos(), 1.0)
            };
            let ang = std::f32::consts::TAU * j as f32 / segs as f32;
            let radial = side * ang.cos() + front * ang.sin() * flat;
            let position = centre + radial * radius;
            let radial_n = (side * ang.cos() + front * ang.sin() / flat.max(0.1)).normalize();
            let normal = (radial_n * (1.0 - slope * slope).max(0.0).sqrt() + dir * slope)
                .normalize_or_zero();
            let mut bones = vec![(bone, 1.0)];
            if let Some(s) = start_bone
                && t < 0.3
            {
                let w = 0.5 * (1.0 - t / 0.3);
                bones = vec![(bone, 1.0 - w), (s, w)];
            }
            if let Some(e) = end_bone
                && t > 0.7
            {
                let w = 0.5 * (t - 0.7) / 0.3;
                bones = vec![(bone, 1.0 - w), (e, w)];
            }
            Vertex {
                position,
                normal,
                uv: Vec2::new(
                    j as f32 / segs as f32,
                    band.0 + (band.1 - band.0) * i as f32 / rings as f32,
                ),
                bones,
            }
        });
    }
}

/// The standard skeleton, as written in `assets/standard_skeleton.json`.
struct Skeleton {
    json: serde_json::Value,
    index: HashMap<String, usize>,
}

impl Skeleton {
    fn load(text: &str) -> Skeleton {
        let json: serde_json::Value = serde_json::from_str(text).expect("standard skeleton JSON");
        let index = json["bones"]
            .as_array()
            .expect("bones")
            .iter()
            .enumerate()
            .map(|(i, b)| (b["name"].as_str().expect("name").to_string(), i))
            .collect();
        Skeleton { json, index }
    }

    fn bones(&self) -> &Vec<serde_json::Value> {
        self.json["bones"].as_array().expect("bones")
    }

    fn idx(&self, name: &str) -> usize {
        *self
            .index
            .get(name)
            .unwrap_or_else(|| panic!("bone {name}"))
    }

    fn pos(&self, name: &str) -> Vec3 {
        let p = &self.bones()[self.idx(name)]["position"];
        let f = |i: usize| p[i].as_f64().expect("coordinate") as f32;
        Vec3::new(f(0), f(1), f(2))
    }
}

/// Vertex runs (first, count) that a morph moves.
type Runs = Vec<(usize, usize)>;

/// The mesh, the eyes' vertex runs and the mouth's.
fn build(sk: &Skeleton) -> (Builder, Runs, Runs) {
    let mut m = Builder::new();
    let b = |n: &str| sk.idx(n);
    let p = |n: &str| sk.pos(n);
    // Head, neck, torso, hips.
    let head_c = Vec3::new(0.0, 18.3, 0.2);
    m.ellipsoid(
        MAT_BODY,
        head_c,
        Vec3::new(1.25, 1.5, 1.35),
        b("頭"),
        BAND_SKIN,
    );
    m.capsule(
        p("首"),
        p("頭") + Vec3::Y * 0.4,
        0.45,
        0.45,
        1.0,
        b("首"),
        Some(b("上半身2")),
        Some(b("頭")),
        BAND_SKIN,
    );
    m.capsule(
        Vec3::new(0.0, 12.4, 0.25),
        Vec3::new(0.0, 15.2, 0.35),
        1.35,
        1.7,
        0.62,
        b("上半身2"),
        Some(b("上半身")),
        None,
        BAND_SUIT,
    );
    m.capsule(
        Vec3::new(0.0, 11.2, 0.2),
        Vec3::new(0.0, 12.6, 0.25),
        1.3,
        1.35,
        0.62,
        b("上半身"),
        None,
        Some(b("上半身2")),
        BAND_SUIT,
    );
    m.capsule(
        Vec3::new(0.0, 9.9, 0.15),
        Vec3::new(0.0, 11.2, 0.2),
        1.45,
        1.3,
        0.65,
        b("下半身"),
        None,
        None,
        BAND_LEGS,
    );
    for side in ["左", "右"] {
        let n = |s: &str| format!("{side}{s}");
        let s = if side == "左" { 1.0 } else { -1.0 };
        // Shoulder, upper arm, forearm, hand.
        m.capsule(
            p(&n("肩")),
            p(&n("腕")),
            0.5,
            0.48,
            1.0,
            b(&n("肩")),
            Some(b("上半身2")),
            None,
            BAND_SUIT,
        );
        m.capsule(
            p(&n("腕")),
            p(&n("ひじ")),
            0.46,
            0.38,
            1.0,
            b(&n("腕")),
            None,
            Some(b(&n("ひじ"))),
            BAND_SUIT,
        );
        m.capsule(
            p(&n("ひじ")),
            p(&n("手首")),
            0.37,
            0.3,
            1.0,
            b(&n("ひじ")),
            None,
            Some(b(&n("手首"))),
            BAND_SKIN,
        );
        let wrist = p(&n("手首"));
        let tip = p(&n("中指３")) + Vec3::new(0.2 * s, -0.2, 0.0);
        m.capsule(
            wrist,
            tip,
            0.32,
            0.26,
            0.45,
            b(&n("手首")),
            None,
            None,
            BAND_SKIN,
        );
        // Thigh, shin, foot.
        m.capsule(
            p(&n("足")),
            p(&n("ひざ")),
            0.78,
            0.55,
            1.0,
            b(&n("足")),
            Some(b("下半身")),
            Some(b(&n("ひざ"))),
            BAND_LEGS,
        );
        m.capsule(
            p(&n("ひざ")),
            p(&n("足首")),
            0.52,
            0.36,
            1.0,
            b(&n("ひざ")),
            None,
            Some(b(&n("足首"))),
            BAND_LEGS,
        );
        let ankle = p(&n("足首"));
        let toe = p(&n("つま先"));
        m.capsule(
            ankle + Vec3::new(0.0, -0.5, 0.2),
            Vec3::new(toe.x, 0.35, toe.z + 0.1),
            0.42,
            0.36,
            1.0,
            b(&n("足首")),
            None,
            None,
            BAND_SHOES,
        );
    }
    // Eyes (bound to the eye bones) and the mouth.
    let mut eyes = Vec::new();
    for (side, x) in [("左目", 0.45f32), ("右目", -0.45)] {
        let before = m.parts.len();
        m.ellipsoid(
            MAT_EYES,
            Vec3::new(x, 18.25, -1.02),
            Vec3::new(0.2, 0.27, 0.1),
            b(side),
            BAND_SKIN,
        );
        eyes.push((m.parts[before].first_vertex, m.parts[before].vertex_count));
    }
    let before = m.parts.len();
    m.ellipsoid(
        MAT_MOUTH,
        Vec3::new(0.0, 17.35, -0.86),
        Vec3::new(0.32, 0.07, 0.1),
        b("頭"),
        BAND_SKIN,
    );
    let mouth = vec![(m.parts[before].first_vertex, m.parts[before].vertex_count)];
    (m, eyes, mouth)
}

/// The 128×128 texture: four bands (skin, suit, legs, shoes) with a soft
/// vertical gradient and stripes, as a 24-bit BMP.
pub fn texture_bmp() -> Vec<u8> {
    let (w, h) = (128u32, 128u32);
    let mut rgb = vec![0u8; (w * h * 3) as usize];
    for y in 0..h {
        for x in 0..w {
            let v = y as f32 / h as f32;
            let band_t = (v * 4.0).fract();
            let shade = 1.0 - 0.12 * band_t;
            let stripe = (x / 8) % 4 == 0;
            let base: [f32; 3] = match (v * 4.0) as u32 {
                0 => [250.0, 224.0, 205.0],
                1 if stripe => [235.0, 240.0, 245.0],
                1 => [70.0, 150.0, 175.0],
                2 if stripe => [90.0, 100.0, 140.0],
                2 => [55.0, 62.0, 95.0],
                _ => [45.0, 40.0, 40.0],
            };
            let i = ((y * w + x) * 3) as usize;
            for c in 0..3 {
                rgb[i + c] = (base[c] * shade).clamp(0.0, 255.0) as u8;
            }
        }
    }
    // BMP: bottom-up rows of BGR, each padded to 4 bytes (128·3 already is).
    let row = (w * 3) as usize;
    let data_len = row * h as usize;
    let mut out = Vec::with_capacity(54 + data_len);
    out.extend_from_slice(b"BM");
    out.extend_from_slice(&(54 + data_len as u32).to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&54u32.to_le_bytes());
    out.extend_from_slice(&40u32.to_le_bytes());
    out.extend_from_slice(&(w as i32).to_le_bytes());
    out.extend_from_slice(&(h as i32).to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&24u16.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes()); // no compression
    out.extend_from_slice(&(data_len as u32).to_le_bytes());
    out.extend_from_slice(&2835i32.to_le_bytes());
    out.extend_from_slice(&2835i32.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    for y in (0..h as usize).rev() {
        for x in 0..w as usize {
            let i = (y * w as usize + x) * 3;
            out.extend_from_slice(&[rgb[i + 2], rgb[i + 1], rgb[i]]);
        }
    }
    out
}

/// PMX byte writer.
struct Pmx(Vec<u8>);

impl Pmx {
    fn text(&mut self, s: &str) {
        let units: Vec<u8> = s.encode_utf16().flat_map(|u| u.to_le_bytes()).collect();
        self.i32(units.len() as i32);
        self.0.extend_from_slice(&units);
    }
    fn i32(&mut self, v: i32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn f32(&mut self, v: f32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn v3(&mut self, v: Vec3) {
        for c in v.to_array() {
            self.f32(c);
        }
    }
    fn f(&mut self, vs: &[f32]) {
        for v in vs {
            self.f32(*v);
        }
    }
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    /// A signed 2-byte index (−1 = none).
    fn idx(&mut self, v: Option<usize>) {
        let v = v.map_or(-1i16, |v| i16::try_from(v).expect("index fits 2 bytes"));
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    /// An unsigned 2-byte vertex index.
    fn vidx(&mut self, v: u32) {
        self.0
            .extend_from_slice(&u16::try_from(v).expect("vertex index fits").to_le_bytes());
    }
}

/// The PMX file and the texture it names (`demo_model.bmp`).
pub fn demo_model(skeleton_json: &str) -> (Vec<u8>, Vec<u8>) {
    let sk = Skeleton::load(skeleton_json);
    let (m, eyes, mouth) = build(&sk);
    assert!(m.vertices.len() < 65_536);
    let mut w = Pmx(Vec::new());
    w.0.extend_from_slice(b"PMX ");
    w.f32(2.0);
    w.u8(8);
    // UTF-16LE, 0 additional UVs, vertex 2, texture 2, material 2, bone 2, morph 2, rigid 2.
    w.0.extend_from_slice(&[0, 0, 2, 2, 2, 2, 2, 2]);
    w.text("VMD Studio デモ人形");
    w.text("VMD Studio demo mannequin");
    w.text("VMD Studio のデモ用マネキン。VMD Studio 自身が作成（examples/make_demo.rs）。ライセンスはプロジェクトと同じ（MIT）。");
    w.text("Demo mannequin made by VMD Studio itself (examples/make_demo.rs). Licence: the project's (MIT).");

    // Vertices.
    w.i32(m.vertices.len() as i32);
    for v in &m.vertices {
        w.v3(v.position);
        w.v3(v.normal);
        w.f(&[v.uv.x, v.uv.y]);
        match v.bones.as_slice() {
            [(b0, _)] => {
                w.u8(0); // BDEF1
                w.idx(Some(*b0));
            }
            [(b0, w0), (b1, _)] => {
                w.u8(1); // BDEF2
                w.idx(Some(*b0));
                w.idx(Some(*b1));
                w.f32(*w0);
            }
            _ => unreachable!("one or two bones per vertex"),
        }
        w.f32(1.0); // edge scale
    }
    // Faces, material by material.
    let total: usize = m.triangles.iter().map(|t| t.len() * 3).sum();
    w.i32(total as i32);
    for tris in &m.triangles {
        for t in tris {
            for i in t {
                w.vidx(*i);
            }
        }
    }
    // Textures.
    w.i32(1);
    w.text("demo_model.bmp");
    // Materials: name, colours, flags, edge, texture, sphere, toon, memo, index count.
    w.i32(3);
    #[allow(clippy::type_complexity)]
    let mats: [(
        &str,
        &str,
        [f32; 4],
        [f32; 3],
        f32,
        [f32; 3],
        u8,
        Option<usize>,
    ); 3] = [
        (
            "体",
            "body",
            [1.0, 1.0, 1.0, 1.0],
            [0.15, 0.15, 0.15],
            12.0,
            [0.55, 0.55, 0.55],
            0x1e,
            Some(0),
        ),
        (
            "目",
            "eyes",
            [0.08, 0.08, 0.12, 1.0],
            [0.6, 0.6, 0.6],
            40.0,
            [0.05, 0.05, 0.08],
            0x0e,
            None,
        ),
        (
            "口",
            "mouth",
            [0.55, 0.12, 0.15, 1.0],
            [0.0, 0.0, 0.0],
            1.0,
            [0.3, 0.06, 0.08],
            0x0e,
            None,
        ),
    ];
    for (k, (name, en, diffuse, specular, power, ambient, flags, texture)) in
        mats.iter().enumerate()
    {
        w.text(name);
        w.text(en);
        w.f(diffuse);
        w.f(specular);
        w.f32(*power);
        w.f(ambient);
        // 0x02 ground shadow, 0x04 self-shadow map, 0x08 self-shadow, 0x10 edge.
        w.u8(*flags);
        w.f(&[0.1, 0.12, 0.18, 1.0]); // edge colour
        w.f32(1.0); // edge size
        w.idx(*texture);
        w.idx(None); // sphere
        w.u8(0); // sphere mode: none
        w.u8(1); // shared toon
        w.u8(1); // toon02
        w.text("");
        w.i32((m.triangles[k].len() * 3) as i32);
    }
    // Bones.
    let bones = sk.bones();
    w.i32(bones.len() as i32);
    let iks = sk.json["iks"].as_array().cloned().unwrap_or_default();
    for (i, bone) in bones.iter().enumerate() {
        let name = bone["name"].as_str().expect("name");
        w.text(name);
        w.text("");
        w.v3(sk.pos(name));
        w.idx(bone["parent"].as_str().map(|p| sk.idx(p)));
        w.i32(0); // layer
        let ik = iks.iter().find(|k| k["bone"].as_str() == Some(name));
        let inherit = bone.get("inherit");
        let mut flags: u16 = 0x0002 | 0x0008 | 0x0010; // rotatable, visible, operable
        if bone["movable"].as_bool() == Some(true) || ik.is_some() {
            flags |= 0x0004;
        }
        let tail_bone = bone["tail"].as_str().map(|t| sk.idx(t));
        if tail_bone.is_some() {
            flags |= 0x0001;
        }
        if ik.is_some() {
            flags |= 0x0020;
        }
        if inherit.is_some() {
            flags |= 0x0100;
        }
        w.0.extend_from_slice(&flags.to_le_bytes());
        match tail_bone {
            Some(t) => w.idx(Some(t)),
            None => {
                let o = &bone["tail_offset"];
                let f = |k: usize| o[k].as_f64().unwrap_or(0.0) as f32;
                w.v3(Vec3::new(f(0), f(1), f(2)));
            }
        }
        if let Some(inh) = inherit {
            w.idx(Some(sk.idx(inh["source"].as_str().expect("source"))));
            w.f32(inh["ratio"].as_f64().unwrap_or(1.0) as f32);
        }
        if let Some(k) = ik {
            w.idx(Some(sk.idx(k["target"].as_str().expect("target"))));
            w.i32(k["loops"].as_i64().unwrap_or(40) as i32);
            w.f32(k["limit_angle"].as_f64().unwrap_or(2.0) as f32);
            let links = k["links"].as_array().cloned().unwrap_or_default();
            w.i32(links.len() as i32);
            for l in &links {
                w.idx(Some(sk.idx(l["bone"].as_str().expect("link"))));
                match (l.get("min"), l.get("max")) {
                    (Some(lo), Some(hi)) => {
                        w.u8(1);
                        for v in [lo, hi] {
                            let f = |k: usize| v[k].as_f64().unwrap_or(0.0) as f32;
                            w.v3(Vec3::new(f(0), f(1), f(2)));
                        }
                    }
                    _ => w.u8(0),
                }
            }
        }
        let _ = i;
    }
    // Morphs: あ (mouth opens: lower lip down), まばたき (eyes squash shut).
    w.i32(2);
    let vertex_morph = |w: &mut Pmx,
                        name: &str,
                        en: &str,
                        panel: u8,
                        ranges: &[(usize, usize)],
                        f: &dyn Fn(Vec3, Vec3) -> Vec3| {
        w.text(name);
        w.text(en);
        w.u8(panel);
        w.u8(1); // vertex morph
        let n: usize = ranges.iter().map(|r| r.1).sum();
        w.i32(n as i32);
        for &(first, count) in ranges {
            let centre = m.vertices[first..first + count]
                .iter()
                .map(|v| v.position)
                .sum::<Vec3>()
                / count as f32;
            for i in first..first + count {
                w.vidx(i as u32);
                w.v3(f(m.vertices[i].position, centre));
            }
        }
    };
    // Mouth: every vertex below the centre line moves down 3× its depth.
    vertex_morph(&mut w, "あ", "a", 3, &mouth, &|p, c| {
        Vec3::new(
            0.0,
            if p.y < c.y {
                (p.y - c.y) * 4.0
            } else {
                (p.y - c.y) * 0.5
            },
            0.0,
        )
    });
    // Eyes: squash to 10 % of their height.
    vertex_morph(&mut w, "まばたき", "blink", 2, &eyes, &|p, c| {
        Vec3::new(0.0, (c.y - p.y) * 0.9, 0.0)
    });
    // Display frames: Root (全ての親), 表情 (the morphs), 体 (the rest).
    w.i32(3);
    w.text("Root");
    w.text("Root");
    w.u8(1);
    w.i32(1);
    w.u8(0);
    w.idx(Some(0));
    w.text("表情");
    w.text("Exp");
    w.u8(1);
    w.i32(2);
    for k in 0..2 {
        w.u8(1);
        w.idx(Some(k));
    }
    w.text("体");
    w.text("Body");
    w.u8(0);
    w.i32(bones.len() as i32 - 1);
    for k in 1..bones.len() {
        w.u8(0);
        w.idx(Some(k));
    }
    w.i32(0); // rigid bodies
    w.i32(0); // joints
    (w.0, texture_bmp())
}
