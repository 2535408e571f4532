"""One module per DVC stage: parse params, read inputs, call library code, write outputs."""
