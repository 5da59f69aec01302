//! What the harness reads from a library file without loading it:
//! * the 20 bytes of the ELF header that say whether this process can load it at all
//!   (class, byte order, type, machine), so a library of the wrong architecture is a
//!   one-line error instead of dlopen's `wrong ELF class: ELFCLASS32`;
//! * whether the dynamic symbol table defines a name (the supervisor picks a worker's
//!   environment by it without running vendor code, `target::env`), and every name it
//!   defines (the tests hold the linked reference to its cdylib's exports by it).
//!
//! Hand-parsed, no crate: the fields are at fixed offsets in the System V gABI (e_ident
//! is 16 bytes, then e_type and e_machine, identical for both classes), the symbol
//! lookup needs four more fixed-layout ELF64 records, and a general object-file parser
//! would be a large dependency for that. Nothing here is `unsafe`; a malformed file
//! gives an error or "not found", never a panic.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// `\x7fELF`.
const MAGIC: [u8; 4] = [0x7f, b'E', b'L', b'F'];
const EI_CLASS: usize = 4;
const EI_DATA: usize = 5;
const ELFCLASS64: u8 = 2;
const ELFDATA2LSB: u8 = 1;
const ET_DYN: u16 = 3;
const SHT_DYNSYM: u32 = 11;

/// Why an ELF file cannot be loaded by this process.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ElfError {
    #[error("{path}: a shared library for {machine} (ELF machine {number}), this harness runs on {host}")]
    Machine {
        path: String,
        machine: String,
        number: u16,
        host: &'static str,
    },
    #[error("{path}: a {bits}-bit shared library for {machine} (ELF class {class}, machine {number}), this harness runs on 64-bit {host}")]
    Class {
        path: String,
        bits: u32,
        class: u8,
        machine: String,
        number: u16,
        host: &'static str,
    },
    #[error("{path}: a big-endian ELF file, this harness runs on little-endian {host}")]
    ByteOrder { path: String, host: &'static str },
    #[error("{path}: an ELF {kind} (e_type {e_type}), not a shared library")]
    NotShared {
        path: String,
        kind: &'static str,
        e_type: u16,
    },
}

/// The ELF machine number of the architecture this harness was built for.
fn host_machine() -> u16 {
    match std::env::consts::ARCH {
        "x86_64" => 62,
        "aarch64" => 183,
        "x86" => 3,
        "arm" => 40,
        "powerpc64" => 21,
        "s390x" => 22,
        "riscv64" => 243,
        "loongarch64" => 258,
        _ => 0,
    }
}

/// A name for an ELF machine number (the common ones; others by number).
fn machine_name(m: u16) -> String {
    match m {
        3 => "i386".into(),
        8 => "mips".into(),
        20 => "powerpc".into(),
        21 => "powerpc64".into(),
        22 => "s390x".into(),
        40 => "arm".into(),
        62 => "x86_64".into(),
        183 => "aarch64".into(),
        243 => "riscv".into(),
        258 => "loongarch".into(),
        n => format!("machine {n}"),
    }
}

/// Checks the 20 header bytes. Files that are not ELF at all (too short, no magic) pass:
/// dlopen reports those itself ("invalid ELF header"), and only ELF files can be of a
/// wrong architecture.
pub fn check_loadable(path: &Path) -> Result<(), ElfError> {
    let mut h = [0u8; 20];
    let Ok(mut f) = File::open(path) else {
        return Ok(());
    };
    if f.read_exact(&mut h).is_err() || h[..4] != MAGIC {
        return Ok(());
    }
    check_header(&h, &path.display().to_string())
}

fn check_header(h: &[u8; 20], path: &str) -> Result<(), ElfError> {
    let host = std::env::consts::ARCH;
    let class = h[EI_CLASS];
    // e_type and e_machine are in the file's byte order.
    let big = h[EI_DATA] != ELFDATA2LSB;
    let u16_at = |i: usize| {
        let b = [h[i], h[i + 1]];
        if big {
            u16::from_be_bytes(b)
        } else {
            u16::from_le_bytes(b)
        }
    };
    let (e_type, machine) = (u16_at(16), u16_at(18));
    if class != ELFCLASS64 || cfg!(not(target_pointer_width = "64")) {
        return Err(ElfError::Class {
            path: path.into(),
            bits: if class == 1 { 32 } else { 0 },
            class,
            machine: machine_name(machine),
            number: machine,
            host,
        });
    }
    if machine != host_machine() {
        return Err(ElfError::Machine {
            path: path.into(),
            machine: machine_name(machine),
            number: machine,
            host,
        });
    }
    if big != cfg!(target_endian = "big") {
        return Err(ElfError::ByteOrder {
            path: path.into(),
            host,
        });
    }
    if e_type != ET_DYN {
        let kind = match e_type {
            1 => "relocatable object",
            2 => "executable",
            4 => "core file",
            _ => "file of unknown type",
        };
        return Err(ElfError::NotShared {
            path: path.into(),
            kind,
            e_type,
        });
    }
    Ok(())
}

/// Reads `n` bytes at `off`.
fn read_at(f: &mut File, off: u64, n: usize) -> Option<Vec<u8>> {
    // A corrupt header could ask for anything; no real symbol table is near this size.
    if n > 1 << 30 {
        return None;
    }
    f.seek(SeekFrom::Start(off)).ok()?;
    let mut b = vec![0u8; n];
    f.read_exact(&mut b).ok()?;
    Some(b)
}

fn le_u16(b: &[u8], i: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(i..i + 2)?.try_into().ok()?))
}
fn le_u32(b: &[u8], i: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(i..i + 4)?.try_into().ok()?))
}
fn le_u64(b: &[u8], i: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(i..i + 8)?.try_into().ok()?))
}

