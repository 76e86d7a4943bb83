"""The exact report of each candidate of ``replay_candidates`` over what
PythonReplayJobTest recorded with ``replay_agent.ReplayAgent`` (three
requests of key ``str:user-1``, four calls each: look_up, ask_model, forget,
which returned None, and charge, which raised): ``python replay_expectations.py <full store>
<bounded store>`` prints ``ok <case>`` per case, or fails with both reports.
The store that kept every action has the plan digest ``replay-agent@1``; the
bounded one kept only the last two actions (the first one's memory update is
gone). Call ids are ``function id::args digest``, the digest the library's
(``compute_args_digest``)."""

import json
import sys

from durable_journal import compute_args_digest
from durable_journal.replay import Selection, read_retained, replay
from durable_journal.replay.context import event_json

import replay_candidates as candidates
from replay_agent import PROMPT

KEY = "str:user-1"
NAMES = ["alpha", "bravo", "charlie"]
PLAN = "replay-agent@1"


def digest(*args):
    return compute_args_digest(args, {})


def look_up_id(name):
    return f"replay_agent.look_up::{digest(name)}"


def ask_text(template, name, profile=None):
    return template.format(name=name, profile=f"profile of {name}" if profile is None else profile)


def ask_id(text):
    return f"replay_agent.ask_model::{digest(text)}"


def output(name, reply, requests, **more):
    return event_json({"type": "_output_event", "attributes": {"output": {"name": name, "reply": reply, "requests": requests, **more}}})


def charge_id(name):
    return f"replay_agent.charge::{digest(name)}"


def settled(name):
    return {"forgotten": None, "failure": f"QuotaExceeded: no quota left for {name}"}


def recorded_output(seq):
    name = NAMES[seq]
    return output(name, "model: " + ask_text(PROMPT, name), seq + 1, **settled(name))


def memory_updates(seq):
    return [event_json({"memory": "short-term", "path": "requests", "value": seq + 1})]


def stop(kind, position, recorded_id=None, recorded_status=None, candidate_id=None, candidate_digest=None):
    return {"kind": kind, "position": position, "recordedId": recorded_id, "recordedStatus": recorded_status,
            "candidateId": candidate_id, "candidateArgsDigest": candidate_digest}


def row(seq, outcome, replayed=4, action="answer", plan=PLAN, recorded_calls=4, stubbed=(), stopped=None,
        candidate_outputs=(), memory="not read", detail=None, old_paths=(), candidate_memory=(), recorded=True):
    return {
        "key": KEY, "seq": seq, "action": action, "planDigest": plan, "outcome": outcome,
        "recordedCalls": recorded_calls, "replayedCalls": replayed, "stubbedCalls": list(stubbed), "stop": stopped,
        "outputsEqual": outcome == "unchanged",
        "recordedOutputs": [recorded_output(seq)] if recorded else [],
        "candidateOutputs": list(candidate_outputs), "oldPaths": list(old_paths), "memory": memory, "detail": detail,
        "recordedMemoryUpdates": memory_updates(seq) if recorded else [], "candidateMemoryUpdates": list(candidate_memory),
    }


def rebuilt(seq):
    return f"rebuilt from {seq} earlier actions of {KEY}"


def unchanged(seq, **more):
    return row(seq, "unchanged", candidate_outputs=[recorded_output(seq)], memory=rebuilt(seq),
               candidate_memory=memory_updates(seq), **more)


def report(candidate, rows, others=None):
    summary = {"replayed": len(rows)}
    for outcome in ("not-replayable", "diverged", "would-run", "failed", "not-triggered", "newly-triggered",
                    "output-changed", "unchanged"):
        summary[outcome] = sum(1 for r in rows if r["outcome"] == outcome)
    return {"candidateAction": candidate, "summary": summary, "otherActions": others or {}, "actions": rows}


def newly_triggered(seq, name):
    return row(seq, "newly-triggered", replayed=0, action=name, recorded_calls=0, recorded=False,
               detail=f"the candidate's {name} listens to _input_event: it would run on this event, which has no recording of it")


def adapter_plan_digest(store):
    """The digest Flink Agents' operator factory names when the store's options name none
    (``PlanDigests.of(plan)``: of the plan's JSON, which differs between Flink Agents versions)."""
    digests = {action.plan_digest for action in read_retained(store)}
    assert len(digests) == 1 and next(iter(digests)).startswith("flink-agents-plan:sha256:"), digests
    return next(iter(digests))


