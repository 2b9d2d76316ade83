//! `.vac` files: MMD's saved accessory placement. Six Shift_JIS lines (CR LF
//! or LF):
//! ```text
//! accessory name
//! file.x            (the .x file, usually beside the .vac; a Windows path)
//! 1.0               scale (the accessory panel's Si)
//! 0,10,0            position x,y,z (MMD units)
//! 0,90,0            rotation x,y,z in degrees
//! 右手首            the bone it is attached to (may be empty)
//! ```
//! As nanoem reads it (`emapp/src/DefaultFileManager.cc`, `VACData::read`):
//! lines split at LF with CR dropped, numbers separated by commas and/or
//! spaces, the `.x` path taken relative to the `.vac`'s folder.
//!
//! The `.x` path is kept as written ([`VacFile::x_file`]); [`VacFile::resolve_x`]
//! finds it by the one Windows-path rule of every reader
//! ([`crate::winpath::resolve_beside`]: beside the `.vac`, names matched
//! as Windows users expect, an absolute Windows path falling back to its
//! file name beside the `.vac`).

use std::path::{Path, PathBuf};

use glam::Vec3;

/// Largest `.vac` read: six short lines; anything bigger is not one.
const MAX_VAC_BYTES: usize = 64 * 1024;

/// Where an accessory sits and how large it is, as MMD's accessory panel
/// shows it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placement {
    /// Si: uniform scale (1 = the `.x` at MMD's ×10).
    pub scale: f32,
    /// X, Y, Z in MMD units (in the parent bone's space when attached).
    pub position: Vec3,
    /// Rx, Ry, Rz in degrees.
    pub rotation_degrees: Vec3,
}

impl Default for Placement {
    fn default() -> Self {
        Placement {
            scale: 1.0,
            position: Vec3::ZERO,
            rotation_degrees: Vec3::ZERO,
        }
    }
}

/// A `.vac` file as read.
#[derive(Debug, Clone, PartialEq)]
pub struct VacFile {
    /// Line 1: the accessory's name.
    pub name: String,
    /// Line 2: the `.x` file as written (Windows separators possible).
    pub x_file: String,
    /// Lines 3–5.
    pub placement: Placement,
    /// Line 6: the bone the accessory follows (`None`: empty or absent,
    /// the world).
    pub bone: Option<String>,
}

/// Why a `.vac` could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum VacError {
    #[error("line {line}: {what}")]
    Invalid { line: usize, what: String },
    #[error("cannot read {path}: {message}")]
    Io { path: String, message: String },
}

impl VacFile {
    /// Reads a `.vac` from its bytes.
    pub fn read(bytes: &[u8]) -> Result<VacFile, VacError> {
        if bytes.len() > MAX_VAC_BYTES {
            return Err(VacError::Invalid {
                line: 1,
                what: format!(
                    "{} bytes is too large for a .vac (six short lines)",
                    bytes.len()
                ),
            });
        }
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        let lines: Vec<String> = bytes
            .split(|&b| b == b'\n')
            .take(6)
            .map(|l| super::text::decode(l.strip_suffix(b"\r").unwrap_or(l)))
            .collect();
        let line = |i: usize, what: &str| -> Result<String, VacError> {
            lines
                .get(i)
                .map(|s| s.trim().to_owned())
                .ok_or_else(|| VacError::Invalid {
                    line: i + 1,
                    what: format!(
                        "expected {what}, but the file ends after {} lines",
                        lines.len()
                    ),
                })
        };
        let name = line(0, "the accessory's name")?;
        let x_file = line(1, "the .x file")?;
        if x_file.is_empty() {
            return Err(VacError::Invalid {
                line: 2,
                what: "the .x file name is empty".to_owned(),
            });
        }
        let scale = numbers::<1>(&line(2, "the scale")?, 3, "the scale")?[0];
        let position = numbers::<3>(&line(3, "the position x,y,z")?, 4, "the position x,y,z")?;
        let rotation = numbers::<3>(&line(4, "the rotation x,y,z")?, 5, "the rotation x,y,z")?;
        let bone = lines
            .get(5)
            .map(|s| s.trim())
            .filter(|s| !s.is_empty())
            .map(str::to_owned);
        Ok(VacFile {
            name,
            x_file,
            placement: Placement {
                scale,
                position: Vec3::from_array(position),
                rotation_degrees: Vec3::from_array(rotation),
            },
            bone,
        })
    }

