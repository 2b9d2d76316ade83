//! The editable model of a VMD file.

use super::error::NameError;
use super::layout::{self, Section};
use super::name::{DecodedName, NameEncoding, decode_name, encode_name};
use super::records::*;

/// Header version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Version {
    /// `Vocaloid Motion Data file`, 10-byte model name.
    V1,
    /// `Vocaloid Motion Data 0002`, 20-byte model name.
    V2,
}

impl Version {
    pub fn number(self) -> u8 {
        match self {
            Version::V1 => 1,
            Version::V2 => 2,
        }
    }
    pub fn model_name_len(self) -> usize {
        match self {
            Version::V1 => layout::MODEL_NAME_LEN_V1,
            Version::V2 => layout::MODEL_NAME_LEN_V2,
        }
    }
}

/// A key, by section and index into that section's file-order storage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum KeyRef {
    Bone(u32),
    Morph(u32),
    Camera(u32),
    Light(u32),
    Shadow(u32),
    Ik(u32),
}

/// A whole VMD file: keys in file order, raw bytes kept.
///
/// Invariant: `write(&read(bytes)?) == bytes` for every readable input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Motion {
    /// The 30 header bytes as read (junk after the NUL kept).
    pub header: [u8; layout::HEADER_LEN],
    pub version: Version,
    /// The model-name field as read (20 bytes in v2, 10 in v1).
    pub model_name_field: Vec<u8>,
    pub bones: Vec<BoneKey>,
    pub morphs: Vec<MorphKey>,
    pub cameras: Vec<CameraKey>,
    pub lights: Vec<LightKey>,
    pub shadows: Vec<ShadowKey>,
    pub iks: Vec<IkKey>,
    /// How many sections (in file order) had a count field: 0..=6.
    /// Sections after these were absent from the file (not even a count).
    pub sections_present: usize,
    /// Bytes after the last section (or fewer than 4 left over), kept.
    pub trailing: Vec<u8>,
}

impl Default for Motion {
    fn default() -> Self {
        Motion::new_v2()
    }
}

impl Motion {
    /// An empty v2 motion with all six sections present.
    pub fn new_v2() -> Motion {
        let mut header = [0u8; layout::HEADER_LEN];
        header[..layout::HEADER_V2.len()].copy_from_slice(layout::HEADER_V2);
        Motion {
            header,
            version: Version::V2,
            model_name_field: vec![0; layout::MODEL_NAME_LEN_V2],
            bones: Vec::new(),
            morphs: Vec::new(),
            cameras: Vec::new(),
            lights: Vec::new(),
            shadows: Vec::new(),
            iks: Vec::new(),
            sections_present: 6,
            trailing: Vec::new(),
        }
    }

    /// The model name, decoded like the track names: a name whose bytes
    /// read as Shift_JIS half-width katakana but as GBK Chinese is GBK when
    /// the file's bone and morph names are GBK.
    pub fn model_name(&self) -> DecodedName {
        let d = decode_name(&self.model_name_field);
        if d.encoding == NameEncoding::ShiftJis
            && let Some(g) = super::name::decode_name_as_gbk(&self.model_name_field)
        {
            let (gbk, sjis) = self.track_name_tally();
            if gbk > sjis {
                return g;
            }
        }
        d
    }

    /// How many distinct non-ASCII bone and morph names decode as GBK and
    /// as Shift_JIS.
    fn track_name_tally(&self) -> (usize, usize) {
        let mut gbk = 0usize;
        let mut sjis = 0usize;
        let mut seen = std::collections::HashSet::new();
        let names = self
            .bones
            .iter()
            .map(|k| (k.name_key(), k.name_field()))
            .chain(self.morphs.iter().map(|k| (k.name_key(), k.name_field())));
        for (key, field) in names {
            if !seen.insert(key) || key.is_ascii() {
                continue;
            }
            match decode_name(field).encoding {
                NameEncoding::Gbk => gbk += 1,
                NameEncoding::ShiftJis => sjis += 1,
            }
        }
        (gbk, sjis)
    }

    /// Renames the model; refuses names that do not fit the field.
    pub fn set_model_name(&mut self, text: &str) -> Result<(), NameError> {
        let enc = self.name_encoding();
        let bytes = encode_name(text, self.model_name_field.len(), enc)?;
        self.model_name_field = bytes;
        Ok(())
    }

    /// Number of keys in a section.
    pub fn count(&self, s: Section) -> usize {
        match s {
            Section::Bone => self.bones.len(),
            Section::Morph => self.morphs.len(),
            Section::Camera => self.cameras.len(),
            Section::Light => self.lights.len(),
            Section::SelfShadow => self.shadows.len(),
            Section::Ik => self.iks.len(),
        }
    }

    /// Whether a section had its count field in the file (or has keys now).
    pub fn section_present(&self, s: Section) -> bool {
        (s as usize) < self.sections_to_write()
    }

    /// Sections the writer emits: those present when read, and any later
    /// section that has keys now (with empty counts in between).
    pub fn sections_to_write(&self) -> usize {
        let last_nonempty = Section::ALL
            .iter()
            .rposition(|&s| self.count(s) > 0)
            .map_or(0, |i| i + 1);
        self.sections_present.max(last_nonempty)
    }

