//! The `.x` text reader: header, then objects by recursive descent over the
//! tokens of [`super::text`]. Separators (`;` and `,`) are skipped between
//! values, as nanodxm's `nanodxmBufferSkipSeparator` does, so both the
//! `u;v;,` and the `u,v;` spellings of texture coordinates read alike.
//!
//! Every list is read value by value and grows only as values arrive (its
//! capacity capped by the bytes left), so a lying count costs no memory:
//! it runs into the block's `}` or the file's end, which is an error naming
//! the line.

use glam::{Mat4, Vec2, Vec3, Vec4};

use super::mesh::{Builder, Polygons, RawMaterialList, RawMesh, RawNormals, Tally};
use super::text::{Lexer, Tok, decode, parse_float, parse_u32};
use super::{Accessory, XError, XMaterial, XWarning};
use crate::model::SphereMode;

/// Deepest `Frame` nesting read (real files nest a handful).
const MAX_DEPTH: usize = 64;
/// A value beyond this (file units, colours, matrix entries) is treated as
/// broken: 10 million units is 800 km in MMD's scale after ×10.
const HUGE: f32 = 1.0e7;

/// Reads the whole file.
pub(super) fn read(bytes: &[u8]) -> Result<Accessory, XError> {
    let (version, text_start) = header(bytes)?;
    let mut r = Reader {
        lx: Lexer::new(bytes, text_start, 1),
        named: Vec::new(),
        builder: Builder::default(),
        bad_numbers: Tally::new("numbers were not finite or beyond ±1e7 and read as 0"),
        extra_data: Tally::new(
            "blocks held more values than their counts say; the rest was ignored",
        ),
    };
    r.document()?;
    let mut warnings = Vec::new();
    r.bad_numbers.flush(&mut warnings);
    r.extra_data.flush(&mut warnings);
    Ok(r.builder.finish(version, warnings))
}

/// Checks the 16-byte header `xof 0303txt 0032`; returns the version and
/// format (`"0303txt"`) and where the text begins.
fn header(bytes: &[u8]) -> Result<(String, usize), XError> {
    if !bytes.starts_with(b"xof ") {
        return Err(XError::NotX {
            start: describe_start(bytes),
        });
    }
    let field = |r: std::ops::Range<usize>| bytes.get(r).unwrap_or(&[]);
    let version = String::from_utf8_lossy(field(4..8)).into_owned();
    let format = field(8..12);
    let kind = match format {
        b"txt " => None,
        b"bin " => Some("binary"),
        b"tzip" => Some("compressed text (MSZIP)"),
        b"bzip" => Some("compressed binary (MSZIP)"),
        _ => {
            return Err(XError::Syntax {
                line: 1,
                what: format!(
                    "unknown .x format `{}` in the header (expected `txt `, `bin `, `tzip` or `bzip`)",
                    String::from_utf8_lossy(format)
                ),
            });
        }
    };
    let name = format!("{version}{}", String::from_utf8_lossy(format).trim_end());
    if let Some(kind) = kind {
        return Err(XError::Unsupported {
            format: format!("{kind} ({name})"),
        });
    }
    // The float size (`0032`/`0064`) only matters to binary files; the text
    // starts after it.
    Ok((name, 16.min(bytes.len())))
}

/// The first bytes of a file for a message: printable ASCII, others `\xNN`.
fn describe_start(bytes: &[u8]) -> String {
    let mut s = String::from("\"");
    for &b in bytes.iter().take(8) {
        if b.is_ascii_graphic() || b == b' ' {
            s.push(char::from(b));
        } else {
            s.push_str(&format!("\\x{b:02x}"));
        }
    }
    s.push('"');
    s
}

/// An object's opening: `Kind [name] [<guid>] {`.
struct Header {
    kind: String,
    name: String,
    line: usize,
}

struct Reader<'a> {
    lx: Lexer<'a>,
    /// Named materials seen so far, for `{ name }` references (the last
    /// definition of a name wins).
    named: Vec<XMaterial>,
    builder: Builder,
    bad_numbers: Tally,
    extra_data: Tally,
}

