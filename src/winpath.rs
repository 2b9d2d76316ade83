//! Windows paths from MMD files (projects, `.vac` accessories, models'
//! texture names) → files on this machine: the one rule every reader uses.
//!
//! **A name stored beside its file** (a model's texture, a `.vac`'s `.x`;
//! [`resolve_beside`]): relative to the file's folder (`..` allowed, a
//! leading `\` stays inside it); an absolute path as it is on this
//! machine; an absolute path that names nothing here (the author's
//! `C:\Users\…\tex.png`) by its file name in the folder, where the file
//! usually travelled with the model.
//!
//! **A project's paths** ([`Resolver`]): MMD stores absolute Windows paths
//! in Shift_JIS (`C:\MMD\UserFile\Model\ミク.pmx`). A path is tried, in
//! order:
//! 1. as it is (an absolute path that exists here);
//! 2. relative to the project's folder (a relative path, `..` allowed);
//! 3. the part after a `UserFile` component, below the project's folder
//!    and each folder above it, as `<folder>/UserFile/<rest>` then
//!    `<folder>/<rest>` (nanoem `emapp/src/internal/project/PMM.cc`,
//!    `PMM::Context::resolveFileURI`, which tries the part after
//!    `UserFile/` below the project's own `UserFile` folder);
//! 4. its file name, searched in the project's folder tree (the match
//!    sharing the most parent folder names with the original wins).
//!
//! Every step compares names the way Windows users expect: letter case and
//! full-width/half-width forms alike (`ＭＯＤＥＬ` = `model`, `ﾐｸ` = `ミク`);
//! a file name on disk that is not UTF-8 is read as Shift_JIS (an archive
//! unpacked by a tool that kept Windows' bytes).

use std::cell::OnceCell;
use std::path::{Component, Path, PathBuf};

/// Which rule found a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Found {
    AsIs,
    BesideProject,
    UserFile,
    Searched,
}

/// A path as stored and where it was found.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Resolved {
    pub original: String,
    pub path: Option<PathBuf>,
    pub found: Option<Found>,
}

/// Deepest folder level searched below the project's folder (rule 4).
const SEARCH_DEPTH: usize = 12;
/// Most entries listed in the project's folder tree (rule 4).
const SEARCH_ENTRIES: usize = 200_000;
/// Most folders above the project's folder tried (rule 3).
const PARENT_LEVELS: usize = 32;

/// Resolves paths relative to one project (or any file MMD wrote: a
/// `.vac`, a model). The folder tree is listed once, on the first search.
#[derive(Debug)]
pub struct Resolver {
    base: PathBuf,
    tree: OnceCell<Vec<PathBuf>>,
}

impl Resolver {
    /// For paths stored in `file` (the project); its folder is the base.
    pub fn for_file(file: &Path) -> Resolver {
        let base = match file.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        Resolver::in_folder(base)
    }

    /// For paths relative to `folder`.
    pub fn in_folder(folder: PathBuf) -> Resolver {
        Resolver {
            base: folder,
            tree: OnceCell::new(),
        }
    }

    /// Finds `windows_path` by the rules of the module docs. An empty path
    /// resolves to nothing.
    pub fn resolve(&self, windows_path: &str) -> Resolved {
        let (path, found) = match self.find(windows_path) {
            Some((p, f)) => (Some(p), Some(f)),
            None => (None, None),
        };
        Resolved {
            original: windows_path.to_owned(),
            path,
            found,
        }
    }

    fn find(&self, original: &str) -> Option<(PathBuf, Found)> {
        let parts = split(original);
        let name = *parts.last()?;
        let absolute = is_absolute(original);
        if absolute {
            let native = if cfg!(windows) {
                PathBuf::from(original)
            } else {
                PathBuf::from(original.replace('\\', "/"))
            };
            if native.is_absolute() && native.is_file() {
                return Some((native, Found::AsIs));
            }
        } else if let Some(p) = walk(&self.base, &parts) {
            return Some((p, Found::BesideProject));
        }
        if let Some(u) = parts.iter().rposition(|p| fold(p) == "userfile") {
            let rest = &parts[u + 1..];
            if !rest.is_empty() {
                let mut with_dir = vec!["UserFile"];
                with_dir.extend_from_slice(rest);
                for dir in self.base.ancestors().take(PARENT_LEVELS) {
                    let dir = if dir.as_os_str().is_empty() {
                        Path::new(".")
                    } else {
                        dir
                    };
                    if let Some(p) = walk(dir, &with_dir).or_else(|| walk(dir, rest)) {
                        return Some((p, Found::UserFile));
                    }
                }
            }
        }
        self.search(&parts, name).map(|p| (p, Found::Searched))
    }

