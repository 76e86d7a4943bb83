package io.durablejournal.flinkagents;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.testing.JobTest;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import org.apache.flink.agents.api.InputEvent;
import org.apache.flink.agents.plan.actions.Action;
import org.apache.flink.agents.runtime.actionstate.ActionState;
import org.apache.flink.agents.runtime.actionstate.ActionStateUtil;
import org.junit.jupiter.api.io.TempDir;

/**
 * A journal written in one JVM is found in another, as after a TaskManager restart: the child
 * JVM ({@link StoreWriterJvm}) journals an action, this JVM plans the agent anew (new {@code
 * Action} objects, a new event id) and finds the entry, by the key's text as the operator's first
 * lookup passes it and by the key. Flink Agents' Kafka store keys the entry by the action's
 * {@code hashCode()}, which hashes the {@code Class} objects of the action's parameter types
 * (identity hash codes, which differ from JVM to JVM): the two JVMs' Kafka keys differ.
 */
class ActionsAcrossJvmsTest {
    @TempDir
    Path tmp;

    @JobTest
    void aJournalWrittenInAnotherJvmIsFoundByActionName() throws Exception {
        Path storeDir = tmp.resolve("store");
        Path report = tmp.resolve("child.txt");
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), StoreWriterJvm.class.getName(),
                storeDir.toString(), report.toString())
                .redirectErrorStream(true)
                .redirectOutput(tmp.resolve("child.log").toFile())
                .start();
        assertEquals(0, child.waitFor(), "the child JVM journaled the action: "
                + new String(Files.readAllBytes(tmp.resolve("child.log")), StandardCharsets.UTF_8));
        List<String> lines = Files.readAllLines(report, StandardCharsets.UTF_8);
        String marker = lines.get(0);

        Action draft = Fixtures.draft(Fixtures.plan());
        InputEvent replayed = Fixtures.input(1);
        String kafkaKeyHere = ActionStateUtil.generateKey("user_1", 1, draft, replayed);
        System.out.println("[kafka store keys] written in the child JVM: " + lines.get(1) + "; in this JVM: " + kafkaKeyHere);
        assertNotEquals(lines.get(1), kafkaKeyHere,
                "Flink Agents' Kafka store would miss this journal: its key hashes the identity of Class objects");
        try (JournalActionStateStore store = Fixtures.store(
                ActionStateStoreFactory.fileStores(storeDir.toString()), 0, 1, 1)) {
            store.rebuildState(Collections.singletonList(marker));
            ActionState byText = store.get("user_1", 1, draft, replayed);
            assertNotNull(byText, "found by the key's text, the operator's first lookup");
            assertEquals(2, byText.getCallResults().size());
            assertEquals(2, store.get("user_1", 1, draft, replayed).getCallResults().size());
        }
    }
}
