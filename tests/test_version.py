"""The version is written once, in ``pyproject.toml``; the package and the CLI read it back."""

from __future__ import annotations

import tomllib
from importlib.metadata import version
from pathlib import Path

from click.testing import CliRunner

import hookline
from hookline._cli.main import cli

PYPROJECT = Path(__file__).parents[1] / "pyproject.toml"


def test_the_package_version_is_the_installed_metadata() -> None:
    assert hookline.__version__ == version("hookline")


def test_the_installed_metadata_is_pyprojects() -> None:
    written = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["version"]
    assert version("hookline") == written


def test_the_cli_prints_it() -> None:
    result = CliRunner().invoke(cli, ["--version"])
    assert result.exit_code == 0
    assert result.output == f"hookline, version {hookline.__version__}\n"
