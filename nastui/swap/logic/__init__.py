"""The swap's pure logic: no I/O, the clock passed in."""
