"""The Prometheus metrics nastui exports (pure): `families` fills them from snapshots,
`exposition` is the text format of one family, `render` the whole text a textfile
collector or `/metrics` serves."""
