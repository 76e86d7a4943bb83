package io.durablejournal.kafka;

import static io.durablejournal.demo.JobSettings.REQUESTS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.JournalException;
import io.durablejournal.demo.AgentJob;
import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.kafka.StagedFaults.Fault;
import io.durablejournal.testing.LongJobTimeout;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
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
 * Each test orders its steps inside the action itself ({@link StagedFaults}: the broker is stopped
 * from the call that runs when it must be down), so nothing waits on a clock.
 */
class BrokerTroubleTest {
    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.withFlink(4);

    @TempDir
    Path tmp;

    /** Before request req-05 the broker is restarted, the request's first call waiting for it in the producer. */
    @Test
    @LongJobTimeout
    void aBrokerRestartedMidRunLosesNothingAndDuplicatesNothing() throws Exception {
        KafkaBroker broker = KAFKA.broker();
        String topic = broker.createTopic("journal-restart-" + UUID.randomUUID(), 2);
        // A call waits for the broker as long as these allow; a restart must fit in them, also on a
        // loaded machine (a KRaft broker restart took 5 to 15 s here).
        ActionStateStoreFactory stores = KafkaActionStateStores.factory(broker.config(topic)
                .with("max.block.ms", "180000")
                .with("delivery.timeout.ms", "180000"));
        AgentJob.Settings settings = DemoJobs.uninterrupted(tmp.resolve("restart"), stores);
        Fault fault = new Fault(restarting -> {
            KAFKA.broker().stop();
            StagedFaults.inBackground("restart the test broker", restarting, started -> KAFKA.broker().start());
        });
        AgentJob.Outcome outcome = StagedFaults.runWithFaultBeforeRequest(settings, "req-05", fault);

        assertTrue(fault.done, "the broker was restarted during the run");
        assertNull(fault.restartFailure);
        assertEquals(AgentJob.expectedAnswers(REQUESTS), outcome.answers);
        assertEquals(0, outcome.duplicateSideEffects(), "no call ran twice: " + outcome.sideEffects);
        assertEquals(0, outcome.callsReplayed, "no failover: the calls waited for the broker instead");
        Map<String, Integer> values = broker.valueRecordsByKey(topic, 2);
        assertTrue(values.size() >= REQUESTS * 5, "a put, three calls and a completion per request: " + values.size());
        values.values().removeIf(n -> n == 1);
        assertEquals(Map.of(), values, "no journal record reached the topic twice");
    }

    /**
     * For request req-04, the ticket's body stops the broker once it has opened the ticket, so its
     * completion cannot be recorded; the agent notes the failure and the journal's slot, brings the
     * broker back and fails the action.
     */
    @Test
    @LongJobTimeout
    void aBrokerDownWhenACallCompletesFailsTheCallClearlyAndTheJobRecoversOnceItIsBack() throws Exception {
        String topic = KAFKA.broker().createTopic("journal-down-" + UUID.randomUUID(), 1);
        ActionStateStoreFactory stores = KafkaActionStateStores.factory(KAFKA.broker().config(topic)
                .with("delivery.timeout.ms", "3000")
                .with("request.timeout.ms", "1000")
                .with("max.block.ms", "3000"));
        AgentJob.Settings settings = DemoJobs.uninterrupted(tmp.resolve("down"), stores);
        // One subtask: only the call that is completing meets the broker down.
        settings.parallelism = 1;
        Fault fault = new Fault(stopping -> KAFKA.broker().stop(), recovering -> KAFKA.broker().start());
        AgentJob.Outcome outcome = StagedFaults.runWithFaultWhenACallCompletes(settings, "req-04", fault);

        JournalException failure = fault.callFailure;
        assertNotNull(failure, "the ticket call of req-04 failed");
        System.out.println("[broker down] the durable call failed with: " + failure);
        assertEquals(JournalException.Code.STORE_IO, failure.getCode());
        assertTrue(failure.getMessage().contains("Kafka topic '" + topic + "'") && failure.getMessage().contains("not acknowledged within delivery.timeout.ms=3000"),
                failure.getMessage());
        assertEquals("PENDING", fault.slotAfterFailure[1], "the journal kept the call as it was before its completion failed");

        assertEquals(AgentJob.expectedAnswers(REQUESTS), outcome.answers, "the job recovered and answered everything");
        assertEquals(0, outcome.duplicateSideEffects(), "no call ran twice: " + outcome.sideEffects);
        assertEquals(1, fault.reconciled, "after the restart the ticket was reconciled, not opened again");
    }
}
