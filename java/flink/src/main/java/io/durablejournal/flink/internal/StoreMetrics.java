package io.durablejournal.flink.internal;

import io.durablejournal.JournalException;
import io.durablejournal.store.ActionStateStore;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToLongFunction;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.metrics.DescriptiveStatisticsHistogram;

/**
 * The metrics of an operator's {@link ActionStateStore}, in the subgroup {@value #GROUP} of the
 * operator's metric group: how long its puts take (a histogram the operator feeds) and what the
 * store holds and wrote (gauges, read from the store when a reporter asks). Used by this package's
 * operators (with the call counters of their own) and by the Flink Agents adapter.
 */
public final class StoreMetrics {
    /** The subgroup of the operator's metric group that holds durable-journal's metrics. */
    public static final String GROUP = "durableJournal";
    /** Histogram of the nanoseconds each put into the store took, as the operator measured it. */
    public static final String PUT_LATENCY = "storePutLatencyNanos";
    /** Gauge: {@link ActionStateStore#bytesAppended()}; registered when the store counts them. */
    public static final String BYTES_APPENDED = "storeBytesAppended";
    /** Gauge: {@link ActionStateStore#liveEntries()}; registered when the store can tell. */
    public static final String LIVE_ENTRIES = "storeLiveEntries";
    /** Put latencies the histogram's statistics are computed over (the most recent ones). */
    private static final int LATENCY_WINDOW = 1024;

    private final Histogram putLatency;
    private final List<StoreGauge> gauges = new ArrayList<>();

    private StoreMetrics(MetricGroup group) {
        putLatency = group.histogram(PUT_LATENCY, new DescriptiveStatisticsHistogram(LATENCY_WINDOW));
    }

    /**
     * Registers the metrics in {@code group} (the {@value #GROUP} subgroup): the histogram, and a
     * gauge for each number {@code store} reports (none when it answers -1, or is null).
     */
    public static StoreMetrics register(MetricGroup group, ActionStateStore store) {
        StoreMetrics metrics = new StoreMetrics(group);
        if (store != null) {
            metrics.registerGauge(group, BYTES_APPENDED, store, ActionStateStore::bytesAppended);
            metrics.registerGauge(group, LIVE_ENTRIES, store, ActionStateStore::liveEntries);
        }
        return metrics;
    }

    private void registerGauge(MetricGroup group, String name, ActionStateStore store, ToLongFunction<ActionStateStore> reading) {
        long first = reading.applyAsLong(store);
        if (first >= 0) {
            gauges.add(group.gauge(name, new StoreGauge(store, reading, first)));
        }
    }

    /** A put took {@code nanos}. Not thread-safe for concurrent updates: call it from one thread. */
    public void putTook(long nanos) {
        putLatency.update(nanos);
    }

    /**
     * Reads the gauges one last time; call it right before closing the store, so that a reporter
     * reading after the task ended (or failed) sees the store as the task left it. Never throws
     * (it runs in an operator's close).
     */
    public void storeClosing() {
        for (StoreGauge gauge : gauges) {
            try {
                gauge.getValue();
            } catch (RuntimeException e) {
                // A failing store keeps its last value.
            }
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
