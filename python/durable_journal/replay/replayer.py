"""Replays recorded Flink Agents Python actions through a candidate agent
(docs/replay.md "Flink Agents Python actions"): the candidate is planned as
Flink Agents plans an agent (``AgentPlan.from_agent``), and each selected
recorded action runs the candidate's action of its name on its recorded
event, in Flink Agents' own ``FlinkRunnerContext`` over a replay-only Java
side (``ReplayJavaContext``) whose journal is the native one over the
recorded calls. Nothing runs (no call's body), nothing is written.

The recorded actions come from a file store's ``retained.log`` (``replay``),
a dump of a Kafka store's retained topic (``replay_dump``), or, for "what
will a restore with this code do", a file store's live entries in flight
(``plan_restore``)."""

from __future__ import annotations

import inspect
import json
from dataclasses import replace as _dataclass_replace
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from .context import ReplayJavaContext, ReplayStop, Stop, event_json
from .journal import ReplayJournal
from .kryo import UnreadableValue, read_value
from .memory import History, ReplayMemory
from .recorded import RecordedAction, Selection, read_in_flight, read_retained, read_retained_dump
from .report import ActionReplay, ReplayReport
from .restore import POLICIES, restore_plan

#: A coroutine action that keeps yielding this often is waiting on something a replay never completes.
_MAX_STEPS = 10_000


def replay(
    store_dir: Union[str, Path],
    agent: Any,
    selection: Selection = Selection(),
    stubs: Optional[Mapping[str, Callable[[], Any]]] = None,
    candidate_name: Optional[str] = None,
) -> ReplayReport:
    """Replays the actions the file store in ``store_dir`` retained that
    ``selection`` takes through ``agent`` (a Flink Agents ``Agent``, its
    class, or an ``AgentPlan``). ``stubs``: function id (or
    ``function_id::digest``) -> a function of no arguments answering a call
    the recording lacks. The store is read without its lock; no file changes."""
    retained = read_retained(store_dir)
    return replay_recorded(retained, selection.apply(retained), agent, stubs, candidate_name)


def replay_dump(
    dump_file: Union[str, Path],
    agent: Any,
    selection: Selection = Selection(),
    stubs: Optional[Mapping[str, Callable[[], Any]]] = None,
    candidate_name: Optional[str] = None,
) -> ReplayReport:
    """:func:`replay` over the retained actions of a dump of a Kafka store's
    retained topic (``KafkaJournalTool dump <servers> <topic>-retained <file>``);
    the dump is only read."""
    retained = read_retained_dump(dump_file)
    return replay_recorded(retained, selection.apply(retained), agent, stubs, candidate_name)


def plan_restore(
    store_dir: Union[str, Path],
    agent: Any,
    policy: str = "WARN",
    selection: Selection = Selection(),
    candidate_name: Optional[str] = None,
) -> ReplayReport:
    """What a restore of the job with ``agent``'s code does to the journals
    in flight in the file store ``store_dir`` (its live entries not
    completed) under the job's divergence ``policy`` (``"WARN"``, ``"CUT"``
    or ``"FAIL"``): each entry's action runs over its recorded calls as in
    :func:`replay`, and its row says how many recorded calls replay, the
    first new call (``stop``) and, in ``detail``, what the policy does at the
    first difference (the native library's rule). Memory is rebuilt from the
    store's retained actions, the entry taken as completing after them.
    No stubs: a restore runs the first call the journal lacks for real, so
    the plan stops there. Entries are read as ``durable-journal list`` reads
    them; no file changes."""
    if policy not in POLICIES:
        raise ValueError(f"no divergence policy {policy!r} (policies: {', '.join(POLICIES)})")
    retained = read_retained(store_dir)
    after = retained[-1].number + 1 if retained else 0
    # Each entry as the next after the retained ones (a memory history needs their numbers without a gap).
    in_flight = [_dataclass_replace(entry, number=after) for entry in read_in_flight(store_dir)]
    return replay_recorded(retained, selection.apply(in_flight), agent, None, candidate_name, restore_policy=policy)


