//! Textures: finding the files a model names and decoding them to RGBA8;
//! VMD Studio's own toon ramps in place of MMD's shared `toon01.bmp`…
//! `toon10.bmp` (which are not ours to ship).
//!
//! Paths are resolved relative to the model file's folder. Authors write
//! them on Windows: `\` separators and any letter case, while Linux file
//! systems are case-sensitive, so each path component is matched exactly
//! first, then case-insensitively against the folder listing (and, on Unix,
//! against listings whose raw names are Shift_JIS bytes, as unzipping an
//! MMD archive often leaves them). PNG, BMP, TGA, JPEG and DDS decode
//! through the `image` crate; the format comes from the file's magic bytes,
//! else from its extension (TGA has no magic).

use std::path::{Path, PathBuf};

use super::data::Model;
use super::error::Warning;

/// A decoded texture: `rgba` holds `width × height` pixels, row by row from
/// the top, 4 bytes each (straight, not premultiplied, alpha).
#[derive(Clone, PartialEq, Eq)]
pub struct Texture {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
    /// The file it came from (`builtin:toonNN` for our toon ramps).
    pub path: PathBuf,
    /// Whether any pixel is not fully opaque.
    pub has_alpha: bool,
}

impl std::fmt::Debug for Texture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Texture")
            .field("width", &self.width)
            .field("height", &self.height)
            .field("path", &self.path)
            .field("has_alpha", &self.has_alpha)
            .finish_non_exhaustive()
    }
}

impl Texture {
    /// A texture from RGBA8 pixels (`rgba.len()` must be `4 × w × h`).
    pub fn from_rgba(width: u32, height: u32, rgba: Vec<u8>, path: PathBuf) -> Option<Texture> {
        if rgba.len() as u64 != 4 * u64::from(width) * u64::from(height) {
            return None;
        }
        let has_alpha = rgba.chunks_exact(4).any(|p| p[3] != 255);
        Some(Texture {
            width,
            height,
            rgba,
            path,
            has_alpha,
        })
    }

    /// The pixel at (x, y) as RGBA bytes, `None` outside the texture.
    pub fn pixel(&self, x: u32, y: u32) -> Option<[u8; 4]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let i = 4 * (y as usize * self.width as usize + x as usize);
        let p = self.rgba.get(i..i + 4)?;
        Some([p[0], p[1], p[2], p[3]])
    }
}

/// Why a texture is not available.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextureProblem {
    /// No file matches the path.
    Missing,
    /// The file exists but could not be read or decoded.
    Broken(String),
}

/// The decoded textures of one model, parallel to [`Model::textures`].
#[derive(Debug, Clone, Default)]
pub struct TextureSet {
    /// `textures[i]` is the model's texture `i`, `None` if missing/broken
    /// (the material then falls back to its colours).
    pub textures: Vec<Option<Texture>>,
    /// Each unavailable texture: its index, the path as the model names it,
    /// and why.
    pub problems: Vec<(usize, String, TextureProblem)>,
    /// One warning per problem, naming the path.
    pub warnings: Vec<Warning>,
}

impl TextureSet {
    /// Texture `i`, if it loaded.
    pub fn get(&self, i: usize) -> Option<&Texture> {
        self.textures.get(i).and_then(Option::as_ref)
    }

    /// The paths (as the model names them) of textures with no file.
    pub fn missing(&self) -> Vec<&str> {
        self.problems
            .iter()
            .filter(|(_, _, p)| *p == TextureProblem::Missing)
            .map(|(_, name, _)| name.as_str())
            .collect()
    }
}

/// Finds and decodes every texture `model` names, relative to `dir`.
pub fn load_textures(model: &Model, dir: &Path) -> TextureSet {
    load_textures_with(model, dir, |_, _, _| true).unwrap_or_default()
}

