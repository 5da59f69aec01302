/* symbols.c: dlopen the reference library (argv[1]) and look up every MPI-4.1 MPI_T
 * function, its PMPI_T_ twin (R-GEN-8), the MPI_ functions with their PMPI_ twins, and
 * the reference hooks. Prints each missing name; exits 1 if any is missing. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static const char *const mpi_t[] = {
    "MPI_T_init_thread",
    "MPI_T_finalize",
    "MPI_T_enum_get_info",
    "MPI_T_enum_get_item",
    "MPI_T_cvar_get_num",
    "MPI_T_cvar_get_info",
    "MPI_T_cvar_get_index",
    "MPI_T_cvar_handle_alloc",
    "MPI_T_cvar_handle_free",
    "MPI_T_cvar_read",
    "MPI_T_cvar_write",
    "MPI_T_pvar_get_num",
    "MPI_T_pvar_get_info",
    "MPI_T_pvar_get_index",
    "MPI_T_pvar_session_create",
    "MPI_T_pvar_session_free",
    "MPI_T_pvar_handle_alloc",
    "MPI_T_pvar_handle_free",
    "MPI_T_pvar_start",
    "MPI_T_pvar_stop",
    "MPI_T_pvar_read",
    "MPI_T_pvar_write",
    "MPI_T_pvar_reset",
    "MPI_T_pvar_readreset",
    "MPI_T_source_get_num",
    "MPI_T_source_get_info",
    "MPI_T_source_get_timestamp",
    "MPI_T_event_get_num",
    "MPI_T_event_get_info",
    "MPI_T_event_get_index",
    "MPI_T_event_handle_alloc",
    "MPI_T_event_handle_set_info",
    "MPI_T_event_handle_get_info",
    "MPI_T_event_register_callback",
    "MPI_T_event_callback_set_info",
    "MPI_T_event_callback_get_info",
    "MPI_T_event_handle_free",
    "MPI_T_event_set_dropped_handler",
    "MPI_T_event_read",
    "MPI_T_event_copy",
    "MPI_T_event_get_timestamp",
    "MPI_T_event_get_source",
    "MPI_T_category_get_num",
    "MPI_T_category_get_info",
    "MPI_T_category_get_num_events",
    "MPI_T_category_get_index",
    "MPI_T_category_get_cvars",
    "MPI_T_category_get_pvars",
    "MPI_T_category_get_events",
    "MPI_T_category_get_categories",
    "MPI_T_category_changed",
};

static const char *const mpi[] = {
    "MPI_Get_version",
    "MPI_Get_library_version",
    "MPI_Abi_get_version",
    "MPI_Init",
    "MPI_Init_thread",
    "MPI_Finalize",
    "MPI_Initialized",
    "MPI_Finalized",
    "MPI_Comm_rank",
    "MPI_Comm_size",
    "MPI_Info_create",
    "MPI_Info_free",
    "MPI_Info_set",
    "MPI_Info_get_nkeys",
    "MPI_Info_get_nthkey",
    "MPI_Info_get_string",
    "MPI_Wtime",
};

static const char *const hooks[] = {
    "MPIT_Reference_simulate",
    "MPIT_Reference_raise_event",
    "MPIT_Reference_fault_count",
    "MPIT_Reference_fault_name",
};

#define LEN(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Looks up `name` (with `prefix` in front); returns 1 if found. */
static int look(void *lib, const char *prefix, const char *name)
{
    char full[128];
    snprintf(full, sizeof full, "%s%s", prefix, name);
    if (dlsym(lib, full) != NULL) return 1;
    printf("missing: %s\n", full);
    return 0;
}

int main(int argc, char **argv)
{
    int i, t = 0, m = 0, h = 0;
    void *lib;

    if (argc != 2) {
        printf("usage: symbols LIBRARY\n");
        return 2;
    }
    lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        printf("dlopen: %s\n", dlerror());
        return 2;
    }
    for (i = 0; i < LEN(mpi_t); i++) t += look(lib, "", mpi_t[i]) + look(lib, "P", mpi_t[i]);
    for (i = 0; i < LEN(mpi); i++) m += look(lib, "", mpi[i]) + look(lib, "P", mpi[i]);
    for (i = 0; i < LEN(hooks); i++) h += look(lib, "", hooks[i]);
    printf("MPI_T/PMPI_T symbols found: %d of %d\n", t, 2 * LEN(mpi_t));
    printf("MPI/PMPI symbols found: %d of %d\n", m, 2 * LEN(mpi));
    printf("hooks found: %d of %d\n", h, LEN(hooks));
    dlclose(lib);
    return t == 2 * LEN(mpi_t) && m == 2 * LEN(mpi) && h == LEN(hooks) ? 0 : 1;
}
