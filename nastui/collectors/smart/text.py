"""Pure parsers for the parts of smartctl's text output that pySMART does not read, or reads in
a way nastui cannot use.

- The power mode `-n standby` reports ("Power mode is: ACTIVE or IDLE", "Device is in STANDBY
  mode, exit(2)"): pySMART ignores it, and a standby report comes back as an empty device.
- The drive's own overall assessment: pySMART folds attribute warnings into its `assessment`.
- The WWN, and whether smartctl had to ignore `-n` (then asking the drive may wake it).
- The brief attribute table of `smartctl -x` ("FLAGS ... FAIL RAW_VALUE" with "PO--CK" flags),
  and the older layouts (smartctl 5.0-5.33 without UPDATED, 5.37's flag letters in the `-a`
  table), which pySMART's table parser cannot read: `classic_attribute_lines` rewrites them
  into the `smartctl -a` layout pySMART does read, keeping every value.
- Which interface a saved report came from, so pySMART is told it (never left to guess).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator

from nastui.model import PowerState
from nastui.model.errors import ParseError

# Sample: smartctl 7.3 2022-02-28 r5338 [x86_64-linux-6.1.0-13-amd64] (local build)
BANNER = re.compile(r"^smartctl (?P<version>\d+\.\d+)\b")
# Sample: Power mode is:    ACTIVE or IDLE          (ATA; SCSI: "Power mode is:       ACTIVE")
_POWER_MODE = re.compile(r"^Power mode (?:is|was):\s+(?P<mode>\S.*?)\s*$")
# Sample: Device is in STANDBY mode, exit(2)        (also "STANDBY (OS)", "SLEEP", "IDLE_B")
_DEVICE_IS_IN = re.compile(r"^Device is in (?P<mode>.+?) mode(?:, exit\(\d+\))?\s*$")
# Sample: === START OF READ SMART DATA SECTION ===   (or a standby report's "Device is in ...")
_SECTION = re.compile(r"^(=== START OF .* SECTION ===|Device is in .+ mode)")
# Sample: CHECK POWER MODE not implemented, ignoring -n option
_IGNORING_N = re.compile(r"ignoring -n option")
# Sample: SMART overall-health self-assessment test result: PASSED     (ATA, NVMe: "FAILED!")
_OVERALL = re.compile(r"^SMART overall-health self-assessment test result:\s*(?P<result>\S+)")
# Sample: SMART Health Status: OK                     (SCSI: anything else is a failure)
_SCSI_STATUS = re.compile(r"^SMART Health Status:\s*(?P<result>.+?)\s*$")
# Sample: LU WWN Device Id: 5 000cca 22bc1a6e3       (ATA)
_ATA_WWN = re.compile(
    r"^LU WWN Device Id:\s+(?P<naa>[0-9a-f])\s+(?P<oui>[0-9a-f]{6})\s+(?P<id>[0-9a-f]{9})\s*$", re.I
)
# Sample: Logical Unit id:      0x5000cca27076bfe8   (SCSI)
_SCSI_WWN = re.compile(r"^Logical Unit id:\s+0x(?P<hex>[0-9a-f]{16})\s*$", re.I)
# Sample: Non-medium error count:    10237
_NON_MEDIUM = re.compile(r"^Non-medium error count:\s+(?P<count>\d+)")
# Sample: ID# ATTRIBUTE_NAME          FLAGS    VALUE WORST THRESH FAIL RAW_VALUE
_BRIEF_HEADER = re.compile(
    r"^ID#\s+ATTRIBUTE_NAME\s+FLAGS?\s+VALUE\s+WORST\s+THRESH\s+FAIL\s+RAW_VALUE"
)
# Sample:   5 Reallocated_Sector_Ct   PO--CK   100   100   005    -    14
# Sample: 194 Temperature_Celsius     -O----   089   089   000    -    67 (Min/Max 22/73)
# Sample:  12 Power_Cycle_Count       -OSRCK+  000   048   ---    -    281474959933440
BRIEF_ROW = re.compile(
    r"^\s*(?P<id>\d{1,3})\s+(?P<name>\S+)\s+(?P<flags>[-POSRCK]{6})\+?\s+(?P<value>\d+|---)"
    r"\s+(?P<worst>\d+|---)\s+(?P<thresh>\d+|---)\s+(?P<fail>-|NOW|Past)\s+(?P<raw>\S.*?)\s*$"
)
# smartctl 5.0-5.33 printed no UPDATED column:
# Sample: ID# ATTRIBUTE_NAME          FLAG     VALUE WORST THRESH TYPE     WHEN_FAILED RAW_VALUE
_OLD_HEADER = re.compile(
    r"^ID#\s+ATTRIBUTE_NAME\s+FLAG\s+VALUE\s+WORST\s+THRESH\s+TYPE\s+WHEN_FAILED\s+RAW_VALUE"
)
# Sample:   9 Power_On_Hours          0x0032   253   253   000    Old_age      -       27 h + 13 m
_OLD_ROW = re.compile(
    r"^\s*(?P<id>\d{1,3})\s+(?P<name>\S+)\s+0x(?P<word>[0-9a-fA-F]{4})\s+(?P<value>\d+)"
    r"\s+(?P<worst>\d+)\s+(?P<thresh>\d+)\s+(?P<kind>Pre-fail|Old_age)"
    r"\s+(?P<fail>-|FAILING_NOW|In_the_past)\s+(?P<raw>\S.*?)\s*$"
)
# smartctl 5.37-5.38 `-f brief`: flag letters (M, self-preserving, is today's K) in the -a layout:
# Sample: ID# ATTRIBUTE_NAME   FLAGS  VALUE WORST THRESH TYPE  UPDATED  WHEN_FAILED RAW_VALUE
_LETTERS_HEADER = re.compile(
    r"^ID#\s+ATTRIBUTE_NAME\s+FLAGS\s+VALUE\s+WORST\s+THRESH\s+TYPE\s+UPDATED\s+WHEN_FAILED"
)
# Sample:   5 Reallocated_Sector_Ct   PO--CM   129   129   140    Pre-fail  Always   FAILING_NOW 562
_LETTERS_ROW = re.compile(
    r"^\s*(?P<id>\d{1,3})\s+(?P<name>\S+)\s+(?P<flags>[-POSRCKM]{6})\s+(?P<value>\d+)"
    r"\s+(?P<worst>\d+)\s+(?P<thresh>\d+)\s+(?P<kind>Pre-fail|Old_age)\s+(?P<updated>Always|Offline)"
    r"\s+(?P<fail>-|FAILING_NOW|In_the_past)\s+(?P<raw>\S.*?)\s*$"
)
# smartctl before 5.39, SCSI: no sections, vendor and product in fixed 8- and 16-wide columns
# Sample: Device: SEAGATE  ST373207LC       Version: 0005
_OLD_SCSI_DEVICE = re.compile(
    r"^Device: (?P<vendor>.{8}) (?P<product>.{16}) Version: (?P<rev>.*?)\s*$", re.M
)
# Sample: SMART Sense: Ok!
_OLD_SCSI_SENSE = re.compile(r"^SMART Sense: (.+?)\s*$", re.M)
_INFO_SECTION = "=== START OF INFORMATION SECTION ==="
_DATA_SECTION = "=== START OF READ SMART DATA SECTION ==="
_CLASSIC_HEADER = (
    "ID# ATTRIBUTE_NAME          FLAG     VALUE WORST THRESH TYPE      UPDATED  "
    "WHEN_FAILED RAW_VALUE"
)
# Sample: Data Units Read:   21\u202f600\u202f976 [11.0 TB]   (a localized smartctl build)
# Sample: User Capacity:    80'060'424'192 bytes                 (Windows, Swiss locale)
_SEPARATOR = re.compile(r"(?<=\d)[\u00a0\u202f\u2019\ufffd'](?=\d{3}(?:\D|$))")
# Sample: Data Units Read:                    99 815 [132 TB]   (digits grouped by plain spaces)
_SPACE_GROUPS = re.compile(
    r"^(?P<label>[A-Z][A-Za-z .]*:[ \t]+)(?P<num>\d{1,3}(?: \d{3})+)(?=[ \t]*(?:\[|$))", re.M
)
# Sample: SMART Extended Self-test Log Version: 1 (1 sectors)      (-x; -a says the line below)
_EXTENDED_TESTS = re.compile(r"^SMART Extended Self-test Log Version: .*$", re.M)
_CLASSIC_TESTS = "SMART Self-test log structure revision number 1"
# The brief table's flag letters, in order, and the bit each stands for in the FLAG word.
_FLAG_BITS = (
    ("P", 0x01),
    ("O", 0x02),
    ("S", 0x04),
    ("R", 0x08),
    ("C", 0x10),
    ("K", 0x20),
    ("M", 0x20),
)
_FAIL_WORDS = {"-": "-", "NOW": "FAILING_NOW", "Past": "In_the_past"}
_POWER_WORDS = (
    ("STANDBY", PowerState.STANDBY),
    ("SLEEP", PowerState.SLEEP),
    ("LOW POWER", PowerState.STANDBY),
    ("ACTIVE OR IDLE", PowerState.ACTIVE),
    ("IDLE", PowerState.IDLE),
    ("ACTIVE", PowerState.ACTIVE),
)


def _matches(pattern: re.Pattern[str], lines: Iterable[str]) -> Iterator[re.Match[str]]:
    for line in lines:
        match = pattern.search(line.strip())
        if match:
            yield match


def _first(pattern: re.Pattern[str], lines: Iterable[str]) -> re.Match[str] | None:
    return next(_matches(pattern, lines), None)


def power_word(mode: str) -> PowerState:
    """A power mode as smartctl names it ("ACTIVE or IDLE", "STANDBY_Y", "IDLE BY TIMER")."""
    upper = mode.upper()
    for word, state in _POWER_WORDS:
        if upper.startswith(word):
            return state
    return PowerState.UNKNOWN


def power_state(lines: Iterable[str]) -> PowerState:
    """The power mode the report shows; STANDBY or SLEEP when smartctl stopped at `-n`."""
    seen = list(lines)
    stopped = _first(_DEVICE_IS_IN, seen)
    if stopped is not None:
        return power_word(stopped["mode"])
    mode = _first(_POWER_MODE, seen)
    return power_word(mode["mode"]) if mode is not None else PowerState.UNKNOWN


def standby_check_ignored(lines: Iterable[str]) -> bool:
    """smartctl could not check the power mode and went ahead anyway (it may wake the drive)."""
    return _first(_IGNORING_N, lines) is not None


def overall_assessment(lines: Iterable[str]) -> bool | None:
    """The drive's own verdict: True PASSED/OK, False FAILED (or any SCSI status but OK);
    None when there is none, or smartctl could not get one ("UNKNOWN!": a USB bridge that
    does not pass the status through, `overall_unknown`)."""
    seen = list(lines)
    ata = _first(_OVERALL, seen)
    if ata is not None:
        word = ata["result"].upper()
        return True if word.startswith("PASSED") else False if word.startswith("FAILED") else None
    scsi = _first(_SCSI_STATUS, seen)
    if scsi is not None:
        return scsi["result"].upper() == "OK"
    return None


def overall_unknown(lines: Iterable[str]) -> str | None:
    """What smartctl printed as the overall assessment when it is neither PASSED nor FAILED
    ("UNKNOWN!"), else None."""
    ata = _first(_OVERALL, lines)
    if ata is None or ata["result"].upper().startswith(("PASSED", "FAILED")):
        return None
    return ata["result"]


def wwn(lines: Iterable[str]) -> str | None:
    """The WWN as "0x5000cca22bc1a6e3" (None when absent or redacted)."""
    seen = list(lines)
    ata = _first(_ATA_WWN, seen)
    if ata is not None:
        return f"0x{ata['naa']}{ata['oui']}{ata['id']}".lower()
    scsi = _first(_SCSI_WWN, seen)
    return f"0x{scsi['hex'].lower()}" if scsi is not None else None


def non_medium_errors(lines: Iterable[str]) -> int | None:
    """SCSI "Non-medium error count" (pySMART looks for it in lower case and never finds it)."""
    match = _first(_NON_MEDIUM, lines)
    return int(match["count"]) if match is not None else None


def version(lines: Iterable[str]) -> str | None:
    """smartctl's version from its banner line."""
    match = _first(BANNER, lines)
    return match["version"] if match is not None else None


