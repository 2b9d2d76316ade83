// Vertex morphs, UV morphs and skinning on the GPU: one invocation per
// vertex writes the vertex the drawing pipelines read (position, normal,
// uv, edge scale: 9 floats). The CPU path in src/model/skin.rs is the
// reference; every formula here follows it (and glam, which it uses).
//
// `mesh_data` (uploaded once), in vec4 units:
//   vertex i at 5·i: (position, edge scale), (normal, u),
//     (v, code | delta count << 3, SDEF index, first delta), bones, weights
//   SDEF constants at params.sdef_base + 3·k: C, cr0, cr1
//   morph deltas at params.delta_base + d: (delta xyz, morph << 1 | is_uv)
// `pose` (per frame): skinning matrix of bone b at 4·b (columns), then the
//   applied morph weights from params.weight_base, four per vec4.

struct Params {
    vertex_count: u32,
    bone_count: u32,
    morph_count: u32,
    sdef_base: u32,
    delta_base: u32,
    weight_base: u32,
    // Invocations per row of the dispatch (workgroups in x × 64).
    row: u32,
    _pad: u32,
};

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> mesh_data: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> pose: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> out_vertices: array<f32>;

const IDENTITY: mat4x4<f32> = mat4x4<f32>(
    vec4<f32>(1.0, 0.0, 0.0, 0.0),
    vec4<f32>(0.0, 1.0, 0.0, 0.0),
    vec4<f32>(0.0, 0.0, 1.0, 0.0),
    vec4<f32>(0.0, 0.0, 0.0, 1.0),
);

// A bone past the end (or none) is the identity, as on the CPU.
fn bone(b: u32) -> mat4x4<f32> {
    if b >= params.bone_count {
        return IDENTITY;
    }
    let k = 4u * b;
    return mat4x4<f32>(pose[k], pose[k + 1u], pose[k + 2u], pose[k + 3u]);
}

fn morph_weight(m: u32) -> f32 {
    if m >= params.morph_count {
        return 0.0;
    }
    return pose[params.weight_base + m / 4u][m % 4u];
}

// glam's normalize_or_zero.
fn normalize_or_zero(v: vec3<f32>) -> vec3<f32> {
    let len = length(v);
    if len > 0.0 && len < 3.0e38 {
        return v * (1.0 / len);
    }
    return vec3<f32>(0.0);
}

// Quaternions are vec4 (x, y, z, w), as glam stores them.
// glam's Quat::from_rotation_axes (DirectXMath's XMQuaternionRotationMatrix).
fn quat_from_mat(m: mat4x4<f32>) -> vec4<f32> {
    let m00 = m[0].x; let m01 = m[0].y; let m02 = m[0].z;
    let m10 = m[1].x; let m11 = m[1].y; let m12 = m[1].z;
    let m20 = m[2].x; let m21 = m[2].y; let m22 = m[2].z;
    if m22 <= 0.0 {
        let dif10 = m11 - m00;
        let omm22 = 1.0 - m22;
        if dif10 <= 0.0 {
            let s = omm22 - dif10;
            let inv = 0.5 / sqrt(s);
            return vec4<f32>(s * inv, (m01 + m10) * inv, (m02 + m20) * inv, (m12 - m21) * inv);
        }
        let s = omm22 + dif10;
        let inv = 0.5 / sqrt(s);
        return vec4<f32>((m01 + m10) * inv, s * inv, (m12 + m21) * inv, (m20 - m02) * inv);
    }
    let sum10 = m11 + m00;
    let opm22 = 1.0 + m22;
    if sum10 <= 0.0 {
        let s = opm22 - sum10;
        let inv = 0.5 / sqrt(s);
        return vec4<f32>((m02 + m20) * inv, (m12 + m21) * inv, s * inv, (m01 - m10) * inv);
    }
    let s = opm22 + sum10;
    let inv = 0.5 / sqrt(s);
    return vec4<f32>((m12 - m21) * inv, (m20 - m02) * inv, (m01 - m10) * inv, s * inv);
}

fn quat_normalize(q: vec4<f32>) -> vec4<f32> {
    return q * (1.0 / length(q));
}

// Hamilton product a·b (glam's Quat * Quat).
fn quat_mul(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(
        a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
        a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
        a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
        a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
    );
}

// glam's Quat * Vec3.
fn quat_rotate(q: vec4<f32>, v: vec3<f32>) -> vec3<f32> {
    let b = q.xyz;
    let b2 = dot(b, b);
    return v * (q.w * q.w - b2) + b * (dot(v, b) * 2.0) + cross(b, v) * (q.w * 2.0);
}

// glam's Quat::slerp (dot already made non-negative by the caller).
fn quat_slerp(a: vec4<f32>, b_in: vec4<f32>, s: f32) -> vec4<f32> {
    var b = b_in;
    var d = dot(a, b);
    if d < 0.0 {
        b = -b;
        d = -d;
    }
    if d > 1.0 - 1.1920929e-7 {
        return quat_normalize(a * (1.0 - s) + b * s);
    }
    let theta = acos(d);
    return (a * sin(theta * (1.0 - s)) + b * sin(theta * s)) / sin(theta);
}

