"""``hookline serve`` from the command line, without a server: what it says when it cannot."""

from __future__ import annotations

import sys

import pytest

from hookline._cli.main import main


def test_without_the_serve_extra_it_says_how_to_install_it_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("hookline._serve", "hookline._serve.app", "hookline._serve.server"):
        monkeypatch.delitem(sys.modules, name, raising=False)  # imported again, on this test
    monkeypatch.setitem(sys.modules, "starlette", None)  # as if not installed
    monkeypatch.setitem(sys.modules, "uvicorn", None)
    with pytest.raises(SystemExit) as exited:
        main(["serve"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "hookline serve needs the serve extra" in err
    assert "pip install 'hookline[serve]'" in err
    assert "Traceback" not in err