impl<'a> Reader<'a> {
    /// Top level: objects until the end of the file.
    fn document(&mut self) -> Result<(), XError> {
        loop {
            let (tok, line) = self.lx.next()?;
            match tok {
                Tok::End => return Ok(()),
                Tok::Separator => {}
                Tok::Name(b"template") => self.skip_template(line)?,
                Tok::Name(kind) => {
                    let h = self.header(kind, line)?;
                    self.object(h, Mat4::IDENTITY, 0)?;
                }
                Tok::Open => self.skip_reference(line)?,
                other => {
                    return Err(XError::Syntax {
                        line,
                        what: format!(
                            "expected an object (`Mesh`, `Frame`, `Material`…), found {}",
                            other.describe()
                        ),
                    });
                }
            }
        }
    }

    /// Reads `[name] [<guid>] {` after an object's kind.
    fn header(&mut self, kind: &[u8], line: usize) -> Result<Header, XError> {
        let mut h = Header {
            kind: decode(kind),
            name: String::new(),
            line,
        };
        loop {
            let (tok, at) = self.lx.next()?;
            match tok {
                Tok::Open => return Ok(h),
                Tok::Name(n) if h.name.is_empty() => h.name = decode(n),
                Tok::Guid => {}
                other => {
                    return Err(XError::Syntax {
                        line: at,
                        what: format!(
                            "`{}` (line {line}): expected `{{`, found {}",
                            h.kind,
                            other.describe()
                        ),
                    });
                }
            }
        }
    }

    /// One object whose `{` has been read, inside frames with transform
    /// `world` (column vectors), `depth` frames deep.
    fn object(&mut self, h: Header, world: Mat4, depth: usize) -> Result<(), XError> {
        match h.kind.as_str() {
            "Mesh" => self.mesh(h, world),
            "Frame" => self.frame(h, world, depth),
            "Material" => {
                let m = self.material(h)?;
                self.remember(m);
                Ok(())
            }
            _ => self.skip_body(&h),
        }
    }

    /// A `Frame`: its transform, meshes and child frames.
    fn frame(&mut self, h: Header, parent: Mat4, depth: usize) -> Result<(), XError> {
        if depth >= MAX_DEPTH {
            return Err(XError::Syntax {
                line: h.line,
                what: format!("frames nested more than {MAX_DEPTH} deep"),
            });
        }
        let mut world = parent;
        loop {
            let (tok, line) = self.lx.next()?;
            match tok {
                Tok::Close => return Ok(()),
                Tok::Name(kind) => {
                    let child = self.header(kind, line)?;
                    if child.kind == "FrameTransformMatrix" {
                        // DirectX stores row-vector matrices row by row:
                        // read as columns they are the column-vector form,
                        // and `child · parent` (rows) is `parent · child`.
                        world = parent * self.matrix(&child)?;
                    } else {
                        self.object(child, world, depth + 1)?;
                    }
                }
                Tok::Open => self.skip_reference(line)?,
                Tok::Separator => {}
                Tok::End => return Err(unterminated(&h)),
                _ => self
                    .extra_data
                    .note(|| format!("`Frame` at line {}", h.line), line),
            }
        }
    }

    /// `FrameTransformMatrix { 16 floats }`.
    fn matrix(&mut self, h: &Header) -> Result<Mat4, XError> {
        let mut m = [0.0f32; 16];
        for (i, v) in m.iter_mut().enumerate() {
            *v = self.float(|| format!("`FrameTransformMatrix` (line {}) value {i}", h.line))?;
        }
        self.finish(h)?;
        Ok(Mat4::from_cols_array(&m))
    }

