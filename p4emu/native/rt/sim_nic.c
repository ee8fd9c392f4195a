/* Host NICs inside a SimLoop (joined after sim_fabric.c): mrclab.sim.links.NicQueue on
 * a wire of the loop, to the event. Control frames (`urgent`) go ahead of queued DATA,
 * DATA of several connections (`flow`) in turn, one frame on the wire at a time at the
 * wire's rate; a veth sends at once. The queues are the loop's (nic_t); a host sends
 * through a `SimNic`, the handle add_nic returns, without a Python frame per packet.
 * Each function names the Python it does the work of: the two must stay in step, which
 * tests/unit/sim/test_native_fabric.py checks on every experiment. */

/* a FIFO of frames (owned references) */
typedef struct { PyObject **item; Py_ssize_t head, len, cap; } frames_t;

static int frames_push(frames_t *f, PyObject *frame) {
    PyObject **item = grow_ring(f->item, f->head, f->len, &f->cap, sizeof *item, 8);
    if (!item) return -1;
    f->item = item;
    f->item[(f->head + f->len) % f->cap] = Py_NewRef(frame);
    f->len++;
    return 0;
}

static PyObject *frames_pop(frames_t *f) {
    PyObject *frame = f->item[f->head];
    f->head = (f->head + 1) % f->cap;
    f->len--;
    return frame;
}

static void frames_clear(frames_t *f) {
    while (f->len) { PyObject *frame = frames_pop(f); Py_DECREF(frame); }
    PyMem_Free(f->item);
    *f = (frames_t){0};
}

/* one connection's queued DATA; flow NULL: a free slot */
typedef struct { frames_t frames; PyObject *flow; } flowq_t;

struct nic_s {
    int wire, veth;                 /* veth: the lab's hosts, no rate of their own */
    double rate_bps;
    double free_at;                 /* NicQueue._free_at */
    int pending;                    /* NicQueue._pending: an EV_NIC is scheduled */
    frames_t urgent;                /* NicQueue._urgent */
    PyObject *slot_of;              /* flow -> its slot (int): NicQueue._data's keys */
    flowq_t *slots; Py_ssize_t nslots, cap_slots;   /* _data's queues; slot numbers are int */
    int *free_slots; Py_ssize_t nfree, cap_free;
    int *turns; Py_ssize_t thead, tlen, tcap;        /* NicQueue._turns, as slots */
    Py_ssize_t data_count;
};

static int turns_push(nic_t *c, int slot) {
    int *turns = grow_ring(c->turns, c->thead, c->tlen, &c->tcap, sizeof *turns, 8);
    if (!turns) return -1;
    c->turns = turns;
    c->turns[(c->thead + c->tlen) % c->tcap] = slot;
    c->tlen++;
    return 0;
}

/* a slot for `flow` (its queue empty): a free one, else a new one; -1 on error */
static int slot_new(nic_t *c, PyObject *flow) {
    int slot;
    if (c->nfree) slot = c->free_slots[--c->nfree];
    else {  /* free_slots may come to hold every slot */
        flowq_t *s = grow_items(c->slots, c->nslots, &c->cap_slots, sizeof *s, 8, INT_MAX);
        if (!s) return -1;
        c->slots = s;
        int *f = grow_items(c->free_slots, c->nslots, &c->cap_free, sizeof *f, 8, INT_MAX);
        if (!f) return -1;
        c->free_slots = f;
        slot = (int)c->nslots++;
        c->slots[slot] = (flowq_t){{0}, NULL};
    }
    PyObject *index = PyLong_FromLong(slot);
    if (!index || PyDict_SetItem(c->slot_of, flow, index) < 0) {
        Py_XDECREF(index); c->free_slots[c->nfree++] = slot; return -1;
    }
    Py_DECREF(index);
    c->slots[slot].flow = Py_NewRef(flow);
    return slot;
}

/* NicQueue._take: the next frame (a new reference), control first, then DATA of the
 * connection whose turn it is; NULL when none (no exception) or on error */
