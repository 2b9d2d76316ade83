//! The document lives in the workspace ([`crate::workspace::document`]);
//! the panels' paths keep working through this re-export.

pub use crate::workspace::document::*;
