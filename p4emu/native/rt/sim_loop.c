/* SimLoop: a simulator's discrete-event loop in C, with the fabric's wires and switches
 * inside it (joined after tm_loop.c; sim_fabric.c and sim_run.c follow). It keeps the
 * semantics of mrclab/endpoint/clock.py's EventLoop to the event: one heap ordered by
 * (time, sequence), the sequence counted over every event whatever its kind, so that
 * events of equal time run in the order they were scheduled, as there. Four kinds:
 *   EV_PY     a Python callable and its arguments (EventLoop.at);
 *   EV_ARRIVE a frame at the far end of a wire (mrclab.sim.links.Wire._arrive);
 *   EV_TIMER  a switch's serve timer coming due (DeadlineTimer._due of SimSwitch);
 *   EV_NIC    a host NIC's wire free again (mrclab.sim.links.NicQueue._next).
 * A frame between two switches whose pipeline and traffic manager are compiled goes
 * wire -> ingress -> queues -> egress -> wire without a Python frame. */

/* the arithmetic below must round as CPython's does, one operation at a time: no fused
 * multiply-add (it would change arrival times by an ulp, and with them event order) */
#pragma GCC optimize ("fp-contract=off")

enum { EV_PY, EV_ARRIVE, EV_TIMER, EV_NIC };

typedef struct {
    double when;
    unsigned long long seq;
    int kind, idx;          /* idx: the wire (EV_ARRIVE), switch (EV_TIMER) or NIC (EV_NIC) */
    PyObject *obj, *args;   /* EV_PY: callable, tuple; EV_ARRIVE: the frame */
} ev_t;

typedef struct {
    double bit_time, delay, loss;   /* as Wire: 8 / rate (0 for a veth), s, probability */
    PyObject *rng_random;           /* the wire's rng.random, drawn when loss != 0 */
    PyObject *receive;              /* receive(port, frame) at the far node; NULL: a switch */
    PyObject *port;                 /* the far node's port number */
    int up, to_switch;              /* to_switch: the far switch's index, or -1 */
    unsigned long long frames, bytes, failed_dropped, random_lost;   /* WireCounters */
} wire_t;

typedef struct sim_s sim_t;
typedef struct nic_s nic_t;   /* sim_nic.c */

typedef struct {
    sim_t *sim;                     /* borrowed: the loop owns this switch */
    srv_t *server;                  /* the traffic manager's compiled server */
    double epoch;                   /* SimSwitch._epoch: loop time at the switch's start */
    long long start_ns;             /* SwitchCore's clock reading at start */
    double timer_at;                /* DeadlineTimer._at, when timer_set */
    int timer_set;
    int wire_of_port[MAXPORT];      /* -1: no wire (the frame is lost, as on BMv2) */
} fsw_t;

struct sim_s {
    PyObject_HEAD
    double now;
    long long events_run;
    unsigned long long seq;
    ev_t *heap; Py_ssize_t len, cap;
    /* indexed by int (events, ports, wires' far ends): at most INT_MAX each */
    wire_t *wires; Py_ssize_t nwires, capw;
    fsw_t **switches; Py_ssize_t nswitches, caps;
    nic_t **nics; Py_ssize_t nnics, capn;
    int python_ran;   /* Python code (not a P4 pipeline's) ran since stop() was asked */
};

static int ev_less(const ev_t *a, const ev_t *b) {
    return a->when < b->when || (a->when == b->when && a->seq < b->seq);
}

/* The events wait in a 4-ary heap: (when, seq) orders them totally, so any heap pops the
 * same sequence, and four children side by side halve the levels a pop walks down, each
 * a cache miss once a busy fabric has 10^5 events pending. */
#define HEAP_ARITY 4

/* push an event at `when` (clamped to now, as EventLoop.at does); takes new references */
static int sim_push(sim_t *L, double when, int kind, int idx, PyObject *obj, PyObject *args) {
    ev_t *heap = grow_items(L->heap, L->len, &L->cap, sizeof *heap, 1024, PY_SSIZE_T_MAX);
    if (!heap) return -1;
    L->heap = heap;
    double now = L->now;
    ev_t e = {now > when ? now : when, L->seq++, kind, idx, obj, args};
    Py_XINCREF(obj); Py_XINCREF(args);
    Py_ssize_t i = L->len++;
    while (i > 0) {  /* sift up */
        Py_ssize_t parent = (i - 1) / HEAP_ARITY;
        if (!ev_less(&e, &L->heap[parent])) break;
        L->heap[i] = L->heap[parent];
        i = parent;
    }
    L->heap[i] = e;
    return 0;
}

/* remove the earliest event into *out (its references pass to the caller) */
static void sim_pop(sim_t *L, ev_t *out) {
    *out = L->heap[0];
    ev_t last = L->heap[--L->len];
    Py_ssize_t i = 0, n = L->len;
    for (;;) {  /* sift down */
        Py_ssize_t first = HEAP_ARITY * i + 1, child = first;
        if (first >= n) break;
        Py_ssize_t end = first + HEAP_ARITY < n ? first + HEAP_ARITY : n;
        for (Py_ssize_t c = first + 1; c < end; c++)
            if (ev_less(&L->heap[c], &L->heap[child])) child = c;
        if (!ev_less(&L->heap[child], &last)) break;
        L->heap[i] = L->heap[child];
        i = child;
    }
    if (n) L->heap[i] = last;
}

static double as_double(PyObject *o, int *err) {
    double v = PyFloat_AsDouble(o);
    *err = v == -1.0 && PyErr_Occurred();
    return v;
}

/* at(when, fn, *args): EventLoop.at */
static PyObject *sim_at_m(sim_t *L, PyObject *const *a, Py_ssize_t n) {
    if (n < 2) { PyErr_SetString(PyExc_TypeError, "at(when, fn, *args)"); return NULL; }
    int err;
    double when = as_double(a[0], &err);
    if (err) return NULL;
    PyObject *args = PyTuple_New(n - 2);
    if (!args) return NULL;
    for (Py_ssize_t i = 2; i < n; i++) PyTuple_SET_ITEM(args, i - 2, Py_NewRef(a[i]));
    int r = sim_push(L, when, EV_PY, -1, a[1], args);
    Py_DECREF(args);
    if (r < 0) return NULL;
    Py_RETURN_NONE;
}

/* after(delay, fn, *args): EventLoop.after */
static PyObject *sim_after_m(sim_t *L, PyObject *const *a, Py_ssize_t n) {
    if (n < 2) { PyErr_SetString(PyExc_TypeError, "after(delay, fn, *args)"); return NULL; }
    int err;
    double delay = as_double(a[0], &err);
    if (err) return NULL;
    PyObject *when = PyFloat_FromDouble(L->now + delay);
    if (!when) return NULL;
    PyObject *small[16], **v = small;
    if (n > 16 && !(v = PyMem_Malloc(sizeof(PyObject *) * (size_t)n))) {
        Py_DECREF(when); return PyErr_NoMemory();
    }
    v[0] = when;
    for (Py_ssize_t i = 1; i < n; i++) v[i] = a[i];
    PyObject *r = sim_at_m(L, v, n);
    if (v != small) PyMem_Free(v);
    Py_DECREF(when);
    return r;
}

static void ev_release(ev_t *e) { Py_XDECREF(e->obj); Py_XDECREF(e->args); }

/* sim_fabric.c follows: wires and switches */
