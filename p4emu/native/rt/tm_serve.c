/* The traffic manager's per-packet loops over the queues of tm.c (joined after it):
 * offering jobs (TrafficManager._enqueue) and a serve pass (TrafficManager._serve_egress). */

static long long attr_ll(PyObject *o, PyObject *name, PyObject **keep) {
    PyObject *v = PyObject_GetAttr(o, name);
    if (!v) return -1;
    long long r = PyLong_AsLongLong(v);
    if (keep) *keep = v; else Py_DECREF(v);
    return r;
}

static PyObject *s_port, *s_priority;

/* set whenever the loops call Python code other than the pipeline's entry points (the
 * CPU port, error and bad-priority callbacks, a Python send): a simulator's fabric asks
 * its stop condition again only after such a call (sim_run.c) */
static int tm_python_called;

/* a Python callback with the pending exception (an Exception: internal error, the
 * packet dropped) and one more argument; anything else propagates */
static int report_error(PyObject *callback, PyObject *arg) {
    if (!PyErr_ExceptionMatches(PyExc_Exception)) return -1;
    tm_python_called = 1;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (tb) PyException_SetTraceback(value, tb);
    PyObject *r = PyObject_CallFunctionObjArgs(callback, value, arg, NULL);
    Py_XDECREF(type); Py_XDECREF(value); Py_XDECREF(tb);
    if (!r) return -1;
    Py_DECREF(r);
    return 0;
}

/* offer `job` to its port's queues; make_queue(port) creates a missing port's queues
 * (TrafficManager.queue). A job of a compiled pipeline (`api`'s job type) tells its port
 * and priority in C, any other through its attributes. A job of a bad priority is
 * appended to *bad (a list made on the first). 0, or -1 with an exception set. */
static int offer_one(PyObject *queues, PyObject *job, const p4n_api_t *api, double now,
                     PyObject *make_queue, PyObject **bad) {
    PyObject *port = NULL;
    long long prio;
    if (api && Py_IS_TYPE(job, api->job_type)) {
        long long number;
        api->route(job, &number, &prio);
        if (!(port = PyLong_FromLongLong(number))) return -1;
    } else {
        if (attr_ll(job, s_port, &port) == -1 && PyErr_Occurred()) return -1;
        prio = attr_ll(job, s_priority, NULL);
        if (prio == -1 && PyErr_Occurred()) { Py_DECREF(port); return -1; }
    }
    PyObject *q = PyDict_GetItemWithError(queues, port);
    if (q) Py_INCREF(q);
    else if (!PyErr_Occurred()) q = PyObject_CallOneArg(make_queue, port);
    Py_DECREF(port);
    if (!q) return -1;
    if (!PyObject_TypeCheck(q, &QueuesType)) {
        Py_DECREF(q); PyErr_SetString(PyExc_TypeError, "not native queues"); return -1;
    }
    long long qd;
    int r = q_offer((q_t *)q, job, prio, now, &qd);
    Py_DECREF(q);
    if (r < 0) return -1;
    if (r == 2) {  /* logged by the Python side, once per port at error level */
        if (!*bad && !(*bad = PyList_New(0))) return -1;
        if (PyList_Append(*bad, job) < 0) return -1;
    }
    return 0;
}

/* offer each of `jobs` (offer_one); 0, or -1 with an exception set */
static int offer_all(PyObject *queues, PyObject *jobs, const p4n_api_t *api, double now,
                     PyObject *make_queue, PyObject **bad) {
    PyObject *seq = PySequence_Fast(jobs, "jobs: a sequence");
    if (!seq) return -1;
    int rc = 0;
    for (Py_ssize_t i = 0; rc == 0 && i < PySequence_Fast_GET_SIZE(seq); i++)
        rc = offer_one(queues, PySequence_Fast_GET_ITEM(seq, i), api, now, make_queue, bad);
    Py_DECREF(seq);
    return rc;
}

