"""The Textual front end: the only package that imports Textual."""

from __future__ import annotations
