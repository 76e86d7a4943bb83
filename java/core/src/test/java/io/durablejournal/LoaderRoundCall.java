package io.durablejournal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durablejournal.store.ActionStateStores;
import io.durablejournal.store.EventIdentity;
import io.durablejournal.store.NativeActionStateStore;
import java.nio.file.Paths;
import java.util.concurrent.Callable;

/**
 * One round of {@link LoaderLeakProbe} over the core jar: a durable call through a journal of a
 * memory store, its replay, the store's stats and a refused call (each builds objects of the
 * jar's classes in Rust: the call step, the context, the stats, a JournalException), all with the
 * jar's own Jackson. Loaded only by the round's class loader.
 */
public final class LoaderRoundCall implements Callable<String> {
    @Override
    public String call() throws Exception {
        JsonNode answer = new ObjectMapper().readTree("{\"reply\":1.5}");
        try (NativeActionStateStore store = ActionStateStores.inMemory()) {
            EventIdentity event = EventIdentity.occurrence("loader-round");
            DurableExecutionContext first = store.openContext("user", 1, "act", event, new ActionState());
            JsonNode made = new RunnerContextImpl(first).durableExecute(DurableCallable.of("tool-call:lookup", JsonNode.class, () -> answer));
            first.close();
            DurableExecutionContext replay = store.openContext("user", 1, "act", event, new ActionState());
            JsonNode replayed = new RunnerContextImpl(replay).durableExecute(DurableCallable.of("tool-call:lookup", JsonNode.class, () -> {
                throw new IllegalStateException("a replay must not run the call");
            }));
            replay.close();
            long entries = store.stats().entries();
            return made + " " + replayed + " entries=" + entries + " refused=" + refusedOpen();
        }
    }

    /** The error of opening a file store where no directory can be: a JournalException built in Rust. */
    private static String refusedOpen() {
        try (NativeActionStateStore opened = ActionStateStores.openFileStore(Paths.get("/proc/version/store"))) {
            return "none";
        } catch (JournalException expected) {
            return expected.getCode().toString();
        }
    }
}