def _row(match: re.Match[str], word: int, kind: str, updated: str, fail: str) -> str:
    """One attribute row in the `smartctl -a` layout pySMART reads."""
    return (
        f"{int(match['id']):3d} {match['name']:<23} 0x{word:04x}   {match['value']:>3}   "
        f"{match['worst']:>3}   {match['thresh']:>3}    {kind:<8}  {updated:<8} "
        f"{fail:<11} {match['raw']}"
    )


def _letters(flags: str) -> int:
    return sum(bit for letter, bit in _FLAG_BITS if letter in flags)


def _from_brief(match: re.Match[str]) -> str:
    flags = match["flags"]
    kind = "Pre-fail" if "P" in flags else "Old_age"
    updated = "Always" if "O" in flags else "Offline"
    return _row(match, _letters(flags), kind, updated, _FAIL_WORDS[match["fail"]])


def _from_old(match: re.Match[str]) -> str:
    word = int(match["word"], 16)
    return _row(match, word, match["kind"], "Always" if word & 0x02 else "Offline", match["fail"])


def _from_letters(match: re.Match[str]) -> str:
    return _row(match, _letters(match["flags"]), match["kind"], match["updated"], match["fail"])


# The attribute tables smartctl has printed other than the `-a` one pySMART reads: heading, row,
# and the row rewritten in the `-a` layout.
_LAYOUTS: tuple[tuple[re.Pattern[str], re.Pattern[str], Callable[[re.Match[str]], str]], ...] = (
    (_BRIEF_HEADER, BRIEF_ROW, _from_brief),
    (_OLD_HEADER, _OLD_ROW, _from_old),
    (_LETTERS_HEADER, _LETTERS_ROW, _from_letters),
)


