"""``summary`` and ``report``: the service's summary, and the reconciled end-of-day, shift or store report."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from pos_terminal.cli.arguments import (
    Commands,
    common_options,
    output_options,
    parse_moment,
    range_options,
    today_start,
)
from pos_terminal.cli.output import EXIT_OK, Output, print_copy, print_escpos, save_copy
from pos_terminal.errors import UserError

if TYPE_CHECKING:
    from pos_terminal.domain.money import MoneyFormat
    from pos_terminal.domain.report import EndOfDayReport
    from pos_terminal.services.reports import Reports
    from pos_terminal.services.terminal import Terminal


def register(commands: Commands) -> None:
    summary = commands.add_parser("summary", help="summary report by terminal or merged")
    common_options(summary)
    range_options(summary)
    scope = summary.add_mutually_exclusive_group()
    scope.add_argument("--all", action="store_true", help="one record per terminal")
    scope.add_argument("--merge", action="store_true", help="all terminals merged into one")
    summary.set_defaults(handler=_summary)

    report = commands.add_parser("report", help="end-of-day or shift report, reconciled; as text, JSON, PDF or printed")
    common_options(report)
    report.add_argument(
        "--for-terminal",
        dest="report_terminal",
        metavar="ID",
        help="report on another terminal (default: this one; this terminal keeps its id and sign-in)",
    )
    when = report.add_mutually_exclusive_group()
    when.add_argument("--today", action="store_true", help="since local midnight (the default)")
    when.add_argument("--yesterday", action="store_true", help="yesterday, local midnight to midnight")
    when.add_argument("--shift-from", dest="shift_from", metavar="T", type=parse_moment, help="this shift, since T")
    when.add_argument(
        "--shift", metavar="WHICH", help="a shift's X or Z report: current, last (the last closed) or its number"
    )
    when.add_argument(
        "--from", dest="start", metavar="T", type=parse_moment, help="from T (ISO 8601, local unless offset)"
    )
    report.add_argument(
        "--to", dest="end", metavar="T", type=parse_moment, help="with --from: until T, exclusive (default now)"
    )
    report_scope = report.add_mutually_exclusive_group()
    report_scope.add_argument("--all", action="store_true", help="every terminal, one row each")
    report_scope.add_argument("--merge", action="store_true", help="every terminal merged into one row")
    report_scope.add_argument(
        "--store",
        action="store_true",
        help="the store's day: every till's shifts and drawers, cash sales and people (a till of a store)",
    )
    output_options(report, layouts=True)
    report.set_defaults(handler=_report)


async def _summary(terminal: Terminal, args: argparse.Namespace, out: Output) -> int:
    start = args.start or today_start()
    terminal_id = None if (args.all or args.merge) else terminal.settings.terminal_id
    records = await terminal.summaries.fetch(start, args.end, terminal_id=terminal_id, merge=args.merge)
    out.data(
        [r.model_dump(by_alias=True, mode="json") for r in records]
        if not args.merge
        else records[0].model_dump(by_alias=True, mode="json")
    )
    money = terminal.money.format
    if not records:
        out.line("No completed transactions in that range.")
    for r in records:
        out.line(
            f"{r.terminal_id or '(no terminal)':<16} count {r.count:>5}  total {money(r.total):>12}  "
            f"tips {money(r.tips):>10}  fees {money(r.fees):>10}  payout {money(r.payout):>12}"
        )
    return EXIT_OK


async def _report(terminal: Terminal, args: argparse.Namespace, out: Output) -> int:
    from pos_terminal.domain.report import ReportScope, TimeRange

    reports = terminal.reports(actor=terminal.actor)
    if args.shift is not None:
        if args.report_terminal or args.all or args.merge or args.store:
            raise UserError(
                "A shift's report is this terminal's.", hint="Leave out --for-terminal, --all, --merge and --store."
            )
        shift = terminal.shifts.resolve(args.shift)
        report = await terminal.shifts.report(reports, shift)
        report_lines(report, out, terminal.money)
        await report_copies(report, reports, args, out, terminal)
        return EXIT_OK
    if args.end is not None and args.start is None:
        raise UserError("--to needs --from.", hint="Give the start with --from.")
    if args.start is not None:
        period = TimeRange.custom(args.start, args.end or reports.now())
    elif args.shift_from is not None:
        period = reports.shift(args.shift_from)
    else:
        period = reports.yesterday() if args.yesterday else reports.today()
    if args.report_terminal and (args.all or args.merge or args.store):
        raise UserError("Choose one of --for-terminal, --all, --merge or --store.")
    if args.store:
        if args.escpos:
            raise UserError(
                "The store's day is printed on paper, not on the receipt printer.",
                hint="Use --pdf or --print, in the a4 or roll layout.",
            )
        report = await reports.store_day(period, terminal.store)
        report_lines(report, out, terminal.money_of(report.store.currency if report.store else None))
        await report_copies(report, reports, args, out, terminal)
        return EXIT_OK
    if args.merge:
        scope = ReportScope.merged()
    elif args.all:
        scope = ReportScope.all()
    else:
        scope = ReportScope.terminal(args.report_terminal or terminal.settings.terminal_id)
    report = await reports.end_of_day(period, scope)
    report_lines(report, out, terminal.money)
    await report_copies(report, reports, args, out, terminal)
    return EXIT_OK


def report_lines(report: EndOfDayReport, out: Output, money_format: MoneyFormat) -> None:
    """The report as JSON, or as text: every section of the one report model a narrow page shows (the shift first
    for an X or Z report; the table of every transaction is the A4 PDF's); a mismatch is said on stderr too."""
    out.data(report.as_json())
    if out.as_json:
        return
    from pos_terminal.domain.report_document import report_document
    from pos_terminal.domain.report_text import render_text

    for line in render_text(report_document(report, money_format.format)):
        out.line(line)
    if not report.reconciled:
        out.note("MISMATCH: the service's summary and the listed transactions disagree.")


async def report_copies(
    report: EndOfDayReport, reports: Reports, args: argparse.Namespace, out: Output, terminal: Terminal
) -> None:
    """Save and print the report when asked (the PDF, or the receipt printer's own text), each copy written to
    the audit log."""
    from pos_terminal.reports.end_of_day import render

    if args.pdf or args.print_it:
        data = render(report, args.layout, money=terminal.money_of(report.store.currency if report.store else None))
        if args.pdf:
            saved = save_copy(data, args.pdf)
            reports.record_report(report, "saved", where=str(saved), layout=args.layout)
            out.note(f"Saved {saved}.")
        if args.print_it:
            printer = print_copy(data, args.printer or terminal.settings.printer, report.title)
            reports.record_report(report, "printed", where=printer, layout=args.layout)
            out.note(f"Printed on {printer}.")
    if args.escpos:
        where = await print_escpos(terminal, lambda: terminal.counter.queue_report(report))
        reports.record_report(report, "printed", where=where, layout="roll")
        out.note(f"Printed on the {where}.")
