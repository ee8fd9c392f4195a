/* The module (joined last): setup() and the types of tm.c, tm_server.c, tm_loop.c,
 * sim_nic.c and sim_run.c. */

/* setup(Enqueued, Dequeued, QUEUE_FULL, BAD_PRIORITY): the Python records to return */
static PyObject *py_setup(PyObject *m, PyObject *const *a, Py_ssize_t n) {
    if (n != 4) { PyErr_SetString(PyExc_TypeError, "setup: 4 arguments"); return NULL; }
    Py_XSETREF(Enqueued, Py_NewRef(a[0])); Py_XSETREF(Dequeued, Py_NewRef(a[1]));
    Py_XSETREF(QUEUE_FULL, Py_NewRef(a[2])); Py_XSETREF(BAD_PRIORITY, Py_NewRef(a[3]));
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"setup", (PyCFunction)(void (*)(void))py_setup, METH_FASTCALL, NULL},
    {"offer_jobs", (PyCFunction)(void (*)(void))py_offer_jobs, METH_FASTCALL, NULL},
    {NULL}
};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "p4emu_native_module", NULL, -1, module_methods};

PyMODINIT_FUNC PyInit_p4emu_native_module(void) {
    if (PyType_Ready(&QueuesType) < 0 || PyType_Ready(&ServerType) < 0
        || PyType_Ready(&EventLoopType) < 0
        || PyType_Ready(&SimLoopType) < 0 || PyType_Ready(&SimNicType) < 0) return NULL;
    s_port = PyUnicode_InternFromString("port");
    s_priority = PyUnicode_InternFromString("priority");
    s_program = PyUnicode_InternFromString("program");
    s_urgent = PyUnicode_InternFromString("urgent");
    s_flow = PyUnicode_InternFromString("flow");
    egress_kwnames = Py_BuildValue("(sssss)", "enq_timestamp", "enq_qdepth", "deq_timedelta",
                                   "deq_qdepth", "now_us");
    if (!s_port || !s_priority || !s_program || !s_urgent || !s_flow || !egress_kwnames) return NULL;
    PyObject *mod = PyModule_Create(&module_def);
    if (!mod) return NULL;
    Py_INCREF(&QueuesType);
    PyModule_AddObject(mod, "PortQueues", (PyObject *)&QueuesType);
    Py_INCREF(&ServerType);
    PyModule_AddObject(mod, "Server", (PyObject *)&ServerType);
    Py_INCREF(&EventLoopType);
    PyModule_AddObject(mod, "EventLoop", (PyObject *)&EventLoopType);
    Py_INCREF(&SimLoopType);
    PyModule_AddObject(mod, "SimLoop", (PyObject *)&SimLoopType);
    return mod;
}