struct Skinned {
    position: vec3<f32>,
    normal: vec3<f32>,
};

fn blend_linear(p: vec3<f32>, n: vec3<f32>, bones: vec4<u32>, weights: vec4<f32>, count: u32) -> Skinned {
    var m = bone(bones.x);
    if count > 1u {
        m = m * weights.x;
        for (var j = 1u; j < count; j = j + 1u) {
            let w = weights[j];
            if w != 0.0 {
                m = m + bone(bones[j]) * w;
            }
        }
    }
    return Skinned((m * vec4<f32>(p, 1.0)).xyz, normalize_or_zero((m * vec4<f32>(n, 0.0)).xyz));
}

fn sdef(p: vec3<f32>, n: vec3<f32>, bones: vec4<u32>, weights: vec4<f32>, k: u32) -> Skinned {
    let base = params.sdef_base + 3u * k;
    let c = mesh_data[base].xyz;
    let cr0 = mesh_data[base + 1u].xyz;
    let cr1 = mesh_data[base + 2u].xyz;
    let m0 = bone(bones.x);
    let m1 = bone(bones.y);
    let q0 = quat_normalize(quat_from_mat(m0));
    var q1 = quat_normalize(quat_from_mat(m1));
    if dot(q0, q1) < 0.0 {
        q1 = -q1;
    }
    let rot = quat_normalize(quat_slerp(q0, q1, weights.y));
    let position = quat_rotate(rot, p - c)
        + (m0 * vec4<f32>(cr0, 1.0)).xyz * weights.x
        + (m1 * vec4<f32>(cr1, 1.0)).xyz * weights.y;
    return Skinned(position, normalize_or_zero(quat_rotate(rot, n)));
}

// A skinning matrix as a unit dual quaternion: real, then dual = ½·t·real.
fn dual_real(m: mat4x4<f32>) -> vec4<f32> {
    return quat_normalize(quat_from_mat(m));
}

fn qdef(p: vec3<f32>, n: vec3<f32>, bones: vec4<u32>, weights: vec4<f32>) -> Skinned {
    let r0 = dual_real(bone(bones.x));
    var real = vec4<f32>(0.0);
    var dual = vec4<f32>(0.0);
    for (var j = 0u; j < 4u; j = j + 1u) {
        var w = weights[j];
        if w == 0.0 {
            continue;
        }
        let m = bone(bones[j]);
        let r = dual_real(m);
        let d = quat_mul(vec4<f32>(m[3].xyz, 0.0), r) * 0.5;
        if dot(r, r0) < 0.0 {
            w = -w;
        }
        real = real + r * w;
        dual = dual + d * w;
    }
    let len = length(real);
    if len < 1e-8 {
        return Skinned(p, n);
    }
    real = real / len;
    dual = dual / len;
    let t = quat_mul(dual, vec4<f32>(-real.xyz, real.w));
    return Skinned(quat_rotate(real, p) + 2.0 * t.xyz, normalize_or_zero(quat_rotate(real, n)));
}

@compute @workgroup_size(64)
fn cs_skin(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.y * params.row + id.x;
    if i >= params.vertex_count {
        return;
    }
    let v0 = mesh_data[5u * i];
    let v1 = mesh_data[5u * i + 1u];
    let v2 = mesh_data[5u * i + 2u];
    let bones = bitcast<vec4<u32>>(mesh_data[5u * i + 3u]);
    let weights = mesh_data[5u * i + 4u];
    let code_word = bitcast<u32>(v2.y);
    let code = code_word & 7u;
    let delta_count = code_word >> 3u;
    let first = bitcast<u32>(v2.w);

    var p = v0.xyz;
    var uv = vec2<f32>(v1.w, v2.x);
    for (var k = 0u; k < delta_count; k = k + 1u) {
        let d = mesh_data[params.delta_base + first + k];
        let tag = bitcast<u32>(d.w);
        let w = morph_weight(tag >> 1u);
        if w != 0.0 {
            if (tag & 1u) == 0u {
                p = p + d.xyz * w;
            } else {
                uv = uv + d.xy * w;
            }
        }
    }

    var s = Skinned(p, v1.xyz);
    if code == 1u || code == 2u || code == 4u {
        s = blend_linear(p, v1.xyz, bones, weights, code);
    } else if code == 5u {
        s = sdef(p, v1.xyz, bones, weights, bitcast<u32>(v2.z));
    } else if code == 6u {
        s = qdef(p, v1.xyz, bones, weights);
    }

    let o = 9u * i;
    out_vertices[o] = s.position.x;
    out_vertices[o + 1u] = s.position.y;
    out_vertices[o + 2u] = s.position.z;
    out_vertices[o + 3u] = s.normal.x;
    out_vertices[o + 4u] = s.normal.y;
    out_vertices[o + 5u] = s.normal.z;
    out_vertices[o + 6u] = uv.x;
    out_vertices[o + 7u] = uv.y;
    out_vertices[o + 8u] = v0.w;
}
