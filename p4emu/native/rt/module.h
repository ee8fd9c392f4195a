/* The Python face of a generated pipeline: State (per switch), Job (a packet between
 * ingress and egress, as p4emu.v1model.pipeline.EgressJob) and the per-packet entry
 * points ingress / egress / process (METH_FASTCALL: about a microsecond is the budget).
 * Included after the generated program, which defines pkt_t and the prog_* functions. */

#define DROP_PORT 511
#define INSTANCE_REPLICATION 5  /* v1model instance_type of a multicast copy */

typedef struct {
    PyObject_HEAD
    long long port, priority, length, pkt_length, truncate; /* truncate -1: none */
    PyObject *data; Py_ssize_t pos;
    pkt_t pkt;
} job_t;

static PyMemberDef job_members[] = {
    {"port", T_LONGLONG, offsetof(job_t, port), 0, "egress port"},
    {"priority", T_LONGLONG, offsetof(job_t, priority), 0, "standard_metadata.priority"},
    {"length", T_LONGLONG, offsetof(job_t, length), 0, "length at ingress"},
    {"pkt_length", T_LONGLONG, offsetof(job_t, pkt_length), 0, "egress packet_length"},
    {"truncate", T_LONGLONG, offsetof(job_t, truncate), 0, "-1: none"},
    {NULL}
};

static void job_dealloc(job_t *j) { Py_XDECREF(j->data); Py_TYPE(j)->tp_free((PyObject *)j); }

static PyTypeObject JobType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "p4emu_native.Job", .tp_basicsize = sizeof(job_t),
    .tp_dealloc = (destructor)job_dealloc, .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_members = job_members, .tp_doc = "a packet between the traffic manager and egress",
};

static int check_dirty(st_t *st) {
    /* a table or action profile changed in Python: reload its C copy first */
    if (st->dirty && st->dirty[0]) {
        PyObject *r = PyObject_CallNoArgs(st->refresh);
        if (!r) return -1;
        Py_DECREF(r);
    }
    return 0;
}

/* ingress pass of a received packet (Pipeline._ingress_pass, NORMAL instance only);
 * returns 1 when it leaves for egress_spec, 2 when it goes to multicast group mcast_grp,
 * 0 when dropped, -1 on error */
static int run_ingress(st_t *st, pkt_t *P, uint64_t port, const uint8_t *data, Py_ssize_t n,
                       uint64_t now) {
    memset(P, 0, sizeof *P);
    P->sm.f_ingress_port = port;
    P->sm.f_ingress_global_timestamp = now;
    P->sm.f_packet_length = (uint64_t)n;
    P->length = (uint64_t)n; P->now_us = now; P->trunc = -1;
    P->data = data; P->dlen = n; P->pos = 0;
    int err = 0;
    if (prog_parse(st, P, &err) < 0) return -1;
    P->sm.f_parser_error = (uint64_t)err;
    P->pl = data + P->pos; P->pllen = n - P->pos;
    if (prog_verify(st, P) < 0) return -1;
    P->sm.f_checksum_error = (uint64_t)P->checksum_error;
    P->length = P->sm.f_packet_length;
    if (prog_ingress(st, P) < 0) return -1;
    if (P->sm.f_mcast_grp != 0) return 2;  /* before the drop port, as BMv2 */
    if (P->sm.f_egress_spec == DROP_PORT) return 0;
    P->sm.f_instance_type = 0;
    return 1;
}

/* the egress pass of a packet (Pipeline._egress_pass): a new reference to the frame it
 * sends, or to None when egress drops it. `data`, when not NULL, is the bytes object the
 * payload lies in: if nothing else holds it (a job's own frame, gone from the wire) and
 * the deparsed headers are as long as the parsed ones, they are written over its own
 * rather than every byte of the frame copied per hop; no one can see the change. */
