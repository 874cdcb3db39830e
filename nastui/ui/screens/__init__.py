"""Screens: dashboard, bays, pools, drive detail and help."""

from __future__ import annotations