static PyObject *nic_take(nic_t *c) {
    if (c->urgent.len) return frames_pop(&c->urgent);
    if (!c->tlen) return NULL;
    int slot = c->turns[c->thead];
    flowq_t *q = &c->slots[slot];
    PyObject *frame = frames_pop(&q->frames);
    c->data_count--;
    c->thead = (c->thead + 1) % c->tcap;
    c->tlen--;
    if (q->frames.len) {  /* its turn again after the others' */
        if (turns_push(c, slot) < 0) { Py_DECREF(frame); return NULL; }
        return frame;
    }
    PyObject *flow = q->flow;  /* done: `del self._data[flow]` */
    q->flow = NULL;
    c->free_slots[c->nfree++] = slot;
    int r = PyDict_DelItem(c->slot_of, flow);
    Py_DECREF(flow);
    if (r < 0) { Py_DECREF(frame); return NULL; }
    return frame;
}

/* NicQueue._next: the next frame on the wire if it is free, else come back when it is */
static int nic_next(sim_t *L, int index) {
    nic_t *c = L->nics[index];
    double now = L->now;
    if (c->free_at > now) {
        c->pending = 1;
        return sim_push(L, c->free_at, EV_NIC, index, NULL, NULL);
    }
    c->pending = 0;
    PyObject *frame = nic_take(c);
    if (!frame) return PyErr_Occurred() ? -1 : 0;
    Py_ssize_t len = PyBytes_CheckExact(frame) ? PyBytes_GET_SIZE(frame) : PyObject_Length(frame);
    if (len < 0) { Py_DECREF(frame); return -1; }
    c->free_at = now + (double)(len * 8) / c->rate_bps;
    int r = wire_send(L, c->wire, frame, now);
    Py_DECREF(frame);
    if (r < 0) return -1;
    c = L->nics[index];
    if (c->urgent.len || c->tlen) {
        c->pending = 1;
        return sim_push(L, c->free_at, EV_NIC, index, NULL, NULL);
    }
    return 0;
}

/* NicQueue.send(frame, urgent, flow) */
static int nic_send(sim_t *L, int index, PyObject *frame, int urgent, PyObject *flow) {
    nic_t *c = L->nics[index];
    if (c->veth) return wire_send(L, c->wire, frame, L->now);
    if (urgent) {
        if (frames_push(&c->urgent, frame) < 0) return -1;
    } else {
        PyObject *found = PyDict_GetItemWithError(c->slot_of, flow);
        int slot;
        if (found) slot = (int)PyLong_AsLong(found);
        else if (PyErr_Occurred()) return -1;
        else {
            if ((slot = slot_new(c, flow)) < 0) return -1;
            if (turns_push(c, slot) < 0) return -1;
        }
        if (frames_push(&c->slots[slot].frames, frame) < 0) return -1;
        c->data_count++;
    }
    return c->pending ? 0 : nic_next(L, index);
}

static void nic_free(nic_t *c) {
    frames_clear(&c->urgent);
    for (Py_ssize_t s = 0; s < c->nslots; s++) {
        frames_clear(&c->slots[s].frames);
        Py_CLEAR(c->slots[s].flow);
    }
    Py_CLEAR(c->slot_of);
    PyMem_Free(c->slots); PyMem_Free(c->free_slots); PyMem_Free(c->turns);
    PyMem_Free(c);
}

static int nic_traverse(nic_t *c, visitproc visit, void *arg) {
    for (Py_ssize_t i = 0; i < c->urgent.len; i++)
        Py_VISIT(c->urgent.item[(c->urgent.head + i) % c->urgent.cap]);
    for (Py_ssize_t s = 0; s < c->nslots; s++) {
        frames_t *f = &c->slots[s].frames;
        for (Py_ssize_t i = 0; i < f->len; i++) Py_VISIT(f->item[(f->head + i) % f->cap]);
        Py_VISIT(c->slots[s].flow);
    }
    Py_VISIT(c->slot_of);
    return 0;
}

/* ---- SimNic: a host's handle on its NIC's queue --------------------------------------- */

typedef struct {
    PyObject_HEAD
    sim_t *loop;
    int index;
} simnic_t;

static PyTypeObject SimNicType;

static nic_t *simnic_get(simnic_t *h) {
    if (h->index >= h->loop->nnics) { PyErr_SetString(PyExc_RuntimeError, "the loop was cleared"); return NULL; }
    return h->loop->nics[h->index];
}

