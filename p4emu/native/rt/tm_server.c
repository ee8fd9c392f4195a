/* Server: one traffic manager's per-packet entry points with their targets bound once
 * (queues, the compiled pipeline's ingress/egress and C State, the ports' sockets or
 * send and the Python callbacks for the rare cases); joined after tm_serve.c. */

typedef struct {
    PyObject_HEAD
    PyObject *queues, *make_queue, *ingress, *on_ingress_error, *on_bad, *clock_ns;
    long long start_ns;
    out_t out;
    qlist_t ports;  /* queues' values, for the serve pass */
} srv_t;

#define SRV_FIELDS(X) X(queues) X(make_queue) X(ingress) X(on_ingress_error) X(on_bad) X(clock_ns) \
    X(out.egress) X(out.cstate) X(out.send) X(out.transmit) X(out.cpu) X(out.on_error)

static int srv_traverse(srv_t *s, visitproc visit, void *arg) {
#define VISIT(f) Py_VISIT(s->f);
    SRV_FIELDS(VISIT)
    for (Py_ssize_t i = 0; i < s->ports.n; i++) Py_VISIT(s->ports.items[i]);
    return 0;
}

static int srv_clear(srv_t *s) {
#define CLEAR(f) Py_CLEAR(s->f);
    SRV_FIELDS(CLEAR)
    qlist_clear(&s->ports);
    return 0;
}

static void srv_dealloc(srv_t *s) {
    PyObject_GC_UnTrack(s);
    srv_clear(s);
    io_free(s->out.io);
    Py_TYPE(s)->tp_free((PyObject *)s);
}

/* the C entry points (pipeline_api.h) of the module whose functions `ingress` and
 * `egress` are, when it has them and `cstate` is its State; else NULL (the Python calls) */
static const p4n_api_t *pipeline_api(PyObject *ingress, PyObject *egress, PyObject *cstate) {
    if (!PyCFunction_Check(ingress) || !PyCFunction_Check(egress)) return NULL;
    PyObject *module = PyCFunction_GET_SELF(ingress);
    if (!module || !PyModule_Check(module) || PyCFunction_GET_SELF(egress) != module) return NULL;
    PyObject *capsule = PyObject_GetAttrString(module, "c_api");
    if (!capsule) { PyErr_Clear(); return NULL; }
    const p4n_api_t *api = PyCapsule_IsValid(capsule, P4N_API_CAPSULE)
                           ? PyCapsule_GetPointer(capsule, P4N_API_CAPSULE) : NULL;
    Py_DECREF(capsule);  /* the module, which `ingress` holds, keeps it */
    if (!api || api->version != P4N_API_VERSION || !PyObject_TypeCheck(cstate, api->state_type))
        return NULL;
    return api;
}

/* Server(queues, make_queue, ingress, egress, cstate, send, transmit, cpu_port,
 *        on_egress_error, on_ingress_error, on_bad_priority, clock_ns, start_ns).
 * egress: the native module's FASTCALL entry point with the C State (cstate not None),
 * else pipeline.egress(job, **metadata); send None: every frame through transmit
 * (TrafficManager._transmit); ingress None: not a compiled pipeline (TrafficManager.ingress
 * does it); clock_ns, start_ns: SwitchCore.clock_source(). */
static PyObject *srv_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
    PyObject *v[13];
    if (!PyArg_UnpackTuple(args, "Server", 13, 13, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                           &v[6], &v[7], &v[8], &v[9], &v[10], &v[11], &v[12])) return NULL;
    if (!PyDict_Check(v[0])) { PyErr_SetString(PyExc_TypeError, "queues: a dict"); return NULL; }
    long long start_ns = PyLong_AsLongLong(v[12]);
    if (start_ns == -1 && PyErr_Occurred()) return NULL;
    srv_t *s = (srv_t *)type->tp_alloc(type, 0);
    if (!s) return NULL;
    s->queues = Py_NewRef(v[0]); s->make_queue = Py_NewRef(v[1]); s->ingress = Py_NewRef(v[2]);
    s->out = (out_t){Py_NewRef(v[3]), Py_NewRef(v[4]), Py_NewRef(v[5]), Py_NewRef(v[6]),
                     Py_NewRef(v[7]), Py_NewRef(v[8]), NULL, pipeline_api(v[2], v[3], v[4])};
    out_set_cpu(&s->out);
    s->on_ingress_error = Py_NewRef(v[9]); s->on_bad = Py_NewRef(v[10]);
    s->clock_ns = Py_NewRef(v[11]); s->start_ns = start_ns;
    return (PyObject *)s;
}