/* offer_jobs(queues: dict, jobs, queue_now, make_queue) -> [jobs of a bad priority] or None */
static PyObject *py_offer_jobs(PyObject *m, PyObject *const *a, Py_ssize_t n) {
    if (n != 4 || !PyDict_Check(a[0])) { PyErr_SetString(PyExc_TypeError, "offer_jobs(queues, jobs, now, make_queue)"); return NULL; }
    double now = PyFloat_AsDouble(a[2]);
    if (now == -1.0 && PyErr_Occurred()) return NULL;
    PyObject *bad = NULL;
    if (offer_all(a[0], a[1], NULL, now, a[3], &bad) < 0) { Py_XDECREF(bad); return NULL; }
    return bad ? bad : Py_NewRef(Py_None);
}

#define MAXQ 256  /* ports served from a stack array; more from the heap */

/* egress of one dequeued packet: the native module's FASTCALL entry point with the C
 * State when there is one (cstate not None), else pipeline.egress(job, **metadata) */
static PyObject *call_egress(PyObject *egress, PyObject *cstate, deq_t *d, long long now_us) {
    PyObject *v[7] = {cstate, d->item, PyLong_FromLongLong(d->enq_ts), PyLong_FromLongLong(d->enq_qdepth),
                      PyLong_FromLongLong(d->deq_td), PyLong_FromLongLong(d->deq_qdepth),
                      PyLong_FromLongLong(now_us)};
    PyObject *r = NULL;
    if (v[2] && v[3] && v[4] && v[5] && v[6]) {
        if (cstate != Py_None) r = PyObject_Vectorcall(egress, v, 7, NULL);
        else r = PyObject_Vectorcall(egress, v + 1, 1, egress_kwnames);
    }
    for (int i = 2; i < 7; i++) Py_XDECREF(v[i]);
    return r;
}

/* where dequeued packets go (a Server's fields). api: the compiled pipeline's C entry
 * points when egress is that pipeline's (else NULL); cpu_number: the CPU port's number
 * when cpu is an int (CPU_INT), to compare without a Python int per frame. native_send:
 * set by a simulator's fabric (sim_fabric.c) that takes the frames of every port but the
 * CPU port in C, with native_ctx its own; NULL otherwise. */
typedef int (*native_send_fn)(void *ctx, long long port, PyObject *frame, double start_us);
enum { CPU_NONE, CPU_INT, CPU_OTHER };
typedef struct {
    PyObject *egress, *cstate, *send, *transmit, *cpu, *on_error; port_io_t *io;
    const p4n_api_t *api;
    int cpu_kind; long long cpu_number;
    native_send_fn native_send; void *native_ctx;
} out_t;

/* the CPU port's kind and number in `o` (from o->cpu) */
static void out_set_cpu(out_t *o) {
    o->cpu_kind = CPU_OTHER;
    if (o->cpu == Py_None) o->cpu_kind = CPU_NONE;
    else if (PyLong_CheckExact(o->cpu)) {
        int overflow;
        o->cpu_number = PyLong_AsLongLongAndOverflow(o->cpu, &overflow);
        if (!overflow && !(o->cpu_number == -1 && PyErr_Occurred())) o->cpu_kind = CPU_INT;
        PyErr_Clear();
    }
}

/* a frame out to `port` (its number; `port_obj` the same as an int, or NULL to make one
 * when Python needs it): on a bound port's socket (tm_ports.c), to the fabric's
 * native_send, else send(port, frame, start_us) (the ports' send), or transmit(...) (the
 * Python TrafficManager._transmit: the CPU port, pcaps) for the CPU port or when send is
 * None. A port number beyond a long long is LLONG_MIN (no socket, no wire). */
static int emit_frame(const out_t *o, long long port, PyObject *port_obj, PyObject *frame,
                      double start) {
    PyObject *send = o->send, *target = send;
    if (send != Py_None && io_send(o->io, port, frame)) return 0;
    if (send == Py_None) target = o->transmit;
    else if (o->cpu_kind != CPU_NONE) {
        int eq;
        if (o->cpu_kind == CPU_INT && (port != LLONG_MIN || !port_obj)) eq = port == o->cpu_number;
        else {  /* not an int in range, or not an int CPU port: as Python compares */
            PyObject *p = port_obj ? Py_NewRef(port_obj) : PyLong_FromLongLong(port);
            eq = p ? PyObject_RichCompareBool(p, o->cpu, Py_EQ) : -1;
            Py_XDECREF(p);
        }
        if (eq < 0) return -1;
        if (eq) target = o->transmit;
    }
    if (target == send && o->native_send) return o->native_send(o->native_ctx, port, frame, start);
    tm_python_called = 1;
    PyObject *t = PyFloat_FromDouble(start);
    PyObject *p = port_obj ? Py_NewRef(port_obj) : PyLong_FromLongLong(port);
    if (!t || !p) { Py_XDECREF(t); Py_XDECREF(p); return -1; }
    PyObject *args[3] = {p, frame, t};
    PyObject *r = PyObject_Vectorcall(target, args, 3, NULL);
    Py_DECREF(t); Py_DECREF(p);
    if (!r) return -1;
    Py_DECREF(r);
    return 0;
}