static PyObject *egress_frame(st_t *st, pkt_t *P, long long port, long long length,
                              long long pkt_length, long long job_trunc, PyObject *data,
                              const uint8_t *payload, Py_ssize_t plen, uint64_t enq_ts,
                              uint64_t enq_qdepth, uint64_t deq_td, uint64_t deq_qdepth,
                              uint64_t now) {
    P->sm.f_egress_port = (uint64_t)port;
    P->sm.f_egress_spec = 0;
    P->sm.f_packet_length = (uint64_t)pkt_length;
    P->sm.f_egress_global_timestamp = now;
    P->sm.f_enq_timestamp = enq_ts & 0xFFFFFFFFu;
    P->sm.f_enq_qdepth = enq_qdepth;
    P->sm.f_deq_timedelta = deq_td & 0xFFFFFFFFu;
    P->sm.f_deq_qdepth = deq_qdepth;
    P->length = (uint64_t)length; P->len_delta = 0; P->trunc = -1; P->now_us = now;
    P->pl = payload; P->pllen = plen;
    if (prog_egress(st, P) < 0) return NULL;
    long long trunc = P->trunc;
    if (job_trunc >= 0) trunc = trunc < 0 ? job_trunc : (trunc < job_trunc ? trunc : job_trunc);
    if (P->sm.f_egress_spec == DROP_PORT) Py_RETURN_NONE;
    if (prog_compute(st, P) < 0) return NULL;
    uint8_t hdrs[DEPARSE_MAX + 1];
    Py_ssize_t h = prog_deparse(st, P, hdrs);
    if (h < 0) return NULL;
    Py_ssize_t total = h + plen;
    if (trunc >= 0 && trunc < total) total = trunc;
    if (data && total == h + plen && PyBytes_CheckExact(data) && Py_REFCNT(data) == 1
        && (const uint8_t *)PyBytes_AS_STRING(data) + h == payload) {
        memcpy(PyBytes_AS_STRING(data), hdrs, (size_t)h);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
        ((PyBytesObject *)data)->ob_shash = -1;  /* other bytes now: a cached hash goes */
#pragma GCC diagnostic pop
        return Py_NewRef(data);
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, total);
    if (!out) return NULL;
    char *o = PyBytes_AS_STRING(out);
    Py_ssize_t hc = h < total ? h : total;
    memcpy(o, hdrs, (size_t)hc);
    if (total > hc) memcpy(o + hc, payload, (size_t)(total - hc));
    return out;
}

/* egress_frame's result (stolen) as the Python entry points return it: [(port, frame)],
 * or [] when dropped */
static PyObject *as_outputs(PyObject *frame, long long port) {
    if (!frame) return NULL;
    if (frame == Py_None) { Py_DECREF(frame); return PyList_New(0); }
    PyObject *pair = Py_BuildValue("(LN)", port, frame);
    if (!pair) return NULL;
    PyObject *list = PyList_New(1);
    if (!list) { Py_DECREF(pair); return NULL; }
    PyList_SET_ITEM(list, 0, pair);
    return list;
}

static int get_st(PyObject *o, st_t **st);

/* The (rid, port) copies of multicast group `grp` from the switch's replication engine
 * (a call into Python: multicast frames are the controller's probes, a few a round). A
 * new reference to a list of 2-tuples of ints, or NULL with an exception set. */
static PyObject *mc_replicas(st_t *st, uint64_t grp) {
    PyObject *g = PyLong_FromUnsignedLongLong(grp);
    if (!g) return NULL;
    PyObject *r = PyObject_CallOneArg(st->replicas, g);
    Py_DECREF(g);
    if (!r) return NULL;
    PyObject *list = PySequence_List(r);
    Py_DECREF(r);
    return list;
}

/* One copy's rid and port; -1 with an exception set when it is not (int, int). */
static int replica_at(PyObject *list, Py_ssize_t i, uint64_t *rid, long long *port) {
    PyObject *item = PyList_GET_ITEM(list, i);
    if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 2) {
        PyErr_SetString(PyExc_TypeError, "replicas: (rid, port) tuples");
        return -1;
    }
    *rid = PyLong_AsUnsignedLongLongMask(PyTuple_GET_ITEM(item, 0));
    *port = PyLong_AsLongLong(PyTuple_GET_ITEM(item, 1));
    return PyErr_Occurred() ? -1 : 0;
}

/* The jobs of a multicast packet: one per copy of its group, as Pipeline._ingress_pass
 * makes them (instance_type REPLICATION, egress_rid the copy's rid, no truncation). */
