"""Finding, reading and checking the configuration file: TOML in, a frozen `Config` out.

`parse_config` is pure: it parses with tomllib, checks every section (`nastui.config.parse`,
loaded only when there is a file to check: the built-in defaults need none of it) and raises
one `ConfigError` for the problem nearest the top of the file, with its line. `load_config` reads
the file (a regular file only, bounded in size, never blocking); `find_config_path` says which
file that is.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from nastui.config.schema import Config
from nastui.safeio import UnsafeFileError, read_bounded

MAX_FILE_BYTES = 256 << 10  # a configuration is a few kB; a bigger file is not one
MAX_DEPTH = 8  # tables and arrays within each other: the deepest real key (a face's hole) is 5

CONFIG_NAME = Path("nastui") / "config.toml"


class ConfigError(Exception):
    """A configuration file that cannot be used, with the one problem to fix first.

    `str()` is "config.toml:12: message", or "config.toml: message" without a line.

    Attributes:
        path: the file.
        line: 1-based line of the problem, when it has one.
        key: dotted key at fault ("chassis.bay[2].serial"); "" for file and syntax errors.
        message: what is wrong, naming the key.
        others: the other problems found in the same file, in its order (`every`).
    """

    def __init__(
        self,
        path: Path,
        line: int | None,
        key: str,
        message: str,
        others: tuple[ConfigError, ...] = (),
    ) -> None:
        super().__init__(path, line, key, message)
        self.path = path
        self.line = line
        self.key = key
        self.message = message
        self.others = others

    def __str__(self) -> str:
        where = self.path.name if self.line is None else f"{self.path.name}:{self.line}"
        return f"{where}: {self.message}"

    def every(self) -> tuple[ConfigError, ...]:
        """This problem and every other one found in the same file, in the file's order
        (`nastui config check` lists them all; everything else names the first)."""
        return (self, *self.others)


def find_config_path(env: Mapping[str, str], *, root: Path = Path("/")) -> Path | None:
    """The configuration file to use, or None for the built-in defaults.

    Looks at `$NASTUI_CONFIG`, then `/etc/nastui/config.toml`, then
    `$XDG_CONFIG_HOME/nastui/config.toml` (default `~/.config/nastui/config.toml`), and returns
    the first that exists. A file named by `$NASTUI_CONFIG` is returned even when it does not
    exist, so that `load_config` reports it instead of silently using another.

    Args:
        env: the environment (`os.environ`).
        root: where `/etc` is looked for (tests pass a temporary tree).
    """
    named = env.get("NASTUI_CONFIG")
    if named:
        return Path(named)
    for candidate in (root / "etc" / CONFIG_NAME, _user_config_dir(env) / CONFIG_NAME):
        if candidate.is_file():
            return candidate
    return None


def _user_config_dir(env: Mapping[str, str]) -> Path:
    xdg = env.get("XDG_CONFIG_HOME")
    if xdg and Path(xdg).is_absolute():
        return Path(xdg)
    home = env.get("HOME")
    return (Path(home) if home else Path.home()) / ".config"


def load_config(path: Path | None) -> Config:
    """Read and check a configuration file; None gives the built-in defaults.

    Raises:
        ConfigError: the file cannot be read, is not TOML, or breaks a rule.
    """
    if path is None:
        return Config()
    return parse_config(config_text(path), path)


def config_text(path: Path) -> str:
    """A configuration file's text, read through `safeio.read_bounded`: only a regular file
    of at most MAX_FILE_BYTES, opened without blocking (a FIFO, /dev/zero or a directory is
    refused in one line, never waited on or read without end).

    Raises:
        ConfigError: it cannot be read, is not such a file, or is not UTF-8.
    """
    try:
        return read_bounded(path, MAX_FILE_BYTES).decode("utf-8")
    except UnsafeFileError as exc:  # a FIFO, /dev/zero, a directory, a file too big
        raise ConfigError(path, None, "", str(exc)) from None
    except OSError as exc:
        # The whole path: "config.toml" alone does not say whether /etc/nastui's or the user's
        raise ConfigError(path, None, "", f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        message = f"cannot read {path}: not UTF-8 text (byte {exc.start})"
        raise ConfigError(path, None, "", message) from None


def parse_config(text: str, path: Path) -> Config:
    """Check a configuration's text and build the `Config` (pure): `nastui.config.parse.parse`.

    Raises:
        ConfigError: for the problem nearest the top of the file, with the others it found.
    """
    from nastui.config.parse import parse

    return parse(text, path)
