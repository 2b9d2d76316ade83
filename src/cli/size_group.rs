//! `size --group MOTION.vmd=TARGET.pmx …`: several actors sized together
//! ([`crate::sizing::size_group`]): each actor's motion, all made for
//! `--from`, onto its own model, with one horizontal ratio shared so a
//! group formation keeps its spacing. `-o DIR` gets
//! `<motion stem>_sized.vmd` for each.
//!
//! Everything is read, sized and measured before anything is written; two
//! members whose motions share a file stem are refused (their outputs
//! would collide).

use std::collections::HashSet;

use serde::Serialize;

use super::size::{SizeArgs, open_model, open_source, options, print_text};
use super::{CliError, CliResult, load, save};
use crate::model::Model;
use crate::sizing::{self, QualityReport, SizingOptions, SizingOutcome};
use crate::vmd::Motion;

#[derive(Debug, Serialize)]
struct GroupReport<'a> {
    /// The one horizontal ratio all members were sized with.
    shared_horizontal: f32,
    options: SizingOptions,
    members: Vec<MemberReport<'a>>,
}

#[derive(Debug, Serialize)]
struct MemberReport<'a> {
    motion: String,
    target: String,
    output: String,
    #[serde(flatten)]
    outcome: &'a SizingOutcome,
    quality: &'a QualityReport,
}

/// Runs `size --group`.
pub fn size_group(a: SizeArgs) -> CliResult {
    if a.group.is_empty() {
        return Err(CliError("--group needs MOTION.vmd=TARGET.pmx".into()));
    }
    let source = open_source(&a.from)?;
    let dir = &a.output;
    if dir.exists() && !dir.is_dir() {
        return Err(CliError(format!(
            "{}: with --group, -o names a folder",
            dir.display()
        )));
    }
    let mut outputs = Vec::with_capacity(a.group.len());
    let mut stems = HashSet::new();
    for (motion, _) in &a.group {
        let stem = motion
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .ok_or_else(|| CliError(format!("{}: not a file name", motion.display())))?;
        if !stems.insert(stem.clone()) {
            return Err(CliError(format!(
                "two group motions are named {stem}: their outputs would collide"
            )));
        }
        outputs.push(dir.join(format!("{stem}_sized.vmd")));
    }
    let mut loaded: Vec<(Motion, Model)> = Vec::with_capacity(a.group.len());
    for (motion, target) in &a.group {
        loaded.push((load(motion)?, open_model(target)?));
    }
    let members: Vec<(&Motion, &Model)> = loaded.iter().map(|(m, t)| (m, t)).collect();
    let options = options(&a);
    let outcomes = sizing::size_group(&members, &source, &options)
        .map_err(|e| CliError(format!("cannot size: {e}")))?;
    let mut qualities = Vec::with_capacity(outcomes.len());
    for ((motion, target), o) in members.iter().zip(&outcomes) {
        qualities.push(
            sizing::quality(motion, &o.motion, &source, target)
                .map_err(|e| CliError(format!("cannot measure: {e}")))?,
        );
    }
    std::fs::create_dir_all(dir)
        .map_err(|e| CliError(format!("cannot create {}: {e}", dir.display())))?;
    for (o, path) in outcomes.iter().zip(&outputs) {
        save(&o.motion, path)?;
    }
    let shared = outcomes.first().map_or(1.0, |o| o.ratios.horizontal);
    if a.json {
        let report = GroupReport {
            shared_horizontal: shared,
            options,
            members: a
                .group
                .iter()
                .zip(&outputs)
                .zip(outcomes.iter().zip(&qualities))
                .map(|(((m, t), out), (o, q))| MemberReport {
                    motion: m.display().to_string(),
                    target: t.display().to_string(),
                    output: out.display().to_string(),
                    outcome: o,
                    quality: q,
                })
                .collect(),
        };
        out!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        out!(
            "group of {}: shared horizontal ratio ×{shared:.4} (the mean of the members' own, capped at {})",
            outcomes.len(),
            sizing::GROUP_HORIZONTAL_CAP
        );
        for ((out_path, o), q) in outputs.iter().zip(&outcomes).zip(&qualities) {
            print_text(out_path, o, q);
        }
    }
    Ok(())
}
