package io.durablejournal.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.DurableCallable;
import io.durablejournal.JournalException;
import io.durablejournal.RunnerContextImpl;
import io.durablejournal.demo.AgentJob;
import io.durablejournal.demo.Request;
import io.durablejournal.demo.SideEffectLog;
import io.durablejournal.demo.SupportAgent;
import io.durablejournal.flink.AgentAction;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker misbehaving under a running job (the demo's agent job on a MiniCluster):
 * <ul>
 *   <li>restarted between two calls: the next durable call waits in the producer until the broker
 *       is back, nothing is lost, and no record reaches the topic twice;</li>
 *   <li>down when a call completes: the durable call fails with a clear {@code STORE_IO} error
 *       naming the topic, the journal keeps the call as it was before (PENDING), and once the
 *       broker is back the restarted job resumes; the call's reconciler finds its side effect, so
 *       it does not run again.</li>
 * </ul>
 * Each test orders its steps inside the action itself (the broker is stopped from the call that
 * runs when it must be down), so nothing waits on a clock.
 */
class BrokerTroubleTest {
    private static final int REQUESTS = 12;
    private static final Map<String, Trouble> RUNS = new ConcurrentHashMap<>();

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(4)
            .build());

    private static KafkaBroker broker;

    @TempDir
    Path tmp;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = KafkaBroker.shared();
    }

    /** What a run observed. */
    static final class Trouble {
        volatile boolean done;
        volatile Throwable brokerFailure;
        volatile JournalException callFailure;
        volatile Object[] slotAfterFailure;
        volatile int reconciled;
    }

    /** The demo's agent; before request {@code at} the broker is restarted, its next call waiting for it. */
    static final class RestartsTheBroker implements AgentAction<Request, String> {
        private static final long serialVersionUID = 1L;
        private final SupportAgent agent;
        private final String at;
        private final String runId;

        RestartsTheBroker(SupportAgent agent, String at, String runId) {
            this.agent = agent;
            this.at = at;
            this.runId = runId;
        }

        @Override
        public String run(Request request, RunnerContextImpl ctx) throws Exception {
            Trouble trouble = RUNS.get(runId);
            if (request.id.equals(at) && !trouble.done) {
                trouble.done = true;
                broker.stop();
                Thread starter = new Thread(() -> {
                    try {
                        broker.start();
                    } catch (Throwable t) {
                        trouble.brokerFailure = t;
                    }
                }, "restart the test broker");
                starter.start();
            }
            // The first call of this request is sent while the broker is down.
            return agent.run(request, ctx);
        }
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void aBrokerRestartedMidRunLosesNothingAndDuplicatesNothing() throws Exception {
        String topic = broker.createTopic("journal-restart-" + UUID.randomUUID(), 2);
        String runId = UUID.randomUUID().toString();
        Trouble trouble = new Trouble();
        RUNS.put(runId, trouble);
        AgentJob.Settings settings = new AgentJob.Settings();
        settings.workDir = tmp.resolve("restart");
        settings.requests = REQUESTS;
        settings.gateAt = -1;
        settings.crashAt = -1;
        settings.parallelism = 2;
        // A call waits for the broker as long as these allow; a restart must fit in them, also on a
        // loaded machine (a KRaft broker restart took 5 to 15 s here).
        settings.storeFactory = KafkaActionStateStores.factory(broker.config(topic)
                .with("max.block.ms", "180000")
                .with("delivery.timeout.ms", "180000"));
        settings.agent = new RestartsTheBroker(settings.supportAgent(), "req-05", runId);
        AgentJob.Outcome outcome;
        try {
            outcome = AgentJob.run(StreamExecutionEnvironment.getExecutionEnvironment(
                    AgentJob.flinkConfiguration(Duration.ofMillis(100))), settings);
        } finally {
            RUNS.remove(runId);
        }

        assertTrue(trouble.done, "the broker was restarted during the run");
        assertNull(trouble.brokerFailure);
        assertEquals(AgentJob.expectedAnswers(REQUESTS), outcome.answers);
        assertEquals(0, outcome.duplicateSideEffects(), "no call ran twice: " + outcome.sideEffects);
        assertEquals(0, outcome.callsReplayed, "no failover: the calls waited for the broker instead");
        Map<String, Integer> values = broker.valueRecordsByKey(topic, 2);
        assertTrue(values.size() >= REQUESTS * 5, "a put, three calls and a completion per request: " + values.size());
        values.values().removeIf(n -> n == 1);
        assertEquals(Map.of(), values, "no journal record reached the topic twice");
    }

    /**
     * Three calls per request, the last one reconcilable (a ticket: the reconciler looks it up).
     * For request {@code at}, the ticket's body stops the broker once it has opened the ticket, so
     * its completion cannot be recorded; the agent notes the failure and the journal's slot,
     * brings the broker back and fails the action.
     */
    static final class DownWhenACallCompletes implements AgentAction<Request, String> {
        private static final long serialVersionUID = 1L;
        private final String sideEffectLog;
        private final String at;
        private final String runId;

        DownWhenACallCompletes(String sideEffectLog, String at, String runId) {
            this.sideEffectLog = sideEffectLog;
            this.at = at;
            this.runId = runId;
        }

        @Override
        public String run(Request request, RunnerContextImpl ctx) throws Exception {
            Trouble trouble = RUNS.get(runId);
            String reply = ctx.durableExecute(call(request, SupportAgent.CHAT, "reply to '" + request.text + "'"));
            String account = ctx.durableExecute(call(request, SupportAgent.lookupId(request), "account of " + request.user));
            String ticketId = SupportAgent.ticketId(request);
            boolean stopBroker = request.id.equals(at) && !trouble.done;
            DurableCallable<String> ticket = DurableCallable.of(ticketId, String.class, () -> {
                String opened = "ticket for " + request.id + " (run " + SideEffectLog.record(sideEffectLog, request.id, ticketId) + ")";
                if (stopBroker) {
                    trouble.done = true;
                    broker.stop();
                }
                return opened;
            }, () -> {
                trouble.reconciled++;
                Integer runs = SideEffectLog.counts(Path.of(sideEffectLog)).get(request.id + "/" + ticketId);
                return runs == null ? null : "ticket for " + request.id + " (run " + runs + ")";
            });
            String opened;
            try {
                opened = ctx.durableExecute(ticket);
            } catch (JournalException e) {
                trouble.callFailure = e;
                trouble.slotAfterFailure = ctx.getCallResultFieldsAt(2);
                broker.start();
                throw e;
            }
            return request.id + ": " + reply + " | " + account + " | " + opened;
        }

        private DurableCallable<String> call(Request request, String id, String value) {
            String log = sideEffectLog;
            return DurableCallable.of(id, String.class, () -> value + " (run " + SideEffectLog.record(log, request.id, id) + ")");
        }
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void aBrokerDownWhenACallCompletesFailsTheCallClearlyAndTheJobRecoversOnceItIsBack() throws Exception {
        String topic = broker.createTopic("journal-down-" + UUID.randomUUID(), 1);
        String runId = UUID.randomUUID().toString();
        Trouble trouble = new Trouble();
        RUNS.put(runId, trouble);
        AgentJob.Settings settings = new AgentJob.Settings();
        settings.workDir = tmp.resolve("down");
        settings.requests = REQUESTS;
        settings.gateAt = -1;
        settings.crashAt = -1;
        // One subtask: only the call that is completing meets the broker down.
        settings.parallelism = 1;
        settings.storeFactory = KafkaActionStateStores.factory(broker.config(topic)
                .with("delivery.timeout.ms", "3000")
                .with("request.timeout.ms", "1000")
                .with("max.block.ms", "3000"));
        settings.agent = new DownWhenACallCompletes(settings.sideEffectLog().toString(), "req-04", runId);
        AgentJob.Outcome outcome;
        try {
            outcome = AgentJob.run(StreamExecutionEnvironment.getExecutionEnvironment(
                    AgentJob.flinkConfiguration(Duration.ofMillis(100))), settings);
        } finally {
            RUNS.remove(runId);
        }

        JournalException failure = trouble.callFailure;
        assertNotNull(failure, "the ticket call of req-04 failed");
        System.out.println("[broker down] the durable call failed with: " + failure);
        assertEquals(JournalException.Code.STORE_IO, failure.getCode());
        assertTrue(failure.getMessage().contains("Kafka topic '" + topic + "'") && failure.getMessage().contains("not acknowledged within delivery.timeout.ms=3000"),
                failure.getMessage());
        assertEquals("PENDING", trouble.slotAfterFailure[1], "the journal kept the call as it was before its completion failed");

        assertEquals(AgentJob.expectedAnswers(REQUESTS), outcome.answers, "the job recovered and answered everything");
        assertEquals(0, outcome.duplicateSideEffects(), "no call ran twice: " + outcome.sideEffects);
        assertEquals(1, trouble.reconciled, "after the restart the ticket was reconciled, not opened again");
    }
}