/* the number of an egress output's port object (LLONG_MIN when not an int in range) */
static long long port_number(PyObject *port) {
    if (!PyLong_Check(port)) return LLONG_MIN;
    int overflow;
    long long n = PyLong_AsLongLongAndOverflow(port, &overflow);
    if (overflow || (n == -1 && PyErr_Occurred())) { PyErr_Clear(); return LLONG_MIN; }
    return n;
}

/* an egress output (port, frame) out (emit_frame) */
static int emit(PyObject *pair, const out_t *o, double start) {
    if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
        PyErr_SetString(PyExc_TypeError, "egress output: (port, frame)"); return -1;
    }
    PyObject *port = PyTuple_GET_ITEM(pair, 0);
    return emit_frame(o, port_number(port), port, PyTuple_GET_ITEM(pair, 1), start);
}

/* sum of the outputs' frame lengths; -1 on error */
static long long sent_bytes(PyObject *seq) {
    long long total = 0;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
        PyObject *pair = PySequence_Fast_GET_ITEM(seq, i);
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
            PyErr_SetString(PyExc_TypeError, "egress output: (port, frame)"); return -1;
        }
        Py_ssize_t len = PyObject_Length(PyTuple_GET_ITEM(pair, 1));
        if (len < 0) return -1;
        total += len;
    }
    return total;
}

/* an internal error of egress at port q (TrafficManager._egress_error): the packet is
 * dropped; 0, or -1 when the error is not an Exception */
static int egress_failed(q_t *q, const out_t *o) {
    PyObject *port = PyLong_FromLongLong(q->port);
    int r = port ? report_error(o->on_error, port) : -1;
    Py_XDECREF(port);
    return r;
}

/* serve_one through the compiled pipeline's C entry point: one frame or none */
static int serve_compiled(q_t *q, deq_t *d, long long now_us, const out_t *o) {
    long long port;
    PyObject *frame = o->api->egress(o->cstate, d->item, (unsigned long long)d->enq_ts,
                                     (unsigned long long)d->enq_qdepth,
                                     (unsigned long long)d->deq_td,
                                     (unsigned long long)d->deq_qdepth,
                                     (unsigned long long)now_us, &port);
    Py_DECREF(d->item);
    if (!frame) {
        if (egress_failed(q, o) < 0) return -1;
        q_charge(q, d->start, 0);
        return 0;
    }
    q_charge(q, d->start, frame == Py_None ? 0 : PyBytes_GET_SIZE(frame));
    int rc = frame == Py_None ? 0 : emit_frame(o, port, NULL, frame, d->start);
    Py_DECREF(frame);
    return rc;
}

/* one packet of port q: egress, charge with the bytes sent, frames out */
static int serve_one(q_t *q, double ready, long long now_us, const out_t *o) {
    deq_t d;
    if (q_start(q, ready, &d) < 0) return -1;
    if (o->api && Py_IS_TYPE(d.item, o->api->job_type)) return serve_compiled(q, &d, now_us, o);
    PyObject *outs = call_egress(o->egress, o->cstate, &d, now_us);
    Py_DECREF(d.item);
    PyObject *seq = NULL;
    if (outs) { seq = PySequence_Fast(outs, "egress: a sequence"); Py_DECREF(outs); }
    long long bytes = seq ? sent_bytes(seq) : -1;
    if (bytes < 0) {  /* an internal error: TrafficManager._egress_error, packet dropped */
        Py_CLEAR(seq);
        if (egress_failed(q, o) < 0) return -1;
        bytes = 0;
    }
    q_charge(q, d.start, bytes);
    int rc = 0;
    for (Py_ssize_t i = 0; seq && i < PySequence_Fast_GET_SIZE(seq) && rc == 0; i++)
        rc = emit(PySequence_Fast_GET_ITEM(seq, i), o, d.start);
    Py_XDECREF(seq);
    return rc;
}

