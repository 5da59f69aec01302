//! Helpers shared by the reference's integration tests.

/// The target triple of this test build (cc needs one outside build scripts).
pub fn triple() -> String {
    let arch = std::env::consts::ARCH;
    if cfg!(target_env = "musl") {
        format!("{arch}-unknown-linux-musl")
    } else {
        format!("{arch}-unknown-linux-gnu")
    }
}
