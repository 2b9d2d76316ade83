//! Curve presets and batch curve edits.
