package io.durablejournal.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durablejournal.ActionState;
import io.durablejournal.DurableCallable;
import io.durablejournal.DurableExecutionContext;
import io.durablejournal.RunnerContextImpl;
import io.durablejournal.store.EventIdentity;
import io.durablejournal.store.LogActionStateStore;
import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * One round of {@code LoaderLeakProbe} over the Kafka store's jar and its kafka-clients: a store
 * over the broker and topic the system properties {@code loaderRound.bootstrap} and {@code
 * loaderRound.topic} name, one durable call recorded in it (a Kafka append through the native
 * store's Java transport), the action completed and its copy retained in {@code <topic>-retained}
 * (a second transport, held by its own JNI global reference until the store closes), closed.
 * Loaded only by the round's class loader.
 */
public final class KafkaLoaderRound implements Callable<String> {
    @Override
    public String call() throws Exception {
        KafkaStoreConfig config = KafkaStoreConfig.of(System.getProperty("loaderRound.bootstrap"), System.getProperty("loaderRound.topic"))
                .retainCompleted(Duration.ofDays(1), 100);
        JsonNode answer = new ObjectMapper().readTree("{\"reply\":1.5}");
        try (LogActionStateStore store = KafkaActionStateStores.openFresh(config)) {
            EventIdentity event = EventIdentity.occurrence("loader-round");
            try (DurableExecutionContext context = store.openContext("user", 1, "act", event, new ActionState())) {
                JsonNode made = new RunnerContextImpl(context).durableExecute(DurableCallable.of("tool-call:lookup", JsonNode.class, () -> answer));
                context.markCompleted();
                store.sync();
                if (!store.retainsCompleted() || store.retentionError() != null) {
                    throw new IllegalStateException("retention did not take the copy: " + store.retentionError());
                }
                return made + " records=" + store.stats().recordsAppended();
            }
        }
    }
}
