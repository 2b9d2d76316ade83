// MMD-style shading, after MikuMikuEffect's default shader (full.fx) as MMD
// draws models: colour = saturate(diffuse·light + ambient), × texture,
// sphere map (× or +), × toon ramp at 0.5 − 0.5·N·L, + Blinn specular.
// MMD's light has no diffuse term of its own (LightDiffuse is black): the
// shading of a model comes from the toon ramp alone.
// Everything happens in gamma space, as in MMD.

struct Frame {
    view: mat4x4<f32>,
    proj: mat4x4<f32>,
    eye: vec4<f32>,
    // Direction the light travels (normalised on the CPU).
    light_dir: vec4<f32>,
    light_color: vec4<f32>,
    // x, y: target size in pixels; z: edge pixels per edge-size unit.
    viewport: vec4<f32>,
    // Flattens a point onto the floor y = 0 along the light (ground shadow).
    ground: mat4x4<f32>,
    // World → self-shadow map clip space (depth already MMD's 0..1).
    light_view_proj: mat4x4<f32>,
    // Ground shadow RGBA (the light's colour; alpha 1 or 0.5).
    ground_color: vec4<f32>,
    // x: self-shadow mode (0 off, 1, 2); y: map size in texels; z: ground on.
    shadow: vec4<f32>,
};

struct Material {
    diffuse: vec4<f32>,
    // rgb, power
    specular: vec4<f32>,
    ambient: vec4<f32>,
    edge_color: vec4<f32>,
    // x: edge size, y: sphere mode (0 none, 1 multiply, 2 add),
    // z: has texture, w: has toon
    params: vec4<f32>,
    tex_mul: vec4<f32>,
    tex_add: vec4<f32>,
    sphere_mul: vec4<f32>,
    sphere_add: vec4<f32>,
    toon_mul: vec4<f32>,
    toon_add: vec4<f32>,
    // x: receives self-shadow; y: accessory lighting (no toon, Lambert).
    shadow: vec4<f32>,
};

@group(0) @binding(0) var<uniform> frame: Frame;

@group(1) @binding(0) var<uniform> material: Material;
@group(1) @binding(1) var t_diffuse: texture_2d<f32>;
@group(1) @binding(2) var t_sphere: texture_2d<f32>;
@group(1) @binding(3) var t_toon: texture_2d<f32>;
@group(1) @binding(4) var s_wrap: sampler;
@group(1) @binding(5) var s_clamp: sampler;

@group(2) @binding(0) var t_shadow: texture_depth_2d;

struct VertexIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    @location(3) edge_scale: f32,
};

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) normal: vec3<f32>,
    @location(1) uv: vec2<f32>,
    @location(2) to_eye: vec3<f32>,
    @location(3) sphere_uv: vec2<f32>,
    @location(4) shadow_pos: vec4<f32>,
};

@vertex
fn vs_model(v: VertexIn) -> VertexOut {
    var o: VertexOut;
    o.clip = frame.proj * frame.view * vec4<f32>(v.position, 1.0);
    o.normal = v.normal;
    o.uv = v.uv;
    o.to_eye = frame.eye.xyz - v.position;
    let nv = (frame.view * vec4<f32>(v.normal, 0.0)).xyz;
    let nvn = nv / max(length(nv), 1e-6);
    o.sphere_uv = vec2<f32>(nvn.x * 0.5 + 0.5, nvn.y * -0.5 + 0.5);
    o.shadow_pos = frame.light_view_proj * vec4<f32>(v.position, 1.0);
    return o;
}

// MMD's material-morph tint of a texture: lerp(base, tex·mul + add, mul.a + add.a).
fn tint(c: vec4<f32>, mul: vec4<f32>, add: vec4<f32>, base: f32) -> vec3<f32> {
    return mix(vec3<f32>(base), c.rgb * mul.rgb + add.rgb, mul.a + add.a);
}