    /// A `Material`: colours, power, then `TextureFilename` among its
    /// children.
    fn material(&mut self, h: Header) -> Result<XMaterial, XError> {
        let what = |f: &str| format!("`Material` {} (line {}): {f}", h.name, h.line);
        let mut m = XMaterial {
            name: h.name.clone(),
            ..XMaterial::default()
        };
        let mut c = [0.0f32; 11];
        const FIELDS: [&str; 11] = [
            "red",
            "green",
            "blue",
            "alpha",
            "power",
            "specular red",
            "specular green",
            "specular blue",
            "emissive red",
            "emissive green",
            "emissive blue",
        ];
        for (v, f) in c.iter_mut().zip(FIELDS) {
            *v = self.float(|| what(f))?;
        }
        m.face_colour = Vec4::new(c[0], c[1], c[2], c[3]);
        m.power = c[4];
        m.specular = Vec3::new(c[5], c[6], c[7]);
        m.emissive = Vec3::new(c[8], c[9], c[10]);
        loop {
            let (tok, line) = self.lx.next()?;
            match tok {
                Tok::Close => break,
                Tok::Name(kind) => {
                    let child = self.header(kind, line)?;
                    if child.kind.eq_ignore_ascii_case("TextureFilename") {
                        let name = self.texture_filename(&child)?;
                        set_texture(&mut m, name);
                    } else {
                        self.skip_body(&child)?;
                    }
                }
                Tok::Open => self.skip_reference(line)?,
                Tok::Separator => {}
                Tok::End => return Err(unterminated(&h)),
                _ => self.extra_data.note(|| what("colours"), line),
            }
        }
        Ok(m)
    }

    /// `TextureFilename { "name"; }`: the name decoded from Shift_JIS.
    fn texture_filename(&mut self, h: &Header) -> Result<String, XError> {
        let (tok, line) = self.data_token()?;
        let name = match tok {
            Tok::Str(s) | Tok::Name(s) => decode(s),
            Tok::Close => return Ok(String::new()),
            other => {
                return Err(XError::Syntax {
                    line,
                    what: format!(
                        "`TextureFilename` (line {}): expected a quoted file name, found {}",
                        h.line,
                        other.describe()
                    ),
                });
            }
        };
        self.finish(h)?;
        Ok(name.trim().to_owned())
    }

    /// Keeps a named material for `{ name }` references.
    fn remember(&mut self, m: XMaterial) {
        if m.name.is_empty() {
            return;
        }
        self.named.retain(|n| n.name != m.name);
        self.named.push(m);
    }

    /// A `Mesh`: vertices, faces, then its children.
    fn mesh(&mut self, h: Header, world: Mat4) -> Result<(), XError> {
        let mut mesh = RawMesh::new(h.name.clone(), h.line, world);
        let n = self.count(|| format!("`Mesh` {} (line {}): vertex count", h.name, h.line))?;
        mesh.positions = self.vectors(n, |i| {
            format!("`Mesh` {} (line {}): vertex {i} of {n}", h.name, h.line)
        })?;
        mesh.polygons = self.polygons(&format!("`Mesh` {} (line {})", h.name, h.line))?;
        loop {
            let (tok, line) = self.lx.next()?;
            match tok {
                Tok::Close => break,
                Tok::Name(kind) => {
                    let child = self.header(kind, line)?;
                    match child.kind.as_str() {
                        "MeshMaterialList" => {
                            mesh.materials = Some(self.material_list(&child)?);
                        }
                        "MeshNormals" => mesh.normals = Some(self.normals(&child)?),
                        "MeshTextureCoords" | "MeshTextureCords" => {
                            mesh.uvs = Some((self.texture_coords(&child)?, child.line));
                        }
                        "MeshVertexColors" => {
                            mesh.colours = Some((self.vertex_colours(&child)?, child.line));
                        }
                        _ => self.skip_body(&child)?,
                    }
                }
                Tok::Open => self.skip_reference(line)?,
                Tok::Separator => {}
                Tok::End => return Err(unterminated(&h)),
                _ => self
                    .extra_data
                    .note(|| format!("`Mesh` {} at line {}", h.name, h.line), line),
            }
        }
        self.builder.add(mesh);
        Ok(())
    }

    /// A face list: a count, then per face a corner count and its indices.
    /// An index that is not a non-negative integer is kept as `u32::MAX`
    /// (out of range: the face is dropped with a warning later).
    fn polygons(&mut self, what: &str) -> Result<Polygons, XError> {
        let nf = self.count(|| format!("{what}: face count"))?;
        let mut p = Polygons::with_capacity(nf.min(self.lx.remaining() / 4));
        for f in 0..nf {
            let line = self.peek_line()?;
            let k = self.count(|| format!("{what}: face {f} of {nf}: corner count"))?;
            for j in 0..k {
                let (tok, at) = self.data_token()?;
                let index = match tok {
                    Tok::Number(t) => parse_u32(t).unwrap_or(u32::MAX),
                    other => {
                        return Err(XError::Syntax {
                            line: at,
                            what: format!(
                                "{what}: face {f} of {nf}: corner {j} of {k}: expected an index, found {}",
                                other.describe()
                            ),
                        });
                    }
                };
                p.corners.push(index);
            }
            p.end_face(line);
        }
        Ok(p)
    }