/* TrafficManager.ingress with a compiled pipeline: its ingress entry point, the jobs
 * offered; a bad priority goes to on_bad(job), an exception of ingress to
 * on_ingress_error(exc, (port, frame)) */
static int srv_receive(srv_t *s, PyObject *port, PyObject *frame, double queue_now, long long now_us) {
    if (s->ingress == Py_None) { PyErr_SetString(PyExc_TypeError, "not a compiled pipeline"); return -1; }
    const p4n_api_t *api = s->out.api;
    PyObject *jobs = NULL;
    if (api && PyBytes_Check(frame)) {  /* a job, a list of jobs or None */
        jobs = api->ingress(s->out.cstate, port, frame, (unsigned long long)now_us);
    } else {
        PyObject *now = PyLong_FromLongLong(now_us);
        if (now) {
            PyObject *args[4] = {s->out.cstate, port, frame, now};
            jobs = PyObject_Vectorcall(s->ingress, args, 4, NULL);
            Py_DECREF(now);
        }
    }
    if (!jobs) {
        PyObject *where = PyTuple_Pack(2, port, frame);
        if (!where) return -1;
        int r = report_error(s->on_ingress_error, where);
        Py_DECREF(where);
        return r;
    }
    PyObject *bad = NULL;
    int rc = 0;
    if (api && Py_IS_TYPE(jobs, api->job_type))
        rc = offer_one(s->queues, jobs, api, queue_now, s->make_queue, &bad);
    else if (jobs != Py_None)
        rc = offer_all(s->queues, jobs, api, queue_now, s->make_queue, &bad);
    Py_DECREF(jobs);
    if (rc < 0) { Py_XDECREF(bad); return -1; }
    for (Py_ssize_t i = 0; bad && i < PyList_GET_SIZE(bad); i++) {
        tm_python_called = 1;
        PyObject *r = PyObject_CallOneArg(s->on_bad, PyList_GET_ITEM(bad, i));
        if (!r) { Py_DECREF(bad); return -1; }
        Py_DECREF(r);
    }
    Py_XDECREF(bad);
    return 0;
}

/* SwitchCore.clocks(): (ns / 1000, ns // 1000) of one reading, as Python computes them
 * (a correctly rounded division of an exact double; a floor division) */
static int srv_clocks(srv_t *s, double *now, long long *now_us) {
    PyObject *r = PyObject_CallNoArgs(s->clock_ns);
    if (!r) return -1;
    long long ns = PyLong_AsLongLong(r);
    Py_DECREF(r);
    if (ns == -1 && PyErr_Occurred()) return -1;
    ns -= s->start_ns;
    if (ns > (1LL << 53) || ns < -(1LL << 53)) {  /* where the double would round */
        PyErr_SetString(PyExc_OverflowError, "clock beyond 2**53 ns"); return -1;
    }
    long long us = ns / 1000;
    if (ns % 1000 < 0) us--;
    *now = (double)ns / 1000.0;
    *now_us = us;
    return 0;
}

/* receive(port, frame): TrafficManager.ingress, as of a reading of the switch's clock */
static PyObject *srv_receive_m(srv_t *s, PyObject *const *a, Py_ssize_t n) {
    double now; long long us;
    if (n != 2) { PyErr_SetString(PyExc_TypeError, "receive(port, frame)"); return NULL; }
    if (srv_clocks(s, &now, &us) < 0 || srv_receive(s, a[0], a[1], now, us) < 0) return NULL;
    Py_RETURN_NONE;
}

/* serve(): a serve pass as of a reading of the switch's clock; the next ready time or None */
static PyObject *srv_serve_m(srv_t *s, PyObject *unused) {
    double now; long long us;
    if (srv_clocks(s, &now, &us) < 0) return NULL;
    return serve_pass(s->queues, &s->ports, now, us, &s->out);
}

/* hop(port, frame): receive, then serve, as of one reading of the clock */
static PyObject *srv_hop_m(srv_t *s, PyObject *const *a, Py_ssize_t n) {
    double now; long long us;
    if (n != 2) { PyErr_SetString(PyExc_TypeError, "hop(port, frame)"); return NULL; }
    if (srv_clocks(s, &now, &us) < 0 || srv_receive(s, a[0], a[1], now, us) < 0) return NULL;
    return serve_pass(s->queues, &s->ports, now, us, &s->out);
}