/// [`load_textures`], calling `before(i, count, name)` before texture `i`
/// of `count` (for progress); when it returns `false` the loading stops and
/// the result is `None` (cancelled).
pub fn load_textures_with(
    model: &Model,
    dir: &Path,
    mut before: impl FnMut(usize, usize, &str) -> bool,
) -> Option<TextureSet> {
    let mut set = TextureSet::default();
    let count = model.textures.len();
    for (i, name) in model.textures.iter().enumerate() {
        if !before(i, count, name) {
            return None;
        }
        let tex = match resolve_texture_path(dir, name) {
            None => Err(TextureProblem::Missing),
            Some(path) => std::fs::read(&path)
                .map_err(|e| e.to_string())
                .and_then(|bytes| decode_texture(&bytes, &path))
                .map_err(TextureProblem::Broken),
        };
        match tex {
            Ok(t) => set.textures.push(Some(t)),
            Err(problem) => {
                let msg = match &problem {
                    TextureProblem::Missing => format!(
                        "texture {name}: not found in {}; its materials use their colours",
                        dir.display()
                    ),
                    TextureProblem::Broken(why) => format!(
                        "texture {name}: cannot be decoded ({why}); its materials use their colours"
                    ),
                };
                set.warnings.push(Warning::general(msg));
                set.problems.push((i, name.clone(), problem));
                set.textures.push(None);
            }
        }
    }
    Some(set)
}

/// Decodes image bytes (PNG, BMP, TGA, JPEG, DDS) to RGBA8. `path` supplies
/// the extension when the bytes have no magic (TGA) and names the texture.
pub fn decode_texture(bytes: &[u8], path: &Path) -> Result<Texture, String> {
    let guessed = image::guess_format(bytes).ok();
    let format = guessed
        .or_else(|| image::ImageFormat::from_path(path).ok())
        .ok_or_else(|| "unknown image format".to_owned())?;
    let mut reader = image::ImageReader::with_format(std::io::Cursor::new(bytes), format);
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(16384);
    limits.max_image_height = Some(16384);
    reader.limits(limits);
    let img = reader.decode().map_err(|e| e.to_string())?;
    let mut rgba = img.into_rgba8();
    let (w, h) = rgba.dimensions();
    if format == image::ImageFormat::Bmp
        && let Some(alpha) = bmp32_alpha(bytes, w, h)
    {
        for (px, a) in rgba.chunks_exact_mut(4).zip(alpha) {
            px[3] = a;
        }
    }
    Texture::from_rgba(w, h, rgba.into_raw(), path.to_owned())
        .ok_or_else(|| "decoder returned a wrong buffer size".to_owned())
}

/// The alpha of a 32-bit uncompressed (`BI_RGB`) BMP, top row first, as
/// the open MMD runtimes read it (saba loads textures with stb_image,
/// whose BMP reader takes the fourth byte of each pixel as alpha, and an
/// image whose alpha bytes are all 0 as opaque): the `image` crate treats
/// that byte as unused, so a 32-bit texture's transparency was lost.
/// `None`: not such a BMP, its size is not `w`×`h`, its pixels do not fit
/// the file, or every alpha byte is 0 (opaque, as decoded).
fn bmp32_alpha(bytes: &[u8], w: u32, h: u32) -> Option<Vec<u8>> {
    let u16_at = |at: usize| Some(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?));
    let u32_at = |at: usize| Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?));
    if bytes.get(..2)? != b"BM" || u32_at(14)? < 40 || u16_at(28)? != 32 || u32_at(30)? != 0 {
        return None;
    }
    let offset = usize::try_from(u32_at(10)?).ok()?;
    let width = u32_at(18)? as i32;
    let height = u32_at(22)? as i32;
    if width.unsigned_abs() != w || height.unsigned_abs() != h {
        return None;
    }
    let (w, h) = (w as usize, h as usize);
    let row = w.checked_mul(4)?;
    let end = offset.checked_add(row.checked_mul(h)?)?;
    let pixels = bytes.get(offset..end)?;
    let top_down = height < 0;
    let mut alpha = Vec::with_capacity(w * h);
    for y in 0..h {
        let src = if top_down { y } else { h - 1 - y };
        alpha.extend(
            pixels[src * row..(src + 1) * row]
                .chunks_exact(4)
                .map(|p| p[3]),
        );
    }
    alpha.iter().any(|&a| a != 0).then_some(alpha)
}

/// Finds the file `name` (as a model names it) under `dir`: `\` and `/`
/// both separate, each component matches exactly or else as Windows users
/// expect (letter case and width alike; a non-UTF-8 name on Unix read as
/// Shift_JIS). An absolute name keeps its drive (`C:\…` on Windows); one
/// that names no file here — an author's `C:\Users\…\tex.png`, which is
/// not even absolute on Linux — is looked up by its file name in `dir`,
/// where the texture usually travelled with the model. `None` when no
/// file matches. The one rule of [`crate::winpath::resolve_beside`].
pub fn resolve_texture_path(dir: &Path, name: &str) -> Option<PathBuf> {
    crate::winpath::resolve_beside(dir, name)
}

