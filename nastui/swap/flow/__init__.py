"""The swap's steps, shared by `nastui swap`, the interface and the monitoring daemon."""
