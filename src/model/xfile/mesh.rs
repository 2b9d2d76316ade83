//! Meshes as read, and their merge into one [`Accessory`]: frame transforms
//! applied, per-vertex normals, texture coordinates and colours checked,
//! polygons split into triangle fans and grouped by material.

use glam::{Mat3, Mat4, Vec2, Vec3, Vec4};

use super::{Accessory, XMaterial, XWarning};

/// Largest coordinate a transformed vertex may have (file units): beyond
/// it the frames' matrices are broken, and ×10 or a camera fit would
/// overflow.
const MAX_POSITION: f32 = 1.0e9;

/// A tolerated problem that may repeat: counted, the first one named.
pub(super) struct Tally {
    what: &'static str,
    first: Option<String>,
    count: usize,
}

impl Tally {
    pub(super) fn new(what: &'static str) -> Self {
        Tally {
            what,
            first: None,
            count: 0,
        }
    }

    /// Counts one case; `describe` is called for the first only.
    pub(super) fn note(&mut self, describe: impl FnOnce() -> String, line: usize) {
        if self.first.is_none() {
            self.first = Some(format!("line {line}: {}", describe()));
        }
        self.count += 1;
    }

    /// Adds the warning, if any case was counted, and resets.
    pub(super) fn flush(&mut self, out: &mut Vec<XWarning>) {
        if let Some(first) = self.first.take() {
            out.push(XWarning {
                line: None,
                message: format!("{} {}; the first at {first}", self.count, self.what),
            });
        }
        self.count = 0;
    }
}

/// A face list: every face's corner indices, flat. An index that was not a
/// valid number is `u32::MAX`.
#[derive(Default)]
pub(super) struct Polygons {
    pub corners: Vec<u32>,
    /// End of each face in `corners`.
    ends: Vec<usize>,
    /// Line each face starts on.
    lines: Vec<usize>,
}

impl Polygons {
    pub(super) fn with_capacity(faces: usize) -> Self {
        Polygons {
            corners: Vec::with_capacity(faces.saturating_mul(3)),
            ends: Vec::with_capacity(faces),
            lines: Vec::with_capacity(faces),
        }
    }

    /// Closes the face whose corners were pushed since the last one.
    pub(super) fn end_face(&mut self, line: usize) {
        self.ends.push(self.corners.len());
        self.lines.push(line);
    }

    pub(super) fn len(&self) -> usize {
        self.ends.len()
    }

    /// Face `f`'s corners and line.
    fn face(&self, f: usize) -> (&[u32], usize) {
        let start = if f == 0 { 0 } else { self.ends[f - 1] };
        (&self.corners[start..self.ends[f]], self.lines[f])
    }
}

/// `MeshNormals` as read.
pub(super) struct RawNormals {
    pub normals: Vec<Vec3>,
    pub polygons: Polygons,
    pub line: usize,
}

/// `MeshMaterialList` as read.
pub(super) struct RawMaterialList {
    pub line: usize,
    /// The material count the list declares.
    pub declared: usize,
    /// A material index per face (`u32::MAX`: not a valid number).
    pub face_materials: Vec<u32>,
    pub materials: Vec<XMaterial>,
}

/// One `Mesh` as read, with the transform of the frames around it.
pub(super) struct RawMesh {
    pub name: String,
    pub line: usize,
    /// Frames' transform, column vectors.
    pub world: Mat4,
    pub positions: Vec<Vec3>,
    pub polygons: Polygons,
    pub normals: Option<RawNormals>,
    /// Texture coordinates and the line of their block.
    pub uvs: Option<(Vec<Vec2>, usize)>,
    /// `(vertex, rgba)` entries and the line of their block.
    pub colours: Option<(Vec<(u32, Vec4)>, usize)>,
    pub materials: Option<RawMaterialList>,
}

impl RawMesh {
    pub(super) fn new(name: String, line: usize, world: Mat4) -> Self {
        RawMesh {
            name,
            line,
            world,
            positions: Vec::new(),
            polygons: Polygons::default(),
            normals: None,
            uvs: None,
            colours: None,
            materials: None,
        }
    }

    fn label(&self) -> String {
        if self.name.is_empty() {
            format!("`Mesh` at line {}", self.line)
        } else {
            format!("`Mesh` {} (line {})", self.name, self.line)
        }
    }
}

/// Collects meshes into one accessory.
#[derive(Default)]
pub(super) struct Builder {
    positions: Vec<Vec3>,
    normals: Vec<Vec3>,
    uvs: Vec<Vec2>,
    colours: Vec<Vec4>,
    has_colours: bool,
    materials: Vec<XMaterial>,
    /// Triangles (vertex indices) per material, parallel to `materials`.
    runs: Vec<Vec<u32>>,
    meshes: usize,
    polygons: usize,
    warnings: Vec<XWarning>,
}

impl Builder {
    pub(super) fn warn(&mut self, w: XWarning) {
        self.warnings.push(w);
    }

