"""Headless long-running services (no Textual): `fand`, the fan control daemon."""