def replay_recorded(
    retained: Sequence[RecordedAction],
    chosen: Sequence[RecordedAction],
    agent: Any,
    stubs: Optional[Mapping[str, Callable[[], Any]]] = None,
    candidate_name: Optional[str] = None,
    restore_policy: Optional[str] = None,
) -> ReplayReport:
    """:func:`replay` over recorded actions already read: ``chosen`` are
    replayed, ``retained`` (every action of the store) rebuilds memory and
    says which actions an event triggered. With ``restore_policy``,
    ``chosen`` are entries in flight, planned as :func:`plan_restore` plans
    them (no outputs to compare; no newly triggered actions: a restore
    replays what is in flight)."""
    from flink_agents.runtime.flink_runner_context import FlinkRunnerContext

    plan = plan_of(agent)
    # One runner context for every action, as Flink Agents' operator reuses one across keys;
    # each action gets its own Java side.
    ctx = FlinkRunnerContext(None, plan.model_dump_json(serialize_as_any=True), None, None)
    history = History(retained)
    stubs = dict(stubs or {})
    triggered = _triggered_by_event(retained)
    rows: List[ActionReplay] = []
    others: Dict[str, int] = {}
    seen_events = set()
    try:
        for recorded in chosen:
            newly = []
            event = _event_of(recorded)
            if event not in seen_events and restore_policy is None:
                seen_events.add(event)
                newly = _newly_triggered(recorded, plan, triggered.get(event, {recorded.action}))
            action = plan.actions.get(recorded.action)
            if action is None:
                others[recorded.action] = others.get(recorded.action, 0) + 1
            elif recorded.task_event is None:
                rows.append(_row(recorded, "not-replayable", detail="no triggering event was recorded"))
            elif _triggers(action, recorded.task_event.get("type")) is False:
                rows.append(_row(recorded, "not-triggered", detail=(
                    f"the candidate's {recorded.action} listens to {sorted(_listened(action))}, "
                    f"not to the recorded event's type {recorded.task_event.get('type')}")))
            else:
                rows.append(_replay_one(recorded, action, ctx, stubs, history, restore_policy))
            rows.extend(newly)
    finally:
        ctx.close()
    return ReplayReport(candidate_name or _name_of(agent), rows, others)


def plan_of(agent: Any) -> Any:
    """The candidate's AgentPlan, built as Flink Agents builds it."""
    from flink_agents.api.agents.agent import Agent
    from flink_agents.plan.agent_plan import AgentPlan
    from flink_agents.plan.configuration import AgentConfiguration

    if isinstance(agent, AgentPlan):
        return agent
    if isinstance(agent, type) and issubclass(agent, Agent):
        agent = agent()
    if not isinstance(agent, Agent):
        raise TypeError(f"a candidate is a Flink Agents Agent, its class or an AgentPlan, not {type(agent).__name__}")
    return AgentPlan.from_agent(agent, AgentConfiguration())


def _name_of(agent: Any) -> str:
    kind = agent if isinstance(agent, type) else type(agent)
    return f"{kind.__module__}:{kind.__qualname__}"


def _event_of(recorded: RecordedAction) -> Tuple[str, int, str]:
    return recorded.key, recorded.seq, recorded.event


def _triggered_by_event(retained: Sequence[RecordedAction]) -> Dict[Tuple[str, int, str], set]:
    """The action names each recorded event triggered (as far as retained)."""
    triggered: Dict[Tuple[str, int, str], set] = {}
    for action in retained:
        triggered.setdefault(_event_of(action), set()).add(action.action)
    return triggered


def _newly_triggered(recorded: RecordedAction, plan: Any, recorded_names: set) -> List[ActionReplay]:
    """The candidate's actions that listen to the recorded event's type but
    have no recording on that event: they would run on it, unreplayed."""
    event_type = None if recorded.task_event is None else recorded.task_event.get("type")
    names = [name for name, action in plan.actions.items() if event_type is not None and _triggers(action, event_type)]
    return [
        ActionReplay(recorded.key, recorded.seq, name, recorded.plan_digest, "newly-triggered", 0,
                     detail=f"the candidate's {name} listens to {event_type}: it would run on this event, which has no recording of it")
        for name in names
        if name not in recorded_names
    ]


def _listened(action: Any) -> List[str]:
    """What an action of the plan listens to: its event types (Flink Agents
    0.3), or its trigger conditions (main: event types or expressions)."""
    listened = getattr(action, "listen_event_types", None)
    return list(listened if listened is not None else getattr(action, "trigger_conditions", None) or [])


def _triggers(action: Any, event_type: str) -> Optional[bool]:
    """Whether the candidate's action runs on an event of ``event_type``:
    True when it listens to the type, False when it listens to event types
    only and not this one, None when a trigger condition is an expression
    (Flink Agents' Java runtime evaluates those; a replay does not guess)."""
    listened = _listened(action)
    if event_type in listened:
        return True
    if any(not _is_event_type_name(entry) for entry in listened):
        return None
    return False


def _is_event_type_name(entry: str) -> bool:
    return not any(c.isspace() or c in "=<>!()&|'\"" for c in entry)


def _row(recorded: RecordedAction, outcome: str, **fields: Any) -> ActionReplay:
    return ActionReplay(recorded.key, recorded.seq, recorded.action, recorded.plan_digest, outcome, len(recorded.calls),
                        recorded_outputs=_outputs(recorded.output_events),
                        recorded_memory_updates=_recorded_memory(recorded), **fields)


