package io.durablejournal.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durablejournal.ActionState;
import io.durablejournal.DurableCallable;
import io.durablejournal.DurableExecutionContext;
import io.durablejournal.RunnerContextImpl;
import io.durablejournal.store.EventIdentity;
import io.durablejournal.store.LogActionStateStore;
import java.util.concurrent.Callable;

/**
 * One round of {@code LoaderLeakProbe} over the Kafka store's jar and its kafka-clients: a store
 * over the broker and topic the system properties {@code loaderRound.bootstrap} and {@code
 * loaderRound.topic} name, one durable call recorded in it (a Kafka append through the native
 * store's Java transport), closed. Loaded only by the round's class loader.
 */
public final class KafkaLoaderRound implements Callable<String> {
    @Override
    public String call() throws Exception {
        KafkaStoreConfig config = KafkaStoreConfig.of(System.getProperty("loaderRound.bootstrap"), System.getProperty("loaderRound.topic"));
        JsonNode answer = new ObjectMapper().readTree("{\"reply\":1.5}");
        try (LogActionStateStore store = KafkaActionStateStores.openFresh(config)) {
            EventIdentity event = EventIdentity.occurrence("loader-round");
            try (DurableExecutionContext context = store.openContext("user", 1, "act", event, new ActionState())) {
                JsonNode made = new RunnerContextImpl(context).durableExecute(DurableCallable.of("tool-call:lookup", JsonNode.class, () -> answer));
                return made + " records=" + store.stats().recordsAppended();
            }
        }
    }
}
