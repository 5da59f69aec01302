//! The C ABI (to be written).
