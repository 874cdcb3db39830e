"""Disk benchmarks: profiles, fio/dd/write-sync-close job building, the fio json+ stream splitter
and differ, the device-in-use guard, the write-cache switch, saved runs, comparisons and charts.

The write side of nastui's benchmarks, beside `nastui.control`: it never imports the collectors.
Programs run through the runner the front end hands in (`nastui.bench.host.BenchHost`, which
`nastui.collectors.fio_host` implements over `nastui.collectors.runner.stream`), and targets are
inspected by `nastui.collectors.fio_target`. The parsers and the differ are pure functions.
"""