def _replay_one(recorded: RecordedAction, action: Any, ctx: Any, stubs: Mapping[str, Callable[[], Any]],
                history: History, restore_policy: Optional[str] = None) -> ActionReplay:
    from flink_agents.api.events.event import Event

    gap = history.gap(recorded)
    unreadable: List[str] = []

    def not_reconstructible(why: str) -> BaseException:
        unreadable.append(why)
        return ReplayStop(f"memory not reconstructible: {why}")

    short_term = ReplayMemory(None if gap else history.updates(recorded, sensory=False), gap, not_reconstructible)
    sensory = ReplayMemory(None if gap else history.updates(recorded, sensory=True), gap, not_reconstructible)
    with ReplayJournal(recorded.state_json) as journal:
        java = ReplayJavaContext(journal, recorded.calls, recorded.action, stubs, short_term, sensory)
        ctx._j_runner_context = java
        event = Event.from_json(json.dumps({k: v for k, v in recorded.task_event.items() if k != "@class"}))
        failure = None
        try:
            _run(action.exec, event, ctx)
        except ReplayStop:
            pass  # java.stop, or the memory read, says where and why
        except Exception as e:  # the candidate's own failure, reported
            failure = f"{type(e).__module__}.{type(e).__qualname__}: {e}"
        stop = java.stop
        standing = journal.position()
    if stop is None and failure is None and not unreadable and standing["position"] < standing["length"]:
        slot = standing["slot"]
        stop = Stop("diverged", standing["position"], slot["id"], slot["status"], None, None)
    read = short_term.read or sensory.read
    memory = ("not reconstructible: " + unreadable[0]) if unreadable else (
        f"rebuilt from {history.earlier_count(recorded)} earlier actions of {recorded.key}" if read else "not read")
    recorded_memory = _recorded_memory(recorded)
    ended = stop is not None or failure is not None or bool(unreadable)
    outputs = [] if ended else _outputs(json.loads(e) for e in java.outputs)
    candidate_memory = [] if ended else _memory_entries(short_term.updates, sensory.updates, readable=True)
    recorded_outputs = _outputs(recorded.output_events)
    if stop is not None:
        outcome = stop.kind
    elif unreadable:
        outcome = "not-replayable"
    elif failure is not None:
        outcome = "failed"
    elif restore_policy is not None:
        outcome = "unchanged"  # an entry in flight has no outputs yet: finishing on its journal is the same run
    elif outputs == recorded_outputs and candidate_memory == recorded_memory:
        outcome = "unchanged"
    else:
        outcome = "output-changed"
    detail = failure if failure is not None else (f"memory not reconstructible: {unreadable[0]}" if unreadable else None)
    if restore_policy is not None:
        detail = restore_plan(restore_policy, java.replayed_calls, stop, failure, detail if unreadable else None)["text"]
    return ActionReplay(
        recorded.key, recorded.seq, recorded.action, recorded.plan_digest, outcome, len(recorded.calls),
        replayed_calls=java.replayed_calls, stubbed_calls=java.stubbed_calls, stop=stop,
        recorded_outputs=recorded_outputs, candidate_outputs=outputs, old_paths=java.old_paths, memory=memory,
        detail=detail, recorded_memory_updates=recorded_memory, candidate_memory_updates=candidate_memory,
    )


def _run(function: Any, event: Any, ctx: Any) -> None:
    """Runs an action, driving a coroutine action to its end."""
    result = function(event, ctx)
    if inspect.iscoroutine(result) or inspect.isgenerator(result):
        for _ in range(_MAX_STEPS):
            try:
                result.send(None)
            except StopIteration:
                return
        result.close()
        raise RuntimeError(f"the action did not finish in {_MAX_STEPS} steps: it awaits something a replay does not complete")


def _outputs(events: Any) -> List[str]:
    """Output events as compared: their type and attributes (the Java side
    adds its class and keeps the content-derived id), as canonical JSON text.
    The memory observation events Flink Agents main's runtime adds at the
    action's end are left out: memory updates are compared as such."""
    return [event_json({"type": e.get("type"), "attributes": e.get("attributes")})
            for e in events if not _is_memory_observation(e.get("type"))]


def _is_memory_observation(event_type: Any) -> bool:
    """Flink Agents' own rule (main's ``MemoryEvent.is_memory_type``); 0.3 has no such events."""
    try:
        from flink_agents.api.events.memory_event import MemoryEvent
    except ImportError:
        return False
    return MemoryEvent.is_memory_type(event_type)


def _recorded_memory(recorded: RecordedAction) -> List[str]:
    return _memory_entries(recorded.short_term_memory_updates, recorded.sensory_memory_updates, readable=False)


def _memory_entries(short_term: Sequence[Dict[str, Any]], sensory: Sequence[Dict[str, Any]], readable: bool) -> List[str]:
    """Memory updates as compared: ``{"memory", "path", "value"}`` JSON text, a
    recorded Kryo value read (one a replay cannot read stays as recorded)."""
    entries = []
    for memory, updates in (("short-term", short_term), ("sensory", sensory)):
        for update in updates:
            value = update["value"]
            if not readable:
                try:
                    value = read_value(value)
                except UnreadableValue:
                    pass
            entries.append(event_json({"memory": memory, "path": update["path"], "value": value}))
    return entries
