/* SimLoop.run and the type (joined after sim_nic.c, before tm_module.c). */

#define SIGNAL_CHECK_EVERY 4096  /* native events between checks for Ctrl-C */

/* one event, its references released */
static int sim_dispatch(sim_t *L, ev_t *e) {
    int rc = 0;
    switch (e->kind) {
    case EV_PY: {
        L->python_ran = 1;
        PyObject *r = PyObject_Call(e->obj, e->args, NULL);
        if (!r) rc = -1; else Py_DECREF(r);
        break;
    }
    case EV_ARRIVE:  /* the frame's reference goes with it */
        rc = wire_arrive(L, e->idx, e->obj);
        e->obj = NULL;
        break;
    case EV_TIMER:
        tm_python_called = 0;
        rc = switch_due(L, e->idx, e->when);
        if (tm_python_called) L->python_ran = 1;
        break;
    case EV_NIC:
        rc = nic_next(L, e->idx);
        break;
    }
    ev_release(e);
    return rc;
}

/* stop() asked again only when Python code (other than a P4 pipeline's) ran since it was
 * last asked: the fabric's own events change nothing a stop condition can read (flows,
 * the controller's events, a schedule), so its answer would be the same. 1 stop, 0 go
 * on, -1 error */
static int sim_stopped(sim_t *L, PyObject *stop) {
    if (stop == Py_None || !L->python_ran) return 0;
    L->python_ran = 0;
    PyObject *r = PyObject_CallNoArgs(stop);
    if (!r) return -1;
    int t = PyObject_IsTrue(r);
    Py_DECREF(r);
    return t;
}

/* run(until, stop=None): EventLoop.run. Events in (time, sequence) order until `until`
 * or stop() is true; unless stopped the clock then reads `until`. */
static PyObject *sim_run_m(sim_t *L, PyObject *args, PyObject *kw) {
    static char *names[] = {"until", "stop", NULL};
    double until;
    PyObject *stop = Py_None;
    int t;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "d|O:run", names, &until, &stop)) return NULL;
    L->python_ran = 1;  /* ask before the first event, as EventLoop.run does */
    unsigned int since_check = 0;
    while (L->len) {
        if ((t = sim_stopped(L, stop)) != 0) {
            if (t < 0) return NULL;
            Py_RETURN_NONE;
        }
        if (L->heap[0].when > until) break;
        ev_t e;
        sim_pop(L, &e);
        L->now = e.when;
        L->events_run++;
        if (sim_dispatch(L, &e) < 0) return NULL;
        if (++since_check == SIGNAL_CHECK_EVERY) {
            since_check = 0;
            L->python_ran = 1;  /* a signal handler is Python code */
            if (PyErr_CheckSignals() < 0) return NULL;
        }
    }
    if (L->now < until && until < INFINITY) {
        if ((t = sim_stopped(L, stop)) < 0) return NULL;
        if (!t) L->now = until;
    }
    Py_RETURN_NONE;
}

static PyObject *sim_get_now(sim_t *L, void *c) { return PyFloat_FromDouble(L->now); }
static int sim_set_now(sim_t *L, PyObject *v, void *c) {
    if (!v) { PyErr_SetString(PyExc_TypeError, "now cannot be deleted"); return -1; }
    int err;
    double now = as_double(v, &err);
    if (err) return -1;
    L->now = now;
    return 0;
}
static PyObject *sim_get_events(sim_t *L, void *c) { return PyLong_FromLongLong(L->events_run); }
static int sim_set_events(sim_t *L, PyObject *v, void *c) {
    long long n = v ? PyLong_AsLongLong(v) : -1;
    if (!v) PyErr_SetString(PyExc_TypeError, "events_run cannot be deleted");
    if (!v || (n == -1 && PyErr_Occurred())) return -1;
    L->events_run = n;
    return 0;
}
static PyObject *sim_get_pending(sim_t *L, void *c) { return PyLong_FromSsize_t(L->len); }

static PyObject *sim_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
    if (!PyArg_ParseTuple(args, ":SimLoop")) return NULL;
    return type->tp_alloc(type, 0);  /* zeroed: now 0.0, nothing scheduled */
}