static PyObject *multicast_jobs(st_t *st, job_t *base) {
    PyObject *reps = mc_replicas(st, base->pkt.sm.f_mcast_grp);
    if (!reps) return NULL;
    Py_ssize_t n = PyList_GET_SIZE(reps);
    PyObject *jobs = PyList_New(n);
    for (Py_ssize_t i = 0; jobs && i < n; i++) {
        uint64_t rid; long long eport;
        job_t *c = replica_at(reps, i, &rid, &eport) < 0 ? NULL
                   : PyObject_New(job_t, &JobType);
        if (!c) { Py_CLEAR(jobs); break; }
        c->data = Py_NewRef(base->data);
        c->pos = base->pos; c->priority = base->priority; c->length = base->length;
        c->pkt_length = base->pkt_length; c->truncate = -1; c->port = eport;
        c->pkt = base->pkt;
        c->pkt.sm.f_instance_type = INSTANCE_REPLICATION;
        c->pkt.sm.f_egress_rid = rid;
        PyList_SET_ITEM(jobs, i, (PyObject *)c);
    }
    Py_DECREF(reps);
    return jobs;
}

/* ingress of `data` (bytes) received on `port`: a new reference to its job, to a list
 * of jobs (a multicast packet's copies) or to None (dropped) */
static PyObject *ingress_jobs(st_t *st, PyObject *port_obj, PyObject *data, uint64_t now) {
    uint64_t port = PyLong_AsUnsignedLongLong(port_obj);
    if ((port == (uint64_t)-1 && PyErr_Occurred()) || check_dirty(st) < 0) return NULL;
    job_t *j = PyObject_New(job_t, &JobType);
    if (!j) return NULL;
    j->data = NULL;
    Py_ssize_t len = PyBytes_GET_SIZE(data);
    int r = run_ingress(st, &j->pkt, port, (const uint8_t *)PyBytes_AS_STRING(data), len, now);
    if (r <= 0) { Py_DECREF(j); return r < 0 ? NULL : Py_NewRef(Py_None); }
    j->data = Py_NewRef(data);
    j->pos = j->pkt.pos;
    j->port = (long long)j->pkt.sm.f_egress_spec;
    j->priority = (long long)j->pkt.sm.f_priority;
    j->length = (long long)j->pkt.length;
    j->pkt_length = (long long)((j->pkt.length + (uint64_t)j->pkt.len_delta) & 0xFFFFFFFFu);
    j->truncate = j->pkt.trunc;
    if (r == 2) {
        PyObject *copies = multicast_jobs(st, j);
        Py_DECREF(j);
        return copies;
    }
    return (PyObject *)j;
}

/* ingress(state, port, data, now_us) -> [Job] */
static PyObject *py_ingress(PyObject *m, PyObject *const *a, Py_ssize_t n) {
    st_t *st;
    if (n != 4 || get_st(a[0], &st) < 0 || !PyBytes_Check(a[2])) {
        PyErr_SetString(PyExc_TypeError, "ingress(state, port, data: bytes, now_us)");
        return NULL;
    }
    uint64_t now = PyLong_AsUnsignedLongLong(a[3]);
    if (now == (uint64_t)-1 && PyErr_Occurred()) return NULL;
    PyObject *jobs = ingress_jobs(st, a[1], a[2], now);
    if (!jobs || PyList_Check(jobs)) return jobs;
    if (jobs == Py_None) { Py_DECREF(jobs); return PyList_New(0); }
    PyObject *list = PyList_New(1);
    if (!list) { Py_DECREF(jobs); return NULL; }
    PyList_SET_ITEM(list, 0, jobs);
    return list;
}

/* egress of job `j`, on its own copy of the packet: a second egress of one job is not
 * expected */
static PyObject *job_egress(st_t *st, job_t *j, uint64_t enq_ts, uint64_t enq_qdepth,
                            uint64_t deq_td, uint64_t deq_qdepth, uint64_t now) {
    const uint8_t *d = (const uint8_t *)PyBytes_AS_STRING(j->data);
    return egress_frame(st, &j->pkt, j->port, j->length, j->pkt_length, j->truncate, j->data,
                        d + j->pos, PyBytes_GET_SIZE(j->data) - j->pos, enq_ts, enq_qdepth,
                        deq_td, deq_qdepth, now);
}

