/* p4emu: P4_16 core library, API-compatible with p4c's p4include/core.p4. */
#ifndef _CORE_P4_
#define _CORE_P4_

/* Standard errors; their order fixes their numeric values (NoError = 0). */
error {
    NoError,
    PacketTooShort,
    NoMatch,
    StackOutOfBounds,
    HeaderTooShort,
    ParserTimeout,
    ParserInvalidArgument
}

extern packet_in {
    /* Fixed-size header extraction. */
    void extract<T>(out T hdr);
    /* Header with one varbit field of the given size in bits. */
    void extract<T>(out T variableSizeHeader, in bit<32> variableFieldSizeInBits);
    /* Read without advancing the cursor. */
    T lookahead<T>();
    /* Skip bits. */
    void advance(in bit<32> sizeInBits);
    /* Packet length in bytes (not supported by every target). */
    bit<32> length();
}

extern packet_out {
    /* Append a valid header (or every valid header of a struct / stack) to the output. */
    void emit<T>(in T hdr);
}

/* Signals error toSignal (ending parsing) when check is false. */
extern void verify(in bool check, in error toSignal);

/* Stops compilation with the message when check (a compile-time constant) is false;
   returns true so that it can initialize a constant. */
extern bool static_assert(bool check, string message);
extern bool static_assert(bool check);

/* The do-nothing action. */
@noWarn("unused")
action NoAction() {}

/* Match kinds every architecture offers. */
match_kind {
    exact,
    ternary,
    lpm
}

#endif  /* _CORE_P4_ */
