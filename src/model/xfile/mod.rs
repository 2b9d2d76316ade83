//! MMD accessories: DirectX text `.x` meshes and `.vac` placement files, as
//! MikuMikuDance reads them. Pure: no GUI or GPU type.
//!
//! # What is read
//! `xof 0302txt` / `0303txt` files (CRLF, LF or CR; Shift_JIS strings):
//! `Mesh` (vertices; faces of 3 or more corners, split into triangle fans),
//! `MeshMaterialList` with inline or referenced (`{ name }`) `Material`s
//! (faceColor RGBA, power, specular, emissive, `TextureFilename`),
//! `MeshNormals`, `MeshTextureCoords` (`u;v;,` and `u,v;` alike),
//! `MeshVertexColors`, `Frame` / `FrameTransformMatrix` nesting. Templates,
//! `Header`, animation and skinning objects and anything unknown are
//! skipped. Binary (`0302bin`/`0303bin`) and compressed (`tzip`/`bzip`)
//! files are refused with [`XError::Unsupported`] naming the format.
//!
//! # MMD's rules (as the open runtimes reproduce them)
//! * Several meshes merge into one, each moved by its frames' transforms:
//!   MMD loads accessories with D3DX's `D3DXLoadMeshFromX`, which collapses
//!   every mesh of the file into one and applies the frame hierarchy (saba
//!   `src/Saba/Model/XFile/XFileModel.cpp` applies the frames' global
//!   transforms too; nanoem's `dependencies/nanodxm/nanodxm.c` reads and
//!   drops them, keeping the last mesh).
//! * Positions stay in the file's units here ([`Accessory`]); the
//!   conversion to a drawable [`Model`](crate::model::Model)
//!   ([`Accessory::to_model`]) scales them ×10 into MMD units (nanoem
//!   `emapp/src/Accessory.cc`: `kInitialWorldMatrix = scale(10)`; saba
//!   multiplies positions by 10).
//! * Coordinates are used as stored: DirectX and MMD are both left-handed,
//!   Y up, front faces clockwise (saba and nanoem flip Z only because they
//!   draw right-handed). UV v is kept as stored (DirectX's top-left origin
//!   is MMD's; saba's `1 − v` is for OpenGL).
//! * Per-vertex normals come from `MeshNormals` through its face list
//!   (nanoem `Accessory::fillNormalBuffer`), else from the face normals
//!   summed at each vertex.
//! * Texture names split at `*` into texture and sphere map, `.sph`
//!   multiplying and `.spa` adding; a lone `.sph`/`.spa` is a sphere map
//!   (saba `XFileModel.cpp`; nanoem `Accessory::createAllImages` picks the
//!   mode by suffix). `screen.bmp` names MMD's live screen capture: the
//!   material is drawn plain and a warning says so.
//! * Emissive is the ambient colour (nanoem
//!   `AccessoryProgramBundle::CommonPass::setMaterialParameters` puts the
//!   emissive colour in the ambient slot).
//!
//! # Bad input
//! Fatal problems are an [`XError`] naming the line; tolerated ones (an
//! index out of range, a NaN or huge number, a count larger than the data
//! in a list MMD would pad) are [`XWarning`]s naming the first bad element
//! and how many there were. Memory is bounded by the file's size: no
//! count is trusted before the data behind it has been read.

mod mesh;
mod read;
mod text;
mod to_model;
pub mod vac;

use std::path::Path;

use glam::{Vec2, Vec3, Vec4};

use crate::model::SphereMode;

pub use to_model::{MMD_SCALE, ROOT_BONE, casts_self_shadow, draws_both_faces};
pub use vac::{Placement, VacError, VacFile};

/// Why a `.x` file could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum XError {
    /// The file does not start with `xof `.
    #[error("not a DirectX .x file (starts with {start})")]
    NotX {
        /// The first bytes, printable ASCII with others as `\xNN`.
        start: String,
    },
    /// A DirectX file in a format this reader does not read.
    #[error(
        "{format} DirectX .x files are not supported: only text files (`xof 0302txt` / \
         `0303txt`) are read; save the accessory as text .x"
    )]
    Unsupported {
        /// The format as named in the header, e.g. "binary (0303bin)".
        format: String,
    },
    /// The text is not a valid `.x` file at this line.
    #[error("line {line}: {what}")]
    Syntax {
        /// 1-based line number.
        line: usize,
        /// What was expected and what was found.
        what: String,
    },
    /// The file could not be read from disk.
    #[error("cannot read {path}: {message}")]
    Io { path: String, message: String },
}

/// A tolerated problem: the accessory still loads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XWarning {
    /// 1-based line in the `.x` file, when the problem is in the file.
    pub line: Option<usize>,
    /// What was wrong and what was done about it.
    pub message: String,
}