@fragment
fn fs_model(i: VertexOut) -> @location(0) vec4<f32> {
    let n = normalize(i.normal);
    let to_light = -frame.light_dir.xyz;
    let lambert = dot(n, to_light);

    // Each map is sampled only where the material uses it: the branches
    // read uniforms alone (uniform control flow, so implicit derivatives
    // hold), and a software rasteriser pays for every sample.

    // A model's colour is lit through its toon (below); an accessory's
    // (MME full.fx, use_toon off) by Lambert here, and where self-shadowed
    // its ambient colour alone.
    let accessory = material.shadow.y > 0.5;
    var lit_rgb = material.diffuse.rgb * frame.light_color.rgb + material.ambient.rgb;
    if accessory {
        lit_rgb = material.ambient.rgb + max(lambert, 0.0) * material.diffuse.rgb * frame.light_color.rgb;
    }
    var color = vec4<f32>(clamp(lit_rgb, vec3<f32>(0.0), vec3<f32>(1.0)), material.diffuse.a);
    var ambient_only = vec4<f32>(clamp(material.ambient.rgb, vec3<f32>(0.0), vec3<f32>(1.0)), material.diffuse.a);
    if material.params.z > 0.5 {
        let tex = textureSample(t_diffuse, s_wrap, i.uv);
        let t = vec4<f32>(tint(tex, material.tex_mul, material.tex_add, 1.0), tex.a);
        color = color * t;
        ambient_only = ambient_only * t;
    }
    let mode = material.params.y;
    if mode > 1.5 {
        let sph = textureSample(t_sphere, s_clamp, i.sphere_uv);
        let s = tint(sph, material.sphere_mul, material.sphere_add, 0.0);
        color = vec4<f32>(color.rgb + s, color.a);
        ambient_only = vec4<f32>(ambient_only.rgb + s, ambient_only.a);
    } else if mode > 0.5 {
        let sph = textureSample(t_sphere, s_clamp, i.sphere_uv);
        let s = tint(sph, material.sphere_mul, material.sphere_add, 1.0);
        color = vec4<f32>(color.rgb * s, color.a);
        ambient_only = vec4<f32>(ambient_only.rgb * s, ambient_only.a);
    }
    let self_mode = frame.shadow.x;
    if self_mode > 0.5 && material.shadow.x > 0.5 {
        // MMD's self-shadow (nanoem model_color.hlsl, MME full.fx): inside
        // the map, lerp(colour × toon's dark end, colour, coverage), the
        // coverage also cut by N·L × 3; outside the map, no toon at all.
        var dark = color;
        if accessory {
            dark = ambient_only;
        } else if material.params.w > 0.5 {
            // The ramp's dark end: a self-shadowed part's toon colour.
            let toon_dark = textureSample(t_toon, s_clamp, vec2<f32>(0.0, 1.0));
            dark = vec4<f32>(color.rgb * tint(toon_dark, material.toon_mul, material.toon_add, 1.0), color.a);
        }
        let sp = in_shadow_map(i.shadow_pos);
        if sp.w > 0.5 {
            let size = frame.shadow.y;
            let texel = vec2<i32>(clamp(sp.xy * size, vec2<f32>(0.0), vec2<f32>(size - 1.0)));
            let map = textureLoad(t_shadow, texel, 0);
            let diff = clamp(sp.z - map, 0.0, 1.0);
            var k = 1500.0;
            if self_mode > 1.5 {
                k = 8000.0 * sp.y;
            }
            var lit = 1.0 - clamp(diff * k - 0.3, 0.0, 1.0);
            if !accessory {
                lit = min(clamp(lambert * 3.0, 0.0, 1.0), lit);
            }
            color = mix(dark, color, lit);
        }
    } else if material.params.w > 0.5 {
        let toon = textureSample(t_toon, s_clamp, vec2<f32>(0.0, 0.5 - lambert * 0.5));
        color = vec4<f32>(color.rgb * tint(toon, material.toon_mul, material.toon_add, 1.0), color.a);
    }
    // Blinn specular, only for a positive power (as saba's MMD shader; MMD
    // materials with power 0 show no highlight).
    if material.specular.w > 0.0 {
        let h = normalize(normalize(i.to_eye) + to_light);
        let spec = pow(max(dot(h, n), 0.0), material.specular.w);
        color = vec4<f32>(color.rgb + spec * material.specular.rgb * frame.light_color.rgb, color.a);
    }

    if color.a < 0.002 {
        discard;
    }
    return clamp(color, vec4<f32>(0.0), vec4<f32>(1.0));
}

