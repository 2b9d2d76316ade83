//! `A..B` frame ranges on the command line, shared by `pose`,
//! `bake-physics` and `render`.

use super::CliError;

/// Parses `A..B` (inclusive, `A ≤ B`, frames 0..=u32::MAX).
pub fn parse_frame_range(s: &str) -> Result<(u32, u32), CliError> {
    let bad = || CliError(format!("frames \"{s}\" is not A..B (e.g. 0..299)"));
    let (a, b) = s.split_once("..").ok_or_else(bad)?;
    let a: u32 = a.trim().parse().map_err(|_| bad())?;
    let b: u32 = b
        .trim()
        .trim_start_matches('=')
        .trim()
        .parse()
        .map_err(|_| bad())?;
    if b < a {
        return Err(CliError(format!(
            "frames {a}..{b}: the end is before the start"
        )));
    }
    Ok((a, b))
}
