"""Widgets: they render what screens hand them; they never collect anything."""

from __future__ import annotations