    /// `MeshMaterialList`: counts, a material index per face, then inline
    /// materials and `{ name }` references.
    fn material_list(&mut self, h: &Header) -> Result<RawMaterialList, XError> {
        let what = format!("`MeshMaterialList` (line {})", h.line);
        let declared = self.count(|| format!("{what}: material count"))?;
        let n = self.count(|| format!("{what}: face index count"))?;
        let mut list = RawMaterialList {
            line: h.line,
            declared,
            face_materials: Vec::with_capacity(n.min(self.lx.remaining() / 2)),
            materials: Vec::new(),
        };
        for i in 0..n {
            let (tok, at) = self.data_token()?;
            match tok {
                Tok::Number(t) => list.face_materials.push(parse_u32(t).unwrap_or(u32::MAX)),
                other => {
                    return Err(XError::Syntax {
                        line: at,
                        what: format!(
                            "{what}: face {i} of {n}: expected a material index, found {}",
                            other.describe()
                        ),
                    });
                }
            }
        }
        loop {
            let (tok, line) = self.lx.next()?;
            match tok {
                Tok::Close => return Ok(list),
                Tok::Name(kind) => {
                    let child = self.header(kind, line)?;
                    if child.kind == "Material" {
                        let m = self.material(child)?;
                        self.remember(m.clone());
                        list.materials.push(m);
                    } else {
                        self.skip_body(&child)?;
                    }
                }
                Tok::Open => list.materials.push(self.material_reference(line)?),
                Tok::Separator => {}
                Tok::End => return Err(unterminated(h)),
                _ => self.extra_data.note(|| what.clone(), line),
            }
        }
    }

    /// `{ name }` inside a material list (its `{` read): the named
    /// material, or nanodxm's default one with a warning.
    fn material_reference(&mut self, line: usize) -> Result<XMaterial, XError> {
        let mut name = String::new();
        loop {
            let (tok, at) = self.lx.next()?;
            match tok {
                Tok::Close => break,
                Tok::Name(n) if name.is_empty() => name = decode(n),
                Tok::Guid | Tok::Separator | Tok::Name(_) => {}
                other => {
                    return Err(XError::Syntax {
                        line: at,
                        what: format!(
                            "a material reference `{{ … }}` (line {line}): expected a name and `}}`, found {}",
                            other.describe()
                        ),
                    });
                }
            }
        }
        match self.named.iter().find(|m| m.name == name) {
            Some(m) => Ok(m.clone()),
            None => {
                self.builder.warn(XWarning {
                    line: Some(line),
                    message: format!(
                        "material reference `{{ {name} }}` names no material defined before it; a white material is used"
                    ),
                });
                Ok(XMaterial {
                    name,
                    ..XMaterial::default()
                })
            }
        }
    }

    /// `MeshNormals`: normals, then a face list into them.
    fn normals(&mut self, h: &Header) -> Result<RawNormals, XError> {
        let what = format!("`MeshNormals` (line {})", h.line);
        let n = self.count(|| format!("{what}: normal count"))?;
        let normals = self.vectors(n, |i| format!("{what}: normal {i} of {n}"))?;
        let polygons = self.polygons(&what)?;
        self.finish(h)?;
        Ok(RawNormals {
            normals,
            polygons,
            line: h.line,
        })
    }

    /// `MeshTextureCoords`: `u; v;` pairs.
    fn texture_coords(&mut self, h: &Header) -> Result<Vec<Vec2>, XError> {
        let what = format!("`MeshTextureCoords` (line {})", h.line);
        let n = self.count(|| format!("{what}: count"))?;
        let mut uvs = Vec::with_capacity(n.min(self.lx.remaining() / 4));
        for i in 0..n {
            let u = self.float(|| format!("{what}: u of {i} of {n}"))?;
            let v = self.float(|| format!("{what}: v of {i} of {n}"))?;
            uvs.push(Vec2::new(u, v));
        }
        self.finish(h)?;
        Ok(uvs)
    }

