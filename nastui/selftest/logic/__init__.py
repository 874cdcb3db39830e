"""Self-tests' pure logic: no I/O."""
