package io.durablejournal.flinkagents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.flink.ActionStateStoreFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.plan.AgentPlan;
import org.apache.flink.agents.plan.actions.Action;
import org.apache.flink.agents.runtime.actionstate.ActionState;
import org.apache.flink.agents.runtime.actionstate.ActionStateStore;
import org.apache.flink.agents.runtime.operator.ActionExecutionOperatorFactory;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.tasks.mailbox.Mail;
import org.apache.flink.streaming.runtime.tasks.mailbox.TaskMailbox;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bytes written per action of n durable calls (1 KB results) on Flink Agents' own operator, in
 * one run: what the native file store appends (its {@code StoreStats}) against what Flink Agents'
 * Kafka store sends for the same puts (the whole ActionState JSON, every put). The operator puts
 * the whole state n + 2 times per action; the store writes what changed, so its bytes grow
 * linearly with n while the whole-state bytes grow with n squared.
 */
class BytesPerActionTest {
    /** Flink Agents' SPI around the journal store, adding up what a whole-state store would send. */
    static final class MeasuringStore extends ForwardingJournalStore {
        long wholeStateBytes;
        int puts;

        MeasuringStore(JournalActionStateStore journal) {
            super(journal);
        }

        @Override
        public void put(Object key, long seqNum, Action action, Event event, ActionState state) throws Exception {
            wholeStateBytes += Fixtures.wholeStateBytes(state);
            puts++;
            journal.put(key, seqNum, action, event, state);
        }
    }

    /** Flink Agents' factory with a store injected through its protected constructor. */
    static final class InjectingFactory extends ActionExecutionOperatorFactory<Integer, Object> {
        private static final long serialVersionUID = 1L;

        InjectingFactory(AgentPlan plan, ActionStateStore store) {
            super(plan, true, store);
        }
    }

    /** Bytes of one action of {@code calls} calls: {@code [store, whole state, puts]}. */
    private long[] measure(int calls) throws Exception {
        ActionStateStoreFactory fileStores = ActionStateStoreFactory.fileStores(tmp.resolve("store-" + calls).toString(), 64);
        MeasuringStore store = new MeasuringStore(Fixtures.store(fileStores, 0, 1, 0));
        try (KeyedOneInputStreamOperatorTestHarness<Integer, Integer, Object> harness = new KeyedOneInputStreamOperatorTestHarness<>(
                new InjectingFactory(new AgentPlan(new CallsAgent()), store), value -> 0, Types.INT)) {
            harness.open();
            long before = store.journal.stats().bytesAppended();
            harness.processElement(new StreamRecord<>(calls));
            Optional<Mail> mail;
            while ((mail = harness.getTaskMailbox().tryTake(TaskMailbox.MIN_PRIORITY)).isPresent()) {
                mail.get().run();
            }
            assertEquals(List.of(calls), harness.extractOutputValues(), "the action ran its calls");
            return new long[] {store.journal.stats().bytesAppended() - before, store.wholeStateBytes, store.puts};
        }
    }

    @TempDir
    Path tmp;

    @Test
    void theStoreWritesBytesLinearInTheCallsWhereWholeStatePutsGrowQuadratically() throws Exception {
        int[] sizes = {1, 10, 100};
        List<long[]> bytes = new ArrayList<>();
        System.out.println("[bytes per action] calls | durable-journal store | whole-state JSON (Flink Agents' Kafka store) | ratio");
        for (int n : sizes) {
            long[] measured = measure(n);
            bytes.add(measured);
            assertEquals(n + 2, measured[2], "Flink Agents put the whole state n + 2 times");
            System.out.printf("[bytes per action] %5d | %,12d B | %,14d B | %.1fx%n", n, measured[0], measured[1],
                    (double) measured[1] / measured[0]);
        }
        double perCallFrom1To10 = (bytes.get(1)[0] - bytes.get(0)[0]) / 9.0;
        double perCallFrom10To100 = (bytes.get(2)[0] - bytes.get(1)[0]) / 90.0;
        assertTrue(perCallFrom1To10 > CallsAgent.RESULT_CHARS, "a call costs at least its result: " + perCallFrom1To10);
        assertTrue(Math.abs(perCallFrom10To100 - perCallFrom1To10) <= 0.02 * perCallFrom1To10,
                "each further call costs the same bytes: " + perCallFrom1To10 + " then " + perCallFrom10To100);
        assertTrue(bytes.get(2)[1] > 40 * bytes.get(1)[1], "whole-state bytes grow with n squared");
    }
}