    /// `MeshVertexColors`: `index; r; g; b; a;` entries.
    fn vertex_colours(&mut self, h: &Header) -> Result<Vec<(u32, Vec4)>, XError> {
        let what = format!("`MeshVertexColors` (line {})", h.line);
        let n = self.count(|| format!("{what}: count"))?;
        let mut out = Vec::with_capacity(n.min(self.lx.remaining() / 10));
        for i in 0..n {
            let (tok, at) = self.data_token()?;
            let index = match tok {
                Tok::Number(t) => parse_u32(t).unwrap_or(u32::MAX),
                other => {
                    return Err(XError::Syntax {
                        line: at,
                        what: format!(
                            "{what}: entry {i} of {n}: expected a vertex index, found {}",
                            other.describe()
                        ),
                    });
                }
            };
            let mut c = [0.0f32; 4];
            for v in &mut c {
                *v = self.float(|| format!("{what}: colour {i} of {n}"))?;
            }
            out.push((index, Vec4::from_array(c)));
        }
        self.finish(h)?;
        Ok(out)
    }

    /// `n` vectors of three floats.
    fn vectors(&mut self, n: usize, what: impl Fn(usize) -> String) -> Result<Vec<Vec3>, XError> {
        let mut out = Vec::with_capacity(n.min(self.lx.remaining() / 6));
        for i in 0..n {
            let x = self.float(|| what(i))?;
            let y = self.float(|| what(i))?;
            let z = self.float(|| what(i))?;
            out.push(Vec3::new(x, y, z));
        }
        Ok(out)
    }

    /// The next token that is not a separator.
    fn data_token(&mut self) -> Result<(Tok<'a>, usize), XError> {
        loop {
            let t = self.lx.next()?;
            if t.0 != Tok::Separator {
                return Ok(t);
            }
        }
    }

    /// The line of the next value (separators skipped; nothing consumed).
    fn peek_line(&mut self) -> Result<usize, XError> {
        let (tok, line) = self.data_token()?;
        self.lx.unread(tok, line);
        Ok(line)
    }

    /// A count: a non-negative integer below 2³².
    fn count(&mut self, what: impl Fn() -> String) -> Result<usize, XError> {
        let (tok, line) = self.data_token()?;
        match tok {
            Tok::Number(t) => parse_u32(t)
                .map(|v| v as usize)
                .ok_or_else(|| XError::Syntax {
                    line,
                    what: format!(
                        "{}: `{}` is not a count (a whole number below 2^32)",
                        what(),
                        String::from_utf8_lossy(t)
                    ),
                }),
            other => Err(XError::Syntax {
                line,
                what: format!("{}: expected a count, found {}", what(), other.describe()),
            }),
        }
    }

    /// A float; a number that is not finite or is beyond ±[`HUGE`] reads
    /// as 0 and is tallied (warning); anything but a number is an error.
    fn float(&mut self, what: impl Fn() -> String) -> Result<f32, XError> {
        let (tok, line) = self.data_token()?;
        match tok {
            Tok::Number(t) => match parse_float(t) {
                Some(v) if v.abs() <= HUGE => Ok(v),
                _ => {
                    self.bad_numbers.note(
                        || format!("{} `{}`", what(), String::from_utf8_lossy(t)),
                        line,
                    );
                    Ok(0.0)
                }
            },
            // `nan`, `inf`, `1.#INF` spelled as a name: tolerated as above.
            Tok::Name(t) if is_non_finite_word(t) => {
                self.bad_numbers.note(
                    || format!("{} `{}`", what(), String::from_utf8_lossy(t)),
                    line,
                );
                Ok(0.0)
            }
            other => Err(XError::Syntax {
                line,
                what: format!("{}: expected a number, found {}", what(), other.describe()),
            }),
        }
    }

