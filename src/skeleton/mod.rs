//! Model skeletons: PMX/PMD bone reader, the built-in MMD skeleton, FK and IK.