/* egress(state, job, enq_timestamp, enq_qdepth, deq_timedelta, deq_qdepth, now_us) */
static PyObject *py_egress(PyObject *m, PyObject *const *a, Py_ssize_t n) {
    st_t *st;
    if (n != 7 || get_st(a[0], &st) < 0 || !PyObject_TypeCheck(a[1], &JobType)) {
        PyErr_SetString(PyExc_TypeError, "egress(state, job, enq_ts, enq_qdepth, deq_td, deq_qdepth, now)");
        return NULL;
    }
    job_t *j = (job_t *)a[1];
    uint64_t v[5];
    for (int i = 0; i < 5; i++) v[i] = PyLong_AsUnsignedLongLongMask(a[2 + i]);
    if (PyErr_Occurred() || check_dirty(st) < 0) return NULL;
    return as_outputs(job_egress(st, j, v[0], v[1], v[2], v[3], v[4]), j->port);
}

/* process(state, port, data, now_us, priority_queues (-1: no check), queue_depth) */
static PyObject *py_process(PyObject *m, PyObject *const *a, Py_ssize_t n) {
    st_t *st;
    if (n != 6 || get_st(a[0], &st) < 0 || !PyBytes_Check(a[2])) {
        PyErr_SetString(PyExc_TypeError, "process(state, port, data: bytes, now_us, pq, depth)");
        return NULL;
    }
    uint64_t port = PyLong_AsUnsignedLongLong(a[1]), now = PyLong_AsUnsignedLongLong(a[3]);
    long long pq = PyLong_AsLongLong(a[4]);
    uint64_t depth = PyLong_AsUnsignedLongLong(a[5]);
    if (PyErr_Occurred() || check_dirty(st) < 0) return NULL;
    pkt_t P;
    const uint8_t *d = (const uint8_t *)PyBytes_AS_STRING(a[2]);
    Py_ssize_t len = PyBytes_GET_SIZE(a[2]);
    int r = run_ingress(st, &P, port, d, len, now);
    if (r <= 0) return r < 0 ? NULL : PyList_New(0);
    if (pq >= 0 && (long long)P.sm.f_priority >= pq) return PyList_New(0);
    long long pkt_length = (long long)((P.length + (uint64_t)P.len_delta) & 0xFFFFFFFFu);
    if (r == 1) {
        long long eport = (long long)P.sm.f_egress_spec;
        return as_outputs(egress_frame(st, &P, eport, (long long)P.length, pkt_length, P.trunc,
                                       NULL, d + P.pos, len - P.pos, 0, depth, 0, depth, now),
                          eport);
    }
    /* multicast: each copy through egress in the group's order, their frames in one list */
    PyObject *reps = mc_replicas(st, P.sm.f_mcast_grp);
    if (!reps) return NULL;
    PyObject *out = PyList_New(0);
    for (Py_ssize_t i = 0; out && i < PyList_GET_SIZE(reps); i++) {
        uint64_t rid; long long eport;
        if (replica_at(reps, i, &rid, &eport) < 0) { Py_CLEAR(out); break; }
        pkt_t C = P;
        C.sm.f_instance_type = INSTANCE_REPLICATION;
        C.sm.f_egress_rid = rid;
        PyObject *frames = as_outputs(
            egress_frame(st, &C, eport, (long long)P.length, pkt_length, -1, NULL, d + P.pos,
                         len - P.pos, 0, depth, 0, depth, now), eport);
        if (!frames || PyList_SetSlice(out, PY_SSIZE_T_MAX, PY_SSIZE_T_MAX, frames) < 0)
            Py_CLEAR(out);
        Py_XDECREF(frames);
    }
    Py_DECREF(reps);
    return out;
}

/* ---- the C API (pipeline_api.h): what a compiled traffic manager calls per packet ----- */
static PyObject *api_ingress(PyObject *state, PyObject *port, PyObject *frame,
                             unsigned long long now_us) {
    return ingress_jobs((st_t *)state, port, frame, now_us);
}

