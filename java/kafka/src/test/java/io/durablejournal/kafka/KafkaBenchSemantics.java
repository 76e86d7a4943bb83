package io.durablejournal.kafka;

import io.durablejournal.DurableCallable;
import io.durablejournal.DurableExecutionContext;
import io.durablejournal.RunnerContextImpl;
import io.durablejournal.store.EventIdentity;
import io.durablejournal.store.LogActionStateStore;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;

/**
 * Part "semantics" of {@link KafkaStoreComparison}: what an at-most-once call costs on the Kafka
 * store against a default one (docs/exactly-once.md): actions of {@link #CALLS} durable calls of
 * 1 KB through {@link RunnerContextImpl}, at least once (one record per call, its outcome) and at
 * most once (two: the PENDING record, acknowledged with {@code acks=all} before the body, and the
 * outcome). Rounds alternate the two, so load on the machine hits them alike; the table shows the
 * median round.
 */
final class KafkaBenchSemantics {
    private static final int CALLS = 10;
    private static final int ACTIONS_PER_ROUND = 40;
    private static final int ROUNDS = 5;

    private KafkaBenchSemantics() {}

    static void run(KafkaBroker broker) throws Exception {
        String topic = broker.createTopic("bench-semantics-" + UUID.randomUUID(), 1);
        List<Double> atLeastOnce = new ArrayList<>();
        List<Double> atMostOnce = new ArrayList<>();
        try (LogActionStateStore store = KafkaActionStateStores.openFresh(broker.config(topic))) {
            round(store, false);
            round(store, true);
            for (int i = 0; i < ROUNDS; i++) {
                atLeastOnce.add(round(store, false));
                atMostOnce.add(round(store, true));
            }
        }
        double base = median(atLeastOnce);
        double amo = median(atMostOnce);
        System.out.println("Call semantics on the Kafka store: actions of " + CALLS + " calls of 1 KB, median of " + ROUNDS
                + " rounds of " + ACTIONS_PER_ROUND + " actions each, after a warm-up round");
        System.out.println();
        System.out.println("| calls | time per action | per call | vs at least once |");
        System.out.println("|---|---|---|---|");
        System.out.printf("| at least once (default) | %.0f µs | %.0f µs | 1 (baseline) |%n", base, base / CALLS);
        System.out.printf("| at most once | %.0f µs | %.0f µs | %.2fx |%n", amo, amo / CALLS, amo / base);
    }

    /** Mean time per action (µs) of one round. */
    private static double round(LogActionStateStore store, boolean atMostOnce) throws Exception {
        long started = System.nanoTime();
        for (int a = 0; a < ACTIONS_PER_ROUND; a++) {
            String key = "user-" + UUID.randomUUID();
            try (DurableExecutionContext journal = store.openContext(key, 0, "process", EventIdentity.rootOccurrence(key, 0), null)) {
                RunnerContextImpl runner = new RunnerContextImpl(journal);
                for (int i = 0; i < CALLS; i++) {
                    String id = String.format("call-%05d", i);
                    runner.durableExecute(atMostOnce ? DurableCallable.atMostOnce(id, byte[].class, () -> KafkaStoreComparison.RESULT)
                            : DurableCallable.of(id, byte[].class, () -> KafkaStoreComparison.RESULT));
                }
                journal.markCompleted();
            }
        }
        return (System.nanoTime() - started) / 1000.0 / ACTIONS_PER_ROUND;
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }
}