def not_reconstructible(seq, plan):
    why = (f"the store no longer holds 1 of the {seq} actions that completed before it "
           "(retention dropped them; the first missing is number 0)")
    return row(seq, "not-replayable", plan=plan, memory="not reconstructible: " + why, detail="memory not reconstructible: " + why)


SEQS = range(len(NAMES))


def cases(full, bounded):
    """(case, store, candidate, stubs, expected report)."""
    yield "unchanged", full, candidates.Unchanged, None, [unchanged(s) for s in SEQS]
    yield "memory read with incomplete history", bounded, candidates.Unchanged, None, [not_reconstructible(s, adapter_plan_digest(bounded)) for s in (1, 2)]
    yield "changed prompt (the model call's arguments)", full, candidates.ChangedPrompt, None, [
        row(s, "diverged", replayed=1, stopped=stop("diverged", 1, ask_id(ask_text(PROMPT, n)), "SUCCEEDED",
                                                     ask_id(ask_text(candidates.NEW_PROMPT, n)), digest(ask_text(candidates.NEW_PROMPT, n))))
        for s, n in zip(SEQS, NAMES)]
    yield "changed post-processing", full, candidates.ChangedPostProcessing, None, [
        row(s, "output-changed", candidate_outputs=[output(n, ("model: " + ask_text(PROMPT, n)).upper(), s + 1, **settled(n))],
            memory=rebuilt(s), candidate_memory=memory_updates(s))
        for s, n in zip(SEQS, NAMES)]
    yield "added call", full, candidates.AddedCall, None, [
        row(s, "would-run", stopped=stop("would-run", 4, candidate_id=f"replay_candidates.mail::{digest(n)}", candidate_digest=digest(n)))
        for s, n in zip(SEQS, NAMES)]
    yield "added call with a stub", full, candidates.AddedCall, candidates.MAIL_STUB, [
        row(s, "output-changed", stubbed=[f"replay_candidates.mail::{digest(n)}"],
            candidate_outputs=[output(n, "model: " + ask_text(PROMPT, n), s + 1, mailed="mail stubbed", **settled(n))],
            memory=rebuilt(s), candidate_memory=memory_updates(s))
        for s, n in zip(SEQS, NAMES)]
    yield "removed call", full, candidates.RemovedCall, None, [
        row(s, "diverged", replayed=3, stopped=stop("diverged", 3, charge_id(n), "FAILED"), memory=rebuilt(s))
        for s, n in zip(SEQS, NAMES)]
    yield "renamed call", full, candidates.RenamedCall, None, [
        row(s, "diverged", replayed=0, stopped=stop("diverged", 0, look_up_id(n), "SUCCEEDED",
                                                     f"replay_candidates.find_profile::{digest(n)}", digest(n)))
        for s, n in zip(SEQS, NAMES)]
    yield "reordered calls", full, candidates.ReorderedCalls, None, [
        row(s, "diverged", replayed=0, stopped=stop("diverged", 0, look_up_id(n), "SUCCEEDED",
                                                     ask_id(ask_text(PROMPT, n, "nothing")), digest(ask_text(PROMPT, n, "nothing"))))
        for s, n in zip(SEQS, NAMES)]
    yield "renamed action", full, candidates.RenamedAction, None, ([newly_triggered(s, "reply") for s in SEQS], {"answer": 3})
    yield "changed listened events", full, candidates.ChangedListenedEvents, None, [
        r for s in SEQS for r in (
            row(s, "not-triggered", replayed=0,
                detail="the candidate's answer listens to ['review_event'], not to the recorded event's type _input_event"),
            newly_triggered(s, "greet"))]
    yield "a patched() change: recordings take the old path", full, candidates.PatchedPrompt, None, [
        unchanged(s, old_paths=["brief-prompt"]) for s in SEQS]


def main(full, bounded):
    failures = 0
    for case, store, candidate, stubs, expected in cases(full, bounded):
        rows, others = expected if isinstance(expected, tuple) else (expected, None)
        want = report(f"{candidate.__module__}:{candidate.__qualname__}", rows, others)
        got = replay(store, candidate, Selection(), stubs).to_json_value()
        if got == want:
            print(f"ok {case}")
        else:
            failures += 1
            print(f"FAILED {case}\nexpected:\n{json.dumps(want, indent=2)}\nreplayed:\n{json.dumps(got, indent=2)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
