"""The history database: what the daemon saw, kept across restarts in one SQLite file.

`record` turns snapshots into rows (pure); `db` opens the file and reads and writes them. The
daemon is the one writer; the TUI and the CLI read it (trends that survive a restart, the
alert log) and write only acknowledgements.
"""
