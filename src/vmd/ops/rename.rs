//! Rename tracks from a map of old → new names (retargeting).
//!
//! The map is tab-separated text: one `old<TAB>new` pair per line; empty
//! lines and lines starting with `#` are skipped. Names are matched by their
//! displayed text and applied to bone keys, morph keys and IK entries.
//!
//! Every new name is encoded in the file's name encoding
//! ([`Motion::name_encoding`]) and must fit its field: 15 bytes for bones and
//! morphs, 20 for IK entries. A name that does not fit is refused and
//! reported with its byte length; the old name stays. Map entries naming no
//! track are reported as unmapped. Two tracks that would end up with one
//! name (two old names mapped to one new name, or a new name that another
//! track already has) are a collision: those renames are refused and
//! reported.

use std::collections::{BTreeMap, HashMap};

use super::report::{OpError, Report};
use crate::vmd::layout::{IK_NAME_LEN, NAME_LEN};
use crate::vmd::motion::Motion;
use crate::vmd::name::{NameEncoding, encode_name};

/// Old name → new name, in the order read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RenameMap {
    pub pairs: Vec<(String, String)>,
}

/// Parses the TSV map. Errors name the line.
pub fn parse_rename_map(text: &str) -> Result<RenameMap, OpError> {
    let mut pairs: Vec<(String, String)> = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        let line = line.strip_prefix('\u{feff}').unwrap_or(line);
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((old, new)) = line.split_once('\t') else {
            return Err(OpError::BadInput(format!(
                "rename map line {}: expected \"old<TAB>new\", found \"{line}\"",
                n + 1
            )));
        };
        let (old, new) = (old.trim(), new.trim());
        if old.is_empty() || new.is_empty() || new.contains('\t') {
            return Err(OpError::BadInput(format!(
                "rename map line {}: expected two non-empty names separated by one tab",
                n + 1
            )));
        }
        if let Some(prev) = seen.insert(old.to_owned(), n + 1) {
            return Err(OpError::BadInput(format!(
                "rename map line {}: \"{old}\" is already mapped on line {prev}",
                n + 1
            )));
        }
        pairs.push((old.to_owned(), new.to_owned()));
    }
    Ok(RenameMap { pairs })
}

/// Final name fields for one kind of track, after refusals.
/// `tracks`: distinct decoded names. Returns old text → new field bytes.
fn plan_kind(
    what: &str,
    tracks: &[String],
    map: &HashMap<&str, &str>,
    field_len: usize,
    enc: NameEncoding,
    r: &mut Report,
) -> HashMap<String, Vec<u8>> {
    let mut renames: BTreeMap<String, (String, Vec<u8>)> = BTreeMap::new();
    for t in tracks {
        let Some(&new) = map.get(t.as_str()) else {
            continue;
        };
        if new == t {
            continue;
        }
        match encode_name(new, field_len, enc) {
            Ok(field) => {
                renames.insert(t.clone(), (new.to_owned(), field));
            }
            Err(e) => {
                let len = encode_name(new, 4 * new.len() + 8, enc)
                    .map(|v| v.iter().take_while(|&&b| b != 0).count());
                match len {
                    Ok(len) => r.refuse(format!(
                        "{what} \"{t}\" not renamed: \"{new}\" is {len} bytes in {} but the field holds {field_len}",
                        enc.label()
                    )),
                    Err(_) => r.refuse(format!("{what} \"{t}\" not renamed: {e}")),
                }
            }
        }
    }
    // Refuse collisions until the final names are unique.
    loop {
        let mut by_final: HashMap<&str, Vec<&str>> = HashMap::new();
        for t in tracks {
            let fin = renames.get(t).map_or(t.as_str(), |(n, _)| n.as_str());
            by_final.entry(fin).or_default().push(t.as_str());
        }
        let mut refuse: Vec<(String, String)> = Vec::new();
        for (fin, olds) in &by_final {
            if olds.len() < 2 {
                continue;
            }
            for o in olds {
                if renames.contains_key(*o) {
                    let others: Vec<String> = olds
                        .iter()
                        .filter(|x| *x != o)
                        .map(|x| format!("\"{x}\""))
                        .collect();
                    refuse.push((
                        (*o).to_owned(),
                        format!(
                            "{what} \"{o}\" not renamed: \"{fin}\" would collide with {} {}",
                            what,
                            others.join(", ")
                        ),
                    ));
                }
            }
        }
        if refuse.is_empty() {
            break;
        }
        refuse.sort();
        for (o, line) in refuse {
            renames.remove(&o);
            r.refuse(line);
        }
    }
    renames
        .into_iter()
        .map(|(old, (_, field))| (old, field))
        .collect()
}

