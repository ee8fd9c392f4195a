/* The traffic manager's egress queues and serve loop in C: the semantics of
 * p4emu/switch/queues.py (PortQueues, the reference) and of TrafficManager's offer loop
 * and _serve_egress, line for line, so that records are the same either way.
 * p4emu/native/tm.py joins it with tm_serve.c and tm_server.c and builds the three
 * (p4emu.native.build: gcc, cache keyed by source hash).
 * Per packet the only calls out of C are the pipeline's ingress and egress (the native
 * module's FASTCALL entry points when the pipeline is compiled) and the send of each
 * frame; errors, the CPU port and pcaps go through the Python TrafficManager. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

/* set by setup(): the Python record types and drop reasons, so results compare equal */
static PyObject *Enqueued, *Dequeued, *QUEUE_FULL, *BAD_PRIORITY, *egress_kwnames;

typedef struct { PyObject *item; long long enq_ts, enq_qdepth; double arrival; } entry_t;
typedef struct { entry_t *buf; Py_ssize_t head, len, cap; long long depth; } fifo_t;

typedef struct {
    PyObject_HEAD
    fifo_t *fifos; int nprio;
    double busy_until, rate_pps, line_rate_bps;
    long long queued, enqueued, dequeued, full_drops, bad_drops, port;
    PyObject *config; /* the QueueConfig: read again by reconfigure() */
} q_t;

static PyTypeObject QueuesType;

static entry_t *fifo_at(fifo_t *f, Py_ssize_t i) { return &f->buf[(f->head + i) % f->cap]; }

static int fifo_push(fifo_t *f, entry_t e) {
    /* grown as it fills: depth limits change at run time */
    entry_t *buf = grow_ring(f->buf, f->head, f->len, &f->cap, sizeof *buf, 16);
    if (!buf) return -1;
    f->buf = buf;
    f->buf[(f->head + f->len) % f->cap] = e;
    f->len++;
    return 0;
}

static entry_t fifo_popleft(fifo_t *f) {
    entry_t e = f->buf[f->head];
    f->head = (f->head + 1) % f->cap;
    f->len--;
    return e;
}

/* QueueConfig -> the cached limits (depth_of per priority, rate, line rate) */
static int q_reconfigure(q_t *q) {
    PyObject *c = q->config, *depth = NULL, *rate = NULL, *line = NULL, *pd = NULL;
    int rc = -1;
    if (!(depth = PyObject_GetAttrString(c, "depth")) || !(rate = PyObject_GetAttrString(c, "rate_pps"))
        || !(line = PyObject_GetAttrString(c, "line_rate_bps"))
        || !(pd = PyObject_GetAttrString(c, "priority_depths"))) goto out;
    long long d = PyLong_AsLongLong(depth);
    double r = PyFloat_AsDouble(rate), l = PyFloat_AsDouble(line);
    if (PyErr_Occurred()) goto out;
    for (int p = 0; p < q->nprio; p++) {
        PyObject *key = PyLong_FromLong(p);
        if (!key) goto out;
        PyObject *v = PyDict_Check(pd) ? PyDict_GetItemWithError(pd, key) : NULL;
        Py_DECREF(key);
        if (PyErr_Occurred()) goto out;
        q->fifos[p].depth = v ? PyLong_AsLongLong(v) : d;
        if (PyErr_Occurred()) goto out;
    }
    q->rate_pps = r; q->line_rate_bps = l;
    rc = 0;
out:
    Py_XDECREF(depth); Py_XDECREF(rate); Py_XDECREF(line); Py_XDECREF(pd);
    return rc;
}

static double service_time(q_t *q, long long bytes) {
    /* QueueConfig.service_time_us, the same double arithmetic */
    double by_rate = q->rate_pps > 0 ? 1e6 / q->rate_pps : 0.0;
    double by_line = q->line_rate_bps > 0 ? (double)bytes * 8e6 / q->line_rate_bps : 0.0;
    return by_line > by_rate ? by_line : by_rate;
}

/* 0 queued, 1 full, 2 bad priority, -1 error; *qdepth: enq_qdepth */
static int q_offer(q_t *q, PyObject *item, long long prio, double now, long long *qdepth) {
    if (prio < 0 || prio >= q->nprio) { q->bad_drops++; return 2; }
    fifo_t *f = &q->fifos[prio];
    if (f->len >= f->depth) { q->full_drops++; return 1; }
    entry_t e = {item, (long long)now, (long long)f->len, now};
    if (fifo_push(f, e) < 0) return -1;
    Py_INCREF(item);
    q->queued++; q->enqueued++;
    *qdepth = e.enq_qdepth;
    return 0;
}