static void api_route(PyObject *job, long long *port, long long *priority) {
    *port = ((job_t *)job)->port;
    *priority = ((job_t *)job)->priority;
}

static PyObject *api_egress(PyObject *state, PyObject *job, unsigned long long enq_ts,
                            unsigned long long enq_qdepth, unsigned long long deq_td,
                            unsigned long long deq_qdepth, unsigned long long now_us,
                            long long *port) {
    st_t *st = (st_t *)state;
    if (check_dirty(st) < 0) return NULL;
    *port = ((job_t *)job)->port;
    return job_egress(st, (job_t *)job, enq_ts, enq_qdepth, deq_td, deq_qdepth, now_us);
}

/* ---- State: control-plane side ---------------------------------------------------- */
static PyTypeObject StateType;

static int get_st(PyObject *o, st_t **st) {
    if (!PyObject_TypeCheck(o, &StateType)) return -1;
    *st = (st_t *)o;
    return 0;
}

static PyObject *state_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
    st_t *st = (st_t *)type->tp_alloc(type, 0);
    if (!st) return NULL;
    for (int i = 0; i <= NTABLES; i++) st->tbl[i].def_action = -1;
    return (PyObject *)st;
}

static void state_dealloc(st_t *st) {
    for (int i = 0; i <= NTABLES; i++) tbl_free(&st->tbl[i]);
    for (int i = 0; i <= NREGS; i++) if (st->reg[i]) PyBuffer_Release(&st->reg_buf[i]);
    for (int i = 0; i <= NCNTS; i++) if (st->cnt[i]) PyBuffer_Release(&st->cnt_buf[i]);
    if (st->dirty) PyBuffer_Release(&st->dirty_buf);
    if (st->ports_down) PyBuffer_Release(&st->ports_buf);
    Py_XDECREF(st->randint); Py_XDECREF(st->port_up); Py_XDECREF(st->refresh);
    Py_XDECREF(st->replicas);
    Py_TYPE(st)->tp_free((PyObject *)st);
}

static int bind_buf(PyObject *obj, Py_buffer *buf, uint64_t **ptr, Py_ssize_t *n, Py_ssize_t mult) {
    if (*ptr) { PyBuffer_Release(buf); *ptr = NULL; }
    if (PyObject_GetBuffer(obj, buf, PyBUF_WRITABLE | PyBUF_FORMAT) < 0) return -1;
    if (buf->itemsize != 8) { PyBuffer_Release(buf); PyErr_SetString(PyExc_TypeError, "need array('Q')"); return -1; }
    *ptr = buf->buf;
    *n = buf->len / 8 / mult;
    return 0;
}

/* bind_register(i, array('Q')) / bind_counter(i, array('Q') of packets, bytes pairs) */
static PyObject *state_bind(st_t *st, PyObject *const *a, Py_ssize_t n, int counter) {
    long i = n == 2 ? PyLong_AsLong(a[0]) : -1;
    if (i < 0 || i >= (counter ? NCNTS : NREGS)) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_IndexError, "bad index");
        return NULL;
    }
    int r = counter ? bind_buf(a[1], &st->cnt_buf[i], &st->cnt[i], &st->cnt_n[i], 2)
                    : bind_buf(a[1], &st->reg_buf[i], &st->reg[i], &st->reg_n[i], 1);
    if (r < 0) return NULL;
    Py_RETURN_NONE;
}
static PyObject *state_bind_register(st_t *st, PyObject *const *a, Py_ssize_t n) { return state_bind(st, a, n, 0); }
static PyObject *state_bind_counter(st_t *st, PyObject *const *a, Py_ssize_t n) { return state_bind(st, a, n, 1); }

/* set_callbacks(randint, port_up, refresh, dirty: bytearray, replicas, ports_down):
 * ports_down, port_up's bitmap of down ports (bytearray) when it keeps one, else None */
