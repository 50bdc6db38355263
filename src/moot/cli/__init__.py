"""The `moot` command line: one thin module per command over the public API (`moot.api`)."""