/* bind_port(port, fd, counters): the port's frames go out on socket `fd` from C and
 * receive_port(port) reads it; counters: its PortStats' array('Q') */
static PyObject *srv_bind_port_m(srv_t *s, PyObject *const *a, Py_ssize_t n) {
    if (n != 3) { PyErr_SetString(PyExc_TypeError, "bind_port(port, fd, counters)"); return NULL; }
    long port = PyLong_AsLong(a[0]);
    int fd = (int)PyLong_AsLong(a[1]);
    if (PyErr_Occurred()) return NULL;
    if (!s->out.io && !(s->out.io = io_new())) return NULL;
    if (io_bind(s->out.io, port, fd, a[2]) < 0) return NULL;
    Py_RETURN_NONE;
}

/* receive_port(port): PortSet.receive, then TrafficManager.ingress of each frame, as of
 * a reading of the clock per frame. Returns None, or the lengths of the frames dropped
 * as runts or oversized (counted; the caller logs them); OSError if the receive failed */
static PyObject *srv_receive_port_m(srv_t *s, PyObject *port) {
    long number = PyLong_AsLong(port);
    if (number == -1 && PyErr_Occurred()) return NULL;
    port_io_t *io = s->out.io;
    if (!io || number < 0 || number >= MAXPORT || io->fd[number] < 0) {
        PyErr_Format(PyExc_ValueError, "port %ld is not bound", number); return NULL;
    }
    unsigned long long *c = io_counters(io, (int)number);
    int got;
    if (io_read(io->fd[number], &got) < 0) return PyErr_SetFromErrno(PyExc_OSError);
    PyObject *dropped = NULL;
    for (int i = 0; i < got; i++) {
        if (rx_addr[i].sll_pkttype == PACKET_OUTGOING) continue;  /* kernels before 4.20 */
        unsigned int len = rx_msgs[i].msg_len;
        if (len < MIN_FRAME || len > MAX_FRAME) {
            c[RX_DROPPED]++;
            PyObject *l = PyLong_FromUnsignedLong(len);
            if (!l || (!dropped && !(dropped = PyList_New(0))) || PyList_Append(dropped, l) < 0) {
                Py_XDECREF(l); Py_XDECREF(dropped); return NULL;
            }
            Py_DECREF(l);
            continue;
        }
        c[RX_PACKETS]++;
        c[RX_BYTES] += len;
        PyObject *frame = PyBytes_FromStringAndSize(rx_buf[i], len);
        double now; long long now_us;
        if (!frame || srv_clocks(s, &now, &now_us) < 0) { Py_XDECREF(frame); Py_XDECREF(dropped); return NULL; }
        int r = srv_receive(s, port, frame, now, now_us);
        Py_DECREF(frame);
        if (r < 0) { Py_XDECREF(dropped); return NULL; }
    }
    return dropped ? dropped : Py_NewRef(Py_None);
}

static PyMethodDef srv_methods[] = {
    {"bind_port", (PyCFunction)(void (*)(void))srv_bind_port_m, METH_FASTCALL, "send and receive a port in C"},
    {"receive_port", (PyCFunction)srv_receive_port_m, METH_O, "receive and ingress a bound port's frames"},
    {"receive", (PyCFunction)(void (*)(void))srv_receive_m, METH_FASTCALL, "ingress of one frame"},
    {"serve", (PyCFunction)srv_serve_m, METH_NOARGS, "serve due egress"},
    {"hop", (PyCFunction)(void (*)(void))srv_hop_m, METH_FASTCALL, "receive, then serve"},
    {NULL}
};

/* a type whose instances hold Python references: PREFIX_new, _dealloc, _traverse,
 * _clear and _methods make it (tm_loop.c's EventLoop is one too) */
#define GC_TYPE(NAME, CTYPE, PREFIX, DOC) {                                                 \
    PyVarObject_HEAD_INIT(NULL, 0)                                                         \
    .tp_name = "p4emu_tm." NAME, .tp_basicsize = sizeof(CTYPE),                            \
    .tp_dealloc = (destructor)PREFIX##_dealloc,                                            \
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,                                   \
    .tp_traverse = (traverseproc)PREFIX##_traverse, .tp_clear = (inquiry)PREFIX##_clear,   \
    .tp_new = PREFIX##_new, .tp_methods = PREFIX##_methods, .tp_doc = DOC }

static PyTypeObject ServerType = GC_TYPE("Server", srv_t, srv,
                                         "a traffic manager's per-packet entry points, bound");