impl std::fmt::Display for XWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(l) => write!(f, "line {l}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// One material of an accessory, with the run of triangles it draws.
#[derive(Debug, Clone, PartialEq)]
pub struct XMaterial {
    /// The `Material`'s name (empty for an unnamed inline material).
    pub name: String,
    /// `faceColor`: diffuse RGB and alpha, 0..1 as stored.
    pub face_colour: Vec4,
    /// `power`: the specular exponent.
    pub power: f32,
    /// `specularColor`, 0..1.
    pub specular: Vec3,
    /// `emissiveColor`, 0..1: MMD draws it as the ambient colour.
    pub emissive: Vec3,
    /// `TextureFilename` as written (Windows separators possible), before
    /// the `*` split; `None` without one.
    pub texture_filename: Option<String>,
    /// The main texture part of the name (`None`: none, or only a sphere).
    pub texture: Option<String>,
    /// The sphere-map part of the name.
    pub sphere: Option<String>,
    /// How the sphere map applies (`.sph` multiply, `.spa` add).
    pub sphere_mode: SphereMode,
    /// The texture is `screen.bmp` (MMD's live screen capture), drawn as a
    /// plain material here: `texture` is `None`.
    pub screen: bool,
    /// Number of entries of [`Accessory::indices`] this material draws (a
    /// multiple of 3), following the previous material's run.
    pub index_count: usize,
}

impl Default for XMaterial {
    /// nanodxm's default material: white, opaque, no specular, no emissive
    /// (`nanodxmMaterialCreate`), used when a mesh names none.
    fn default() -> Self {
        XMaterial {
            name: String::new(),
            face_colour: Vec4::ONE,
            power: 0.0,
            specular: Vec3::ZERO,
            emissive: Vec3::ZERO,
            texture_filename: None,
            texture: None,
            sphere: None,
            sphere_mode: SphereMode::None,
            screen: false,
            index_count: 0,
        }
    }
}

/// A DirectX text `.x` accessory, every mesh merged into one (see the module
/// documentation).
///
/// **Units:** positions are the file's units with the frame transforms
/// applied, *not* yet ×10 (that happens in [`Accessory::to_model`]).
/// Left-handed, Y up, as stored. UV (0, 0) is the texture's top-left.
///
/// **Invariants:** `positions`, `normals`, `uvs` and `colours` have the same
/// length; `indices.len()` is a multiple of 3 and every index is a vertex;
/// the materials' `index_count`s add up to `indices.len()`; every number is
/// finite.
#[derive(Debug, Clone, PartialEq)]
pub struct Accessory {
    /// Header version and format, e.g. `"0303txt"`.
    pub version: String,
    /// Vertex positions (file units, frame transforms applied).
    pub positions: Vec<Vec3>,
    /// Per-vertex unit normals (zero where none could be found).
    pub normals: Vec<Vec3>,
    /// Per-vertex texture coordinates as stored.
    pub uvs: Vec<Vec2>,
    /// Per-vertex colours (`MeshVertexColors`; white where none is given).
    pub colours: Vec<Vec4>,
    /// Whether any mesh had `MeshVertexColors`.
    pub has_vertex_colours: bool,
    /// Triangle list, grouped into consecutive runs by material.
    pub indices: Vec<u32>,
    /// Materials in drawing order.
    pub materials: Vec<XMaterial>,
    /// Number of `Mesh` objects merged.
    pub mesh_count: usize,
    /// Number of faces as the file lists them (before the triangle split).
    pub polygon_count: usize,
    /// Problems tolerated, in file order.
    pub warnings: Vec<XWarning>,
}

impl Accessory {
    /// Reads a text `.x` file from its bytes.
    pub fn read(bytes: &[u8]) -> Result<Accessory, XError> {
        read::read(bytes)
    }

    /// Reads a `.x` file from disk.
    pub fn open(path: &Path) -> Result<Accessory, XError> {
        let bytes = std::fs::read(path).map_err(|e| XError::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        Accessory::read(&bytes)
    }

    /// Number of vertices.
    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    /// Number of triangles (after splitting polygons).
    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }

    /// The texture and sphere-map names the materials use, each once, in
    /// first-use order (`screen.bmp` left out).
    pub fn texture_names(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for m in &self.materials {
            for name in [&m.texture, &m.sphere].into_iter().flatten() {
                if !out.contains(name) {
                    out.push(name.clone());
                }
            }
        }
        out
    }
}

/// Whether the bytes look like a DirectX `.x` file (`xof ` signature).
pub fn is_x_file(bytes: &[u8]) -> bool {
    bytes.starts_with(b"xof ")
}
