/* ---- Callbacks an event case registers (MPI-4.0 events, §15.3.8) ---------------------- */
static UNUSED void repro_event_cb(MPI_T_event_instance e, MPI_T_event_registration r, MPI_T_cb_safety s, void *user)
{
    (void)e; (void)r; (void)s; (void)user;
}
static UNUSED void repro_free_cb(MPI_T_event_registration r, MPI_T_cb_safety s, void *user)
{
    (void)r; (void)s; (void)user;
}
static UNUSED void repro_dropped_cb(MPI_Count count, MPI_T_event_registration r, int source, MPI_T_cb_safety s, void *user)
{
    (void)count; (void)r; (void)source; (void)s; (void)user;
}

static UNUSED int event_entry(int i, entry_t *e)
{
    int nl = sizeof e_name, dl = sizeof e_desc, num = 0;
    memset(e, 0, sizeof *e);
    e->index = i;
    if (MPI_T_event_get_info(i, e_name, &nl, &e->verbosity, NULL, NULL, &num, NULL, NULL, e_desc, &dl, &e->bind) != MPI_SUCCESS) return 0;
    snprintf(e->name, sizeof e->name, "%s", e_name);
    snprintf(e->desc, sizeof e->desc, "%s", e_desc);
    e->len = (int)strlen(e->name) + 1;
    e->desc_len = (int)strlen(e->desc) + 1;
    return 1;
}

/* A source by name (MPI-4.1 has no MPI_T_source_get_index): every index is tried. */
static UNUSED int source_named(const char *name, entry_t *e)
{
    int n = 0;
    MPI_T_source_get_num(&n);
    for (int i = 0; i < n; i++) {
        int nl = sizeof e_name, dl = sizeof e_desc;
        MPI_T_source_order order;
        MPI_Count tps, max;
        if (MPI_T_source_get_info(i, e_name, &nl, e_desc, &dl, &order, &tps, &max, NULL) != MPI_SUCCESS) continue;
        if (strcmp(e_name, name) != 0) continue;
        memset(e, 0, sizeof *e);
        e->index = i;
        snprintf(e->name, sizeof e->name, "%s", e_name);
        snprintf(e->desc, sizeof e->desc, "%s", e_desc);
        e->len = (int)strlen(e->name) + 1;
        e->desc_len = (int)strlen(e->desc) + 1;
        return 1;
    }
    return 0;
}