static PyObject *state_set_callbacks(st_t *st, PyObject *const *a, Py_ssize_t n) {
    if (n != 6) { PyErr_SetString(PyExc_TypeError, "6 arguments"); return NULL; }
    Py_XSETREF(st->randint, Py_NewRef(a[0]));
    Py_XSETREF(st->port_up, Py_NewRef(a[1]));
    Py_XSETREF(st->refresh, Py_NewRef(a[2]));
    Py_XSETREF(st->replicas, Py_NewRef(a[4]));
    if (st->dirty) { PyBuffer_Release(&st->dirty_buf); st->dirty = NULL; }
    if (st->ports_down) { PyBuffer_Release(&st->ports_buf); st->ports_down = NULL; st->ports_nbits = 0; }
    if (PyObject_GetBuffer(a[3], &st->dirty_buf, PyBUF_WRITABLE) < 0) return NULL;
    st->dirty = st->dirty_buf.buf;
    if (a[5] != Py_None) {
        if (PyObject_GetBuffer(a[5], &st->ports_buf, PyBUF_SIMPLE) < 0) return NULL;
        st->ports_down = st->ports_buf.buf;
        st->ports_nbits = (uint64_t)st->ports_buf.len * 8;
    }
    Py_RETURN_NONE;
}

static void *copy_bytes(PyObject *b, Py_ssize_t *words) {
    Py_ssize_t len = PyBytes_GET_SIZE(b);
    *words = len / 8;
    void *p = malloc(len ? (size_t)len : 8);
    if (p) memcpy(p, PyBytes_AS_STRING(b), (size_t)len);
    return p;
}

/* A group's members are expanded into selection slots (one per unit of weight) when
 * its total weight is at most this; a heavier group (P4Runtime weights are int32, and a
 * selector without @max_group_size caps nothing) is selected by walking its members,
 * as a group with watch ports is: the same choice, without a slot array the size of the
 * weights. */
#define MAX_SLOTS 4096

/* load_table(i, nk, mode, levels, records, def_action, def_args, gstart, gmem, ranges):
 * byte strings of native uint64 words (p4emu/native/sync.py) */
static PyObject *state_load_table(st_t *st, PyObject *const *a, Py_ssize_t n) {
    if (n != 10) { PyErr_SetString(PyExc_TypeError, "10 arguments"); return NULL; }
    long i = PyLong_AsLong(a[0]);
    int nk = (int)PyLong_AsLong(a[1]), mode = (int)PyLong_AsLong(a[2]);
    int def = (int)PyLong_AsLong(a[5]);
    if (PyErr_Occurred()) return NULL;
    if (i < 0 || i >= NTABLES || nk < 0 || nk > 16) { PyErr_SetString(PyExc_IndexError, "bad table"); return NULL; }
    for (int k = 3; k < 10; k++) if (k != 5 && !PyBytes_Check(a[k])) {
        PyErr_SetString(PyExc_TypeError, "bytes expected"); return NULL; }
    tbl_t *t = &st->tbl[i];
    tbl_free(t);
    Py_ssize_t w;
    t->nk = nk; t->mode = mode;
    t->levels = copy_bytes(a[3], &w); t->nlevels = nk ? (int)(w / nk) : (int)(w > 0);
    if (!nk) t->nlevels = 1;
    t->rec = copy_bytes(a[4], &w); t->n = (int)(w / REC_WORDS(nk));
    t->hits = calloc((size_t)t->n * 2 + 2, sizeof(uint64_t));
    t->def_action = def;
    Py_ssize_t dw;
    uint64_t *da = copy_bytes(a[6], &dw);
    if (!t->levels || !t->rec || !t->hits || !da) { free(da); goto nomem; }
    for (Py_ssize_t k = 0; k < dw && k < MAXA; k++) t->def_args[k] = da[k];
    free(da);
    Py_ssize_t gw;
    t->gstart = copy_bytes(a[7], &gw);
    t->ngroups = gw > 0 ? (int)gw - 1 : 0;
    t->gmem = copy_bytes(a[8], &w);
    if (PyBytes_GET_SIZE(a[9]) && !(t->ranges = copy_bytes(a[9], &w))) goto nomem;
    t->slots = calloc((size_t)t->ngroups + 1, sizeof(int32_t *));
    t->nslots = calloc((size_t)t->ngroups + 1, sizeof(int32_t));
    if (!t->gstart || !t->gmem || !t->slots || !t->nslots) goto nomem;
    for (int g = 0; g < t->ngroups; g++) {
        int walk = 0; uint64_t total = 0;
        for (int64_t m = t->gstart[g]; m < t->gstart[g + 1]; m++) {
            if ((int64_t)t->gmem[m * GMEM_WORDS + 1] >= 0) walk = 1;  /* watched */
            total += t->gmem[m * GMEM_WORDS + 2];
        }
        if (walk || total > MAX_SLOTS) continue;  /* p4_select walks the members */
        t->slots[g] = malloc(sizeof(int32_t) * (total + 1));
        if (!t->slots[g]) goto nomem;
        int32_t s = 0;
        for (int64_t m = t->gstart[g]; m < t->gstart[g + 1]; m++)
            for (uint64_t k = 0; k < t->gmem[m * GMEM_WORDS + 2]; k++) t->slots[g][s++] = (int32_t)m;
        t->nslots[g] = s;
    }
    if (mode == M_HASH && tbl_build_index(t) < 0) goto nomem;
    Py_RETURN_NONE;
nomem:
    tbl_free(t);  /* an empty table (every lookup a miss) rather than a half-built one */
    return PyErr_NoMemory();
}

