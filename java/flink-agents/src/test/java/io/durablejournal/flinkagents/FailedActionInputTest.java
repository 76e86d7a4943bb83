package io.durablejournal.flinkagents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.testing.Failures;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Optional;
import org.apache.flink.agents.plan.AgentPlan;
import org.apache.flink.agents.runtime.operator.ActionExecutionOperator;
import org.apache.flink.agents.runtime.operator.ActionExecutionOperatorFactory;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.StreamOperatorFactory;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.tasks.mailbox.Mail;
import org.apache.flink.streaming.runtime.tasks.mailbox.TaskMailbox;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The 0.3.1 defect "an action that throws can lose its input", staged on Flink Agents' operator in
 * Flink's operator test harness (the test thread is the mailbox thread, so the order of mails and
 * checkpoints is the test's): the record's action throws; the operator has already taken the task
 * out of keyed state and only enqueued the mail that fails the task; a checkpoint barrier comes
 * first. Through {@link DurableAgents} that checkpoint fails instead, and a restore from the last
 * completed one processes the record again.
 */
class FailedActionInputTest {
    private static final KeySelector<String, String> ONE_KEY = value -> "k";

    private static AgentPlan plan() throws Exception {
        return new AgentPlan(new ThrowingAgent());
    }

    private static KeyedOneInputStreamOperatorTestHarness<String, String, Object> harness(StreamOperatorFactory<Object> factory)
            throws Exception {
        return new KeyedOneInputStreamOperatorTestHarness<>(factory, ONE_KEY, Types.STRING);
    }

    /** Runs the next mail of the operator's mailbox (the action of the record just processed). */
    private static void runNextMail(KeyedOneInputStreamOperatorTestHarness<?, ?, ?> harness) throws Exception {
        Optional<Mail> mail = harness.getTaskMailbox().tryTake(TaskMailbox.MIN_PRIORITY);
        assertTrue(mail.isPresent(), "a mail to run");
        mail.get().run();
    }

    private static void runAllMails(KeyedOneInputStreamOperatorTestHarness<?, ?, ?> harness) throws Exception {
        while (harness.getTaskMailbox().hasMail()) {
            runNextMail(harness);
        }
    }

    @Test
    void flinkAgentsOwnOperatorCheckpointsWithoutTheInputOrTheTaskOfTheFailedAction() throws Exception {
        OperatorSubtaskState checkpoint;
        try (KeyedOneInputStreamOperatorTestHarness<String, String, Object> harness =
                harness(new ActionExecutionOperatorFactory<>(plan(), true))) {
            harness.open();
            harness.processElement(new StreamRecord<>(ThrowingAgent.BOOM));
            runNextMail(harness);
            assertTrue(harness.getTaskMailbox().hasMail(), "the failure waits in a mail");
            // The barrier is processed before that mail: the record was consumed before it.
            checkpoint = harness.snapshot(1, 1);
        }
        try (KeyedOneInputStreamOperatorTestHarness<String, String, Object> restored =
                harness(new ActionExecutionOperatorFactory<>(plan(), true))) {
            restored.initializeState(checkpoint);
            restored.open();
            // As a task does: the mails of the restore (the operator resumes the keys it had in
            // flight) before the next record.
            runAllMails(restored);
            restored.processElement(new StreamRecord<>("after the restore"));
            runAllMails(restored);
            assertEquals(Collections.singletonList("ok after the restore"), restored.extractOutputValues(),
                    "the restored operator knows nothing of the failed record: its input is lost");
        }
    }

    @Test
    void throughDurableAgentsTheCheckpointFailsAndTheRestoreProcessesTheFailedInputAgain(@TempDir Path journals) throws Exception {
        // Inputs of their own, so that attempts counted by another run in this JVM never mix with these.
        String fine = "fine-" + journals.getFileName();
        String failing = FailsOnceAgent.FAILS_ONCE + "-" + journals.getFileName();
        ActionStateStoreFactory stores = ActionStateStoreFactory.fileStores(journals.toString());
        OperatorSubtaskState lastCompleted;
        try (KeyedOneInputStreamOperatorTestHarness<String, String, Object> harness = harness(failsOncePlan(stores))) {
            harness.open();
            harness.processElement(new StreamRecord<>(fine));
            runNextMail(harness);
            assertEquals(Collections.singletonList("ok " + fine), harness.extractOutputValues());
            lastCompleted = harness.snapshot(1, 1);

            harness.processElement(new StreamRecord<>(failing));
            runNextMail(harness);
            Exception refused = assertThrows(Exception.class, () -> harness.snapshot(2, 2));
            assertTrue(Failures.causes(refused).contains("the action failed on " + failing),
                    "the checkpoint failed with the action's own exception: " + Failures.causes(refused));
        }
        // Flink restores the last completed checkpoint, and the source replays what came after it.
        try (KeyedOneInputStreamOperatorTestHarness<String, String, Object> restored = harness(failsOncePlan(stores))) {
            restored.initializeState(lastCompleted);
            restored.open();
            runAllMails(restored);
            restored.processElement(new StreamRecord<>(failing));
            runAllMails(restored);
            assertEquals(Collections.singletonList("ok " + failing), restored.extractOutputValues(),
                    "the failed record's input was processed again, and its action completed");
            assertEquals(2, FailsOnceAgent.ATTEMPTS.get(failing).get(), "its action ran once before the failure and once after the restore");
            assertEquals(1, FailsOnceAgent.ATTEMPTS.get(fine).get(), "the record of the completed checkpoint was not run again");
        }
    }

    private static DurableActionExecutionOperatorFactory<String, Object> failsOncePlan(ActionStateStoreFactory stores) throws Exception {
        return new DurableActionExecutionOperatorFactory<>(new AgentPlan(new FailsOnceAgent()), true, stores);
    }

    @Test
    void theGuardRefusesToStartOverAnOperatorThatDoesNotDescribeTheRethrowMail() {
        // The operator of every supported Flink Agents does: the guard starts (every test above runs through it).
        ActionFailureGuard.requireRethrowMailDescribed(ActionExecutionOperator.class);
        // An operator that does not (any other class stands for one whose description changed).
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> ActionFailureGuard.requireRethrowMailDescribed(ActionExecutionOperatorFactory.class));
        assertTrue(refused.getMessage().startsWith(ActionExecutionOperatorFactory.class.getName() + " (from "), refused.getMessage());
        assertTrue(refused.getMessage().contains("does not describe a mail as 'throw exception in mailbox'"), refused.getMessage());
        assertTrue(refused.getMessage().contains("supports Flink Agents " + FlinkAgentsCompatibility.SUPPORTED_VERSIONS),
                refused.getMessage());
    }
}