    /// Rule 4: files named `name` in the tree, best match first.
    fn search(&self, parts: &[&str], name: &str) -> Option<PathBuf> {
        let want = fold(name);
        let parents: Vec<String> = parts[..parts.len() - 1]
            .iter()
            .rev()
            .map(|p| fold(p))
            .collect();
        let tree = self.tree.get_or_init(|| list_tree(&self.base));
        tree.iter()
            .filter(|p| {
                p.file_name()
                    .and_then(name_text)
                    .is_some_and(|n| fold(&n) == want)
            })
            .max_by_key(|p| {
                let shared = p
                    .parent()
                    .into_iter()
                    .flat_map(Path::iter)
                    .rev()
                    .zip(&parents)
                    .take_while(|(a, b)| fold(&a.to_string_lossy()) == **b)
                    .count();
                // More shared parents first, then the shallower path.
                (shared, std::cmp::Reverse(p.components().count()))
            })
            .cloned()
    }
}

/// `C:\…`, `\\server\…` or `/…`.
fn is_absolute(p: &str) -> bool {
    let b = p.as_bytes();
    (b.len() >= 2 && b[1] == b':' && b[0].is_ascii_alphabetic()) || p.starts_with(['\\', '/'])
}

/// The file a name stored beside `dir` means (a model's texture, a
/// `.vac`'s `.x`; module docs), or `None` when no file matches.
pub fn resolve_beside(dir: &Path, stored: &str) -> Option<PathBuf> {
    let normal = stored.trim().replace('\\', "/");
    let parts = split(&normal);
    let name = *parts.last()?;
    let named = Path::new(&normal);
    let found = if named.is_absolute() {
        // This machine's own absolute path: its drive and root kept.
        let root: PathBuf = named
            .components()
            .take_while(|c| matches!(c, Component::Prefix(_) | Component::RootDir))
            .collect();
        walk(&root, &parts_after_root(named))
    } else {
        walk(dir, &parts)
    };
    if found.is_some() || !is_absolute(&normal) {
        return found;
    }
    walk(dir, &[name])
}

/// A path's names after its drive and root.
fn parts_after_root(p: &Path) -> Vec<&str> {
    p.components()
        .filter_map(|c| match c {
            Component::Normal(s) => s.to_str(),
            Component::ParentDir => Some(".."),
            Component::CurDir | Component::RootDir | Component::Prefix(_) => None,
        })
        .collect()
}

/// A stored path's names (either separator, empty names dropped).
pub fn split(stored: &str) -> Vec<&str> {
    stored
        .split(['\\', '/'])
        .filter(|s| !s.is_empty())
        .collect()
}

/// Follows `parts` down from `dir`, each name matched exactly or else by
/// [`fold`]; `..` goes up, `.` stays. A file at the end, or `None`.
pub fn walk(dir: &Path, parts: &[&str]) -> Option<PathBuf> {
    let mut cur = dir.to_path_buf();
    for part in parts {
        match *part {
            "." => continue,
            ".." => {
                // Up by dropping a name where there is one (the path stays
                // plain); above the start, `..` itself.
                if !matches!(cur.components().next_back(), Some(Component::Normal(_))) || !cur.pop()
                {
                    cur.push("..");
                }
                continue;
            }
            _ => {}
        }
        let exact = cur.join(part);
        if exact.exists() {
            cur = exact;
            continue;
        }
        cur = cur.join(find_in_dir(&cur, part)?);
    }
    cur.is_file().then_some(cur)
}

/// The entry of `dir` whose name is `part` as [`fold`] compares names
/// (a name that is not UTF-8 read as Shift_JIS).
fn find_in_dir(dir: &Path, part: &str) -> Option<std::ffi::OsString> {
    let want = fold(part);
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.file_name())
        .find(|n| name_text(n).is_some_and(|t| fold(&t) == want))
}

/// A file name on disk as text: UTF-8, else Shift_JIS bytes (Unix).
fn name_text(name: &std::ffi::OsStr) -> Option<String> {
    match name.to_str() {
        Some(s) => Some(s.to_owned()),
        None => sjis_os_name(name),
    }
}

/// A file name that is not UTF-8, read as Shift_JIS bytes.
#[cfg(unix)]
fn sjis_os_name(name: &std::ffi::OsStr) -> Option<String> {
    use std::os::unix::ffi::OsStrExt;
    let (text, _, bad) = encoding_rs::SHIFT_JIS.decode(name.as_bytes());
    (!bad).then(|| text.into_owned())
}