/// Size of the built-in toon ramps (MMD's are 32 × 32 too).
pub const TOON_SIZE: u32 = 32;

/// Shadow colours of our ten toon ramps, standing in for `toon01.bmp`…
/// `toon10.bmp`: greys, warm skin tones, cool and pale tints, chosen by eye
/// to sit close to what MMD users expect. Not MMD's files.
const TOON_SHADOWS: [[u8; 3]; 10] = [
    [205, 205, 205],
    [255, 213, 196],
    [153, 153, 153],
    [244, 224, 206],
    [222, 229, 243],
    [224, 212, 234],
    [238, 238, 238],
    [216, 196, 180],
    [210, 224, 212],
    [250, 226, 230],
];

/// VMD Studio's own toon ramp standing in for MMD's shared toon `index`
/// (0 = `toon01.bmp` … 9 = `toon10.bmp`; other values clamp to 9). A
/// 32 × 32 vertical ramp: white on top (lit, V = 0), the shadow colour at
/// the bottom (V = 1), with a soft step around the middle, sampled like
/// MMD's at `V = 0.5 − N·L / 2`.
pub fn builtin_toon(index: u8) -> Texture {
    let shadow = TOON_SHADOWS[usize::from(index.min(9))];
    let n = TOON_SIZE;
    let mut rgba = Vec::with_capacity((4 * n * n) as usize);
    for y in 0..n {
        // 0 above row 13, 1 below row 18, smooth in between.
        let t = ((y as f32 - 13.0) / 5.0).clamp(0.0, 1.0);
        let t = t * t * (3.0 - 2.0 * t);
        let px: [u8; 4] = std::array::from_fn(|k| {
            if k == 3 {
                255
            } else {
                (255.0 + (f32::from(shadow[k]) - 255.0) * t).round() as u8
            }
        });
        for _ in 0..n {
            rgba.extend_from_slice(&px);
        }
    }
    Texture {
        width: n,
        height: n,
        rgba,
        path: PathBuf::from(format!("builtin:toon{:02}", usize::from(index.min(9)) + 1)),
        has_alpha: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(path: &Path) {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(path, b"x").expect("write");
    }

    #[test]
    fn an_authors_absolute_windows_path_finds_the_texture_beside_the_model() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let dir = tmp.path();
        touch(&dir.join("tex.png"));
        // PMX files keep the author's path, `\` separated, any case.
        assert_eq!(
            resolve_texture_path(dir, "C:\\Users\\作者\\Desktop\\ミク\\Tex.PNG"),
            Some(dir.join("tex.png"))
        );
        assert_eq!(
            resolve_texture_path(dir, "d:/MMD/tex.png"),
            Some(dir.join("tex.png"))
        );
        // A leading separator stays inside the model's folder too.
        assert_eq!(
            resolve_texture_path(dir, "\\TEX.png"),
            Some(dir.join("tex.png"))
        );
        // Only the file name is looked up: nothing else is guessed.
        assert_eq!(
            resolve_texture_path(dir, "C:\\Users\\作者\\other.png"),
            None
        );
    }

    #[test]
    fn an_absolute_path_here_written_with_backslashes_and_other_case_resolves() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let dir = tmp.path();
        let want = dir.join("sub").join("body.png");
        touch(&want);
        // The folder as Windows would write it: every `/` a `\`.
        let written = format!("{}\\SUB\\Body.PNG", dir.display()).replace('/', "\\");
        // Found at its own place, not by the file-name fallback: the model
        // folder given here holds no body.png.
        let elsewhere = tempfile::tempdir().expect("temp dir");
        assert_eq!(resolve_texture_path(elsewhere.path(), &written), Some(want));
    }

    #[test]
    fn shared_folders_above_the_model_and_full_width_names_match_like_windows() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let root = tmp.path();
        let model_dir = root.join("Model");
        std::fs::create_dir_all(&model_dir).expect("mkdir");
        let shared = root.join("shared").join("toon_髪.bmp");
        touch(&shared);
        assert_eq!(
            resolve_texture_path(&model_dir, "..\\Shared\\TOON_髪.BMP"),
            Some(shared)
        );
        // NTFS folds full-width Latin letters too: `Ｔ` (U+FF34) is `ｔ` (U+FF54).
        let wide = model_dir.join("ｔｅｘ_顔.png");
        touch(&wide);
        assert_eq!(
            resolve_texture_path(&model_dir, "ＴＥＸ_顔.PNG"),
            Some(wide)
        );
    }
}
