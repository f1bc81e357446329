"""`fxdp COMMAND --help` describes every option with its default and shows examples; `fxdp --version`
prints the version (issue 31, point 5)."""
import argparse
import subprocess
import sys

import pytest

import fxdp
from fxdp.cli import build_parser, main


def _subparsers():
    p = build_parser()
    (sub,) = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
    return sub.choices


SUBCOMMANDS = sorted(_subparsers())


def test_every_command_is_checked():
    assert {"demo", "export", "simulate", "estimate", "audit", "plot", "account", "mechanisms",
            "targets"} <= set(SUBCOMMANDS)


@pytest.mark.parametrize("name", SUBCOMMANDS)
def test_help_describes_every_option_and_shows_examples(name, capsys):
    with pytest.raises(SystemExit) as exc:
        main([name, "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "examples:" in out and f"fxdp {name}" in out.split("examples:")[1]
    for action in _subparsers()[name]._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        shown = action.option_strings[-1] if action.option_strings else (action.metavar or action.dest)
        assert shown in out, (name, shown)
        assert action.help and action.help.strip(), (name, shown)
        # every option states its default (or that it is required)
        if action.option_strings:
            assert "default" in action.help or "required" in action.help, (name, shown, action.help)


def test_help_states_simulates_defaults(capsys):
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "else 100000" in out and "else 0" in out


def test_help_fills_in_the_argparse_defaults(capsys):
    with pytest.raises(SystemExit):
        main(["plot", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "%(default)s" not in out and "(default: 1000,10000,100000,1000000)" in out


def test_version():
    r = subprocess.run([sys.executable, "-m", "fxdp", "--version"], capture_output=True, text=True)
    assert r.returncode == 0
    assert r.stdout.strip() == f"fxdp {fxdp.__version__}"
