"""A command run builds only its own group's parsers (``pos_terminal.cli.entry.build_parser``); what it builds is
what the whole command line has for that command, and the table of commands is the whole command line's."""

from __future__ import annotations

import argparse

import pytest

from pos_terminal.cli.argv import first_look
from pos_terminal.cli.entry import COMMAND_MODULES, build_parser, main


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    (action,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_the_table_names_every_command_of_the_whole_command_line_in_its_order() -> None:
    assert list(_commands(build_parser())) == list(COMMAND_MODULES)


@pytest.mark.parametrize("command", list(COMMAND_MODULES))
def test_a_command_run_builds_its_own_group_and_the_same_parser_as_the_whole_line(command: str) -> None:
    whole, alone = _commands(build_parser()), _commands(build_parser(command))
    group = COMMAND_MODULES[command]
    assert sorted(alone) == sorted(name for name, module in COMMAND_MODULES.items() if module == group)
    assert alone[command].format_help() == whole[command].format_help()


@pytest.mark.parametrize(
    ("argv", "word"),
    [
        (["tx", "list"], "tx"),
        (["--profile", "/tmp/p", "people", "add"], "people"),  # the window's options may come before the command
        (["--service", "http://127.0.0.1:1", "charge", "--customer", "tx"], "charge"),
        (["--json", "status"], "status"),
        (["--help"], None),
        (["bogus", "tx"], None),  # not a command: the whole line says so, naming every command
    ],
)
def test_the_command_word_is_the_first_word_that_is_not_an_option(argv: list[str], word: str | None) -> None:
    assert first_look(argv, COMMAND_MODULES) == (None, word)


@pytest.mark.parametrize("argv", [[], ["--profile", "/tmp/p"], ["--service", "http://127.0.0.1:1", "--profile", "p"]])
def test_the_same_look_finds_a_start_of_the_window(argv: list[str]) -> None:
    window, command = first_look(argv, COMMAND_MODULES)
    assert window is not None and command is None


def test_an_unknown_command_is_refused_naming_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["bogus"])
    assert stopped.value.code == 2
    said = capsys.readouterr().err
    assert "invalid choice: 'bogus'" in said
    assert all(f"'{command}'" in said for command in COMMAND_MODULES)