/* next_ready_us; 0 when empty */
static int q_next_ready(q_t *q, double *ready) {
    int found = 0; double arrival = 0;
    for (int p = 0; p < q->nprio; p++) {
        fifo_t *f = &q->fifos[p];
        if (f->len) {
            double head = f->buf[f->head].arrival;
            if (!found || head < arrival) arrival = head;
            found = 1;
        }
    }
    if (!found) return 0;
    *ready = q->busy_until > arrival ? q->busy_until : arrival;
    return 1;
}

typedef struct { PyObject *item; long long prio, enq_ts, enq_qdepth, deq_td, deq_qdepth; double start; } deq_t;

/* start_service: the caller holds a due ready time; the item's reference passes on */
static int q_start(q_t *q, double start, deq_t *d) {
    for (int p = q->nprio - 1; p >= 0; p--) {
        fifo_t *f = &q->fifos[p];
        if (f->len && f->buf[f->head].arrival <= start) {
            entry_t e = fifo_popleft(f);
            q->dequeued++; q->queued--;
            q->busy_until = start;
            long long td = (long long)start - e.enq_ts;
            *d = (deq_t){e.item, p, e.enq_ts, e.enq_qdepth, td > 0 ? td : 0, (long long)f->len, start};
            return 0;
        }
    }
    PyErr_Format(PyExc_ValueError, "no packet has arrived by %d us", (int)start);
    return -1;
}

static void q_charge(q_t *q, double start, long long bytes) {
    double end = start + service_time(q, bytes);
    if (end > q->busy_until) q->busy_until = end;
}

static Py_ssize_t q_clear(q_t *q) {
    Py_ssize_t n = 0;
    for (int p = 0; p < q->nprio; p++) {
        fifo_t *f = &q->fifos[p];
        while (f->len) { entry_t e = fifo_popleft(f); Py_DECREF(e.item); n++; }
    }
    q->queued = 0;
    return n;
}

/* ---- the Python face of one port's queues: PortQueues' interface ------------------- */
static PyObject *queues_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
    static char *names[] = {"config", "priorities", "port", NULL};
    PyObject *config; int prio = 1; long long port = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|iL", names, &config, &prio, &port)) return NULL;
    if (prio < 1) { PyErr_SetString(PyExc_ValueError, "priorities must be >= 1"); return NULL; }
    q_t *q = (q_t *)type->tp_alloc(type, 0);
    if (!q) return NULL;
    q->fifos = PyMem_Calloc((size_t)prio, sizeof(fifo_t));
    if (!q->fifos) { Py_DECREF(q); return PyErr_NoMemory(); }
    q->nprio = prio; q->port = port;
    q->config = Py_NewRef(config);
    if (q_reconfigure(q) < 0) { Py_DECREF(q); return NULL; }
    return (PyObject *)q;
}

static void queues_dealloc(q_t *q) {
    if (q->fifos) {
        q_clear(q);
        for (int p = 0; p < q->nprio; p++) PyMem_Free(q->fifos[p].buf);
        PyMem_Free(q->fifos);
    }
    Py_XDECREF(q->config);
    Py_TYPE(q)->tp_free((PyObject *)q);
}

static PyObject *enqueued_record(long long ts, long long qd) {
    return PyObject_CallFunction(Enqueued, "LL", ts, qd);
}

static PyObject *queues_offer(q_t *q, PyObject *args, PyObject *kw) {
    static char *names[] = {"item", "priority", "now_us", NULL};
    PyObject *item; long long prio, qd = 0; double now;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O$Ld", names, &item, &prio, &now)) return NULL;
    int r = q_offer(q, item, prio, now, &qd);
    if (r < 0) return NULL;
    if (r == 1) return Py_NewRef(QUEUE_FULL);
    if (r == 2) return Py_NewRef(BAD_PRIORITY);
    return enqueued_record((long long)now, qd);
}

static PyObject *queues_next_ready(q_t *q, PyObject *unused) {
    double ready;
    if (!q_next_ready(q, &ready)) Py_RETURN_NONE;
    return PyFloat_FromDouble(ready);
}

static PyObject *dequeued_record(deq_t *d) {
    /* takes over d->item's reference */
    PyObject *r = PyObject_CallFunction(Dequeued, "OLLLLLd", d->item, d->prio, d->enq_ts,
                                        d->enq_qdepth, d->deq_td, d->deq_qdepth, d->start);
    Py_DECREF(d->item);
    return r;
}

static PyObject *queues_start_service(q_t *q, PyObject *arg) {
    double start = PyFloat_AsDouble(arg);
    deq_t d;
    if ((start == -1.0 && PyErr_Occurred()) || q_start(q, start, &d) < 0) return NULL;
    return dequeued_record(&d);
}

static PyObject *queues_pop(q_t *q, PyObject *arg) {
    double now = PyFloat_AsDouble(arg), ready;
    if (now == -1.0 && PyErr_Occurred()) return NULL;
    if (!q->queued || !q_next_ready(q, &ready) || ready > now) Py_RETURN_NONE;
    deq_t d;
    if (q_start(q, ready, &d) < 0) return NULL;
    return dequeued_record(&d);
}