    /// The encoding new names are written in: GBK when the file's names are
    /// GBK, Shift_JIS otherwise.
    pub fn name_encoding(&self) -> NameEncoding {
        let (mut gbk, mut sjis) = self.track_name_tally();
        let model = self.model_name();
        if !model.text.is_ascii() {
            match model.encoding {
                NameEncoding::Gbk => gbk += 1,
                NameEncoding::ShiftJis => sjis += 1,
            }
        }
        if gbk > sjis {
            NameEncoding::Gbk
        } else {
            NameEncoding::ShiftJis
        }
    }

    /// The frame of every key of every section, section by section in
    /// file order (the one all-frames walk).
    pub fn frames(&self) -> impl Iterator<Item = u32> + '_ {
        self.bones
            .iter()
            .map(BoneKey::frame)
            .chain(self.morphs.iter().map(MorphKey::frame))
            .chain(self.cameras.iter().map(CameraKey::frame))
            .chain(self.lights.iter().map(LightKey::frame))
            .chain(self.shadows.iter().map(ShadowKey::frame))
            .chain(self.iks.iter().map(IkKey::frame))
    }

    /// Every keyed frame, sorted, each once.
    pub fn key_frames_sorted(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self.frames().collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// The last keyed frame over every section, or `None` without keys.
    pub fn last_frame(&self) -> Option<u32> {
        self.frames().max()
    }

    /// Keys of every kind.
    pub fn key_count(&self) -> usize {
        Section::ALL.iter().map(|&s| self.count(s)).sum()
    }

    /// The frame of a key, if it exists.
    pub fn key_frame(&self, k: KeyRef) -> Option<u32> {
        let i = |x: u32| x as usize;
        Some(match k {
            KeyRef::Bone(x) => self.bones.get(i(x))?.frame(),
            KeyRef::Morph(x) => self.morphs.get(i(x))?.frame(),
            KeyRef::Camera(x) => self.cameras.get(i(x))?.frame(),
            KeyRef::Light(x) => self.lights.get(i(x))?.frame(),
            KeyRef::Shadow(x) => self.shadows.get(i(x))?.frame(),
            KeyRef::Ik(x) => self.iks.get(i(x))?.frame(),
        })
    }

    /// Size in bytes of the file this motion writes.
    pub fn byte_len(&self) -> usize {
        let mut n = layout::HEADER_LEN + self.model_name_field.len();
        let sections = self.sections_to_write();
        for s in Section::ALL.iter().take(sections) {
            n += 4;
            n += match s {
                Section::Ik => self.iks.iter().map(|k| k.raw.len()).sum(),
                _ => self.count(*s) * s.record_len(),
            };
        }
        n + self.trailing.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 连衣裙 (C1 AC D2 C2 C8 B9 in GBK, Python's gbk codec) reads as valid
    /// Shift_JIS half-width katakana (ﾁｬﾒﾂﾈｹ) on its own; with GBK bone
    /// names in the file it is shown as GBK, like the bone names.
    #[test]
    fn key_helpers_walk_every_section() {
        let mut m = Motion::new_v2();
        m.bones.push(
            BoneKey::new(
                "a",
                NameEncoding::ShiftJis,
                7,
                [0.0; 3],
                [0.0, 0.0, 0.0, 1.0],
            )
            .expect("bone"),
        );
        m.lights.push(LightKey::new(30, [0.5; 3], [0.0, -1.0, 0.0]));
        m.iks.push(IkKey::new(7, true));
        m.cameras
            .push(CameraKey::new(2, -45.0, [0.0; 3], [0.0; 3], 30, true));
        assert_eq!(m.key_count(), 4);
        assert_eq!(m.last_frame(), Some(30));
        assert_eq!(m.key_frames_sorted(), vec![2, 7, 30]);
        assert_eq!(m.key_frame(KeyRef::Light(0)), Some(30));
        assert_eq!(m.key_frame(KeyRef::Camera(0)), Some(2));
        assert_eq!(m.key_frame(KeyRef::Morph(0)), None);
        assert_eq!(Motion::new_v2().last_frame(), None);
    }

    #[test]
    fn a_gbk_model_name_follows_the_gbk_bone_names() {
        let mut m = Motion::new_v2();
        let mut field = vec![0xc1, 0xac, 0xd2, 0xc2, 0xc8, 0xb9];
        field.resize(20, 0);
        m.model_name_field = field;
        assert_eq!(m.model_name().text, "ﾁｬﾒﾂﾈｹ", "no evidence yet");
        // 左手 and 左腿 in GBK: D7 F3 CA D6, D7 F3 CD C8 (F3 CA / F3 CD are
        // CP932 private-use pairs, so these bone names are detected as GBK).
        for name in [[0xd7, 0xf3, 0xca, 0xd6], [0xd7, 0xf3, 0xcd, 0xc8]] {
            let mut k = BoneKey {
                raw: [0; layout::BONE_KEY_LEN],
            };
            let mut f = [0u8; layout::NAME_LEN];
            f[..4].copy_from_slice(&name);
            k.set_name_field(&f);
            m.bones.push(k);
        }
        let d = m.model_name();
        assert_eq!((d.encoding, d.text.as_str()), (NameEncoding::Gbk, "连衣裙"));
        assert_eq!(m.name_encoding(), NameEncoding::Gbk);
    }
}
