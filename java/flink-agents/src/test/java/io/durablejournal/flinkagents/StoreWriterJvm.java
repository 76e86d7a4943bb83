package io.durablejournal.flinkagents;

import io.durablejournal.flink.ActionStateStoreFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.Collections;
import org.apache.flink.agents.api.InputEvent;
import org.apache.flink.agents.plan.actions.Action;
import org.apache.flink.agents.runtime.actionstate.ActionStateUtil;

/**
 * Run in a child JVM by {@link ActionsAcrossJvmsTest}: journals two calls of the demo agent's
 * {@code draft} action for request 1 of {@code user_1} into the file store in {@code args[0]}, as
 * subtask 0 of 1, and writes to {@code args[1]} its recovery marker, then the key Flink Agents'
 * Kafka store would give the same entry in this JVM.
 */
public final class StoreWriterJvm {
    private StoreWriterJvm() {}

    public static void main(String[] args) throws Exception {
        Action draft = Fixtures.draft(Fixtures.plan());
        InputEvent event = Fixtures.input(1);
        Object marker;
        try (JournalActionStateStore store = Fixtures.store(ActionStateStoreFactory.fileStores(args[0]), 0, 1, 0)) {
            store.rebuildState(Collections.emptyList());
            store.put("user_1", 1, draft, event, Fixtures.stateWithCalls(event, 2, "journaled in another JVM "));
            marker = store.getRecoveryMarker();
        }
        Files.write(Paths.get(args[1]), Arrays.asList((String) marker, ActionStateUtil.generateKey("user_1", 1, draft, event)),
                StandardCharsets.UTF_8);
    }
}
