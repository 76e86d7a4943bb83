"""``python -m durable_journal.replay (--store DIR | --dump FILE) --agent module:attr
[--plan-restore WARN|CUT|FAIL] [--stubs module:attr] [--key k] [--action name] [--limit n]
[--since ms] [--until ms] [--json] [--fail-on outcome,...]``

Replays the actions a file store retained (``--store``), or a dump of a
Kafka store's retained topic holds (``--dump``), through a candidate Flink
Agents Python agent and prints the report (a table, or JSON). With
``--plan-restore POLICY`` (a file store only) it plans what a restore with
the candidate's code does to the store's journals in flight under that
divergence policy instead. ``--agent`` names an
Agent, its class or an AgentPlan; ``--stubs`` a dict of function id -> a
function of no arguments. Exit status: 0 when no action's outcome is in
``--fail-on`` (default: every outcome but unchanged), 1 when one is, 2 for
bad arguments (an unreadable store, a candidate that is not an agent)."""

from __future__ import annotations

import importlib
import sys
from typing import Any, List, Optional, TextIO

from .._native import JournalError
from .recorded import Selection
from .replayer import plan_restore, replay, replay_dump
from .report import FAIL_ON_ANY_CHANGE, OUTCOMES
from .restore import POLICIES

USAGE = ("usage: python -m durable_journal.replay (--store <dir> | --dump <file>) --agent <module:attr> "
         "[--plan-restore WARN|CUT|FAIL] [--stubs <module:attr>] "
         "[--key k] [--action name] [--limit n] [--since ms] [--until ms] [--json] [--fail-on outcome,...]")


class _BadArguments(ValueError):
    pass


def main(argv: Optional[List[str]] = None, out: Optional[TextIO] = None, err: Optional[TextIO] = None) -> int:
    out, err = out or sys.stdout, err or sys.stderr
    try:
        options = _parse(sys.argv[1:] if argv is None else argv)
        agent = _named(options["agent"])
        stubs = _named(options["stubs"]) if options["stubs"] else None
    except _BadArguments as e:
        print(f"durable_journal.replay: {e}", file=err)
        print(USAGE, file=err)
        return 2
    selection, name = options["selection"], options["agent"]
    try:
        if options["plan_restore"] is not None:
            report = plan_restore(options["store"], agent, options["plan_restore"], selection, candidate_name=name)
        elif options["dump"] is not None:
            report = replay_dump(options["dump"], agent, selection, stubs, candidate_name=name)
        else:
            report = replay(options["store"], agent, selection, stubs, candidate_name=name)
    except (JournalError, TypeError, OSError) as e:  # an unreadable store or dump, a candidate that is no agent
        print(f"durable_journal.replay: {e}", file=err)
        return 2
    out.write(report.to_json() + "\n" if options["json"] else report.to_table())
    return report.exit_status(options["fail_on"])


def _parse(args: List[str]) -> dict:
    options: dict = {"store": None, "dump": None, "agent": None, "stubs": None, "plan_restore": None, "json": False,
                     "fail_on": FAIL_ON_ANY_CHANGE}
    selection: dict = {}
    i = 0
    while i < len(args):
        flag = args[i]
        if flag == "--json":
            options["json"] = True
            i += 1
            continue
        if i + 1 >= len(args):
            raise _BadArguments(f"{flag} needs a value")
        value = args[i + 1]
        i += 2
        if flag in ("--store", "--dump", "--agent", "--stubs"):
            options[flag[2:]] = value
        elif flag == "--plan-restore":
            if value not in POLICIES:
                raise _BadArguments(f"--plan-restore takes a divergence policy ({', '.join(POLICIES)}), not {value!r}")
            options["plan_restore"] = value
        elif flag in ("--key", "--action"):
            selection[flag[2:]] = value
        elif flag in ("--limit", "--since", "--until"):
            selection[flag[2:]] = _number(flag, value)
        elif flag == "--fail-on":
            options["fail_on"] = _outcomes(value)
        else:
            raise _BadArguments(f"unknown flag {flag}")
    if (options["store"] is None) == (options["dump"] is None):
        raise _BadArguments("exactly one of --store and --dump is required")
    if options["agent"] is None:
        raise _BadArguments("--agent is required")
    if options["plan_restore"] is not None and options["dump"] is not None:
        raise _BadArguments("--plan-restore plans the journals in flight of a file store (--store), not of a dump")
    if options["plan_restore"] is not None and options["stubs"] is not None:
        raise _BadArguments("--stubs does not apply to --plan-restore: a restore runs the first new call for real")
    try:
        options["selection"] = Selection(**selection)
    except ValueError as e:
        raise _BadArguments(str(e)) from None
    return options


def _number(flag: str, value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise _BadArguments(f"{flag} needs a whole number, not {value!r}") from None


def _outcomes(value: str) -> frozenset:
    names = frozenset(name.strip() for name in value.split(",") if name.strip())
    unknown = sorted(names - set(OUTCOMES))
    if unknown:
        raise _BadArguments(f"unknown outcome {unknown[0]!r} in --fail-on (outcomes: {', '.join(OUTCOMES)})")
    return names


def _named(spec: str) -> Any:
    """The object ``module:attr`` names (``attr`` may be dotted)."""
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise _BadArguments(f"{spec!r} is not module:attr")
    try:
        value: Any = importlib.import_module(module_name)
    except ImportError as e:
        raise _BadArguments(f"cannot import {module_name}: {e}") from None
    for part in attribute.split("."):
        if not hasattr(value, part):
            raise _BadArguments(f"{module_name} has no {attribute}")
        value = getattr(value, part)
    return value


if __name__ == "__main__":
    sys.exit(main())