def _layout(line: str) -> tuple[re.Pattern[str], Callable[[re.Match[str]], str]] | None:
    """The row pattern and rewriter of the table `line` heads, if it heads one to rewrite."""
    for header, row, rewrite in _LAYOUTS:
        if header.match(line):
            return row, rewrite
    return None


def classic_attribute_lines(lines: Iterable[str]) -> list[str]:
    """`lines` with an attribute table in another layout rewritten in the `-a` one: the brief
    table of `smartctl -x`, smartctl 5.0-5.33's table without UPDATED, 5.37's flag letters.

    Rows keep their id, name, values, threshold, failure state and raw value; flag letters
    become the FLAG word, and the TYPE and UPDATED columns come from the flags where the table
    has none. A report without such a table comes back unchanged.
    """
    out: list[str] = []
    table = None
    for line in lines:
        if (found := _layout(line)) is not None:
            table = found
            out.append(_CLASSIC_HEADER)
            continue
        row = table[0].match(line) if table is not None else None
        if row is not None and table is not None:
            out.append(table[1](row))
            continue
        if table is not None and "|" in line:
            continue  # the flag legend under the table
        if table is not None and line.strip():
            continue  # a row not in the layout: named by `unread_attribute_rows`
        table = table if line.strip() else None
        out.append(line)
    return out


