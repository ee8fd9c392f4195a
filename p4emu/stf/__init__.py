"""STF (p4c "simple test framework") tests for p4emu: parser, judge, runner, CLI.

`python -m p4emu stf PROG.p4 TEST.stf ...` compiles the program once and runs each file
on a fresh device, judging outputs the way p4c's BMv2 driver does (/work/shared/STF.md).
"""