    /// Reads to the `}` that closes a block whose values have been read;
    /// further values are tallied.
    fn finish(&mut self, h: &Header) -> Result<(), XError> {
        loop {
            let (tok, line) = self.lx.next()?;
            match tok {
                Tok::Close => return Ok(()),
                Tok::Name(kind) => {
                    let child = self.header(kind, line)?;
                    self.skip_body(&child)?;
                }
                Tok::Open => self.skip_reference(line)?,
                Tok::Separator => {}
                Tok::End => return Err(unterminated(h)),
                _ => self
                    .extra_data
                    .note(|| format!("`{}` at line {}", h.kind, h.line), line),
            }
        }
    }

    /// Skips a block whose `{` has been read, nested blocks included.
    fn skip_body(&mut self, h: &Header) -> Result<(), XError> {
        let mut depth = 1usize;
        loop {
            match self.lx.next()?.0 {
                Tok::Open => depth += 1,
                Tok::Close => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                Tok::End => return Err(unterminated(h)),
                _ => {}
            }
        }
    }

    /// Skips `{ name }` (its `{` read) where a reference is not used.
    fn skip_reference(&mut self, line: usize) -> Result<(), XError> {
        let h = Header {
            kind: "{ … }".to_owned(),
            name: String::new(),
            line,
        };
        self.skip_body(&h)
    }

    /// Skips `template Name { <guid> members [restrictions] }`.
    fn skip_template(&mut self, line: usize) -> Result<(), XError> {
        let (tok, at) = self.lx.next()?;
        let name = match tok {
            Tok::Name(n) => decode(n),
            other => {
                return Err(XError::Syntax {
                    line: at,
                    what: format!(
                        "`template` (line {line}): expected its name, found {}",
                        other.describe()
                    ),
                });
            }
        };
        let h = self.header(name.as_bytes(), line)?;
        self.skip_body(&Header {
            kind: format!("template {name}"),
            ..h
        })
    }
}

/// `1.#INF`, `nan`, `inf` and the like spelled as words.
fn is_non_finite_word(t: &[u8]) -> bool {
    let s = String::from_utf8_lossy(t).to_ascii_lowercase();
    s.starts_with("nan") || s.starts_with("inf")
}

fn unterminated(h: &Header) -> XError {
    let name = if h.name.is_empty() {
        String::new()
    } else {
        format!(" {}", h.name)
    };
    XError::Syntax {
        line: h.line,
        what: format!(
            "`{}{name}` opened here is not closed before the end of the file",
            h.kind
        ),
    }
}

/// Splits a `TextureFilename` at `*` into texture and sphere map (saba
/// `XFileModel.cpp`); a lone `.sph`/`.spa` is a sphere map; `screen.bmp`
/// is MMD's screen capture (nanoem `ImageLoader::isScreenBMP`), drawn
/// plain.
pub(super) fn set_texture(m: &mut XMaterial, name: String) {
    let mode_of = |n: &str| {
        let lower = n.to_ascii_lowercase();
        if lower.ends_with(".sph") {
            SphereMode::Multiply
        } else if lower.ends_with(".spa") {
            SphereMode::Add
        } else {
            SphereMode::None
        }
    };
    m.texture = None;
    m.sphere = None;
    m.sphere_mode = SphereMode::None;
    m.screen = false;
    let (tex, sphere) = match name.split_once('*') {
        Some((t, s)) => (t.trim(), Some(s.trim())),
        None if mode_of(&name) != SphereMode::None => ("", Some(name.as_str())),
        None => (name.as_str(), None),
    };
    if !tex.is_empty() {
        let file = tex.rsplit(['\\', '/']).next().unwrap_or(tex);
        if file.eq_ignore_ascii_case("screen.bmp") {
            m.screen = true;
        } else {
            m.texture = Some(tex.to_owned());
        }
    }
    if let Some(s) = sphere.filter(|s| !s.is_empty()) {
        // The sphere's mode comes from its suffix; a second name that is
        // neither `.sph` nor `.spa` is not drawn (saba keeps its mode None).
        m.sphere_mode = mode_of(s);
        if m.sphere_mode != SphereMode::None {
            m.sphere = Some(s.to_owned());
        }
    }
    m.texture_filename = (!name.is_empty()).then_some(name);
}
