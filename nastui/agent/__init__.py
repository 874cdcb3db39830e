"""nastui as an SNMP source: a net-snmp pass_persist agent serving the daemon's latest snapshot.

`mib` is the OID layout (documented in `nastui/mibs/NASTUI-MIB.txt`), `table` builds the sorted
OID table from a snapshot (pure), `protocol` answers pass_persist requests from it (pure), and
`loop.Agent` is the stdin/stdout loop `nastui snmp-agent` runs under snmpd.
"""

from __future__ import annotations