    /// Reads a `.vac` file from disk.
    pub fn open(path: &Path) -> Result<VacFile, VacError> {
        let bytes = std::fs::read(path).map_err(|e| VacError::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        VacFile::read(&bytes)
    }

    /// The `.x` file on this machine: [`VacFile::x_file`] resolved against
    /// `vac_dir` (the `.vac`'s folder) — `\` as `/`, components matched in
    /// any letter case, an absolute path that is not there looked for by
    /// its file name in `vac_dir`. `None` when no such file exists.
    pub fn resolve_x(&self, vac_dir: &Path) -> Option<PathBuf> {
        crate::winpath::resolve_beside(vac_dir, &self.x_file)
    }
}

/// `N` finite numbers separated by commas and/or spaces.
fn numbers<const N: usize>(text: &str, line: usize, what: &str) -> Result<[f32; N], VacError> {
    let parts: Vec<&str> = text
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty())
        .collect();
    let bad = |why: String| VacError::Invalid {
        line,
        what: format!("{what}: {why} (found `{text}`)"),
    };
    if parts.len() != N {
        return Err(bad(format!(
            "expected {N} number(s), found {}",
            parts.len()
        )));
    }
    let mut out = [0.0f32; N];
    for (o, p) in out.iter_mut().zip(&parts) {
        *o = p
            .parse::<f32>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| bad(format!("`{p}` is not a finite number")))?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn six_shift_jis_lines_with_crlf() {
        // 右手首 in Shift_JIS: 89 45 8E E8 8E F1.
        let mut bytes = b"mic\r\nMic\\Mic.X\r\n1.5\r\n0.5, 10,-2\r\n0,90,45\r\n".to_vec();
        bytes.extend_from_slice(b"\x89\x45\x8E\xE8\x8E\xF1\r\n");
        let v = VacFile::read(&bytes).expect("vac");
        assert_eq!(v.name, "mic");
        assert_eq!(v.x_file, "Mic\\Mic.X");
        assert_eq!(v.placement.scale, 1.5);
        assert_eq!(v.placement.position, Vec3::new(0.5, 10.0, -2.0));
        assert_eq!(v.placement.rotation_degrees, Vec3::new(0.0, 90.0, 45.0));
        assert_eq!(v.bone.as_deref(), Some("右手首"));
    }

    #[test]
    fn the_bone_line_may_be_missing_or_empty() {
        let v = VacFile::read(b"a\na.x\n1\n0,0,0\n0,0,0").expect("vac");
        assert_eq!(v.bone, None);
        let v = VacFile::read(b"a\na.x\n1\n0,0,0\n0,0,0\n\n").expect("vac");
        assert_eq!(v.bone, None);
    }

    #[test]
    fn bad_lines_are_named() {
        let e = VacFile::read(b"a\na.x\n1\n0,0\n0,0,0\n").unwrap_err();
        assert!(matches!(e, VacError::Invalid { line: 4, .. }), "{e}");
        let e = VacFile::read(b"a\na.x\nNaN\n0,0,0\n0,0,0\n").unwrap_err();
        assert!(matches!(e, VacError::Invalid { line: 3, .. }), "{e}");
        let e = VacFile::read(b"a\na.x\n1e40\n0,0,0\n0,0,0\n").unwrap_err();
        assert!(matches!(e, VacError::Invalid { line: 3, .. }), "{e}");
        let e = VacFile::read(b"a\n").unwrap_err();
        assert!(matches!(e, VacError::Invalid { line: 2, .. }), "{e}");
        let e = VacFile::read(b"a\n\n1\n0,0,0\n0,0,0\n").unwrap_err();
        assert!(matches!(e, VacError::Invalid { line: 2, .. }), "{e}");
    }
}
