//! The cdylib loaded under MPICH's file name speaks MPICH's ABI: numbers
//! from `specs/abi/mpich-5.yaml`, `MPI_Datatype`/`MPI_Comm`/`MPI_Info` as 4-byte ints.
//! One process per test file, so this file's process only ever sees the MPICH ABI.

use mpit_vocab::profile::{AbiProfile, HandleValue};
use mpit_vocab::spec::{TErr, ThreadLevel};
use std::ffi::{c_char, c_int, c_void, CStr};
use std::path::PathBuf;

/// The cdylib next to this test executable (see c_examples.rs), symlinked as
/// `libmpi.so.12` in a scratch directory: the name MPICH's tools are linked against.
fn staged() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    let deps = exe.parent().expect("deps").to_path_buf();
    let lib = [
        deps.clone(),
        deps.parent().expect("profile dir").to_path_buf(),
    ]
    .into_iter()
    .map(|d| d.join("libmpit_reference.so"))
    .find(|p| p.exists())
    .expect("libmpit_reference.so next to the test executable");
    let dir = std::env::temp_dir().join(format!("mpit-mpich-abi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let link = dir.join("libmpi.so.12");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&lib, &link).expect("symlink");
    link
}

fn num(v: &HandleValue) -> i64 {
    match v {
        HandleValue::Num(n) => *n,
        HandleValue::Symbol { .. } => panic!("a symbol handle where a number was expected"),
    }
}

type GetInfo = unsafe extern "C" fn(
    c_int,
    *mut c_char,
    *mut c_int,
    *mut c_int,
    *mut c_void,
    *mut usize,
    *mut c_char,
    *mut c_int,
    *mut c_int,
    *mut c_int,
) -> c_int;

#[test]
fn loaded_as_libmpi_so_12_it_speaks_mpich_abi() {
    let p = AbiProfile::mpich();
    let path = staged();
    // SAFETY: the reference cdylib has no initializers with preconditions.
    let lib = unsafe { libloading::Library::new(&path) }.expect("dlopen the staged library");
    // SAFETY (all lookups and calls below): the signatures are those of
    // reference/include/mpit_reference.h with MPICH's int-wide MPI handles.
    unsafe {
        let abi_version: libloading::Symbol<unsafe extern "C" fn(*mut c_int, *mut c_int) -> c_int> =
            lib.get(b"MPI_Abi_get_version").expect("symbol");
        let (mut major, mut minor) = (0, 0);
        assert_eq!(abi_version(&mut major, &mut minor), 0);
        assert_eq!(
            (major, minor),
            (-1, -1),
            "no standard ABI under MPICH's name"
        );

        let init: libloading::Symbol<unsafe extern "C" fn(c_int, *mut c_int) -> c_int> =
            lib.get(b"MPI_T_init_thread").expect("symbol");
        let single = p.thread_level.num(ThreadLevel::Single).expect("defined") as c_int;
        let funneled = p.thread_level.num(ThreadLevel::Funneled).expect("defined") as c_int;
        let mut provided = -1;
        assert_eq!(init(funneled, &mut provided), 0);
        assert_eq!(provided, funneled, "MPICH's thread levels (0..3)");
        assert_eq!(init(single, &mut provided), 0);

        // An OUT MPI_Datatype is one int: the next int keeps its sentinel.
        let get_info: libloading::Symbol<GetInfo> =
            lib.get(b"MPI_T_cvar_get_info").expect("symbol");
        let mut dt: [i32; 2] = [0, 0x5a5a5a5a];
        let mut verbosity = 0;
        let mut name = [0 as c_char; 64];
        let mut name_len = name.len() as c_int;
        let rc = get_info(
            0,
            name.as_mut_ptr(),
            &mut name_len,
            &mut verbosity,
            dt.as_mut_ptr().cast(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        );
        assert_eq!(rc, 0);
        assert_eq!(dt[1], 0x5a5a5a5a, "wrote past the 4-byte MPI_Datatype");
        assert!(
            p.datatype.iter().any(|(_, v)| num(v) as i32 == dt[0]),
            "{:#x} is no MPICH datatype",
            dt[0]
        );
        assert!(
            p.verbosity.lookup(verbosity.into()).is_some(),
            "{verbosity}"
        );
        let bad = get_info(
            1 << 20,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        );
        assert_eq!(Some(bad.into()), p.code(TErr::InvalidIndex));

        // A by-value MPI_Datatype is the low 32 bits of its register: garbage above them
        // (what a caller passing an int may leave) does not change the answer.
        let type_name: libloading::Symbol<
            unsafe extern "C" fn(usize, *mut c_char, *mut c_int) -> c_int,
        > = lib.get(b"MPI_Type_get_name").expect("symbol");
        let dt0 = dt[0] as u32 as usize;
        let mut buf = [0 as c_char; 128];
        let mut len = 0;
        assert_eq!(
            type_name(dt0 | 0xdead_0000_0000_0000, buf.as_mut_ptr(), &mut len),
            0
        );
        let got = CStr::from_ptr(buf.as_ptr()).to_str().expect("utf-8");
        assert_eq!(len as usize, got.len());
        let (want, _) = p
            .datatype
            .iter()
            .find(|(_, v)| num(v) as u32 as usize == dt0)
            .expect("known");
        assert_eq!(got, want.spelling());
        let not_a_type = type_name(0x1234, buf.as_mut_ptr(), &mut len);
        assert_eq!(not_a_type as i64, p.mpi_err["MPI_ERR_TYPE"]);

        // MPI_Comm_rank on MPICH's MPI_COMM_WORLD after MPI_Init_thread.
        let mpi_init: libloading::Symbol<
            unsafe extern "C" fn(*mut c_int, *mut c_void, c_int, *mut c_int) -> c_int,
        > = lib.get(b"MPI_Init_thread").expect("symbol");
        assert_eq!(
            mpi_init(
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                single,
                &mut provided
            ),
            0
        );
        let rank: libloading::Symbol<unsafe extern "C" fn(usize, *mut c_int) -> c_int> =
            lib.get(b"MPI_Comm_rank").expect("symbol");
        let world = num(&p.handles["MPI_COMM_WORLD"]) as usize;
        let mut r = -1;
        assert_eq!(rank(world, &mut r), 0);
        assert_eq!(r, 0);
        let std_world = num(&AbiProfile::standard().handles["MPI_COMM_WORLD"]) as usize;
        assert_ne!(
            rank(std_world, &mut r),
            0,
            "the standard ABI's MPI_COMM_WORLD"
        );

        // MPICH's MPI_T_PVAR_ALL_HANDLES: the value of an exported variable, accepted
        // by MPI_T_pvar_start.
        let all: libloading::Symbol<*const usize> =
            lib.get(b"MPI_T_PVAR_ALL_HANDLES").expect("symbol");
        let all = **all;
        let create: libloading::Symbol<unsafe extern "C" fn(*mut usize) -> c_int> =
            lib.get(b"MPI_T_pvar_session_create").expect("symbol");
        let start: libloading::Symbol<unsafe extern "C" fn(usize, usize) -> c_int> =
            lib.get(b"MPI_T_pvar_start").expect("symbol");
        let mut s = 0usize;
        assert_eq!(create(&mut s), 0);
        assert_eq!(start(s, all), 0);
        assert_eq!(Some(start(s, 1).into()), p.code(TErr::InvalidHandle));
    }
}