/// Whether the dynamic symbol table (`.dynsym`) of a 64-bit little-endian ELF file
/// defines `name` (a symbol with a section, i.e. not an undefined reference). `None`
/// when the file is not such an ELF file or its tables cannot be read.
pub fn defines_symbol(path: &Path, name: &str) -> Option<bool> {
    let want = name.as_bytes();
    Some(DynSym::read(path)?.defined().any(|n| n == want))
}

/// Every name the dynamic symbol table of a 64-bit little-endian ELF file defines, in
/// table order (what a dlsym on it can find); `None` as for [`defines_symbol`].
pub fn defined_symbols(path: &Path) -> Option<Vec<String>> {
    let d = DynSym::read(path)?;
    Some(
        d.defined()
            .map(|n| String::from_utf8_lossy(n).into_owned())
            .collect(),
    )
}

/// A file's `.dynsym` and its string table.
struct DynSym {
    syms: Vec<u8>,
    strs: Vec<u8>,
    entsize: usize,
}

impl DynSym {
    fn read(path: &Path) -> Option<DynSym> {
        let mut f = File::open(path).ok()?;
        // ELF64 header (64 bytes): e_shoff at 0x28, e_shentsize 0x3a, e_shnum 0x3c.
        let h = read_at(&mut f, 0, 64)?;
        if h[..4] != MAGIC || h[EI_CLASS] != ELFCLASS64 || h[EI_DATA] != ELFDATA2LSB {
            return None;
        }
        let (shoff, shentsize, shnum) = (le_u64(&h, 0x28)?, le_u16(&h, 0x3a)?, le_u16(&h, 0x3c)?);
        if shentsize < 64 {
            return None;
        }
        let sh = read_at(&mut f, shoff, shentsize as usize * shnum as usize)?;
        // Section header (64 bytes): sh_type at 4, sh_offset 24, sh_size 32, sh_link 40,
        // sh_entsize 56.
        let section = |k: usize| {
            let b = sh.get(k * shentsize as usize..(k + 1) * shentsize as usize)?;
            Some((
                le_u32(b, 4)?,
                le_u64(b, 24)?,
                le_u64(b, 32)?,
                le_u32(b, 40)?,
                le_u64(b, 56)?,
            ))
        };
        let dynsym = (0..shnum as usize).find_map(|k| section(k).filter(|s| s.0 == SHT_DYNSYM))?;
        let (_, off, size, link, entsize) = dynsym;
        let (_, str_off, str_size, _, _) = section(link as usize)?;
        let syms = read_at(&mut f, off, usize::try_from(size).ok()?)?;
        let strs = read_at(&mut f, str_off, usize::try_from(str_size).ok()?)?;
        // Elf64_Sym (24 bytes): st_name at 0, st_shndx at 6 (0 = SHN_UNDEF).
        let entsize = usize::try_from(entsize).ok().filter(|e| *e >= 24)?;
        Some(DynSym {
            syms,
            strs,
            entsize,
        })
    }

    /// The names it defines (`st_shndx` not `SHN_UNDEF`), as bytes.
    fn defined(&self) -> impl Iterator<Item = &[u8]> {
        self.syms.chunks_exact(self.entsize).filter_map(|s| {
            let (n, shndx) = (le_u32(s, 0)?, le_u16(s, 6)?);
            if shndx == 0 {
                return None;
            }
            self.strs.get(n as usize..)?.split(|c| *c == 0).next()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(class: u8, data: u8, e_type: u16, machine: u16) -> [u8; 20] {
        let mut h = [0u8; 20];
        h[..4].copy_from_slice(&MAGIC);
        h[EI_CLASS] = class;
        h[EI_DATA] = data;
        let (t, m) = if data == ELFDATA2LSB {
            (e_type.to_le_bytes(), machine.to_le_bytes())
        } else {
            (e_type.to_be_bytes(), machine.to_be_bytes())
        };
        h[16..18].copy_from_slice(&t);
        h[18..20].copy_from_slice(&m);
        h
    }

    #[test]
    fn headers_this_process_can_and_cannot_load() {
        let host = host_machine();
        assert_eq!(check_header(&header(2, 1, ET_DYN, host), "l.so"), Ok(()));
        let e = check_header(&header(2, 1, ET_DYN, 183), "l.so");
        if host != 183 {
            let msg = e.expect_err("aarch64").to_string();
            assert_eq!(
                msg,
                format!(
                    "l.so: a shared library for aarch64 (ELF machine 183), this harness runs on {}",
                    std::env::consts::ARCH
                )
            );
        }
        let msg = check_header(&header(1, 1, ET_DYN, host), "l.so")
            .expect_err("32-bit")
            .to_string();
        assert!(
            msg.contains(&format!(
                "a 32-bit shared library for {} (ELF class 1, machine {host})",
                std::env::consts::ARCH
            )),
            "{msg}"
        );
        let msg = check_header(&header(2, 1, 2, host), "l.so")
            .expect_err("executable")
            .to_string();
        assert_eq!(
            msg,
            "l.so: an ELF executable (e_type 2), not a shared library"
        );
        // A big-endian file names its machine in big-endian order.
        assert!(check_header(&header(2, 2, ET_DYN, host), "l.so").is_err());
    }

    #[test]
    fn symbols_of_this_test_binary() {
        // The test binary is an ELF file whose .dynsym defines libc's imports as
        // undefined and nothing named like this.
        let exe = std::env::current_exe().expect("exe");
        assert_eq!(
            defines_symbol(&exe, "mpit_no_such_symbol_anywhere"),
            Some(false)
        );
        assert_eq!(defines_symbol(Path::new("/etc/hostname"), "x"), None);
    }
}
