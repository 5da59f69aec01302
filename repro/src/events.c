//@ Callbacks an event case registers, and lookups of events and sources (MPI-4.0 events,
//@ §15.3.8): sections of the format helpers.c describes.
//@ tail repro_event_cb mpi4
static void repro_event_cb(MPI_T_event_instance e, MPI_T_event_registration r, MPI_T_cb_safety s, void *user)
{
    (void)e; (void)r; (void)s; (void)user;
}
//@ tail repro_free_cb mpi4
static void repro_free_cb(MPI_T_event_registration r, MPI_T_cb_safety s, void *user)
{
    (void)r; (void)s; (void)user;
}
//@ tail repro_dropped_cb mpi4
static void repro_dropped_cb(MPI_Count count, MPI_T_event_registration r, int source, MPI_T_cb_safety s, void *user)
{
    (void)count; (void)r; (void)source; (void)s; (void)user;
}
//@ tail event_entry mpi4
static int event_entry(int i, entry_t *e)
{
    int nl = sizeof e->name, dl = sizeof e->desc, num = 0;
    memset(e, 0, sizeof *e);
    e->index = i;
    return MPI_T_event_get_info(i, e->name, &nl, &e->verbosity, NULL, NULL, &num, NULL, NULL, e->desc, &dl, &e->bind)
        == MPI_SUCCESS && entry_lengths(e);
}
//@ tail source_named mpi4
/* A source by name (MPI-4.1 has no MPI_T_source_get_index): every index is tried. */
static int source_named(const char *name, entry_t *e)
{
    int n = 0;
    MPI_T_source_get_num(&n);
    for (int i = 0; i < n; i++) {
        int nl = sizeof e->name, dl = sizeof e->desc;
        MPI_T_source_order order;
        MPI_Count tps, max;
        memset(e, 0, sizeof *e);
        e->index = i;
        if (MPI_T_source_get_info(i, e->name, &nl, e->desc, &dl, &order, &tps, &max, NULL) == MPI_SUCCESS
            && strcmp(e->name, name) == 0)
            return entry_lengths(e);
    }
    return 0;
}
