"""Fan control's pure logic: no I/O."""
