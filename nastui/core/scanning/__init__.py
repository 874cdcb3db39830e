"""Scrubs, resilvers and rebuilds (pure): `tracker` smooths their rate and ETA across
samples, `words` says what a scan or scrub action means, for the CLI and the UI."""