static PyObject *queues_charge(q_t *q, PyObject *const *a, Py_ssize_t n) {
    if (n != 2) { PyErr_SetString(PyExc_TypeError, "charge(dequeued, sent_bytes)"); return NULL; }
    PyObject *start = PyObject_GetAttrString(a[0], "start_us");
    if (!start) return NULL;
    double s = PyFloat_AsDouble(start);
    Py_DECREF(start);
    long long bytes = PyLong_AsLongLong(a[1]);
    if (PyErr_Occurred()) return NULL;
    q_charge(q, s, bytes);
    Py_RETURN_NONE;
}

static PyObject *queues_clear(q_t *q, PyObject *unused) { return PyLong_FromSsize_t(q_clear(q)); }

static PyObject *queues_reconfigure_m(q_t *q, PyObject *unused) {
    if (q_reconfigure(q) < 0) return NULL;
    Py_RETURN_NONE;
}

static PyObject *get_depth(q_t *q, void *c) { return PyLong_FromLongLong(q->queued); }
static PyObject *get_busy(q_t *q, void *c) { return PyFloat_FromDouble(q->busy_until); }
static int set_busy(q_t *q, PyObject *v, void *c) {
    double b = v ? PyFloat_AsDouble(v) : -1.0;
    if (!v || (b == -1.0 && PyErr_Occurred())) { if (!v) PyErr_SetString(PyExc_TypeError, "no delete"); return -1; }
    q->busy_until = b;
    return 0;
}
static PyObject *get_config(q_t *q, void *c) { return Py_NewRef(q->config); }
static int set_config(q_t *q, PyObject *v, void *c) {
    if (!v) { PyErr_SetString(PyExc_TypeError, "no delete"); return -1; }
    Py_SETREF(q->config, Py_NewRef(v));
    return q_reconfigure(q);
}
static PyObject *get_drops(q_t *q, void *c) {
    return Py_BuildValue("{OLOL}", QUEUE_FULL, q->full_drops, BAD_PRIORITY, q->bad_drops);
}
static PyObject *get_fifos(q_t *q, void *c) {
    /* a snapshot: lists of the queued items per priority (for len() and inspection) */
    PyObject *out = PyList_New(q->nprio);
    for (int p = 0; out && p < q->nprio; p++) {
        fifo_t *f = &q->fifos[p];
        PyObject *l = PyList_New(f->len);
        if (!l) { Py_CLEAR(out); break; }
        for (Py_ssize_t i = 0; i < f->len; i++) PyList_SET_ITEM(l, i, Py_NewRef(fifo_at(f, i)->item));
        PyList_SET_ITEM(out, p, l);
    }
    return out;
}

static PyMethodDef queues_methods[] = {
    {"offer", (PyCFunction)(void (*)(void))queues_offer, METH_VARARGS | METH_KEYWORDS, "PortQueues.offer"},
    {"next_ready_us", (PyCFunction)queues_next_ready, METH_NOARGS, "PortQueues.next_ready_us"},
    {"pop", (PyCFunction)queues_pop, METH_O, "PortQueues.pop"},
    {"start_service", (PyCFunction)queues_start_service, METH_O, "PortQueues.start_service"},
    {"charge", (PyCFunction)(void (*)(void))queues_charge, METH_FASTCALL, "PortQueues.charge"},
    {"clear", (PyCFunction)queues_clear, METH_NOARGS, "PortQueues.clear"},
    {"reconfigure", (PyCFunction)queues_reconfigure_m, METH_NOARGS, "read config again"},
    {NULL}
};

static PyMemberDef queues_members[] = {
    {"queued", T_LONGLONG, offsetof(q_t, queued), READONLY, NULL},
    {"enqueued", T_LONGLONG, offsetof(q_t, enqueued), READONLY, NULL},
    {"dequeued", T_LONGLONG, offsetof(q_t, dequeued), READONLY, NULL},
    {"port", T_LONGLONG, offsetof(q_t, port), READONLY, NULL},
    {NULL}
};

static PyGetSetDef queues_getset[] = {
    {"depth", (getter)get_depth, NULL, NULL, NULL},
    {"busy_until_us", (getter)get_busy, (setter)set_busy, NULL, NULL},
    {"config", (getter)get_config, (setter)set_config, NULL, NULL},
    {"drops", (getter)get_drops, NULL, NULL, NULL},
    {"fifos", (getter)get_fifos, NULL, NULL, NULL},
    {NULL}
};

static PyTypeObject QueuesType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "p4emu_tm.PortQueues", .tp_basicsize = sizeof(q_t),
    .tp_dealloc = (destructor)queues_dealloc, .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = queues_new, .tp_methods = queues_methods, .tp_members = queues_members,
    .tp_getset = queues_getset, .tp_doc = "one egress port's strict-priority FIFOs and server",
};
/* tm_serve.c follows (p4emu/native/tm.py joins the files) */
