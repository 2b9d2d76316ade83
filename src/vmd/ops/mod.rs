//! Toolbox operations: `(&Motion, params) → (Motion, Report)`.
