package io.durablejournal.flink;

import io.durablejournal.flink.internal.StoreMetrics;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.DivergencePolicy;
import io.durablejournal.DurableCallable;
import io.durablejournal.store.ActionStateStores;
import io.durablejournal.store.NativeActionStateStore;
import io.durablejournal.testing.JobTimeout;
import io.durablejournal.testing.OnceFlag;
import io.durablejournal.testing.ReportingMiniCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.JobID;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.Metric;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The operators' metrics ({@link JournalMetrics}) as a reporter sees them, from a real job on a
 * MiniCluster: records "a", "b", "c" of one key on one subtask. "b" crashes inside its second
 * call, whose reconciler was journaled as PENDING, the first time; Flink restarts the job (there
 * is no checkpoint: the source is read again from the start, and the store keeps the first
 * attempt's journals). The second attempt re-emits "a", replays "b"'s first call, reconciles its
 * second and runs its third, and runs "c". Every attempt registers its own metrics; the reporter
 * keeps both.
 */
class OperatorMetricsTest {
    @RegisterExtension
    static final ReportingMiniCluster FLINK = ReportingMiniCluster.withSlots(2);

    @TempDir
    Path tmp;

    /** "b" makes three calls, the second with a reconciler; the others one each. */
    private static AgentAction<String, String> action(String crashFlag) {
        return (record, ctx) -> {
            String answer = ctx.durableExecute(DurableCallable.of(record + "/1", String.class, () -> record + "1"));
            if (!record.equals("b")) {
                return answer;
            }
            answer += ctx.durableExecute(
                    DurableCallable.of("b/2", String.class, () -> crashTheFirstTime(crashFlag), () -> "b2-reconciled"));
            return answer + ctx.durableExecute(DurableCallable.of("b/3", String.class, () -> "b3"));
        };
    }

    /**
     * An Error is not an outcome the journal records (only exceptions are): the call's slot stays
     * PENDING, as if the process had died inside the call.
     */
    private static String crashTheFirstTime(String crashFlag) {
        if (!OnceFlag.takeFirst(crashFlag)) {
            return "b2";
        }
        throw new AssertionError("crash injected inside call b/2");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {OneKeyJob.ACTION_FUNCTION, OneKeyJob.ASYNC_ACTIONS})
    @JobTimeout
    void theOperatorReportsWhatItsCallsAndItsStoreDid(String operator) throws Exception {
        Path storeDir = tmp.resolve("store");
        JobClient job = OneKeyJob.start("metrics", operator, action(tmp.resolve("crashed").toString()), DivergencePolicy.WARN,
                storeDir, "a", "b", "c");
        job.getJobExecutionResult().get();

        List<Map<String, Metric>> attempts = metricsPerAttempt(job.getJobID());
        assertEquals(2, attempts.size(), "one metric group per attempt: " + attempts);
        Map<String, Metric> first = attempts.get(0);
        Map<String, Metric> second = attempts.get(1);

        // First attempt: a/1, b/1 and the body of b/2 ran; "a" was put completed; b crashed.
        assertCounters(first, 3, 0, 0, 2, 0);
        assertEquals(1, histogram(first).getCount(), "one completed action put");
        assertEquals(2L, gauge(first, StoreMetrics.LIVE_ENTRIES), "a (completed) and b (in flight) when the task ended");

        // Second attempt: "a" re-emitted; b/1 replayed, b/2 reconciled, b/3 and c/1 ran.
        assertCounters(second, 2, 1, 1, 2, 1);
        assertEquals(2, histogram(second).getCount(), "b and c put completed");
        assertTrue(histogram(second).getStatistics().getMin() > 0, "put latencies are measured");
        assertEquals(3L, gauge(second, StoreMetrics.LIVE_ENTRIES), "nothing was pruned: no checkpoint completed");

        // Every byte the two attempts appended is in the store's segment, after its header.
        long appended = gauge(first, StoreMetrics.BYTES_APPENDED) + gauge(second, StoreMetrics.BYTES_APPENDED);
        assertEquals(segmentBytes(ActionStateStoreFactory.subtaskDirectory(storeDir.toString(), 0))
                - segmentBytes(Files.createDirectories(tmp.resolve("empty"))), appended);
    }

    /** The metrics of this job's {@value StoreMetrics#GROUP} groups, by attempt number. */
    private static List<Map<String, Metric>> metricsPerAttempt(JobID job) {
        return List.copyOf(FLINK.metricsPerAttempt(StoreMetrics.GROUP, job).values());
    }

    /** The counters {@link #assertCounters} reads, in the order it takes their expected values. */
    private static final List<String> CALL_AND_ACTION_COUNTERS = List.of(JournalMetrics.CALLS_EXECUTED,
            JournalMetrics.CALLS_REPLAYED, JournalMetrics.CALLS_RECONCILED, JournalMetrics.ACTIONS_RUN,
            JournalMetrics.ACTIONS_REEMITTED);

    /**
     * Calls executed, replayed and reconciled, actions run and re-emitted, as one attempt counted
     * them; compared together, so a failure shows all five.
     */
    private static void assertCounters(Map<String, Metric> attempt, long... expected) {
        assertEquals(CALL_AND_ACTION_COUNTERS.size(), expected.length, "one expected value per counter");
        Map<String, Long> want = new LinkedHashMap<>();
        Map<String, Long> counted = new LinkedHashMap<>();
        for (int i = 0; i < CALL_AND_ACTION_COUNTERS.size(); i++) {
            String name = CALL_AND_ACTION_COUNTERS.get(i);
            want.put(name, expected[i]);
            counted.put(name, count(attempt, name));
        }
        assertEquals(want, counted);
    }

    private static long count(Map<String, Metric> metrics, String name) {
        return ((Counter) metric(metrics, name)).getCount();
    }

    private static Histogram histogram(Map<String, Metric> metrics) {
        return (Histogram) metric(metrics, StoreMetrics.PUT_LATENCY);
    }

    private static long gauge(Map<String, Metric> metrics, String name) {
        return (Long) ((Gauge<?>) metric(metrics, name)).getValue();
    }

    private static Metric metric(Map<String, Metric> metrics, String name) {
        Metric metric = metrics.get(name);
        assertTrue(metric != null, name + " is registered: " + metrics.keySet());
        return metric;
    }

    private static long segmentBytes(Path dir) {
        try (NativeActionStateStore store = ActionStateStores.openFileStore(dir)) {
            return store.stats().segmentBytes();
        }
    }
}
