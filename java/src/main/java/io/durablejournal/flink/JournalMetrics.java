package io.durablejournal.flink;

import io.durablejournal.JournalException;
import io.durablejournal.store.ActionStateStore;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToLongFunction;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.metrics.DescriptiveStatisticsHistogram;

/**
 * The operators' Flink metrics, in the subgroup {@value #GROUP} of the operator's metric group,
 * so they show up wherever the job's metrics go (web UI, reporters): what the operator's durable
 * calls did (counters), how long its store puts take (a histogram) and what its store holds
 * (gauges read from the store when a reporter asks). The counters and the histogram are updated
 * on the task thread only, from a {@link DurableActionRunner.Tally}.
 */
final class JournalMetrics {
    static final String GROUP = "durableJournal";
    /** Durable call bodies that ran (neither replayed nor reconciled). */
    static final String CALLS_EXECUTED = "callsExecuted";
    /** Durable calls answered from the journal without running. */
    static final String CALLS_REPLAYED = "callsReplayed";
    /** Calls an interrupted run had left PENDING whose reconciler ran instead of the call. */
    static final String CALLS_RECONCILED = "callsReconciled";
    /** Action bodies started (first runs and re-runs over a journal). */
    static final String ACTIONS_RUN = "actionsRun";
    /** Completed actions whose stored output was re-emitted without running them. */
    static final String ACTIONS_REEMITTED = "actionsReemitted";
    /** Nanoseconds of each put of a completed action's output and completion into the store. */
    static final String STORE_PUT_LATENCY = "storePutLatencyNanos";
    /** {@link ActionStateStore#bytesAppended()}, when the store counts them. */
    static final String STORE_BYTES_APPENDED = "storeBytesAppended";
    /** {@link ActionStateStore#liveEntries()}, when the store can tell. */
    static final String STORE_LIVE_ENTRIES = "storeLiveEntries";
    /** Put latencies the histogram's statistics are computed over (the most recent ones). */
    private static final int LATENCY_WINDOW = 1024;

    private final Counter callsExecuted;
    private final Counter callsReplayed;
    private final Counter callsReconciled;
    private final Counter actionsRun;
    private final Counter actionsReemitted;
    private final Histogram putLatency;
    private final List<StoreGauge> storeGauges = new ArrayList<>();

    private JournalMetrics(MetricGroup group) {
        callsExecuted = group.counter(CALLS_EXECUTED);
        callsReplayed = group.counter(CALLS_REPLAYED);
        callsReconciled = group.counter(CALLS_RECONCILED);
        actionsRun = group.counter(ACTIONS_RUN);
        actionsReemitted = group.counter(ACTIONS_REEMITTED);
        putLatency = group.histogram(STORE_PUT_LATENCY, new DescriptiveStatisticsHistogram(LATENCY_WINDOW));
    }

    /**
     * Registers the metrics under {@code operatorGroup}; the store's gauges only for what {@code
     * store} (null: no journal) reports, a store answering -1 has none.
     */
    static JournalMetrics register(MetricGroup operatorGroup, ActionStateStore store) {
        MetricGroup group = operatorGroup.addGroup(GROUP);
        JournalMetrics metrics = new JournalMetrics(group);
        if (store != null) {
            metrics.registerStoreGauge(group, STORE_BYTES_APPENDED, store, ActionStateStore::bytesAppended);
            metrics.registerStoreGauge(group, STORE_LIVE_ENTRIES, store, ActionStateStore::liveEntries);
        }
        return metrics;
    }

    private void registerStoreGauge(MetricGroup group, String name, ActionStateStore store,
            ToLongFunction<ActionStateStore> reading) {
        long first = reading.applyAsLong(store);
        if (first >= 0) {
            storeGauges.add(group.gauge(name, new StoreGauge(store, reading, first)));
        }
    }

    /**
     * Reads the store's gauges one last time before the operator closes the store, so that a
     * reporter reading after the task ended (or failed) sees the store as the task left it.
     */
    void storeClosing() {
        for (StoreGauge gauge : storeGauges) {
            try {
                gauge.getValue();
            } catch (RuntimeException e) {
                // A store that fails now keeps its last value; close() must not throw (see closeStore).
            }
        }
    }

    void add(DurableActionRunner.Tally tally) {
        callsExecuted.inc(tally.callsExecuted);
        callsReplayed.inc(tally.callsReplayed);
        callsReconciled.inc(tally.callsReconciled);
        actionsRun.inc(tally.actionsRun);
        actionsReemitted.inc(tally.actionsReemitted);
        if (tally.putNanos >= 0) {
            putLatency.update(tally.putNanos);
        }
    }

    /**
     * A number the store reports, read on the reporter's thread (the stores are thread-safe). Once
     * the store is closed (the task ends while a reporter reads) it keeps the last value read.
     */
    private static final class StoreGauge implements Gauge<Long> {
        private final ActionStateStore store;
        private final ToLongFunction<ActionStateStore> reading;
        private volatile long last;

        StoreGauge(ActionStateStore store, ToLongFunction<ActionStateStore> reading, long first) {
            this.store = store;
            this.reading = reading;
            this.last = first;
        }

        @Override
        public Long getValue() {
            try {
                last = reading.applyAsLong(store);
            } catch (IllegalStateException closed) {
                // Closed under the reporter: the last value stands.
            } catch (JournalException e) {
                if (e.getCode() != JournalException.Code.CLOSED) {
                    throw e;
                }
            }
            return last;
        }
    }
}
