"""The monitoring daemon (`nastui daemon`, no Textual): collect, store, alert, notify,
serve /metrics. Features that run their own flows live in their packages: the fan daemon
in `nastui.fans.flow`, the self-test duty in `nastui.selftest.flow`."""
