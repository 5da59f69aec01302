//@ Activity: MPI work after MPI_Init (mpit-conform's `activity` step), and MPI_Wtime:
//@ sections of the format helpers.c describes.
//@ tail activity
/* MPI work after MPI_Init (mpit-conform's `activity` step). Messages of one int to self
 * (`unexpected`: sent before their receives; `hold`: left in the unexpected queue on
 * MPI_COMM_WORLD until a later call with `drain`), exchanges with the receive posted
 * first, barriers and broadcasts, communicator dups, pvar sessions. The reference has no
 * point-to-point: its simulate hook stands in, one step per message and collective.
 * Returns the first failing call's code. */
#ifdef MPIT_REFERENCE_H
static int activity(int messages, int unexpected, int hold, int drain, int collectives, int comms, int sessions)
{
    (void)hold; (void)drain; (void)comms;
    for (int k = 0; k < sessions; k++) {
        MPI_T_pvar_session s;
        int rc = MPI_T_pvar_session_create(&s);
        if (rc != MPI_SUCCESS) return rc;
        if ((rc = MPI_T_pvar_session_free(&s)) != MPI_SUCCESS) return rc;
    }
    int steps = messages + unexpected + collectives;
    return MPIT_Reference_simulate(steps > 0 ? steps : 1);
}
#else
/* Held messages: sends in flight until a later call drains them. */
#define ACTIVITY_MAX 4096
static int activity_held;
static int activity_held_buf[ACTIVITY_MAX];
static MPI_Request activity_held_req[ACTIVITY_MAX];
static int activity(int messages, int unexpected, int hold, int drain, int collectives, int comms, int sessions)
{
    /* Nonblocking sends: a blocking send to self before its receive may wait forever
     * (MPI-4.1 §3.5: unsafe), and MPICH's does. */
    static int ubuf[ACTIVITY_MAX];
    static MPI_Request ureq[ACTIVITY_MAX];
    int rc, me = 0, v = 0, in = -1;
    MPI_Status st;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (unexpected > ACTIVITY_MAX) unexpected = ACTIVITY_MAX;
    for (int k = 0; k < unexpected; k++) {
        ubuf[k] = k;
        if ((rc = MPI_Isend(&ubuf[k], 1, MPI_INT, 0, 7100 + k, MPI_COMM_SELF, &ureq[k])) != MPI_SUCCESS) return rc;
    }
    for (int k = 0; k < unexpected; k++)
        if ((rc = MPI_Recv(&in, 1, MPI_INT, 0, 7100 + k, MPI_COMM_SELF, &st)) != MPI_SUCCESS) return rc;
    for (int k = 0; k < unexpected; k++)
        if ((rc = MPI_Wait(&ureq[k], &st)) != MPI_SUCCESS) return rc;
    if (drain) {
        for (int k = 0; k < activity_held; k++) {
            if ((rc = MPI_Recv(&in, 1, MPI_INT, me, 200000 + k, MPI_COMM_WORLD, &st)) != MPI_SUCCESS) return rc;
            if ((rc = MPI_Wait(&activity_held_req[k], &st)) != MPI_SUCCESS) return rc;
        }
        activity_held = 0;
    }
    for (int k = 0; k < hold && activity_held < ACTIVITY_MAX; k++) {
        int i = activity_held;
        activity_held_buf[i] = k;
        if ((rc = MPI_Isend(&activity_held_buf[i], 1, MPI_INT, me, 200000 + i, MPI_COMM_WORLD, &activity_held_req[i])) != MPI_SUCCESS) return rc;
        activity_held++;
    }
    for (int k = 0; k < messages; k++) {
        MPI_Comm c = k % 2 ? MPI_COMM_WORLD : MPI_COMM_SELF;
        int peer = k % 2 ? me : 0;
        MPI_Request r[2];
        v = k;
        if ((rc = MPI_Irecv(&in, 1, MPI_INT, peer, 7099, c, &r[0])) != MPI_SUCCESS) return rc;
        if ((rc = MPI_Isend(&v, 1, MPI_INT, peer, 7099, c, &r[1])) != MPI_SUCCESS) return rc;
        if ((rc = MPI_Wait(&r[1], &st)) != MPI_SUCCESS) return rc;
        if ((rc = MPI_Wait(&r[0], &st)) != MPI_SUCCESS) return rc;
    }
    for (int k = 0; k < collectives; k++) {
        if ((rc = MPI_Barrier(MPI_COMM_WORLD)) != MPI_SUCCESS) return rc;
        v = k;
        if ((rc = MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD)) != MPI_SUCCESS) return rc;
    }
    for (int k = 0; k < comms; k++) {
        MPI_Comm d;
        if ((rc = MPI_Comm_dup(MPI_COMM_WORLD, &d)) != MPI_SUCCESS) return rc;
        if ((rc = MPI_Comm_free(&d)) != MPI_SUCCESS) return rc;
    }
    for (int k = 0; k < sessions; k++) {
        MPI_T_pvar_session s;
        if ((rc = MPI_T_pvar_session_create(&s)) != MPI_SUCCESS) return rc;
        if ((rc = MPI_T_pvar_session_free(&s)) != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}
#endif
//@ tail wtime
/* mpit-conform's `wtime` step: MPI_Wtime returns a double, not a code. */
static int wtime(double *time)
{
    *time = MPI_Wtime();
    return MPI_SUCCESS;
}
