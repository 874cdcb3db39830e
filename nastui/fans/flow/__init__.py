"""`nastui fand`, the fan control daemon."""
