"""SMART collection: smartctl's text and JSON reports read into `SmartReading`s and `Drive`s.

Import the submodule you need (`collector`, `text`, `json_report`, `pysmart_parse`, `reading`,
`errors`, `wake`, `acks`): this package imports nothing itself, so a reader of JSON reports does
not pull in pySMART.
"""