def unread_attribute_rows(lines: Iterable[str]) -> list[str]:
    """The rows of a rewritten attribute table that are not in its layout (left out by
    `classic_attribute_lines`, so one odd row never costs the rest of the report)."""
    unread: list[str] = []
    table = None
    for line in lines:
        if (found := _layout(line)) is not None:
            table = found
        elif table is not None and not line.strip():
            table = None
        elif table is not None and "|" not in line and not table[0].match(line):
            unread.append(line)
    return unread


def _sectioned(text: str) -> str:
    """A SCSI report of smartctl before 5.39 (no "=== START OF" sections, "Device: VENDOR
    PRODUCT Version: REV", "SMART Sense: Ok!") in today's wording; any other text unchanged."""
    if "=== START OF" in text or (device := _OLD_SCSI_DEVICE.search(text)) is None:
        return text
    info = (
        f"{_INFO_SECTION}\nVendor:  {device['vendor'].strip()}\n"
        f"Product:  {device['product'].strip()}\nRevision:  {device['rev'].strip()}"
    )
    text = text[: device.start()] + info + text[device.end() :]
    return _OLD_SCSI_SENSE.sub(
        lambda m: f"{_DATA_SECTION}\nSMART Health Status: {'OK' if m[1] == 'Ok!' else m[1]}", text
    )


def normalized_lines(text: str) -> list[str]:
    """A report's lines as pySMART can read them: localized digit separators made commas
    ("21\u202f600\u202f976" -> "21,600,976"), the `-x` self-test log heading in its `-a`
    wording, an attribute table in the classic layout, an old SCSI report in today's wording,
    and a blank line at the end (pySMART's table parser needs one to stop)."""
    plain = _EXTENDED_TESTS.sub(_CLASSIC_TESTS, _SEPARATOR.sub(",", _sectioned(text)))
    plain = _SPACE_GROUPS.sub(lambda m: m["label"] + m["num"].replace(" ", ","), plain)
    return [*classic_attribute_lines(plain.splitlines()), ""]


def interface_of(lines: Iterable[str], source: str) -> str:
    """The smartctl interface a saved text report came from: "nvme", "scsi" or "sat".

    Raises:
        ParseError: the text is not a smartctl report at all.
    """
    seen = list(lines)
    if not any(_SECTION.match(line) for line in seen):
        raise ParseError(
            source, "not a smartctl report (no information, SMART data or power mode section)"
        )
    text = "\n".join(seen)
    if "NVMe Log" in text or "NVM Capacity" in text or "PCI Vendor" in text:
        return "nvme"
    if "Transport protocol:" in text or "SMART Health Status:" in text:
        return "scsi"
    return "sat"