    /// Merges one mesh.
    pub(super) fn add(&mut self, mesh: RawMesh) {
        let label = mesh.label();
        let base = self.positions.len();
        let n = mesh.positions.len();
        if base.saturating_add(n) > u32::MAX as usize {
            self.warn(XWarning {
                line: Some(mesh.line),
                message: format!("{label}: more than 2^32 vertices in all; the mesh is left out"),
            });
            return;
        }
        self.meshes += 1;
        self.polygons += mesh.polygons.len();
        let normal_matrix = Mat3::from_mat4(mesh.world).inverse().transpose();
        let mut nonfinite =
            Tally::new("vertices were moved beyond ±1e9 by their frame transforms and set to 0");
        for (i, p) in mesh.positions.iter().enumerate() {
            let q = mesh.world.transform_point3(*p);
            if q.is_finite() && q.abs().max_element() <= MAX_POSITION {
                self.positions.push(q);
            } else {
                nonfinite.note(|| format!("{label}: vertex {i}"), mesh.line);
                self.positions.push(Vec3::ZERO);
            }
        }
        nonfinite.flush(&mut self.warnings);
        let normals = self.vertex_normals(&mesh, &label);
        self.normals.extend(normals.into_iter().map(|v| {
            let t = (normal_matrix * v).normalize_or_zero();
            if t.is_finite() { t } else { Vec3::ZERO }
        }));
        self.add_uvs(&mesh, &label);
        self.add_colours(&mesh, &label);
        self.add_triangles(&mesh, &label, base);
    }

    /// Per-vertex normals in the mesh's own space: from `MeshNormals`
    /// through its faces (nanoem `Accessory::fillNormalBuffer`: a vertex
    /// takes the normal of its last corner), straight when there are as
    /// many normals as vertices and no usable faces, else the sum of the
    /// faces' normals at each vertex.
    fn vertex_normals(&mut self, mesh: &RawMesh, label: &str) -> Vec<Vec3> {
        let n = mesh.positions.len();
        let mut out = vec![Vec3::ZERO; n];
        if let Some(raw) = &mesh.normals {
            let faces = &raw.polygons;
            if faces.len() == mesh.polygons.len() && faces.len() > 0 {
                let mut bad = Tally::new("normal indices were out of range and ignored");
                for f in 0..faces.len() {
                    let (vc, _) = mesh.polygons.face(f);
                    let (nc, line) = faces.face(f);
                    if vc.len() != nc.len() {
                        bad.note(
                            || {
                                format!(
                                    "{label}: normal face {f} has {} corners, the face {}",
                                    nc.len(),
                                    vc.len()
                                )
                            },
                            line,
                        );
                        continue;
                    }
                    for (&v, &k) in vc.iter().zip(nc) {
                        match (out.get_mut(v as usize), raw.normals.get(k as usize)) {
                            (Some(slot), Some(normal)) => *slot = *normal,
                            _ => bad.note(
                                || {
                                    format!(
                                        "{label}: normal face {f} names normal {k} of {}",
                                        raw.normals.len()
                                    )
                                },
                                line,
                            ),
                        }
                    }
                }
                bad.flush(&mut self.warnings);
                return out;
            }
            if raw.normals.len() == n {
                return raw.normals.clone();
            }
            self.warn(XWarning {
                line: Some(raw.line),
                message: format!(
                    "{label}: `MeshNormals` has {} faces for {} and {} normals for {n} vertices; normals are computed from the faces",
                    faces.len(),
                    mesh.polygons.len(),
                    raw.normals.len()
                ),
            });
        }
        for f in 0..mesh.polygons.len() {
            let (c, _) = mesh.polygons.face(f);
            let Some(p) = c
                .iter()
                .map(|&i| mesh.positions.get(i as usize).copied())
                .collect::<Option<Vec<Vec3>>>()
            else {
                continue;
            };
            for k in 1..p.len().saturating_sub(1) {
                // Clockwise front faces (DirectX, MMD): this points out.
                let normal = (p[k] - p[0]).cross(p[k + 1] - p[0]);
                for &i in [c[0], c[k], c[k + 1]].iter() {
                    out[i as usize] += normal;
                }
            }
        }
        out.iter().map(|v| v.normalize_or_zero()).collect()
    }

    fn add_uvs(&mut self, mesh: &RawMesh, label: &str) {
        let n = mesh.positions.len();
        match &mesh.uvs {
            Some((uvs, line)) => {
                if uvs.len() != n {
                    self.warn(XWarning {
                        line: Some(*line),
                        message: format!(
                            "{label}: {} texture coordinates for {n} vertices; the missing ones are (0, 0), extra ones ignored",
                            uvs.len()
                        ),
                    });
                }
                self.uvs
                    .extend((0..n).map(|i| uvs.get(i).copied().unwrap_or(Vec2::ZERO)));
            }
            None => self.uvs.extend(std::iter::repeat_n(Vec2::ZERO, n)),
        }
    }

