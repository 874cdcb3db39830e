"""The shipped NASTUI-MIB checked by libsmi's `smilint` (Debian smitools), the strictest common
MIB checker, at its highest level: not one message. The IETF modules it imports are the real
ones (tests/fixtures/mibs, see its PROVENANCE.md); NET-SNMP-MIB comes from libsnmp-base."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, REPO, require_tool

MIB = REPO / "nastui" / "mibs" / "NASTUI-MIB.txt"
NET_SNMP_MIBS = Path("/usr/share/snmp/mibs")

pytestmark = pytest.mark.integration


def smilint(path: Path) -> subprocess.CompletedProcess[str]:
    tool = require_tool("smilint", "smitools")
    if not (NET_SNMP_MIBS / "NET-SNMP-MIB.txt").is_file():
        require_tool("NET-SNMP-MIB.txt", "libsnmp-base")  # fails or skips, naming the package
    env = {**os.environ, "SMIPATH": f"{FIXTURES / 'mibs'}:{NET_SNMP_MIBS}"}
    return subprocess.run(
        [tool, "--level=6", "--severity", "--error-names", str(path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


def test_the_shipped_mib_is_smilint_clean() -> None:
    done = smilint(MIB)
    assert done.returncode == 0, done.stderr
    assert done.stdout + done.stderr == ""


def test_smilint_really_checks_it(tmp_path: Path) -> None:
    """The same check on a copy with one mistake (a STATUS removed, an import undone) must
    complain: an empty answer above means the MIB is clean, not that nothing was read."""
    text = MIB.read_text()
    assert "    STATUS      current\n" in text and "Counter64" in text
    broken = tmp_path / "NASTUI-MIB.txt"
    broken.write_text(
        text.replace("    STATUS      current\n", "", 1).replace(", Counter64", "", 1)
    )
    done = smilint(broken)
    output = done.stdout + done.stderr
    assert "expecting STATUS" in output, output
    assert "{basetype-not-imported} SMIv2 base type `Counter64'" in output, output


def test_the_imported_modules_are_the_real_ones() -> None:
    """Before these fixtures were the real RFC 2578-2580 modules, stand-ins declared only a few
    nodes and smilint could not import the macros from them."""
    for name, rfc in (("SNMPv2-SMI", "2578"), ("SNMPv2-TC", "2579"), ("SNMPv2-CONF", "2580")):
        text = (FIXTURES / "mibs" / f"{name}.txt").read_text()
        assert text.startswith(f"{name} DEFINITIONS ::= BEGIN")
        assert "stand-in" not in text
        assert rfc in (FIXTURES / "mibs" / "PROVENANCE.md").read_text()
    assert "OBJECT-TYPE MACRO" in (FIXTURES / "mibs" / "SNMPv2-SMI.txt").read_text()