/// Renames; see the module docs.
pub fn rename(m: &Motion, map: &RenameMap) -> Result<(Motion, Report), OpError> {
    let mut r = Report::new();
    let enc = m.name_encoding();
    let lookup: HashMap<&str, &str> = map
        .pairs
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();

    let distinct = |names: &mut dyn Iterator<Item = String>| {
        let mut seen = std::collections::HashSet::new();
        names
            .filter(|n| seen.insert(n.clone()))
            .collect::<Vec<String>>()
    };
    let bone_names = distinct(&mut m.bones.iter().map(|k| k.name().text));
    let morph_names = distinct(&mut m.morphs.iter().map(|k| k.name().text));
    let ik_names = distinct(
        &mut m
            .iks
            .iter()
            .flat_map(|k| (0..k.entry_count()).map(move |i| k.entry_name(i).text)),
    );

    for (old, _) in &map.pairs {
        if !bone_names.contains(old) && !morph_names.contains(old) && !ik_names.contains(old) {
            r.note(format!(
                "map entry \"{old}\" is unmapped: no bone, morph or IK entry has that name"
            ));
        }
    }

    let bones = plan_kind("bone", &bone_names, &lookup, NAME_LEN, enc, &mut r);
    let morphs = plan_kind("morph", &morph_names, &lookup, NAME_LEN, enc, &mut r);
    let iks = plan_kind("IK entry", &ik_names, &lookup, IK_NAME_LEN, enc, &mut r);

    let mut out = m.clone();
    let mut counts: BTreeMap<(&str, String), usize> = BTreeMap::new();
    for k in &mut out.bones {
        let old = k.name().text;
        if let Some(field) = bones.get(&old)
            && let Ok(f) = <[u8; NAME_LEN]>::try_from(field.as_slice())
        {
            k.set_name_field(&f);
            *counts.entry(("bone", old)).or_default() += 1;
        }
    }
    for k in &mut out.morphs {
        let old = k.name().text;
        if let Some(field) = morphs.get(&old)
            && let Ok(f) = <[u8; NAME_LEN]>::try_from(field.as_slice())
        {
            k.set_name_field(&f);
            *counts.entry(("morph", old)).or_default() += 1;
        }
    }
    for k in &mut out.iks {
        let mut touched = false;
        for i in 0..k.entry_count() {
            let old = k.entry_name(i).text;
            if let Some(field) = iks.get(&old) {
                let at = crate::vmd::layout::IK_KEY_HEAD_LEN + i * crate::vmd::layout::IK_ENTRY_LEN;
                k.raw[at..at + IK_NAME_LEN].copy_from_slice(field);
                *counts.entry(("IK entry", old)).or_default() += 1;
                touched = true;
            }
        }
        if touched {
            r.changed += 1;
        }
    }
    for ((what, old), n) in &counts {
        let new = lookup.get(old.as_str()).copied().unwrap_or_default();
        r.note(format!("{what} \"{old}\" renamed to \"{new}\" ({n} keys)"));
        if *what != "IK entry" {
            r.changed += n;
        }
    }
    r.note(format!(
        "rename: {} renamed, {} refused, names written in {}",
        counts.len(),
        r.refused,
        enc.label()
    ));
    Ok((out, r))
}
