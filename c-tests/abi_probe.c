/* The abi-probe's C half (`cargo xtask abi-probe`, xtask/src/abi_probe/compile.rs): compiled
 * against a vendor's MPI header, it prints the value of every constant an ABI profile
 * needs, one `KIND NAME VALUE` line each. It only reads compile-time constants, so it is
 * never linked against libmpi and calls no MPI function.
 *
 * The constants are not listed here: the Rust half finds out which names the header
 * defines as compile-time constants (macros, and enumerators, which #ifdef cannot see)
 * and passes them as
 *   -DMPIT_PROBE_HEADER=<mpi.h>
 *   -DMPIT_INTS=MPIT_INT(MPI_SUCCESS)MPIT_INT(MPI_T_ERR_MEMORY)...
 *   -DMPIT_HANDLES=MPIT_HANDLE(MPI_INT)MPIT_HANDLE(MPI_COMM_WORLD)...
 * Names the header lacks, and handles that are addresses of (or values stored in) the
 * library's objects, are left out; those are known only at run time.
 */
#include MPIT_PROBE_HEADER
#include <stdint.h>
#include <stdio.h>

/* `#name` is the name as written, `(name)` its value. */
#define MPIT_INT(name) printf("int %s %lld\n", #name, (long long)(name));
/* MPI_Datatype and friends are an int (MPICH) or a pointer (Open MPI, standard ABI). */
#define MPIT_HANDLE(name) printf("handle %s %lld\n", #name, (long long)(intptr_t)(name));

int main(void)
{
    printf("sizeof MPI_Datatype %u\n", (unsigned) sizeof(MPI_Datatype));
    printf("sizeof void* %u\n", (unsigned) sizeof(void *));
#ifdef MPIT_INTS
    MPIT_INTS
#endif
#ifdef MPIT_HANDLES
    MPIT_HANDLES
#endif
    return 0;
}