    fn add_colours(&mut self, mesh: &RawMesh, label: &str) {
        let n = mesh.positions.len();
        let start = self.colours.len();
        self.colours.extend(std::iter::repeat_n(Vec4::ONE, n));
        let Some((entries, line)) = &mesh.colours else {
            return;
        };
        self.has_colours = true;
        let mut bad = Tally::new("vertex colours named a vertex out of range and were ignored");
        for (e, (v, c)) in entries.iter().enumerate() {
            match self
                .colours
                .get_mut(start + *v as usize)
                .filter(|_| (*v as usize) < n)
            {
                Some(slot) => *slot = *c,
                None => bad.note(
                    || format!("{label}: colour {e} names vertex {v} of {n}"),
                    *line,
                ),
            }
        }
        bad.flush(&mut self.warnings);
    }

    /// Splits the faces into triangle fans, each into its material's run.
    fn add_triangles(&mut self, mesh: &RawMesh, label: &str, base: usize) {
        let n = mesh.positions.len();
        let first_material = self.materials.len();
        let mut list_materials = Vec::new();
        let mut face_materials: &[u32] = &[];
        if let Some(list) = &mesh.materials {
            list_materials = list.materials.clone();
            if list_materials.len() < list.declared {
                self.warn(XWarning {
                    line: Some(list.line),
                    message: format!(
                        "{label}: the material list declares {} materials but gives {}; white ones stand in",
                        list.declared,
                        list_materials.len()
                    ),
                });
                // Pad only as far as the faces use: a lying count costs
                // nothing.
                let used = list
                    .face_materials
                    .iter()
                    .filter(|&&m| (m as usize) < list.declared)
                    .max()
                    .map_or(0, |&m| m as usize + 1);
                list_materials.resize(used.max(list_materials.len()), XMaterial::default());
            }
            if list.face_materials.len() < mesh.polygons.len() && !list.face_materials.is_empty() {
                self.warn(XWarning {
                    line: Some(list.line),
                    message: format!(
                        "{label}: {} material indices for {} faces; the last one is used for the rest",
                        list.face_materials.len(),
                        mesh.polygons.len()
                    ),
                });
            }
            face_materials = &list.face_materials;
        }
        if list_materials.is_empty() {
            list_materials.push(XMaterial::default());
        }
        let count = list_materials.len();
        self.materials.extend(list_materials);
        self.runs.resize_with(self.materials.len(), Vec::new);
        let mut bad_corner = Tally::new("faces were left out because a corner is not a vertex");
        let mut short = Tally::new("faces with fewer than 3 corners were left out");
        let mut bad_material = Tally::new("faces named a material out of range and use the first");
        for f in 0..mesh.polygons.len() {
            let (c, line) = mesh.polygons.face(f);
            if c.len() < 3 {
                short.note(
                    || format!("{label}: face {f} has {} corners", c.len()),
                    line,
                );
                continue;
            }
            if let Some(&v) = c.iter().find(|&&v| v as usize >= n) {
                bad_corner.note(
                    || format!("{label}: face {f} names vertex {} of {n}", show_index(v)),
                    line,
                );
                continue;
            }
            let m = face_materials
                .get(f)
                .or(face_materials.last())
                .copied()
                .unwrap_or(0);
            let m = if (m as usize) < count {
                m as usize
            } else {
                bad_material.note(
                    || {
                        format!(
                            "{label}: face {f} names material {} of {count}",
                            show_index(m)
                        )
                    },
                    line,
                );
                0
            };
            let run = &mut self.runs[first_material + m];
            let at = |i: u32| (base + i as usize) as u32;
            for k in 1..c.len() - 1 {
                run.extend([at(c[0]), at(c[k]), at(c[k + 1])]);
            }
        }
        for t in [&mut short, &mut bad_corner, &mut bad_material] {
            t.flush(&mut self.warnings);
        }
    }

    /// The accessory, materials' runs laid end to end.
    pub(super) fn finish(mut self, version: String, mut tail: Vec<XWarning>) -> Accessory {
        let mut indices = Vec::with_capacity(self.runs.iter().map(Vec::len).sum());
        for (m, run) in self.materials.iter_mut().zip(&self.runs) {
            m.index_count = run.len();
            indices.extend_from_slice(run);
        }
        for (i, m) in self.materials.iter().enumerate() {
            if m.screen {
                self.warnings.push(XWarning {
                    line: None,
                    message: format!(
                        "material {i} uses screen.bmp (MMD's live screen capture); it is drawn as a plain material"
                    ),
                });
            }
        }
        self.warnings.append(&mut tail);
        Accessory {
            version,
            positions: self.positions,
            normals: self.normals,
            uvs: self.uvs,
            colours: self.colours,
            has_vertex_colours: self.has_colours,
            indices,
            materials: self.materials,
            mesh_count: self.meshes,
            polygon_count: self.polygons,
            warnings: self.warnings,
        }
    }
}

/// An index for a message (`u32::MAX` marks a value that was not a number).
fn show_index(v: u32) -> String {
    if v == u32::MAX {
        "(not a valid index)".to_owned()
    } else {
        v.to_string()
    }
}