/* take_hits(i) -> bytes of (packets, bytes) per entry since the last call */
static PyObject *state_take_hits(st_t *st, PyObject *const *a, Py_ssize_t n) {
    long i = n == 1 ? PyLong_AsLong(a[0]) : -1;
    if (i < 0 || i >= NTABLES) { if (!PyErr_Occurred()) PyErr_SetString(PyExc_IndexError, "bad table"); return NULL; }
    tbl_t *t = &st->tbl[i];
    PyObject *r = PyBytes_FromStringAndSize((const char *)t->hits, (Py_ssize_t)t->n * 16);
    if (r && t->hits) memset(t->hits, 0, (size_t)t->n * 16);
    return r;
}

static PyMethodDef state_methods[] = {
    {"bind_register", (PyCFunction)(void (*)(void))state_bind_register, METH_FASTCALL, NULL},
    {"bind_counter", (PyCFunction)(void (*)(void))state_bind_counter, METH_FASTCALL, NULL},
    {"set_callbacks", (PyCFunction)(void (*)(void))state_set_callbacks, METH_FASTCALL, NULL},
    {"load_table", (PyCFunction)(void (*)(void))state_load_table, METH_FASTCALL, NULL},
    {"take_hits", (PyCFunction)(void (*)(void))state_take_hits, METH_FASTCALL, NULL},
    {NULL}
};

static PyTypeObject StateType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "p4emu_native.State", .tp_basicsize = sizeof(st_t),
    .tp_dealloc = (destructor)state_dealloc, .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = state_new, .tp_methods = state_methods, .tp_doc = "one switch's pipeline state",
};

static PyMethodDef module_methods[] = {
    {"ingress", (PyCFunction)(void (*)(void))py_ingress, METH_FASTCALL, NULL},
    {"egress", (PyCFunction)(void (*)(void))py_egress, METH_FASTCALL, NULL},
    {"process", (PyCFunction)(void (*)(void))py_process, METH_FASTCALL, NULL},
    {NULL}
};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, MODULE_NAME_STR, NULL, -1, module_methods};

PyMODINIT_FUNC MODULE_INIT(void) {
    p4_hash_init();
    if (PyType_Ready(&StateType) < 0 || PyType_Ready(&JobType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m) return NULL;
    Py_INCREF(&StateType); PyModule_AddObject(m, "State", (PyObject *)&StateType);
    Py_INCREF(&JobType); PyModule_AddObject(m, "Job", (PyObject *)&JobType);
    static p4n_api_t api = {P4N_API_VERSION, &StateType, &JobType, api_ingress, api_route,
                            api_egress};
    PyObject *capsule = PyCapsule_New(&api, P4N_API_CAPSULE, NULL);
    if (!capsule || PyModule_AddObject(m, "c_api", capsule) < 0) {
        Py_XDECREF(capsule); Py_DECREF(m); return NULL;
    }
    return m;
}
