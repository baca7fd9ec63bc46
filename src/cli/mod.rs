//! Subcommands: each file parses its flags and wires a source to the engine to a renderer.