static int sim_traverse(sim_t *L, visitproc visit, void *arg) {
    for (Py_ssize_t i = 0; i < L->len; i++) { Py_VISIT(L->heap[i].obj); Py_VISIT(L->heap[i].args); }
    for (Py_ssize_t i = 0; i < L->nwires; i++) {
        Py_VISIT(L->wires[i].rng_random); Py_VISIT(L->wires[i].receive); Py_VISIT(L->wires[i].port);
    }
    for (Py_ssize_t i = 0; i < L->nswitches; i++) Py_VISIT(L->switches[i]->server);
    for (Py_ssize_t i = 0; i < L->nnics; i++) {
        int r = nic_traverse(L->nics[i], visit, arg);
        if (r) return r;
    }
    return 0;
}

static int sim_clear(sim_t *L) {
    while (L->len) { ev_t e = L->heap[--L->len]; ev_release(&e); }
    for (Py_ssize_t i = 0; i < L->nwires; i++) {
        Py_CLEAR(L->wires[i].rng_random); Py_CLEAR(L->wires[i].receive); Py_CLEAR(L->wires[i].port);
    }
    L->nwires = 0;
    for (Py_ssize_t i = 0; i < L->nswitches; i++) {
        fsw_t *sw = L->switches[i];
        if (sw->server) {  /* the server outlives the loop in its traffic manager: unhook */
            sw->server->out.native_send = NULL; sw->server->out.native_ctx = NULL;
            Py_CLEAR(sw->server);
        }
        PyMem_Free(sw);
    }
    L->nswitches = 0;
    for (Py_ssize_t i = 0; i < L->nnics; i++) nic_free(L->nics[i]);
    L->nnics = 0;
    return 0;
}

static void sim_dealloc(sim_t *L) {
    PyObject_GC_UnTrack(L);
    sim_clear(L);
    PyMem_Free(L->heap); PyMem_Free(L->wires); PyMem_Free(L->switches); PyMem_Free(L->nics);
    Py_TYPE(L)->tp_free((PyObject *)L);
}

#define FASTCALL(f) (PyCFunction)(void (*)(void))f, METH_FASTCALL
static PyMethodDef sim_methods[] = {
    {"at", FASTCALL(sim_at_m), "at(when, fn, *args): fn(*args) at `when` (not before now)"},
    {"after", FASTCALL(sim_after_m), "after(delay, fn, *args)"},
    {"run", (PyCFunction)(void (*)(void))sim_run_m, METH_VARARGS | METH_KEYWORDS, "run(until, stop=None)"},
    {"add_wire", FASTCALL(sim_add_wire_m), "add_wire(bit_time, delay, loss, rng, port, far) -> index"},
    {"wire_send", FASTCALL(sim_wire_send_m), "wire_send(index, frame, depart)"},
    {"set_wire_up", FASTCALL(sim_set_wire_up_m), "set_wire_up(index, up)"},
    {"wire_counters", (PyCFunction)sim_wire_counters_m, METH_O, "(frames, bytes, failed_dropped, random_lost)"},
    {"packet_hops", (PyCFunction)sim_packet_hops_m, METH_NOARGS, "frames carried by every wire"},
    {"add_switch", FASTCALL(sim_add_switch_m), "add_switch(server, epoch, start_ns) -> index"},
    {"connect", FASTCALL(sim_connect_m), "connect(switch, port, wire)"},
    {"switch_arm", FASTCALL(sim_switch_arm_m), "switch_arm(switch, ready_us)"},
    {"add_nic", FASTCALL(sim_add_nic_m), "add_nic(wire, rate_bps, veth) -> SimNic"},
    {NULL}
};

static PyGetSetDef sim_getset[] = {
    {"now", (getter)sim_get_now, (setter)sim_set_now, "virtual seconds", NULL},
    {"events_run", (getter)sim_get_events, (setter)sim_set_events, "events run so far", NULL},
    {"pending", (getter)sim_get_pending, NULL, "events scheduled", NULL},
    {NULL}
};

static PyTypeObject SimLoopType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "p4emu_tm.SimLoop", .tp_basicsize = sizeof(sim_t),
    .tp_dealloc = (destructor)sim_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_BASETYPE,
    .tp_traverse = (traverseproc)sim_traverse, .tp_clear = (inquiry)sim_clear,
    .tp_new = sim_new, .tp_methods = sim_methods, .tp_getset = sim_getset,
    .tp_doc = "a simulator's event loop with its wires and compiled switches",
};

/* tm_module.c follows */
