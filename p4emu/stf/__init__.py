"""STF (p4c "simple test framework") tests for p4emu: parser, judge, runner, CLI.

`python -m p4emu stf PROG.p4 TEST.stf ...` compiles the program once and runs each file
on a fresh device, judging outputs the way p4c's BMv2 driver does (docs/stf.md).

Modules: `parser` (text -> `commands`), `keys` (key names/values -> match fields),
`runner` (commands -> device + outputs), `judge` (outputs vs expectations), `cli`.

Besides the STF commands of p4c's BMv2 driver, the runner accepts these BMv2 CLI commands
(p4emu extensions, for action profiles/selectors, which STF cannot set up):
``act_prof_create_member <profile> <action>(<param>:<value>, ...)`` (member handles count
0, 1, ... per profile), ``act_prof_create_group <profile>`` (group handles likewise),
``act_prof_add_member_to_group <profile> <member> <group>``,
``table_indirect_add <table> [<prio>] <key>:<value> ... => <member>`` and
``table_indirect_add_with_group <table> [<prio>] <key>:<value> ... => <group>``;
range keys may be written ``low->high``, ternary keys ``value&&&mask``.
"""
