package io.durablejournal.flinkagents;

import static io.durablejournal.demo.JobSettings.REQUESTS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.flink.internal.StoreMetrics;
import io.durablejournal.flinkagents.demo.AgentJob;
import io.durablejournal.store.ActionStateStores;
import io.durablejournal.store.NativeActionStateStore;
import io.durablejournal.testing.JobTest;
import io.durablejournal.testing.ReportingMiniCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.Metric;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store metrics of Flink Agents' operator over the journal store, as a reporter sees them:
 * the agent job (twelve requests, parallelism 2) without a crash and without checkpoints, so
 * nothing is pruned and every number can be checked against the stores the job left.
 */
class FlinkAgentsMetricsTest {
    /**
     * Flink Agents 0.3.1 puts each action's state when it starts and when it completes; its calls
     * are the native journal's delta records, not puts (with Flink Agents' own journal each call
     * is a put too).
     */
    private static final int PUTS_PER_REQUEST = 2 + 2;

    @RegisterExtension
    static final ReportingMiniCluster FLINK = ReportingMiniCluster.withSlots(4);

    @JobTest
    void theOperatorsStoreReportsItsPutsBytesAndEntries(@TempDir Path tmp) throws Exception {
        AgentJob.Settings settings = new AgentJob.Settings(tmp.resolve("job"));
        settings.gateAt = -1;
        settings.crashAt = -1;
        AgentJob.Outcome outcome = AgentJob.run(settings, null);
        assertEquals(AgentJob.expectedAnswers(REQUESTS), outcome.answers);

        List<Map<String, Metric>> subtasks = FLINK.metricsOfGroups(StoreMetrics.GROUP);
        assertEquals(settings.parallelism, subtasks.size(), "one group per subtask, one attempt");

        long puts = 0;
        long entries = 0;
        long bytes = 0;
        for (Map<String, Metric> metrics : subtasks) {
            Histogram latency = (Histogram) metrics.get(StoreMetrics.PUT_LATENCY);
            puts += latency.getCount();
            assertTrue(latency.getStatistics().getMin() > 0, "put latencies are measured");
            entries += (Long) ((Gauge<?>) metrics.get(StoreMetrics.LIVE_ENTRIES)).getValue();
            bytes += (Long) ((Gauge<?>) metrics.get(StoreMetrics.BYTES_APPENDED)).getValue();
        }
        assertEquals(REQUESTS * PUTS_PER_REQUEST, puts, "every put Flink Agents made was timed");

        long storedEntries = 0;
        long storedBytes = 0;
        long header = segmentBytesAndEntries(Files.createDirectories(tmp.resolve("empty")))[0];
        for (int subtask = 0; subtask < settings.parallelism; subtask++) {
            long[] stored = segmentBytesAndEntries(ActionStateStoreFactory.subtaskDirectory(settings.storeDir().toString(), subtask));
            storedBytes += stored[0] - header;
            storedEntries += stored[1];
        }
        assertEquals(2 * REQUESTS, storedEntries, "two actions per request, nothing pruned without checkpoints");
        assertEquals(storedEntries, entries, "live entries as the tasks left their stores");
        assertEquals(storedBytes, bytes, "every byte appended is in the stores' segments, after their headers");
    }

    private static long[] segmentBytesAndEntries(Path dir) {
        try (NativeActionStateStore store = ActionStateStores.openFileStore(dir)) {
            return new long[] {store.stats().segmentBytes(), store.stats().entries()};
        }
    }
}