/* A server's port queues in the order of its `queues` dict, held: a serve pass walks
 * them at every hop, and the dict only grows (a port's queues are made when a packet first
 * goes there, and never replaced), so its size says when to read it again. */
typedef struct { q_t **items; Py_ssize_t n; } qlist_t;

static void qlist_clear(qlist_t *l) {
    for (Py_ssize_t i = 0; i < l->n; i++) Py_DECREF(l->items[i]);
    PyMem_Free(l->items);
    *l = (qlist_t){NULL, 0};
}

static int qlist_sync(qlist_t *l, PyObject *queues) {
    Py_ssize_t size = PyDict_GET_SIZE(queues), pos = 0, n = 0;
    if (size == l->n) return 0;
    q_t **items = PyMem_Malloc(sizeof(q_t *) * (size_t)(size ? size : 1));
    if (!items) { PyErr_NoMemory(); return -1; }
    PyObject *key, *value;
    while (PyDict_Next(queues, &pos, &key, &value)) {
        if (!PyObject_TypeCheck(value, &QueuesType)) {
            for (Py_ssize_t i = 0; i < n; i++) Py_DECREF(items[i]);
            PyMem_Free(items);
            PyErr_SetString(PyExc_TypeError, "not native queues"); return -1;
        }
        items[n++] = (q_t *)Py_NewRef(value);
    }
    qlist_clear(l);
    *l = (qlist_t){items, n};
    return 0;
}

/* the loop of _serve_egress: ports in the dict's order take turns, one packet each, as
 * of `now`, until none is due; 1 with the earliest ready time after the pass in
 * *next_ready, 0 when the queues are empty, -1 on error.
 * Any number of ports: a program may send to every 9-bit port (egress_spec from a
 * header field), each of which gets its queues, as in the Python traffic manager. */
static int serve_due(PyObject *queues, qlist_t *ports, double now, long long now_us,
                     const out_t *o, double *next_ready) {
    if (qlist_sync(ports, queues) < 0) return -1;
    q_t *small[MAXQ], **active = small;
    Py_ssize_t na = 0, size = ports->n;
    int found = 0, rc = 0;
    double next = 0;
    if (size > MAXQ && !(active = PyMem_Malloc(sizeof(q_t *) * (size_t)size))) {
        PyErr_NoMemory(); return -1;
    }
    /* a snapshot with references: egress and send may call back into Python */
    for (Py_ssize_t i = 0; i < size; i++)
        if (ports->items[i]->queued) active[na++] = (q_t *)Py_NewRef(ports->items[i]);
    while (na) {
        Py_ssize_t still = 0;
        for (Py_ssize_t i = 0; i < na; i++) {
            q_t *q = active[i];
            double ready;
            if (rc < 0 || !q->queued || !q_next_ready(q, &ready)) { Py_DECREF(q); continue; }
            if (ready > now) {
                if (!found || ready < next) next = ready;
                found = 1;
                Py_DECREF(q);
                continue;
            }
            active[still++] = q;
            if (serve_one(q, ready, now_us, o) < 0) rc = -1;
        }
        na = rc < 0 ? 0 : still;
        if (rc < 0) for (Py_ssize_t i = 0; i < still; i++) Py_DECREF(active[i]);
    }
    if (active != small) PyMem_Free(active);
    if (rc < 0) return -1;
    *next_ready = next;
    return found;
}

/* serve_due with the next ready time as TrafficManager._serve_egress returns it: a float,
 * or None when the queues are empty */
static PyObject *serve_pass(PyObject *queues, qlist_t *ports, double now, long long now_us,
                            const out_t *o) {
    double next;
    int found = serve_due(queues, ports, now, now_us, o, &next);
    if (found < 0) return NULL;
    if (!found) Py_RETURN_NONE;
    return PyFloat_FromDouble(next);
}

/* tm_server.c follows: the Server type and the module */
