//! The shared objects a library loads in its `MPI_T_init_thread`, held by a zygote so
//! that its children find them loaded (runner::zygote). Open MPI 4.1.4 loads some 140
//! MCA components and their dependencies there, whose constructors sleep in hardware
//! probes: 0.22 s of each fresh process's `MPI_T_init_thread`, 10 ms once they are
//! loaded (a C loop of forked children, 2 cores).
//!
//! A child lets go of them at its first `MPI_T_init_thread` or `MPI_Init` ([`release`],
//! called by those wrappers once the call returns): the library then holds its own
//! references alone, as in a fresh process, so its `MPI_T_finalize` unloads what it
//! unloads there and a re-initialization loads it again.

use libloading::os::unix::{Library, RTLD_LAZY, RTLD_LOCAL};
use std::ffi::{c_int, c_void, CStr};
use std::path::PathBuf;
use std::sync::Mutex;

/// The objects this process holds for its children.
static HELD: Mutex<Vec<Library>> = Mutex::new(Vec::new());

/// The paths of the shared objects loaded in this process, in load order.
pub fn loaded_objects() -> Vec<PathBuf> {
    unsafe extern "C" fn each(
        info: *mut libc::dl_phdr_info,
        _size: usize,
        out: *mut c_void,
    ) -> c_int {
        // SAFETY: dl_iterate_phdr passes a valid `info` for the call, and `out` is the
        // `Vec` given below, borrowed for the iteration alone.
        let (info, out) = unsafe { (&*info, &mut *(out as *mut Vec<PathBuf>)) };
        if !info.dlpi_name.is_null() {
            // SAFETY: a non-null `dlpi_name` is a NUL-terminated path (empty for the
            // executable).
            let name = unsafe { CStr::from_ptr(info.dlpi_name) };
            if !name.is_empty() {
                out.push(PathBuf::from(name.to_string_lossy().into_owned()));
            }
        }
        0
    }
    let mut out: Vec<PathBuf> = Vec::new();
    // SAFETY: `each` matches the callback type and only touches `out`, which outlives
    // the call.
    unsafe { libc::dl_iterate_phdr(Some(each), &mut out as *mut Vec<PathBuf> as *mut c_void) };
    out
}

/// Loads `paths` and keeps them loaded until [`release`]: how many loaded (an object
/// whose symbols need another's global scope does not, and is left to the library).
pub fn hold(paths: &[PathBuf]) -> usize {
    let mut held = HELD.lock().unwrap_or_else(|p| p.into_inner());
    for p in paths {
        // SAFETY: loading runs the object's initializers, as the library's own
        // initialization would; this happens only in a zygote (a worker process).
        if let Ok(l) = unsafe { Library::open(Some(p), RTLD_LAZY | RTLD_LOCAL) } {
            held.push(l);
        }
    }
    held.len()
}

/// Lets go of what [`hold`] loaded (dlclose each, last loaded first): what the library
/// loaded itself stays loaded, the rest is unloaded.
pub fn release() {
    let mut held = HELD.lock().unwrap_or_else(|p| p.into_inner());
    while let Some(l) = held.pop() {
        drop(l);
    }
}

#[cfg(test)]
mod tests {
    use super::super::Lib;
    use super::*;

    /// A library the test process has not loaded (sonames of Debian's required packages).
    fn not_loaded() -> &'static str {
        let loaded = loaded_objects();
        [
            "libz.so.1",
            "liblzma.so.5",
            "libbz2.so.1.0",
            "libexpat.so.1",
        ]
        .into_iter()
        .find(|s| !loaded.iter().any(|p| p.ends_with(s)) && is_loadable(s))
        .expect("none of libz, liblzma, libbz2, libexpat is here to load")
    }

    fn is_loadable(soname: &str) -> bool {
        // SAFETY: these system libraries' initializers are plain; dropped at once.
        unsafe { Library::open(Some(soname), RTLD_LAZY | RTLD_LOCAL) }.is_ok()
    }

    fn is_loaded(soname: &str) -> bool {
        loaded_objects().iter().any(|p| p.ends_with(soname))
    }

    #[test]
    fn held_objects_stay_loaded_until_the_first_init_lets_go_of_them() {
        let lib = not_loaded();
        assert_eq!(hold(&[PathBuf::from(lib)]), 1);
        assert!(is_loaded(lib), "{lib} is held");
        // What a zygote's child does at its first MPI_T_init_thread: nobody else holds
        // the object, so it is unloaded, as it is in a fresh process.
        let reference = Lib::linked();
        assert!(reference.init_thread(0).is_some());
        assert!(
            !is_loaded(lib),
            "{lib} still loaded after the init let go of it"
        );
        assert!(reference.finalize().is_some());
    }
}
