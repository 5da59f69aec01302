//! What `--lib` names: a library file, or the reference linked into this executable
//! ([`LINKED_REFERENCE`]), which `Target::open` calls through its C ABI as it would
//! call its cdylib (`ffi::Lib::linked`).

use std::path::{Path, PathBuf};

/// The `--lib` that names the reference linked into this executable, called through its
/// C ABI as its cdylib would be (`ffi::Lib::linked`): the one binary judges the reference,
/// and serves `run --model-check`, with no `libmpit_reference.so` beside it.
pub const LINKED_REFERENCE: &str = "builtin:reference";

/// Whether `lib` names the linked reference rather than a file.
pub fn is_linked(lib: &Path) -> bool {
    lib.as_os_str() == LINKED_REFERENCE
}

/// Whether `lib` names something to judge: a file, or the linked reference.
pub fn lib_exists(lib: &Path) -> bool {
    is_linked(lib) || lib.exists()
}

/// The file whose hash says which build was judged: the library, or for the linked
/// reference this executable (the reference's code is part of it).
pub fn library_file(lib: &Path) -> PathBuf {
    match is_linked(lib) {
        true => std::env::current_exe().unwrap_or_else(|_| lib.to_path_buf()),
        false => lib.to_path_buf(),
    }
}
