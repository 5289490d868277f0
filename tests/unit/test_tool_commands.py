"""The tooling's commands reach `ledgerline` by entry point (ledgerline never imports
ledgerline_tools), and without the `tools` extra a tool says in one line how to install it."""
from __future__ import annotations

from importlib import metadata

import pytest
from click.testing import CliRunner

from ledgerline import cli
from ledgerline_tools import extra
from ledgerline_tools.ranker import train


@pytest.fixture
def without_reportlab(monkeypatch):
    installed = metadata.distribution

    def distribution(name: str):
        if name.lower() == "reportlab":
            raise metadata.PackageNotFoundError(name)
        return installed(name)

    monkeypatch.setattr(extra.metadata, "distribution", distribution)


def test_the_tooling_commands_are_the_clis_through_its_entry_points():
    assert {"upload", "sample-invoice"} <= set(cli.main.list_commands(None))
    assert cli.main.get_command(None, "upload").name == "upload"


def test_with_the_extra_nothing_is_missing():
    assert extra.missing_libraries() == []
    assert extra.why_not("anything") is None


def test_sample_invoice_without_the_extra_names_the_install_command(without_reportlab):
    result = CliRunner().invoke(cli.main, ["sample-invoice", "--lang", "de"])
    assert result.exit_code == 1
    assert result.output.strip() == (
        "ledgerline: `ledgerline sample-invoice` needs the tools extra (reportlab not installed): "
        "pip install 'ledgerline[tools]'")


def test_training_without_the_extra_names_the_install_command(without_reportlab, capsys):
    assert train.cli() == 1
    assert "pip install 'ledgerline[tools]'" in capsys.readouterr().err
