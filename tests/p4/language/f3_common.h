// User header included with #include "..." from f3_include.p4.
#ifndef F3_COMMON_H
#define F3_COMMON_H
#define OUT_PORT 2
#define SET_FIELD(hdr_, f_, v_) hdr_.f_ = (v_)
#if defined(OUT_PORT) && OUT_PORT > 1
#define PORT_OK 1
#else
#define PORT_OK 0
#endif
header h_t { bit<8> a; bit<8> b; bit<8> c; }
#endif
