"""Pure builders of Rich text for the panels: snapshot in, text out, nothing else."""

from __future__ import annotations
