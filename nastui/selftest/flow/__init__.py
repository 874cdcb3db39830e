"""Self-tests in the monitoring daemon: one cycle's follow-and-start, and its duty."""
