"""The v1model architecture at run time: `pipeline.Pipeline` runs compiled programs with
BMv2 simple_switch semantics; `support` holds the helpers generated code calls."""
