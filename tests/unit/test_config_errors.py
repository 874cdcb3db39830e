"""Every kind of configuration error, as the one line the user sees."""

from __future__ import annotations

from pathlib import Path

import pytest

from nastui.config import ConfigError, parse_config

CONFIG = Path("/etc/nastui/config.toml")
RV = '[chassis]\npreset = "rv-4324"\n'
FAN = '[[zone]]\nname = "z"\nmode = "pid"\n[[fan]]\nname = "f"\nzone = "z"\n'
MAIL = '[alerts.email]\nto = "a@example.org"\nfrom = "n@example.org"\nhost = "smtp"\n'
V3 = '[[host]]\nname = "u"\naddress = "u"\nversion = "3"\nuser = "me"\n'


def error(text: str) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        parse_config(text, CONFIG)
    return info.value


CASES = {
    # ---- syntax
    "syntax": ("a = 1\nb = = 2\n", "config.toml:2: TOML syntax error: invalid value (column 5)"),
    "syntax at end": (
        "a = [1,\n",
        "config.toml:1: TOML syntax error: invalid value (at the end of the file)",
    ),
    "duplicate key": (
        "a = 1\na = 2\n",
        "config.toml:2: TOML syntax error: cannot overwrite a value (column 6)",
    ),
    # ---- structure
    "unknown top key": (
        "hostnme = 'x'\n",
        "config.toml:1: unknown key hostnme (did you mean hostname?)",
    ),
    "unknown key without a near one": (
        "[ui]\nzzz = 1\n",
        "config.toml:2: unknown key ui.zzz (expected one of: ascii, colors)",
    ),
    "unknown quoted key": (
        '[ui]\n"my key" = 1\n',
        'config.toml:2: unknown key ui."my key" (expected one of: ascii, colors)',
    ),
    "section not a table": ("poll = 5\n", "config.toml:1: poll must be a table, got 5"),
    "single table for array": (
        "[fan]\nname = 'x'\n",
        "config.toml:1: fan must be an array of tables ([[fan]]), got a table",
    ),
    "array item not a table": ("host = [1]\n", "config.toml:1: host[1] must be a table, got 1"),
    "hostname empty": (
        'hostname = " "\n',
        'config.toml:1: hostname must be a non-empty string, got " "',
    ),
    # ---- chassis
    "rows not an integer": (
        '[chassis]\nrows = "six"\ncolumns = 4\n',
        'config.toml:2: chassis.rows must be an integer from 1 to 128, got "six"',
    ),
    "rows a boolean": (
        "[chassis]\nrows = true\ncolumns = 4\n",
        "config.toml:2: chassis.rows must be an integer from 1 to 128, got true",
    ),
    "columns missing": ("[chassis]\nrows = 2\n", "config.toml:1: chassis.columns is required"),
    "no layout": (
        "[chassis]\nempty = [1]\n",
        "config.toml:1: chassis needs a layout: set chassis.preset (one of: rv-4324, "
        "norco-rpc-4224, supermicro-cse-846, supermicro-cse-847, 45drives-q30, 45drives-s45, "
        "45drives-xl60, hl15, desktop-4, desktop-8, 2u-12, top-102), or chassis.rows and "
        "chassis.columns, or [[chassis.face]] tables",
    ),
    "unknown preset": (
        '[chassis]\npreset = "rv4324"\n',
        'config.toml:2: chassis.preset "rv4324" is not a preset; choose one of: rv-4324, '
        "norco-rpc-4224, supermicro-cse-846, supermicro-cse-847, 45drives-q30, 45drives-s45, "
        "45drives-xl60, hl15, desktop-4, desktop-8, 2u-12, top-102",
    ),
    "misspelt key": (
        '[chassis]\nname = "x"\nrows = 6\ncolums = 4\n',
        "config.toml:4: unknown key chassis.colums (did you mean columns?)",
    ),
    "preset with rows": (
        RV + "rows = 6\n",
        "config.toml:3: chassis.rows cannot be used with chassis.preset (a preset fixes the grid)",
    ),
    "faces with shorthand": (
        "[chassis]\norder = 'rows'\n[[chassis.face]]\nrows = 1\ncolumns = 1\n",
        "config.toml:2: chassis.order cannot be used with chassis.face "
        "(set it in each [[chassis.face]])",
    ),
    "bad order": (
        RV + 'order = "diagonal"\n',
        'config.toml:3: chassis.order must be one of "rows", "columns", got "diagonal"',
    ),
    "negative first": (
        RV + "first = -1\n",
        "config.toml:3: chassis.first must be an integer from 0 to 9999, got -1",
    ),
    "unknown face key": (
        "[chassis]\n[[chassis.face]]\nrows = 1\ncolumns = 2\nrow = 1\n",
        "config.toml:5: unknown key chassis.face[1].row (did you mean rows?)",
    ),
    "bad side": (
        "[chassis]\n[[chassis.face]]\nside = 'left'\nrows = 1\ncolumns = 2\n",
        'config.toml:3: chassis.face[1].side must be one of "front", "rear", "top", got "left"',
    ),
    "two front faces": (
        "[chassis]\n[[chassis.face]]\nrows = 1\ncolumns = 2\n"
        "[[chassis.face]]\nrows = 1\ncolumns = 2\n",
        "config.toml:5: chassis.face[2]: chassis.face[1] (line 2) is already the front face; "
        "give each face its own side",
    ),
    "overlapping faces": (
        "[chassis]\n[[chassis.face]]\nrows = 2\ncolumns = 2\n"
        "[[chassis.face]]\nside = 'rear'\nrows = 1\ncolumns = 2\nfirst = 3\n",
        "config.toml:9: chassis.face[2] numbers bay 3 that an earlier face already numbers; "
        "set chassis.face[2].first = 4 (or higher)",
    ),
    "empty face list": (
        "[chassis]\nface = []\n",
        "config.toml:2: chassis.face must hold at least one face",
    ),
    "only a broken face": (
        "[chassis]\n[[chassis.face]]\nrows = 0\ncolumns = 2\n",
        "config.toml:3: chassis.face[1].rows must be an integer from 1 to 128, got 0",
    ),
    "hole outside": (
        "[chassis]\nrows = 2\ncolumns = 2\nholes = [\n  [0, 0],\n  [2, 1],\n]\n",
        "config.toml:6: chassis.holes[2] [2, 1] is outside the 2 x 2 grid "
        "(rows 0-1, columns 0-1, counted from 0)",
    ),
    "hole not a pair": (
        "[chassis]\nrows = 2\ncolumns = 2\nholes = [[0]]\n",
        "config.toml:4: chassis.holes[1] must be a [row, column] pair of integers, got an array",
    ),
    "holes fill the face": (
        "[chassis]\nrows = 1\ncolumns = 1\nholes = [[0, 0]]\n",
        "config.toml:4: chassis.holes leave no bays on chassis",
    ),
    "empty bay not a number": (
        RV + 'empty = ["5"]\n',
        'config.toml:3: chassis.empty[1] must be a bay number, got "5"',
    ),
    "empty bay not in chassis": (
        RV + "empty = [5, 24]\n",
        "config.toml:3: chassis.empty[2]: there is no bay 24 in this chassis (it has bays 0-23)",
    ),
    "bound bay not in chassis": (
        RV + '[[chassis.bay]]\nbay = 40\nserial = "A"\n',
        "config.toml:4: chassis.bay[1].bay: there is no bay 40 in this chassis (it has bays 0-23)",
    ),
    "binding without bay": (
        RV + '[[chassis.bay]]\nserial = "A"\n',
        "config.toml:3: chassis.bay[1].bay is required",
    ),
    "two matchers": (
        RV + '[[chassis.bay]]\nbay = 1\nserial = "A"\nby_id = "B"\n',
        "config.toml:3: chassis.bay[1] must set exactly one of serial, by_id, by_path, "
        "enclosure; it sets serial, by_id",
    ),
    "no matcher": (
        RV + "[[chassis.bay]]\nbay = 1\n",
        "config.toml:3: chassis.bay[1] must set exactly one of serial, by_id, by_path, "
        "enclosure; it sets none",
    ),
    "bay bound twice": (
        RV + '[[chassis.bay]]\nbay = 1\nserial = "A"\n[[chassis.bay]]\nbay = 1\nserial = "B"\n',
        "config.toml:7: chassis.bay[2].bay: bay 1 is already bound by chassis.bay[1] (line 3)",
    ),
    "serial bound twice": (
        RV
        + '[[chassis.bay]]\nbay = 1\nserial = "pk1"\n[[chassis.bay]]\nbay = 2\nserial = "PK1 "\n',
        "config.toml:8: chassis.bay[2].serial: serial PK1  is already bound by chassis.bay[1] "
        "(line 3)",
    ),
    "by-id bound twice": (
        RV + "[[chassis.bay]]\nbay = 1\nby_id = 'ata-X'\n"
        "[[chassis.bay]]\nbay = 2\nby_id = '/dev/disk/by-id/ata-X'\n",
        "config.toml:8: chassis.bay[2].by_id: by-id /dev/disk/by-id/ata-X is already bound by "
        "chassis.bay[1] (line 3)",
    ),
    "bad enclosure": (
        RV + '[[chassis.bay]]\nbay = 1\nenclosure = "slot 3"\n',
        'config.toml:5: chassis.bay[1].enclosure must be an enclosure and slot as "ENCLOSURE:SLOT" '
        '(slot a number), got "slot 3"',
    ),
    "by-id in the wrong directory": (
        RV + '[[chassis.bay]]\nbay = 1\nby_id = "/dev/sda"\n',
        "config.toml:5: chassis.bay[1].by_id must be a name in /dev/disk/by-id/ "
        '(with or without that directory), got "/dev/sda"',
    ),
    "empty serial": (
        RV + '[[chassis.bay]]\nbay = 1\nserial = ""\n',
        'config.toml:5: chassis.bay[1].serial must be a non-empty string, got ""',
    ),
    # ---- thresholds
    "warning above critical": (
        "[thresholds.hdd]\nwarning = 55\ncritical = 50\n",
        "config.toml:2: thresholds.hdd.warning (55) must be below thresholds.hdd.critical (50)",
    ),
    "critical below default warning": (
        "[thresholds.nvme]\ncritical = 60.5\n",
        "config.toml:2: thresholds.nvme.critical (60.5) must be above "
        "thresholds.nvme.warning (70, the default)",
    ),
    "temperature out of range": (
        "[thresholds.ssd]\nwarning = 130\n",
        "config.toml:2: thresholds.ssd.warning must be a number of °C from -20 to 120, got 130",
    ),
    "temperature not finite": (
        "[thresholds.ssd]\nwarning = nan\n",
        "config.toml:2: thresholds.ssd.warning must be a number of °C from -20 to 120, got nan",
    ),
    "unknown drive class": (
        "[thresholds.sas]\nwarning = 40\n",
        "config.toml:1: unknown key thresholds.sas (did you mean ssd?)",
    ),
    "attribute id out of range": (
        "[[thresholds.attribute]]\nid = 256\nwarning = 1\n",
        "config.toml:2: thresholds.attribute[1].id must be an integer from 1 to 255, got 256",
    ),
    "attribute without id": (
        "[[thresholds.attribute]]\nwarning = 1\n",
        "config.toml:1: thresholds.attribute[1].id is required",
    ),
    "attribute level true": (
        "[[thresholds.attribute]]\nid = 5\nwarning = true\n",
        "config.toml:3: thresholds.attribute[1].warning must be a positive integer "
        "up to 281474976710655 (a raw count) or false (never), got true",
    ),
    "attribute levels reversed": (
        "[[thresholds.attribute]]\nid = 5\nwarning = 10\ncritical = 2\n",
        "config.toml:3: thresholds.attribute[1].warning (10) must be below "
        "thresholds.attribute[1].critical (2)",
    ),
    "attribute twice": (
        "[[thresholds.attribute]]\nid = 5\n[[thresholds.attribute]]\nid = 5\n",
        "config.toml:4: thresholds.attribute[2].id 5 is already set by "
        "thresholds.attribute[1] (line 1)",
    ),
    "stale_after zero": (
        "[thresholds]\nstale_after = 0\n",
        "config.toml:2: thresholds.stale_after must be a positive number of seconds up to "
        "31622400, got 0",
    ),
    "nvme wear": (
        "[thresholds]\nnvme_percent_used_warning = 0\n",
        "config.toml:2: thresholds.nvme_percent_used_warning must be an integer from 1 to 255, "
        "got 0",
    ),
    # ---- poll
    "poll zero": (
        "[poll]\nio = 0\n",
        "config.toml:2: poll.io must be a number of seconds from 0.1 to 86400, got 0",
    ),
    "poll string": (
        '[poll]\nsmart = "5m"\n',
        'config.toml:2: poll.smart must be a number of seconds from 0.1 to 86400, got "5m"',
    ),
    "poll unknown": (
        "[poll]\ntemp = 1\n",
        "config.toml:2: unknown key poll.temp (did you mean temperature?)",
    ),
    "misspelt preset": (
        '[chassis]\npreest = "rv-4324"\n',
        "config.toml:2: unknown key chassis.preest (did you mean preset?)",
    ),
    "misspelt required key": (
        '[[zone]]\nnmae = "a"\nmode = "pid"\n',
        "config.toml:2: unknown key zone[1].nmae (did you mean name?)",
    ),
    # ---- zones
    "zone without name": ("[[zone]]\nmode = 'pid'\n", "config.toml:1: zone[1].name is required"),
    "zone names twice": (
        "[[zone]]\nname = 'a'\nmode = 'pid'\n[[zone]]\nname = 'a'\nmode = 'pid'\n",
        'config.toml:5: zone[2].name "a" is already the name of zone[1] (line 1)',
    ),
    "curve missing": (
        "[[zone]]\nname = 'a'\n",
        "config.toml:1: zone[1].curve is required "
        '([[temperature, duty], ...] points, or mode = "pid")',
    ),
    "curve empty": (
        "[[zone]]\nname = 'a'\ncurve = []\n",
        "config.toml:3: zone[1].curve must hold at least one [temperature, duty] point",
    ),
    "curve point not a pair": (
        "[[zone]]\nname = 'a'\ncurve = [[30, 20, 5]]\n",
        "config.toml:3: zone[1].curve[1] must be a [temperature, duty] pair of numbers, "
        "got an array",
    ),
    "curve temperatures not rising": (
        "[[zone]]\nname = 'a'\ncurve = [\n  [30, 20],\n  [30, 50],\n]\n",
        "config.toml:5: zone[1].curve[2] temperature (30) must be above the point before it (30): "
        "list points from cool to hot",
    ),
    "curve duty falling": (
        "[[zone]]\nname = 'a'\ncurve = [[30, 50], [40, 40]]\n",
        "config.toml:3: zone[1].curve[2] duty (40) must not be below the point before it (50): "
        "duty must not fall as temperature rises",
    ),
    "curve duty above 100": (
        "[[zone]]\nname = 'a'\ncurve = [[30, 120]]\n",
        "config.toml:3: zone[1].curve[1] duty (120) must be from 0 to 100 %",
    ),
    "curve temperature out of range": (
        "[[zone]]\nname = 'a'\ncurve = [[-40, 20]]\n",
        "config.toml:3: zone[1].curve[1] temperature (-40) must be from -20 to 120 °C",
    ),
    "unknown source": (
        "[[zone]]\nname = 'a'\nmode = 'pid'\nsource = ['hottest-drive', 'gpu']\n",
        'config.toml:4: zone[1].source "gpu" is not a source; use one of "hottest-drive", '
        '"average-drives", "cpu", "max"',
    ),
    "max alone": (
        "[[zone]]\nname = 'a'\nmode = 'pid'\nsource = 'max'\n",
        'config.toml:4: zone[1].source "max" needs the sources to take the maximum of, as in '
        'source = ["hottest-drive", "cpu"] (several sources always combine by their maximum)',
    ),
    "fan before a zone with a bad source": (
        "[[fan]]\nname = 'f'\nzone = 'a'\ndriver = 'ipmi-dell'\nipmi_zone = 0\n"
        "[[zone]]\nname = 'a'\nmode = 'pid'\nsource = 'gpu'\n",
        'config.toml:9: zone[1].source "gpu" is not a source; use one of "hottest-drive", '
        '"average-drives", "cpu", "max"',
    ),
    "source not strings": (
        "[[zone]]\nname = 'a'\nmode = 'pid'\nsource = [1]\n",
        "config.toml:4: zone[1].source must be a non-empty string or an array of non-empty "
        "strings, got an array",
    ),
    "bad mode": (
        "[[zone]]\nname = 'a'\nmode = 'auto'\n",
        'config.toml:3: zone[1].mode must be one of "curve", "pid", got "auto"',
    ),
    "zone duty limits reversed": (
        "[[zone]]\nname = 'a'\nmode = 'pid'\nmin_duty = 80\nmax_duty = 60\n",
        "config.toml:4: zone[1].min_duty (80) must be at most zone[1].max_duty (60)",
    ),
    "zone max below default min": (
        "[[zone]]\nname = 'a'\nmode = 'pid'\nmax_duty = 10\n",
        "config.toml:4: zone[1].max_duty (10) must be at least zone[1].min_duty (20, the default)",
    ),
    "negative gain": (
        "[[zone]]\nname = 'a'\nmode = 'pid'\nki = -1\n",
        "config.toml:4: zone[1].ki must be a number from 0 to 100, got -1",
    ),
    "stale periods zero": (
        "[[zone]]\nname = 'a'\nmode = 'pid'\nstale_periods = 0\n",
        "config.toml:4: zone[1].stale_periods must be an integer from 1 to 20, got 0",
    ),
    "trust after zero": (
        "[[zone]]\nname = 'a'\nmode = 'pid'\ntrust_after = 0\n",
        "config.toml:4: zone[1].trust_after must be an integer from 1 to 60, got 0",
    ),
    "trust after an hour of readings": (
        "[[zone]]\nname = 'a'\nmode = 'pid'\ntrust_after = 720\n",
        "config.toml:4: zone[1].trust_after must be an integer from 1 to 60, got 720",
    ),
    "trust after a fraction": (
        "[[zone]]\nname = 'a'\nmode = 'pid'\ntrust_after = 2.5\n",
        "config.toml:4: zone[1].trust_after must be an integer from 1 to 60, got 2.5",
    ),
    # ---- fans
    "fan without driver": (FAN, "config.toml:4: fan[1].driver is required"),
    "unknown driver": (
        FAN + 'driver = "pwm"\n',
        'config.toml:7: fan[1].driver must be one of "hwmon", "ipmi-supermicro", "ipmi-dell", '
        '"command", got "pwm"',
    ),
    "fan in unknown zone": (
        '[[zone]]\nname = "z"\nmode = "pid"\n'
        '[[fan]]\nname = "f"\nzone = "x"\ndriver = "ipmi-dell"\nipmi_zone = 0\n',
        'config.toml:6: fan[1].zone "x" is not a zone; the zones are "z"',
    ),
    "fan without zones": (
        '[[fan]]\nname = "f"\nzone = "x"\ndriver = "ipmi-dell"\nipmi_zone = 0\n',
        'config.toml:3: fan[1].zone "x" is not a zone; there is no [[zone]]',
    ),
    "hwmon needs pwm": (
        FAN + 'driver = "hwmon"\nhwmon_name = "nct6775"\n',
        "config.toml:4: fan[1].pwm is required (the hwmon driver needs it)",
    ),
    "ipmi needs zone": (
        FAN + 'driver = "ipmi-supermicro"\n',
        "config.toml:4: fan[1].ipmi_zone is required (the ipmi-supermicro driver needs it)",
    ),
    "key of another driver": (
        FAN + 'driver = "ipmi-dell"\nipmi_zone = 0\npwm = 2\n',
        "config.toml:9: fan[1].pwm is only used by the hwmon driver; this fan's is ipmi-dell",
    ),
    "key of two other drivers": (
        FAN + 'driver = "command"\nset_command = ["x", "{duty}"]\nipmi_zone = 1\n',
        "config.toml:9: fan[1].ipmi_zone is only used by the ipmi-supermicro and ipmi-dell "
        "drivers; this fan's is command",
    ),
    "pwm not an integer": (
        FAN + 'driver = "hwmon"\nhwmon_name = "nct6775"\npwm = [1]\n',
        "config.toml:9: fan[1].pwm must be an integer from 1 to 32, got an array",
    ),
    "command without duty": (
        FAN + 'driver = "command"\nset_command = ["fanctl", "50"]\n',
        "config.toml:8: fan[1].set_command must contain {duty} (replaced by the duty in percent)",
    ),
    "command not a list": (
        FAN + 'driver = "command"\nset_command = "fanctl {duty}"\n',
        "config.toml:8: fan[1].set_command must be an array of non-empty strings, "
        'got "fanctl {duty}"',
    ),
    "duty above 100": (
        FAN + 'driver = "ipmi-dell"\nipmi_zone = 0\nmax_duty = 110\n',
        "config.toml:9: fan[1].max_duty must be a number of percent from 0 to 100, got 110",
    ),
    "start above max": (
        FAN + 'driver = "ipmi-dell"\nipmi_zone = 0\nmax_duty = 60\nstart_duty = 70\n',
        "config.toml:10: fan[1].start_duty (70) must be at most fan[1].max_duty (60)",
    ),
    "two fans on one output": (
        FAN + 'driver = "ipmi-dell"\nipmi_zone = 0\n'
        '[[fan]]\nname = "g"\nzone = "z"\ndriver = "ipmi-dell"\nipmi_zone = 0\n',
        "config.toml:9: fan[2] drives the same fan output as fan[1] (line 4)",
    ),
    "fan names twice": (
        FAN + 'driver = "ipmi-dell"\nipmi_zone = 0\n'
        '[[fan]]\nname = "f"\nzone = "z"\ndriver = "ipmi-dell"\nipmi_zone = 1\n',
        'config.toml:10: fan[2].name "f" is already the name of fan[1] (line 4)',
    ),
    # ---- alerts
    "password in config": (
        MAIL + 'username = "n"\npassword = "hunter2"\n',
        "config.toml:6: alerts.email.password is not allowed: never store secrets in the config; "
        "name a file holding the password with password_file, or a variable with password_env",
    ),
    # The README audit: the unknown-key list offered `password`, which is then refused.
    "unknown email key offers only accepted keys": (
        MAIL + 'zzz = "x"\n',
        "config.toml:5: unknown key alerts.email.zzz (expected one of: to, from, host, port, "
        "security, username, password_file, password_env)",
    ),
    "a misspelt password is not told to be password": (
        MAIL + 'passwrd = "x"\n',
        "config.toml:5: unknown key alerts.email.passwrd (did you mean password_env?)",
    ),
    "unknown apprise key offers only accepted keys": (
        '[[alerts.apprise]]\nname = "n"\nurl_env = "U"\nzzz = 1\n',
        "config.toml:4: unknown key alerts.apprise[1].zzz (expected one of: name, url_file, "
        "url_env)",
    ),
    "username without password": (
        MAIL + 'username = "n"\n',
        "config.toml:5: alerts.email.username needs a password: set password_file or password_env",
    ),
    "password without username": (
        MAIL + 'password_env = "PW"\n',
        "config.toml:1: alerts.email has a password but no username; set alerts.email.username",
    ),
    "two password sources": (
        MAIL + 'username = "n"\npassword_file = "/pw"\npassword_env = "PW"\n',
        "config.toml:7: alerts.email sets both password_file and password_env; keep one",
    ),
    "bad env name": (
        MAIL + 'username = "n"\npassword_env = "$PW"\n',
        "config.toml:6: alerts.email.password_env must be an environment variable name "
        '(letters, digits, _), got "$PW"',
    ),
    "password file with tilde": (
        MAIL + 'username = "n"\npassword_file = "~/pw"\n',
        "config.toml:6: alerts.email.password_file must be an absolute path or one relative to "
        'this file (no ~), got "~/pw"',
    ),
    "mail without host": (
        '[alerts.email]\nto = "a@example.org"\nfrom = "n@example.org"\n',
        "config.toml:1: alerts.email.host is required",
    ),
    "bad address": (
        '[alerts.email]\nto = ["a@example.org", "oncall"]\nfrom = "n@example.org"\nhost = "h"\n',
        "config.toml:2: alerts.email.to 'oncall' is not a mail address",
    ),
    "bad security": (
        MAIL + 'security = "ssl"\n',
        'config.toml:5: alerts.email.security must be one of "starttls", "tls", "none", got "ssl"',
    ),
    "bad port": (
        MAIL + "port = 70000\n",
        "config.toml:5: alerts.email.port must be an integer from 1 to 65535, got 70000",
    ),
    "webhook not http": (
        '[alerts]\nwebhook = "ftp://x/y"\n',
        'config.toml:2: alerts.webhook must be an http:// or https:// URL, got "ftp://x/y"',
    ),
    "exec empty": (
        "[alerts]\nexec = []\n",
        "config.toml:2: alerts.exec must be an array of non-empty strings, got an array",
    ),
    "repeat interval": (
        "[alerts]\nrepeat_interval = -5\n",
        "config.toml:2: alerts.repeat_interval must be a positive number of seconds up to "
        "31622400, got -5",
    ),
    # ---- hosts
    "host without address": (
        "[[host]]\nname = 'a'\n",
        "config.toml:1: host[1].address is required",
    ),
    "v3 without user": (
        "[[host]]\nname = 'a'\naddress = 'b'\nversion = '3'\n",
        "config.toml:1: host[1].user is required (SNMPv3 needs a user name)",
    ),
    "version as number": (
        "[[host]]\nname = 'a'\naddress = 'b'\nversion = 3\n",
        'config.toml:4: host[1].version must be one of "2c", "3" (a string), got 3',
    ),
    "v3 key on v2c": (
        "[[host]]\nname = 'a'\naddress = 'b'\nuser = 'me'\n",
        'config.toml:4: host[1].user is only used with version = "3"',
    ),
    "community on v3": (
        V3 + "community = 'c'\n",
        'config.toml:6: host[1].community is only used with version = "2c"',
    ),
    "short password": (
        V3 + "auth_password = 'short'\n",
        "config.toml:6: host[1].auth_password must be at least 8 characters (SNMPv3)",
    ),
    "priv without auth": (
        V3 + "priv_password = 'long enough'\n",
        "config.toml:6: host[1].priv_password needs auth_password too",
    ),
    "bad auth protocol": (
        V3 + "auth_protocol = 'sha1'\n",
        'config.toml:6: host[1].auth_protocol must be one of "MD5", "SHA", "SHA-224", '
        '"SHA-256", "SHA-384", "SHA-512", got "sha1"',
    ),
    "bad profile": (
        "[[host]]\nname = 'a'\naddress = 'b'\nprofile = 'dell'\n",
        'config.toml:4: host[1].profile must be one of "net-snmp", "synology", "qnap", '
        '"truenas", "ups", "apc", "nastui", got "dell"',
    ),
    "host names twice": (
        "[[host]]\nname = 'a'\naddress = 'b'\n[[host]]\nname = 'a'\naddress = 'c'\n",
        'config.toml:5: host[2].name "a" is already the name of host[1] (line 1)',
    ),
    "retries negative": (
        "[[host]]\nname = 'a'\naddress = 'b'\nretries = -1\n",
        "config.toml:4: host[1].retries must be an integer from 0 to 10, got -1",
    ),
    # ---- ui
    "ascii not a bool": (
        '[ui]\nascii = "yes"\n',
        'config.toml:2: ui.ascii must be true or false, got "yes"',
    ),
    "bad colors": (
        "[ui]\ncolors = 257\n",
        'config.toml:2: ui.colors must be one of "none", "16", "256", "truecolor" '
        "(16 and 256 may be written as numbers), got 257",
    ),
}


@pytest.mark.parametrize(("text", "expected"), list(CASES.values()), ids=list(CASES))
def test_error_message(text: str, expected: str) -> None:
    assert str(error(text)) == expected


def test_error_carries_the_dotted_key() -> None:
    err = error(
        RV + '[[chassis.bay]]\nbay = 1\nserial = "A"\n[[chassis.bay]]\nbay = 2\nserial = "a"\n'
    )
    assert err.key == "chassis.bay[2].serial"
    assert err.line == 8
    assert err.path == CONFIG


def test_syntax_error_has_no_key() -> None:
    err = error("[chassis\n")
    assert (err.key, err.line) == ("", 1)


def test_no_table_takes_a_key_it_refuses() -> None:
    from nastui.config.keys import REFUSED_KEYS, TABLES

    for table, refused in REFUSED_KEYS.items():
        assert not set(refused) & set(TABLES[table]), table
