"""Self-tests on a real machine: smartctl, and the book kept in the state directory."""
