"""The exec hook: `ExecNotifier` runs the `[alerts] exec` command once per batch.

The command gets
- on standard input: the batch as the JSON document of `nastui.notify.message` (schema 1);
- in its environment, about the batch's worst notice (for one-line scripts):
    NASTUI_HOST      host the batch is about ("nano")
    NASTUI_KIND      firing, worse, repeat, recovered, event or test
    NASTUI_HEALTH    ok, warning, critical or unknown
    NASTUI_SUBJECT   the mail subject ("[nastui] nano: 3 alerts (1 critical, 2 warning)")
    NASTUI_KEY       the alert key ("drive:PK1334PBHDJ2SR:attr:197"), for `nastui alert ack`
    NASTUI_NAME      the thing ("bay 13 sdk")
    NASTUI_MESSAGE   its one-line message
    NASTUI_COUNT     how many notices the batch holds
Besides these it gets only PATH, TZ and TMPDIR of nastui's environment and LANG=LC_ALL=C
(`nastui.collectors.runner.command_env`): nastui's other variables (an SMTP password, an apprise
URL) never reach it. It runs through `nastui.collectors.runner` (argument list, no shell, its
own process group) and must finish within 30 seconds, or it is killed; exit status 0 means
delivered.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from nastui.collectors import runner
from nastui.model import Notice
from nastui.notify import message
from nastui.notify.base import NotifyError

TIMEOUT_S = 30.0


def hook_env(host: str, notices: Sequence[Notice]) -> dict[str, str]:
    """The NASTUI_* variables for a batch (see the module docstring); empty for no notices."""
    batch = message.ordered(notices)
    if not batch:
        return {}
    lead = batch[0].alert
    return {
        "NASTUI_HOST": host,
        "NASTUI_KIND": batch[0].kind.value,
        "NASTUI_HEALTH": lead.health.name.lower(),
        "NASTUI_SUBJECT": message.subject(host, batch),
        "NASTUI_KEY": lead.key,
        "NASTUI_NAME": lead.name,
        "NASTUI_MESSAGE": lead.message,
        "NASTUI_COUNT": str(len(batch)),
    }


class ExecNotifier:
    """Runs a configured command with the batch on stdin and in NASTUI_* variables."""

    def __init__(self, argv: Sequence[str], *, timeout: float = TIMEOUT_S) -> None:
        """Args:
        argv: the command, as `[alerts] exec` gives it (a list, never a shell string).
        timeout: seconds before the command's process group is killed.
        """
        if not argv:
            raise ValueError("the exec hook needs a command")
        self.argv = tuple(argv)
        self._timeout = timeout

    @property
    def name(self) -> str:
        """ "exec /usr/local/bin/page-me --urgent"."""
        return f"exec {shlex.join(self.argv)}"

    @property
    def where(self) -> str:
        """The prefix of every error: "exec hook /usr/local/bin/page-me"."""
        return f"exec hook {self.argv[0]}"

    def send(self, host: str, notices: Sequence[Notice]) -> None:
        """Run the command once for the batch (nothing for an empty one).

        Raises:
            NotifyError: it could not start, timed out, or exited non-zero.
        """
        if not notices:
            return
        result = runner.run_sync(
            self.argv,
            timeout=self._timeout,
            env=hook_env(host, notices),
            stdin=message.to_json(host, notices).encode(),
            delivery=True,  # it reads nothing of the box: it runs under --root too
        )
        if result.ok:
            return
        if result.error:
            raise NotifyError(f"{self.where}: {result.error}: fix [alerts] exec")
        if result.timed_out:
            raise NotifyError(
                f"{self.where}: still running after {self._timeout:g} s, killed: make it return "
                "quickly (leave slow work to a background job)"
            )
        code = result.returncode
        status = f"killed by signal {-code}" if code is not None and code < 0 else f"exited {code}"
        first = next((ln.strip() for ln in result.stderr.splitlines() if ln.strip()), "")
        raise NotifyError(f"{self.where}: {status}" + (f": {first[:200]}" if first else ""))