static PyObject *s_urgent, *s_flow;  /* interned at module init */

/* send(frame, urgent=False, flow=None): NicQueue.send */
static PyObject *simnic_send(simnic_t *h, PyObject *const *a, size_t nargsf, PyObject *kw) {
    Py_ssize_t n = PyVectorcall_NARGS(nargsf), nkw = kw ? PyTuple_GET_SIZE(kw) : 0;
    PyObject *v[3] = {NULL, Py_False, Py_None};
    if (n < 1 || n > 3) goto usage;
    for (Py_ssize_t i = 0; i < n; i++) v[i] = a[i];
    for (Py_ssize_t i = 0; i < nkw; i++) {
        PyObject *name = PyTuple_GET_ITEM(kw, i);
        int at = name == s_urgent || PyUnicode_Compare(name, s_urgent) == 0 ? 1
                 : name == s_flow || PyUnicode_Compare(name, s_flow) == 0 ? 2 : -1;
        if (at < 0 || at < n) goto usage;
        v[at] = a[n + i];
    }
    if (!simnic_get(h)) return NULL;
    int urgent = PyObject_IsTrue(v[1]);
    if (urgent < 0 || nic_send(h->loop, h->index, v[0], urgent, v[2]) < 0) return NULL;
    Py_RETURN_NONE;
usage:
    PyErr_SetString(PyExc_TypeError, "send(frame, urgent=False, flow=None)");
    return NULL;
}

/* backlog: frames waiting for the wire (not the one on it), as NicQueue.backlog */
static PyObject *simnic_backlog(simnic_t *h, void *unused) {
    nic_t *c = simnic_get(h);
    return c ? PyLong_FromSsize_t(c->data_count + c->urgent.len) : NULL;
}

static void simnic_dealloc(simnic_t *h) {
    Py_XDECREF(h->loop);
    Py_TYPE(h)->tp_free((PyObject *)h);
}

static PyMethodDef simnic_methods[] = {
    {"send", (PyCFunction)(void (*)(void))simnic_send, METH_FASTCALL | METH_KEYWORDS,
     "send(frame, urgent=False, flow=None): NicQueue.send"},
    {NULL}
};

static PyGetSetDef simnic_getset[] = {
    {"backlog", (getter)simnic_backlog, NULL, "frames waiting for the wire", NULL},
    {NULL}
};

static PyTypeObject SimNicType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "p4emu_tm.SimNic", .tp_basicsize = sizeof(simnic_t),
    .tp_dealloc = (destructor)simnic_dealloc, .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = simnic_methods, .tp_getset = simnic_getset,
    .tp_doc = "a host NIC's queue in a SimLoop (mrclab.sim.links.NicQueue)",
};

/* add_nic(wire, rate_bps, veth) -> SimNic: a NIC sending on `wire` at `rate_bps` (veth:
 * at once) */
static PyObject *sim_add_nic_m(sim_t *L, PyObject *const *a, Py_ssize_t n) {
    int wire, err;
    if (n != 3) { PyErr_SetString(PyExc_TypeError, "add_nic(wire, rate_bps, veth)"); return NULL; }
    if (!wire_at(L, a[0], &wire)) return NULL;
    double rate = as_double(a[1], &err);
    int veth = err ? -1 : PyObject_IsTrue(a[2]);
    if (veth < 0) return NULL;
    nic_t **nics = grow_items(L->nics, L->nnics, &L->capn, sizeof *nics, 64, INT_MAX);
    if (!nics) return NULL;
    L->nics = nics;
    nic_t *c = PyMem_Calloc(1, sizeof(nic_t));
    if (!c) return PyErr_NoMemory();
    if (!(c->slot_of = PyDict_New())) { PyMem_Free(c); return NULL; }
    simnic_t *h = PyObject_New(simnic_t, &SimNicType);
    if (!h) { nic_free(c); return NULL; }
    c->wire = wire; c->veth = veth; c->rate_bps = rate;
    h->loop = (sim_t *)Py_NewRef(L);
    h->index = (int)L->nnics;
    L->nics[L->nnics++] = c;
    return (PyObject *)h;
}

/* sim_run.c follows: run(), the type */
