"""A Python agent for the Python-agent tests: one action, five durable calls, one crash.

The action of each request (a coroutine) first awaits an asynchronous call,
so every later call runs in the action's continuation; then it makes a call
that succeeds, one that returns None,
one that fails with the agent's own exception class (caught by its own
``except`` clause) and one with a reconciler. Every side effect and every run
of the action appends a line to the file the request names, so the test
counts what ran. The first run of the action of a request that names a crash
marker file (and finds none) crashes the task inside the
fifth call, after its side effect and before its completion is recorded
(the call's result cannot be pickled, so Flink Agents' finalize fails and the
action throws): on the restart the recorded calls replay and the pending one
is settled by its reconciler.
"""

import json
import os
import threading
from functools import partial

from durable_journal import flink_agents as durable_journal_flink_agents
from flink_agents.api.agents.agent import Agent
from flink_agents.api.decorators import action
from flink_agents.api.events.event import Event, InputEvent, OutputEvent
from flink_agents.api.runner_context import RunnerContext

# Durable call identity from durable_journal, in the embedded interpreter of
# every task that imports this module (the one call a user adds).
durable_journal_flink_agents.install()


class QuotaExceeded(Exception):
    """The agent's own failure class: a replay must raise this very class."""


def _log(path, line):
    with open(path, "a", encoding="utf-8") as log:
        log.write(line + "\n")


def look_up(log, request):
    _log(log, f"look_up {request}")
    return f"profile of {request}"


def fetch(log, request):
    _log(log, f"fetch {request}")
    return {"request": request, "tags": {"b", "a"}}


def forget(log, request):
    _log(log, f"forget {request}")
    return None


def charge(log, request):
    _log(log, f"charge {request}")
    raise QuotaExceeded(f"no quota left for {request}")


def submit(log, request, crash_marker):
    _log(log, f"submit {request}")
    if crash_marker is not None and not os.path.exists(crash_marker):
        _log(crash_marker, "crashed")
        return threading.Lock()  # not picklable: the completion is never recorded
    return f"submitted {request}"


def reconcile(log, request):
    _log(log, f"reconcile {request}")
    return f"reconciled {request}"


class DurableCallsAgent(Agent):
    """Five durable calls per request."""

    @action(InputEvent.EVENT_TYPE)
    @staticmethod
    async def answer(event: Event, ctx: RunnerContext) -> None:
        """Runs the calls and sends what each returned or raised."""
        request = json.loads(InputEvent.from_event(event).input)
        log, name = request["log"], request["name"]
        _log(log, f"action {name}")
        # Which journal decides this action's calls: the Java object behind the Python context
        # (the test asserts it is durable-journal's native one, not Flink Agents' own).
        journal = ctx._j_runner_context.getDurableExecutionContext()
        _log(log, f"journal {journal.getClass().getName()}")
        looked_up = await ctx.durable_execute_async(look_up, log, name)
        fetched = ctx.durable_execute(fetch, log, name)
        forgotten = ctx.durable_execute(forget, log, name)
        try:
            ctx.durable_execute(charge, log, name)
            failure = "none"
        except QuotaExceeded as error:
            failure = f"{type(error).__name__}: {error}"
        submitted = ctx.durable_execute(
            submit, log, name, request.get("crash_marker"), reconciler=partial(reconcile, log, name)
        )
        answer = {
            "name": name,
            "looked_up": looked_up,
            "fetched": [fetched["request"], sorted(fetched["tags"])],
            "forgotten": forgotten,
            "failure": failure,
            "submitted": submitted,
        }
        _log(log, "answer " + json.dumps(answer, sort_keys=True))
        ctx.send_event(OutputEvent(output=json.dumps(answer, sort_keys=True)))