// A point's place in the self-shadow map: (u, v, depth, 1) with u, v in
// 0..1 (v down), or w = 0 outside the map or behind the light's eye.
fn in_shadow_map(p: vec4<f32>) -> vec4<f32> {
    if p.w <= 1e-6 {
        return vec4<f32>(0.0);
    }
    let ndc = p.xyz / p.w;
    let uv = vec2<f32>(ndc.x * 0.5 + 0.5, 0.5 - ndc.y * 0.5);
    if any(uv < vec2<f32>(0.0)) || any(uv > vec2<f32>(1.0)) {
        return vec4<f32>(0.0);
    }
    return vec4<f32>(uv, ndc.z, 1.0);
}

// The self-shadow map: casting materials' depth seen from the light.
struct ZplotOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) uv: vec2<f32>,
};

@vertex
fn vs_zplot(v: VertexIn) -> ZplotOut {
    var o: ZplotOut;
    o.clip = frame.light_view_proj * vec4<f32>(v.position, 1.0);
    o.uv = v.uv;
    return o;
}

@fragment
fn fs_zplot(i: ZplotOut) {
    var a = material.diffuse.a;
    if material.params.z > 0.5 {
        a = a * textureSample(t_diffuse, s_wrap, i.uv).a;
    }
    if a < 0.002 {
        discard;
    }
}

// The ground shadow: the model flattened onto y = 0 along the light, pulled
// a hair towards the eye so it wins over a floor drawn at y = 0. It
// multiplies what it falls on by the light's colour (mixed towards 1 by
// 1 − alpha: translucent, × the texture's alpha as nanoem): MMD's colour on
// MMD's white background, and darker than anything else it falls on.
struct GroundOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) uv: vec2<f32>,
};

@vertex
fn vs_ground(v: VertexIn) -> GroundOut {
    var o: GroundOut;
    let flat_pos = frame.ground * vec4<f32>(v.position, 1.0);
    var clip = frame.proj * frame.view * flat_pos;
    clip.z = clip.z - 2e-6 * clip.w;
    o.clip = clip;
    o.uv = v.uv;
    return o;
}

@fragment
fn fs_ground(i: GroundOut) -> @location(0) vec4<f32> {
    var c = frame.ground_color;
    if material.params.z > 0.5 {
        c.a = c.a * textureSample(t_diffuse, s_wrap, i.uv).a;
    }
    if c.a < 0.002 || frame.shadow.z < 0.5 {
        discard;
    }
    return vec4<f32>(mix(vec3<f32>(1.0), c.rgb, c.a), 1.0);
}

// The ground shadow of a material whose alpha the test cannot drop (no
// texture, or one opaque in every texel): fs_ground's colour without its
// discard, so depth and stencil are tested before the shader runs.
@fragment
fn fs_ground_plain() -> @location(0) vec4<f32> {
    let c = frame.ground_color;
    return vec4<f32>(mix(vec3<f32>(1.0), c.rgb, c.a), 1.0);
}

// The edge (outline): back faces pushed out along the screen-space normal by
// edge size × vertex edge scale pixels.
@vertex
fn vs_edge(v: VertexIn) -> @builtin(position) vec4<f32> {
    let clip = frame.proj * frame.view * vec4<f32>(v.position, 1.0);
    let nclip = (frame.proj * frame.view * vec4<f32>(v.normal, 0.0)).xy;
    let npx = nclip * frame.viewport.xy;
    let len = length(npx);
    var offset = vec2<f32>(0.0);
    if len > 1e-6 {
        let px = material.params.x * v.edge_scale * frame.viewport.z;
        offset = npx / len * px * 2.0 / frame.viewport.xy * clip.w;
    }
    return vec4<f32>(clip.xy + offset, clip.zw);
}

@fragment
fn fs_edge() -> @location(0) vec4<f32> {
    return material.edge_color;
}

// Lines: grid, axes, skeleton overlay.
struct LineOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) color: vec4<f32>,
};

@vertex
fn vs_line(@location(0) position: vec3<f32>, @location(1) color: vec4<f32>) -> LineOut {
    var o: LineOut;
    o.clip = frame.proj * frame.view * vec4<f32>(position, 1.0);
    o.color = color;
    return o;
}

@fragment
fn fs_line(i: LineOut) -> @location(0) vec4<f32> {
    return i.color;
}
