//! The struct tags of the six MPI_T handle types in a vendor's header, as `abi-probe`
//! reports them.
//!
//! MPI-5.0's standard ABI makes the handles pointers to incomplete structs; an erratum
//! (mpi-forum/mpi-issues#1001) fixed their tags as `struct MPI_ABI_T_enum` and so on,
//! as mpi-forum/mpi-abi-stubs' mpi.h writes them. The tag is ABI for C++ tools: it is
//! part of the mangled name of every function that takes a handle, so a tool library
//! built against a header with other tags does not link with one built against the
//! final header. MPICH 5.0.2's and Intel MPI 2021.19's `mpi_abi.h` have the tags from
//! before the erratum (`struct MPI_T_enum_t`).

/// The six MPI_T handle types, in the standard's order.
pub const T_HANDLE_TYPES: [&str; 6] = [
    "MPI_T_enum",
    "MPI_T_cvar_handle",
    "MPI_T_pvar_handle",
    "MPI_T_pvar_session",
    "MPI_T_event_registration",
    "MPI_T_event_instance",
];

/// `(type, tag)` for each `typedef struct TAG *TYPE;` of an MPI_T handle type in
/// preprocessed C (identifiers and punctuation, as `abi_probe` tokenizes it).
pub fn handle_tags(idents_and_puncts: &[Result<&str, char>]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for w in idents_and_puncts.windows(6) {
        if let [Ok("typedef"), Ok("struct"), Ok(tag), Err('*'), Ok(ty), Err(';')] = w {
            if T_HANDLE_TYPES.contains(ty) && !out.iter().any(|(t, _): &(String, String)| t == ty) {
                out.push((ty.to_string(), tag.to_string()));
            }
        }
    }
    out
}

/// The tag the final MPI-5.0 ABI gives `ty` (`MPI_T_enum` → `MPI_ABI_T_enum`).
pub fn final_tag(ty: &str) -> String {
    format!("MPI_ABI_{}", ty.trim_start_matches("MPI_"))
}

/// One clause for the probe's summary: whether the tags are the final ABI's. Only the
/// standard family is held to them; a native header's tags are its own business.
pub fn verdict(standard_family: bool, tags: &[(String, String)]) -> Option<String> {
    if !standard_family || tags.is_empty() {
        return None;
    }
    let off: Vec<String> = tags
        .iter()
        .filter(|(ty, tag)| *tag != final_tag(ty))
        .map(|(ty, tag)| format!("struct {tag} *{ty}"))
        .collect();
    Some(if off.is_empty() {
        "MPI_T handle types: the final MPI-5.0 ABI's struct tags (MPI_ABI_T_*)".to_string()
    } else {
        format!(
            "MPI_T handle types: pre-erratum struct tags in {} of {} ({}); the final MPI-5.0 \
             ABI names them struct MPI_ABI_T_* (mpi-forum/mpi-issues#1001), and C++ tools \
             built against the two do not link",
            off.len(),
            tags.len(),
            off.first().cloned().unwrap_or_default()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Result<&str, char>> {
        let mut v = Vec::new();
        for w in s.split_whitespace() {
            match w {
                "*" | ";" => v.push(Err(w.chars().next().unwrap_or(' '))),
                _ => v.push(Ok(w)),
            }
        }
        v
    }

    #[test]
    fn final_and_pre_erratum_tags_are_told_apart() {
        let final_h = toks("typedef struct MPI_ABI_T_enum * MPI_T_enum ; typedef struct MPI_ABI_T_pvar_session * MPI_T_pvar_session ;");
        let t = handle_tags(&final_h);
        assert_eq!(t.len(), 2);
        assert!(verdict(true, &t)
            .unwrap()
            .contains("the final MPI-5.0 ABI's struct tags"));
        let old = toks("typedef struct MPI_T_enum_t * MPI_T_enum ; typedef int MPI_Comm ;");
        let t = handle_tags(&old);
        assert_eq!(
            t,
            vec![("MPI_T_enum".to_string(), "MPI_T_enum_t".to_string())]
        );
        let v = verdict(true, &t).unwrap();
        assert!(
            v.contains("pre-erratum struct tags in 1 of 1 (struct MPI_T_enum_t *MPI_T_enum)"),
            "{v}"
        );
        assert_eq!(
            verdict(false, &t),
            None,
            "native headers are not held to the tags"
        );
    }
}