#[cfg(not(unix))]
fn sjis_os_name(_: &std::ffi::OsStr) -> Option<String> {
    None
}

/// Every file below `dir` (bounded depth and count), sorted.
fn list_tree(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![(dir.to_path_buf(), 0usize)];
    let mut seen = 0usize;
    while let Some((d, depth)) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.filter_map(Result::ok) {
            seen += 1;
            if seen > SEARCH_ENTRIES {
                out.sort();
                return out;
            }
            let Ok(t) = e.file_type() else { continue };
            if t.is_dir() {
                if depth < SEARCH_DEPTH {
                    stack.push((e.path(), depth + 1));
                }
            } else if t.is_file() {
                out.push(e.path());
            }
        }
    }
    out.sort();
    out
}

/// Half-width katakana U+FF61..U+FF9F → full-width.
const HALF_KATAKANA: [char; 63] = [
    '。', '「', '」', '、', '・', 'ヲ', 'ァ', 'ィ', 'ゥ', 'ェ', 'ォ', 'ャ', 'ュ', 'ョ', 'ッ', 'ー',
    'ア', 'イ', 'ウ', 'エ', 'オ', 'カ', 'キ', 'ク', 'ケ', 'コ', 'サ', 'シ', 'ス', 'セ', 'ソ', 'タ',
    'チ', 'ツ', 'テ', 'ト', 'ナ', 'ニ', 'ヌ', 'ネ', 'ノ', 'ハ', 'ヒ', 'フ', 'ヘ', 'ホ', 'マ', 'ミ',
    'ム', 'メ', 'モ', 'ヤ', 'ユ', 'ヨ', 'ラ', 'リ', 'ル', 'レ', 'ロ', 'ワ', 'ン', '゛', '゜',
];

/// A name as compared: full-width ASCII and the ideographic space as
/// half-width, half-width katakana as full-width (a following ﾞ or ﾟ
/// joined: ｶﾞ = ガ, ﾊﾟ = パ), then lower case.
pub fn fold(s: &str) -> String {
    let mut out: Vec<char> = Vec::with_capacity(s.len());
    for ch in s.chars() {
        let c = ch as u32;
        let mapped = match c {
            0xFF01..=0xFF5E => char::from_u32(c - 0xFEE0).unwrap_or(ch),
            0x3000 => ' ',
            0xFF61..=0xFF9F => HALF_KATAKANA[(c - 0xFF61) as usize],
            _ => ch,
        };
        let joined = match (mapped, out.last().copied()) {
            ('゛', Some(prev)) => voiced(prev, 1),
            ('゜', Some(prev)) => voiced(prev, 2),
            _ => None,
        };
        match joined {
            Some(j) => {
                out.pop();
                out.push(j);
            }
            None => out.push(mapped),
        }
    }
    out.into_iter().flat_map(char::to_lowercase).collect()
}

/// The voiced (`step` 1) or semi-voiced (`step` 2) form of a full-width
/// katakana, if it has one.
fn voiced(base: char, step: u32) -> Option<char> {
    let c = base as u32;
    // カ..ヂ every other one; ツ テ ト; ハ ヒ フ ヘ ホ (every third).
    let ka_to_di = (0x30AB..=0x30C2).contains(&c) && (c - 0x30AB).is_multiple_of(2);
    let tsu_te_to = matches!(c, 0x30C4 | 0x30C6 | 0x30C8);
    let ha_row = (0x30CF..=0x30DD).contains(&c) && (c - 0x30CF).is_multiple_of(3);
    if base == 'ウ' && step == 1 {
        return Some('ヴ');
    }
    let ok = if step == 1 {
        ka_to_di || tsu_te_to || ha_row
    } else {
        ha_row
    };
    if ok { char::from_u32(c + step) } else { None }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_matches_case_and_width() {
        assert_eq!(fold("ＭＯＤＥＬ"), "model");
        assert_eq!(fold("ﾐｸ.pmx"), "ミク.pmx");
        assert_eq!(fold("ｶﾞｸﾎﾟ"), "ガクポ");
        assert_eq!(fold("ｳﾞ"), "ヴ");
        assert_eq!(fold("UserFile"), "userfile");
        // ﾞ after a kana without a voiced form stays a mark.
        assert_eq!(fold("ﾅﾞ"), "ナ゛");
    }
}
