"""`nastui.model` imports its submodules on first use (issue 23 §3) yet still offers every public
name: the same objects as the submodules', so identity and pickling are unchanged."""

from __future__ import annotations

import importlib
import json
import pickle
import subprocess
import sys

import pytest

import nastui.model
from nastui.model import Drive, DriveIdentity
from tests.conftest import REPO


def test_every_public_name_has_one_home_and_is_that_home_s_object() -> None:
    homes = nastui.model._HOMES
    named = [name for names in homes.values() for name in names.split()]
    assert sorted(named) == sorted(nastui.model.__all__)
    assert len(set(named)) == len(named)
    for module, names in homes.items():
        home = importlib.import_module(f"nastui.model.{module}")
        for name in names.split():
            assert getattr(nastui.model, name) is getattr(home, name), name
    assert set(nastui.model.__all__) <= set(dir(nastui.model))


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Nothing'"):
        _ = nastui.model.Nothing  # type: ignore[attr-defined]
    with pytest.raises(ImportError):
        exec("from nastui.model import Nothing")


def test_a_model_object_pickles_to_the_same_class() -> None:
    drive = Drive("sda", DriveIdentity(model="M", serial="S1"))
    back = pickle.loads(pickle.dumps(drive))
    assert back == drive
    assert type(back) is Drive is nastui.model.drive.Drive


def test_the_package_alone_imports_no_submodule() -> None:
    code = "import json, sys, nastui.model; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO
    )
    loaded = set(json.loads(out.stdout))
    assert {m for m in loaded if m.startswith("nastui.model.")} == set()
