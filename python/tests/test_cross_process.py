"""The args digest and RuntimeIdentity do not depend on the process: fresh
interpreters with different PYTHONHASHSEED values (which reorder set and dict
iteration of str keys) derive the same ids."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import PACKAGE_PATH

SEEDS = ["0", "1", "2", "random"]

MODELS = textwrap.dedent(
    """
    import dataclasses
    from typing import Any, Optional

    import pydantic


    @dataclasses.dataclass(frozen=True)
    class Address:
        street: str
        tags: frozenset


    class Order(pydantic.BaseModel):
        id: int
        skus: set
        ship_to: Address
        notes: Optional[dict] = None


    def make_tagger(tags):
        def tag(item):
            return item, tags

        return tag


    def logged(target):
        def wrapper(*args, **kwargs):
            return target(*args, **kwargs)

        return wrapper
    """
)

PROBE = textwrap.dedent(
    """
    import json, sys
    import durable_journal as dj
    from xp_models import Address, Order, logged, make_tagger

    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
             "india", "juliet", "kilo", "lima", "mike", "november", "oscar", "papa"]
    address = Address(street="1 Main St", tags=frozenset(words[:6]))
    order = Order(id=7, skus=set(words), ship_to=address, notes={w: len(w) for w in words})
    samples = {
        "set": ((set(words),), {}),
        "frozenset_of_tuples": ((frozenset((w, i) for i, w in enumerate(words)),), {}),
        "dict": (({w: {w.upper()} for w in words},), {}),
        "dataclass": ((address,), {}),
        "pydantic": ((), {"order": order, "words": set(words)}),
        "mixed_kwargs": ((1, [2.5, None]), {w: w for w in words}),
    }
    result = {name: dj.compute_args_digest(args, kwargs) for name, (args, kwargs) in samples.items()}
    result["call_id"] = dj.durable_identity_for_call(dj.compute_args_digest, (set(words),), {})
    result["closure_set"] = dj.durable_identity_for_call(make_tagger(set(words)), ("x",), {})
    result["decorated_closure"] = dj.durable_identity_for_call(logged(make_tagger(frozenset(words))), ("x",), {})
    result["set_iteration_order"] = list(set(words))

    # One input round with two equal-payload events for one key.
    ids = []
    for seq in (0, 1):
        occurrence = dj.RuntimeIdentity.root_occurrence(b"user-7", seq)
        execution = dj.RuntimeIdentity.action_execution(occurrence, "echo")
        with dj.RuntimeIdentity.for_execution(execution) as allocator:
            ids += [occurrence, execution, allocator.emit(), allocator.emit(),
                    allocator.next_call_id("chat", "session"), allocator.next_call_id("chat", "session")]
    result["round"] = ids
    json.dump(result, sys.stdout)
    """
)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    directory = tmp_path_factory.mktemp("cross_process")
    (directory / "xp_models.py").write_text(MODELS)
    outputs = {}
    for seed in SEEDS:
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=os.pathsep.join([*PACKAGE_PATH, str(directory)]))
        done = subprocess.run(
            [sys.executable, "-c", PROBE], env=env, cwd=directory, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        outputs[seed] = json.loads(done.stdout)
    return outputs


def test_hash_seeds_really_reorder_sets(runs):
    # Otherwise the test below would prove nothing.
    orders = {tuple(runs[seed]["set_iteration_order"]) for seed in ("0", "1", "2")}
    assert len(orders) > 1


@pytest.mark.parametrize(
    "sample",
    [
        "set", "frozenset_of_tuples", "dict", "dataclass", "pydantic", "mixed_kwargs", "call_id",
        "closure_set", "decorated_closure",
    ],
)
def test_digests_are_identical_in_every_process(runs, sample):
    values = {seed: runs[seed][sample] for seed in SEEDS}
    assert len(set(values.values())) == 1, values


def test_equal_payload_events_get_distinct_ids_and_every_process_replays_them(runs):
    first = runs[SEEDS[0]]["round"]
    assert len(first) == 12
    assert len(set(first)) == 12, "equal-payload events or calls shared an id"
    for seed in SEEDS[1:]:
        assert runs[seed]["round"] == first
